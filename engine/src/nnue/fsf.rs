//! Fairy-Stockfish's (FSF) own NNUE nets: the HalfKAv2_variants feature layout of a variant
//! ([`layout`]), the architecture's constants ([`arch`]) and their typed errors ([`error`]).
//! Everything here is written from `../shared/design/FSF-NNUE.md` (FSF at commit c19b5f6c);
//! references `file:line` point into FSF's source tree.

pub mod arch;
pub mod error;
pub mod layout;

pub use error::FsfError;
pub use layout::FsfLayout;
