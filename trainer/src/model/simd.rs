//! CPU fast paths; the crate's only `unsafe` code lives here.
//!
//! * [`tune_allocator`]: glibc `mallopt` so that the large per-step buffers of the burn head
//!   (4 MiB per `B x 2H` tensor at the default shape) are reused from the heap instead of being
//!   returned to the kernel and page-faulted back in at every step.
//! * Hot loops of the sparse FT and of AdamW, written once as plain scalar Rust (the
//!   `*_scalar` twins, also the fallback) and compiled a second and third time with AVX-512 or
//!   AVX2 enabled; the widest the CPU supports is chosen at run time. The kernels only use
//!   element-wise IEEE operations (add, multiply, divide, square root, compare, min/max) in the
//!   same order for every element, and Rust never fuses a multiply and an add, so every
//!   variant gives bit-identical results (tested against the scalar twins below).
//!
//! * [`prefetch`]: a cache prefetch hint for the loader's shuffle buffer.
//!
//! `KAGE_TRAIN_SIMD=scalar|avx2|avx512` caps the variant used (for comparisons).

use crate::data::batch::SparseBatch;
use crate::training::optim::AdamStep;
use std::sync::OnceLock;

/// Instruction-set level the kernels run at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// Plain code (SSE2 on x86_64).
    Scalar,
    /// AVX2 (256-bit vectors).
    Avx2,
    /// AVX-512F (512-bit vectors).
    Avx512,
}

fn detect() -> Level {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            return Level::Avx512;
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            return Level::Avx2;
        }
    }
    Level::Scalar
}

/// The level in use: the best the CPU supports, capped by `KAGE_TRAIN_SIMD`.
pub fn level() -> Level {
    static LEVEL: OnceLock<Level> = OnceLock::new();
    *LEVEL.get_or_init(|| {
        let cap = match std::env::var("KAGE_TRAIN_SIMD").as_deref() {
            Ok("scalar") => Level::Scalar,
            Ok("avx2") => Level::Avx2,
            _ => Level::Avx512,
        };
        detect().min(cap)
    })
}

/// Asks the CPU to start loading the cache lines of `data` (the shuffle buffer prefetches
/// the slot it will replace a few positions ahead). Only a hint: no effect on results, and
/// nothing off x86-64.
#[inline]
pub fn prefetch(data: &[u32]) {
    #[cfg(target_arch = "x86_64")]
    for line in data.chunks(16) {
        // SAFETY: SSE is part of the x86-64 baseline, and a prefetch never faults (the
        // address is in bounds anyway).
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                line.as_ptr().cast(),
            );
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = data;
}

/// Raises glibc's `malloc` trim and mmap thresholds so freed multi-MiB buffers stay in the
/// heap for the next training step (on this kind of VM a fresh 4 MiB buffer costs several
/// milliseconds of page faults). Process-wide; call once at start-up. Returns whether both
/// settings were accepted (always `false` off glibc).
pub fn tune_allocator() -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        use std::ffi::c_int;
        unsafe extern "C" {
            fn mallopt(param: c_int, value: c_int) -> c_int;
        }
        const M_TRIM_THRESHOLD: c_int = -1;
        const M_MMAP_THRESHOLD: c_int = -3;
        // SAFETY: `mallopt` is glibc's documented, thread-safe tuning call; it takes two plain
        // integers and only changes allocation thresholds (32 MiB is the largest mmap
        // threshold glibc accepts on 64-bit targets).
        unsafe {
            mallopt(M_MMAP_THRESHOLD, 32 << 20) == 1 && mallopt(M_TRIM_THRESHOLD, 1 << 30) == 1
        }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        false
    }
}

