//! Typed errors of the self-play library.

use std::path::PathBuf;

use crate::matches::uci::UciError;

/// Everything that can go wrong while generating or reading self-play data.
#[derive(Debug, thiserror::Error)]
pub enum SelfplayError {
    /// An invalid setting.
    // The refusal is in the message, so it is not also the error's `source()` (which would
    // print it twice in a `{:#}` chain); `From` is written out below.
    #[error("invalid config: {0}")]
    Config(crate::ConfigError),
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
    Compact(kage_data::CompactError),
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
    #[error("game {game}: player failed: {cause}")]
    PlayerFault {
        /// Game index.
        game: u64,
        /// What happened.
        cause: UciError,
    },
    /// A failed player could not be started again.
    #[error("{fault}; cannot restart it: {cause}")]
    RestartFailed {
        /// The failure that called for the restart, as reported (the failure itself went
        /// out as its own event, so it is not owned here).
        fault: String,
        /// Why the restart failed.
        cause: UciError,
    },
    /// A failed player that is not restarted (the audit replays with built-in players only).
    #[error("cannot restart after {0}")]
    NoRestart(String),
    /// A data part of ours that should be intact has a damaged chunk.
    #[error("damaged file: {0}")]
    Damaged(kage_data::Damage),
    /// A JSON file of ours that should be intact does not parse.
    #[error("damaged file: {}: {cause}", path.display())]
    DamagedJson {
        /// The file.
        path: PathBuf,
        /// The parse error.
        cause: serde_json::Error,
    },
    /// A run directory with games.kdata but no positions.kdata.
    #[error(
        "damaged file: {}: games.kdata is there but positions.kdata is missing; delete \
         games.kdata to generate the run again",
        dir.display()
    )]
    MissingPositions {
        /// The run directory.
        dir: PathBuf,
    },
    /// A finished run whose data files do not read back.
    #[error(
        "damaged file: {}: the finished run's files are damaged ({cause}); delete games.kdata \
         and positions.kdata (or salvage them with `kage-data repair`) to generate the run again",
        dir.display()
    )]
    FinishedDamaged {
        /// The run directory.
        dir: PathBuf,
        /// What failed.
        cause: Box<SelfplayError>,
    },
    /// A report that cannot be written as JSON.
    #[error("JSON: {0}")]
    Json(serde_json::Error),
    /// Settings that cannot be written as TOML.
    #[error("{what} cannot be written as TOML: {cause}")]
    TomlWrite {
        /// What was being written.
        what: &'static str,
        /// The serialiser's error.
        cause: toml::ser::Error,
    },
    /// A config file that does not parse.
    #[error("invalid config: bad config TOML: {0}")]
    TomlRead(toml::de::Error),
    /// The NNUE network could not be read or loaded.
    #[error("network: {path}: {cause}")]
    Net {
        /// The network as named (a file or `shipped:NAME`).
        path: String,
        /// Why it was refused.
        cause: kage_engine::nnue::NetError,
    },
    /// A `shipped:NAME` network this build does not carry.
    #[error("network: {path}: this build has no such network")]
    NetNotShipped {
        /// The network as named.
        path: String,
    },
    /// A network file whose hash is no longer the one recorded.
    #[error(
        "network: {path}: not the one recorded (hash {found} != {recorded}): the file changed, \
         or for shipped:VARIANT this build carries another net (engine/nets/, KAGE_NETS_DIR)"
    )]
    NetChanged {
        /// The network file.
        path: String,
        /// Its hash now.
        found: String,
        /// The hash recorded.
        recorded: String,
    },
    /// The run was interrupted before it finished.
    #[error("interrupted")]
    Interrupted,
}

impl From<crate::ConfigError> for SelfplayError {
    fn from(e: crate::ConfigError) -> Self {
        SelfplayError::Config(e)
    }
}

impl From<kage_data::CompactError> for SelfplayError {
    fn from(e: kage_data::CompactError) -> Self {
        SelfplayError::Compact(e)
    }
}

impl SelfplayError {
    pub(crate) fn io(path: &std::path::Path, op: &'static str, source: std::io::Error) -> Self {
        SelfplayError::Io { path: path.to_path_buf(), op, cause: source }
    }
}

/// Result alias of this crate.
pub type Result<T, E = SelfplayError> = std::result::Result<T, E>;
