//! The sparse feature transformer: forward, backward and its AdamW update in plain Rust.
//!
//! Only the rows of active features are read (forward) and updated (backward): gradients are
//! scattered per fixed chunk of positions into cache-resident buffers, summed in a fixed
//! order (so the result does not depend on the thread count) and each touched row gets its
//! AdamW update in place ("lazy" Adam: untouched rows keep their moments, as in PyTorch's
//! `SparseAdam`).

use crate::batch::SparseBatch;
use crate::model::{FT_LIMIT, NetParams};
use crate::optim::{AdamStep, Moments, adamw};
use crate::simd;
use rayon::prelude::*;

/// Computes pre-activation accumulators `acc` (`B x 2H`, side to move first) and clipped
/// activations `x` of a batch.
pub fn forward(params: &NetParams, batch: &SparseBatch, acc: &mut Vec<f32>, x: &mut Vec<f32>) {
    let h = params.ft_size;
    let b = batch.len();
    acc.resize(b * 2 * h, 0.0);
    x.resize(b * 2 * h, 0.0);
    acc.par_chunks_mut(2 * h).zip(x.par_chunks_mut(2 * h)).enumerate().with_min_len(32).for_each(
        |(i, (acc_row, x_row))| {
            for p in 0..2 {
                let dst = &mut acc_row[p * h..(p + 1) * h];
                params.accumulate(batch.features(i, p), dst);
                simd::clamp01(&mut x_row[p * h..(p + 1) * h], dst);
            }
        },
    );
}

/// Turns the gradient w.r.t. the clipped activations into the gradient w.r.t. the
/// accumulators, in place: zero where the clipped ReLU is flat.
pub fn mask_grad(acc: &[f32], grad: &mut [f32]) {
    grad.par_chunks_mut(4096).zip(acc.par_chunks(4096)).for_each(|(g, a)| {
        for (g, &a) in g.iter_mut().zip(a) {
            if !(a > 0.0 && a < 1.0) {
                *g = 0.0;
            }
        }
    });
}

/// Positions of a batch are split into this many fixed chunks for the backward scatter, so
/// sums happen in the same order whatever the thread count.
pub const GRAD_CHUNKS: usize = 2;

/// Sparse FT gradient: each of [`GRAD_CHUNKS`] chunks of positions masks its rows of the
/// activation gradient by the clipped ReLU's derivative (from the accumulators), adds them to
/// its bias gradient and scatters them into its own dense `F x H` buffer (cache resident,
/// streamed reads of the gradient). A feature's gradient is the sum of its rows over the
/// chunks, in chunk order. Only features active in the batch are marked `touched`.
#[derive(Debug, Default)]
pub struct FtGrad {
    h: usize,
    bufs: Vec<Vec<f32>>,
    bias_parts: Vec<Vec<f32>>,
    touched: Vec<bool>,
}

impl FtGrad {
    /// Scatters the gradient w.r.t. the clipped activations `grad` (`B x 2H`, rows
    /// `2 * position + perspective`) of `batch`, masked where the accumulator `acc` (same
    /// shape) is outside the open interval (0, 1).
    pub fn compute(
        &mut self,
        batch: &SparseBatch,
        grad: &[f32],
        acc: &[f32],
        num_features: usize,
        h: usize,
    ) {
        self.h = h;
        self.bufs.resize_with(GRAD_CHUNKS, Vec::new);
        self.bias_parts.resize_with(GRAD_CHUNKS, Vec::new);
        self.touched.clear();
        self.touched.resize(num_features, false);
        for &f in batch.stm_indices.iter().chain(&batch.nstm_indices) {
            self.touched[f as usize] = true;
        }
        let n = batch.len();
        let per = n.div_ceil(GRAD_CHUNKS).max(1);
        self.bufs.par_iter_mut().zip(self.bias_parts.par_iter_mut()).enumerate().for_each(
            |(c, (buf, bias))| {
                buf.clear();
                buf.resize(num_features * h, 0.0);
                bias.clear();
                bias.resize(h, 0.0);
                let mut row = vec![0.0f32; h];
                for i in (c * per).min(n)..((c + 1) * per).min(n) {
                    for p in 0..2 {
                        let e = 2 * i + p;
                        let (g, a) = (&grad[e * h..(e + 1) * h], &acc[e * h..(e + 1) * h]);
                        simd::scatter(&mut row, bias, buf, g, a, batch.features(i, p));
                    }
                }
            },
        );
    }

    /// Bias gradient (sum over chunks in order).
    pub fn bias(&self) -> Vec<f32> {
        let mut out = vec![0.0f32; self.h];
        for part in &self.bias_parts {
            out.iter_mut().zip(part).for_each(|(o, p)| *o += p);
        }
        out
    }

    /// Whether feature `f` was active in the batch.
    pub fn touched(&self, f: usize) -> bool {
        self.touched[f]
    }

    /// Gradient of feature `f`'s row into `out` (overwritten).
    pub fn feature_grad(&self, f: usize, out: &mut [f32]) {
        let h = self.h;
        out.copy_from_slice(&self.bufs[0][f * h..(f + 1) * h]);
        for b in &self.bufs[1..] {
            simd::add_assign(out, &b[f * h..(f + 1) * h]);
        }
    }

    /// The full dense `F x H` gradient (tests).
    pub fn dense(&self) -> Vec<f32> {
        let h = self.h;
        let f = self.touched.len();
        let mut out = vec![0.0f32; f * h];
        out.par_chunks_mut(h.max(1)).enumerate().for_each(|(i, row)| self.feature_grad(i, row));
        out
    }
}

/// Backward + AdamW update of the FT from the activation gradient `grad` (`B x 2H`) and
/// the accumulators `acc` of the forward. Touches only the rows of features active in the batch.
pub fn backward_update(
    params: &mut NetParams,
    (w_moments, b_moments): (&mut Moments, &mut Moments),
    scratch: &mut FtGrad,
    batch: &SparseBatch,
    grad: &[f32],
    acc: &[f32],
    step: &AdamStep,
) {
    let h = params.ft_size;
    scratch.compute(batch, grad, acc, params.num_features, h);
    let scratch = &*scratch;
    params
        .ft_w
        .par_chunks_mut(h)
        .zip(w_moments.m.par_chunks_mut(h))
        .zip(w_moments.v.par_chunks_mut(h))
        .enumerate()
        .with_min_len(8)
        .for_each_init(
            || vec![0.0f32; h],
            |g, (f, ((w, m), v))| {
                if !scratch.touched(f) {
                    return;
                }
                scratch.feature_grad(f, g);
                adamw(w, m, v, g, step, true, FT_LIMIT);
            },
        );
    let gb = scratch.bias();
    adamw(&mut params.ft_b, &mut b_moments.m, &mut b_moments.v, &gb, step, false, FT_LIMIT);
}
