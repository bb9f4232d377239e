//! The hot loops of NNUE inference with SIMD twins: accumulator updates (`dst = src + rows -
//! rows`), the clipped ReLU of both accumulators and the first head layer's dot products.
//!
//! Every operation has a scalar reference and, on x86-64, AVX2, AVX-512 (BW) and AVX-512 VNNI
//! paths chosen at run time ([`Level::detect`]). All paths compute exactly the same integers:
//! i16 adds wrap in every path; the dot products multiply activations in `0..=QA` (u8) by i8
//! weights, where pairs of products cannot saturate i16 (`2 * 127 * 128 < 2^15`), and sum them
//! in wrapping i32 (the order of wrapping additions does not change the result). This module
//! holds all of the NNUE code's `unsafe`.

use super::network::QA;

/// An instruction-set level for the NNUE loops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// Portable scalar code (the reference).
    Scalar,
    /// x86-64 AVX2 (256-bit vectors).
    Avx2,
    /// x86-64 AVX-512 F + BW (512-bit vectors).
    Avx512,
    /// AVX-512 F + BW with VNNI (`vpdpbusd` for the head).
    Avx512Vnni,
}

impl Level {
    /// The best level this CPU supports.
    pub fn detect() -> Level {
        Level::available().into_iter().last().unwrap_or(Level::Scalar)
    }

    /// Every level this CPU supports, scalar first.
    pub fn available() -> Vec<Level> {
        let mut out = vec![Level::Scalar];
        #[cfg(target_arch = "x86_64")]
        {
            if is_x86_feature_detected!("avx2") {
                out.push(Level::Avx2);
            }
            if has_avx512() {
                out.push(Level::Avx512);
                if is_x86_feature_detected!("avx512vnni") {
                    out.push(Level::Avx512Vnni);
                }
            }
        }
        out
    }

    /// This level, or a lower one whose vectors divide a row of `len` i16 values.
    fn for_len(self, len: usize) -> Level {
        match self {
            Level::Avx512 | Level::Avx512Vnni if len.is_multiple_of(32) => Level::Avx512,
            Level::Avx512 | Level::Avx512Vnni | Level::Avx2 if len.is_multiple_of(16) => {
                Level::Avx2
            }
            _ => Level::Scalar,
        }
    }
}

#[cfg(target_arch = "x86_64")]
fn has_avx512() -> bool {
    is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw")
}

fn check_rows(weights: &[i16], h: usize, features: &[u32]) {
    for &f in features {
        let end = (f as usize + 1).checked_mul(h);
        assert!(end.is_some_and(|e| e <= weights.len()), "NNUE feature {f} out of range");
    }
}

/// `dst = src + sum of rows add - sum of rows sub` (wrapping i16), where row `f` is
/// `weights[f * h..(f + 1) * h]` and `h = dst.len()`.
///
/// # Panics
/// Panics if `src` is not as long as `dst` or a row lies outside `weights`.
pub fn update(
    level: Level,
    dst: &mut [i16],
    src: &[i16],
    weights: &[i16],
    add: &[u32],
    sub: &[u32],
) {
    let h = dst.len();
    assert_eq!(src.len(), h, "accumulator widths differ");
    check_rows(weights, h, add);
    check_rows(weights, h, sub);
    match level.for_len(h) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `for_len` keeps a vector level only when the CPU was found to support it
        // (callers pass a level from `detect`/`available`, checked again below) and `h` is a
        // multiple of the vector width; all rows were bounds-checked above.
        Level::Avx512 if has_avx512() => unsafe { x86::update_avx512(dst, src, weights, add, sub) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above, for AVX2.
        Level::Avx2 if is_x86_feature_detected!("avx2") => unsafe {
            x86::update_avx2(dst, src, weights, add, sub)
        },
        _ => update_scalar(dst, src, weights, add, sub),
    }
}

/// Scalar twin of [`update`].
pub fn update_scalar(dst: &mut [i16], src: &[i16], weights: &[i16], add: &[u32], sub: &[u32]) {
    let h = dst.len();
    dst.copy_from_slice(src);
    for &f in add {
        let row = &weights[f as usize * h..(f as usize + 1) * h];
        dst.iter_mut().zip(row).for_each(|(d, &w)| *d = d.wrapping_add(w));
    }
    for &f in sub {
        let row = &weights[f as usize * h..(f as usize + 1) * h];
        dst.iter_mut().zip(row).for_each(|(d, &w)| *d = d.wrapping_sub(w));
    }
}

