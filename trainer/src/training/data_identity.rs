//! What a run's data files were when it started (`data.toml` in the run directory), so that
//! `--resume` after the data changed is refused instead of silently training on other data.
//!
//! Each file is known by its size and an FNV-1a 64 hash of its bytes (for files over 64 MiB,
//! of the first and last MiB: the header, and the end marker with the record total).

use crate::error::{ResumeError, TrainError, io_err};
use kage_engine::util::hash::fnv1a64;
use kage_engine::util::read::{cap, read_text_capped};
use serde::{Deserialize, Serialize};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// File name inside a run directory.
pub const FILE_NAME: &str = "data.toml";
/// Files up to this size are hashed whole.
const WHOLE: u64 = 64 << 20;
/// Otherwise this much of each end is hashed.
const ENDS: u64 = 1 << 20;

/// How a run's data files changed since it started.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DataChange {
    /// Another number of files.
    #[error("the run started with {then} data file(s), now there are {now}")]
    Count {
        /// Files then.
        then: usize,
        /// Files now.
        now: usize,
    },
    /// A file with other contents.
    #[error(
        "{} changed since the run started ({} bytes, hash {}; now {} bytes, hash {})",
        now.path.display(),
        then.bytes,
        then.hash,
        now.bytes,
        now.hash
    )]
    File {
        /// The file then.
        then: DataFile,
        /// The file now.
        now: DataFile,
    },
}

/// Data that would count positions twice: a file given twice (under any name), or two
/// files with the same contents.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{} {} and {} {} {}: {}; give each file once",
    first.0,
    first.1.display(),
    second.0,
    second.1.display(),
    if *same_file { "are the same file" } else { "have the same contents" },
    self.consequence()
)]
pub struct DuplicateData {
    /// The first file's option (`--data` or `--val-data`) and path.
    pub first: (&'static str, PathBuf),
    /// The second file's.
    pub second: (&'static str, PathBuf),
    /// The same file (else: two files with the same contents).
    pub same_file: bool,
}

impl DuplicateData {
    fn consequence(&self) -> &'static str {
        match (self.first.0, self.second.0) {
            ("--data", "--data") => "its positions would be trained on twice",
            ("--data", _) => "validation would run on training positions",
            _ => "its positions would be validated on twice",
        }
    }
}

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
        // At most one byte more than the size says: a device or a pipe (`/dev/zero`) is
        // refused instead of read without end.
        (&mut f).take(bytes + 1).read_to_end(&mut buf).map_err(io_err(path))?;
        if buf.len() as u64 != bytes {
            return Err(TrainError::Io {
                path: path.to_path_buf(),
                cause: std::io::Error::other(format!(
                    "holds other than the {bytes} bytes its size says (not a regular file, \
                     or it changed while being read): not a data file"
                )),
            });
        }
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
        let text = toml::to_string(self).map_err(|cause| TrainError::DataListWrite { cause })?;
        let path = dir.join(FILE_NAME);
        kage_data::atomic::write_atomic(&path, text.as_bytes()).map_err(io_err(&path))
    }

    /// Reads `data.toml` of `dir` (`None` for a run made before it existed).
    pub fn load(dir: &Path) -> Result<Option<DataIdentity>, TrainError> {
        let path = dir.join(FILE_NAME);
        if !path.exists() {
            return Ok(None);
        }
        let text = read_text_capped(&path, cap::TEXT, "run's data list")?;
        toml::from_str(&text)
            .map(Some)
            .map_err(|cause| ResumeError::DataList { path: path.clone(), cause }.into())
    }

    /// Refuses data that would count positions twice: among the first `train` files (the
    /// training files) and the rest (the validation files), one named twice, under any
    /// name, two with the same contents, or files made from one another or from a common
    /// file ([`kage_data::lineage::check_disjoint`]).
    pub fn check_distinct(&self, train: usize) -> Result<(), TrainError> {
        let canon: Vec<PathBuf> = self
            .file
            .iter()
            .map(|f| std::fs::canonicalize(&f.path).unwrap_or_else(|_| f.path.clone()))
            .collect();
        let role = |i: usize| if i < train { "--data" } else { "--val-data" };
        for (j, b) in self.file.iter().enumerate() {
            for (i, a) in self.file.iter().enumerate().take(j) {
                let same_file = canon[i] == canon[j];
                if !same_file && (a.bytes, &a.hash) != (b.bytes, &b.hash) {
                    continue;
                }
                return Err(DuplicateData {
                    first: (role(i), a.path.clone()),
                    second: (role(j), b.path.clone()),
                    same_file,
                }
                .into());
            }
        }
        // FSF .bin data has no header, so no lineage: only the checks above apply to it.
        let paths: Vec<PathBuf> = self
            .file
            .iter()
            .map(|f| f.path.clone())
            .filter(|p| !crate::data::decode::is_fsf_bin(p))
            .collect();
        kage_data::lineage::check_disjoint(&paths).map_err(TrainError::Lineage)
    }

    /// Why `now` is not the data this identity recorded (`None` when it is).
    pub fn differs(&self, now: &DataIdentity) -> Option<DataChange> {
        if self.file.len() != now.file.len() {
            return Some(DataChange::Count { then: self.file.len(), now: now.file.len() });
        }
        self.file
            .iter()
            .zip(&now.file)
            .find(|(a, b)| a != b)
            .map(|(a, b)| DataChange::File { then: a.clone(), now: b.clone() })
    }
}

/// [`DataIdentity::check_distinct`] for training files `train` and validation files `val`.
pub fn check_distinct(train: &[PathBuf], val: &[PathBuf]) -> Result<(), TrainError> {
    let all: Vec<PathBuf> = train.iter().chain(val).cloned().collect();
    DataIdentity::of(&all)?.check_distinct(train.len())
}
