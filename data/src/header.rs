//! The file header: magic, format version and the descriptive fields.
//!
//! On-disk layout (all integers little endian):
//!
//! ```text
//! offset size
//! 0      8     magic "KAGEDATA"
//! 8      2     format version (u16)
//! 10     4     header body length N (u32, at most MAX_HEADER_BODY)
//! 14     4     CRC-32 of the header body
//! 18     N     header body:
//!                u8   record kind (1 = game, 2 = training position)
//!                u64  generator config hash (FNV-1a 64 of the config text)
//!                str  variant name
//!                str  generator config (TOML or JSON text)
//!                str  kage git revision
//!                str  created-by
//!                (format version 2 only:)
//!                u32  number of sources S
//!                S x u128  the sources' identities ([`crate::lineage::FileId`]), ascending
//!              where str = u32 byte length + UTF-8 bytes
//! ```
//!
//! A file made from other files (`kage-data merge`, `shuffle`, `repair`) records the
//! identities of every file it was made from, transitively ([`FileHeader::with_sources`]),
//! so that the same positions are never counted twice ([`crate::lineage`]). Such a file is
//! written as format version 2; a file that records no sources (everything self-play
//! writes) stays version 1, byte for byte what earlier builds wrote.
//!
//! The version comes before the body so that a reader can refuse a newer file
//! without having to understand the rest of its header.

use std::fmt;
use std::io::{Read, Write};
use std::path::Path;

use crate::error::{DataError, HeaderProblem, Result};
use crate::lineage::FileId;
use kage_engine::util::bytes::{ByteError, ByteReader};

/// File magic.
pub const FILE_MAGIC: [u8; 8] = *b"KAGEDATA";
/// Format version of files that record no sources (everything self-play writes).
pub const FORMAT_VERSION: u16 = 1;
/// Format version of files that record their sources ([`FileHeader::with_sources`]).
pub const SOURCES_FORMAT_VERSION: u16 = 2;
/// Newest format version this build reads.
pub const NEWEST_FORMAT_VERSION: u16 = SOURCES_FORMAT_VERSION;
/// Most sources one header records.
pub const MAX_SOURCES: usize = 1 << 18;
/// Upper bound of the header body, to reject garbage lengths.
pub const MAX_HEADER_BODY: u32 = 16 << 20;
/// Size of the fixed header prefix (magic, version, body length, CRC).
pub const HEADER_PREFIX_LEN: usize = 18;

/// The kind of records a file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RecordKind {
    /// [`crate::GameRecord`]s.
    Game = 1,
    /// [`crate::PositionRecord`]s (training positions).
    Position = 2,
}

impl RecordKind {
    fn from_u8(v: u8) -> Option<Self> {
        match v {
            1 => Some(RecordKind::Game),
            2 => Some(RecordKind::Position),
            _ => None,
        }
    }
}

impl fmt::Display for RecordKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RecordKind::Game => "game",
            RecordKind::Position => "training-position",
        })
    }
}

/// FNV-1a 64-bit hash of a generator config text. Stable across builds and
/// platforms, so files from different shards can be compared.
pub fn config_hash(config: &str) -> u64 {
    kage_engine::util::hash::fnv1a64(config.as_bytes())
}

/// Descriptive header of a kage data file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileHeader {
    kind: RecordKind,
    variant: String,
    config: String,
    config_hash: u64,
    git_revision: String,
    created_by: String,
    sources: Vec<FileId>,
}

const MAX_FIELD: usize = 4 << 20;

impl FileHeader {
    /// Builds a validated header; the config hash is computed from `config`.
    ///
    /// `variant` must be a non-empty name of ASCII letters, digits, `-` or `_`.
    pub fn new(
        kind: RecordKind,
        variant: &str,
        config: &str,
        git_revision: &str,
        created_by: &str,
    ) -> Result<Self> {
        if variant.is_empty()
            || variant.len() > 64
            || !variant.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        {
            return Err(DataError::InvalidHeader(HeaderProblem::VariantName(variant.to_owned())));
        }
        for (name, v) in
            [("config", config), ("git revision", git_revision), ("created-by", created_by)]
        {
            if v.len() > MAX_FIELD {
                return Err(DataError::InvalidHeader(HeaderProblem::FieldTooLong {
                    field: name,
                    max: MAX_FIELD,
                }));
            }
        }
        Ok(FileHeader {
            kind,
            variant: variant.to_owned(),
            config: config.to_owned(),
            config_hash: config_hash(config),
            git_revision: git_revision.to_owned(),
            created_by: created_by.to_owned(),
            sources: Vec::new(),
        })
    }

