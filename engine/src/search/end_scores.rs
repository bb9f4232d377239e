//! Game-end rules as search scores: outcomes relative to the side to move, and the
//! "repetition inside the search tree is a draw" shortcut (only where the rules would give a
//! draw anyway).

use super::MATE;
use crate::game::{HistoryEntry, Outcome};
use crate::types::Color;
use crate::variant::{RepetitionVerdict, Variant};

/// Score of an outcome for the side to move `stm` at `ply`.
#[inline]
pub fn outcome_score(o: Outcome, stm: Color, ply: usize) -> i32 {
    match o.winner {
        None => 0,
        Some(w) if w == stm => MATE - ply as i32,
        Some(_) => -(MATE - ply as i32),
    }
}

/// True when the last position of `h` already occurred at an index after `root` and the
/// repetition would be a plain draw (no perpetual check by either side, draw verdict).
pub fn tree_repetition_draw(v: &Variant, h: &[HistoryEntry], root: usize, halfmove: u16) -> bool {
    if v.repetition_verdict != RepetitionVerdict::Draw {
        return false;
    }
    let n = h.len() - 1;
    let end = if v.captures_to_hand { n } else { n.min(halfmove as usize) };
    let cur = h[n];
    // Checks given by the side that just moved (positions n, n-2, ...) and by the side to
    // move (positions n-1, n-3, ...) since the earlier occurrence.
    let mut them_checks = cur.in_check;
    let mut us_checks = true;
    let mut i = 2;
    while i <= end {
        us_checks &= h[n - i + 1].in_check;
        if n - i <= root {
            return false;
        }
        if i >= 4 && h[n - i].key == cur.key {
            let perpetual = v.perpetual_check_loses && (them_checks || us_checks);
            return !perpetual;
        }
        them_checks &= h[n - i].in_check;
        i += 2;
    }
    false
}
