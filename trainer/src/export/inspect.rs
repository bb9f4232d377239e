//! `kage-train inspect`: header and weight statistics of a quantised network.

use kage_engine::nnue::Network;
use std::fmt::Write as _;

/// Min, max, mean |x| and the number of values at the saturation bound of one layer.
#[derive(Debug, Clone, PartialEq)]
pub struct LayerStats {
    /// Layer name.
    pub name: &'static str,
    /// Value count.
    pub count: usize,
    /// Smallest value.
    pub min: i64,
    /// Largest value.
    pub max: i64,
    /// Mean absolute value.
    pub mean_abs: f64,
    /// Values equal to the type's min or max (clipped by quantisation or training).
    pub saturated: usize,
}

fn stats(name: &'static str, values: impl Iterator<Item = i64>, lo: i64, hi: i64) -> LayerStats {
    let (mut count, mut min, mut max, mut sum, mut saturated) =
        (0usize, i64::MAX, i64::MIN, 0f64, 0usize);
    for v in values {
        count += 1;
        min = min.min(v);
        max = max.max(v);
        sum += v.unsigned_abs() as f64;
        saturated += usize::from(v <= lo || v >= hi);
    }
    LayerStats { name, count, min, max, mean_abs: sum / count.max(1) as f64, saturated }
}

/// Statistics of every layer.
pub fn layer_stats(net: &Network) -> Vec<LayerStats> {
    let w = net.weights();
    let (i16lo, i16hi) = (i64::from(i16::MIN), i64::from(i16::MAX));
    let (i8lo, i8hi) = (i64::from(i8::MIN), i64::from(i8::MAX));
    let (i32lo, i32hi) = (i64::from(i32::MIN), i64::from(i32::MAX));
    vec![
        stats("ft_weights (i16)", w.ft_weights.iter().map(|&v| i64::from(v)), i16lo, i16hi),
        stats("ft_bias (i16)", w.ft_bias.iter().map(|&v| i64::from(v)), i16lo, i16hi),
        stats("l1_weights (i8)", w.l1_weights.iter().map(|&v| i64::from(v)), i8lo, i8hi),
        stats("l1_bias (i32)", w.l1_bias.iter().map(|&v| i64::from(v)), i32lo, i32hi),
        stats("out_weights (i16)", w.out_weights.iter().map(|&v| i64::from(v)), i16lo, i16hi),
        stats("out_bias (i32)", std::iter::once(i64::from(w.out_bias)), i32lo, i32hi),
    ]
}

/// Human-readable report.
pub fn report(net: &Network) -> String {
    let h = net.header();
    let mut s = String::new();
    let _ = writeln!(s, "format version : {}", kage_engine::nnue::FORMAT_VERSION);
    let _ = writeln!(s, "variant        : {}", h.variant);
    let _ =
        writeln!(s, "feature set    : {:#010x} ({} features)", h.feature_set_id, h.num_features);
    let _ = writeln!(
        s,
        "architecture   : ({} -> {}) x 2 -> {} -> 1, {:?}",
        h.num_features, h.ft_size, h.head_size, h.activation
    );
    let _ = writeln!(
        s,
        "scales         : QA={} QB={} QO={} output_scale={} cp/logit",
        kage_engine::nnue::QA,
        kage_engine::nnue::QB,
        kage_engine::nnue::QO,
        h.output_scale
    );
    let _ = writeln!(s, "run id         : {}", h.run_id);
    let _ = writeln!(s, "git revision   : {}", h.git_revision);
    let _ = writeln!(s, "config bytes   : {}", h.config.len());
    let _ = writeln!(
        s,
        "{:<18} {:>9} {:>12} {:>12} {:>10} {:>10}",
        "layer", "count", "min", "max", "mean|x|", "saturated"
    );
    for l in layer_stats(net) {
        let _ = writeln!(
            s,
            "{:<18} {:>9} {:>12} {:>12} {:>10.2} {:>10}",
            l.name, l.count, l.min, l.max, l.mean_abs, l.saturated
        );
    }
    s
}

