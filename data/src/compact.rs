//! Fixed-size compact position (55 bytes encoded).
//!
//! Layout: occupancy bitboard (bit = square index as in the engine), then
//! [`MAX_PIECES`] piece bytes: first one per occupied square in increasing
//! square order, then one per piece in hand (sorted by code, repeated `count`
//! times), padded with [`NO_PIECE`]. A piece byte is the engine's piece code
//! `color << 5 | kind index`. Then side to move, castling bits, en-passant
//! square (`NO_PIECE` for none), halfmove clock and fullmove number.
//!
//! In every supported variant the pieces on the board plus those in hand
//! never exceed the starting total (at most 36, in shinobi), so 40 bytes hold
//! every reachable position.

use bincode::{Decode, Encode};
use kage_engine::nnue::features::PieceCodes;
use kage_engine::{Piece, Variant};

/// Piece bytes per position (board and hand together).
pub const MAX_PIECES: usize = 40;
/// Padding / "none" byte.
pub const NO_PIECE: u8 = 0xff;

/// Why a compact position cannot be built or is invalid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CompactError {
    /// More than [`MAX_PIECES`] pieces on board and in hand.
    #[error("{0} pieces on board and in hand, at most {MAX_PIECES} fit")]
    TooManyPieces(usize),
    /// Board piece count differs from the occupancy.
    #[error("occupancy has {occupied} squares but {pieces} board pieces were given")]
    CountMismatch {
        /// Occupied squares.
        occupied: u32,
        /// Board pieces.
        pieces: usize,
    },
    /// A piece byte is out of range.
    #[error("invalid piece code {0:#04x}")]
    BadPiece(u8),
    /// Side to move is not 0 or 1.
    #[error("invalid side to move {0}")]
    BadSide(u8),
    /// The pieces are not pieces of the variant (for its NNUE features).
    #[error(transparent)]
    Features(#[from] kage_engine::nnue::features::FeatureError),
    /// The stored fields do not form a legal position of the variant.
    #[error("not a valid {variant} position: {reason}")]
    Invalid {
        /// Variant name.
        variant: String,
        /// Engine's or decoder's reason.
        reason: String,
    },
}

/// A position in a fixed 55 bytes (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Encode, Decode)]
pub struct CompactPosition {
    occupancy: u64,
    pieces: [u8; MAX_PIECES],
    stm: u8,
    castling: u8,
    ep: u8,
    halfmove: u16,
    fullmove: u16,
}

/// The fields of a position, engine independent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionParts {
    /// Occupied squares.
    pub occupancy: u64,
    /// Piece code per occupied square, in increasing square order.
    pub board: Vec<u8>,
    /// `(piece code, count)` of every non-empty hand slot.
    pub hand: Vec<(u8, u8)>,
    /// 0 White, 1 Black.
    pub stm: u8,
    /// Castling bits.
    pub castling: u8,
    /// En-passant square or [`NO_PIECE`].
    pub ep: u8,
    /// Halfmove clock.
    pub halfmove: u16,
    /// Fullmove number.
    pub fullmove: u16,
}

impl CompactPosition {
    /// Packs position fields; validates counts and codes.
    pub fn from_parts(p: &PositionParts) -> Result<Self, CompactError> {
        let occupied = p.occupancy.count_ones();
        if occupied as usize != p.board.len() {
            return Err(CompactError::CountMismatch { occupied, pieces: p.board.len() });
        }
        if p.stm > 1 {
            return Err(CompactError::BadSide(p.stm));
        }
        let in_hand: usize = p.hand.iter().map(|&(_, n)| n as usize).sum();
        let total = p.board.len() + in_hand;
        if total > MAX_PIECES {
            return Err(CompactError::TooManyPieces(total));
        }
        let mut pieces = [NO_PIECE; MAX_PIECES];
        for (slot, &code) in pieces.iter_mut().zip(&p.board) {
            check_code(code)?;
            *slot = code;
        }
        let mut hand = p.hand.clone();
        hand.sort_unstable();
        let mut i = p.board.len();
        for (code, n) in hand {
            check_code(code)?;
            for _ in 0..n {
                pieces[i] = code;
                i += 1;
            }
        }
        Ok(CompactPosition {
            occupancy: p.occupancy,
            pieces,
            stm: p.stm,
            castling: p.castling,
            ep: p.ep,
            halfmove: p.halfmove,
            fullmove: p.fullmove,
        })
    }

