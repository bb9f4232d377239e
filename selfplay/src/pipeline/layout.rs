//! Where a pipeline run keeps its files, every path relative to the run's root directory
//! (tools run with the root as their working directory, so the bytes they write do not
//! depend on where the root is: a local run and a Slurm run of one recipe compare equal):
//!
//! ```text
//! recipe.toml                 the recipe, as given (a second recipe in the root is refused)
//! inputs.toml                 content hash of each file the recipe names
//! inputs/<sha256>.<ext>       those files, copied in (a start net, a user variant's rules)
//! steps/<name>-<id12>/        one directory per step (Step::dir_name)
//!     selfplay/<variant>/     a self-play step's `generate` run (positions.kdata, games.kdata)
//!     positions.kdata         a merge step's output (and games.kdata)
//!     train/                  a train step's `kage-train` run (net.nnue)
//!     match/                  a match step's `match` run (summary.json, games.kdata)
//!     shard-<i>.done          a finished shard of a sharded self-play step
//!     lineage.toml            inputs and outputs by hash, configuration, git revision
//!     outcome.toml            written last: the step is finished (done or skipped)
//! slurm/                      job scripts, jobs.toml and the jobs' logs
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::id::ContentId;
use super::plan::{Plan, Step, StepConfig};
use super::state::{Outcome, Resolved};

/// The recipe's copy in the root.
pub const RECIPE_FILE: &str = "recipe.toml";
/// The input hashes.
pub const INPUTS_FILE: &str = "inputs.toml";

/// Paths of one run, relative to its root.
#[derive(Clone, Copy, Debug)]
pub struct Layout<'a> {
    plan: &'a Plan,
}

impl<'a> Layout<'a> {
    /// The layout of `plan`'s run.
    pub fn new(plan: &'a Plan) -> Self {
        Layout { plan }
    }

    /// A step's directory.
    pub fn step_dir(&self, step: &Step) -> PathBuf {
        Path::new("steps").join(step.dir_name())
    }

    fn dir_of(&self, id: ContentId) -> PathBuf {
        match self.plan.step(id) {
            Some(s) => self.step_dir(s),
            None => Path::new("steps").join(id.short()),
        }
    }

    /// A self-play step's `generate --out` directory.
    pub fn selfplay_out(&self, step: &Step) -> PathBuf {
        self.step_dir(step).join("selfplay")
    }

    /// The `kind` file (`positions` or `games`) of a self-play or merge step.
    pub fn data_file(&self, id: ContentId, kind: &str) -> PathBuf {
        let file = format!("{kind}.kdata");
        match self.plan.step(id).map(|s| (s, &s.config)) {
            Some((s, StepConfig::Selfplay(sp))) if sp.shards == 1 => {
                self.selfplay_out(s).join(&sp.variant).join(file)
            }
            _ => self.dir_of(id).join(file),
        }
    }

    /// The `kind` file of shard `i` of a sharded self-play step.
    pub fn shard_file(&self, step: &Step, variant: &str, i: u32, n: u32, kind: &str) -> PathBuf {
        let shard = format!("shard-{i:04}-of-{n:04}");
        self.selfplay_out(step).join(variant).join(shard).join(format!("{kind}.kdata"))
    }

    /// The marker of a finished shard.
    pub fn shard_done(&self, step: &Step, i: u32) -> PathBuf {
        self.step_dir(step).join(format!("shard-{i}.done"))
    }

    /// A train step's run directory.
    pub fn train_dir(&self, step: &Step) -> PathBuf {
        self.step_dir(step).join("train")
    }

    /// A match step's directory.
    pub fn match_dir(&self, step: &Step) -> PathBuf {
        self.step_dir(step).join("match")
    }

    /// The net file of a resolved player (`None` for the HCE).
    pub fn net(&self, player: &Resolved) -> Option<PathBuf> {
        match player {
            Resolved::Hce => None,
            Resolved::File(h) => Some(self.input(*h)),
            Resolved::Net(t) => Some(self.dir_of(*t).join("train").join("net.nnue")),
        }
    }

    /// The short name a player is known by in match files: `hce`, `start`, or the train
    /// step's stage (`gen-2`, `polish`, `refine-1`).
    pub fn label(&self, player: &Resolved) -> String {
        match player {
            Resolved::Hce => "hce".into(),
            Resolved::File(_) => "start".into(),
            Resolved::Net(t) => self
                .plan
                .step(*t)
                .map(|s| s.name.trim_end_matches("/train").to_string())
                .unwrap_or_else(|| t.short()),
        }
    }

    /// The copy in the root of the plan's outside file `hash`.
    pub fn input(&self, hash: ContentId) -> PathBuf {
        let original = self.plan.files.get(&hash).map(PathBuf::as_path);
        input_file(hash, original.unwrap_or(Path::new("")))
    }

    /// The `--variant` (and `--variant-file`) options of a step of the variant `variant`
    /// with the user variant `rules`, if any.
    pub fn variant_args(&self, variant: &str, rules: Option<ContentId>) -> Vec<String> {
        let mut args = vec!["--variant".to_string(), variant.to_string()];
        if let Some(h) = rules {
            args.extend(["--variant-file".to_string(), self.input(h).display().to_string()]);
        }
        args
    }

    /// The outcome file of a step.
    pub fn outcome_file(&self, step: &Step) -> PathBuf {
        self.step_dir(step).join("outcome.toml")
    }
}

/// A file from outside the plan, copied into the root: `inputs/<sha256>` with the extension
/// of the file it was (`original`), which tools read to tell formats apart.
pub fn input_file(hash: ContentId, original: &Path) -> PathBuf {
    let name = match original.extension() {
        Some(ext) => format!("{hash}.{}", ext.to_string_lossy()),
        None => hash.to_string(),
    };
    Path::new("inputs").join(name)
}

/// `outcome.toml`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OutcomeFile {
    /// `done` or `skipped`.
    pub status: String,
    /// A gate's decision.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accepted: Option<bool>,
    /// Why (the gate's reason, or why it was skipped).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
}

impl OutcomeFile {
    /// The file of an outcome.
    pub fn new(outcome: Outcome, reason: String) -> Self {
        match outcome {
            Outcome::Done { accepted } => OutcomeFile { status: "done".into(), accepted, reason },
            Outcome::Skipped => OutcomeFile { status: "skipped".into(), accepted: None, reason },
        }
    }

    /// The outcome it records, if its status is known.
    pub fn outcome(&self) -> Option<Outcome> {
        match self.status.as_str() {
            "done" => Some(Outcome::Done { accepted: self.accepted }),
            "skipped" => Some(Outcome::Skipped),
            _ => None,
        }
    }
}

/// `inputs.toml`: the content hash of each file the recipe names, by its path in the recipe.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct InputsFile {
    /// Path (as in the recipe) to SHA-256.
    pub files: BTreeMap<PathBuf, ContentId>,
}
