//! The players of a match: the built-in engine searching in this process (hand-crafted
//! evaluation or a network file), or an outside UCI engine; both behind [`MatchEngine`].

use super::runner::MatchError;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use kage_engine::eval::{EvalParams, Evaluator};
use kage_engine::search::{Limits, MATE, MATE_BOUND, Searcher};
use kage_engine::util::read::{cap, read_text_capped};
use kage_engine::{Color, Game, Variant};
use serde::{Deserialize, Serialize};

use super::uci::{UciEngine, UciError, UciSpec};
use crate::build::Build;

/// An engine's evaluation of its move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Score {
    /// Centipawns, from the mover's side.
    Cp(i32),
    /// Mate in that many moves (negative: being mated).
    Mate(i32),
}

impl Score {
    /// `+0.35`, `-1.20`, `+M3`, `-M2` (PGN comment style).
    pub fn pgn(self) -> String {
        match self {
            Score::Cp(c) => {
                format!("{}{:.2}", if c >= 0 { "+" } else { "-" }, f64::from(c.abs()) / 100.0)
            }
            Score::Mate(m) => format!("{}M{}", if m >= 0 { "+" } else { "-" }, m.abs()),
        }
    }

    /// As a search score: centipawns, or a mate as `MATE` minus its plies.
    pub fn centipawns(self) -> i32 {
        match self {
            Score::Cp(c) => c,
            Score::Mate(m) if m > 0 => MATE - (2 * m - 1),
            Score::Mate(m) => -MATE + 2 * m.saturating_abs(),
        }
    }

    fn from_search(s: i32) -> Score {
        if s.abs() >= MATE_BOUND {
            let plies = MATE - s.abs();
            let moves = (plies + 1) / 2;
            Score::Mate(if s > 0 { moves } else { -moves })
        } else {
            Score::Cp(s)
        }
    }
}

/// Who plays: the built-in engine or an outside one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum EngineKind {
    /// kage's search in this process; `net`: a network file (none: the variant's default
    /// evaluation, its shipped network where it has one); `params`: hand-crafted evaluation
    /// parameters from a file (`kage-train tune`'s output); `hce`: the hand-crafted
    /// evaluation with its built-in parameters.
    Builtin {
        /// Network file.
        net: Option<PathBuf>,
        /// Transposition table, MiB.
        hash_mb: usize,
        /// Evaluation-parameter file (TOML).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        params: Option<PathBuf>,
        /// The hand-crafted evaluation (`eval=hce`) instead of the variant's default.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        hce: bool,
        /// Nodes per move for this engine in place of the match's node limit (a ladder's
        /// rungs: players of two budgets in one match; the limit's jitter still applies).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        nodes: Option<u64>,
    },
    /// An outside UCI engine.
    Uci(UciSpec),
}

