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
use crate::types::{Color, MAX_KINDS, Piece, PieceKind, bits};
use crate::variant::Variant;

/// Identifies this encoding in net files; bump when the layout changes.
pub const FEATURE_SET_ID: u32 = 1;

/// The most features one perspective can have active (board squares plus hand slots).
pub const MAX_ACTIVE: usize = 96;

/// Number of input features for a variant.
pub fn num_features(v: &Variant) -> usize {
    board_features(v) + 2 * v.hand_max.iter().map(|&m| m as usize).sum::<usize>()
}

/// Number of piece-square features (they come first; hand features follow).
pub fn board_features(v: &Variant) -> usize {
    2 * v.num_kinds() * v.num_squares as usize
}

/// Number of piece groups `(own/theirs, kind)`: every piece-square feature belongs to one.
/// The trainer's factoriser learns a weight row per group, shared by the group's squares,
/// and folds it into the piece-square rows on export.
pub fn num_piece_groups(v: &Variant) -> usize {
    2 * v.num_kinds()
}

/// The piece group of feature `f` (`None` for hand features).
#[inline]
pub fn piece_group(v: &Variant, f: u32) -> Option<u32> {
    ((f as usize) < board_features(v)).then(|| f / u32::from(v.num_squares))
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

/// Appends the hand features (own hand, then theirs, each in the variant's hand order) given
/// the count of each hand kind; the same features as [`hand_feature`] for every held slot.
#[inline(always)]
fn push_hand_features(
    v: &Variant,
    perspective: Color,
    count: impl Fn(Color, PieceKind) -> u8,
    out: &mut Vec<u32>,
) {
    let mut base = board_features(v) as u32;
    for owner in [perspective, !perspective] {
        for (&kind, &max) in v.hand_kinds.iter().zip(&v.hand_max) {
            let n = count(owner, kind).min(max);
            out.extend((0..u32::from(n)).map(|slot| base + slot));
            base += u32::from(max);
        }
    }
}

/// Appends the active features of `pos` seen from `perspective` to `out`: board squares
/// ascending, then own and their hand in the variant's hand order.
pub fn active_features(pos: &Position, perspective: Color, out: &mut Vec<u32>) {
    let v = pos.variant();
    for sq in bits(pos.occupied()) {
        let piece = pos.piece_on(sq).expect("occupied square has a piece");
        out.push(piece_feature(v, perspective, piece, sq));
    }
    push_hand_features(v, perspective, |owner, kind| pos.hand(owner, kind), out);
}

/// A board and hands in compact form, as the data files store them: what
/// [`write_features`] encodes without building a [`Position`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PieceCodes<'a> {
    /// Occupied squares.
    pub occupancy: u64,
    /// The piece code ([`Piece::code`]) of each occupied square, in ascending square order.
    pub board: &'a [u8],
    /// How many pieces of each kind White (`[0]`) and Black (`[1]`) hold. Only the
    /// variant's hand kinds count; [`PieceCodes::add_to_hand`] refuses the others.
    pub hands: [[u8; MAX_KINDS]; 2],
}

impl<'a> PieceCodes<'a> {
    /// A board with empty hands.
    pub fn new(occupancy: u64, board: &'a [u8]) -> Self {
        PieceCodes { occupancy, board, hands: [[0; MAX_KINDS]; 2] }
    }

    /// Adds the piece of `code` to its owner's hand, if it is a piece `v` allows in hand.
    #[inline]
    pub fn add_to_hand(&mut self, v: &Variant, code: u8) -> Result<(), FeatureError> {
        match Piece::from_code_in(code, v.num_kinds()) {
            Some(p) if v.hand_kinds.contains(&p.kind) => {
                let n = &mut self.hands[p.color.index()][p.kind.index()];
                *n = n.saturating_add(1);
                Ok(())
            }
            _ => Err(FeatureError::HandPiece { code }),
        }
    }
}

/// Why [`PieceCodes`] do not describe pieces of a variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FeatureError {
    /// The board holds a code count other than the occupied square count.
    #[error("{codes} board piece codes for {occupied} occupied squares")]
    Count {
        /// Occupied squares.
        occupied: u32,
        /// Board piece codes.
        codes: usize,
    },
    /// A board code is not a piece of the variant, or its square is off the board.
    #[error("invalid piece code {code:#04x} on square {square}")]
    BoardPiece {
        /// The piece code.
        code: u8,
        /// Its square.
        square: u8,
    },
    /// A piece code that is not a piece the variant allows in hand.
    #[error("invalid piece code {code:#04x} in hand")]
    HandPiece {
        /// The piece code.
        code: u8,
    },
}