/// `act = clamp([stm, nstm], 0, QA)` as bytes.
///
/// # Panics
/// Panics if `act` is not as long as `stm` and `nstm` together, or they differ in length.
pub fn crelu(level: Level, stm: &[i16], nstm: &[i16], act: &mut [u8]) {
    let h = stm.len();
    assert!(nstm.len() == h && act.len() == 2 * h, "activation widths differ");
    match level.for_len(h) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the CPU supports the level (checked) and all three slices have the lengths
        // asserted above, multiples of the vector width.
        Level::Avx512 if has_avx512() => unsafe { x86::crelu_avx512(stm, nstm, act) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above, for AVX2.
        Level::Avx2 if is_x86_feature_detected!("avx2") => unsafe {
            x86::crelu_avx2(stm, nstm, act)
        },
        _ => crelu_scalar(stm, nstm, act),
    }
}

/// Scalar twin of [`crelu`].
pub fn crelu_scalar(stm: &[i16], nstm: &[i16], act: &mut [u8]) {
    for (d, &a) in act.iter_mut().zip(stm.iter().chain(nstm)) {
        *d = a.clamp(0, QA as i16) as u8;
    }
}

/// First-layer weights for [`dots`]: `k` rows of `n` i8 values (row-major, the reference
/// layout) and, when `n` is a multiple of 4, the same weights interleaved by groups of four
/// inputs for the vector paths: group `q` of output `j` is at `quads[4 * (q * k + j)..][..4]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeadWeights {
    n: usize,
    k: usize,
    rows: Vec<i8>,
    quads: Vec<i8>,
}

impl HeadWeights {
    /// Prepares `k` rows of `n` weights each (`rows[j * n + i]`).
    ///
    /// # Panics
    /// Panics if `rows.len() != n * k`.
    pub fn new(rows: Vec<i8>, n: usize, k: usize) -> HeadWeights {
        assert_eq!(rows.len(), n * k, "head weights are not k rows of n");
        let mut quads = Vec::new();
        if n.is_multiple_of(4) {
            quads = vec![0i8; n * k];
            for q in 0..n / 4 {
                for j in 0..k {
                    for t in 0..4 {
                        quads[4 * (q * k + j) + t] = rows[j * n + 4 * q + t];
                    }
                }
            }
        }
        HeadWeights { n, k, rows, quads }
    }

    /// Inputs per row.
    pub fn inputs(&self) -> usize {
        self.n
    }

    /// Rows (outputs).
    pub fn outputs(&self) -> usize {
        self.k
    }
}

