//! Library error type.

use thiserror::Error;

/// Errors of a training run.
#[derive(Debug, Error)]
pub enum TrainError {
    /// Invalid configuration.
    #[error(transparent)]
    Config(#[from] crate::training::config::ConfigError),
    /// Training data could not be read.
    #[error(transparent)]
    Data(#[from] crate::data::sample::SourceError),
    /// Checkpoint problem.
    #[error(transparent)]
    Checkpoint(#[from] crate::training::checkpoint::CheckpointError),
    /// Network export or load problem.
    #[error(transparent)]
    Net(#[from] kage_engine::nnue::NetError),
    /// File-system failure.
    #[error("{path}: {cause}")]
    Io {
        /// Path involved.
        path: String,
        /// Cause.
        cause: std::io::Error,
    },
    /// The loader thread reported an error.
    #[error("data loader: {0}")]
    Loader(String),
    /// Feature not available in this build.
    #[error("{0}")]
    Unsupported(String),
    /// The output directory already holds a run.
    #[error("{0} already holds a training run (use --resume to continue it, or another --out)")]
    RunExists(String),
    /// Training cannot go on: no positions to train on, or a loss that is not finite.
    #[error("{0}")]
    NoData(String),
    /// The network given to start from cannot be used.
    #[error("{0}")]
    InitNet(String),
    /// A resumed run does not match its checkpoint.
    #[error("cannot resume: {0}")]
    Resume(String),
    /// An output would replace an input, or the run directory belongs to another tool.
    #[error(transparent)]
    Guard(#[from] kage_data::guard::GuardError),
    /// A file the user named could not be read (or is far too large for what it should be).
    #[error(transparent)]
    Read(#[from] kage_engine::util::read::ReadError),
    /// The data files' variant cannot be resolved or is not the run's.
    #[error("{0}")]
    Variant(String),
    /// The same positions would be counted twice (a file given twice, validation data
    /// that is also training data).
    #[error("{0}")]
    Overlap(String),
}

/// Attaches a path to an I/O error.
pub fn io_err(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> TrainError + '_ {
    move |source| TrainError::Io { path: path.display().to_string(), cause: source }
}
