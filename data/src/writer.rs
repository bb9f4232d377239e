//! Writing data files: temporary name, chunking, atomic rename.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use crate::atomic::tmp_path;
use crate::chunk::{
    CHUNK_HEADER_LEN, CHUNK_MAGIC, ChunkHeader, ChunkType, DEFAULT_CHUNK_TARGET, END_MAGIC,
    MAX_CHUNK_PAYLOAD, encode_header,
};
use crate::error::{DataError, EncodeProblem, HeaderProblem, Result};
use crate::header::{FileHeader, read_full};
use crate::reader::Reader;
use crate::record::{BINCODE_CONFIG, Record};

/// What a finished file holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WriteSummary {
    /// Final path.
    pub path: PathBuf,
    /// Records written.
    pub records: u64,
    /// File size in bytes.
    pub bytes: u64,
}

/// Streams records into a new file.
///
/// The data goes to `<path>.tmp`; [`Writer::finish`] writes the end marker,
/// syncs and renames it to `path`, so `path` only ever exists complete. A
/// writer dropped without `finish` leaves the `.tmp` file behind, which
/// [`Writer::resume`] can reopen.
pub struct Writer<R: Record> {
    path: PathBuf,
    tmp: PathBuf,
    out: BufWriter<File>,
    header: FileHeader,
    payload: Vec<u8>,
    count: u32,
    chunk_target: usize,
    records: u64,
    bytes: u64,
    _record: PhantomData<fn(&R)>,
}

impl<R: Record> Writer<R> {
    /// Creates `<path>.tmp` (replacing a stale one) and writes the header.
    pub fn create(path: impl AsRef<Path>, header: FileHeader) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        check_kind::<R>(&header)?;
        let tmp = tmp_path(&path);
        let file = File::create(&tmp).map_err(|e| DataError::io(&tmp, "create", e))?;
        let mut out = BufWriter::with_capacity(1 << 20, file);
        let bytes = header.to_bytes();
        out.write_all(&bytes).map_err(|e| DataError::io(&tmp, "write header", e))?;
        Ok(Self::from_parts(path, tmp, out, header, bytes.len() as u64, 0))
    }

    /// Reopens the `.tmp` file of an interrupted writer for `path`, truncates
    /// it after its last complete chunk and returns a writer that appends to
    /// it, together with the number of records already in it.
    ///
    /// The caller must pass the same header it created the file with (a
    /// different one is refused), and should skip the records already written
    /// (e.g. resume at game index `start + records`).
    pub fn resume(path: impl AsRef<Path>, header: FileHeader) -> Result<(Self, u64)> {
        let path = path.as_ref().to_path_buf();
        check_kind::<R>(&header)?;
        let tmp = tmp_path(&path);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(&tmp)
            .map_err(|e| DataError::io(&tmp, "open for resume", e))?;
        let (found, header_len) = {
            let mut r = std::io::BufReader::new(&mut file);
            FileHeader::read_from(&mut r, &tmp)?
        };
        if found != header {
            return Err(DataError::InvalidHeader(HeaderProblem::ResumeMismatch {
                path: tmp.clone(),
            }));
        }
        let (end, records) = last_complete_chunk(&mut file, &tmp, header_len)?;
        file.set_len(end).map_err(|e| DataError::io(&tmp, "truncate", e))?;
        file.seek(SeekFrom::Start(end)).map_err(|e| DataError::io(&tmp, "seek", e))?;
        let out = BufWriter::with_capacity(1 << 20, file);
        Ok((Self::from_parts(path, tmp, out, header, end, records), records))
    }

    fn from_parts(
        path: PathBuf,
        tmp: PathBuf,
        out: BufWriter<File>,
        header: FileHeader,
        bytes: u64,
        records: u64,
    ) -> Self {
        Writer {
            path,
            tmp,
            out,
            header,
            payload: Vec::with_capacity(DEFAULT_CHUNK_TARGET + 4096),
            count: 0,
            chunk_target: DEFAULT_CHUNK_TARGET,
            records,
            bytes,
            _record: PhantomData,
        }
    }

    /// Sets the payload size at which a chunk is closed (default 1 MiB).
    /// Smaller chunks lose less on damage; larger ones are a little faster.
    pub fn set_chunk_target(&mut self, bytes: usize) {
        self.chunk_target = bytes.clamp(1, MAX_CHUNK_PAYLOAD as usize / 2);
    }

    /// The header being written.
    pub fn header(&self) -> &FileHeader {
        &self.header
    }

    /// Records written so far (including ones still buffered).
    pub fn records(&self) -> u64 {
        self.records
    }

    /// Appends one record.
    pub fn write(&mut self, record: &R) -> Result<()> {
        let before = self.payload.len();
        if let Err(e) = bincode::encode_into_std_write(record, &mut self.payload, BINCODE_CONFIG) {
            self.payload.truncate(before);
            return Err(DataError::Encode(EncodeProblem::Bincode(e)));
        }
        if self.payload.len() - before > MAX_CHUNK_PAYLOAD as usize / 2 {
            self.payload.truncate(before);
            return Err(DataError::Encode(EncodeProblem::TooLarge));
        }
        if self.payload.len() > MAX_CHUNK_PAYLOAD as usize {
            // Does not fit next to the buffered records: close the chunk first.
            let rec = self.payload.split_off(before);
            self.flush_chunk()?;
            self.payload = rec;
        }
        self.count += 1;
        self.records += 1;
        if self.payload.len() >= self.chunk_target {
            self.flush_chunk()?;
        }
        Ok(())
    }

    /// Writes every record of an iterator.
    pub fn write_all<'a>(&mut self, records: impl IntoIterator<Item = &'a R>) -> Result<()> {
        for r in records {
            self.write(r)?;
        }
        Ok(())
    }

    /// Closes the current chunk (if any) and pushes it to the operating
    /// system, so that a crash after this call loses nothing before it
    /// (see [`Writer::resume`]).
    pub fn flush_chunk(&mut self) -> Result<()> {
        if self.count > 0 {
            let head = encode_header(CHUNK_MAGIC, self.count, &self.payload);
            self.put(&head)?;
            let payload = std::mem::take(&mut self.payload);
            let res = self.put(&payload);
            self.payload = payload;
            res?;
            self.payload.clear();
            self.count = 0;
        }
        self.out.flush().map_err(|e| DataError::io(&self.tmp, "flush", e))
    }

    fn put(&mut self, bytes: &[u8]) -> Result<()> {
        self.out.write_all(bytes).map_err(|e| DataError::io(&self.tmp, "write", e))?;
        self.bytes += bytes.len() as u64;
        Ok(())
    }

    /// Appends every record `reader` yields, chunk by chunk, each after `each` has accepted
    /// it (an error from `each` stops the copy); returns the records appended. How to treat
    /// damaged chunks is the reader's business ([`Reader::on_damage`], [`Reader::damage`]).
    /// Merging files, or the parts of a run, is this in a loop.
    pub fn append_from<E: From<DataError>>(
        &mut self,
        reader: &mut Reader<R>,
        mut each: impl FnMut(&R) -> std::result::Result<(), E>,
    ) -> std::result::Result<u64, E> {
        let mut n = 0;
        while let Some(chunk) = reader.next_chunk()? {
            for rec in &chunk {
                each(rec)?;
            }
            self.write_all(&chunk)?;
            n += chunk.len() as u64;
        }
        Ok(n)
    }

    /// Writes the end marker, syncs the data and renames `<path>.tmp` to `path`.
    pub fn finish(mut self) -> Result<WriteSummary> {
        self.flush_chunk()?;
        let total = self.records.to_le_bytes();
        let head = encode_header(END_MAGIC, 0, &total);
        self.put(&head)?;
        self.put(&total)?;
        self.out.flush().map_err(|e| DataError::io(&self.tmp, "flush", e))?;
        drop(self.out);
        crate::atomic::persist(&self.tmp, &self.path)
            .map_err(|e| DataError::io(&self.path, "rename", e))?;
        Ok(WriteSummary { path: self.path.clone(), records: self.records, bytes: self.bytes })
    }
}