/// Appends the active features of `codes` seen from `perspective` to `out`: the same
/// features in the same order as [`active_features`] of the position they describe. Board
/// pieces and squares are checked against the variant (legality is not); on error nothing
/// is appended. Allocates nothing beyond `out`'s growth.
#[inline]
pub fn write_features(
    v: &Variant,
    codes: &PieceCodes<'_>,
    perspective: Color,
    out: &mut Vec<u32>,
) -> Result<(), FeatureError> {
    let occupied = codes.occupancy.count_ones();
    if occupied as usize != codes.board.len() {
        return Err(FeatureError::Count { occupied, codes: codes.board.len() });
    }
    let start = out.len();
    let mut occ = codes.occupancy;
    for &code in codes.board {
        let square = occ.trailing_zeros() as u8;
        occ &= occ.wrapping_sub(1);
        match Piece::from_code_in(code, v.num_kinds()) {
            Some(p) if square < v.num_squares => out.push(piece_feature(v, perspective, p, square)),
            _ => {
                out.truncate(start);
                return Err(FeatureError::BoardPiece { code, square });
            }
        }
    }
    push_hand_features(v, perspective, |c, k| codes.hands[c.index()][k.index()], out);
    Ok(())
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
        let v = Variant::builtin(VariantId::GOROGOROPLUS);
        let pos = Position::startpos(v);
        let mut w = Vec::new();
        let mut b = Vec::new();
        active_features(&pos, Color::White, &mut w);
        active_features(&pos, Color::Black, &mut b);
        w.sort();
        b.sort();
        assert_eq!(w, b, "gorogoro+ start is mirror-symmetric, so both views agree");
    }

    /// The compact view of `pos` (what the data files store).
    fn codes_of(pos: &Position) -> (u64, Vec<u8>, [[u8; MAX_KINDS]; 2]) {
        let board = bits(pos.occupied()).map(|sq| pos.piece_on(sq).unwrap().code()).collect();
        let mut hands = [[0; MAX_KINDS]; 2];
        for c in Color::ALL {
            for &k in &pos.variant().hand_kinds {
                hands[c.index()][k.index()] = pos.hand(c, k);
            }
        }
        (pos.occupied(), board, hands)
    }

    #[test]
    fn compact_codes_give_the_positions_features_and_bad_codes_are_refused() {
        for id in VariantId::ALL {
            let v = Variant::builtin(id);
            // A position with pieces in both hands: shinobi-style variants start with hands.
            let mut pos = Position::startpos(v);
            for _ in 0..12 {
                let moves = pos.legal_moves();
                let Some(&m) = moves
                    .as_slice()
                    .iter()
                    .find(|&&m| pos.captured(m).is_some())
                    .or(moves.as_slice().first())
                else {
                    break;
                };
                pos.play(m);
            }
            let (occupancy, board, hands) = codes_of(&pos);
            let codes = PieceCodes { occupancy, board: &board, hands };
            for c in Color::ALL {
                let (mut want, mut got) = (Vec::new(), vec![7]);
                active_features(&pos, c, &mut want);
                write_features(v, &codes, c, &mut got).expect("valid codes");
                assert_eq!(got[1..], want[..], "{id}");
                // The hand slots are the ones `hand_feature` names.
                let mut one_by_one = Vec::new();
                for owner in [c, !c] {
                    for &k in &v.hand_kinds {
                        for slot in 0..pos.hand(owner, k) {
                            one_by_one.extend(hand_feature(v, c, owner, k, slot));
                        }
                    }
                }
                assert_eq!(want[board.len()..], one_by_one[..], "{id}");
            }
            let mut out = vec![7];
            let bad = [Piece { color: Color::Black, kind: PieceKind(v.num_kinds() as u8) }.code()];
            let one = PieceCodes { occupancy: 1, board: &bad, hands: [[0; MAX_KINDS]; 2] };
            assert_eq!(
                write_features(v, &one, Color::White, &mut out),
                Err(FeatureError::BoardPiece { code: bad[0], square: 0 })
            );
            let short = PieceCodes { occupancy: 3, board: &board[..1], hands };
            assert!(matches!(
                write_features(v, &short, Color::White, &mut out),
                Err(FeatureError::Count { occupied: 2, codes: 1 })
            ));
            let mut codes = PieceCodes::new(0, &[]);
            if let Some(k) =
                (0..v.num_kinds()).find(|&k| !v.hand_kinds.iter().any(|h| h.index() == k))
            {
                let e = codes.add_to_hand(v, 0x20 | k as u8);
                assert_eq!(e, Err(FeatureError::HandPiece { code: 0x20 | k as u8 }), "{id}");
            }
            assert_eq!(
                codes.add_to_hand(v, Piece::NONE_CODE),
                Err(FeatureError::HandPiece { code: 0xff })
            );
            assert_eq!(codes.hands, [[0; MAX_KINDS]; 2], "{id}: nothing added on error");
            assert_eq!(out, [7], "{id}: nothing appended on error");
        }
    }
}
