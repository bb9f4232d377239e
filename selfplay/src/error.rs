//! Typed errors of the self-play library.

use std::path::PathBuf;

/// Everything that can go wrong while generating or reading self-play data.
#[derive(Debug, thiserror::Error)]
pub enum SelfplayError {
    /// An invalid setting.
    #[error("invalid config: {0}")]
    Config(String),
    /// The run directory was made by a run with another config.
    #[error(
        "{}: this directory holds a run with a different config; use another --out or \
         delete it.\n--- existing ---\n{existing}--- requested ---\n{requested}",
        dir.display()
    )]
    ConfigMismatch {
        /// The run directory.
        dir: PathBuf,
        /// Config recorded in it.
        existing: String,
        /// Config of this invocation.
        requested: String,
    },
    /// A write the guard refuses (an output over an input, a directory of another tool).
    #[error(transparent)]
    Guard(#[from] kage_data::guard::GuardError),
    /// A file the user named could not be read (or is too large to be what it should be).
    #[error(transparent)]
    Read(#[from] kage_engine::util::read::ReadError),
    /// A data file could not be read or written.
    #[error(transparent)]
    Data(#[from] kage_data::DataError),
    /// A position could not be packed for a training record.
    #[error("cannot pack position: {0}")]
    Compact(#[from] kage_data::CompactError),
    /// A file system failure outside the data crate.
    // `cause` is in the message, so it is not also the error's `source()` (which would
    // print it twice in a `{:#}` chain).
    #[error("{}: {op}: {cause}", path.display())]
    Io {
        /// File concerned.
        path: PathBuf,
        /// What was being done.
        op: &'static str,
        /// Underlying error.
        cause: std::io::Error,
    },
    /// A game record that does not replay.
    #[error("game {game}: {reason}")]
    BadGame {
        /// Game index.
        game: u64,
        /// What is wrong.
        reason: String,
    },
    /// A player failed during a game (an outside engine crashed, hung or broke its pipe):
    /// the game has no result; restarted, the player plays it again.
    #[error("game {game}: player failed: {reason}")]
    PlayerFault {
        /// Game index.
        game: u64,
        /// What happened.
        reason: String,
    },
    /// A file of ours that should be intact is damaged.
    #[error("damaged file: {0}")]
    Damaged(String),
    /// The NNUE network could not be used.
    #[error("network: {0}")]
    Net(String),
    /// The run was interrupted before it finished.
    #[error("interrupted")]
    Interrupted,
}

impl SelfplayError {
    pub(crate) fn io(path: &std::path::Path, op: &'static str, source: std::io::Error) -> Self {
        SelfplayError::Io { path: path.to_path_buf(), op, cause: source }
    }
}

/// Result alias of this crate.
pub type Result<T, E = SelfplayError> = std::result::Result<T, E>;
