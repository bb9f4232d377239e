//! kage NNUE trainer.
//!
//! The sparse feature transformer (forward, backward and its AdamW update) runs in plain Rust
//! with rayon and touches only active rows; the dense head runs in burn with autodiff, which
//! also returns the gradient w.r.t. the accumulators so it can be scattered into the FT rows.
//! Quantised networks are written with the engine's `kage_engine::nnue` types.

pub mod batch;
pub mod bench;
pub mod checkpoint;
pub mod config;
pub mod error;
pub mod export;
pub mod files;
pub mod ft;
pub mod head;
pub mod inspect;
pub mod loader;
pub mod model;
pub mod optim;
pub mod report;
pub mod run;
pub mod sample;
pub mod simd;
pub mod space;
pub mod synthetic;
pub mod train;

pub use batch::{SparseBatch, TargetBlend};
pub use config::{FilterConfig, LrSchedule, TrainConfig};
pub use error::TrainError;
pub use model::NetParams;
pub use run::{RunOptions, RunSummary, resume, run};
pub use sample::{
    BlockList, Dataset, PositionSource, Sample, SampleBlock, SampleFlags, SampleMeta, SourceError,
};
pub use synthetic::{SyntheticConfig, SyntheticDataset};
pub use train::{EpochMetrics, Trainer};
