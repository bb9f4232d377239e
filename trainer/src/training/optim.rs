//! AdamW with decoupled weight decay and clipping to the quantisable range.

/// Adam hyper-parameters for one step (bias corrections included).
#[derive(Debug, Clone, Copy)]
pub struct AdamStep {
    /// Learning rate.
    pub lr: f32,
    /// Beta1.
    pub beta1: f32,
    /// Beta2.
    pub beta2: f32,
    /// Epsilon.
    pub eps: f32,
    /// Decoupled weight decay.
    pub weight_decay: f32,
    /// `1 - beta1^t`.
    pub bc1: f32,
    /// `1 - beta2^t`.
    pub bc2: f32,
}

impl AdamStep {
    /// Hyper-parameters of global step `t` (1-based).
    pub fn new(lr: f64, beta1: f64, beta2: f64, eps: f64, weight_decay: f64, t: u64) -> AdamStep {
        let t = t.min(i32::MAX as u64) as i32;
        AdamStep {
            lr: lr as f32,
            beta1: beta1 as f32,
            beta2: beta2 as f32,
            eps: eps as f32,
            weight_decay: weight_decay as f32,
            bc1: (1.0 - beta1.powi(t)) as f32,
            bc2: (1.0 - beta2.powi(t)) as f32,
        }
    }
}

/// First and second moments of one parameter tensor.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Moments {
    /// First moment.
    pub m: Vec<f32>,
    /// Second moment.
    pub v: Vec<f32>,
}

impl Moments {
    /// Zero moments for `n` values.
    pub fn zeros(n: usize) -> Moments {
        Moments { m: vec![0.0; n], v: vec![0.0; n] }
    }
}

/// One AdamW update of `w` with gradient `g`, then clipping to `[-limit, limit]` (vectorised;
/// see [`crate::model::simd::adamw_scalar`] for the plain definition).
pub use crate::model::simd::adamw;