/// A named player.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineSpec {
    /// The name in reports and PGN.
    pub name: String,
    /// What it is.
    pub kind: EngineKind,
}

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
    fn limits(self) -> Limits {
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

    fn go(self) -> String {
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

/// An engine's answer.
#[derive(Clone, Debug)]
pub struct Reply {
    /// The move as it wrote it.
    pub text: String,
    /// The score it reported last, from its side.
    pub score: Option<Score>,
    /// The depth it reported last.
    pub depth: Option<u32>,
    /// The nodes it reported last.
    pub nodes: Option<u64>,
}

/// A player of a match.
pub trait MatchEngine: Send {
    /// Prepares for a new game.
    fn new_game(&mut self) -> Result<(), UciError>;
    /// Searches the current position of `game` within `limit`; an outside engine that has
    /// not answered within `wait` gets a timeout.
    fn go(&mut self, game: &Game, limit: MoveLimit, wait: Duration) -> Result<Reply, UciError>;
    /// After a fault: a fresh process (outside engines) or nothing (built-in).
    fn restart(&mut self) -> Result<(), UciError>;
    /// After a timeout that still counts (a flag fall): stop the search, restart if it does
    /// not stop.
    fn abandon(&mut self) -> Result<(), UciError>;
    /// What it is built from (checked when a match resumes).
    fn build(&self) -> Build;
}

/// The built-in engine.
pub struct Builtin {
    searcher: Searcher,
    stop: AtomicBool,
}

impl Builtin {
    /// A searcher with `hash_mb` MiB of hash and `evaluator`.
    pub fn new(hash_mb: usize, evaluator: Evaluator) -> Self {
        let mut searcher = Searcher::new(hash_mb);
        searcher.set_evaluator(evaluator);
        Builtin { searcher, stop: AtomicBool::new(false) }
    }
}

impl MatchEngine for Builtin {
    fn new_game(&mut self) -> Result<(), UciError> {
        self.searcher.clear();
        Ok(())
    }

    fn go(&mut self, game: &Game, limit: MoveLimit, wait: Duration) -> Result<Reply, UciError> {
        let mut limits = limit.limits();
        // A depth has no bound in time of its own: the hang time is its ceiling, and a
        // search stopped there is a hang, as an outside engine's would be.
        if let MoveLimit::Depth(_) = limit {
            limits.movetime_ms = Some((wait.as_millis() as u64).max(1));
        }
        let t0 = std::time::Instant::now();
        let r = self.searcher.search(game, &limits, &self.stop, &mut |_| {});
        if let MoveLimit::Depth(depth) = limit
            && r.depth < depth
            && t0.elapsed() + Duration::from_millis(10) >= wait
        {
            return Err(UciError::DepthNotReached { depth, ms: wait.as_millis() as u64 });
        }
        let text = if r.best_move.is_null() {
            "(none)".to_owned()
        } else {
            game.position().move_to_uci(r.best_move)
        };
        Ok(Reply {
            text,
            score: Some(Score::from_search(r.score)),
            depth: Some(r.depth),
            nodes: Some(r.nodes),
        })
    }

    fn restart(&mut self) -> Result<(), UciError> {
        Ok(())
    }

    fn abandon(&mut self) -> Result<(), UciError> {
        Ok(())
    }

    fn build(&self) -> Build {
        crate::build::this_program()
    }
}

/// An outside engine with what it needs to restart.
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

impl MatchEngine for Outside {
    fn new_game(&mut self) -> Result<(), UciError> {
        self.engine.new_game()
    }

    fn go(&mut self, game: &Game, limit: MoveLimit, wait: Duration) -> Result<Reply, UciError> {
        self.engine.go(&position_command(game), &limit.go(), wait)
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

/// The evaluation of a built-in player: its network loaded for `variant`, the hand-crafted
/// one with parameters from a file, or the built-in hand-crafted one.
pub fn load_evaluator(
    net: Option<&PathBuf>,
    params: Option<&PathBuf>,
    hce: bool,
    variant: &Variant,
) -> Result<Evaluator, MatchError> {
    load_evaluator_msg(net, params, hce, variant).map_err(MatchError::Setup)
}

fn load_evaluator_msg(
    net: Option<&PathBuf>,
    params: Option<&PathBuf>,
    hce: bool,
    variant: &Variant,
) -> Result<Evaluator, String> {
    match (net, params) {
        (Some(_), Some(_)) => Err("give net= or params=, not both".into()),
        (Some(_), None) if hce => Err("give net= or eval=hce, not both".into()),
        (None, None) if hce => Ok(Evaluator::HandCrafted),
        (None, None) => Ok(Evaluator::Default),
        (None, Some(p)) => {
            let text = read_text_capped(p, cap::TEXT, "parameter file")
                .map_err(|e| format!("cannot read {e}"))?;
            let params = EvalParams::parse(&text).map_err(|e| format!("{}: {e}", p.display()))?;
            Ok(Evaluator::HandCraftedWith(std::sync::Arc::new(params)))
        }
        (Some(p), None) => {
            let bytes = kage_engine::nnue::read_file(p)
                .map_err(|e| format!("cannot read {}: {e}", p.display()))?;
            Evaluator::load_nnue(&bytes, variant).map_err(|e| format!("{}: {e}", p.display()))
        }
    }
}

/// Starts a player (built-in engines share `evaluator`, loaded once).
pub fn start(
    spec: &EngineSpec,
    variant: &str,
    evaluator: &Evaluator,
) -> Result<Box<dyn MatchEngine>, UciError> {
    Ok(match &spec.kind {
        EngineKind::Builtin { hash_mb, .. } => Box::new(Builtin::new(*hash_mb, evaluator.clone())),
        EngineKind::Uci(u) => Box::new(Outside::start(u, variant)?),
    })
}

/// The index of a colour (White 0, Black 1).
pub fn side(c: Color) -> usize {
    c.index()
}
