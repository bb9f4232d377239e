//! The sparse feature transformer: forward, backward and its AdamW update in plain Rust.
//!
//! Only the rows of active features are read (forward) and updated (backward): gradients are
//! scattered per fixed chunk of positions into cache-resident buffers, summed in a fixed
//! order (so the result does not depend on the thread count) and each touched row gets its
//! AdamW update in place ("lazy" Adam: untouched rows keep their moments, as in PyTorch's
//! `SparseAdam`).

use crate::data::batch::SparseBatch;
use crate::model::simd;
use crate::model::{FT_LIMIT, NetParams};
use crate::training::optim::{AdamStep, Moments, adamw};
use rayon::prelude::*;

/// Positions per parallel task of the FT forward.
const FORWARD_BLOCK: usize = 256;

/// Reference FT forward (tests, profiling): pre-activation accumulators `acc` (`B x 2H`, rows
/// `2 * position + perspective`, side to move first) and clipped activations `x`, one
/// position at a time with [`NetParams::accumulate`].
pub fn forward(params: &NetParams, batch: &SparseBatch, acc: &mut Vec<f32>, x: &mut Vec<f32>) {
    let h = params.ft_size;
    acc.resize(batch.len() * 2 * h, 0.0);
    x.resize(batch.len() * 2 * h, 0.0);
    let rows = acc.par_chunks_mut(2 * h.max(1)).zip(x.par_chunks_mut(2 * h.max(1)));
    rows.enumerate().with_min_len(32).for_each(|(i, (acc, x))| {
        for p in 0..2 {
            let dst = &mut acc[p * h..(p + 1) * h];
            params.accumulate(batch.features(i, p), dst);
            simd::clamp01(&mut x[p * h..(p + 1) * h], dst);
        }
    });
}

/// The training FT forward: clipped activations in two buffers (the rows of positions
/// `[0, split)` in `x_lo`, the rest in `x_hi`) and the activity mask `active` (`B x 2H`, one
/// matrix: 1 where the accumulator is inside (0, 1), i.e. where the clipped ReLU passes the
/// gradient, else 0), which is all the backward needs of the accumulators. Each task takes
/// `FORWARD_BLOCK` positions and walks the columns in blocks of [`simd::COLS`] so the FT
/// weights it reads stay in cache; every accumulator is still `bias + rows in feature order`,
/// so `x` is bit for bit that of [`forward`].
pub fn forward_split(
    params: &NetParams,
    batch: &SparseBatch,
    active: &mut Vec<u8>,
    (x_lo, x_hi): (&mut Vec<f32>, &mut Vec<f32>),
    split: usize,
) {
    let row = 2 * params.ft_size;
    let b = batch.len();
    let split = split.min(b);
    active.resize(b * row, 0);
    x_lo.resize(split * row, 0.0);
    x_hi.resize((b - split) * row, 0.0);
    let per = (row * FORWARD_BLOCK).max(1);
    let (active_lo, active_hi) = active.split_at_mut(split * row);
    // Tasks of one buffer: (first position, mask rows, activation rows).
    fn part<'a>(
        active: &'a mut [u8],
        x: &'a mut [f32],
        first: usize,
        per: usize,
    ) -> impl ParallelIterator<Item = (usize, &'a mut [u8], &'a mut [f32])> {
        let tasks = active.par_chunks_mut(per).zip(x.par_chunks_mut(per)).enumerate();
        tasks.map(move |(k, (active, x))| (first + k * FORWARD_BLOCK, active, x))
    }
    let tasks = part(active_lo, x_lo, 0, per).chain(part(active_hi, x_hi, split, per));
    tasks.for_each(|(lo, active, x)| {
        let h = params.ft_size;
        let hi = lo + x.len() / row;
        for c0 in (0..h).step_by(simd::COLS) {
            let bias = &params.ft_b[c0..(c0 + simd::COLS).min(h)];
            simd::forward_cols(active, x, bias, &params.ft_w, h, c0, batch, lo, hi);
        }
    });
}

/// The rows of a `B x 2H` matrix (row `2 * position + perspective`) in two buffers: positions
/// `[0, split)` in `lo`, the rest in `hi`.
#[derive(Debug, Clone, Copy)]
pub struct Rows<'a> {
    /// Rows of positions `[0, split)`.
    pub lo: &'a [f32],
    /// Rows of positions `[split, B)`.
    pub hi: &'a [f32],
    /// First position in `hi`.
    pub split: usize,
}

