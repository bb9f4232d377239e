//! One training step of the fsf architecture: the batch sorted by bucket (a stable counting
//! sort, so the order depends on the data only) and expanded with the king-independent
//! factoriser; the sparse FT forward and its fused backward + AdamW of the small net
//! ([`ft`](crate::model::ft)); the PSQT terms and their sparse update in plain Rust; the layer stacks in burn
//! ([`fsf_head`]).

use crate::data::batch::{SparseBatch, sigmoid};
use crate::data::sample::Sample;
use crate::model::factor::Factoriser;
use crate::model::fsf::{self, FsfHead, FsfShape, HIDDEN_LIMIT, LOGIT, OUT_LIMIT};
use crate::model::{BIAS_LIMIT, NetParams, fsf_head};
use crate::training::optim::{AdamStep, Moments, adamw};
use crate::training::train::{ParamMoments, StepTimes};
use burn::tensor::Device;
use kage_engine::nnue::fsf::arch::BUCKETS;
use std::time::Instant;

/// The fsf architecture's part of a trainer: shape, factoriser, PSQT and stacks with their
/// Adam moments, and reused buffers.
#[derive(Debug, Clone)]
pub struct FsfState {
    /// The variant's layout.
    pub shape: FsfShape,
    /// The king-independent factoriser.
    pub factor: Factoriser,
    /// PSQT and layer stacks.
    pub head: FsfHead,
    /// Adam moments of the head's tensors ([`FsfHead::tensors`] order).
    pub moments: [Moments; 7],
    sorted: SparseBatch,
    psqt_grad: Vec<f32>,
    touched: Vec<bool>,
}

/// The buffers of the FT the step borrows from the trainer.
pub struct FtParts<'a> {
    /// FT parameters.
    pub params: &'a mut NetParams,
    /// Their moments.
    pub moments: &'a mut ParamMoments,
    /// FT scratch.
    pub scratch: &'a mut crate::model::ft::FtScratch,
    /// Activity mask buffer.
    pub active: &'a mut Vec<u8>,
    /// Activation buffers.
    pub x: (&'a mut Vec<f32>, &'a mut Vec<f32>),
}

impl FsfState {
    /// The state for `head` (moments zero unless given).
    pub fn new(shape: FsfShape, head: FsfHead, moments: Option<[Moments; 7]>) -> FsfState {
        let moments = moments.unwrap_or_else(|| head.tensors().map(|t| Moments::zeros(t.len())));
        let factor = shape.factoriser();
        FsfState {
            shape,
            factor,
            head,
            moments,
            sorted: SparseBatch::default(),
            psqt_grad: Vec::new(),
            touched: Vec::new(),
        }
    }

    /// Model rows: real features then the factoriser's.
    pub fn rows(&self) -> usize {
        self.factor.train_features()
    }

    /// `batch` sorted by bucket into `self.sorted`, expanded; returns each bucket's range.
    fn sort(&mut self, batch: &SparseBatch) -> [(usize, usize); BUCKETS] {
        let buckets: Vec<usize> =
            (0..batch.len()).map(|i| self.shape.bucket(batch.features(i, 0))).collect();
        let mut ranges = [(0, 0); BUCKETS];
        let s = &mut self.sorted;
        s.stm_indices.clear();
        s.stm_offsets.clear();
        s.nstm_indices.clear();
        s.nstm_offsets.clear();
        s.targets.clear();
        let (mut stm, mut nstm) = (Vec::new(), Vec::new());
        for (b, range) in ranges.iter_mut().enumerate() {
            range.0 = s.len();
            for i in (0..batch.len()).filter(|&i| buckets[i] == b) {
                stm.clear();
                nstm.clear();
                self.factor.extend(batch.features(i, 0), &mut stm);
                self.factor.extend(batch.features(i, 1), &mut nstm);
                s.push_features(&stm, &nstm, batch.targets[i]);
            }
            range.1 = s.len();
        }
        ranges
    }

