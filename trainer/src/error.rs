//! Library error types: [`TrainError`] and the structured reasons of its variants. Every
//! message is one line. A variant that wraps another error prints it in its own message
//! and does not also return it as its `source`, so `{:#}` chains never repeat a cause.

use kage_engine::nnue::fsf::FsfError;
use std::path::PathBuf;
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
    #[error("{}: {cause}", path.display())]
    Io {
        /// Path involved.
        path: PathBuf,
        /// Cause.
        cause: std::io::Error,
    },
    /// The loader thread reported an error.
    #[error("data loader: {0}")]
    Loader(crate::data::loader::LoaderError),
    /// An FSF-format net could not be encoded.
    #[error("{0}")]
    FsfExport(FsfError),
    /// The output directory already holds a run.
    #[error(
        "{} already holds a training run (use --resume to continue it, or another --out)",
        dir.display()
    )]
    RunExists {
        /// The run directory.
        dir: PathBuf,
    },
    /// An epoch had no positions to train on.
    #[error(
        "epoch {epoch} had no training positions: the data is empty, or the filters (min_ply \
         {min_ply}, max_abs_score {max_abs_score}, in-check and noisy skips) and val_fraction \
         {val_fraction} leave none; no network written"
    )]
    NoPositions {
        /// The 1-based epoch.
        epoch: u32,
        /// The filter's minimum ply.
        min_ply: u16,
        /// The filter's largest |score|.
        max_abs_score: i16,
        /// The fraction held out.
        val_fraction: f64,
    },
    /// The training loss is not finite.
    #[error(
        "epoch {epoch}: the training loss is {loss} (diverged); no network written and the \
         last checkpoint kept"
    )]
    Diverged {
        /// The 1-based epoch.
        epoch: u32,
        /// Its mean training loss.
        loss: f64,
    },
    /// The network given to start from cannot be used.
    #[error("--init-net {}: {cause}", path.display())]
    InitNet {
        /// The network file.
        path: PathBuf,
        /// Why.
        cause: crate::training::init::InitNetError,
    },
    /// A resumed run does not match its checkpoint.
    #[error("cannot resume: {0}")]
    Resume(ResumeError),
    /// An output would replace an input, or the run directory belongs to another tool.
    #[error(transparent)]
    Guard(#[from] kage_data::guard::GuardError),
    /// A file the user named could not be read (or is far too large for what it should be).
    #[error(transparent)]
    Read(#[from] kage_engine::util::read::ReadError),
    /// The variant has no HalfKAv2 layout for the fsf architecture.
    #[error("--arch fsf: {0}")]
    FsfLayout(FsfError),
    /// Synthetic data of another feature count than the variant's HalfKAv2 dimensions.
    #[error(
        "--arch fsf for {variant}: synthetic data needs {dims} features (the variant's \
         HalfKAv2 dimensions), it has {found} (pass --synthetic-features {dims})"
    )]
    SyntheticFeatures {
        /// The variant.
        variant: String,
        /// Its HalfKAv2 dimensions.
        dims: usize,
        /// The synthetic data's feature count.
        found: usize,
    },
    /// A data file given twice, or two with the same contents.
    #[error(transparent)]
    Duplicate(#[from] crate::training::data_identity::DuplicateData),
    /// Data files made from one another or from a common file.
    #[error(transparent)]
    Lineage(kage_data::lineage::OverlapError),
    /// The run directory's data list could not be written.
    #[error("cannot write {}: {cause}", crate::training::data_identity::FILE_NAME)]
    DataListWrite {
        /// The cause.
        cause: toml::ser::Error,
    },
}

/// Why a run cannot be resumed.
#[derive(Debug, Error)]
pub enum ResumeError {
    /// The data files are not those the run started with.
    #[error("{0}; resuming would train on other data: restore it, or start a new run")]
    DataChanged(crate::training::data_identity::DataChange),
    /// The checkpoint's tensors are not the configuration's.
    #[error("checkpoint shape does not match the configuration")]
    Shape,
    /// `config.toml` decides other weights than the checkpoint's configuration.
    #[error("{} differs from the configuration stored in the checkpoint", .0.display())]
    ConfigDiffers(PathBuf),
    /// `--epochs` at or below the epochs done.
    #[error(
        "the run has done {done} of its {planned} epochs; --epochs {epochs} would not train \
         and would label its network as a {epochs}-epoch run, which it is not: pass --epochs \
         above {done} (or none), or start a new run (--snapshots keeps a network per epoch)"
    )]
    Epochs {
        /// The `--epochs` asked for.
        epochs: u32,
        /// Epochs done.
        done: u32,
        /// The run's length.
        planned: u32,
    },
    /// The run directory's data list is not TOML of the expected form.
    #[error("{}: {}", path.display(), toml_one_line(cause))]
    DataList {
        /// `data.toml`.
        path: PathBuf,
        /// The parse error.
        cause: toml::de::Error,
    },
}

impl From<ResumeError> for TrainError {
    fn from(e: ResumeError) -> TrainError {
        TrainError::Resume(e)
    }
}

/// A TOML parse error on one line: its location line, then its message (the `Display` of
/// `toml::de::Error` adds a multi-line excerpt of the text).
pub fn toml_one_line(e: &toml::de::Error) -> String {
    let text = e.to_string();
    let first = text.lines().next().unwrap_or_default();
    let message = e.message().trim().replace('\n', "; ");
    if first.is_empty() || first.contains(&message) {
        message
    } else {
        format!("{first}: {message}")
    }
}

/// Attaches a path to an I/O error.
pub fn io_err(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> TrainError + '_ {
    move |cause| TrainError::Io { path: path.to_path_buf(), cause }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toml_errors_are_one_line_with_their_place() {
        let e = toml::from_str::<crate::TrainConfig>("epochs = 3\nfoo = 1\n").expect_err("bad");
        let line = toml_one_line(&e);
        assert!(!line.contains('\n') && line.contains("line 2") && line.contains("foo"), "{line}");
        let cfg = crate::training::config::ConfigError::Parse(e).to_string();
        assert!(cfg.starts_with("parsing config TOML: ") && !cfg.contains('\n'), "{cfg}");
    }

    #[test]
    fn wrapped_errors_are_not_repeated_as_sources() {
        let e = TrainError::Resume(ResumeError::Shape);
        assert!(std::error::Error::source(&e).is_none());
        assert_eq!(
            e.to_string(),
            "cannot resume: checkpoint shape does not match the configuration"
        );
    }
}
