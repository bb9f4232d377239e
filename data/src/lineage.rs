//! Where a file's records come from, so that no position is counted twice.
//!
//! Every data file has an identity, [`FileId`]: a 128-bit hash of its header and of its
//! chunk structure (each chunk's header, which holds the CRC-32 of its payload, and the
//! first and last [`SAMPLE`] bytes of the payload). Computing it reads the header and a few
//! hundred bytes per chunk (about 0.05% of a file written with 1 MiB chunks), never the
//! whole file, so a trainer can check multi-GB inputs before it starts. A copy of a file has
//! the same identity; a file with other records has another.
//!
//! A file made from other files (`kage-data merge`, `shuffle`, `repair`) records in its
//! header the identities of its inputs and of everything they were made from
//! ([`sources_for`], [`FileHeader::with_sources`]). [`check_disjoint`] refuses inputs that
//! overlap: the same data twice, a file together with one it was made from, or two files
//! made from a common source.
//!
//! Files written before sources were recorded (format version 1 merges) carry no lineage:
//! a merge made by an older build together with its own shards is not recognised.

use std::collections::HashMap;
use std::fmt;
use std::fs::File;
use std::io::{Seek, SeekFrom};
use std::path::{Path, PathBuf};

use crate::chunk::{CHUNK_HEADER_LEN, ChunkHeader, ChunkType};
use crate::error::{DataError, Result};
use crate::header::{FileHeader, read_full};

/// Bytes of each end of a chunk payload that enter the identity.
pub const SAMPLE: usize = 256;
/// Bytes hashed after the point where a damaged file stops making sense as chunks.
const TAIL_SAMPLE: usize = 4096;

/// The identity of a data file's contents ([module documentation](self)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileId(pub u128);

impl fmt::Display for FileId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:032x}", self.0)
    }
}

/// FNV-1a, 128 bits: stable across builds and platforms.
struct Fnv128(u128);

impl Fnv128 {
    const OFFSET: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
    const PRIME: u128 = 0x0000_0000_0100_0000_0000_0000_0000_013b;

    fn new() -> Self {
        Fnv128(Self::OFFSET)
    }

    fn update(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u128::from(b);
            self.0 = self.0.wrapping_mul(Self::PRIME);
        }
    }
}

fn read_at(f: &mut File, path: &Path, at: u64, buf: &mut [u8]) -> Result<usize> {
    f.seek(SeekFrom::Start(at)).map_err(|e| DataError::io(path, "seek", e))?;
    read_full(f, buf, path)
}

/// The identity of the file at `path` (reads its header and a few bytes per chunk). A
/// file whose chunks stop making sense (damage, truncation) still has an identity: the
/// rest of it enters as its length and its first bytes.
pub fn file_id(path: &Path) -> Result<FileId> {
    let mut f = File::open(path).map_err(|e| DataError::io(path, "open", e))?;
    let len = f.metadata().map_err(|e| DataError::io(path, "stat", e))?.len();
    let (_, header_len) = FileHeader::read_from(&mut std::io::BufReader::new(&mut f), path)?;
    let mut h = Fnv128::new();
    // The header has been read whole once, so it fits in memory (at most 16 MiB).
    let mut head = vec![0u8; header_len as usize];
    read_at(&mut f, path, 0, &mut head)?;
    h.update(&head);
    let mut at = header_len;
    let mut sample = vec![0u8; SAMPLE.max(TAIL_SAMPLE)];
    while at < len {
        let mut hb = [0u8; CHUNK_HEADER_LEN];
        let got = read_at(&mut f, path, at, &mut hb)?;
        let chunk = match ChunkHeader::parse(&hb) {
            Ok(c) if got == CHUNK_HEADER_LEN && len - at - 16 >= u64::from(c.len) => Some(c),
            _ => None,
        };
        let Some(c) = chunk else {
            // Not a chunk: the rest of the file by its length and first bytes.
            h.update(b"tail");
            h.update(&(len - at).to_le_bytes());
            let n = read_at(&mut f, path, at, &mut sample[..TAIL_SAMPLE])?;
            h.update(&sample[..n]);
            break;
        };
        h.update(&hb);
        let start = at + CHUNK_HEADER_LEN as u64;
        let plen = u64::from(c.len);
        let first = plen.min(SAMPLE as u64) as usize;
        let n = read_at(&mut f, path, start, &mut sample[..first])?;
        h.update(&sample[..n]);
        if plen > SAMPLE as u64 {
            let last = (plen - SAMPLE as u64).min(SAMPLE as u64) as usize;
            let n = read_at(&mut f, path, start + plen - last as u64, &mut sample[..last])?;
            h.update(&sample[..n]);
        }
        at = start + plen;
        if c.ty == ChunkType::End {
            h.update(&(len - at).to_le_bytes());
            break;
        }
    }
    Ok(FileId(h.0))
}

