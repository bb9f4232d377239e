//! Perft: counts the leaves of the legal move tree (the last ply counted without playing it).

use crate::position::Position;

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

/// Per-root-move counts (`go perft` output), in generation order.
pub fn divide(pos: &Position, depth: u32) -> Vec<(String, u64)> {
    let mut out: Vec<(String, u64)> = pos
        .legal_moves()
        .as_slice()
        .iter()
        .map(|&m| {
            let mut p = pos.clone();
            p.play(m);
            (pos.move_to_uci(m), if depth <= 1 { 1 } else { perft(&p, depth - 1) })
        })
        .collect();
    out.sort();
    out
}
