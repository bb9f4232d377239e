//! Typed errors of the container format.

use std::path::PathBuf;

use crate::header::RecordKind;

/// Everything that can go wrong while reading or writing a kage data file.
///
/// Damaged chunks in the middle of a file are *not* errors: the reader reports
/// them as [`crate::Damage`] and carries on with the next intact chunk.
#[derive(Debug, thiserror::Error)]
pub enum DataError {
    /// An operating-system I/O failure.
    // `cause` is in the message, so it is not also the error's `source()` (which would
    // print it twice in a `{:#}` chain).
    #[error("{}: {op}: {cause}", path.display())]
    Io {
        /// File concerned.
        path: PathBuf,
        /// What was being done.
        op: &'static str,
        /// Underlying error.
        cause: std::io::Error,
    },
    /// The first eight bytes are not `KAGEDATA`.
    #[error("{}: not a kage data file (magic {found:02x?}, expected \"KAGEDATA\")", path.display())]
    BadMagic {
        /// File concerned.
        path: PathBuf,
        /// The bytes found instead.
        found: Vec<u8>,
    },
    /// The file was written by a newer kage with a format this build cannot read.
    #[error(
        "{}: format version {found} is newer than the newest this build reads ({supported}); upgrade kage",
        path.display()
    )]
    NewerVersion {
        /// File concerned.
        path: PathBuf,
        /// Version stored in the file.
        found: u16,
        /// Newest version this build reads.
        supported: u16,
    },
    /// The file ends before its end marker (or inside the header).
    #[error("{}: truncated at byte {offset}: {what}", path.display())]
    Truncated {
        /// File concerned.
        path: PathBuf,
        /// Byte offset where data ran out or where the last intact data ends.
        offset: u64,
        /// What was missing.
        what: &'static str,
    },
    /// The header is present but unreadable.
    #[error("{}: corrupt header: {reason}", path.display())]
    BadHeader {
        /// File concerned.
        path: PathBuf,
        /// Why it was rejected.
        reason: String,
    },
    /// The file holds another kind of record than the one asked for.
    #[error("{}: file holds {found} records, expected {expected} records", path.display())]
    WrongKind {
        /// File concerned.
        path: PathBuf,
        /// Kind stored in the file.
        found: RecordKind,
        /// Kind the caller asked for.
        expected: RecordKind,
    },
    /// The file belongs to another variant than the one asked for.
    #[error("{}: file is for variant {found:?}, expected variant {expected:?}", path.display())]
    WrongVariant {
        /// File concerned.
        path: PathBuf,
        /// Variant stored in the file.
        found: String,
        /// Variant the caller asked for.
        expected: String,
    },
    /// A header field is invalid (writer side).
    #[error("invalid header: {0}")]
    InvalidHeader(HeaderProblem),
    /// A record could not be encoded or is too large for a chunk.
    #[error("cannot encode record: {0}")]
    Encode(EncodeProblem),
}

/// What is wrong with a header given to a writer.
#[derive(Debug, thiserror::Error)]
pub enum HeaderProblem {
    /// The variant name is empty, too long or has characters other than `[A-Za-z0-9_-]`.
    #[error("bad variant name {0:?}")]
    VariantName(String),
    /// A text field is longer than a header holds.
    #[error("{field} longer than {max}")]
    FieldTooLong {
        /// The field.
        field: &'static str,
        /// Its limit in bytes.
        max: usize,
    },
    /// More sources than a header records.
    #[error("{count} sources, more than the {max} a header records")]
    TooManySources {
        /// Sources given.
        count: usize,
        /// The limit.
        max: usize,
    },
    /// The header of a file being resumed differs from the one given.
    #[error("{}: header differs from the one given to resume", path.display())]
    ResumeMismatch {
        /// The partial file.
        path: PathBuf,
    },
    /// The header's record kind is not the writer's.
    #[error("header says {header} records but the writer writes {writer} records")]
    KindMismatch {
        /// Kind in the header.
        header: RecordKind,
        /// Kind the writer writes.
        writer: RecordKind,
    },
}

/// Why a record could not be encoded.
#[derive(Debug, thiserror::Error)]
pub enum EncodeProblem {
    /// The encoder failed.
    #[error("{0}")]
    Bincode(bincode::error::EncodeError),
    /// The encoded record is larger than half the chunk limit.
    #[error("record larger than half the chunk limit")]
    TooLarge,
}

impl DataError {
    pub(crate) fn io(path: &std::path::Path, op: &'static str, source: std::io::Error) -> Self {
        DataError::Io { path: path.to_path_buf(), op, cause: source }
    }
}

/// Result alias of this crate.
pub type Result<T, E = DataError> = std::result::Result<T, E>;
