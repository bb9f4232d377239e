//! Errors found while reading or checking a variant spec.

use thiserror::Error;

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum SpecError {
    #[error("unknown variant {name:?} (known: {known})")]
    UnknownVariant {
        /// The name asked for.
        name: String,
        /// The built-in variants' names.
        known: String,
    },
    #[error("cannot read spec: {0}")]
    Io(String),
    #[error("spec syntax: {0}")]
    Syntax(String),
    #[error("board {width}x{height} does not fit in 64 squares (each side 1..=8)")]
    BoardSize { width: u8, height: u8 },
    #[error("piece '{letter}': bad movement '{betza}': {why}")]
    Betza { letter: String, betza: String, why: String },
    #[error(
        "piece letter '{0}' is invalid (one ASCII letter, or '+' and a letter for a promoted kind)"
    )]
    BadLetter(String),
    #[error("piece letter '{0}' is defined twice")]
    DuplicateLetter(String),
    #[error("piece '{piece}' names unknown piece '{other}' in '{field}'")]
    UnknownPiece { piece: String, field: String, other: String },
    #[error("too many piece kinds ({0}; at most 24)")]
    TooManyKinds(usize),
    #[error("rank {0} is off the board")]
    BadRank(u8),
    #[error("inconsistent rules: {0}")]
    Inconsistent(String),
    #[error("start position: {0}")]
    StartFen(String),
}
