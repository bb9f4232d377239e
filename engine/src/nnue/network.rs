//! The quantised network and its exact integer arithmetic (scalar reference).
//!
//! Float model (what the trainer optimises), per perspective `p`:
//! `acc_p = ft_bias + sum_{f active} ft_w[f]`, `a_p = clamp(acc_p, 0, 1)`,
//! `h = clamp(l1_w . [a_stm, a_nstm] + l1_b, 0, 1)`, `o = out_w . h + out_b`,
//! and the evaluation in centipawns is `o * output_scale`.
//!
//! Integer model (this file, the only definition):
//! FT weights/bias are `round(x * QA)` as i16, accumulators are i32 (no overflow possible),
//! `a = clamp(acc, 0, QA)`; L1 weights are `round(x * QB)` as i8, L1 bias `round(x * QA * QB)`
//! as i32, `h = clamp(floor((s + QB/2) / QB), 0, QA)` (rounded); output weights are `round(x * QO)` as i16,
//! output bias `round(x * QA * QO)` as i32; `cp = floor((out * output_scale + QA*QO/2) / (QA * QO))` (rounded).

use super::accumulator::Accumulator;
use super::error::NetError;
use super::features;
use crate::variant::Variant;

/// Activation scale of the feature transformer and the hidden layer (1.0 maps to `QA`).
pub const QA: i32 = 127;
/// Weight scale of the first head layer (int8 weights).
pub const QB: i32 = 64;
/// `log2(QB)`: the hidden layer divides by `QB` with a rounding arithmetic shift.
pub const QB_SHIFT: u32 = 6;
/// Weight scale of the output layer (int16 weights).
pub const QO: i32 = 64;

/// Largest accepted feature count, FT width and head width (guards allocations).
pub const MAX_FEATURES: u32 = 1 << 20;
/// Largest accepted feature-transformer width.
pub const MAX_FT_SIZE: u32 = 4096;
/// Largest accepted head width.
pub const MAX_HEAD_SIZE: u32 = 1024;

/// Activation applied to the accumulators and the hidden layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Activation {
    /// `clamp(x, 0, 1)`.
    ClippedRelu,
}

impl Activation {
    /// Stable on-disk code.
    pub fn code(self) -> u8 {
        match self {
            Activation::ClippedRelu => 0,
        }
    }

    /// Parses an on-disk code.
    pub fn from_code(code: u8) -> Option<Activation> {
        match code {
            0 => Some(Activation::ClippedRelu),
            _ => None,
        }
    }
}

/// Everything recorded about a network besides its weights.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetHeader {
    /// Variant name (as in the variant spec, e.g. `minishogi`).
    pub variant: String,
    /// Id of the feature encoding (`features::FEATURE_SET_ID`).
    pub feature_set_id: u32,
    /// Number of input features for the variant.
    pub num_features: u32,
    /// Feature-transformer width `H` (per perspective).
    pub ft_size: u32,
    /// Hidden head width.
    pub head_size: u32,
    /// Activation.
    pub activation: Activation,
    /// Centipawns per unit of float output.
    pub output_scale: u32,
    /// Training run id.
    pub run_id: String,
    /// Git revision of the trainer that wrote the file.
    pub git_revision: String,
    /// Resolved training configuration (TOML text).
    pub config: String,
}

/// Quantised weights, row-major as documented on each field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetWeights {
    /// `num_features x ft_size`, one row per feature.
    pub ft_weights: Vec<i16>,
    /// `ft_size`.
    pub ft_bias: Vec<i16>,
    /// `head_size x (2 * ft_size)`, one row per hidden neuron; side to move's half first.
    pub l1_weights: Vec<i8>,
    /// `head_size`.
    pub l1_bias: Vec<i32>,
    /// `head_size`.
    pub out_weights: Vec<i16>,
    /// Output bias.
    pub out_bias: i32,
}

/// A validated quantised network, ready for evaluation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Network {
    header: NetHeader,
    weights: NetWeights,
    /// `weights.l1_weights` widened to i16 (same layout) for the inference dot products.
    l1_wide: Vec<i16>,
}

