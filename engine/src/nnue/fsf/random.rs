//! Seeded random FSF-format nets, for reference tests against FSF and for speed
//! measurements. The weights are small (|w| ≤ 30 in every i8/i16 layer) so that no i16
//! accumulator wraps and no pair of products reaches FSF's AVX2 i16 saturation
//! (FSF-NNUE.md §4.2 caveat): exact integer arithmetic then equals FSF's on every build.
//!
//! The stream is fixed: the same seed gives the same net on every build and forever
//! (`engine/tests/reference/fsf_nnue_*.jsonl` records FSF's output for these nets).

use super::arch::{BUCKETS, L1, L1_IN, L2, L3};
use super::{FsfLayout, FsfNet, FsfStack};
use crate::util::hash::{GOLDEN_GAMMA, splitmix64};

/// Draws integers in `-r..=r` from a SplitMix64 stream.
struct Draw(u64);

impl Draw {
    fn next(&mut self, r: i64) -> i64 {
        let x = splitmix64(self.0);
        self.0 = self.0.wrapping_add(GOLDEN_GAMMA);
        (x % (2 * r as u64 + 1)) as i64 - r
    }
    fn i8s(&mut self, n: usize, r: i64) -> Vec<i8> {
        (0..n).map(|_| self.next(r) as i8).collect()
    }
    fn i16s(&mut self, n: usize, r: i64) -> Vec<i16> {
        (0..n).map(|_| self.next(r) as i16).collect()
    }
    fn i32s(&mut self, n: usize, r: i64) -> Vec<i32> {
        (0..n).map(|_| self.next(r) as i32).collect()
    }
}

/// The random net of `seed` for `layout`'s variant. Tensors are drawn in file order.
pub fn random_net(layout: &FsfLayout, seed: u64) -> FsfNet {
    let mut d = Draw(seed);
    let dims = layout.dims();
    let description = format!("kage random net {} seed {seed}", layout.variant_name()).into_bytes();
    let ft_bias = d.i16s(L1, 30);
    let ft_weights = d.i16s(dims * L1, 30);
    let psqt = d.i32s(dims * BUCKETS, 2000);
    let stacks = (0..BUCKETS)
        .map(|_| FsfStack {
            l1_bias: d.i32s(L2, 4000),
            l1_weights: d.i8s(L2 * L1_IN, 30),
            l2_bias: d.i32s(L3, 4000),
            l2_weights: d.i8s(L3 * L2, 30),
            out_bias: d.i32s(1, 4000)[0],
            out_weights: d.i8s(L3, 30),
        })
        .collect();
    FsfNet { description, ft_bias, ft_weights, psqt, stacks }
}
