//! Chunk-level reading with damage detection and resynchronisation.

use std::fs::File;
use std::io::{BufReader, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use crate::chunk::{CHUNK_HEADER_LEN, CHUNK_MAGIC, ChunkHeader, ChunkType, END_MAGIC};
use crate::error::{DataError, Result};
use crate::header::{FileHeader, read_full};

/// A damaged region of a file that the reader skipped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Damage {
    /// File concerned.
    pub path: PathBuf,
    /// Byte offset where the damaged region starts.
    pub offset: u64,
    /// Bytes skipped.
    pub length: u64,
    /// Why the region was rejected.
    pub reason: String,
}

impl std::fmt::Display for Damage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: damaged chunk at byte {} ({} bytes skipped): {}",
            self.path.display(),
            self.offset,
            self.length,
            self.reason
        )
    }
}

enum Attempt {
    /// A valid data chunk; payload filled.
    Data { count: u32 },
    /// A valid end marker.
    End,
    /// Clean end of file exactly here.
    Eof,
    /// The chunk would extend past the end of the file.
    Short,
    /// Not a valid chunk.
    Bad(&'static str),
}

/// Yields the checksum-valid chunk payloads of one file in order.
pub(crate) struct Framer {
    path: PathBuf,
    file: BufReader<File>,
    header: FileHeader,
    /// Offset of the next byte `file` yields.
    offset: u64,
    len: u64,
    done: bool,
    /// Records counted by the valid data chunks so far.
    records: u64,
    /// Whether any damage was reported.
    damaged: bool,
    /// The record total of the end marker, once it has been read.
    declared: Option<u64>,
}

/// One valid data chunk.
pub(crate) struct RawChunk {
    pub offset: u64,
    pub count: u32,
}

impl Framer {
    pub fn open(path: &Path) -> Result<Self> {
        let f = File::open(path).map_err(|e| DataError::io(path, "open", e))?;
        let len = f.metadata().map_err(|e| DataError::io(path, "stat", e))?.len();
        let mut file = BufReader::with_capacity(1 << 20, f);
        let (header, header_len) = FileHeader::read_from(&mut file, path)?;
        Ok(Framer {
            path: path.to_path_buf(),
            file,
            header,
            offset: header_len,
            len,
            done: false,
            records: 0,
            damaged: false,
            declared: None,
        })
    }

