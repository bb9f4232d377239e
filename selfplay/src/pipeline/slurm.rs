//! Slurm jobs for a run: one batch job per unfinished step (an array job of `shards` tasks
//! for a sharded self-play step), each running `kage-selfplay pipeline step` in the run
//! directory, with `afterok` dependencies on the jobs of its unfinished predecessors. Every
//! job is requeueable: a job killed mid-step reruns the step, which resumes its tools' files.
//! A failed job cancels its dependents (`--kill-on-invalid-dep=yes`); submitting again
//! submits what has not finished.
//!
//! [`jobs`] is pure (the job graph, the scripts' text); [`submit`] calls `sbatch`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::exec::{PipelineError, Run};
use super::lineage::FileError;
use super::plan::StepConfig;
use super::state::Action;

/// Where the jobs run and what they get.
#[derive(Clone, Debug)]
pub struct SlurmOptions {
    /// The directory of the kage binaries, as the cluster's nodes see it.
    pub bin_dir: PathBuf,
    /// The run directory, as the nodes see it (absolute).
    pub root: PathBuf,
    /// Threads (and CPUs) per job.
    pub threads: usize,
    /// More `sbatch` options for every job (`--partition=...`, `--time=...`).
    pub sbatch_args: Vec<String>,
}

/// One batch job.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    /// The step's name.
    pub step: String,
    /// The script's file name under `slurm/`.
    pub file: String,
    /// The script.
    pub script: String,
    /// Tasks of an array job (a sharded self-play step), if one.
    pub array: Option<u32>,
    /// The steps (names) whose jobs it waits for: its unfinished predecessors.
    pub after: Vec<String>,
}

/// Single-quoted for sh.
fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The jobs of `run`'s unfinished steps, in plan order.
pub fn jobs(run: &Run, opts: &SlurmOptions) -> Result<Vec<Job>, PipelineError> {
    let state = run.state()?;
    let plan = run.plan();
    let mut out = Vec::new();
    for step in &plan.steps {
        if let Action::Finished(_) = state.action(step) {
            continue;
        }
        let after = step
            .predecessors
            .iter()
            .filter(|p| state.outcome(**p).is_none())
            .filter_map(|p| plan.step(*p).map(|s| s.name.clone()))
            .collect();
        let array = match &step.config {
            StepConfig::Selfplay(sp) if sp.shards > 1 => Some(sp.shards),
            _ => None,
        };
        let file = format!("{}.sh", step.dir_name());
        let log = opts.root.join("slurm").join(match array {
            Some(_) => format!("{}.%A_%a.out", step.dir_name()),
            None => format!("{}.%j.out", step.dir_name()),
        });
        let mut script = String::from("#!/bin/sh\n");
        let _ = writeln!(script, "#SBATCH --job-name=kage-{}", step.name.replace('/', "-"));
        let _ = writeln!(script, "#SBATCH --output={}", log.display());
        let _ = writeln!(script, "#SBATCH --cpus-per-task={}", opts.threads);
        script.push_str("#SBATCH --requeue\n#SBATCH --open-mode=append\n");
        let program = opts.bin_dir.join("kage-selfplay");
        let _ = write!(
            script,
            "exec {} pipeline step --out {} --bin-dir {} --threads {} {}",
            quote(&program.display().to_string()),
            quote(&opts.root.display().to_string()),
            quote(&opts.bin_dir.display().to_string()),
            opts.threads,
            quote(&step.name)
        );
        if array.is_some() {
            script.push_str(" --shard \"$SLURM_ARRAY_TASK_ID\"");
        }
        script.push('\n');
        out.push(Job { step: step.name.clone(), file, script, array, after });
    }
    Ok(out)
}

/// The `sbatch` arguments of `job`, given the ids of the jobs it waits for.
pub fn sbatch_args(job: &Job, opts: &SlurmOptions, deps: &[String], script: &Path) -> Vec<String> {
    let mut args = vec!["--parsable".to_string()];
    if let Some(n) = job.array {
        args.push(format!("--array=0-{}", n - 1));
    }
    if !deps.is_empty() {
        args.push(format!("--dependency=afterok:{}", deps.join(":")));
        args.push("--kill-on-invalid-dep=yes".into());
    }
    args.extend(opts.sbatch_args.iter().cloned());
    args.push(script.display().to_string());
    args
}

/// Why a submission failed.
fn failed(job: &Job, what: String) -> PipelineError {
    PipelineError::Tool { step: job.step.clone(), program: "sbatch".into(), status: what }
}

/// Writes the scripts under `<root>/slurm/` and, when `sbatch` is given (the command to
/// run, normally `sbatch`), submits them. Returns each job with its id (empty when not
/// submitted); the ids are also written to `slurm/jobs.toml`.
pub fn submit(
    run: &Run,
    opts: &SlurmOptions,
    sbatch: Option<&str>,
) -> Result<Vec<(Job, String)>, PipelineError> {
    let dir = run.root().join("slurm");
    std::fs::create_dir_all(&dir)
        .map_err(|source| PipelineError::File(FileError::Io { path: dir.clone(), source }))?;
    let mut ids: Vec<(Job, String)> = Vec::new();
    for job in jobs(run, opts)? {
        let path = dir.join(&job.file);
        kage_data::atomic::write_atomic(&path, job.script.as_bytes())
            .map_err(|source| PipelineError::File(FileError::Io { path: path.clone(), source }))?;
        let Some(sbatch) = sbatch else {
            ids.push((job, String::new()));
            continue;
        };
        let deps: Vec<String> = job
            .after
            .iter()
            .filter_map(|name| ids.iter().find(|(j, _)| &j.step == name).map(|(_, id)| id.clone()))
            .collect();
        let out = Command::new(sbatch)
            .args(sbatch_args(&job, opts, &deps, &opts.root.join("slurm").join(&job.file)))
            .output()
            .map_err(|e| failed(&job, format!("could not start: {e}")))?;
        if !out.status.success() {
            let err = String::from_utf8_lossy(&out.stderr).trim().to_string();
            return Err(failed(&job, format!("failed: {err}")));
        }
        let text = String::from_utf8_lossy(&out.stdout);
        let id = text.trim().split(';').next().unwrap_or_default().to_string();
        if id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit()) {
            return Err(failed(&job, format!("printed no job id: {text:?}")));
        }
        ids.push((job, id));
    }
    let mut list = String::new();
    for (job, id) in &ids {
        let _ = writeln!(list, "[[job]]\nstep = {:?}\nid = {:?}\n", job.step, id);
    }
    let path = dir.join("jobs.toml");
    kage_data::atomic::write_atomic(&path, list.as_bytes())
        .map_err(|source| PipelineError::File(FileError::Io { path, source }))?;
    Ok(ids)
}