    /// Unpacks into fields; fails on malformed data (e.g. from a damaged or
    /// hand-crafted file).
    pub fn to_parts(&self) -> Result<PositionParts, CompactError> {
        if self.stm > 1 {
            return Err(CompactError::BadSide(self.stm));
        }
        let n = self.occupancy.count_ones() as usize;
        if n > MAX_PIECES {
            return Err(CompactError::TooManyPieces(n));
        }
        let board = self.pieces[..n].to_vec();
        for &c in &board {
            check_code(c)?;
        }
        let mut hand: Vec<(u8, u8)> = Vec::new();
        self.walk_hand(|c| match hand.last_mut() {
            Some((last, count)) if *last == c => *count += 1,
            _ => hand.push((c, 1)),
        })?;
        Ok(PositionParts {
            occupancy: self.occupancy,
            board,
            hand,
            stm: self.stm,
            castling: self.castling,
            ep: self.ep,
            halfmove: self.halfmove,
            fullmove: self.fullmove,
        })
    }

    /// The board and hands as the engine's feature encoder reads them
    /// ([`kage_engine::nnue::features::write_features`], which checks the board's pieces),
    /// without allocating. The hand is checked as [`Self::to_parts`] checks it, and every
    /// piece in it must be one `v` allows in hand.
    pub fn piece_codes(&self, v: &Variant) -> Result<PieceCodes<'_>, CompactError> {
        if self.stm > 1 {
            return Err(CompactError::BadSide(self.stm));
        }
        let n = self.occupancy.count_ones() as usize;
        if n > MAX_PIECES {
            return Err(CompactError::TooManyPieces(n));
        }
        let mut codes = PieceCodes::new(self.occupancy, &self.pieces[..n]);
        let mut refused = Ok(());
        self.walk_hand(|c| {
            if refused.is_ok() {
                refused = codes.add_to_hand(v, c);
            }
        })?;
        refused?;
        Ok(codes)
    }

    /// Calls `each` with the code of every piece in hand, in stored order, after checking
    /// it: valid, sorted, and no piece after the padding.
    fn walk_hand(&self, mut each: impl FnMut(u8)) -> Result<(), CompactError> {
        let n = (self.occupancy.count_ones() as usize).min(MAX_PIECES);
        let (mut previous, mut padding) = (0u8, false);
        for &c in &self.pieces[n..] {
            if c == NO_PIECE {
                padding = true;
                continue;
            }
            if padding || c < previous {
                return Err(CompactError::BadPiece(c));
            }
            check_code(c)?;
            previous = c;
            each(c);
        }
        Ok(())
    }

    /// The raw piece bytes (board pieces, then hand pieces, then padding).
    pub fn piece_bytes(&self) -> &[u8; MAX_PIECES] {
        &self.pieces
    }

    /// Occupied squares.
    pub fn occupancy(&self) -> u64 {
        self.occupancy
    }
    /// Side to move: 0 White, 1 Black.
    pub fn stm(&self) -> u8 {
        self.stm
    }
    /// Halfmove clock.
    pub fn halfmove(&self) -> u16 {
        self.halfmove
    }
    /// Fullmove number.
    pub fn fullmove(&self) -> u16 {
        self.fullmove
    }
}

fn check_code(code: u8) -> Result<(), CompactError> {
    if !Piece::is_valid_code(code) {
        return Err(CompactError::BadPiece(code));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts() -> PositionParts {
        PositionParts {
            occupancy: 0b1011,
            board: vec![0x00, 0x21, 0x05],
            hand: vec![(0x23, 2), (0x02, 1)],
            stm: 1,
            castling: 5,
            ep: NO_PIECE,
            halfmove: 7,
            fullmove: 300,
        }
    }

    #[test]
    fn parts_round_trip_with_sorted_hand() {
        let c = CompactPosition::from_parts(&parts()).unwrap();
        let back = c.to_parts().unwrap();
        let mut want = parts();
        want.hand.sort_unstable();
        assert_eq!(back, want);
    }

    #[test]
    fn rejects_bad_input() {
        let mut p = parts();
        p.board.pop();
        assert!(matches!(
            CompactPosition::from_parts(&p),
            Err(CompactError::CountMismatch { occupied: 3, pieces: 2 })
        ));
        let mut p = parts();
        p.hand = vec![(0x01, 38)];
        assert_eq!(CompactPosition::from_parts(&p), Err(CompactError::TooManyPieces(41)));
        let mut p = parts();
        p.board[0] = 0x40;
        assert_eq!(CompactPosition::from_parts(&p), Err(CompactError::BadPiece(0x40)));
        let mut p = parts();
        p.stm = 2;
        assert_eq!(CompactPosition::from_parts(&p), Err(CompactError::BadSide(2)));
    }
}
