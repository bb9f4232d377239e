//! The NNUE input features, defined once: the engine evaluates with them and the trainer
//! imports them.
//!
//! Seen from a perspective (a color): the board is flipped vertically for Black, and pieces
//! are "own" or "theirs".
//! - piece-square: `(rel * K + kind) * S + square`, with `rel` 0 own / 1 theirs, `K` the
//!   variant's piece kinds (promoted kinds are kinds of their own), `S` its squares;
//! - hand (thermometer): after the `2 * K * S` board features, for own then their hand, for
//!   each hand kind `h` in FEN order, `hand_max[h]` slots; slot `i` is active when the hand
//!   holds more than `i` pieces of that kind. A drop or capture changes one slot.

use crate::position::Position;
use crate::types::{Color, Piece, PieceKind, bits};
use crate::variant::Variant;

/// Identifies this encoding in net files; bump when the layout changes.
pub const FEATURE_SET_ID: u32 = 1;

/// Human-readable name of the encoding.
pub const FEATURE_SET_NAME: &str = "psq-hand-thermometer-v1";

/// The most features one perspective can have active (board squares plus hand slots).
pub const MAX_ACTIVE: usize = 96;

/// Number of input features for a variant.
pub fn num_features(v: &Variant) -> usize {
    board_features(v) + 2 * v.hand_max.iter().map(|&m| m as usize).sum::<usize>()
}

fn board_features(v: &Variant) -> usize {
    2 * v.num_kinds() * v.num_squares as usize
}

#[inline(always)]
fn orient(v: &Variant, perspective: Color, sq: u8) -> usize {
    match perspective {
        Color::White => sq as usize,
        Color::Black => {
            let (f, r) = (sq % v.width, sq / v.width);
            ((v.height - 1 - r) * v.width + f) as usize
        }
    }
}

/// The feature of `piece` standing on `sq`, seen from `perspective`.
#[inline(always)]
pub fn piece_feature(v: &Variant, perspective: Color, piece: Piece, sq: u8) -> u32 {
    let rel = (piece.color != perspective) as usize;
    ((rel * v.num_kinds() + piece.kind.index()) * v.num_squares as usize
        + orient(v, perspective, sq)) as u32
}

/// The feature of the `slot`-th (0-based) piece of `kind` in `owner`'s hand, if it has one
/// (counts beyond the variant's `hand_max` share the last slot's absence: they add nothing).
pub fn hand_feature(
    v: &Variant,
    perspective: Color,
    owner: Color,
    kind: PieceKind,
    slot: u8,
) -> Option<u32> {
    let h = v.hand_kinds.iter().position(|&k| k == kind)?;
    if slot >= v.hand_max[h] {
        return None;
    }
    let per_side: usize = v.hand_max.iter().map(|&m| m as usize).sum();
    let before: usize = v.hand_max[..h].iter().map(|&m| m as usize).sum();
    let rel = (owner != perspective) as usize;
    Some((board_features(v) + rel * per_side + before + slot as usize) as u32)
}

/// Appends the active features of `pos` seen from `perspective` to `out`.
pub fn active_features(pos: &Position, perspective: Color, out: &mut Vec<u32>) {
    let v = pos.variant();
    for sq in bits(pos.occupied()) {
        let piece = pos.piece_on(sq).expect("occupied square has a piece");
        out.push(piece_feature(v, perspective, piece, sq));
    }
    for owner in [perspective, !perspective] {
        for &k in &v.hand_kinds {
            for slot in 0..pos.hand(owner, k) {
                if let Some(f) = hand_feature(v, perspective, owner, k, slot) {
                    out.push(f);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::VariantId;

    #[test]
    fn features_are_in_range_and_distinct() {
        for id in VariantId::ALL {
            let v = Variant::builtin(id);
            let pos = Position::startpos(v);
            for c in Color::ALL {
                let mut f = Vec::new();
                active_features(&pos, c, &mut f);
                let n = num_features(v);
                assert!(f.iter().all(|&x| (x as usize) < n), "{id}");
                let mut d = f.clone();
                d.sort();
                d.dedup();
                assert_eq!(d.len(), f.len(), "{id}: duplicate features");
                assert!(f.len() <= MAX_ACTIVE);
            }
        }
    }

    #[test]
    fn perspectives_mirror_in_a_symmetric_position() {
        // Gorogoro+'s start is symmetric under a vertical flip with colours swapped, so
        // White's view and Black's view of it are the same feature set.
        let v = Variant::builtin(VariantId::GorogoroPlus);
        let pos = Position::startpos(v);
        let mut w = Vec::new();
        let mut b = Vec::new();
        active_features(&pos, Color::White, &mut w);
        active_features(&pos, Color::Black, &mut b);
        w.sort();
        b.sort();
        assert_eq!(w, b, "gorogoro+ start is mirror-symmetric, so both views agree");
    }
}