impl<'a> Rows<'a> {
    /// One buffer holding all rows.
    pub fn whole(rows: &'a [f32], batch: usize) -> Rows<'a> {
        Rows { lo: rows, hi: &[], split: batch }
    }
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

/// Scratch buffers of [`backward_update`]: per column block of [`simd::COLS`] and per chunk of
/// positions, a gradient partial (`F x cols`) and a bias partial.
#[derive(Debug, Default)]
pub struct FtScratch {
    bufs: Vec<Vec<f32>>,
    bias: Vec<Vec<f32>>,
    touched: Vec<bool>,
}

/// Backward + AdamW update of the FT from the activation gradient `grad` (`B x 2H`) and
/// the activity mask `active` of [`forward_split`]. Touches only the rows of features active in the batch.
///
/// Computes exactly the gradient of [`FtGrad`] (same [`GRAD_CHUNKS`] partials, summed in the
/// same order), but in parallel over column blocks of [`simd::COLS`]: each block's partials
/// (`F x cols` per chunk) stay in one core's cache, and the partials are summed in place.
pub fn backward_update(
    params: &mut NetParams,
    (w_moments, b_moments): (&mut Moments, &mut Moments),
    scratch: &mut FtScratch,
    batch: &SparseBatch,
    grad: Rows<'_>,
    active: &[u8],
    step: &AdamStep,
) {
    let (h, nf) = (params.ft_size, params.num_features);
    let n = batch.len();
    let per = n.div_ceil(GRAD_CHUNKS).max(1);
    let blocks = h.div_ceil(simd::COLS);
    scratch.touched.clear();
    scratch.touched.resize(nf, false);
    for &f in batch.stm_indices.iter().chain(&batch.nstm_indices) {
        scratch.touched[f as usize] = true;
    }
    // One task per (column block, chunk of positions), each with its own partial.
    scratch.bufs.resize_with(blocks * GRAD_CHUNKS, Vec::new);
    scratch.bias.resize_with(blocks * GRAD_CHUNKS, Vec::new);
    scratch.bufs.par_iter_mut().zip(scratch.bias.par_iter_mut()).enumerate().for_each(
        |(t, (buf, bias))| {
            let (k, c) = (t / GRAD_CHUNKS, t % GRAD_CHUNKS);
            let c0 = k * simd::COLS;
            let cols = simd::COLS.min(h - c0);
            let mut row = vec![0.0f32; cols];
            buf.clear();
            buf.resize(nf * cols, 0.0);
            bias.clear();
            bias.resize(cols, 0.0);
            let (lo, hi) = ((c * per).min(n), ((c + 1) * per).min(n));
            // Positions in order, each row from the buffer that holds it.
            let s = grad.split.clamp(lo, hi);
            simd::scatter_cols(buf, bias, &mut row, grad.lo, active, h, c0, batch, 0, lo, s);
            let m = &active[grad.split.min(n) * 2 * h..];
            simd::scatter_cols(buf, bias, &mut row, grad.hi, m, h, c0, batch, grad.split, s, hi);
        },
    );
    let (bufs, touched) = (&scratch.bufs, &scratch.touched);
    params
        .ft_w
        .par_chunks_mut(h)
        .zip(w_moments.m.par_chunks_mut(h))
        .zip(w_moments.v.par_chunks_mut(h))
        .enumerate()
        .with_min_len(8)
        .for_each_init(
            || vec![0.0f32; simd::COLS],
            |g, (f, ((w, m), v))| {
                if !touched[f] {
                    return;
                }
                for (k, parts) in bufs.chunks(GRAD_CHUNKS).enumerate() {
                    let c0 = k * simd::COLS;
                    let cols = simd::COLS.min(h - c0);
                    // Partials summed in chunk order (as `FtGrad::feature_grad`).
                    let g = &mut g[..cols];
                    g.copy_from_slice(&parts[0][f * cols..(f + 1) * cols]);
                    for part in &parts[1..] {
                        simd::add_assign(g, &part[f * cols..(f + 1) * cols]);
                    }
                    let r = c0..c0 + cols;
                    adamw(&mut w[r.clone()], &mut m[r.clone()], &mut v[r], g, step, true, FT_LIMIT);
                }
            },
        );
    // Bias gradient: zeros plus the chunk partials in order (as `FtGrad::bias`).
    let mut gb = vec![0.0f32; h];
    for (k, parts) in scratch.bias.chunks(GRAD_CHUNKS).enumerate() {
        let c0 = k * simd::COLS;
        for part in parts {
            simd::add_assign(&mut gb[c0..c0 + part.len()], part);
        }
    }
    adamw(&mut params.ft_b, &mut b_moments.m, &mut b_moments.v, &gb, step, false, FT_LIMIT);
}

/// Reference for [`backward_update`] (tests): [`FtGrad`] then AdamW row by row.
pub fn backward_update_reference(
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
    let mut g = vec![0.0f32; h];
    for (f, ((w, m), v)) in params
        .ft_w
        .chunks_mut(h)
        .zip(w_moments.m.chunks_mut(h))
        .zip(w_moments.v.chunks_mut(h))
        .enumerate()
    {
        if scratch.touched(f) {
            scratch.feature_grad(f, &mut g);
            adamw(w, m, v, &g, step, true, FT_LIMIT);
        }
    }
    let gb = scratch.bias();
    adamw(&mut params.ft_b, &mut b_moments.m, &mut b_moments.v, &gb, step, false, FT_LIMIT);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::batch::TargetBlend;
    use crate::data::synthetic::{SyntheticConfig, SyntheticDataset};
    use crate::training::train::ParamMoments;

    fn same(a: &[f32], b: &[f32]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
    }

    /// Register-block widths, a remainder block, and the slice path.
    #[test]
    fn blocked_forward_and_fused_backward_match_the_references_bit_for_bit() {
        for h in [8, 128, 136, 256] {
            let nf = 300;
            let data = SyntheticDataset::new(SyntheticConfig {
                positions: 600,
                num_features: nf,
                ..SyntheticConfig::default()
            });
            let samples: Vec<_> = (0..600).map(|i| data.sample(i)).collect();
            let batch = SparseBatch::from_samples(&samples, &TargetBlend::new(0.5, 400.0));
            let mut p = NetParams::init(nf, h, 4, 5);
            // Larger weights so some accumulators leave (0, 1) and the mask matters.
            p.ft_w.iter_mut().for_each(|w| *w *= 4.0);
            let (mut acc, mut x) = (Vec::new(), Vec::new());
            forward(&p, &batch, &mut acc, &mut x);
            for i in 0..batch.len() {
                for persp in 0..2 {
                    let e = (2 * i + persp) * h;
                    let mut want = vec![0.0; h];
                    p.accumulate(batch.features(i, persp), &mut want);
                    assert!(same(&acc[e..e + h], &want), "acc h={h} i={i}");
                    let xw: Vec<f32> = want.iter().map(|a| a.clamp(0.0, 1.0)).collect();
                    assert!(same(&x[e..e + h], &xw), "x h={h} i={i}");
                }
            }
            assert!(x.contains(&0.0) && x.contains(&1.0), "mask exercised");
            let want_active: Vec<u8> = acc.iter().map(|&a| u8::from(a > 0.0 && a < 1.0)).collect();
            let mut active = Vec::new();
            for split in [0, 1, 255, 300, 600] {
                let (mut lo, mut hi) = (Vec::new(), Vec::new());
                forward_split(&p, &batch, &mut active, (&mut lo, &mut hi), split);
                lo.extend_from_slice(&hi);
                assert!(same(&lo, &x), "split forward h={h} at {split}");
                assert_eq!(active, want_active, "activity mask h={h} at {split}");
            }
            let grad: Vec<f32> =
                (0..acc.len()).map(|i| ((i * 7919) % 2001) as f32 * 1e-6 - 1e-3).collect();
            let (mut pa, mut pb) = (p.clone(), p);
            let (mut ma, mut mb) = (ParamMoments::zeros(&pa), ParamMoments::zeros(&pb));
            let (mut sa, mut sb) = (FtScratch::default(), FtGrad::default());
            for t in 1..=3 {
                let s = AdamStep::new(1e-2, 0.9, 0.999, 1e-8, 1e-2, t);
                let (wa, ba) = (&mut ma.ft_w, &mut ma.ft_b);
                let n = batch.len();
                let rows = if t == 2 {
                    Rows::whole(&grad, n)
                } else {
                    // Split in two buffers (the middle, and everything in `hi`): same bits.
                    let split = if t == 1 { n / 3 } else { 0 };
                    let (lo, hi) = grad.split_at(split * 2 * h);
                    Rows { lo, hi, split }
                };
                backward_update(&mut pa, (wa, ba), &mut sa, &batch, rows, &active, &s);
                let (wb, bb) = (&mut mb.ft_w, &mut mb.ft_b);
                backward_update_reference(&mut pb, (wb, bb), &mut sb, &batch, &grad, &acc, &s);
            }
            assert!(same(&pa.ft_w, &pb.ft_w) && same(&pa.ft_b, &pb.ft_b), "params h={h}");
            assert!(same(&ma.ft_w.m, &mb.ft_w.m) && same(&ma.ft_w.v, &mb.ft_w.v), "moments h={h}");
            assert!(same(&ma.ft_b.v, &mb.ft_b.v), "bias moments h={h}");
        }
    }
}
