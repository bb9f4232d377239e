//! Search: iterative deepening PVS with aspiration windows, quiescence, a transposition
//! table, null-move pruning, late-move reductions and check extensions, scoring every
//! game end (checkmate, campmate, stalemate, repetition, perpetual check, pawn-drop mate,
//! move rule) exactly as the rules decide.
//!
//! One [`Searcher`] per thread; a fixed-depth or fixed-node search is deterministic.

pub mod bench;
mod correction;
mod end_scores;
mod node;
mod ordering;
pub mod params;
mod root;
pub mod see;
pub mod tactical;
#[allow(missing_docs)] // UCI glue, being moved to protocol/ on another branch
pub mod thread;
mod time;
pub mod tt;

use crate::eval::nnue_eval::{NetEval, NnueEval};
use crate::eval::{Evaluator, Hce};
use crate::game::Game;
use crate::nnue::fsf::FsfSearchEval;
use crate::types::Move;
use ordering::Ordering;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use tt::Tt;

/// Score of a mate at the root; a mate in `n` plies scores `MATE - n`.
pub const MATE: i32 = 32000;
/// Scores at least this large (in absolute value) are mates.
pub const MATE_BOUND: i32 = MATE - 1000;
/// Larger than any score.
pub const INFINITE: i32 = MATE + 1;

/// What to search for how long. `Limits::default()` searches until `stop` (up to the
/// maximum depth); a `multipv` of 0 is taken as 1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Search this many plies at most.
    pub depth: Option<u32>,
    /// Stop after about this many nodes.
    pub nodes: Option<u64>,
    /// Think exactly this long.
    pub movetime_ms: Option<u64>,
    /// White's clock, milliseconds.
    pub wtime: Option<u64>,
    /// Black's clock, milliseconds.
    pub btime: Option<u64>,
    /// White's increment per move, milliseconds.
    pub winc: Option<u64>,
    /// Black's increment per move, milliseconds.
    pub binc: Option<u64>,
    /// Moves until the next time control.
    pub movestogo: Option<u32>,
    /// Search until stopped.
    pub infinite: bool,
    /// Principal variations to report (at least 1).
    pub multipv: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            depth: None,
            nodes: None,
            movetime_ms: None,
            wtime: None,
            btime: None,
            winc: None,
            binc: None,
            movestogo: None,
            infinite: false,
            multipv: 1,
        }
    }
}

impl Limits {
    /// A fixed-depth search.
    pub fn depth(d: u32) -> Limits {
        Limits { depth: Some(d), ..Limits::default() }
    }

    /// A fixed-node search.
    pub fn nodes(n: u64) -> Limits {
        Limits { nodes: Some(n), ..Limits::default() }
    }
}

/// Progress after each completed iteration, one per MultiPV line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchInfo {
    /// Completed depth.
    pub depth: u32,
    /// Deepest ply reached.
    pub seldepth: u32,
    /// 1-based line number.
    pub multipv: usize,
    /// Centipawns from the side to move; mates as `±(MATE - plies)`.
    pub score: i32,
    /// Nodes searched so far.
    pub nodes: u64,
    /// Nodes per second.
    pub nps: u64,
    /// Milliseconds since the search started.
    pub time_ms: u64,
    /// The principal variation.
    pub pv: Vec<Move>,
}

/// The answer of a search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResult {
    /// `Move::NULL` exactly when the position has no legal move.
    pub best_move: Move,
    /// Centipawns from the side to move; mates as `±(MATE - plies)`.
    pub score: i32,
    /// Last completed depth.
    pub depth: u32,
    /// Deepest ply reached.
    pub seldepth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// The principal variation.
    pub pv: Vec<Move>,
    /// MultiPV lines `(score, pv)`, best first.
    pub lines: Vec<(i32, Vec<Move>)>,
}

/// Whether a score is a mate score, and the mate distance in moves for UCI (`score mate n`).
pub fn mate_in_moves(score: i32) -> Option<i32> {
    if score >= MATE_BOUND {
        Some((MATE - score + 1) / 2)
    } else if score <= -MATE_BOUND {
        Some(-(MATE + score) / 2)
    } else {
        None
    }
}