/// `out[j] = sum_i act[i] * w.rows[j * n + i]` in wrapping i32, with `n = act.len()`. The
/// activations must lie in `0..=QA` (what [`crelu`] writes): the vector paths rely on it.
///
/// # Panics
/// Panics if `act` and `out` do not match the weights' `n` and `k`.
pub fn dots(level: Level, act: &[u8], w: &HeadWeights, out: &mut [i32]) {
    assert!(act.len() == w.n && out.len() == w.k, "head widths differ");
    debug_assert!(act.iter().all(|&a| i32::from(a) <= QA), "activations above QA");
    // The vector paths hold 8 (AVX2) or 16 (AVX-512) outputs per register and read the
    // inputs four at a time.
    let level = match level {
        _ if w.quads.is_empty() => Level::Scalar,
        Level::Avx512Vnni if w.k.is_multiple_of(16) => Level::Avx512Vnni,
        Level::Avx512 | Level::Avx512Vnni if w.k.is_multiple_of(16) => Level::Avx512,
        Level::Avx512 | Level::Avx512Vnni | Level::Avx2 if w.k.is_multiple_of(8) => Level::Avx2,
        _ => Level::Scalar,
    };
    match level {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the CPU supports the level (checked), `k` is a multiple of the register's
        // outputs, `n` of 4, and `quads` holds `n * k` bytes with `act.len() == n` (asserted
        // above and by `HeadWeights::new`).
        Level::Avx512Vnni if has_avx512() && is_x86_feature_detected!("avx512vnni") => unsafe {
            x86::dots_avx512_vnni(act, &w.quads, out)
        },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above, for AVX-512 BW.
        Level::Avx512 if has_avx512() => unsafe { x86::dots_avx512(act, &w.quads, out) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above, for AVX2.
        Level::Avx2 if is_x86_feature_detected!("avx2") => unsafe {
            x86::dots_avx2(act, &w.quads, out)
        },
        _ => dots_scalar(act, &w.rows, out),
    }
}

/// Scalar twin of [`dots`] on row-major weights (`rows[j * act.len() + i]`). Sixteen
/// independent lane sums (combined in wrapping i32 at the end) let the compiler vectorise it
/// on any target; a product `u8 * i8` always fits i32.
pub fn dots_scalar(act: &[u8], rows: &[i8], out: &mut [i32]) {
    const LANES: usize = 16;
    let n = act.len();
    for (j, o) in out.iter_mut().enumerate() {
        let row = &rows[j * n..(j + 1) * n];
        let (ac, rc) = (act.chunks_exact(LANES), row.chunks_exact(LANES));
        let (at, rt) = (ac.remainder(), rc.remainder());
        let mut lanes = [0i32; LANES];
        for (a, w) in ac.zip(rc) {
            for i in 0..LANES {
                lanes[i] = lanes[i].wrapping_add(i32::from(a[i]) * i32::from(w[i]));
            }
        }
        let tail = at.iter().zip(rt).map(|(&a, &w)| i32::from(a) * i32::from(w));
        *o = lanes.into_iter().chain(tail).fold(0i32, i32::wrapping_add);
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::QA;
    use std::arch::x86_64::*;

    /// The accumulator update `dst = src + rows add - rows sub` on one instruction set: one
    /// register of `$lanes` i16 at a time, every row added or subtracted before the store.
    macro_rules! update_fn {
        ($(#[$doc:meta])* $name:ident, $features:literal, $lanes:literal,
         $load:ident, $store:ident, $add:ident, $sub:ident) => {
            $(#[$doc])*
            #[target_feature(enable = $features)]
            pub unsafe fn $name(dst: &mut [i16], src: &[i16], w: &[i16], add: &[u32], sub: &[u32]) {
                let (h, w) = (dst.len(), w.as_ptr());
                for c in (0..h).step_by($lanes) {
                    // SAFETY: `c + $lanes <= h` for every chunk (`h` is a multiple of it),
                    // rows lie within the weights (caller), and unaligned loads/stores are used.
                    unsafe {
                        let mut v = $load(src.as_ptr().add(c).cast());
                        for &f in add {
                            v = $add(v, $load(w.add(f as usize * h + c).cast()));
                        }
                        for &f in sub {
                            v = $sub(v, $load(w.add(f as usize * h + c).cast()));
                        }
                        $store(dst.as_mut_ptr().add(c).cast(), v);
                    }
                }
            }
        };
    }

    update_fn!(
        /// # Safety
        /// AVX2 must be available, `dst.len() == src.len()` a multiple of 16, and every row
        /// `f` of `add`/`sub` within `weights` (`(f + 1) * dst.len() <= weights.len()`).
        update_avx2, "avx2", 16,
        _mm256_loadu_si256, _mm256_storeu_si256, _mm256_add_epi16, _mm256_sub_epi16
    );

    update_fn!(
        /// # Safety
        /// As [`update_avx2`], with AVX-512 BW and a multiple of 32.
        update_avx512, "avx512f,avx512bw", 32,
        _mm512_loadu_si512, _mm512_storeu_si512, _mm512_add_epi16, _mm512_sub_epi16
    );

    /// # Safety
    /// AVX2 must be available; `stm.len() == nstm.len()` a multiple of 16 and
    /// `act.len() == 2 * stm.len()`.
    #[target_feature(enable = "avx2")]
    pub unsafe fn crelu_avx2(stm: &[i16], nstm: &[i16], act: &mut [u8]) {
        let h = stm.len();
        let (zero, top) = (_mm256_setzero_si256(), _mm256_set1_epi16(QA as i16));
        for (half, src) in [stm, nstm].into_iter().enumerate() {
            for c in (0..h).step_by(16) {
                // SAFETY: `c + 16 <= h` and `half * h + c + 16 <= 2 * h` (lengths from the
                // caller); unaligned loads/stores.
                unsafe {
                    let v = _mm256_loadu_si256(src.as_ptr().add(c).cast());
                    let v = _mm256_min_epi16(_mm256_max_epi16(v, zero), top);
                    // Bytes of the low lanes of both halves, then gather them in order.
                    let b = _mm256_permute4x64_epi64(_mm256_packus_epi16(v, v), 0b11_01_10_00);
                    let dst = act.as_mut_ptr().add(half * h + c);
                    _mm_storeu_si128(dst.cast(), _mm256_castsi256_si128(b));
                }
            }
        }
    }

    /// # Safety
    /// As [`crelu_avx2`], with AVX-512 BW and a multiple of 32.
    #[target_feature(enable = "avx512f,avx512bw")]
    pub unsafe fn crelu_avx512(stm: &[i16], nstm: &[i16], act: &mut [u8]) {
        let h = stm.len();
        let (zero, top) = (_mm512_setzero_si512(), _mm512_set1_epi16(QA as i16));
        for (half, src) in [stm, nstm].into_iter().enumerate() {
            for c in (0..h).step_by(32) {
                // SAFETY: `c + 32 <= h` and `half * h + c + 32 <= 2 * h` (lengths from the
                // caller); unaligned loads/stores.
                unsafe {
                    let v = _mm512_loadu_si512(src.as_ptr().add(c).cast());
                    let v = _mm512_min_epi16(_mm512_max_epi16(v, zero), top);
                    let dst = act.as_mut_ptr().add(half * h + c);
                    _mm256_storeu_si256(dst.cast(), _mm512_cvtepi16_epi8(v));
                }
            }
        }
    }

    /// Reads inputs `4 * q..4 * q + 4` of `act` as one i32, for a broadcast.
    ///
    /// # Safety
    /// `4 * q + 3 < act.len()`.
    #[inline(always)]
    unsafe fn quad(act: &[u8], q: usize) -> i32 {
        // SAFETY: in bounds (caller); an unaligned read of four consecutive bytes.
        unsafe { std::ptr::read_unaligned(act.as_ptr().add(4 * q).cast::<i32>()) }
    }

    /// # Safety
    /// AVX2 must be available; `act.len()` a multiple of 4, `out.len()` of 8, activations in
    /// `0..=127`, and `quads.len() == act.len() * out.len()` (the layout of `HeadWeights`).
    #[target_feature(enable = "avx2")]
    pub unsafe fn dots_avx2(act: &[u8], quads: &[i8], out: &mut [i32]) {
        let k = out.len();
        let mut b = 0;
        // Four registers (32 outputs) per pass over the inputs, then two, then one.
        while b + 32 <= k {
            // SAFETY: the caller's layout, with `b + 32 <= k`.
            unsafe { block_avx2::<4>(act, quads, out, b) };
            b += 32;
        }
        if b + 16 <= k {
            // SAFETY: the caller's layout, with `b + 16 <= k`.
            unsafe { block_avx2::<2>(act, quads, out, b) };
            b += 16;
        }
        while b < k {
            // SAFETY: the caller's layout, with `b + 8 <= k` (a multiple of 8).
            unsafe { block_avx2::<1>(act, quads, out, b) };
            b += 8;
        }
    }

    /// Outputs `b..b + 8 * R` of [`dots_avx2`].
    ///
    /// # Safety
    /// As [`dots_avx2`], with `b + 8 * R <= out.len()`.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn block_avx2<const R: usize>(act: &[u8], quads: &[i8], out: &mut [i32], b: usize) {
        let k = out.len();
        let ones = _mm256_set1_epi16(1);
        let mut s = [_mm256_setzero_si256(); R];
        for q in 0..act.len() / 4 {
            // SAFETY: `4 * q + 3 < act.len()`; `4 * (q * k + b + 8 * R) <= quads.len()`.
            unsafe {
                let a = _mm256_set1_epi32(quad(act, q));
                let row = quads.as_ptr().add(4 * (q * k + b));
                for (r, acc) in s.iter_mut().enumerate() {
                    let x = _mm256_loadu_si256(row.add(32 * r).cast());
                    let p = _mm256_madd_epi16(_mm256_maddubs_epi16(a, x), ones);
                    *acc = _mm256_add_epi32(*acc, p);
                }
            }
        }
        for (r, acc) in s.iter().enumerate() {
            // SAFETY: `b + 8 * r + 8 <= b + 8 * R <= out.len()`.
            unsafe { _mm256_storeu_si256(out.as_mut_ptr().add(b + 8 * r).cast(), *acc) };
        }
    }

    /// Independent partial sums per output register in the AVX-512 dot products (a VNNI
    /// multiply-add has a latency of several cycles; one chain would wait on each).
    const CHAINS: usize = 4;

    /// The head's dot products on AVX-512 (16 outputs a register, two registers a pass): one
    /// driver and one block function per instruction set, differing only in how a register
    /// of four-byte products is accumulated (`$madd`).
    macro_rules! avx512_dots {
        ($(#[$doc:meta])* $dots:ident, $block:ident, $features:literal,
         |$acc:ident, $a:ident, $x:ident| $madd:expr) => {
            $(#[$doc])*
            #[target_feature(enable = $features)]
            pub unsafe fn $dots(act: &[u8], quads: &[i8], out: &mut [i32]) {
                let k = out.len();
                let mut b = 0;
                while b + 32 <= k {
                    // SAFETY: the caller's layout, with `b + 32 <= k`.
                    unsafe { $block::<2>(act, quads, out, b) };
                    b += 32;
                }
                while b < k {
                    // SAFETY: the caller's layout, with `b + 16 <= k` (a multiple of 16).
                    unsafe { $block::<1>(act, quads, out, b) };
                    b += 16;
                }
            }

            /// Outputs `b..b + 16 * R` of the driver above.
            ///
            /// # Safety
            /// As the driver, with `b + 16 * R <= out.len()`.
            #[target_feature(enable = $features)]
            #[inline]
            unsafe fn $block<const R: usize>(act: &[u8], quads: &[i8], out: &mut [i32], b: usize) {
                let k = out.len();
                let nq = act.len() / 4;
                // `CHAINS` independent sums per register of outputs, over interleaved input
                // groups, so that consecutive multiply-adds do not wait on each other; the
                // wrapping sums are added up at the end (same result in any order).
                let mut s = [[_mm512_setzero_si512(); R]; CHAINS];
                let mut q = 0;
                while q < nq {
                    let chains = CHAINS.min(nq - q);
                    for (u, sums) in s.iter_mut().enumerate().take(chains) {
                        // SAFETY: `q + u < nq`, so `4 * (q + u) + 3 < act.len()` and
                        // `4 * ((q + u) * k + b + 16 * R) <= quads.len()`.
                        unsafe {
                            let $a = _mm512_set1_epi32(quad(act, q + u));
                            let row = quads.as_ptr().add(4 * ((q + u) * k + b));
                            for (r, $acc) in sums.iter_mut().enumerate() {
                                let $x = _mm512_loadu_si512(row.add(64 * r).cast());
                                *$acc = $madd;
                            }
                        }
                    }
                    q += chains;
                }
                for r in 0..R {
                    let mut t = s[0][r];
                    for sums in &s[1..] {
                        t = _mm512_add_epi32(t, sums[r]);
                    }
                    // SAFETY: `b + 16 * r + 16 <= b + 16 * R <= out.len()`.
                    unsafe { _mm512_storeu_si512(out.as_mut_ptr().add(b + 16 * r).cast(), t) };
                }
            }
        };
    }

    avx512_dots!(
        /// # Safety
        /// As [`dots_avx2`], with AVX-512 BW and `out.len()` a multiple of 16.
        dots_avx512, block_avx512, "avx512f,avx512bw",
        |acc, a, x| _mm512_add_epi32(
            *acc,
            _mm512_madd_epi16(_mm512_maddubs_epi16(a, x), _mm512_set1_epi16(1))
        )
    );

    avx512_dots!(
        /// # Safety
        /// As [`dots_avx512`], with AVX-512 VNNI too.
        dots_avx512_vnni, block_vnni, "avx512f,avx512bw,avx512vnni",
        |acc, a, x| _mm512_dpbusd_epi32(*acc, a, x)
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (xorshift64*), full i16 range.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        fn i16s(&mut self, n: usize) -> Vec<i16> {
            (0..n).map(|_| (self.next() >> 48) as u16 as i16).collect()
        }
        fn i8s(&mut self, n: usize) -> Vec<i8> {
            (0..n).map(|_| (self.next() >> 56) as u8 as i8).collect()
        }
        /// Activations in `0..=QA`, the extremes often.
        fn acts(&mut self, n: usize) -> Vec<u8> {
            (0..n)
                .map(|_| match self.next() % 4 {
                    0 => 0,
                    1 => QA as u8,
                    _ => (self.next() % (QA as u64 + 1)) as u8,
                })
                .collect()
        }
    }

    #[test]
    fn every_level_equals_the_scalar_reference() {
        let mut rng = Rng(0x1234_5678_9abc_def1);
        let levels = Level::available();
        let shapes = [
            (7usize, 8usize),
            (8, 8),
            (16, 4),
            (32, 16),
            (48, 40),
            (24, 24),
            (128, 32),
            (6, 16),
            (10, 32),
            (512, 16),
        ];
        for (h, k) in shapes {
            for round in 0..20 {
                let nf = 40usize;
                let weights = rng.i16s(nf * h);
                let src = rng.i16s(h);
                let add: Vec<u32> = (0..rng.next() % 6).map(|_| (rng.next() % 40) as u32).collect();
                let sub: Vec<u32> = (0..rng.next() % 6).map(|_| (rng.next() % 40) as u32).collect();
                let mut want = vec![0i16; h];
                update_scalar(&mut want, &src, &weights, &add, &sub);
                let other = rng.i16s(h);
                let mut act_want = vec![0u8; 2 * h];
                crelu_scalar(&src, &other, &mut act_want);
                // The first round has the largest products: every activation QA against -128.
                let (act_any, rows) = if round == 0 {
                    (vec![QA as u8; 2 * h], vec![i8::MIN; k * 2 * h])
                } else {
                    (rng.acts(2 * h), rng.i8s(k * 2 * h))
                };
                let head = HeadWeights::new(rows.clone(), 2 * h, k);
                let mut dots_want = vec![0i32; k];
                dots_scalar(&act_any, &rows, &mut dots_want);
                for &level in &levels {
                    let mut got = vec![0i16; h];
                    update(level, &mut got, &src, &weights, &add, &sub);
                    assert_eq!(got, want, "update {level:?} h={h}");
                    let mut act = vec![0u8; 2 * h];
                    crelu(level, &src, &other, &mut act);
                    assert_eq!(act, act_want, "crelu {level:?} h={h}");
                    let mut d = vec![0i32; k];
                    dots(level, &act_any, &head, &mut d);
                    assert_eq!(d, dots_want, "dots {level:?} h={h} k={k}");
                }
            }
        }
    }

    #[test]
    fn scalar_update_adds_and_subtracts_rows() {
        let weights: Vec<i16> = (0..12).collect(); // 3 rows of 4
        let mut dst = [0i16; 4];
        update_scalar(&mut dst, &[100, 100, 100, 100], &weights, &[0, 2], &[1]);
        assert_eq!(dst, [104, 105, 106, 107]);
        let mut act = [0u8; 4];
        crelu_scalar(&[-5, 200], &[127, 3], &mut act);
        assert_eq!(act, [0, 127, 127, 3]);
        let mut out = [0i32; 2];
        dots_scalar(&[1, 2], &[3, 4, -5, 6], &mut out);
        assert_eq!(out, [11, 7]);
    }

    #[test]
    #[should_panic(expected = "out of range")]
    fn a_row_outside_the_weights_is_refused() {
        let mut dst = [0i16; 16];
        update(Level::detect(), &mut dst, &[0; 16], &[0; 32], &[2], &[]);
    }
}
