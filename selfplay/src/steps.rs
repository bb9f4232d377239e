//! What the resumable multi-step jobs ([`crate::ladder`], [`crate::rebalance`]) share: how to
//! run them ([`Control`]), their self-play and audit steps, and the settings file that claims
//! an output directory for one job.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde::Serialize;

use crate::config::{GenConfig, Shard};
use crate::error::{Result, SelfplayError};
use crate::run::{RunOptions, RunStatus, generate};

/// How to run (nothing here changes the output).
pub struct Control<'a> {
    /// Worker threads.
    pub threads: usize,
    /// Progress lines and bars.
    pub progress: bool,
    /// Plain progress line interval.
    pub progress_every: Duration,
    /// Set to stop after the work in flight.
    pub stop: &'a AtomicBool,
    /// Stop after this many steps (tests; a batch job's share of the work).
    pub max_steps: Option<usize>,
}

impl Control<'_> {
    /// Whether to stop before the next step, `done` steps having run.
    pub(crate) fn stops_before(&self, done: usize) -> bool {
        self.max_steps.is_some_and(|m| done >= m) || self.stop.load(Ordering::SeqCst)
    }

    /// Plays (or continues) the self-play run `cfg` in `out`; `false` when interrupted.
    pub(crate) fn play(&self, cfg: &GenConfig, out: PathBuf) -> Result<bool> {
        let opts = RunOptions {
            out,
            shard: Shard::WHOLE,
            threads: self.threads,
            progress: self.progress,
            progress_every: self.progress_every,
            stop: self.stop,
            factory: crate::factory_for(cfg)?,
            allow_rebuild: false,
        };
        Ok(generate(cfg, &opts)?.status != RunStatus::Interrupted)
    }

    /// Audits the adjudication of the games in `files` (`sample` games, `seed`) and writes
    /// the audit as JSON to `path`.
    pub(crate) fn audit(
        &self,
        files: &[PathBuf],
        sample: usize,
        seed: u64,
        path: &Path,
    ) -> Result<()> {
        let opts = crate::audit::AuditOptions {
            sample,
            seed,
            threads: self.threads,
            progress_every: self.progress.then_some(self.progress_every),
        };
        let rep = crate::audit::audit(files, opts)?;
        let parent = path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(parent).map_err(|e| SelfplayError::io(parent, "create", e))?;
        write(path, &(serde_json::to_string_pretty(&rep).map_err(json_err)? + "\n"))
    }
}

/// Claims `out` for the job `owner` and records its settings in `out/<file>` (TOML), or
/// checks that the file there holds these very settings.
pub(crate) fn claim(out: &Path, owner: &str, file: &str, settings: &impl Serialize) -> Result<()> {
    crate::guard::claim_run_dir(out, out, owner)?;
    let text = toml::to_string(settings)
        .map_err(|cause| SelfplayError::TomlWrite { what: "the settings", cause })?;
    let path = out.join(file);
    match std::fs::read_to_string(&path) {
        Ok(existing) if existing == text => Ok(()),
        Ok(existing) => {
            Err(SelfplayError::ConfigMismatch { dir: out.to_path_buf(), existing, requested: text })
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => write(&path, &text),
        Err(e) => Err(SelfplayError::io(&path, "read", e)),
    }
}

/// A JSON error as a self-play error.
pub(crate) fn json_err(e: serde_json::Error) -> SelfplayError {
    SelfplayError::Json(e)
}

/// Writes `text` to `path` atomically.
pub(crate) fn write(path: &Path, text: &str) -> Result<()> {
    kage_data::atomic::write_atomic(path, text.as_bytes())
        .map_err(|e| SelfplayError::io(path, "write", e))
}
