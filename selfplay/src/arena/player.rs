//! The one player trait of self-play, matches, audits and books: given a game and a limit, a
//! move, its score and (for MultiPV openings) the best few root moves. The built-in searcher
//! ([`Builtin`]), a capture-greedy test player ([`GreedyPlayer`]) and an outside UCI engine
//! ([`Outside`]) implement it.

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use kage_engine::eval::Evaluator;
use kage_engine::search::{Limits, Searcher};
use kage_engine::{Game, Move};

use crate::build::Build;
use crate::matches::uci::{UciEngine, UciError, UciSpec};

/// The search limit of one move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveLimit {
    /// Nodes per move.
    Nodes(u64),
    /// Depth per move.
    Depth(u32),
    /// Milliseconds per move.
    Movetime(u64),
    /// Both clocks and increments (ms), White first.
    Clock {
        /// Time left, White first (ms).
        time: [u64; 2],
        /// Increments, White first (ms).
        inc: [u64; 2],
    },
}

impl MoveLimit {
    /// The built-in searcher's limits.
    pub(crate) fn limits(self) -> Limits {
        let mut l = Limits::default();
        match self {
            MoveLimit::Nodes(n) => l.nodes = Some(n),
            MoveLimit::Depth(d) => l.depth = Some(d),
            MoveLimit::Movetime(ms) => l.movetime_ms = Some(ms),
            MoveLimit::Clock { time, inc } => {
                l.wtime = Some(time[0]);
                l.btime = Some(time[1]);
                l.winc = Some(inc[0]);
                l.binc = Some(inc[1]);
            }
        }
        l
    }

    /// The UCI `go` command.
    pub(crate) fn go(self) -> String {
        match self {
            MoveLimit::Nodes(n) => format!("go nodes {n}"),
            MoveLimit::Depth(d) => format!("go depth {d}"),
            MoveLimit::Movetime(ms) => format!("go movetime {ms}"),
            MoveLimit::Clock { time, inc } => {
                format!("go wtime {} btime {} winc {} binc {}", time[0], time[1], inc[0], inc[1])
            }
        }
    }
}

/// What a player is asked for one position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ask {
    /// How long to search.
    pub limit: MoveLimit,
    /// Root lines wanted in [`Answer::lines`] (at least 1; outside engines give one).
    pub multipv: usize,
    /// How long to wait for the move before the player counts as hanging; `None`: the limit
    /// alone bounds it (the built-in searcher), [`DEFAULT_WAIT`] for an outside engine.
    pub wait: Option<Duration>,
}

impl Ask {
    /// One line within `limit`, no wait bound of its own.
    pub fn new(limit: MoveLimit) -> Self {
        Ask { limit, multipv: 1, wait: None }
    }
}

/// How long an outside engine may take when the ask names no wait.
pub const DEFAULT_WAIT: Duration = Duration::from_secs(60);

/// A player's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// The move, when it is one of the position's (`None`: no move, or one that could not
    /// be read; a legal move is still to be checked by the caller).
    pub best: Option<Move>,
    /// The move as the player wrote it (UCI notation; `(none)` for no move).
    pub text: String,
    /// The score from the side to move, in the searcher's units (centipawns; mates as
    /// `MATE` minus plies), when the player reported one.
    pub score: Option<i32>,
    /// Root moves with their scores, best first (the best move alone when the player gives
    /// no others; empty without a move).
    pub lines: Vec<(i32, Move)>,
    /// Depth reached, when reported.
    pub depth: Option<u32>,
    /// Nodes searched, when reported.
    pub nodes: Option<u64>,
}

/// A player: the built-in searcher, or an outside engine. It must be deterministic given the
/// game and the asks since the last [`Player::new_game`] when it is to make reproducible
/// games (the built-in players are).
pub trait Player: Send {
    /// Forgets everything from earlier games.
    fn new_game(&mut self) -> Result<(), UciError>;
    /// Chooses a move in `game`'s current position, which has at least one legal move.
    fn go(&mut self, game: &Game, ask: &Ask) -> Result<Answer, UciError>;
    /// After a fault: a fresh process (outside engines) or nothing (built-in players).
    fn restart(&mut self) -> Result<(), UciError> {
        Ok(())
    }
    /// After a timeout that still counts (a flag fall): stop the search, restart if it does
    /// not stop.
    fn abandon(&mut self) -> Result<(), UciError> {
        Ok(())
    }
    /// What it is built from (checked when a match resumes).
    fn build(&self) -> Build {
        crate::build::this_program()
    }
}

/// The built-in engine: kage's searcher in this process.
pub struct Builtin {
    searcher: Searcher,
    stop: AtomicBool,
}

impl Builtin {
    /// A searcher with `hash_mb` MiB of hash and `evaluator`.
    pub fn new(hash_mb: usize, evaluator: Evaluator) -> Self {
        let mut b = Builtin::default_eval(hash_mb);
        b.searcher.set_evaluator(evaluator);
        b
    }

    /// A searcher with `hash_mb` MiB of hash and the searcher's own default evaluation.
    pub fn default_eval(hash_mb: usize) -> Self {
        Builtin { searcher: Searcher::new(hash_mb), stop: AtomicBool::new(false) }
    }

    /// The searcher, e.g. to set its evaluator.
    pub fn searcher_mut(&mut self) -> &mut Searcher {
        &mut self.searcher
    }
}

