//! kage engine: rules of drop-and-promotion chess variants as data, positions, legal move
//! generation, game-end rules, perft, search and evaluation.

pub mod eval;
pub mod game;
pub mod nnue;
pub mod perft;
pub mod position;
pub mod protocol;
pub mod search;
pub mod types;
pub mod util;
pub mod variant;

pub use game::{Game, Outcome, Reason};
pub use position::{FenError, MoveError, Position};
pub use types::{Bitboard, ByColor, Color, Move, MoveKind, MoveList, Piece, PieceKind, Square};
pub use variant::{SpecError, Variant, VariantId, VariantSpec};
