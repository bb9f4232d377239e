//! Part files: the append/resume story for self-play.
//!
//! A long self-play run writes each finished batch of games as its own small,
//! complete file `<dir>/part-NNNNNN.kdata` (six or more digits), each written
//! atomically through [`crate::Writer`]. After a crash, every `part-*.kdata`
//! present is complete (a half-written batch only exists as `*.tmp`, which
//! [`PartDir::open`] deletes), so the run resumes at
//! [`PartDir::next_index`] and at the game index after the last record of the
//! previous parts. Readers and `kage-data merge` take the parts in index order.
//!
//! For a single long file, [`crate::Writer::resume`] is the alternative: it
//! reopens `<name>.tmp` and truncates it after its last complete chunk.

use std::path::{Path, PathBuf};

use crate::error::{DataError, Result};
use crate::header::FileHeader;
use crate::record::Record;
use crate::writer::{WriteSummary, Writer};

/// File extension of kage data files.
pub const EXTENSION: &str = "kdata";

/// A directory of numbered part files.
#[derive(Debug)]
pub struct PartDir {
    dir: PathBuf,
    parts: Vec<(u64, PathBuf)>,
}

/// Path of part `index` in `dir`.
pub fn part_path(dir: &Path, index: u64) -> PathBuf {
    dir.join(format!("part-{index:06}.{EXTENSION}"))
}

fn parse_part_name(name: &str) -> Option<u64> {
    let digits = name.strip_prefix("part-")?.strip_suffix(".kdata")?;
    if digits.len() < 6 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

impl PartDir {
    /// Opens (creating if needed) a part directory, deletes leftover
    /// `part-*.kdata.tmp` files of an interrupted batch and lists the parts.
    pub fn open(dir: impl AsRef<Path>) -> Result<Self> {
        let dir = dir.as_ref().to_path_buf();
        std::fs::create_dir_all(&dir).map_err(|e| DataError::io(&dir, "create directory", e))?;
        let mut parts = Vec::new();
        let entries = std::fs::read_dir(&dir).map_err(|e| DataError::io(&dir, "list", e))?;
        for entry in entries {
            let entry = entry.map_err(|e| DataError::io(&dir, "list", e))?;
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            if let Some(stem) = name.strip_suffix(".tmp")
                && parse_part_name(stem).is_some()
            {
                let p = entry.path();
                std::fs::remove_file(&p).map_err(|e| DataError::io(&p, "remove stale", e))?;
            } else if let Some(i) = parse_part_name(name) {
                parts.push((i, entry.path()));
            }
        }
        parts.sort();
        Ok(PartDir { dir, parts })
    }

    /// The complete parts, in index order.
    pub fn parts(&self) -> &[(u64, PathBuf)] {
        &self.parts
    }

    /// Paths of the complete parts, in index order.
    pub fn paths(&self) -> Vec<PathBuf> {
        self.parts.iter().map(|(_, p)| p.clone()).collect()
    }

    /// Index the next part should get (one after the highest present).
    pub fn next_index(&self) -> u64 {
        self.parts.last().map_or(0, |(i, _)| i + 1)
    }

    /// Atomically writes `records` as part [`PartDir::next_index`].
    pub fn write_part<R: Record>(
        &mut self,
        header: &FileHeader,
        records: &[R],
    ) -> Result<WriteSummary> {
        let index = self.next_index();
        let path = part_path(&self.dir, index);
        let mut w = Writer::<R>::create(&path, header.clone())?;
        w.write_all(records)?;
        let summary = w.finish()?;
        self.parts.push((index, path));
        Ok(summary)
    }
}
