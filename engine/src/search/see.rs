//! Static exchange evaluation: the material balance of the capture sequence on one square,
//! least valuable attacker first, either side free to stop. Pins are ignored (as usual); a
//! king only recaptures when the square is no longer attacked. Drops are moves without a
//! from-square, so a drop onto a square the opponent wins is seen as losing the dropped piece.

use crate::position::Position;
use crate::types::{Move, MoveKind, bits};

/// Value used for the royal piece: it can recapture last but is never given up.
const ROYAL_VALUE: i32 = 100_000;

/// Whether the exchange started by `m` gains at least `threshold` (in the variant's piece
/// values; promotion gains count, pieces captured count at their board value).
pub fn see_ge(pos: &Position, m: Move, threshold: i32) -> bool {
    if m.kind() == MoveKind::Castling {
        return threshold <= 0;
    }
    let v = pos.variant();
    let value = |k| {
        let info = v.kind(k);
        if info.royal { ROYAL_VALUE } else { info.value }
    };
    let to = m.to().0;
    let mover = super::tactical::mover(pos, m);
    // The piece that will stand on `to` after the move.
    let on_to = if m.is_promotion() { v.promoted_kind(mover, m) } else { mover };
    let mut swap = pos.captured(m).map_or(0, |p| value(p.kind)) - threshold;
    if m.is_promotion() {
        swap += value(on_to) - value(mover);
    }
    if swap < 0 {
        return false;
    }
    swap = value(on_to) - swap;
    if swap <= 0 {
        return true;
    }
    let mut occ = pos.occupied() | (1u64 << to);
    if !m.is_drop() {
        occ ^= 1u64 << m.from().0;
    }
    if m.kind() == MoveKind::EnPassant {
        occ &= !(1u64 << pos.ep_victim(to));
    }
    let mut stm = pos.side_to_move();
    let mut res = true;
    loop {
        stm = !stm;
        let attackers = pos.attackers_to(to, stm, occ) & occ;
        if attackers == 0 {
            break;
        }
        // Least valuable attacker.
        let (sq, val) = bits(attackers)
            .map(|sq| (sq, pos.piece_on(sq).map_or(ROYAL_VALUE, |p| value(p.kind))))
            .min_by_key(|&(sq, val)| (val, sq))
            .expect("attackers is not empty");
        res = !res;
        if val >= ROYAL_VALUE {
            // The king may take only if the other side has nothing left on the square.
            let others = pos.attackers_to(to, !stm, occ ^ (1u64 << sq)) & occ;
            return if others != 0 { !res } else { res };
        }
        swap = val - swap;
        if swap < i32::from(res) {
            break;
        }
        occ ^= 1u64 << sq;
    }
    res
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variant::{Variant, VariantId};

    fn check(id: VariantId, fen: &str, uci: &str, threshold: i32, expected: bool) {
        let v = Variant::builtin(id);
        let pos = Position::from_fen(v, fen).unwrap();
        let m = pos.parse_move(uci).unwrap();
        assert_eq!(see_ge(&pos, m, threshold), expected, "{fen} {uci} >= {threshold}");
    }

    fn value(id: VariantId, letter: char) -> i32 {
        let v = Variant::builtin(id);
        v.kinds.iter().find(|k| k.letter == letter && !k.promoted).unwrap().value
    }

    #[test]
    fn exchanges_on_one_square() {
        const M: VariantId = VariantId::MINISHOGI;
        let (p, g, s, r) = (value(M, 'P'), value(M, 'G'), value(M, 'S'), value(M, 'R'));
        assert!(p < s && s < g && g < r);
        // Undefended pawn taken by the rook: wins a pawn, exactly.
        let fen = "4k/5/2p2/5/K1R2[] w - - 0 1";
        check(M, fen, "c1c3", p, true);
        check(M, fen, "c1c3", p + 1, false);
        // The same pawn defended by a gold: rook for pawn loses.
        let fen = "4k/2g2/2p2/5/K1R2[] w - - 0 1";
        check(M, fen, "c1c3", 0, false);
        check(M, fen, "c1c3", p - r, true);
        check(M, fen, "c1c3", p - r + 1, false);
        // A drop onto a square the opponent's pawn guards loses the dropped piece...
        let fen = "4k/2p2/5/5/K4[G] w - - 0 1";
        check(M, fen, "G@c3", 0, false);
        check(M, fen, "G@c3", -g, true);
        // ...unless the square is defended by a cheaper piece of ours: gold for pawn.
        let fen = "4k/2p2/5/2S2/K4[G] w - - 0 1";
        check(M, fen, "G@c3", p - g, true);
        check(M, fen, "G@c3", p - g + 1, false);
        // A quiet move to a safe square is neutral.
        check(M, "4k/5/5/5/K1R2[] w - - 0 1", "c1c3", 0, true);
        // The king recaptures an undefended attacker...
        let fen = "4k/4p/5/5/K3R[] w - - 0 1";
        check(M, fen, "e1e4", 0, false);
        check(M, fen, "e1e4", p - r, true);
        // ...but not one defended by a piece behind it (an x-ray through the mover).
        let fen = "4k/4p/5/4R/K3R[] w - - 0 1";
        check(M, fen, "e2e4", p, true);
        check(M, fen, "e2e4", p + 1, false);
    }
}
