//! Streaming record reader.

use std::marker::PhantomData;
use std::path::Path;

use crate::error::{DataError, Result};
use crate::framer::{Damage, Framer};
use crate::header::FileHeader;
use crate::record::{DECODE_CONFIG, Record};

type DamageCallback = Box<dyn FnMut(&Damage) + Send>;

/// Streams the records of one file, one chunk in memory at a time.
///
/// Damaged chunks are skipped; each is recorded in [`Reader::damage`] and
/// passed to the callback set with [`Reader::on_damage`]. Fatal problems
/// (truncation, I/O errors) come out of the iterator as an `Err`, after which
/// it yields nothing more. Records before the problem have been delivered.
pub struct Reader<R: Record> {
    framer: Framer,
    payload: Vec<u8>,
    current: std::vec::IntoIter<R>,
    damage: Vec<Damage>,
    callback: Option<DamageCallback>,
    records_read: u64,
    failed: bool,
    _record: PhantomData<fn() -> R>,
}

impl<R: Record> Reader<R> {
    /// Opens a file of `R` records of any variant.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let framer = Framer::open(path)?;
        let found = framer.header().kind();
        if found != R::KIND {
            return Err(DataError::WrongKind {
                path: path.to_path_buf(),
                found,
                expected: R::KIND,
            });
        }
        Ok(Reader {
            framer,
            payload: Vec::new(),
            current: Vec::new().into_iter(),
            damage: Vec::new(),
            callback: None,
            records_read: 0,
            failed: false,
            _record: PhantomData,
        })
    }

    /// Opens a file of `R` records and requires it to be of `variant`.
    pub fn open_variant(path: impl AsRef<Path>, variant: &str) -> Result<Self> {
        let r = Self::open(path.as_ref())?;
        if r.header().variant() != variant {
            return Err(DataError::WrongVariant {
                path: path.as_ref().to_path_buf(),
                found: r.header().variant().to_owned(),
                expected: variant.to_owned(),
            });
        }
        Ok(r)
    }

    /// Calls `f` for every damaged region as it is found (in addition to
    /// collecting it in [`Reader::damage`]).
    pub fn on_damage(mut self, f: impl FnMut(&Damage) + Send + 'static) -> Self {
        self.callback = Some(Box::new(f));
        self
    }

    /// The file header.
    pub fn header(&self) -> &FileHeader {
        self.framer.header()
    }

    /// The file path.
    pub fn path(&self) -> &Path {
        self.framer.path()
    }

    /// Damaged regions found so far.
    pub fn damage(&self) -> &[Damage] {
        &self.damage
    }

    /// The number of records the file's end marker says were written, once the reader has
    /// reached it (`None` before, or when the end marker is missing or damaged).
    pub fn declared_records(&self) -> Option<u64> {
        self.framer.declared_records()
    }

    /// Bytes of the file skipped as damaged so far.
    pub fn damaged_bytes(&self) -> u64 {
        self.damage.iter().map(|d| d.length).sum()
    }

    /// Records delivered so far.
    pub fn records_read(&self) -> u64 {
        self.records_read
    }

    /// Decodes the next intact chunk and returns all its records, or `None`
    /// at the end of the file. Faster than per-record iteration for bulk use.
    pub fn next_chunk(&mut self) -> Result<Option<Vec<R>>> {
        let rest: Vec<R> = std::mem::take(&mut self.current).collect();
        if !rest.is_empty() {
            self.records_read += rest.len() as u64;
            return Ok(Some(rest));
        }
        if self.failed {
            return Ok(None);
        }
        loop {
            let (damage, callback) = (&mut self.damage, &mut self.callback);
            let mut report = |d: Damage| {
                if let Some(cb) = callback.as_mut() {
                    cb(&d);
                }
                damage.push(d);
            };
            let chunk = match self.framer.next_chunk(&mut self.payload, &mut report) {
                Ok(Some(c)) => c,
                Ok(None) => return Ok(None),
                Err(e) => {
                    self.failed = true;
                    return Err(e);
                }
            };
            match decode_chunk::<R>(&self.payload, chunk.count) {
                Ok(records) => {
                    self.records_read += records.len() as u64;
                    return Ok(Some(records));
                }
                Err(reason) => report(Damage {
                    path: self.framer.path().to_path_buf(),
                    offset: chunk.offset,
                    length: (crate::chunk::CHUNK_HEADER_LEN + self.payload.len()) as u64,
                    reason: format!("checksum valid but records do not decode: {reason}"),
                }),
            }
        }
    }
}

impl<R: Record> Iterator for Reader<R> {
    type Item = Result<R>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(r) = self.current.next() {
            self.records_read += 1;
            return Some(Ok(r));
        }
        match self.next_chunk() {
            Ok(Some(records)) => {
                // next_chunk counted them already; count per delivery instead.
                self.records_read -= records.len() as u64;
                self.current = records.into_iter();
                let r = self.current.next()?;
                self.records_read += 1;
                Some(Ok(r))
            }
            Ok(None) => None,
            Err(e) => Some(Err(e)),
        }
    }
}

/// The records of one chunk payload. Nothing in it is trusted: the record count only
/// reserves what the payload could hold, and lengths inside records are decoded with a
/// limit ([`DECODE_CONFIG`]) and without reserving memory for them up front, so a hostile
/// record is an error (reported as damage), never an abort.
pub fn decode_chunk<R: Record>(payload: &[u8], count: u32) -> std::result::Result<Vec<R>, String> {
    let fit = payload.len() / R::MIN_ENCODED_LEN.max(1);
    let mut out = Vec::with_capacity((count as usize).min(fit).min(1 << 16));
    let mut pos = 0;
    for i in 0..count {
        let (r, used) = bincode::decode_from_slice::<R, _>(&payload[pos..], DECODE_CONFIG)
            .map_err(|e| format!("record {i}: {e}"))?;
        pos += used;
        out.push(r);
    }
    if pos != payload.len() {
        return Err(format!("{} stray bytes after {count} records", payload.len() - pos));
    }
    Ok(out)
}

/// Reads a whole (small) file: header, records and damage found.
pub fn read_all<R: Record>(path: impl AsRef<Path>) -> Result<(FileHeader, Vec<R>, Vec<Damage>)> {
    let mut reader = Reader::<R>::open(path)?;
    let mut records = Vec::new();
    while let Some(chunk) = reader.next_chunk()? {
        records.extend(chunk);
    }
    Ok((reader.header().clone(), records, reader.damage))
}