    /// This header recording that the file is made from `sources` (each input's identity
    /// and the sources it records: [`crate::lineage::sources_for`]); kept sorted and
    /// without repeats. An empty list is a plain version 1 header.
    pub fn with_sources(mut self, sources: impl IntoIterator<Item = FileId>) -> Result<Self> {
        let mut s: Vec<FileId> = sources.into_iter().collect();
        s.sort_unstable();
        s.dedup();
        if s.len() > MAX_SOURCES {
            return Err(DataError::InvalidHeader(HeaderProblem::TooManySources {
                count: s.len(),
                max: MAX_SOURCES,
            }));
        }
        self.sources = s;
        Ok(self)
    }

    /// The identities of the files this one was made from (empty for files written
    /// directly, e.g. by self-play).
    pub fn sources(&self) -> &[FileId] {
        &self.sources
    }

    /// The format version this header is written as.
    pub fn format_version(&self) -> u16 {
        if self.sources.is_empty() { FORMAT_VERSION } else { SOURCES_FORMAT_VERSION }
    }

    /// Record kind.
    pub fn kind(&self) -> RecordKind {
        self.kind
    }
    /// Variant name, e.g. `"minishogi"`.
    pub fn variant(&self) -> &str {
        &self.variant
    }
    /// Generator config text.
    pub fn config(&self) -> &str {
        &self.config
    }
    /// Hash of the generator config ([`config_hash`]).
    pub fn config_hash(&self) -> u64 {
        self.config_hash
    }
    /// kage git revision that wrote the file.
    pub fn git_revision(&self) -> &str {
        &self.git_revision
    }
    /// Free-form producer description (tool and version, host, ...).
    pub fn created_by(&self) -> &str {
        &self.created_by
    }

    /// A copy with another record kind (e.g. positions extracted from games).
    pub fn with_kind(&self, kind: RecordKind) -> Self {
        FileHeader { kind, ..self.clone() }
    }

    /// Serialised header, prefix included.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut body = Vec::with_capacity(64 + self.config.len());
        body.push(self.kind as u8);
        body.extend_from_slice(&self.config_hash.to_le_bytes());
        for s in [&self.variant, &self.config, &self.git_revision, &self.created_by] {
            body.extend_from_slice(&(s.len() as u32).to_le_bytes());
            body.extend_from_slice(s.as_bytes());
        }
        if !self.sources.is_empty() {
            body.extend_from_slice(&(self.sources.len() as u32).to_le_bytes());
            for id in &self.sources {
                body.extend_from_slice(&id.0.to_le_bytes());
            }
        }
        let mut out = Vec::with_capacity(HEADER_PREFIX_LEN + body.len());
        out.extend_from_slice(&FILE_MAGIC);
        out.extend_from_slice(&self.format_version().to_le_bytes());
        out.extend_from_slice(&(body.len() as u32).to_le_bytes());
        out.extend_from_slice(&crc32fast::hash(&body).to_le_bytes());
        out.extend_from_slice(&body);
        out
    }

    /// Writes the serialised header.
    pub fn write_to(&self, w: &mut impl Write, path: &Path) -> Result<()> {
        w.write_all(&self.to_bytes()).map_err(|e| DataError::io(path, "write header", e))
    }

    /// Reads and validates a header; returns it and its total length in bytes.
    pub fn read_from(r: &mut impl Read, path: &Path) -> Result<(Self, u64)> {
        let mut prefix = [0u8; HEADER_PREFIX_LEN];
        let got = read_full(r, &mut prefix, path)?;
        if got < FILE_MAGIC.len() {
            if got > 0 && FILE_MAGIC.starts_with(&prefix[..got]) {
                return Err(truncated(path, got as u64, "file ends inside the header"));
            }
            return Err(DataError::BadMagic {
                path: path.to_path_buf(),
                found: prefix[..got].to_vec(),
            });
        }
        if prefix[..8] != FILE_MAGIC {
            return Err(DataError::BadMagic {
                path: path.to_path_buf(),
                found: prefix[..8].to_vec(),
            });
        }
        if got < 10 {
            return Err(truncated(path, got as u64, "file ends inside the header"));
        }
        let version = u16::from_le_bytes([prefix[8], prefix[9]]);
        if version > NEWEST_FORMAT_VERSION {
            return Err(DataError::NewerVersion {
                path: path.to_path_buf(),
                found: version,
                supported: NEWEST_FORMAT_VERSION,
            });
        }
        if version == 0 {
            return Err(bad(path, "format version 0".into()));
        }
        if got < HEADER_PREFIX_LEN {
            return Err(truncated(path, got as u64, "file ends inside the header"));
        }
        let len = u32::from_le_bytes([prefix[10], prefix[11], prefix[12], prefix[13]]);
        let crc = u32::from_le_bytes([prefix[14], prefix[15], prefix[16], prefix[17]]);
        if len > MAX_HEADER_BODY {
            return Err(bad(path, format!("header body length {len} is implausible")));
        }
        // Grown as bytes arrive: a short file claiming a long header allocates no more
        // than it holds.
        let mut body = Vec::new();
        r.take(u64::from(len))
            .read_to_end(&mut body)
            .map_err(|e| DataError::io(path, "read", e))?;
        let got = body.len();
        if got < len as usize {
            return Err(truncated(
                path,
                (HEADER_PREFIX_LEN + got) as u64,
                "file ends inside the header",
            ));
        }
        if crc32fast::hash(&body) != crc {
            return Err(bad(path, "header checksum mismatch".into()));
        }
        let header = parse_body(&body, version).map_err(|reason| bad(path, reason))?;
        Ok((header, (HEADER_PREFIX_LEN + body.len()) as u64))
    }

    /// Reads only the header of the file at `path`.
    pub fn read_file(path: &Path) -> Result<Self> {
        let mut f = std::fs::File::open(path).map_err(|e| DataError::io(path, "open", e))?;
        Ok(Self::read_from(&mut f, path)?.0)
    }
}

