//! Sparse batches: flat feature indices with offsets per perspective, plus targets.

use crate::data::sample::{Sample, SampleMeta};
use crate::data::score_wdl::ScoreWdl;
use std::sync::Arc;

/// A batch of positions in sparse form (`EmbeddingBag`-style flat indices and offsets).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SparseBatch {
    /// Side-to-move features of all positions, concatenated.
    pub stm_indices: Vec<u32>,
    /// `len + 1` offsets into `stm_indices`.
    pub stm_offsets: Vec<u32>,
    /// Other side's features, concatenated.
    pub nstm_indices: Vec<u32>,
    /// `len + 1` offsets into `nstm_indices`.
    pub nstm_offsets: Vec<u32>,
    /// Blended targets in [0, 1].
    pub targets: Vec<f32>,
}

/// How targets are blended from score and result.
#[derive(Debug, Clone, PartialEq)]
pub struct TargetBlend {
    /// Weight of the score.
    pub lambda: f32,
    /// Centipawns per logit.
    pub scale: f32,
    /// The data's WDL model (`--score-wdl`): the score's expected result replaces
    /// `sigmoid(score / scale)`.
    pub wdl: Option<Arc<ScoreWdl>>,
}

impl TargetBlend {
    /// The plain blend: `lambda * sigmoid(score / scale) + (1 - lambda) * result`.
    pub fn new(lambda: f32, scale: f32) -> TargetBlend {
        TargetBlend { lambda, scale, wdl: None }
    }

    /// The blend with the score's part read through `wdl`.
    pub fn with_wdl(self, wdl: Option<Arc<ScoreWdl>>) -> TargetBlend {
        TargetBlend { wdl, ..self }
    }

    /// `lambda * E + (1 - lambda) * result`, with `E` the score's expected result:
    /// `sigmoid(score / scale)`, or the WDL model's (mate scores: the sigmoid).
    pub fn target(&self, sample: &Sample) -> f32 {
        self.target_of(&sample.meta())
    }

    /// [`TargetBlend::target`] from the scalar fields.
    #[inline]
    pub fn target_of(&self, meta: &SampleMeta) -> f32 {
        let s = self
            .wdl
            .as_deref()
            .and_then(|w| w.expected(meta))
            .unwrap_or_else(|| sigmoid(f32::from(meta.score_cp) / self.scale));
        self.lambda * s + (1.0 - self.lambda) * meta.result
    }
}

/// Logistic function.
#[inline]
pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

impl SparseBatch {
    /// An empty batch with room for `capacity` positions.
    pub fn with_capacity(capacity: usize) -> SparseBatch {
        let mut b = SparseBatch {
            stm_indices: Vec::with_capacity(capacity * 40),
            stm_offsets: Vec::with_capacity(capacity + 1),
            nstm_indices: Vec::with_capacity(capacity * 40),
            nstm_offsets: Vec::with_capacity(capacity + 1),
            targets: Vec::with_capacity(capacity),
        };
        b.stm_offsets.push(0);
        b.nstm_offsets.push(0);
        b
    }

    /// Builds a batch from samples.
    pub fn from_samples(samples: &[Sample], blend: &TargetBlend) -> SparseBatch {
        let mut b = SparseBatch::with_capacity(samples.len());
        for s in samples {
            b.push(s, blend);
        }
        b
    }

    /// Appends one position.
    pub fn push(&mut self, sample: &Sample, blend: &TargetBlend) {
        self.push_features(&sample.stm_features, &sample.nstm_features, blend.target(sample));
    }

    /// Appends one position given its features and its (already blended) target.
    #[inline]
    pub fn push_features(&mut self, stm: &[u32], nstm: &[u32], target: f32) {
        if self.stm_offsets.is_empty() {
            self.stm_offsets.push(0);
            self.nstm_offsets.push(0);
        }
        self.stm_indices.extend_from_slice(stm);
        self.stm_offsets.push(self.stm_indices.len() as u32);
        self.nstm_indices.extend_from_slice(nstm);
        self.nstm_offsets.push(self.nstm_indices.len() as u32);
        self.targets.push(target);
    }

    /// Number of positions.
    pub fn len(&self) -> usize {
        self.targets.len()
    }

    /// Whether the batch has no position.
    pub fn is_empty(&self) -> bool {
        self.targets.is_empty()
    }

    /// Active features of position `i` for perspective 0 (side to move) or 1.
    pub fn features(&self, i: usize, perspective: usize) -> &[u32] {
        let (idx, off) = if perspective == 0 {
            (&self.stm_indices, &self.stm_offsets)
        } else {
            (&self.nstm_indices, &self.nstm_offsets)
        };
        &idx[off[i] as usize..off[i + 1] as usize]
    }

    /// Largest feature index plus one (0 for an empty batch).
    pub fn max_feature_bound(&self) -> usize {
        self.stm_indices
            .iter()
            .chain(&self.nstm_indices)
            .map(|&f| f as usize + 1)
            .max()
            .unwrap_or(0)
    }
}