    pub fn header(&self) -> &FileHeader {
        &self.header
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The number of records the end marker says were written (once it was read).
    pub fn declared_records(&self) -> Option<u64> {
        self.declared
    }

    /// Next valid data chunk (payload into `payload`), `None` after the end
    /// marker. Damaged regions are passed to `damage` and skipped.
    pub fn next_chunk(
        &mut self,
        payload: &mut Vec<u8>,
        damage: &mut dyn FnMut(Damage),
    ) -> Result<Option<RawChunk>> {
        while !self.done {
            let start = self.offset;
            match self.attempt(payload)? {
                Attempt::Data { count } => {
                    self.records += u64::from(count);
                    return Ok(Some(RawChunk { offset: start, count }));
                }
                Attempt::End => {
                    self.done = true;
                    // The end marker holds the number of records written: a chunk cut out
                    // or copied in (each intact on its own) shows only here.
                    let total = u64::from_le_bytes(payload[..8].try_into().unwrap_or([0; 8]));
                    self.declared = Some(total);
                    if total != self.records && !self.damaged {
                        let what = if total > self.records {
                            "missing: a chunk was cut out"
                        } else {
                            "too many: a chunk was duplicated or inserted"
                        };
                        self.damaged = true;
                        damage(self.damage(
                            start,
                            0,
                            &format!(
                                "the end marker counts {total} records but the chunks hold {} \
                                 ({} {what})",
                                self.records,
                                total.abs_diff(self.records)
                            ),
                        ));
                    }
                    if self.offset < self.len {
                        self.damaged = true;
                        damage(self.damage(
                            self.offset,
                            self.len - self.offset,
                            "bytes after the end marker",
                        ));
                    }
                }
                Attempt::Eof => {
                    self.done = true;
                    return Err(self.truncated(start, "file ends without its end marker"));
                }
                attempt @ (Attempt::Short | Attempt::Bad(_)) => {
                    let reason = match attempt {
                        Attempt::Bad(r) => r,
                        _ => "chunk length runs past the end of the file",
                    };
                    match self.resync(start + 1, payload)? {
                        Some(next) => {
                            self.damaged = true;
                            damage(self.damage(start, next - start, reason));
                            self.seek(next)?;
                        }
                        None => {
                            self.done = true;
                            if matches!(attempt, Attempt::Short) {
                                return Err(self.truncated(start, "file ends inside a chunk"));
                            }
                            self.damaged = true;
                            damage(self.damage(start, self.len - start, reason));
                            return Err(self.truncated(
                                start,
                                "no intact chunk or end marker after damaged data",
                            ));
                        }
                    }
                }
            }
        }
        Ok(None)
    }

    fn damage(&self, offset: u64, length: u64, reason: &str) -> Damage {
        Damage { path: self.path.clone(), offset, length, reason: reason.to_owned() }
    }

    fn truncated(&self, offset: u64, what: &'static str) -> DataError {
        DataError::Truncated { path: self.path.clone(), offset, what }
    }

    fn seek(&mut self, to: u64) -> Result<()> {
        self.file.seek(SeekFrom::Start(to)).map_err(|e| DataError::io(&self.path, "seek", e))?;
        self.offset = to;
        Ok(())
    }

    fn read(&mut self, buf: &mut [u8]) -> Result<usize> {
        let n = read_full(&mut self.file, buf, &self.path)?;
        self.offset += n as u64;
        Ok(n)
    }

    /// Tries to read one chunk at the current offset.
    fn attempt(&mut self, payload: &mut Vec<u8>) -> Result<Attempt> {
        let start = self.offset;
        if start >= self.len {
            return Ok(Attempt::Eof);
        }
        if self.len - start < CHUNK_HEADER_LEN as u64 {
            return Ok(Attempt::Short);
        }
        let mut hb = [0u8; CHUNK_HEADER_LEN];
        self.read(&mut hb)?;
        let h = match ChunkHeader::parse(&hb) {
            Ok(h) => h,
            Err(reason) => return Ok(Attempt::Bad(reason)),
        };
        if self.len - self.offset < u64::from(h.len) {
            return Ok(Attempt::Short);
        }
        payload.resize(h.len as usize, 0);
        if self.read(payload)? < payload.len() {
            return Ok(Attempt::Short);
        }
        if !h.check(payload) {
            return Ok(Attempt::Bad("checksum mismatch"));
        }
        Ok(match h.ty {
            ChunkType::Data => Attempt::Data { count: h.count },
            ChunkType::End => Attempt::End,
        })
    }

    /// Finds the first offset `>= from` holding a valid chunk or end marker.
    fn resync(&mut self, from: u64, payload: &mut Vec<u8>) -> Result<Option<u64>> {
        const BLOCK: usize = 1 << 16;
        let mut block = vec![0u8; BLOCK + 3];
        let mut pos = from;
        while pos + CHUNK_HEADER_LEN as u64 <= self.len {
            self.seek(pos)?;
            let n = self.read(&mut block)?;
            if n < 4 {
                break;
            }
            let mut found = None;
            for i in 0..n - 3 {
                let w = &block[i..i + 4];
                if w == CHUNK_MAGIC || w == END_MAGIC {
                    let cand = pos + i as u64;
                    self.seek(cand)?;
                    if matches!(self.attempt(payload)?, Attempt::Data { .. } | Attempt::End) {
                        found = Some(cand);
                        break;
                    }
                }
            }
            if found.is_some() {
                return Ok(found);
            }
            pos += (n - 3) as u64;
        }
        Ok(None)
    }
}
