//! The model: float network parameters, initialisation, weight limits and a plain-Rust
//! float forward; the sparse feature transformer ([`ft`]), the burn head ([`head`]) and the
//! SIMD kernels they share ([`simd`]).

pub mod factor;
pub mod fsf;
pub mod fsf_head;
pub mod ft;
pub mod head;
pub mod simd;

use kage_engine::nnue::{QA, QB, QO};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Largest |FT weight or bias| representable as `i16` after scaling by `QA`.
pub const FT_LIMIT: f32 = i16::MAX as f32 / QA as f32;
/// Largest |L1 weight| representable as `i8` after scaling by `QB`.
pub const L1_LIMIT: f32 = i8::MAX as f32 / QB as f32;
/// Largest |output weight| representable as `i16` after scaling by `QO`.
pub const OUT_LIMIT: f32 = i16::MAX as f32 / QO as f32;
/// Bias bound for i32 biases (far from overflow after scaling).
pub const BIAS_LIMIT: f32 = 1.0e5;

/// Float parameters of the perspective network.
#[derive(Debug, Clone, PartialEq)]
pub struct NetParams {
    /// Input feature count.
    pub num_features: usize,
    /// FT width per perspective.
    pub ft_size: usize,
    /// Head width.
    pub head_size: usize,
    /// `num_features x ft_size`, row per feature.
    pub ft_w: Vec<f32>,
    /// `ft_size`.
    pub ft_b: Vec<f32>,
    /// `(2 * ft_size) x head_size`, input-major (row `i` holds the weights from input `i`).
    pub l1_w: Vec<f32>,
    /// `head_size`.
    pub l1_b: Vec<f32>,
    /// `head_size`.
    pub out_w: Vec<f32>,
    /// One value.
    pub out_b: Vec<f32>,
}

impl NetParams {
    /// Seeded initialisation that puts accumulators and hidden units in the linear region
    /// of the clipped ReLU.
    pub fn init(num_features: usize, ft_size: usize, head_size: usize, seed: u64) -> NetParams {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x1417_a11e);
        let mut uniform =
            |n: usize, a: f32| -> Vec<f32> { (0..n).map(|_| rng.random_range(-a..a)).collect() };
        let ft_w = uniform(num_features * ft_size, 0.05);
        let l1_w = uniform(2 * ft_size * head_size, (1.0 / (2 * ft_size) as f32).sqrt());
        let out_w = uniform(head_size, (1.0 / head_size as f32).sqrt());
        NetParams {
            num_features,
            ft_size,
            head_size,
            ft_w,
            ft_b: vec![0.5; ft_size],
            l1_w,
            l1_b: vec![0.5; head_size],
            out_w,
            out_b: vec![0.0],
        }
    }

    /// Number of trainable values.
    pub fn count(&self) -> usize {
        self.ft_w.len() + self.ft_b.len() + self.l1_w.len() + self.l1_b.len() + self.out_w.len() + 1
    }

    /// Float accumulator (pre-activation) of one perspective.
    pub fn accumulate(&self, features: &[u32], out: &mut [f32]) {
        crate::model::simd::accumulate(out, &self.ft_b, &self.ft_w, features);
    }

    /// Head forward from clipped activations `x` (`2 * ft_size`): the output logit.
    pub fn head_forward(&self, x: &[f32]) -> f32 {
        let k = self.head_size;
        let mut hidden = self.l1_b.clone();
        for (i, &xi) in x.iter().enumerate() {
            if xi != 0.0 {
                let row = &self.l1_w[i * k..(i + 1) * k];
                hidden.iter_mut().zip(row).for_each(|(s, w)| *s += xi * w);
            }
        }
        self.out_b[0]
            + hidden.iter().zip(&self.out_w).map(|(s, w)| s.clamp(0.0, 1.0) * w).sum::<f32>()
    }

    /// Float forward of one position: the output logit (`cp = logit * scale`).
    pub fn forward(&self, stm: &[u32], nstm: &[u32]) -> f32 {
        let h = self.ft_size;
        let mut x = vec![0.0f32; 2 * h];
        let (a, b) = x.split_at_mut(h);
        self.accumulate(stm, a);
        self.accumulate(nstm, b);
        x.iter_mut().for_each(|v| *v = v.clamp(0.0, 1.0));
        self.head_forward(&x)
    }
}
