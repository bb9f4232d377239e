//! Perft: counts the leaves of the legal move tree (the last ply counted without playing it).

use crate::position::Position;
use std::sync::atomic::{AtomicBool, Ordering};

/// Leaf count of the legal move tree `depth` plies deep (the last ply counted, not played).
pub fn perft(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if depth == 1 {
        return pos.count_legal();
    }
    let mut nodes = 0;
    for &m in pos.legal_moves().as_slice() {
        let mut p = pos.clone();
        p.play(m);
        nodes += perft(&p, depth - 1);
    }
    nodes
}

/// Like [`perft`], but gives up (`None`) soon after `stop` is set: the flag is read at every
/// node more than three plies from the leaves.
pub fn perft_until(pos: &Position, depth: u32, stop: &AtomicBool) -> Option<u64> {
    if depth <= 3 {
        return (!stop.load(Ordering::Relaxed)).then(|| perft(pos, depth));
    }
    let mut nodes = 0;
    for &m in pos.legal_moves().as_slice() {
        let mut p = pos.clone();
        p.play(m);
        nodes += perft_until(&p, depth - 1, stop)?;
    }
    Some(nodes)
}

/// Per-root-move counts (`go perft` output), sorted by move text; none at depth 0.
pub fn divide(pos: &Position, depth: u32) -> Vec<(String, u64)> {
    divide_until(pos, depth, &AtomicBool::new(false)).unwrap_or_default()
}

/// Like [`divide`], but gives up (`None`) soon after `stop` is set.
pub fn divide_until(pos: &Position, depth: u32, stop: &AtomicBool) -> Option<Vec<(String, u64)>> {
    if depth == 0 {
        return Some(Vec::new());
    }
    let mut out = Vec::new();
    for &m in pos.legal_moves().as_slice() {
        let mut p = pos.clone();
        p.play(m);
        out.push((pos.move_to_uci(m), perft_until(&p, depth - 1, stop)?));
    }
    out.sort();
    Some(out)
}
