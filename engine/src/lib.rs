//! kage engine: rules of drop-and-promotion chess variants as data, positions, legal move
//! generation, game-end rules, perft, search and evaluation.

#![warn(missing_docs)]

pub mod eval;
pub mod game;
pub mod nnue;
pub mod perft;
pub mod position;
// The UCI and `kage rules` front ends are being reworked on another branch, which
// documents them.
#[allow(missing_docs)]
pub mod protocol;
pub mod search;
pub mod types;
pub mod util;
pub mod variant;

pub use game::{Game, Outcome, Reason};
pub use position::{FenError, MoveError, Position};
pub use types::{Bitboard, ByColor, Color, Move, MoveKind, MoveList, Piece, PieceKind, Square};
pub use variant::{SpecError, Variant, VariantId, VariantSpec};
