//! The players of a match: the built-in engine searching in this process (hand-crafted
//! evaluation or a network file), or an outside UCI engine; both are arena players
//! ([`crate::arena::player::Player`]).

use std::path::PathBuf;

use kage_engine::eval::{EvalParams, Evaluator, ParamsError};
use kage_engine::nnue::NetError;
use kage_engine::search::{MATE, MATE_BOUND};
use kage_engine::util::read::{ReadError, cap, read_text_capped};
use kage_engine::{Color, Variant};
use serde::{Deserialize, Serialize};

use super::uci::{UciError, UciSpec};
use crate::arena::player::Player;
pub use crate::arena::player::{Builtin, MoveLimit, Outside, position_command};

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

    /// A search score as a score: a mate as moves, else centipawns.
    pub fn from_search(s: i32) -> Score {
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

/// Why a built-in player's evaluation cannot be loaded.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// Both a network and a parameter file.
    #[error("give net= or params=, not both")]
    NetAndParams,
    /// A network and the hand-crafted evaluation.
    #[error("give net= or eval=hce, not both")]
    NetAndHce,
    /// A parameter file that cannot be read.
    #[error("cannot read {0}")]
    ReadParams(ReadError),
    /// A parameter file that does not parse.
    #[error("{}: {cause}", path.display())]
    Params {
        /// The file.
        path: PathBuf,
        /// Why it is refused.
        cause: ParamsError,
    },
    /// A network file that cannot be read.
    #[error("cannot read {}: {cause}", path.display())]
    ReadNet {
        /// The file.
        path: PathBuf,
        /// Why it cannot be read.
        cause: NetError,
    },
    /// A network that does not load for the variant.
    #[error("{}: {cause}", path.display())]
    Net {
        /// The file.
        path: PathBuf,
        /// Why it is refused.
        cause: NetError,
    },
}

/// The evaluation of a built-in player: its network loaded for `variant`, the hand-crafted
/// one with parameters from a file, or the built-in hand-crafted one.
pub fn load_evaluator(
    net: Option<&PathBuf>,
    params: Option<&PathBuf>,
    hce: bool,
    variant: &Variant,
) -> Result<Evaluator, EvalError> {
    match (net, params) {
        (Some(_), Some(_)) => Err(EvalError::NetAndParams),
        (Some(_), None) if hce => Err(EvalError::NetAndHce),
        (None, None) if hce => Ok(Evaluator::HandCrafted),
        (None, None) => Ok(Evaluator::Default),
        (None, Some(p)) => {
            let text =
                read_text_capped(p, cap::TEXT, "parameter file").map_err(EvalError::ReadParams)?;
            let params = EvalParams::parse(&text)
                .map_err(|cause| EvalError::Params { path: p.clone(), cause })?;
            Ok(Evaluator::HandCraftedWith(std::sync::Arc::new(params)))
        }
        (Some(p), None) => {
            let bytes = kage_engine::nnue::read_file(p)
                .map_err(|cause| EvalError::ReadNet { path: p.clone(), cause })?;
            Evaluator::load_nnue(&bytes, variant)
                .map_err(|cause| EvalError::Net { path: p.clone(), cause })
        }
    }
}

/// Starts a player (built-in engines share `evaluator`, loaded once).
pub fn start(
    spec: &EngineSpec,
    variant: &str,
    evaluator: &Evaluator,
) -> Result<Box<dyn Player>, UciError> {
    Ok(match &spec.kind {
        EngineKind::Builtin { hash_mb, .. } => Box::new(Builtin::new(*hash_mb, evaluator.clone())),
        EngineKind::Uci(u) => Box::new(Outside::start(u, variant)?),
    })
}

/// The index of a colour (White 0, Black 1).
pub fn side(c: Color) -> usize {
    c.index()
}
