//! Deterministic synthetic training data with a learnable signal, for tests and benchmarks.
//!
//! A hidden "teacher" assigns each feature a centipawn value; a sample's score is the sum over
//! the side to move's features minus the sum over the other side's, and the result is drawn
//! from `sigmoid(score / 400)`. A network can therefore learn it, and the loss must drop.

use crate::data::sample::{
    BlockList, Dataset, PositionSource, Sample, SampleBlock, SampleFlags, SampleMeta, SourceError,
};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Shape of the synthetic data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SyntheticConfig {
    /// Number of positions in one pass.
    pub positions: u64,
    /// Feature-space size.
    pub num_features: usize,
    /// Fewest active features per perspective.
    pub min_active: usize,
    /// Most active features per perspective.
    pub max_active: usize,
    /// Seed of both the teacher and the positions.
    pub seed: u64,
}

impl Default for SyntheticConfig {
    fn default() -> Self {
        SyntheticConfig {
            positions: 100_000,
            num_features: 2304,
            min_active: 24,
            max_active: 40,
            seed: 1,
        }
    }
}

/// The synthetic data set.
#[derive(Debug, Clone)]
pub struct SyntheticDataset {
    cfg: SyntheticConfig,
    teacher: Arc<Vec<f32>>,
}

impl SyntheticDataset {
    /// Builds the data set (the teacher is derived from `cfg.seed`).
    pub fn new(cfg: SyntheticConfig) -> SyntheticDataset {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(cfg.seed ^ 0x7eac_4e75);
        let teacher = (0..cfg.num_features).map(|_| rng.random_range(-150.0f32..150.0)).collect();
        SyntheticDataset { cfg, teacher: Arc::new(teacher) }
    }

    /// The `index`-th sample (random access, deterministic).
    pub fn sample(&self, index: u64) -> Sample {
        let mut features = Vec::with_capacity(2 * self.cfg.max_active);
        let (stm_len, meta) = self.generate(index, &mut features);
        let nstm_features = features.split_off(stm_len);
        Sample {
            stm_features: features,
            nstm_features,
            score_cp: meta.score_cp,
            result: meta.result,
            ply: meta.ply,
            flags: meta.flags,
        }
    }

    /// Appends the `index`-th sample to `block` (same sample as [`SyntheticDataset::sample`]).
    pub fn sample_into(&self, index: u64, block: &mut SampleBlock) {
        let (stm_len, meta) = self.generate(index, block.features_mut());
        block.commit(stm_len, meta);
    }

    /// Appends the side-to-move then the other side's features of the `index`-th sample to
    /// `out`; returns the side-to-move count and the scalar fields.
    fn generate(&self, index: u64, out: &mut Vec<u32>) -> (usize, SampleMeta) {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(
            self.cfg.seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ index.wrapping_add(1),
        );
        let n = self.cfg.num_features as u32;
        let (lo, hi) = (self.cfg.min_active, self.cfg.max_active.max(self.cfg.min_active));
        let start = out.len();
        let draw = |rng: &mut Xoshiro256PlusPlus, out: &mut Vec<u32>| {
            let k = rng.random_range(lo..=hi);
            out.extend((0..k).map(|_| rng.random_range(0..n)));
        };
        draw(&mut rng, out);
        let mid = out.len();
        draw(&mut rng, out);
        let value = |f: &[u32]| f.iter().map(|&i| self.teacher[i as usize]).sum::<f32>();
        let score = value(&out[start..mid]) - value(&out[mid..]);
        let p = 1.0 / (1.0 + (-score / 400.0).exp());
        let u: f32 = rng.random();
        let result = if (u - p).abs() < 0.05 {
            0.5
        } else if u < p {
            1.0
        } else {
            0.0
        };
        let noise: f32 = rng.random_range(-30.0..30.0);
        let mut flags = 0u8;
        if rng.random_bool(0.05) {
            flags |= SampleFlags::IN_CHECK;
        }
        // A capture (12%) or a promotion (2%): both drawn, so the stream stays as it was.
        let (capture, promotion) = (rng.random_bool(0.12), rng.random_bool(0.02));
        if capture || promotion {
            flags |= SampleFlags::BEST_NOISY;
        }
        let meta = SampleMeta {
            score_cp: (score + noise).clamp(-32000.0, 32000.0) as i16,
            result,
            ply: rng.random_range(0..200),
            flags: SampleFlags(flags),
        };
        (mid - start, meta)
    }
}

/// Samples generated per [`PositionSource::next_blocks`] call, and per parallel task.
const STRETCH: u64 = 16384;
const PART: u64 = 1024;

struct SyntheticSource {
    data: SyntheticDataset,
    next: u64,
}

impl PositionSource for SyntheticSource {
    fn next_sample(&mut self) -> Result<Option<Sample>, SourceError> {
        if self.next >= self.data.cfg.positions {
            return Ok(None);
        }
        self.next += 1;
        Ok(Some(self.data.sample(self.next - 1)))
    }

    fn next_blocks(&mut self, out: &mut BlockList) -> Result<(), SourceError> {
        let start = self.next;
        let end = self.data.cfg.positions.min(start + STRETCH);
        if end <= start {
            return Ok(());
        }
        self.next = end;
        let parts = (end - start).div_ceil(PART) as usize;
        let data = &self.data;
        out.extend(parts).par_iter_mut().enumerate().for_each(|(p, block)| {
            let from = start + p as u64 * PART;
            for index in from..end.min(from + PART) {
                data.sample_into(index, block);
            }
        });
        Ok(())
    }
}

impl Dataset for SyntheticDataset {
    fn open(&self) -> Result<Box<dyn PositionSource>, SourceError> {
        Ok(Box::new(SyntheticSource { data: self.clone(), next: 0 }))
    }

    fn describe(&self) -> String {
        format!(
            "synthetic({} positions, {} features, seed {})",
            self.cfg.positions, self.cfg.num_features, self.cfg.seed
        )
    }
}
