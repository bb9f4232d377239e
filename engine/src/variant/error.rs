//! Errors found while reading or checking a variant spec.

use thiserror::Error;

/// Why a variant spec cannot be read or compiled.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum SpecError {
    /// No built-in variant has this name.
    #[error("unknown variant {name:?} (known: {known})")]
    UnknownVariant {
        /// The name asked for.
        name: String,
        /// The built-in variants' names.
        known: String,
    },
    /// The spec file cannot be read.
    #[error("cannot read spec: {0}")]
    Io(String),
    /// The spec is not valid TOML of the expected shape.
    #[error("spec syntax: {0}")]
    Syntax(String),
    #[error("board {width}x{height} does not fit in 64 squares (each side 1..=8)")]
    /// The board is empty or larger than 8x8.
    BoardSize {
        /// Files asked for.
        width: u8,
        /// Ranks asked for.
        height: u8,
    },
    #[error("piece '{letter}': bad movement '{betza}': {why}")]
    /// A piece's movement cannot be read.
    Betza {
        /// The piece.
        letter: String,
        /// Its movement.
        betza: String,
        /// Why.
        why: super::betza::BetzaError,
    },
    /// A piece letter that is not one ASCII letter or `+` and one.
    #[error(
        "piece letter '{0}' is invalid (one ASCII letter, or '+' and a letter for a promoted kind)"
    )]
    BadLetter(String),
    /// Two pieces with one letter.
    #[error("piece letter '{0}' is defined twice")]
    DuplicateLetter(String),
    #[error("piece '{piece}' names unknown piece '{other}' in '{field}'")]
    /// A piece names a piece the spec does not define.
    UnknownPiece {
        /// The piece naming it.
        piece: String,
        /// The field naming it.
        field: String,
        /// The unknown name.
        other: String,
    },
    /// More kinds than [`crate::types::MAX_KINDS`].
    #[error("too many piece kinds ({0}; at most 24)")]
    TooManyKinds(usize),
    /// A zone rank outside the board.
    #[error("rank {0} is off the board")]
    BadRank(u8),
    /// Rules that contradict each other or the pieces.
    #[error("inconsistent rules: {0}")]
    Inconsistent(String),
    /// The start position is not a valid FEN of the variant.
    #[error("start position: {0}")]
    StartFen(String),
    /// A name that is not 1 to 64 ASCII letters, digits, `-` or `_`.
    #[error(
        "name {0:?}: a variant name is 1 to 64 ASCII letters, digits, '-' or '_' (it names \
         files, directories and the UCI_Variant)"
    )]
    BadName(String),
    /// A piece value outside `0..=10000`.
    #[error("piece '{letter}': {key} = {value} is outside 0..=10000 (centipawns)")]
    PieceValue {
        /// The piece.
        letter: String,
        /// `value` or `hand_value`.
        key: &'static str,
        /// The value given.
        value: i32,
    },
    /// The material of the start position's pieces could reach the mate scores.
    #[error(
        "piece values: the start position's pieces can make {material} centipawns of material \
         (promoted or in hand), more than {max}: the evaluation would reach the mate scores"
    )]
    Material {
        /// The largest material the pieces can make.
        material: i64,
        /// The bound.
        max: i64,
    },
    /// More pieces than kage can record.
    #[error(
        "start_fen: {count} pieces on the board and in hand, at most {max} (what kage's data \
         records hold)"
    )]
    TooManyPieces {
        /// Pieces in the start position.
        count: usize,
        /// The bound.
        max: usize,
    },
    /// A side wins by reaching its flag rank with its first move.
    #[error(
        "{key}: {side} reaches its flag rank with its first move ({moves}): the game would be over at once"
    )]
    FlagInOneMove {
        /// `zones.flag_white` or `zones.flag_black`.
        key: &'static str,
        /// The side's name.
        side: String,
        /// The moves from the start, in UCI notation.
        moves: String,
    },
    /// A user variant with the name of a built-in one.
    #[error(
        "name {0:?} is a built-in variant's name: a user variant needs a name of its own (or \
         use the built-in one)"
    )]
    BuiltinName(String),
    /// `--variant` names another variant than the `--variant-file` spec.
    #[error(
        "--variant {asked} names another variant than the --variant-file spec ({spec:?}): give \
         one of them, or the spec's name"
    )]
    NameConflict {
        /// The name asked for.
        asked: String,
        /// The spec's name.
        spec: String,
    },
    /// A Fairy-Stockfish variant file, or the section asked for, cannot be read.
    #[error("{0}")]
    FsfIni(#[from] super::fsf_ini::FsfIniError),
    /// The variant asked for is not a section of the FSF variant file.
    #[error(
        "no variant '{name}' in the Fairy-Stockfish variant file (its sections: {sections}); \
         choose one with --variant"
    )]
    NoSection {
        /// The name asked for.
        name: String,
        /// The file's sections.
        sections: String,
    },
    /// An FSF variant file with several sections and no variant name.
    #[error(
        "the Fairy-Stockfish variant file defines {count} variants ({sections}): choose one with \
         --variant"
    )]
    ChooseSection {
        /// How many sections.
        count: usize,
        /// The file's sections.
        sections: String,
    },
    /// An FSF section named like a built-in variant whose rules differ from it.
    #[error(
        "[{name}]: named like kage's built-in variant but plays another game ({differences}); \
         rename the section"
    )]
    BuiltinDiffers {
        /// The name.
        name: String,
        /// The rule differences.
        differences: String,
    },
}
