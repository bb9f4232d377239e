//! Typed errors for loading and building quantised networks.

use thiserror::Error;

/// Why a network file was rejected.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum NetError {
    /// The file does not start with the kage NNUE magic bytes.
    #[error("not a kage NNUE network (bad magic bytes {found:02x?})")]
    BadMagic {
        /// The first bytes of the file (at most 8).
        found: Vec<u8>,
    },
    /// The file was written in a format version this build cannot read.
    #[error("unsupported NNUE format version {found} (this build reads version {supported})")]
    UnsupportedVersion {
        /// Version found in the file.
        found: u32,
        /// Version this build reads.
        supported: u32,
    },
    /// The file ends before a section it declares.
    #[error("NNUE file truncated: {section} needs {needed} bytes but only {available} remain")]
    Truncated {
        /// The section being read.
        section: &'static str,
        /// Bytes needed.
        needed: u64,
        /// Bytes available.
        available: u64,
    },
    /// The body does not hash to the checksum in the header.
    #[error(
        "NNUE checksum mismatch: header says {expected:#018x}, body hashes to {actual:#018x} (file corrupt)"
    )]
    ChecksumMismatch {
        /// Checksum stored in the header.
        expected: u64,
        /// Checksum of the body as read.
        actual: u64,
    },
    /// The body passed its checksum but is structurally invalid.
    #[error("corrupt NNUE file: {0}")]
    Corrupt(String),
    /// The network was trained for another variant.
    #[error("network was trained for variant '{found}', but '{expected}' was requested")]
    WrongVariant {
        /// Variant requested by the caller.
        expected: String,
        /// Variant recorded in the file.
        found: String,
    },
    /// The network uses another feature encoding.
    #[error(
        "network uses feature set {found_id:#x} with {found_features} features, but this engine uses feature set {expected_id:#x} with {expected_features} features"
    )]
    WrongFeatureSet {
        /// Feature-set id of the engine.
        expected_id: u32,
        /// Feature count of the engine for this variant.
        expected_features: u32,
        /// Feature-set id recorded in the file.
        found_id: u32,
        /// Feature count recorded in the file.
        found_features: u32,
    },
    /// The file could not be read, or is larger than the format allows.
    #[error("{0}")]
    Io(String),
    /// Parts handed to [`crate::nnue::Network::from_parts`] are inconsistent.
    #[error("invalid network parts: {0}")]
    Invalid(String),
    /// A Fairy-Stockfish-format net that cannot be used (see [`crate::nnue::fsf`]).
    #[error("{0}")]
    Fsf(#[from] crate::nnue::fsf::FsfError),
}

impl From<crate::util::bytes::ByteError> for NetError {
    fn from(e: crate::util::bytes::ByteError) -> Self {
        use crate::util::bytes::ByteError;
        match e {
            ByteError::Truncated { section, needed, available } => {
                NetError::Truncated { section, needed, available }
            }
            ByteError::NotUtf8 { section } => {
                NetError::Corrupt(format!("{section} is not valid UTF-8"))
            }
        }
    }
}
