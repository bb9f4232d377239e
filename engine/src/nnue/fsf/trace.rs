//! FSF's `eval` text for the NNUE parts kage computes: the "NNUE network contributions"
//! table and the "NNUE evaluation" line, formatted as FSF formats them
//! (`src/nnue/evaluate_nnue.cpp:253-290` `format_cp_aligned_dot`, `:355-380` the table;
//! `src/evaluate.cpp:1714-1723` the line).

use super::FsfEval;
use super::arch::{BUCKETS, PAWN_VALUE};
use crate::types::Color;

/// Seven characters: a sign (`+`, `-` or a space for 0) and `|100·v/208|` (truncated) as
/// pawns with two decimals, right-aligned.
pub fn format_cp_aligned_dot(v: i32) -> String {
    let sign = if v < 0 {
        '-'
    } else if v > 0 {
        '+'
    } else {
        ' '
    };
    let cp = (100 * i64::from(v) / i64::from(PAWN_VALUE)).unsigned_abs();
    if cp >= 10_000 {
        format!("{sign}{}.{:02}", cp / 100, cp % 100)
    } else {
        format!("{sign}{:>3}.{:02}", cp / 100, cp % 100)
    }
}

/// The "NNUE network contributions" table, as FSF prints it (each line ends in `\n`).
pub fn contributions_table(e: &FsfEval, side_to_move: Color) -> String {
    let who = if side_to_move == Color::White { "(White to move)" } else { "(Black to move)" };
    let rule = "+------------+------------+------------+------------+\n";
    let mut s = format!(" NNUE network contributions {who}\n{rule}");
    s.push_str("|   Bucket   |  Material  | Positional |   Total    |\n");
    s.push_str("|            |   (PSQT)   |  (Layers)  |            |\n");
    s.push_str(rule);
    for b in 0..BUCKETS {
        let (p, l) = e.trace_pair(b);
        let [p, l, t] = [p, l, p + l].map(format_cp_aligned_dot);
        s.push_str(&format!("|  {b}         |  {p}   |  {l}   |  {t}   |"));
        if b == e.bucket {
            s.push_str(" <-- this bucket is used");
        }
        s.push('\n');
    }
    s.push_str(rule);
    s
}

/// The "NNUE evaluation" line: the plain value from White's side, in pawns (`%+.2f`).
pub fn evaluation_line(e: &FsfEval, side_to_move: Color) -> String {
    let white = if side_to_move == Color::White { e.value } else { -e.value };
    format!("NNUE evaluation        {:+.2} (white side)", f64::from(white) / f64::from(PAWN_VALUE))
}