impl Player for Builtin {
    fn new_game(&mut self) -> Result<(), UciError> {
        self.searcher.clear();
        Ok(())
    }

    fn go(&mut self, game: &Game, ask: &Ask) -> Result<Answer, UciError> {
        let mut limits = ask.limit.limits();
        limits.multipv = ask.multipv.max(1);
        // A depth has no bound in time of its own: the wait is its ceiling, and a search
        // stopped there is a hang, as an outside engine's would be.
        let ceiling = match (ask.limit, ask.wait) {
            (MoveLimit::Depth(depth), Some(wait)) => Some((depth, wait)),
            _ => None,
        };
        if let Some((_, wait)) = ceiling {
            limits.movetime_ms = Some((wait.as_millis() as u64).max(1));
        }
        let t0 = std::time::Instant::now();
        let r = self.searcher.search(game, &limits, &self.stop, &mut |_| {});
        if let Some((depth, wait)) = ceiling
            && r.depth < depth
            && t0.elapsed() + Duration::from_millis(10) >= wait
        {
            return Err(UciError::DepthNotReached { depth, ms: wait.as_millis() as u64 });
        }
        let best = (!r.best_move.is_null()).then_some(r.best_move);
        let mut lines: Vec<(i32, Move)> =
            r.lines.iter().filter_map(|(s, pv)| pv.first().map(|&m| (*s, m))).collect();
        if lines.is_empty() {
            lines.extend(best.map(|m| (r.score, m)));
        }
        Ok(Answer {
            best,
            text: best.map_or_else(|| "(none)".to_owned(), |m| game.position().move_to_uci(m)),
            score: Some(r.score),
            lines,
            depth: Some(r.depth),
            nodes: Some(r.nodes),
        })
    }
}

/// A 1-ply capture-greedy player: captures the most valuable piece, else plays the first
/// move. Fast and deterministic; used by tests of the pipeline that do not need real games.
#[derive(Clone, Debug, Default)]
pub struct GreedyPlayer;

impl Player for GreedyPlayer {
    fn new_game(&mut self) -> Result<(), UciError> {
        Ok(())
    }

    fn go(&mut self, game: &Game, ask: &Ask) -> Result<Answer, UciError> {
        let pos = game.position();
        let v = pos.variant();
        let mut lines: Vec<(i32, Move)> = pos
            .legal_moves()
            .as_slice()
            .iter()
            .map(|&m| {
                let gain = pos.captured(m).map_or(0, |p| v.kind(p.kind).value);
                let promo = if m.is_promotion() { 50 } else { 0 };
                (gain + promo, m)
            })
            .collect();
        // Stable: equal scores keep generation order.
        lines.sort_by_key(|&(s, _)| std::cmp::Reverse(s));
        let (score, best) = lines.first().copied().unwrap_or((0, Move::NULL));
        let nodes = lines.len() as u64;
        lines.truncate(ask.multipv.max(1));
        let best = (!best.is_null()).then_some(best);
        Ok(Answer {
            best,
            text: best.map_or_else(|| "(none)".to_owned(), |m| pos.move_to_uci(m)),
            score: Some(score),
            lines,
            depth: Some(1),
            nodes: Some(nodes),
        })
    }
}

/// An outside UCI engine with what it needs to restart.
pub struct Outside {
    engine: UciEngine,
    variant: String,
}

impl Outside {
    /// Starts `spec` for `variant`.
    pub fn start(spec: &UciSpec, variant: &str) -> Result<Self, UciError> {
        Ok(Outside { engine: UciEngine::start(spec, variant)?, variant: variant.to_owned() })
    }
}

/// `position startpos|fen F [moves ...]` for `game`.
pub fn position_command(game: &Game) -> String {
    let start = game.start_position();
    let mut s = if start.to_fen() == kage_engine::Position::startpos(start.variant()).to_fen() {
        "position startpos".to_owned()
    } else {
        format!("position fen {}", start.to_fen())
    };
    if !game.moves().is_empty() {
        s.push_str(" moves");
        let mut p = start.clone();
        for &m in game.moves() {
            s.push(' ');
            s.push_str(&p.move_to_uci(m));
            p.play(m);
        }
    }
    s
}

impl Player for Outside {
    fn new_game(&mut self) -> Result<(), UciError> {
        self.engine.new_game()
    }

    fn go(&mut self, game: &Game, ask: &Ask) -> Result<Answer, UciError> {
        let wait = ask.wait.unwrap_or(DEFAULT_WAIT);
        let r = self.engine.go(&position_command(game), &ask.limit.go(), wait)?;
        let best = game.position().parse_move(&r.text).ok();
        let score = r.score.map(|s| s.centipawns());
        Ok(Answer {
            best,
            text: r.text,
            score,
            lines: best.map(|m| (score.unwrap_or(0), m)).into_iter().collect(),
            depth: r.depth,
            nodes: r.nodes,
        })
    }

    fn restart(&mut self) -> Result<(), UciError> {
        self.engine.restart(&self.variant)
    }

    fn abandon(&mut self) -> Result<(), UciError> {
        if self.engine.stop(Duration::from_secs(1)) { Ok(()) } else { self.restart() }
    }

    fn build(&self) -> Build {
        self.engine.build()
    }
}