/// Statistics of every tensor of an FSF-format net (the stacks pooled; the L2 rows
/// unpadded).
pub fn fsf_layer_stats(net: &kage_engine::nnue::fsf::FsfNet) -> Vec<LayerStats> {
    let wide = |v: &[i16]| v.iter().map(|&x| i64::from(x)).collect::<Vec<_>>();
    let st = &net.stacks;
    let pool8 = |f: fn(&kage_engine::nnue::fsf::FsfStack) -> &Vec<i8>| {
        st.iter().flat_map(f).map(|&x| i64::from(x)).collect::<Vec<_>>()
    };
    let pool32 = |f: fn(&kage_engine::nnue::fsf::FsfStack) -> &Vec<i32>| {
        st.iter().flat_map(f).map(|&x| i64::from(x)).collect::<Vec<_>>()
    };
    let (i16lo, i16hi) = (i64::from(i16::MIN), i64::from(i16::MAX));
    let (i32lo, i32hi) = (i64::from(i32::MIN), i64::from(i32::MAX));
    let it = |v: Vec<i64>| v.into_iter();
    vec![
        stats("ft_weights (i16)", it(wide(&net.ft_weights)), i16lo, i16hi),
        stats("ft_bias (i16)", it(wide(&net.ft_bias)), i16lo, i16hi),
        stats("psqt (i32)", net.psqt.iter().map(|&x| i64::from(x)), i32lo, i32hi),
        stats("l1_weights (i8)", it(pool8(|s| &s.l1_weights)), -127, 127),
        stats("l1_bias (i32)", it(pool32(|s| &s.l1_bias)), i32lo, i32hi),
        stats("l2_weights (i8)", it(pool8(|s| &s.l2_weights)), -127, 127),
        stats("l2_bias (i32)", it(pool32(|s| &s.l2_bias)), i32lo, i32hi),
        stats("out_weights (i8)", it(pool8(|s| &s.out_weights)), -127, 127),
        stats("out_bias (i32)", st.iter().map(|s| i64::from(s.out_bias)), i32lo, i32hi),
    ]
}

/// Why an FSF-format net cannot be inspected.
#[derive(Debug, thiserror::Error)]
pub enum FsfInspectError {
    /// Its size fits no built-in variant.
    #[error("Fairy-Stockfish net of {0} bytes: its size fits no built-in variant's feature count")]
    NoVariant(usize),
    /// The engine refused it.
    #[error(transparent)]
    Net(#[from] kage_engine::nnue::fsf::FsfError),
}

/// The report of an FSF-format net (the variant its size fits): the engine's summary (shape,
/// description, FSF's file name, weight ranges, the start position's value) and per-tensor
/// statistics.
pub fn fsf_report(bytes: &[u8]) -> Result<String, FsfInspectError> {
    use kage_engine::nnue::fsf::{FsfLayout, FsfNet, report};
    use kage_engine::{Position, Variant};
    let id = kage_engine::nnue::fsf::guess_variant(bytes)?
        .ok_or(FsfInspectError::NoVariant(bytes.len()))?;
    let v = Variant::builtin(id);
    let layout = FsfLayout::for_variant(v)?;
    let net = FsfNet::from_bytes(bytes, &layout)?;
    let mut s = report::inspect(&net, bytes, &layout, &Position::startpos(v));
    let _ = writeln!(
        s,
        "file size      : {} bytes = 142160 + {} (description) + 1056 x {} (features)",
        bytes.len(),
        net.description.len(),
        layout.dims()
    );
    let _ = writeln!(
        s,
        "{:<18} {:>9} {:>12} {:>12} {:>10} {:>10}",
        "tensor", "count", "min", "max", "mean|x|", "saturated"
    );
    for l in fsf_layer_stats(&net) {
        let _ = writeln!(
            s,
            "{:<18} {:>9} {:>12} {:>12} {:>10.2} {:>10}",
            l.name, l.count, l.min, l.max, l.mean_abs, l.saturated
        );
    }
    Ok(s)
}
