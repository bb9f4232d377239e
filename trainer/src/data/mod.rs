//! Training data: samples and their sources (data files through the engine's feature
//! encoder, synthetic data), the feature space, the shuffling loader and sparse batches.

pub mod batch;
pub mod decode;
pub mod loader;
pub mod sample;
pub mod score_wdl;
pub mod space;
pub mod synthetic;