fn check_kind<R: Record>(header: &FileHeader) -> Result<()> {
    if header.kind() != R::KIND {
        return Err(DataError::InvalidHeader(HeaderProblem::KindMismatch {
            header: header.kind(),
            writer: R::KIND,
        }));
    }
    Ok(())
}

/// Walks the chunks of a partially written file from `start`; returns the
/// offset just after the last complete, checksum-valid data chunk and the
/// number of records up to there. Stops at the first damage or an end marker.
fn last_complete_chunk(file: &mut File, path: &Path, start: u64) -> Result<(u64, u64)> {
    file.seek(SeekFrom::Start(start)).map_err(|e| DataError::io(path, "seek", e))?;
    let mut r = std::io::BufReader::with_capacity(1 << 20, &mut *file);
    let mut end = start;
    let mut records = 0u64;
    let mut payload = Vec::new();
    loop {
        let mut hb = [0u8; CHUNK_HEADER_LEN];
        if read_full(&mut r, &mut hb, path)? < CHUNK_HEADER_LEN {
            break;
        }
        let Ok(h) = ChunkHeader::parse(&hb) else { break };
        if h.ty == ChunkType::End {
            break;
        }
        payload.resize(h.len as usize, 0);
        if read_full(&mut r, &mut payload, path)? < payload.len() || !h.check(&payload) {
            break;
        }
        end += (CHUNK_HEADER_LEN + payload.len()) as u64;
        records += u64::from(h.count);
    }
    Ok((end, records))
}
