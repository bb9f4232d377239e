//! Bitboards: every board in kage fits in 64 squares, indexed `rank * width + file`.

/// A set of squares, bit `i` set for square index `i`.
pub type Bitboard = u64;

/// Iterates over the set squares of a bitboard, lowest first.
#[derive(Clone, Copy, Debug)]
pub struct BitIter(pub Bitboard);

impl Iterator for BitIter {
    type Item = u8;
    #[inline(always)]
    fn next(&mut self) -> Option<u8> {
        if self.0 == 0 {
            return None;
        }
        let s = self.0.trailing_zeros() as u8;
        self.0 &= self.0 - 1;
        Some(s)
    }
}

/// Shorthand for `BitIter(b)`.
#[inline(always)]
pub fn bits(b: Bitboard) -> BitIter {
    BitIter(b)
}
