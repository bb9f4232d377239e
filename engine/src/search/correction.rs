//! Correction history: how far searches have found a position's value from its static
//! evaluation, learned per side to move and structure (the unpromoted pawns on the board),
//! and added to the static evaluation of positions of the same structure.

use super::MATE_BOUND;
use crate::position::Position;
use crate::types::{Color, PieceKind};

const SIZE: usize = 1 << 14;
/// A stored correction counts `1 / GRAIN` of a centipawn; at most `MAX_CP` centipawns.
const GRAIN: i32 = 256;
const MAX_CP: i32 = 64;
/// Each update moves the slot `min(depth + 1, 16) / WEIGHT_SCALE` of the way to the new
/// difference: a running average of the recent differences.
const WEIGHT_SCALE: i32 = 256;

/// The table, one per searcher; kept between searches like the move-ordering history.
pub struct Correction {
    table: Vec<i32>,
}

impl Correction {
    pub fn new() -> Correction {
        Correction { table: vec![0; 2 * SIZE] }
    }

    pub fn clear(&mut self) {
        self.table.fill(0);
    }

    /// The static evaluation `eval` of the position in `slot` ([`slot`]) corrected.
    #[inline]
    pub fn apply(&self, slot: usize, eval: i32) -> i32 {
        (eval + self.table[slot] / GRAIN).clamp(-MATE_BOUND + 1, MATE_BOUND - 1)
    }

    /// Learns that a search `depth` plies deep found the position in `slot` `diff`
    /// centipawns from its corrected static evaluation.
    #[inline]
    pub fn update(&mut self, slot: usize, diff: i32, depth: i32) {
        let e = &mut self.table[slot];
        let w = (depth + 1).min(16);
        let target = (*e + diff * GRAIN).clamp(-MAX_CP * GRAIN, MAX_CP * GRAIN);
        *e = ((*e as i64 * (WEIGHT_SCALE - w) as i64 + target as i64 * w as i64)
            / WEIGHT_SCALE as i64) as i32;
    }
}

impl Default for Correction {
    fn default() -> Self {
        Correction::new()
    }
}

/// The table slot of `pos`: side to move, unpromoted pawns on the board.
#[inline]
pub fn slot(pos: &Position) -> usize {
    let v = pos.variant();
    let mut h = 0u64;
    for (i, info) in v.kinds.iter().enumerate() {
        if info.letter == 'P' && !info.promoted {
            let k = PieceKind(i as u8);
            h ^= pos.pieces(Color::White, k).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            h ^= pos.pieces(Color::Black, k).wrapping_mul(0xC2B2_AE3D_27D4_EB4F).rotate_left(29);
        }
    }
    h ^= h >> 31;
    h = h.wrapping_mul(0x94D0_49BB_1331_11EB);
    (pos.side_to_move() as usize) * SIZE + (h >> 50) as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variant::{Variant, VariantId};

    #[test]
    fn the_correction_follows_the_searches_differences_within_its_bound() {
        let pos = Position::startpos(Variant::builtin(VariantId::MINISHOGI));
        let (mut c, at) = (Correction::new(), slot(&pos));
        assert_eq!(c.apply(at, 10), 10);
        // Searches keep finding the position 40 cp better than its static evaluation: the
        // correction moves towards that, a little each time, and never past it.
        let mut last = 0;
        for _ in 0..400 {
            let now = c.apply(at, 0);
            c.update(at, 40 - now, 10);
            let next = c.apply(at, 0);
            assert!(next >= last && next <= 40, "{last} -> {next}");
            last = next;
        }
        assert!(last >= 38, "after 400 updates {last}");
        // A difference far beyond the bound is held to MAX_CP.
        for _ in 0..400 {
            let now = c.apply(at, 0);
            c.update(at, 1000 - now, 10);
        }
        assert!(c.apply(at, 0) <= MAX_CP);
        // The other side to move has its own slot; clear forgets.
        let mut other = pos.clone();
        other.play_null();
        assert_eq!(c.apply(slot(&other), 0), 0);
        c.clear();
        assert_eq!(c.apply(at, 0), 0);
    }
}