/// Defines `$name` (dispatching) and `$scalar` (the plain twin, `#[inline(always)]` so that
/// the wider variants compile the very same body with their target features).
macro_rules! multiversion {
    ($(#[$m:meta])* pub fn $name:ident / $scalar:ident ($($arg:ident : $ty:ty),* $(,)?) $body:block) => {
        /// Scalar twin of the kernel of the same name without the suffix (reference + fallback).
        #[inline(always)]
        #[allow(clippy::too_many_arguments)]
        pub fn $scalar($($arg: $ty),*) $body

        $(#[$m])*
        #[allow(clippy::too_many_arguments)]
        pub fn $name($($arg: $ty),*) {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx512f")]
                #[allow(clippy::too_many_arguments)]
                fn avx512($($arg: $ty),*) {
                    $scalar($($arg),*)
                }
                #[target_feature(enable = "avx2")]
                #[allow(clippy::too_many_arguments)]
                fn avx2($($arg: $ty),*) {
                    $scalar($($arg),*)
                }
                match level() {
                    // SAFETY: `level()` only returns `Avx512` after run-time detection of
                    // AVX-512F on this CPU, the only feature `avx512` is compiled with.
                    Level::Avx512 => return unsafe { avx512($($arg),*) },
                    // SAFETY: as above, `Avx2` is only returned after detecting AVX2.
                    Level::Avx2 => return unsafe { avx2($($arg),*) },
                    Level::Scalar => {}
                }
            }
            $scalar($($arg),*)
        }
    };
}

multiversion! {
    /// `out = bias + sum of the rows `features` of `w`` (rows of `bias.len()` values), added
    /// in feature order.
    pub fn accumulate / accumulate_scalar(out: &mut [f32], bias: &[f32], w: &[f32], features: &[u32]) {
        let h = bias.len();
        out.copy_from_slice(bias);
        for &f in features {
            let row = &w[f as usize * h..(f as usize + 1) * h];
            out.iter_mut().zip(row).for_each(|(a, w)| *a += w);
        }
    }
}

multiversion! {
    /// `x = clamp(acc, 0, 1)`, element-wise.
    pub fn clamp01 / clamp01_scalar(x: &mut [f32], acc: &[f32]) {
        for (x, &a) in x.iter_mut().zip(acc) {
            *x = a.clamp(0.0, 1.0);
        }
    }
}

multiversion! {
    /// One perspective of one position in the FT backward: `row` = `grad` where the
    /// accumulator `acc` is inside (0, 1), else 0; `bias += row`; then `row` is added to the
    /// rows `features` of `buf` (rows of `row.len()` values).
    pub fn scatter / scatter_scalar(
        row: &mut [f32],
        bias: &mut [f32],
        buf: &mut [f32],
        grad: &[f32],
        acc: &[f32],
        features: &[u32],
    ) {
        for ((r, &g), &a) in row.iter_mut().zip(grad).zip(acc) {
            *r = if a > 0.0 && a < 1.0 { g } else { 0.0 };
        }
        add_row(bias, buf, row, features);
    }
}

/// `bias += row`, then `row` added to the rows `features` of `buf` (rows of `row.len()`).
#[inline(always)]
fn add_row(bias: &mut [f32], buf: &mut [f32], row: &[f32], features: &[u32]) {
    let n = row.len();
    bias.iter_mut().zip(row).for_each(|(b, r)| *b += r);
    for &f in features {
        let dst = &mut buf[f as usize * n..(f as usize + 1) * n];
        dst.iter_mut().zip(row).for_each(|(d, r)| *d += r);
    }
}

multiversion! {
    /// `dst += src`, element-wise.
    pub fn add_assign / add_assign_scalar(dst: &mut [f32], src: &[f32]) {
        dst.iter_mut().zip(src).for_each(|(d, s)| *d += s);
    }
}

multiversion! {
    /// One AdamW update of `w` with gradient `g` (decoupled weight decay when `decay`), then
    /// clipping to `[-limit, limit]`.
    pub fn adamw / adamw_scalar(
        w: &mut [f32],
        m: &mut [f32],
        v: &mut [f32],
        g: &[f32],
        s: &AdamStep,
        decay: bool,
        limit: f32,
    ) {
        let wd = if decay { s.weight_decay } else { 0.0 };
        for (((w, m), v), &g) in w.iter_mut().zip(m.iter_mut()).zip(v.iter_mut()).zip(g) {
            *m = s.beta1 * *m + (1.0 - s.beta1) * g;
            *v = s.beta2 * *v + (1.0 - s.beta2) * g * g;
            let update = (*m / s.bc1) / ((*v / s.bc2).sqrt() + s.eps);
            *w = (*w - s.lr * (update + wd * *w)).clamp(-limit, limit);
        }
    }
}

/// Width of the column blocks the FT kernels work on. Blocks of this exact width run with the
/// accumulator (or the masked gradient row) held in registers (eight AVX-512 vectors), wider
/// FTs are split into such blocks; other widths take the slice path. Measured against 32 and
/// 64 (narrower blocks that keep a `2304 x cols` weight block in L2): 128 was the fastest.
pub const COLS: usize = 128;

#[inline(always)]
fn acc_cols<const N: usize>(
    active: &mut [u8],
    x: &mut [f32],
    bias: &[f32; N],
    w: &[f32],
    (h, c0): (usize, usize),
    features: &[u32],
) {
    let mut sum = *bias;
    for &f in features {
        let start = f as usize * h + c0;
        let row: &[f32; N] = w[start..start + N].try_into().expect("row block");
        sum.iter_mut().zip(row).for_each(|(a, w)| *a += w);
    }
    x[c0..c0 + N].iter_mut().zip(&sum).for_each(|(x, &a)| *x = a.clamp(0.0, 1.0));
    active[c0..c0 + N].iter_mut().zip(&sum).for_each(|(m, &a)| *m = u8::from(a > 0.0 && a < 1.0));
}

multiversion! {
    /// FT forward of positions `lo..hi` of `batch`, columns `c0..c0 + bias.len()`: clipped
    /// activations (`x`, rows `2 * (i - lo) + perspective` of `h` values) and where the clipped
    /// ReLU has slope 1 (`active`, same layout: 1 where the accumulator is inside (0, 1), else
    /// 0). Accumulators are `bias + rows in feature order`, the sums of [`accumulate`].
    pub fn forward_cols / forward_cols_scalar(
        active: &mut [u8],
        x: &mut [f32],
        bias: &[f32],
        w: &[f32],
        h: usize,
        c0: usize,
        batch: &SparseBatch,
        lo: usize,
        hi: usize,
    ) {
        let mut sum = Vec::new();
        for i in lo..hi {
            for p in 0..2 {
                let e = (2 * (i - lo) + p) * h;
                let (active, x) = (&mut active[e..e + h], &mut x[e..e + h]);
                let features = batch.features(i, p);
                if let Ok(b) = <&[f32; COLS]>::try_from(bias) {
                    acc_cols(active, x, b, w, (h, c0), features);
                } else {
                    let n = bias.len();
                    sum.clear();
                    sum.extend_from_slice(bias);
                    for &f in features {
                        let start = f as usize * h + c0;
                        sum.iter_mut().zip(&w[start..start + n]).for_each(|(a, w)| *a += w);
                    }
                    x[c0..c0 + n].iter_mut().zip(&sum).for_each(|(x, &a)| *x = a.clamp(0.0, 1.0));
                    active[c0..c0 + n]
                        .iter_mut()
                        .zip(&sum)
                        .for_each(|(m, &a)| *m = u8::from(a > 0.0 && a < 1.0));
                }
            }
        }
    }
}

#[inline(always)]
fn scatter_fixed<const N: usize>(
    buf: &mut [f32],
    bias: &mut [f32; N],
    grad: &[f32; N],
    active: &[u8; N],
    features: &[u32],
) {
    let mut row = [0.0f32; N];
    for ((r, &g), &m) in row.iter_mut().zip(grad).zip(active) {
        *r = if m != 0 { g } else { 0.0 };
    }
    bias.iter_mut().zip(&row).for_each(|(b, r)| *b += r);
    for &f in features {
        let dst: &mut [f32; N] =
            (&mut buf[f as usize * N..(f as usize + 1) * N]).try_into().expect("row block");
        dst.iter_mut().zip(&row).for_each(|(d, r)| *d += r);
    }
}

multiversion! {
    /// FT backward scatter of positions `lo..hi` of `batch`, columns `c0..c0 + bias.len()`:
    /// for each position and perspective in order, its gradient row masked by `active` (the
    /// clipped ReLU's slope, from [`forward_cols`]) is added to `bias` and to the rows
    /// `features` of `buf` (rows of `bias.len()` values, one per feature): the sums of
    /// [`scatter`]. `grad` holds rows of a `B x 2H` matrix (row `2 * position + perspective`,
    /// width `h`) from position `first` on; `active` the same rows of the activity mask.
    pub fn scatter_cols / scatter_cols_scalar(
        buf: &mut [f32],
        bias: &mut [f32],
        row: &mut [f32],
        grad: &[f32],
        active: &[u8],
        h: usize,
        c0: usize,
        batch: &SparseBatch,
        first: usize,
        lo: usize,
        hi: usize,
    ) {
        let n = bias.len();
        for i in lo..hi {
            for p in 0..2 {
                let e = (2 * (i - first) + p) * h + c0;
                let (g, m) = (&grad[e..e + n], &active[e..e + n]);
                let features = batch.features(i, p);
                match (<&mut [f32; COLS]>::try_from(&mut *bias), <&[f32; COLS]>::try_from(g)) {
                    (Ok(b), Ok(g)) => {
                        let m: &[u8; COLS] = m.try_into().expect("same width");
                        scatter_fixed(buf, b, g, m, features);
                    }
                    _ => {
                        for ((r, &g), &m) in row.iter_mut().zip(g).zip(m) {
                            *r = if m != 0 { g } else { 0.0 };
                        }
                        add_row(bias, buf, row, features);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    fn vals(rng: &mut Xoshiro256PlusPlus, n: usize, lo: f32, hi: f32) -> Vec<f32> {
        let mut v: Vec<f32> = (0..n).map(|_| rng.random_range(lo..hi)).collect();
        // Edge values: exact bounds, signed zeros, a NaN.
        for (i, e) in [0.0, -0.0, 1.0, -1.0, f32::NAN].into_iter().enumerate() {
            if i < n {
                v[i * 7 % n] = e;
            }
        }
        v
    }

    fn same(a: &[f32], b: &[f32]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
    }

    /// Odd widths exercise the vector remainders.
    const WIDTHS: [usize; 4] = [1, 13, 128, 259];

    #[test]
    fn kernels_match_their_scalar_twins_bit_for_bit() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        for h in WIDTHS {
            let nf = 50;
            let w = vals(&mut rng, nf * h, -0.3, 0.3);
            let bias = vals(&mut rng, h, -0.5, 1.5);
            let features: Vec<u32> = (0..20).map(|_| rng.random_range(0..nf as u32)).collect();
            let (mut a, mut b) = (vec![0.0; h], vec![0.0; h]);
            accumulate(&mut a, &bias, &w, &features);
            accumulate_scalar(&mut b, &bias, &w, &features);
            assert!(same(&a, &b), "accumulate h={h}");

            let acc = vals(&mut rng, h, -0.5, 1.5);
            let (mut xa, mut xb) = (vec![0.0; h], vec![0.0; h]);
            clamp01(&mut xa, &acc);
            clamp01_scalar(&mut xb, &acc);
            assert!(same(&xa, &xb), "clamp01 h={h}");

            let grad = vals(&mut rng, h, -1.0, 1.0);
            let buf0 = vals(&mut rng, nf * h, -1.0, 1.0);
            let bias0 = vals(&mut rng, h, -1.0, 1.0);
            let (mut ra, mut rb) = (vec![0.0; h], vec![0.0; h]);
            let (mut ba, mut bb) = (bias0.clone(), bias0);
            let (mut fa, mut fb) = (buf0.clone(), buf0);
            scatter(&mut ra, &mut ba, &mut fa, &grad, &acc, &features);
            scatter_scalar(&mut rb, &mut bb, &mut fb, &grad, &acc, &features);
            assert!(same(&ra, &rb) && same(&ba, &bb) && same(&fa, &fb), "scatter h={h}");

            let (mut da, mut db) = (grad.clone(), grad.clone());
            add_assign(&mut da, &acc);
            add_assign_scalar(&mut db, &acc);
            assert!(same(&da, &db), "add_assign h={h}");

            for (t, decay) in [(1, true), (5, false), (1000, true)] {
                let s = AdamStep::new(1e-3, 0.9, 0.999, 1e-8, 1e-2, t);
                let w0 = vals(&mut rng, h, -2.0, 2.0);
                let m0 = vals(&mut rng, h, -0.1, 0.1);
                let v0: Vec<f32> = vals(&mut rng, h, 0.0, 0.01);
                let (mut wa, mut ma, mut va) = (w0.clone(), m0.clone(), v0.clone());
                let (mut wb, mut mb, mut vb) = (w0, m0, v0);
                adamw(&mut wa, &mut ma, &mut va, &grad, &s, decay, 1.5);
                adamw_scalar(&mut wb, &mut mb, &mut vb, &grad, &s, decay, 1.5);
                assert!(same(&wa, &wb) && same(&ma, &mb) && same(&va, &vb), "adamw h={h} t={t}");
            }
        }
    }

    #[test]
    fn level_is_supported() {
        assert!(level() <= detect());
    }
}
