//! The attack-based terms of the hand-crafted evaluation: mobility, attacks on the enemy
//! king's ring, a king-danger table and hanging pieces. One pass over the pieces finds them;
//! it reports each term through a callback, so the evaluation (which adds parameter values)
//! and the tuner (which collects coefficients, [`super::hce_terms`]) read the very same
//! features.
//!
//! Every term is linear in its parameter: `Mobility(k)` counts the squares a piece of kind
//! `k` attacks that do not hold a piece of its own side; `KingAttack(k)` counts the squares
//! of the enemy king's ring (its eight neighbours) that it attacks; `Danger(cell)` is one cell
//! of a table over (ring squares the enemy attacks, of those the ones no piece but the king
//! defends, pieces in the enemy's hand); `HangingToMove(k)` / `HangingWaiting(k)` mark a
//! non-royal piece the enemy attacks and its own side does not defend, for the side to move
//! and for the side waiting.

use crate::position::Position;
use crate::types::{Bitboard, Color, MAX_SQUARES, bits};

/// Ring squares attacked by the enemy: `0..DANGER_ATTACKED` (the last bucket holds more).
pub const DANGER_ATTACKED: usize = 6;
/// Attacked ring squares defended by the king alone: `0..DANGER_WEAK`.
pub const DANGER_WEAK: usize = 4;
/// Pieces in the enemy's hand: `0..DANGER_HAND`.
pub const DANGER_HAND: usize = 4;
/// Cells of the king-danger table: `(attacked * DANGER_WEAK + weak) * DANGER_HAND + hand`.
pub const DANGER_CELLS: usize = DANGER_ATTACKED * DANGER_WEAK * DANGER_HAND;

/// The cell of the king-danger table for these counts (each clamped to its last bucket).
pub fn danger_cell(attacked: u32, weak: u32, hand: u32) -> usize {
    let a = (attacked as usize).min(DANGER_ATTACKED - 1);
    let w = (weak as usize).min(DANGER_WEAK - 1);
    let h = (hand as usize).min(DANGER_HAND - 1);
    (a * DANGER_WEAK + w) * DANGER_HAND + h
}

/// One attack-based term of one piece kind (kind index) or danger cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feature {
    /// Attacked squares not holding an own piece.
    Mobility(usize),
    /// Attacked squares of the enemy king's ring.
    KingAttack(usize),
    /// A cell of the king-danger table (value for the king's own side).
    Danger(usize),
    /// An undefended, attacked piece of the side to move.
    HangingToMove(usize),
    /// An undefended, attacked piece of the side not to move.
    HangingWaiting(usize),
}

/// Reports every attack-based term of `pos` to `f(feature, count)`, with `count` signed from
/// White's point of view. `ring[sq]` is the set of the eight neighbours of `sq`; `in_hand`
/// counts the pieces in each side's hand.
#[inline(always)]
pub fn visit(
    pos: &Position,
    ring: &[Bitboard; MAX_SQUARES],
    in_hand: [i32; 2],
    mut f: impl FnMut(Feature, i32),
) {
    let v = pos.variant();
    let occ = pos.occupied();
    let mut att = [0 as Bitboard; 2];
    let mut att_pieces = [0 as Bitboard; 2];
    let kring = Color::ALL.map(|c| {
        let k = pos.king_square(c) as usize;
        if k < MAX_SQUARES { ring[k] } else { 0 }
    });
    let mut royal: Bitboard = 0;
    for c in Color::ALL {
        let sign = if c == Color::White { 1 } else { -1 };
        let own = pos.pieces_of(c);
        let enemy_ring = kring[!c as usize];
        for sq in bits(own) {
            let Some(p) = pos.piece_on(sq) else { continue };
            let ki = p.kind.index();
            let a = v.attacks(c, p.kind, sq, occ);
            att[c as usize] |= a;
            if v.kinds[ki].royal {
                royal |= 1 << sq;
            } else {
                att_pieces[c as usize] |= a;
            }
            let mob = (a & !own).count_ones() as i32;
            if mob != 0 {
                f(Feature::Mobility(ki), sign * mob);
            }
            let ka = (a & enemy_ring).count_ones() as i32;
            if ka != 0 {
                f(Feature::KingAttack(ki), sign * ka);
            }
        }
    }
    let stm = pos.side_to_move();
    for c in Color::ALL {
        let (us, them) = (c as usize, !c as usize);
        let sign = if c == Color::White { 1 } else { -1 };
        let hanging = pos.pieces_of(c) & att[them] & !att[us] & !royal;
        for sq in bits(hanging) {
            let Some(p) = pos.piece_on(sq) else { continue };
            let ki = p.kind.index();
            f(
                if c == stm { Feature::HangingToMove(ki) } else { Feature::HangingWaiting(ki) },
                sign,
            );
        }
        if pos.king_square(c) as usize >= MAX_SQUARES {
            continue;
        }
        let attacked = kring[us] & att[them];
        let weak = attacked & !att_pieces[us];
        let cell =
            danger_cell(attacked.count_ones(), weak.count_ones(), in_hand[them].max(0) as u32);
        f(Feature::Danger(cell), sign);
    }
}