impl Network {
    /// Builds a network from parts, checking that every size agrees with the header.
    pub fn from_parts(header: NetHeader, weights: NetWeights) -> Result<Network, NetError> {
        check_dims(&header)?;
        let f = header.num_features as usize;
        let h = header.ft_size as usize;
        let k = header.head_size as usize;
        let checks = [
            ("ft_weights", weights.ft_weights.len(), f * h),
            ("ft_bias", weights.ft_bias.len(), h),
            ("l1_weights", weights.l1_weights.len(), k * 2 * h),
            ("l1_bias", weights.l1_bias.len(), k),
            ("out_weights", weights.out_weights.len(), k),
        ];
        for (name, got, want) in checks {
            if got != want {
                return Err(NetError::Invalid(format!("{name} has {got} values, expected {want}")));
            }
        }
        let l1_wide = weights.l1_weights.iter().map(|&w| i16::from(w)).collect();
        Ok(Network { header, weights, l1_wide })
    }

    /// Loads a network file, validating magic, version, length, checksum and structure.
    pub fn load(bytes: &[u8]) -> Result<Network, NetError> {
        super::format::decode(bytes)
    }

    /// Loads a network and checks that it was trained for `variant` with the given feature set.
    pub fn load_for(
        bytes: &[u8],
        variant: &str,
        feature_set_id: u32,
        num_features: usize,
    ) -> Result<Network, NetError> {
        let net = Network::load(bytes)?;
        net.check_compatible(variant, feature_set_id, num_features)?;
        Ok(net)
    }

    /// Loads a network for `variant` with this engine's feature encoding
    /// ([`features::FEATURE_SET_ID`], [`features::num_features`]).
    pub fn load_for_variant(bytes: &[u8], variant: &Variant) -> Result<Network, NetError> {
        let net = Network::load(bytes)?;
        net.check_variant(variant)?;
        Ok(net)
    }

    /// Checks that the network was trained for `variant` with this engine's feature encoding.
    pub fn check_variant(&self, variant: &Variant) -> Result<(), NetError> {
        self.check_compatible(
            &variant.name,
            features::FEATURE_SET_ID,
            features::num_features(variant),
        )
    }

    /// Checks the recorded variant and feature set against the caller's.
    pub fn check_compatible(
        &self,
        variant: &str,
        feature_set_id: u32,
        num_features: usize,
    ) -> Result<(), NetError> {
        if self.header.variant != variant {
            return Err(NetError::WrongVariant {
                expected: variant.to_string(),
                found: self.header.variant.clone(),
            });
        }
        let expected_features = u32::try_from(num_features).unwrap_or(u32::MAX);
        if self.header.feature_set_id != feature_set_id
            || self.header.num_features != expected_features
        {
            return Err(NetError::WrongFeatureSet {
                expected_id: feature_set_id,
                expected_features,
                found_id: self.header.feature_set_id,
                found_features: self.header.num_features,
            });
        }
        Ok(())
    }

    /// Serialises the network in the current format version.
    pub fn to_bytes(&self) -> Vec<u8> {
        super::format::encode(self)
    }

    /// Header.
    pub fn header(&self) -> &NetHeader {
        &self.header
    }

    /// Quantised weights.
    pub fn weights(&self) -> &NetWeights {
        &self.weights
    }

    /// Feature-transformer width `H`.
    pub fn ft_size(&self) -> usize {
        self.header.ft_size as usize
    }

    /// Number of input features.
    pub fn num_features(&self) -> usize {
        self.header.num_features as usize
    }

    /// FT bias (the accumulator of an empty feature set).
    pub fn ft_bias(&self) -> &[i16] {
        &self.weights.ft_bias
    }

    /// FT row of one feature.
    ///
    /// # Panics
    /// Panics if `feature >= num_features` (features come from the engine's encoder).
    pub fn ft_row(&self, feature: u32) -> &[i16] {
        let h = self.ft_size();
        let f = feature as usize;
        assert!(
            f < self.num_features(),
            "NNUE feature {f} out of range (network has {} features)",
            self.num_features()
        );
        &self.weights.ft_weights[f * h..(f + 1) * h]
    }

