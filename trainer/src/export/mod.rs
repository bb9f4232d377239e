//! Output of a run: quantisation of the float parameters into the engine's integer network
//! (here), network inspection ([`inspect`]) and the metrics reports ([`report`]).

pub mod fsf;
pub mod inspect;
pub mod report;

use crate::model::NetParams;
use kage_engine::nnue::{Activation, NetError, NetHeader, NetWeights, Network, QA, QB, QO};

/// Identity recorded in the network header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportInfo {
    /// Variant name.
    pub variant: String,
    /// Feature-set id.
    pub feature_set_id: u32,
    /// Centipawns per logit.
    pub output_scale: u32,
    /// Run id.
    pub run_id: String,
    /// Git revision.
    pub git_revision: String,
    /// Resolved config TOML.
    pub config: String,
}

fn q<T: TryFrom<i64> + Copy>(x: f32, scale: f32, min: i64, max: i64) -> T
where
    <T as TryFrom<i64>>::Error: std::fmt::Debug,
{
    let v = ((x * scale).round() as i64).clamp(min, max);
    T::try_from(v).expect("value clamped to the target range")
}

/// Quantises `params` (rounding to nearest, saturating at the integer range).
pub fn quantise(params: &NetParams, info: &ExportInfo) -> Result<Network, NetError> {
    let (h, k) = (params.ft_size, params.head_size);
    let (qa, qb, qo) = (QA as f32, QB as f32, QO as f32);
    let i16r = (i64::from(i16::MIN), i64::from(i16::MAX));
    let i8r = (i64::from(i8::MIN), i64::from(i8::MAX));
    let i32r = (i64::from(i32::MIN), i64::from(i32::MAX));
    let ft_weights = params.ft_w.iter().map(|&w| q::<i16>(w, qa, i16r.0, i16r.1)).collect();
    let ft_bias = params.ft_b.iter().map(|&w| q::<i16>(w, qa, i16r.0, i16r.1)).collect();
    let mut l1_weights = vec![0i8; k * 2 * h];
    for i in 0..2 * h {
        for j in 0..k {
            l1_weights[j * 2 * h + i] = q::<i8>(params.l1_w[i * k + j], qb, i8r.0, i8r.1);
        }
    }
    let l1_bias = params.l1_b.iter().map(|&b| q::<i32>(b, qa * qb, i32r.0, i32r.1)).collect();
    let out_weights = params.out_w.iter().map(|&w| q::<i16>(w, qo, i16r.0, i16r.1)).collect();
    let out_bias = q::<i32>(params.out_b[0], qa * qo, i32r.0, i32r.1);
    let header = NetHeader {
        variant: info.variant.clone(),
        feature_set_id: info.feature_set_id,
        num_features: u32::try_from(params.num_features)
            .map_err(|_| NetError::Invalid("too many features".into()))?,
        ft_size: h as u32,
        head_size: k as u32,
        activation: Activation::ClippedRelu,
        output_scale: info.output_scale,
        run_id: info.run_id.clone(),
        git_revision: info.git_revision.clone(),
        config: info.config.clone(),
    };
    Network::from_parts(
        header,
        NetWeights { ft_weights, ft_bias, l1_weights, l1_bias, out_weights, out_bias },
    )
}

/// The float parameters a quantised network stands for (the inverse of [`quantise`] up to its
/// rounding: quantising the result gives back the same integer weights).
pub fn dequantise(net: &Network) -> NetParams {
    let hd = net.header();
    let w = net.weights();
    let (h, k) = (hd.ft_size as usize, hd.head_size as usize);
    let (qa, qb, qo) = (QA as f32, QB as f32, QO as f32);
    let mut l1_w = vec![0f32; 2 * h * k];
    for j in 0..k {
        for i in 0..2 * h {
            l1_w[i * k + j] = f32::from(w.l1_weights[j * 2 * h + i]) / qb;
        }
    }
    NetParams {
        num_features: hd.num_features as usize,
        ft_size: h,
        head_size: k,
        ft_w: w.ft_weights.iter().map(|&x| f32::from(x) / qa).collect(),
        ft_b: w.ft_bias.iter().map(|&x| f32::from(x) / qa).collect(),
        l1_w,
        l1_b: w.l1_bias.iter().map(|&x| x as f32 / (qa * qb)).collect(),
        out_w: w.out_weights.iter().map(|&x| f32::from(x) / qo).collect(),
        out_b: vec![w.out_bias as f32 / (qa * qo)],
    }
}
