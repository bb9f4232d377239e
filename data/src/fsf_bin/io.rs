//! Streaming `.bin` files: a reader that reports a short trailing record and a record that
//! does not convert by its index, and an atomic writer.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use super::{Converter, FsfRecord, RECORD_BYTES, RecordError};
use crate::atomic::{persist, tmp_path};
use crate::position::PositionRecord;

/// Why a `.bin` file cannot be read or written.
#[derive(Debug, thiserror::Error)]
pub enum BinError {
    /// An operating-system I/O failure.
    #[error("{}: {op}: {cause}", path.display())]
    Io {
        /// File concerned.
        path: PathBuf,
        /// What was being done.
        op: &'static str,
        /// Underlying error.
        cause: std::io::Error,
    },
    /// The file ends inside a record.
    #[error(
        "{}: truncated: record {index} has {bytes} of its {RECORD_BYTES} bytes \
         ({index} whole records before it)",
        path.display()
    )]
    Truncated {
        /// File concerned.
        path: PathBuf,
        /// Index of the partial record.
        index: u64,
        /// Bytes of it present.
        bytes: usize,
    },
    /// A record that does not decode or convert.
    #[error("{}: record {index} (byte {}): {reason}", path.display(), index * RECORD_BYTES as u64)]
    Record {
        /// File concerned.
        path: PathBuf,
        /// Record index.
        index: u64,
        /// Why.
        reason: RecordError,
    },
}

/// Reads records one at a time from a `.bin` stream.
pub struct BinReader<R: Read> {
    inner: R,
    path: PathBuf,
    index: u64,
}

impl BinReader<BufReader<File>> {
    /// Opens a `.bin` file.
    pub fn open(path: &Path) -> Result<Self, BinError> {
        let f = File::open(path).map_err(|cause| io(path, "open", cause))?;
        Ok(BinReader::new(BufReader::with_capacity(1 << 16, f), path))
    }
}

impl<R: Read> BinReader<R> {
    /// A reader of `inner`, named `path` in errors.
    pub fn new(inner: R, path: &Path) -> Self {
        BinReader { inner, path: path.to_path_buf(), index: 0 }
    }

    /// Records read so far (the index of the next one).
    pub fn records_read(&self) -> u64 {
        self.index
    }

    /// The file's name in messages.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The next record; `None` at the end; [`BinError::Truncated`] when the stream ends
    /// inside a record.
    pub fn next_record(&mut self) -> Result<Option<FsfRecord>, BinError> {
        let mut buf = [0u8; RECORD_BYTES];
        let mut filled = 0;
        while filled < RECORD_BYTES {
            match self.inner.read(&mut buf[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(cause) => return Err(io(&self.path, "read", cause)),
            }
        }
        match filled {
            0 => Ok(None),
            RECORD_BYTES => {
                self.index += 1;
                Ok(Some(FsfRecord::from_bytes(&buf)))
            }
            bytes => Err(BinError::Truncated { path: self.path.clone(), index: self.index, bytes }),
        }
    }

    /// Appends up to `max` records to `out`; returns how many (0 at the end).
    pub fn read_many(&mut self, max: usize, out: &mut Vec<FsfRecord>) -> Result<usize, BinError> {
        for n in 0..max {
            match self.next_record()? {
                Some(r) => out.push(r),
                None => return Ok(n),
            }
        }
        Ok(max)
    }

    /// The error of the record at `index` that did not convert.
    pub fn record_error(&self, index: u64, reason: RecordError) -> BinError {
        BinError::Record { path: self.path.clone(), index, reason }
    }
}

/// Writes a `.bin` file under `<name>.tmp`, renamed when [`BinWriter::finish`]ed.
pub struct BinWriter {
    out: BufWriter<File>,
    path: PathBuf,
    tmp: PathBuf,
    records: u64,
}

impl BinWriter {
    /// Starts writing `path` (under its temporary name).
    pub fn create(path: &Path) -> Result<Self, BinError> {
        let tmp = tmp_path(path);
        let f = File::create(&tmp).map_err(|cause| io(&tmp, "create", cause))?;
        Ok(BinWriter {
            out: BufWriter::with_capacity(1 << 16, f),
            path: path.to_path_buf(),
            tmp,
            records: 0,
        })
    }

    /// Appends a record.
    pub fn write(&mut self, rec: &FsfRecord) -> Result<(), BinError> {
        self.out.write_all(&rec.to_bytes()).map_err(|cause| io(&self.tmp, "write", cause))?;
        self.records += 1;
        Ok(())
    }

    /// Records written.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// Flushes, syncs and renames the file into place; returns the record count.
    pub fn finish(self) -> Result<u64, BinError> {
        let BinWriter { out, path, tmp, records } = self;
        out.into_inner()
            .map_err(|e| io(&tmp, "flush", e.into_error()))?
            .sync_all()
            .map_err(|cause| io(&tmp, "sync", cause))?;
        persist(&tmp, &path).map_err(|cause| io(&path, "rename", cause))?;
        Ok(records)
    }
}

/// Every record of a `.bin` file as kage records of `conv`'s variant (for tests and small
/// files; large files stream through [`BinReader`]).
pub fn read_bin_file(path: &Path, conv: &Converter) -> Result<Vec<PositionRecord>, BinError> {
    let mut r = BinReader::open(path)?;
    let mut out = Vec::new();
    while let Some(rec) = r.next_record()? {
        let index = r.records_read() - 1;
        out.push(conv.from_fsf(&rec).map_err(|e| r.record_error(index, e))?);
    }
    Ok(out)
}

fn io(path: &Path, op: &'static str, cause: std::io::Error) -> BinError {
    BinError::Io { path: path.to_path_buf(), op, cause }
}