/// A file's identity and the identities of the files it was made from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lineage {
    /// The file.
    pub path: PathBuf,
    /// Its identity.
    pub id: FileId,
    /// What its header says it was made from (transitively).
    pub sources: Vec<FileId>,
}

impl Lineage {
    /// The lineage of the file at `path`.
    pub fn of(path: &Path) -> Result<Self> {
        let header = FileHeader::read_file(path)?;
        Ok(Lineage {
            path: path.to_path_buf(),
            id: file_id(path)?,
            sources: header.sources().to_vec(),
        })
    }
}

/// The sources to record in a file made from `inputs`: each input and what it was made
/// from ([`FileHeader::with_sources`]).
pub fn sources_for(inputs: &[Lineage]) -> Vec<FileId> {
    let mut out: Vec<FileId> = inputs
        .iter()
        .flat_map(|l| std::iter::once(l.id).chain(l.sources.iter().copied()))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Why inputs overlap.
#[derive(Debug, thiserror::Error)]
pub enum OverlapError {
    /// An input could not be read.
    #[error(transparent)]
    Data(#[from] DataError),
    /// Two inputs hold the same data (the same file twice, or a copy).
    #[error(
        "{} and {} hold the same data (file {id}): its records would count twice",
        first.display(),
        second.display()
    )]
    Same {
        /// The first input.
        first: PathBuf,
        /// The second input.
        second: PathBuf,
        /// Their identity.
        id: FileId,
    },
    /// One input was made from another.
    #[error(
        "{} was made from {} (its header records it as a source): their records would count \
         twice; give one or the other",
        derived.display(),
        from.display()
    )]
    Derived {
        /// The input made from the other.
        derived: PathBuf,
        /// The input it was made from.
        from: PathBuf,
    },
    /// Two inputs were made from a common file.
    #[error(
        "{} and {} were both made from the same file ({shared}): its records would count twice",
        first.display(),
        second.display()
    )]
    SharedSource {
        /// The first input.
        first: PathBuf,
        /// The second input.
        second: PathBuf,
        /// The common source.
        shared: FileId,
    },
}

/// The lineage of every input, refusing inputs that overlap ([module documentation](self)).
pub fn disjoint_lineages(paths: &[PathBuf]) -> Result<Vec<Lineage>, OverlapError> {
    let lineages = paths.iter().map(|p| Lineage::of(p)).collect::<Result<Vec<_>>>()?;
    // Each identity -> (input, whether it is that input's own identity).
    let mut seen: HashMap<FileId, (usize, bool)> = HashMap::new();
    for (i, l) in lineages.iter().enumerate() {
        let ids = std::iter::once((l.id, true)).chain(l.sources.iter().map(|&s| (s, false)));
        for (id, own) in ids {
            let Some(&(j, other_own)) = seen.get(&id) else {
                seen.insert(id, (i, own));
                continue;
            };
            if j == i {
                continue;
            }
            let (a, b) = (lineages[j].path.clone(), l.path.clone());
            return Err(match (other_own, own) {
                (true, true) => OverlapError::Same { first: a, second: b, id },
                (true, false) => OverlapError::Derived { derived: b, from: a },
                (false, true) => OverlapError::Derived { derived: a, from: b },
                (false, false) => OverlapError::SharedSource { first: a, second: b, shared: id },
            });
        }
    }
    Ok(lineages)
}

/// Refuses inputs that overlap: the same data twice (under any name, or a copy), a file
/// together with one it was made from, or two files made from a common source. Reads each
/// file's header and a few bytes per chunk.
pub fn check_disjoint(paths: &[PathBuf]) -> Result<(), OverlapError> {
    disjoint_lineages(paths).map(|_| ())
}
