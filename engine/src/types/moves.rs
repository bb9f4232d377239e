//! Moves in 16 bits: to (6), from or dropped kind (6), code (4): the kind, and for a promotion
//! the choice among the mover's promotion targets (code 1: the first, `promotes_to`; codes 5 to
//! 15: choices 1 to 11 of a chess-style promotion).

use super::{PieceKind, Square};

/// What a move does besides moving a piece from one square to another.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MoveKind {
    /// A plain move or capture.
    Normal = 0,
    /// A move that promotes.
    Promotion = 1,
    /// A piece from the hand put on an empty square.
    Drop = 2,
    /// A pawn capturing en passant.
    EnPassant = 3,
    /// The king castling.
    Castling = 4,
}

/// The most targets a chess-style promotion may choose among (codes 1 and 5 to 15).
pub const MAX_PROMOTION_CHOICES: usize = 12;

/// A move. `Move::NULL` (all zero) is never a legal move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Move(pub u16);

impl Move {
    /// No move (also the null move of the search).
    pub const NULL: Move = Move(0);

    /// A board move from `from` to `to`.
    #[inline(always)]
    pub fn new(from: u8, to: u8, kind: MoveKind) -> Move {
        Move(to as u16 | ((from as u16) << 6) | ((kind as u16) << 12))
    }

    /// A promotion from `from` to `to` into choice `choice` (below [`MAX_PROMOTION_CHOICES`])
    /// of the mover's promotion targets; choice 0 is `Move::new(from, to, Promotion)`.
    #[inline(always)]
    pub fn promotion(from: u8, to: u8, choice: u8) -> Move {
        let code = if choice == 0 { 1 } else { 4 + choice as u16 };
        Move(to as u16 | ((from as u16) << 6) | (code << 12))
    }

    /// The promotion choice of a promotion (0 for any other move).
    #[inline(always)]
    pub fn promotion_choice(self) -> usize {
        let code = self.0 >> 12;
        if code > 4 { usize::from(code - 4) } else { 0 }
    }

    /// A drop of a piece of kind `kind` on `to`.
    #[inline(always)]
    pub fn drop(kind: PieceKind, to: u8) -> Move {
        Move::new(kind.0, to, MoveKind::Drop)
    }

    /// Destination square.
    #[inline(always)]
    pub fn to(self) -> Square {
        Square((self.0 & 63) as u8)
    }

    /// Origin square (meaningless for drops).
    #[inline(always)]
    pub fn from(self) -> Square {
        Square(((self.0 >> 6) & 63) as u8)
    }

    /// The dropped kind (only for drops).
    #[inline(always)]
    pub fn drop_kind(self) -> PieceKind {
        PieceKind(((self.0 >> 6) & 63) as u8)
    }

    /// What kind of move this is.
    #[inline(always)]
    pub fn kind(self) -> MoveKind {
        match self.0 >> 12 {
            0 => MoveKind::Normal,
            1 => MoveKind::Promotion,
            2 => MoveKind::Drop,
            3 => MoveKind::EnPassant,
            4 => MoveKind::Castling,
            _ => MoveKind::Promotion,
        }
    }

    /// Whether this is a drop.
    #[inline(always)]
    pub fn is_drop(self) -> bool {
        self.0 >> 12 == MoveKind::Drop as u16
    }

    /// Whether this move promotes.
    #[inline(always)]
    pub fn is_promotion(self) -> bool {
        let code = self.0 >> 12;
        code == MoveKind::Promotion as u16 || code > MoveKind::Castling as u16
    }

    /// Whether this is [`Move::NULL`].
    pub fn is_null(self) -> bool {
        self.0 == 0
    }
}

/// Move list: the first [`MoveList::CAPACITY`] moves live inline (no allocation in move
/// generation); a position with more (a user variant with many drop kinds, say) spills the
/// whole list to the heap, so no move is ever lost.
pub struct MoveList {
    moves: [Move; Self::CAPACITY],
    len: usize,
    /// Every move once the inline array is full; empty until then.
    spill: Vec<Move>,
}

impl MoveList {
    /// Moves kept inline.
    pub const CAPACITY: usize = 1024;

    /// An empty list.
    pub fn new() -> MoveList {
        MoveList { moves: [Move::NULL; Self::CAPACITY], len: 0, spill: Vec::new() }
    }

    /// Appends `m`.
    #[inline(always)]
    pub fn push(&mut self, m: Move) {
        if self.len < Self::CAPACITY {
            self.moves[self.len] = m;
        } else {
            self.push_spilled(m);
        }
        self.len += 1;
    }

    #[cold]
    #[inline(never)]
    fn push_spilled(&mut self, m: Move) {
        if self.spill.is_empty() {
            self.spill.reserve(2 * Self::CAPACITY);
            self.spill.extend_from_slice(&self.moves);
        }
        self.spill.push(m);
    }

    /// Number of moves.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the list is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Removes every move.
    pub fn clear(&mut self) {
        self.len = 0;
        self.spill.clear();
    }

    /// The moves.
    #[inline(always)]
    pub fn as_slice(&self) -> &[Move] {
        if self.len <= Self::CAPACITY { &self.moves[..self.len] } else { &self.spill }
    }

    /// The moves, mutable (for reordering).
    #[inline(always)]
    pub fn as_mut_slice(&mut self) -> &mut [Move] {
        if self.len <= Self::CAPACITY { &mut self.moves[..self.len] } else { &mut self.spill }
    }

    /// Whether `m` is in the list.
    pub fn contains(&self, m: Move) -> bool {
        self.as_slice().contains(&m)
    }
}

impl Default for MoveList {
    fn default() -> Self {
        Self::new()
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn promotion_choices_round_trip_and_keep_the_other_kinds() {
        assert_eq!(Move::promotion(12, 20, 0), Move::new(12, 20, MoveKind::Promotion));
        for c in 0..MAX_PROMOTION_CHOICES as u8 {
            let m = Move::promotion(63, 62, c);
            assert_eq!((m.from().0, m.to().0), (63, 62));
            assert_eq!(m.kind(), MoveKind::Promotion);
            assert!(m.is_promotion() && !m.is_drop() && !m.is_null());
            assert_eq!(m.promotion_choice(), usize::from(c));
        }
        for k in [MoveKind::Normal, MoveKind::Drop, MoveKind::EnPassant, MoveKind::Castling] {
            let m = Move::new(63, 62, k);
            assert_eq!(m.kind(), k);
            assert!(!m.is_promotion());
            assert_eq!(m.promotion_choice(), 0);
        }
    }
}
