//! `lineage.toml`: what a step directory's outputs, or a shipped net, were made from: the
//! step (id, name, kind, seed), its inputs by content hash, its full configuration and the
//! git revision of the binaries that ran it. One in every step directory
//! ([`Lineage::path_in`]) and one beside every shipped net ([`Lineage::path_beside`]).
//! Written by temp file + rename, so a reader sees a whole file or none.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::id::ContentId;
use super::plan::{Step, StepConfig, StepKind};

/// The `format` of the lineage files this code writes.
pub const LINEAGE_FORMAT: u32 = 1;

/// One input or output of a step: a file, by content hash, and the step that made it (none
/// for a file from outside the plan).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineageFile {
    /// What the file is to the step: an input's role (`data`, `init`, `candidate`,
    /// `opponent`, `player`, `shard`) or an output's kind (`positions`, `games`, `net`).
    pub role: String,
    /// The file, as the step read it.
    pub path: PathBuf,
    /// SHA-256 of its content.
    pub sha256: ContentId,
    /// The step that wrote it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<ContentId>,
}

/// A `lineage.toml`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Lineage {
    /// [`LINEAGE_FORMAT`] when written.
    pub format: u32,
    /// The step's content id.
    pub step: ContentId,
    /// Its name in the plan.
    pub name: String,
    /// Its kind.
    pub kind: StepKind,
    /// Its seed.
    pub seed: u64,
    /// The git revision of the binaries that ran it.
    pub git_revision: String,
    /// Its inputs.
    #[serde(default)]
    pub inputs: Vec<LineageFile>,
    /// Its outputs.
    #[serde(default)]
    pub outputs: Vec<LineageFile>,
    /// The whole recipe's text: in the lineage beside an installed net, so that
    /// `pipeline reproduce` can run it again from nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recipe: Option<String>,
    /// Its full configuration.
    pub config: StepConfig,
}

/// Why a file of a pipeline run (a lineage file, a recipe, an outcome, ...) could not be
/// written or read.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// Reading or writing failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// Not what the file should be.
    #[error("{path}: {message}")]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

impl Lineage {
    /// The lineage of `step`, run by binaries of revision `git_revision` on `inputs`.
    pub fn of_step(step: &Step, git_revision: &str, inputs: Vec<LineageFile>) -> Lineage {
        Lineage {
            format: LINEAGE_FORMAT,
            step: step.id,
            name: step.name.clone(),
            kind: step.kind(),
            seed: step.seed,
            git_revision: git_revision.into(),
            inputs,
            outputs: Vec::new(),
            recipe: None,
            config: step.config.clone(),
        }
    }

    /// `<dir>/lineage.toml`: a step directory's lineage.
    pub fn path_in(dir: &Path) -> PathBuf {
        dir.join("lineage.toml")
    }

    /// `<net without its extension>.lineage.toml`: a shipped net's lineage
    /// (`engine/nets/minishogi.nnue` -> `engine/nets/minishogi.lineage.toml`).
    pub fn path_beside(net: &Path) -> PathBuf {
        net.with_extension("lineage.toml")
    }

    /// The TOML text.
    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("a lineage serializes to TOML")
    }

    /// Parses TOML text (`path` only names the file in errors).
    pub fn from_toml(text: &str, path: &Path) -> Result<Lineage, FileError> {
        let bad = |message: String| FileError::Format { path: path.into(), message };
        let l: Lineage = toml::from_str(text).map_err(|e| bad(e.to_string()))?;
        if l.format != LINEAGE_FORMAT {
            return Err(bad(format!("format {} (this build reads {LINEAGE_FORMAT})", l.format)));
        }
        Ok(l)
    }

    /// Writes the file atomically (temp file, sync, rename).
    pub fn write(&self, path: &Path) -> Result<(), FileError> {
        kage_data::atomic::write_atomic(path, self.to_toml().as_bytes())
            .map_err(|source| FileError::Io { path: path.into(), source })
    }

    /// Reads a lineage file.
    pub fn read(path: &Path) -> Result<Lineage, FileError> {
        let text = std::fs::read_to_string(path)
            .map_err(|source| FileError::Io { path: path.into(), source })?;
        Lineage::from_toml(&text, path)
    }
}

/// The lineage beside a shipped net made before the pipeline (by the bash loop it replaced):
/// the net by content hash and header, the commands that made it in order, and the recipe
/// that holds the same settings today. Its inputs were not kept, so `pipeline reproduce`
/// refuses it and says why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordedLineage {
    /// [`LINEAGE_FORMAT`] when written.
    pub format: u32,
    /// Always `recorded`.
    pub kind: String,
    /// The net's file name beside this file.
    pub net: String,
    /// SHA-256 of the net file.
    pub sha256: ContentId,
    /// The run id in the net's header.
    pub run_id: String,
    /// The git revision in the net's header (the trainer that made it).
    pub git_revision: String,
    /// The pipeline recipe with the same settings, relative to the repository root.
    pub recipe: PathBuf,
    /// Why `reproduce` cannot rebuild it.
    pub not_reproducible: String,
    /// The steps that made it, first to last.
    pub steps: Vec<RecordedStep>,
}

/// One step of a [`RecordedLineage`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordedStep {
    /// What the step did, with its settings and result.
    pub what: String,
    /// The command as it was run.
    pub command: String,
}

impl RecordedLineage {
    /// Reads `path` when it is a recorded lineage; `None` for any other file (a pipeline
    /// lineage, or one that does not parse: [`Lineage::read`] then says why).
    pub fn read_if_recorded(path: &Path) -> Option<RecordedLineage> {
        let text = std::fs::read_to_string(path).ok()?;
        toml::from_str::<RecordedLineage>(&text)
            .ok()
            .filter(|l| l.kind == "recorded" && l.format == LINEAGE_FORMAT)
    }
}
