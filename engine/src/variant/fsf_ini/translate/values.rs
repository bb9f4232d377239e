//! Piece values for kage's hand-crafted evaluation of a translated variant, and the start FEN as
//! FSF reads it.

use super::super::betza;
use super::super::pieces::{KING, TypeId};
use super::{Choice, Fen, Kind, Translation};
use crate::variant::MAX_MATERIAL;

impl Translation<'_> {
    /// Each kind's estimated value, all scaled down to fit when the start
    /// position's pieces could make more material than [`MAX_MATERIAL`] in their most valuable
    /// forms (promoted, or chosen by a chess-style promotion): FSF has no such limit.
    pub(super) fn set_values(&self, kinds: &mut [Kind], choice: &Choice, fen: &Fen) {
        for k in kinds.iter_mut() {
            k.value = estimate_value(&k.betza, k.pawn);
        }
        let value_of = |t: TypeId, promoted: bool| {
            kinds.iter().find(|k| k.base == t && k.promoted == promoted).map_or(0, |k| k.value)
        };
        let mut material = 0i64;
        for c in fen.letters() {
            let Some(t) = self.r.type_of(c).filter(|&t| t != KING) else { continue };
            let mut best = value_of(t, false).max(value_of(t, true));
            if choice.pawns.contains(&t) {
                for &x in &choice.targets {
                    best = best.max(value_of(x, false));
                }
            }
            material += i64::from(best);
        }
        let limit = MAX_MATERIAL;
        if material > limit {
            for k in kinds.iter_mut() {
                let v = i64::from(k.value) * limit / material;
                k.value = ((v / 10 * 10) as i32).max(10);
            }
        }
    }
}

/// A rough material value for kage's hand-crafted evaluation (FSF's own values are not kage's
/// scale): 40 per leap, 125 per orthogonal and 80 per diagonal slide direction, halved for
/// move-only or capture-only components; pawns 100.
fn estimate_value(betza: &str, pawn: bool) -> i32 {
    if pawn {
        return 100;
    }
    let Ok(steps) = betza::fsf_steps(betza) else {
        return 100;
    };
    let mut v = 0i32;
    for s in &steps {
        let unit = match s.reach {
            betza::Reach::Ride(_) if s.dx == 0 || s.dy == 0 => 62,
            betza::Reach::Ride(_) => 40,
            _ => 20,
        };
        v += unit;
    }
    ((v / 10) * 10).clamp(100, 2000)
}

/// The start FEN as FSF reads it: after a castling field, a counter where the en-passant
/// square belongs loses its first character to the en-passant field (FSF's `w - 0 1` is
/// halfmove clock 1); any other FEN unchanged.
pub(super) fn as_fsf_reads(fen: &str) -> String {
    let mut fields: Vec<&str> = fen.split_whitespace().collect();
    let digit = |s: &str| s.starts_with(|c: char| c.is_ascii_digit());
    if fields.len() < 4 || digit(fields[2]) || !digit(fields[3]) {
        return fen.to_string();
    }
    let rest = &fields[3][1..];
    if rest.is_empty() {
        fields[3] = "-";
    } else {
        fields[3] = rest;
        fields.insert(3, "-");
    }
    fields.join(" ")
}

#[cfg(test)]
mod tests {
    use super::as_fsf_reads;

    #[test]
    fn a_counter_in_the_en_passant_field_is_read_as_fsf_reads_it() {
        assert_eq!(as_fsf_reads("k/p/P/K w - 0 1"), "k/p/P/K w - - 1");
        assert_eq!(as_fsf_reads("k/p/P/K w - 12 3"), "k/p/P/K w - - 2 3");
        for same in ["k/p/P/K w - - 0 1", "k/p/P/K[-] w 0 1", "k/p/P/K w KQ e3 0 1", "k/p/P/K w"] {
            assert_eq!(as_fsf_reads(same), same);
        }
    }
}
