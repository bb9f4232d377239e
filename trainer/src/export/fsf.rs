//! Quantisation of the fsf architecture into Fairy-Stockfish's own net (FSF-NNUE.md §4.1,
//! the scales of variant-nnue-pytorch's serialiser): FT ×127 (i16), PSQT ×9600 (i32), hidden
//! weights ×64 (i8), hidden biases ×8128 (i32), output weights ×9600/127 (i8), output bias
//! ×9600 (i32); rounded to nearest and saturated. The file is the engine's encoding
//! ([`FsfNet::to_bytes`]) under FSF's name rule, `<variant>-<sha256 12>.nnue`.
//! [`dequantise`] is the inverse (`--init-net`): quantising its floats gives back every
//! integer, which [`round_trip_error`] checks.

use crate::error::{TrainError, io_err};
use crate::model::NetParams;
use crate::model::fsf::{FsfHead, STACK_SIZES};
use kage_engine::nnue::fsf::arch::{BUCKETS, L1, L1_IN, L2, L3};
use kage_engine::nnue::fsf::{FsfLayout, FsfNet, FsfStack, net_file_name};
use std::path::{Path, PathBuf};

/// FT scale (an activation of 1.0 is 127).
pub const FT_SCALE: f32 = 127.0;
/// Hidden-weight scale (`2^WeightScaleBits`).
pub const WEIGHT_SCALE: f32 = 64.0;
/// Output scale of the stacks and the PSQT: `NNUE2SCORE · OutputScale` = 600 · 16.
pub const OUT_SCALE: f32 = 9600.0;

fn round<T: TryFrom<i64>>(x: f32, scale: f32, lo: i64, hi: i64) -> T {
    let v = (f64::from(x) * f64::from(scale)).round() as i64;
    T::try_from(v.clamp(lo, hi)).unwrap_or_else(|_| unreachable!("clamped into the type's range"))
}

fn i16s(v: &[f32], scale: f32) -> Vec<i16> {
    v.iter().map(|&x| round(x, scale, i16::MIN.into(), i16::MAX.into())).collect()
}

fn i32s(v: &[f32], scale: f32) -> Vec<i32> {
    v.iter().map(|&x| round(x, scale, i32::MIN.into(), i32::MAX.into())).collect()
}

/// Input-major `inputs × outputs` floats as FSF's `[output][input]` i8 rows (±127).
fn i8_rows(w: &[f32], inputs: usize, outputs: usize, scale: f32) -> Vec<i8> {
    let mut out = vec![0i8; inputs * outputs];
    for i in 0..inputs {
        for o in 0..outputs {
            out[o * inputs + i] = round(w[i * outputs + o], scale, -127, 127);
        }
    }
    out
}

fn stack(head: &FsfHead, b: usize) -> FsfStack {
    let [w1, b1, w2, b2, w3, b3] = head.stack(b);
    debug_assert_eq!(w1.len(), STACK_SIZES[0]);
    FsfStack {
        l1_bias: i32s(b1, FT_SCALE * WEIGHT_SCALE),
        l1_weights: i8_rows(w1, L1_IN, L2, WEIGHT_SCALE),
        l2_bias: i32s(b2, FT_SCALE * WEIGHT_SCALE),
        l2_weights: i8_rows(w2, L2, L3, WEIGHT_SCALE),
        out_bias: round(b3[0], OUT_SCALE, i32::MIN.into(), i32::MAX.into()),
        out_weights: i8_rows(w3, L3, 1, OUT_SCALE / FT_SCALE),
    }
}

/// The integer net of a folded float model (`ft` and `head.psqt` with real rows only).
pub fn quantise(ft: &NetParams, head: &FsfHead, description: &str) -> FsfNet {
    debug_assert_eq!(ft.ft_size, L1);
    FsfNet {
        description: description.as_bytes().to_vec(),
        ft_bias: i16s(&ft.ft_b, FT_SCALE),
        ft_weights: i16s(&ft.ft_w, FT_SCALE),
        psqt: i32s(&head.psqt, OUT_SCALE),
        stacks: (0..BUCKETS).map(|b| stack(head, b)).collect(),
    }
}

fn floats<T: Copy + Into<f64>>(v: &[T], scale: f32) -> Vec<f32> {
    v.iter().map(|&q| (q.into() / f64::from(scale)) as f32).collect()
}

/// FSF's `[output][input]` i8 rows as input-major `inputs × outputs` floats.
fn float_rows(w: &[i8], inputs: usize, outputs: usize, scale: f32) -> Vec<f32> {
    let mut out = vec![0f32; inputs * outputs];
    for i in 0..inputs {
        for o in 0..outputs {
            out[i * outputs + o] = (f64::from(w[o * inputs + i]) / f64::from(scale)) as f32;
        }
    }
    out
}

