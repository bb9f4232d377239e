//! What `kage fsf-net inspect` and `kage fsf-net eval` print.

use super::arch::{BUCKETS, L1};
use super::{FsfLayout, FsfNet, net_file_name, reference, trace};
use crate::position::Position;

fn range<T: Copy + Into<i64>>(v: &[T]) -> String {
    let (lo, hi) = v.iter().fold((i64::MAX, i64::MIN), |(lo, hi), &x| {
        let x = x.into();
        (lo.min(x), hi.max(x))
    });
    if v.is_empty() { "none".into() } else { format!("{lo}..={hi}") }
}

/// A summary of a checked net: the variant's shape, the description, the file name FSF's
/// rule gives it, weight ranges, and the start position's value.
pub fn inspect(net: &FsfNet, bytes: &[u8], layout: &FsfLayout, start: &Position) -> String {
    let mut s = String::new();
    let desc = String::from_utf8_lossy(&net.description);
    s.push_str(&format!(
        "Fairy-Stockfish NNUE net for {}: {} bytes, {} input features ({} per king square, {} \
         piece types, nnueMaxPieces {})\n",
        layout.variant_name(),
        bytes.len(),
        layout.dims(),
        layout.per_king(),
        layout.num_types(),
        layout.max_pieces()
    ));
    s.push_str(&format!("description ({} bytes): {desc:?}\n", net.description.len()));
    s.push_str(&format!("name by FSF's rule: {}\n", net_file_name(layout.variant_name(), bytes)));
    s.push_str(&format!(
        "ft: bias {} weights {} (L1 {L1}); psqt {}\n",
        range(&net.ft_bias),
        range(&net.ft_weights),
        range(&net.psqt)
    ));
    for (b, st) in net.stacks.iter().enumerate() {
        s.push_str(&format!(
            "stack {b}: l1 w {} b {}; l2 w {} b {}; out w {} b {}\n",
            range(&st.l1_weights),
            range(&st.l1_bias),
            range(&st.l2_weights),
            range(&st.l2_bias),
            range(&st.out_weights),
            st.out_bias
        ));
    }
    let e = reference::evaluate(net, layout, start);
    s.push_str(&format!(
        "start position: bucket {} of {BUCKETS}, NNUE value {} (side to move, FSF units; {:+.2} \
         pawns)\n",
        e.bucket,
        e.value,
        f64::from(e.value) / 208.0
    ));
    s
}

/// FSF's `eval` lines for the NNUE parts, as the reference files record them: the
/// contributions table (14 lines) and the "NNUE evaluation" line; FSF's single line when the
/// side to move is in check (`src/evaluate.cpp:1674-1675`).
pub fn eval_lines(net: &FsfNet, layout: &FsfLayout, pos: &Position) -> Vec<String> {
    if pos.in_check() {
        return vec!["Final evaluation: none (in check)".into()];
    }
    let e = reference::evaluate(net, layout, pos);
    let stm = pos.side_to_move();
    let mut lines: Vec<String> =
        trace::contributions_table(&e, stm).lines().map(str::to_string).collect();
    lines.push(trace::evaluation_line(&e, stm));
    lines
}

/// [`eval_lines`], one per line.
pub fn eval_text(net: &FsfNet, layout: &FsfLayout, pos: &Position) -> String {
    eval_lines(net, layout, pos).iter().map(|l| format!("{l}\n")).collect()
}