fn parse_body(body: &[u8], version: u16) -> std::result::Result<FileHeader, String> {
    let short = |_| "header body too short".to_owned();
    let mut r = ByteReader::new(body);
    let kind_byte = r.u8("record kind").map_err(short)?;
    let kind = RecordKind::from_u8(kind_byte).ok_or(format!("unknown record kind {kind_byte}"))?;
    let stored_hash = r.u64("config hash").map_err(short)?;
    let mut strings = Vec::with_capacity(4);
    for _ in 0..4 {
        let len = r.u32("string length").map_err(short)? as usize;
        let s = r.utf8(len, "header string").map_err(|e| match e {
            ByteError::NotUtf8 { .. } => "header string is not UTF-8".to_owned(),
            ByteError::Truncated { .. } => short(e),
        })?;
        strings.push(s.to_owned());
    }
    let mut sources = Vec::new();
    if version >= SOURCES_FORMAT_VERSION {
        let n = r.u32("source count").map_err(short)? as usize;
        if n == 0 || n > MAX_SOURCES || n.saturating_mul(16) > r.remaining() {
            return Err(format!("implausible source count {n}"));
        }
        sources.reserve_exact(n);
        for _ in 0..n {
            sources.push(FileId(u128::from_le_bytes(r.array("source").map_err(short)?)));
        }
        if sources.windows(2).any(|w| w[0] >= w[1]) {
            return Err("sources not in ascending order".into());
        }
    }
    if r.remaining() != 0 {
        return Err(format!("{} unexpected bytes at the end of the header", r.remaining()));
    }
    let [variant, config, git_revision, created_by] =
        <[String; 4]>::try_from(strings).map_err(|_| "header strings")?;
    let h = FileHeader::new(kind, &variant, &config, &git_revision, &created_by)
        .map_err(|e| e.to_string())?;
    if h.config_hash != stored_hash {
        return Err("stored config hash does not match the config text".into());
    }
    Ok(FileHeader { sources, ..h })
}

fn bad(path: &Path, reason: String) -> DataError {
    DataError::BadHeader { path: path.to_path_buf(), reason }
}

fn truncated(path: &Path, offset: u64, what: &'static str) -> DataError {
    DataError::Truncated { path: path.to_path_buf(), offset, what }
}

/// Reads until `buf` is full or EOF; returns the number of bytes read.
pub(crate) fn read_full(r: &mut impl Read, buf: &mut [u8], path: &Path) -> Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(DataError::io(path, "read", e)),
        }
    }
    Ok(n)
}
