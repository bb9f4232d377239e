//! [`MatchError`]: why a match cannot run or has to stop, one case each.

use std::path::PathBuf;

use super::engine::EvalError;
use super::game::LimitError;
use super::log::Rebuilt;
use super::openings::OpeningFileError;
use super::uci::UciError;

/// Why a match could not run or had to stop.
#[derive(Debug, thiserror::Error)]
pub enum MatchError {
    /// A search limit that cannot be used.
    #[error(transparent)]
    Limit(#[from] LimitError),
    /// Random openings against an outside engine, not asked for.
    #[error(
        "engine {0:?} is an outside engine: a match against it needs a balanced opening book \
         (--openings FILE, made by `kage-selfplay book`), or --random-openings to play random \
         openings anyway"
    )]
    OutsideNeedsBook(String),
    /// An engine's own node budget without a node limit for the match.
    #[error("engine {0:?}: nodes= needs a node limit for the match (--nodes)")]
    NodesNeedNodeLimit(String),
    /// An engine's own node budget that cannot be used.
    #[error("engine {engine:?}: {cause}")]
    EngineNodes {
        /// The engine's name.
        engine: String,
        /// Why its budget is refused.
        cause: LimitError,
    },
    /// A ply cap outside `1..=65535`.
    #[error("ply cap {0} is outside 1..={max}", max = u16::MAX)]
    PlyCap(u32),
    /// A built-in engine's evaluation (network or parameter file) that cannot be loaded.
    #[error("engine {engine:?}: {part} {cause}")]
    Eval {
        /// The engine's name.
        engine: String,
        /// `network` or `parameters`.
        part: &'static str,
        /// Why it cannot be loaded (boxed: it is large).
        cause: Box<EvalError>,
    },
    /// An opening file that cannot be used.
    #[error(transparent)]
    Openings(#[from] OpeningFileError),
    /// An engine that would not start.
    #[error("engine {name:?}: {cause}")]
    Start {
        /// The engine's name.
        name: String,
        /// Why it did not start.
        cause: UciError,
    },
    /// SPRT bounds out of order.
    #[error("SPRT needs elo0 < elo1 (got {elo0}, {elo1})")]
    SprtBounds {
        /// The lower bound.
        elo0: f64,
        /// The upper bound.
        elo1: f64,
    },
    /// An SPRT error rate outside (0, 0.5).
    #[error("SPRT {name} must be in (0, 0.5) (got {value})")]
    SprtRate {
        /// `alpha` or `beta`.
        name: &'static str,
        /// The rate given.
        value: f64,
    },
    /// The match directory cannot be made.
    #[error("cannot create {}: {cause}", dir.display())]
    CreateDir {
        /// The directory.
        dir: PathBuf,
        /// The operating system's error.
        cause: std::io::Error,
    },
    /// `match.json` cannot be read.
    #[error("cannot read {0}")]
    ReadClaim(kage_engine::util::read::ReadError),
    /// `match.json` cannot be written.
    #[error("cannot write {}: {cause}", path.display())]
    WriteClaim {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        cause: std::io::Error,
    },
    /// A match directory that holds another match.
    #[error(
        "{} holds another match (its match.json differs: other engines, limits, openings, seed \
         or variant); use another --out",
        .0.display()
    )]
    OtherMatch(PathBuf),
    /// The builds recorded in `match.json` do not parse.
    #[error("{}: damaged builds: {cause}", path.display())]
    DamagedBuilds {
        /// The file.
        path: PathBuf,
        /// The parse error.
        cause: serde_json::Error,
    },
    /// Engines rebuilt since the match began, resumed without `--allow-rebuilt-engines`.
    #[error(
        "{}; resuming would pool games of two builds: use another --out, or pass \
         --allow-rebuilt-engines",
        rebuilt_text(.0)
    )]
    Rebuilt(Vec<Rebuilt>),
    /// The pair log (`games.jsonl`) cannot be opened, read or cut.
    #[error("{}: {cause}", path.display())]
    Log {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        cause: std::io::Error,
    },
    /// A line of the pair log, not the last, that does not parse.
    #[error("{} line {line}: damaged: {cause}", path.display())]
    DamagedLog {
        /// The file.
        path: PathBuf,
        /// The line (from 1).
        line: usize,
        /// The parse error.
        cause: serde_json::Error,
    },
    /// An output (`games.pgn`, `summary.json`) cannot be written.
    #[error("{}: {cause}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        cause: std::io::Error,
    },
    /// `games.kdata` cannot be written.
    #[error("{}: {cause}", path.display())]
    GameData {
        /// The file.
        path: PathBuf,
        /// The data crate's error.
        cause: kage_data::DataError,
    },
    /// A failed engine that could not be started again.
    #[error("cannot restart engine {engine:?}: {cause}")]
    Restart {
        /// The engine's name.
        engine: String,
        /// Why the restart failed.
        cause: UciError,
    },
    /// Engines that kept failing: `count` faults in a row, without a finished pair.
    #[error("stopping after {count} engine failures in a row (last: engine {engine:?}: {last})")]
    Failures {
        /// The faults in a row.
        count: u32,
        /// The engine of the last one.
        engine: String,
        /// The last fault.
        last: UciError,
    },
    /// A setting, file or directory refused by the self-play library (its message as is).
    #[error(transparent)]
    Selfplay(#[from] crate::SelfplayError),
}

/// The rebuilt engines, `; `-separated.
fn rebuilt_text(r: &[Rebuilt]) -> String {
    r.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
}
