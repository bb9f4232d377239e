//! kage data files: a versioned, chunked, checksummed binary container for
//! self-play games and training positions.
//!
//! # File layout
//!
//! A file is a header ([`header`] module documentation: magic `KAGEDATA`,
//! format version, record kind, variant, generator config and its hash, git
//! revision, created-by) followed by chunks ([`chunk`] module documentation:
//! magic, payload length, record count, CRC-32, payload of bincode-encoded
//! records) and one end marker. Files are written under `<name>.tmp` and
//! renamed when complete ([`Writer`]); self-play writes one complete file per
//! batch ([`PartDir`]) or resumes a `.tmp` file ([`Writer::resume`]).
//!
//! # Reading
//!
//! [`Reader`] streams records one chunk at a time. A damaged chunk (bad magic,
//! length or checksum) is reported as a [`Damage`] (file and byte offset) and
//! skipped; the reader resynchronises on the next chunk magic. Truncated
//! files, foreign files, newer format versions and files of another kind or
//! variant are [`DataError`]s.

#![warn(missing_docs)]

/// Git revision this build was made from (data/build.rs: `KAGE_GIT_REV` when set at build
/// time, else `git rev-parse HEAD` where it was built, else "unknown"); every artefact the
/// binaries write records it.
pub const GIT_REVISION: &str = env!("KAGE_BUILD_GIT_REV");

pub mod atomic;
pub mod chunk;
pub mod compact;
mod convert;
mod error;
pub mod exit;
mod framer;
pub mod fsf_bin;
pub mod game;
pub mod guard;
pub mod header;
pub mod lineage;
pub mod parts;
pub mod pgn;
pub mod position;
mod reader;
mod record;
pub mod stats;
pub mod svg;
pub mod synth;
pub mod variant;
pub mod wdl;
mod writer;

pub use atomic::tmp_path;
pub use compact::{CompactError, CompactPosition, MAX_PIECES, PositionParts};
pub use convert::position_flags;
pub use error::{DataError, EncodeProblem, HeaderProblem, Result};
pub use framer::Damage;
pub use game::{GameRecord, GameResult, Termination};
pub use header::{
    FORMAT_VERSION, FileHeader, NEWEST_FORMAT_VERSION, RecordKind, SOURCES_FORMAT_VERSION,
    config_hash,
};
pub use lineage::{FileId, Lineage, OverlapError, check_disjoint};
pub use parts::{PartDir, part_path};
pub use position::{PositionFlags, PositionRecord, StmResult};
pub use reader::{Reader, decode_chunk, read_all};
pub use record::{BINCODE_CONFIG, DECODE_CONFIG, Record};
pub use writer::{WriteSummary, Writer};