/// The float model an FSF-format net stands for (the inverse of [`quantise`]): the FT and
/// the PSQT with the net's rows alone (no factoriser rows), the stacks bucket-major.
pub fn dequantise(net: &FsfNet) -> (NetParams, FsfHead) {
    let dims = net.dims();
    let ft = NetParams {
        num_features: dims,
        ft_size: L1,
        head_size: 0,
        ft_w: floats(&net.ft_weights, FT_SCALE),
        ft_b: floats(&net.ft_bias, FT_SCALE),
        l1_w: Vec::new(),
        l1_b: Vec::new(),
        out_w: Vec::new(),
        out_b: vec![0.0],
    };
    let hidden_bias = FT_SCALE * WEIGHT_SCALE;
    let mut head = FsfHead {
        psqt: floats(&net.psqt, OUT_SCALE),
        l1_w: Vec::with_capacity(BUCKETS * STACK_SIZES[0]),
        l1_b: Vec::with_capacity(BUCKETS * L2),
        l2_w: Vec::with_capacity(BUCKETS * STACK_SIZES[2]),
        l2_b: Vec::with_capacity(BUCKETS * L3),
        out_w: Vec::with_capacity(BUCKETS * L3),
        out_b: Vec::with_capacity(BUCKETS),
    };
    for s in &net.stacks {
        head.l1_w.extend(float_rows(&s.l1_weights, L1_IN, L2, WEIGHT_SCALE));
        head.l1_b.extend(floats(&s.l1_bias, hidden_bias));
        head.l2_w.extend(float_rows(&s.l2_weights, L2, L3, WEIGHT_SCALE));
        head.l2_b.extend(floats(&s.l2_bias, hidden_bias));
        head.out_w.extend(float_rows(&s.out_weights, L3, 1, OUT_SCALE / FT_SCALE));
        head.out_b.extend(floats(&[s.out_bias], OUT_SCALE));
    }
    (ft, head)
}

/// A value of a net that its float model does not quantise back to.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{tensor}[{index}] = {found} comes back as {back} from the float model (the trainer's \
     weights hold i8 values in -127..=127 and i32 values up to about 2^23)"
)]
pub struct RoundTripError {
    /// The tensor (`ft_weights`, `psqt`, `stack 3 l1_weights`, ...).
    pub tensor: String,
    /// The index in it (file order).
    pub index: usize,
    /// The net's value.
    pub found: i64,
    /// What quantising its float gives.
    pub back: i64,
}

fn first_difference<T: Copy + Into<i64> + PartialEq>(
    tensor: &str,
    a: &[T],
    b: &[T],
) -> Result<(), RoundTripError> {
    match a.iter().zip(b).position(|(x, y)| x != y) {
        None => Ok(()),
        Some(index) => Err(RoundTripError {
            tensor: tensor.to_string(),
            index,
            found: a[index].into(),
            back: b[index].into(),
        }),
    }
}

/// Checks that quantising `net`'s float model (`ft`, `head`: [`dequantise`]'s) gives back
/// every one of its integers; the first that does not is the error.
pub fn round_trip_error(
    net: &FsfNet,
    ft: &NetParams,
    head: &FsfHead,
) -> Result<(), RoundTripError> {
    let back = quantise(ft, head, "");
    first_difference("ft_bias", &net.ft_bias, &back.ft_bias)?;
    first_difference("ft_weights", &net.ft_weights, &back.ft_weights)?;
    first_difference("psqt", &net.psqt, &back.psqt)?;
    for (b, (s, t)) in net.stacks.iter().zip(&back.stacks).enumerate() {
        let name = |what: &str| format!("stack {b} {what}");
        first_difference(&name("l1_bias"), &s.l1_bias, &t.l1_bias)?;
        first_difference(&name("l1_weights"), &s.l1_weights, &t.l1_weights)?;
        first_difference(&name("l2_bias"), &s.l2_bias, &t.l2_bias)?;
        first_difference(&name("l2_weights"), &s.l2_weights, &t.l2_weights)?;
        first_difference(&name("out_bias"), &[s.out_bias], &[t.out_bias])?;
        first_difference(&name("out_weights"), &s.out_weights, &t.out_weights)?;
    }
    Ok(())
}

/// Writes `net` into `dir` under FSF's name for `layout`'s variant (temp file + rename);
/// returns the path.
pub fn write(dir: &Path, layout: &FsfLayout, net: &FsfNet) -> Result<PathBuf, TrainError> {
    net.check_shape(layout.dims()).map_err(TrainError::FsfExport)?;
    let bytes = net.to_bytes().map_err(TrainError::FsfExport)?;
    let path = dir.join(net_file_name(layout.variant_name(), &bytes));
    kage_data::atomic::write_atomic(&path, &bytes).map_err(io_err(&path))?;
    Ok(path)
}
