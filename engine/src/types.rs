//! Small vocabulary types shared by every part of the engine.

mod bitboard;
mod color;
mod moves;
mod piece;
mod square;

pub use bitboard::{BitIter, Bitboard, bits};
pub use color::{ByColor, Color};
pub use moves::{MAX_PROMOTION_CHOICES, Move, MoveKind, MoveList};
pub use piece::{MAX_KINDS, Piece, PieceKind};
pub use square::{MAX_SQUARES, Square};