/// A single-threaded searcher: transposition table, history and evaluator.
pub struct Searcher {
    tt: Tt,
    ordering: Box<Ordering>,
    evaluator: Evaluator,
    hce: Option<Hce>,
    nnue: Option<NetEval>,
}

impl Searcher {
    /// A searcher with a transposition table of about `hash_mb` megabytes (less when the
    /// machine cannot give that much: see [`Searcher::hash_mb`]).
    pub fn new(hash_mb: usize) -> Searcher {
        Searcher {
            tt: Tt::new(hash_mb),
            ordering: Box::new(Ordering::new()),
            evaluator: Evaluator::default(),
            hce: None,
            nnue: None,
        }
    }

    /// Forgets everything learnt (transposition table, history, killers).
    pub fn clear(&mut self) {
        self.tt.clear();
        self.ordering.clear();
    }

    /// Resizes the transposition table (clearing it) to about `hash_mb` megabytes, or less
    /// when the machine cannot give that much; returns the megabytes it got.
    pub fn resize(&mut self, hash_mb: usize) -> usize {
        // Free the old table first: the new one may need the room.
        self.tt = Tt::allocate(1).0;
        let (tt, got) = Tt::allocate(hash_mb);
        self.tt = tt;
        got
    }

    /// The transposition table's size in megabytes.
    pub fn hash_mb(&self) -> usize {
        self.tt.size_mb()
    }

    /// Sets the evaluation (the transposition table is cleared: its scores came from the
    /// previous one).
    pub fn set_evaluator(&mut self, evaluator: Evaluator) {
        self.evaluator = evaluator;
        self.nnue = None;
        self.hce = None;
        self.tt.clear();
    }

    /// The evaluation this searcher uses.
    pub fn evaluator(&self) -> &Evaluator {
        &self.evaluator
    }

    /// Searches the current position of `game` within `limits`, until `stop` is set, calling
    /// `on_info` after every completed iteration.
    pub fn search(
        &mut self,
        game: &Game,
        limits: &Limits,
        stop: &AtomicBool,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult {
        let v = game.variant();
        if !self.hce.as_ref().is_some_and(|h| std::ptr::eq(h.variant(), v)) {
            self.hce = Some(match &self.evaluator {
                Evaluator::HandCraftedWith(p) => Hce::with_params(v, p),
                _ => Hce::new(v),
            });
        }
        self.prepare_net_eval(v);
        let hce = self.hce.as_ref().expect("evaluation tables built above");
        let nnue = self.nnue.as_mut();
        self.tt.new_search();
        let mut ctx =
            node::Ctx::new(&mut self.tt, &mut self.ordering, hce, nnue, stop, game, limits);
        root::iterate(&mut ctx, game, limits, on_info)
    }

    /// Sets up the net evaluation for `v` (kept while the net and variant stay the same;
    /// none when the evaluator has no net that fits `v`).
    fn prepare_net_eval(&mut self, v: &'static crate::variant::Variant) {
        let reuse =
            match (&self.nnue, self.evaluator.network_for(v), self.evaluator.fsf_network_for(v)) {
                (Some(NetEval::Kage(n)), Some(net), _) => {
                    Arc::ptr_eq(n.network(), net) && std::ptr::eq(n.variant(), v)
                }
                (Some(NetEval::Fsf(n)), _, Some(net)) => {
                    Arc::ptr_eq(n.network(), net) && std::ptr::eq(n.variant(), v)
                }
                _ => false,
            };
        if !reuse {
            self.nnue = if let Some(net) = self.evaluator.network_for(v) {
                Some(NetEval::Kage(NnueEval::new(Arc::clone(net), v)))
            } else {
                self.evaluator
                    .fsf_network_for(v)
                    .map(|net| NetEval::Fsf(FsfSearchEval::new(Arc::clone(net), v)))
            };
        }
    }
}
