//! Why an FSF-format net cannot be built, read or used: one line each, naming what was
//! expected and what was found.

use thiserror::Error;

/// An error of the FSF net layout, file format or evaluation.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum FsfError {
    /// The variant's spec has no `[fsf_nnue]` table.
    #[error("variant {0}: no Fairy-Stockfish NNUE layout (its spec has no [fsf_nnue] table)")]
    NoLayout(String),
    /// The layout would not fit FSF's limits.
    #[error("variant {variant}: {why}")]
    Unsupported {
        /// The variant.
        variant: String,
        /// Why.
        why: String,
    },
    /// A file cannot be read or written (the message names it).
    #[error("{0}")]
    Io(String),
    /// The file is not an FSF net at all.
    #[error(
        "not a Fairy-Stockfish NNUE net: version word {found:#010x} (expected {expected:#010x})"
    )]
    Version {
        /// What the file has.
        found: u32,
        /// FSF's version word.
        expected: u32,
    },
    /// A hash of the file does not match this architecture.
    #[error(
        "Fairy-Stockfish net: {what} hash {found:#010x}, expected {expected:#010x} (another architecture)"
    )]
    Hash {
        /// Which hash (`network`, `feature transformer`, `layer stack N`).
        what: String,
        /// What the file has.
        found: u32,
        /// What this architecture has.
        expected: u32,
    },
    /// The file is shorter than its header says.
    #[error("Fairy-Stockfish net: truncated ({len} bytes, the header alone needs {needed})")]
    Truncated {
        /// The file's length.
        len: usize,
        /// The bytes needed.
        needed: usize,
    },
    /// The file's size does not fit the variant.
    #[error(
        "Fairy-Stockfish net for {variant} must be {expected} bytes ({dims} features, {desc} \
         description bytes), found {found} bytes{matches}"
    )]
    Size {
        /// The variant asked for.
        variant: String,
        /// The expected size.
        expected: usize,
        /// The variant's input features.
        dims: usize,
        /// The description's length.
        desc: usize,
        /// The file's size.
        found: usize,
        /// `" (the size of a <variant> net)"` when it fits another built-in variant.
        matches: String,
    },
    /// Tensors of the wrong length given to the writer.
    #[error("Fairy-Stockfish net: {what} has {found} values, expected {expected}")]
    Shape {
        /// Which tensor.
        what: &'static str,
        /// Its length.
        found: usize,
        /// The length the architecture needs.
        expected: usize,
    },
}
