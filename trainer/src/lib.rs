//! kage NNUE trainer.
//!
//! The sparse feature transformer (forward, backward and its AdamW update) runs in plain Rust
//! with rayon and touches only active rows; the dense head runs in burn with autodiff, which
//! also returns the gradient w.r.t. the accumulators so it can be scattered into the FT rows.
//! Quantised networks are written with the engine's `kage_engine::nnue` types.

#![warn(missing_docs)]

pub mod bench;
pub mod data;
pub mod error;
pub mod export;
pub mod model;
pub mod training;
pub mod tune;

pub use data::batch::{SparseBatch, TargetBlend};
pub use data::sample::{
    BlockList, Dataset, PositionSource, Sample, SampleBlock, SampleFlags, SampleMeta, SourceError,
};
pub use data::synthetic::{SyntheticConfig, SyntheticDataset};
pub use error::TrainError;
pub use model::NetParams;
pub use training::config::{FilterConfig, LrSchedule, TrainConfig};
pub use training::run::{RunOptions, RunSummary, resume, run};
pub use training::train::{EpochMetrics, Trainer};