    /// Full-refresh evaluation from the side to move's point of view, in centipawns.
    ///
    /// # Panics
    /// Panics if a feature index is out of range.
    pub fn evaluate(&self, stm_features: &[u32], nstm_features: &[u32]) -> i32 {
        let mut stm = Accumulator::new(self);
        stm.refresh(self, stm_features);
        let mut nstm = Accumulator::new(self);
        nstm.refresh(self, nstm_features);
        self.evaluate_accumulators(&stm, &nstm)
    }

    /// Evaluates from two accumulators (side to move first), in centipawns.
    ///
    /// # Panics
    /// Panics if an accumulator was built for a network of another width.
    pub fn evaluate_accumulators(&self, stm: &Accumulator, nstm: &Accumulator) -> i32 {
        self.output_to_cp(self.raw_output(stm.values(), nstm.values()))
    }

    /// Scales an integer output (scale `QA * QO`) to centipawns, rounded to nearest.
    pub fn output_to_cp(&self, out: i32) -> i32 {
        let scaled = i64::from(out) * i64::from(self.header.output_scale);
        // Round to nearest (ties up).
        let d = i64::from(QA * QO);
        let cp = (scaled + d / 2).div_euclid(d);
        cp.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
    }

    /// Integer output before scaling to centipawns (scale `QA * QO`).
    pub fn raw_output(&self, stm: &[i32], nstm: &[i32]) -> i32 {
        let h = self.ft_size();
        assert!(stm.len() == h && nstm.len() == h, "accumulator width does not match network");
        // Activations fit i16 (0..=QA) and L1 weights are widened to i16 once at load, so each
        // hidden unit is an i16 x i16 -> i32 dot product the compiler vectorises.
        let mut act = vec![0i16; 2 * h];
        for (d, &a) in act.iter_mut().zip(stm.iter().chain(nstm)) {
            *d = crelu(a) as i16;
        }
        let w = &self.weights;
        let mut out = w.out_bias;
        for (j, (&b, &ow)) in w.l1_bias.iter().zip(&w.out_weights).enumerate() {
            let row = &self.l1_wide[j * 2 * h..(j + 1) * 2 * h];
            let s = b.wrapping_add(dot_i16(&act, row));
            // Round to nearest (ties up): add half of QB before the arithmetic shift.
            let hidden = ((s + (QB >> 1)) >> QB_SHIFT).clamp(0, QA);
            out += hidden * i32::from(ow);
        }
        out
    }
}

/// `sum(a[i] * b[i])` in i32. Cannot overflow for network sizes accepted by [`check_dims`]
/// (`2 * 4096 * 127 * 127 < 2^31`); wrapping ops keep it vectorisable with overflow checks on.
#[inline]
fn dot_i16(a: &[i16], b: &[i16]) -> i32 {
    a.iter()
        .zip(b)
        .fold(0i32, |acc, (&x, &y)| acc.wrapping_add(i32::from(x).wrapping_mul(i32::from(y))))
}

/// Clipped ReLU of an accumulator value: `clamp(x, 0, QA)`.
#[inline]
pub fn crelu(x: i32) -> i32 {
    x.clamp(0, QA)
}

pub(crate) fn check_dims(header: &NetHeader) -> Result<(), NetError> {
    let bad = |what: &str, v: u32, max: u32| {
        NetError::Invalid(format!("{what} = {v} is outside 1..={max}"))
    };
    if header.num_features == 0 || header.num_features > MAX_FEATURES {
        return Err(bad("num_features", header.num_features, MAX_FEATURES));
    }
    if header.ft_size == 0 || header.ft_size > MAX_FT_SIZE {
        return Err(bad("ft_size", header.ft_size, MAX_FT_SIZE));
    }
    if header.head_size == 0 || header.head_size > MAX_HEAD_SIZE {
        return Err(bad("head_size", header.head_size, MAX_HEAD_SIZE));
    }
    if header.output_scale == 0 {
        return Err(NetError::Invalid("output_scale must be positive".into()));
    }
    Ok(())
}
