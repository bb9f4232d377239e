//! What a run's data files were when it started (`data.toml` in the run directory), so that
//! `--resume` after the data changed is refused instead of silently training on other data.
//!
//! Each file is known by its size and an FNV-1a 64 hash of its bytes (for files over 64 MiB,
//! of the first and last MiB: the header, and the end marker with the record total).

use crate::error::{TrainError, io_err};
use kage_engine::util::hash::fnv1a64;
use serde::{Deserialize, Serialize};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// File name inside a run directory.
pub const FILE_NAME: &str = "data.toml";
/// Files up to this size are hashed whole.
const WHOLE: u64 = 64 << 20;
/// Otherwise this much of each end is hashed.
const ENDS: u64 = 1 << 20;

/// One data file as it was.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DataFile {
    /// Path as configured.
    pub path: PathBuf,
    /// Size in bytes.
    pub bytes: u64,
    /// Hash of the contents (hex).
    pub hash: String,
}

/// Every training and validation file of a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct DataIdentity {
    /// The files, training files first.
    #[serde(default)]
    pub file: Vec<DataFile>,
}

fn identify(path: &Path) -> Result<DataFile, TrainError> {
    let mut f = std::fs::File::open(path).map_err(io_err(path))?;
    let bytes = f.metadata().map_err(io_err(path))?.len();
    let mut buf = Vec::new();
    if bytes <= WHOLE {
        f.read_to_end(&mut buf).map_err(io_err(path))?;
    } else {
        (&mut f).take(ENDS).read_to_end(&mut buf).map_err(io_err(path))?;
        f.seek(SeekFrom::Start(bytes - ENDS)).map_err(io_err(path))?;
        f.take(ENDS).read_to_end(&mut buf).map_err(io_err(path))?;
    }
    Ok(DataFile { path: path.to_path_buf(), bytes, hash: format!("{:016x}", fnv1a64(&buf)) })
}

impl DataIdentity {
    /// The identity of `files` now.
    pub fn of(files: &[PathBuf]) -> Result<DataIdentity, TrainError> {
        Ok(DataIdentity { file: files.iter().map(|p| identify(p)).collect::<Result<_, _>>()? })
    }

    /// Writes `data.toml` into `dir`.
    pub fn save(&self, dir: &Path) -> Result<(), TrainError> {
        let text = toml::to_string(self)
            .map_err(|e| TrainError::Resume(format!("cannot write {FILE_NAME}: {e}")))?;
        let path = dir.join(FILE_NAME);
        kage_data::atomic::write_atomic(&path, text.as_bytes()).map_err(io_err(&path))
    }

    /// Reads `data.toml` of `dir` (`None` for a run made before it existed).
    pub fn load(dir: &Path) -> Result<Option<DataIdentity>, TrainError> {
        let path = dir.join(FILE_NAME);
        match std::fs::read_to_string(&path) {
            Ok(text) => toml::from_str(&text)
                .map(Some)
                .map_err(|e| TrainError::Resume(format!("{}: {e}", path.display()))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io_err(&path)(e)),
        }
    }

    /// Why `now` is not the data this identity recorded (`None` when it is).
    pub fn differs(&self, now: &DataIdentity) -> Option<String> {
        if self.file.len() != now.file.len() {
            return Some(format!(
                "the run started with {} data file(s), now there are {}",
                self.file.len(),
                now.file.len()
            ));
        }
        self.file.iter().zip(&now.file).find(|(a, b)| a != b).map(|(a, b)| {
            format!(
                "{} changed since the run started ({} bytes, hash {}; now {} bytes, hash {})",
                b.path.display(),
                a.bytes,
                a.hash,
                b.bytes,
                b.hash
            )
        })
    }
}
