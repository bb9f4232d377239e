//! The exact integer forward pass of FSF-NNUE.md §4.2, steps 1–6, written plainly: the
//! reference the search's incremental, SIMD evaluation is tested against, and what
//! `kage fsf-net eval` prints in FSF's own `eval` format.

use super::arch::{BUCKETS, CLAMP_MAX, L1, L1_IN, L2, L3, OUTPUT_SCALE, WEIGHT_SCALE_BITS};
use super::{FsfLayout, FsfNet, FsfStack};
use crate::position::Position;
use crate::types::Color;

/// One perspective's feature-transformer output: the i16 accumulator and the PSQT sums.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Accumulation {
    /// `bias + Σ rows`, i16 with wrapping adds (step 1; `nnue_feature_transformer.h:534-600`).
    pub acc: [i16; L1],
    /// `Σ PSQT rows`, per bucket (i32).
    pub psqt: [i32; BUCKETS],
}

impl Accumulation {
    /// The accumulation of the active `features`.
    pub fn of(net: &FsfNet, features: &[u32]) -> Accumulation {
        let mut acc = [0i16; L1];
        acc.copy_from_slice(&net.ft_bias);
        let mut psqt = [0i32; BUCKETS];
        for &f in features {
            for (a, w) in acc.iter_mut().zip(net.ft_row(f)) {
                *a = a.wrapping_add(*w);
            }
            for (p, w) in psqt.iter_mut().zip(net.psqt_row(f)) {
                *p = p.wrapping_add(*w);
            }
        }
        Accumulation { acc, psqt }
    }
}

/// What FSF's `eval` shows for a position: the bucket used, every bucket's PSQT and stack
/// output, and the plain NNUE value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FsfEval {
    /// The bucket (PSQT column and layer stack) of the position.
    pub bucket: usize,
    /// Per bucket: `(psq_stm − psq_other) / 2` (step 5), before the /16.
    pub psqt: [i32; BUCKETS],
    /// Per bucket: the stack's output (step 4), before the /16.
    pub layers: [i32; BUCKETS],
    /// The plain NNUE value `(psqt + layers) / 16` of the bucket used (step 6), side-to-move
    /// relative, FSF internal units (208 = a pawn).
    pub value: i32,
}

impl FsfEval {
    /// FSF's trace figures for bucket `b`: `(psqt / 16, layers / 16)` (`evaluate_nnue.cpp:222-229`).
    pub fn trace_pair(&self, b: usize) -> (i32, i32) {
        (self.psqt[b] / OUTPUT_SCALE, self.layers[b] / OUTPUT_SCALE)
    }
}

/// The transformed input (step 2): the side to move's half first, each clamped to 0..=127.
pub fn transform(stm: &[i16; L1], other: &[i16; L1]) -> [u8; L1_IN] {
    let mut x = [0u8; L1_IN];
    for (o, &a) in x.iter_mut().zip(stm.iter().chain(other)) {
        *o = a.clamp(0, CLAMP_MAX as i16) as u8;
    }
    x
}

/// An affine layer's row plus bias, shifted and clamped: one hidden activation.
fn hidden(bias: i32, row: &[i8], input: &[u8]) -> u8 {
    let sum = row.iter().zip(input).fold(bias, |s, (&w, &x)| s + i32::from(w) * i32::from(x));
    (sum >> WEIGHT_SCALE_BITS).clamp(0, CLAMP_MAX) as u8
}

/// The first hidden layer (1024 → 16), shifted and clamped.
pub fn layer1(stack: &FsfStack, x: &[u8; L1_IN]) -> [u8; L2] {
    let mut h = [0u8; L2];
    for (o, out) in h.iter_mut().enumerate() {
        *out = hidden(stack.l1_bias[o], &stack.l1_weights[o * L1_IN..(o + 1) * L1_IN], x);
    }
    h
}

/// The rest of the stack after layer 1 (16 → 32 → 1): the output, unshifted (step 4).
pub fn layers_after_l1(stack: &FsfStack, h1: &[u8; L2]) -> i32 {
    let mut h2 = [0u8; L3];
    for (o, out) in h2.iter_mut().enumerate() {
        *out = hidden(stack.l2_bias[o], &stack.l2_weights[o * L2..(o + 1) * L2], h1);
    }
    let dot = stack.out_weights.iter().zip(&h2).map(|(&w, &x)| i32::from(w) * i32::from(x));
    stack.out_bias + dot.sum::<i32>()
}

/// The stack's output for the transformed input `x` (step 4).
pub fn propagate(stack: &FsfStack, x: &[u8; L1_IN]) -> i32 {
    layers_after_l1(stack, &layer1(stack, x))
}

/// The plain value from the two perspectives' accumulations (steps 2–6), every bucket's
/// figures included.
pub fn evaluate_accumulated(
    net: &FsfNet,
    stm: &Accumulation,
    other: &Accumulation,
    bucket: usize,
) -> FsfEval {
    let x = transform(&stm.acc, &other.acc);
    let mut psqt = [0; BUCKETS];
    let mut layers = [0; BUCKETS];
    for b in 0..BUCKETS {
        psqt[b] = (stm.psqt[b] - other.psqt[b]) / 2;
        layers[b] = propagate(&net.stacks[b], &x);
    }
    let value = (psqt[bucket] + layers[bucket]) / OUTPUT_SCALE;
    FsfEval { bucket, psqt, layers, value }
}

/// The accumulation of `pos` seen from `perspective`, from scratch.
pub fn accumulate(
    net: &FsfNet,
    layout: &FsfLayout,
    pos: &Position,
    perspective: Color,
) -> Accumulation {
    let mut features = Vec::with_capacity(64);
    layout.active_features(pos, perspective, &mut features);
    Accumulation::of(net, &features)
}

/// FSF's evaluation of `pos`, from scratch (the plain value and every bucket's figures).
pub fn evaluate(net: &FsfNet, layout: &FsfLayout, pos: &Position) -> FsfEval {
    let us = pos.side_to_move();
    let stm = accumulate(net, layout, pos, us);
    let other = accumulate(net, layout, pos, !us);
    evaluate_accumulated(net, &stm, &other, layout.bucket(pos))
}
