//! Why an FSF `variants.ini` file, or one of its variants, cannot be read into a kage spec.

use thiserror::Error;

/// Why an FSF variant file or one of its sections cannot become a kage variant.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum FsfIniError {
    /// The file cannot be read.
    #[error("cannot read variant file: {0}")]
    Io(String),
    /// A line that is not a section header, a `key = value` line, a comment or blank.
    #[error("line {line}: {why}")]
    Syntax {
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        why: String,
    },
    /// Two sections with one name.
    #[error("line {line}: section [{name}] is defined twice")]
    DuplicateSection {
        /// The name.
        name: String,
        /// Line of the second definition.
        line: usize,
    },
    /// A parent that is neither an earlier section nor a built-in variant kage carries.
    #[error(
        "[{section}]: parent variant '{parent}' is neither defined earlier in the file nor one of \
         the Fairy-Stockfish built-in variants kage knows ({known})"
    )]
    UnknownParent {
        /// The section.
        section: String,
        /// The parent named.
        parent: String,
        /// Built-in variants kage carries.
        known: String,
    },
    /// A variant asked for that the file does not define.
    #[error("no variant '{name}' in the file (it defines: {known})")]
    UnknownVariant {
        /// The name asked for.
        name: String,
        /// The file's sections and the built-ins.
        known: String,
    },
    /// A key Fairy-Stockfish does not know.
    #[error("[{section}]: unknown key '{key}' (not a Fairy-Stockfish variant option)")]
    UnknownKey {
        /// Section of the key.
        section: String,
        /// The key.
        key: String,
    },
    /// A value that is not of the key's type.
    #[error("[{section}]: {key} = {value:?}: {why}")]
    BadValue {
        /// Section of the key.
        section: String,
        /// The key.
        key: String,
        /// Its value.
        value: String,
        /// What was expected.
        why: String,
    },
    /// A rule kage does not play.
    #[error("[{section}]: {key} = {value:?} is not supported by kage: {why}")]
    Unsupported {
        /// Section where the key was set (or the variant, for a rule derived from several keys).
        section: String,
        /// The key.
        key: String,
        /// Its value.
        value: String,
        /// What kage cannot do.
        why: String,
    },
    /// The spec made from the section does not compile.
    #[error("[{section}]: the kage spec made from it is refused: {why}")]
    Spec {
        /// The variant.
        section: String,
        /// kage's reason.
        why: String,
    },
}

impl FsfIniError {
    /// The key this error is about, if one.
    pub fn key(&self) -> Option<&str> {
        match self {
            FsfIniError::UnknownKey { key, .. }
            | FsfIniError::BadValue { key, .. }
            | FsfIniError::Unsupported { key, .. } => Some(key),
            _ => None,
        }
    }
}