    /// One optimisation step; returns the batch loss and adds each phase's wall time to
    /// `times` (sort, FT forward and PSQT terms; the stacks in burn, transfers included; the
    /// updates).
    pub fn train_batch(
        &mut self,
        device: &Device,
        ft: FtParts<'_>,
        batch: &SparseBatch,
        step: &AdamStep,
        times: &mut StepTimes,
    ) -> f32 {
        let t0 = Instant::now();
        let ranges = self.sort(batch);
        let sorted = std::mem::take(&mut self.sorted);
        let n = sorted.len();
        crate::model::ft::forward_split(ft.params, &sorted, ft.active, (ft.x.0, ft.x.1), n);
        let bucket_of = |i: usize| ranges.iter().position(|r| i < r.1).unwrap_or(0);
        let psqt: Vec<f32> = (0..n)
            .map(|i| {
                self.head.psqt_term(sorted.features(i, 0), sorted.features(i, 1), bucket_of(i))
            })
            .collect();
        let t1 = Instant::now();
        let g = fsf_head::step(device, &self.head, ft.x.0, &psqt, &sorted.targets, &ranges);
        let t2 = Instant::now();
        self.update_stacks(&g.stacks, step);
        self.update_psqt(&sorted, &g.psqt, &ranges, step);
        let m = ft.moments;
        crate::model::ft::backward_update(
            ft.params,
            (&mut m.ft_w, &mut m.ft_b),
            ft.scratch,
            &sorted,
            crate::model::ft::Rows::whole(&g.x, n),
            ft.active,
            step,
        );
        self.sorted = sorted;
        times.ft_forward += (t1 - t0).as_secs_f64();
        times.head += (t2 - t1).as_secs_f64();
        times.update += t2.elapsed().as_secs_f64();
        g.loss
    }

    fn update_stacks(&mut self, grads: &[Vec<f32>; 6], step: &AdamStep) {
        let h = &mut self.head;
        let params =
            [&mut h.l1_w, &mut h.l1_b, &mut h.l2_w, &mut h.l2_b, &mut h.out_w, &mut h.out_b];
        let limits = [HIDDEN_LIMIT, BIAS_LIMIT, HIDDEN_LIMIT, BIAS_LIMIT, OUT_LIMIT, BIAS_LIMIT];
        for (i, w) in params.into_iter().enumerate() {
            let m = &mut self.moments[i + 1];
            adamw(w, &mut m.m, &mut m.v, &grads[i], step, i % 2 == 0, limits[i]);
        }
    }

    /// The PSQT gradient (`±½` of each position's term gradient into its bucket's column of
    /// every active row, positions in order) and a lazy AdamW of the touched rows.
    fn update_psqt(
        &mut self,
        batch: &SparseBatch,
        g: &[f32],
        ranges: &[(usize, usize); BUCKETS],
        step: &AdamStep,
    ) {
        let rows = self.rows();
        self.psqt_grad.resize(rows * BUCKETS, 0.0);
        self.touched.resize(rows, false);
        for (b, &(s, e)) in ranges.iter().enumerate() {
            for (i, &gi) in g.iter().enumerate().take(e).skip(s) {
                for (p, sign) in [(0, 0.5f32), (1, -0.5)] {
                    for &f in batch.features(i, p) {
                        self.psqt_grad[f as usize * BUCKETS + b] += sign * gi;
                        self.touched[f as usize] = true;
                    }
                }
            }
        }
        let m = &mut self.moments[0];
        for f in 0..rows {
            if !std::mem::take(&mut self.touched[f]) {
                continue;
            }
            let r = f * BUCKETS..(f + 1) * BUCKETS;
            let (w, mm, v) =
                (&mut self.head.psqt[r.clone()], &mut m.m[r.clone()], &mut m.v[r.clone()]);
            adamw(w, mm, v, &self.psqt_grad[r.clone()], step, false, BIAS_LIMIT);
            self.psqt_grad[r].fill(0.0);
        }
    }

    /// The float model's output for a sample's real features (the factoriser applied).
    pub fn forward(&self, ft: &NetParams, stm: &[u32], nstm: &[u32]) -> f32 {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        self.factor.extend(stm, &mut a);
        self.factor.extend(nstm, &mut b);
        fsf::forward(ft, &self.head, &a, &b, self.shape.bucket(stm))
    }

    /// The sample's squared error against its blended target `t`.
    pub fn sample_loss(&self, ft: &NetParams, s: &Sample, t: f32) -> f64 {
        let out = self.forward(ft, &s.stm_features, &s.nstm_features);
        let d = f64::from(sigmoid(out * LOGIT) - t);
        d * d
    }

    /// The exported model: the FT and the PSQT with the factoriser folded into their real
    /// rows; the stacks as they are.
    pub fn folded(&self, ft: &NetParams) -> (NetParams, FsfHead) {
        let ft = self.factor.fold(ft);
        let head =
            FsfHead { psqt: self.factor.fold_rows(&self.head.psqt, BUCKETS), ..self.head.clone() };
        (ft, head)
    }
}
