//! The executor: a run directory for a recipe ([`Run`]), one step run by its tools
//! ([`Run::run_step`], what a Slurm job calls), the whole plan in order ([`Run::run_all`]),
//! status, installation of the result net with its lineage, and reproduction of an installed
//! net from its lineage.
//!
//! A step is finished when its `outcome.toml` exists (written last, after `lineage.toml`);
//! a step killed before that is run again, and its tools resume what they had written
//! (`generate` and `match` byte-identically, `kage-train --resume` bit-identically), so an
//! interruption anywhere, a Slurm requeue included, ends in the same files.

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::command::{self, Invocation};
use super::gate::{GateError, MatchSummary, decide};
use super::id::ContentId;
use super::layout::{INPUTS_FILE, InputsFile, Layout, OutcomeFile, RECIPE_FILE, input_file};
use super::lineage::{FileError, Lineage, LineageFile};
use super::plan::{MatchRole, Plan, PlanError, Step, StepConfig, plan};
use super::recipe::{Recipe, RecipeError, Start};
use super::state::{Action, Outcome, Resolved, RunState, StateError};

/// How steps run.
#[derive(Clone, Debug)]
pub struct Options {
    /// Where `kage-selfplay`, `kage-data` and `kage-train` are.
    pub bin_dir: PathBuf,
    /// Threads each tool uses (the outputs do not depend on it).
    pub threads: usize,
    /// No progress lines.
    pub quiet: bool,
}

/// Why a pipeline command failed.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    /// A file could not be read or written, or is not what this build writes.
    #[error(transparent)]
    File(#[from] FileError),
    /// The recipe is invalid.
    #[error(transparent)]
    Recipe(#[from] RecipeError),
    /// The recipe could not be planned.
    #[error(transparent)]
    Plan(#[from] PlanError),
    /// A gate match gave no decision.
    #[error(transparent)]
    Gate(#[from] GateError),
    /// A player could not be resolved.
    #[error(transparent)]
    State(#[from] StateError),
    /// The directory holds another recipe's run.
    #[error("{0} holds the run of another recipe; give a new directory")]
    OtherRecipe(PathBuf),
    /// No recipe in the directory.
    #[error("{0}: not a pipeline run directory (no recipe.toml)")]
    NotARun(PathBuf),
    /// No such step.
    #[error("no step named {0:?}; `kage-selfplay pipeline plan` lists them")]
    NoStep(String),
    /// A predecessor has not finished.
    #[error("step {step} needs {pred}, which has not finished")]
    Waiting {
        /// The step.
        step: String,
        /// The predecessor.
        pred: String,
    },
    /// The step is running in another process.
    #[error("step {0} is running in another process (its lock is held)")]
    Locked(String),
    /// A tool failed.
    #[error("step {step}: {program} {status}")]
    Tool {
        /// The step.
        step: String,
        /// The binary.
        program: String,
        /// How it ended.
        status: String,
    },
    /// A shard number out of range.
    #[error("step {step} has {shards} shard(s); there is no shard {shard}")]
    Shard {
        /// The step.
        step: String,
        /// Asked for.
        shard: u32,
        /// It has.
        shards: u32,
    },
    /// The result is not a net of this run.
    #[error("the recipe's result is {0}, not a net it trained: nothing to install")]
    NoNet(String),
    /// The anchor match does not show the result above generation 0.
    #[error("not installed: {anchor} does not show the net above generation 0 ({reason})")]
    NotAboveStart {
        /// The anchor step.
        anchor: String,
        /// The gate rule's reason.
        reason: String,
    },
    /// A reproduction made other bytes.
    #[error("reproduced net {got} differs from the lineage's {want}")]
    Differs {
        /// What the run made.
        got: ContentId,
        /// What the lineage says.
        want: ContentId,
    },
}

type Result<T> = std::result::Result<T, PipelineError>;

/// A file that is not what this build writes.
fn bad_file(path: impl Into<PathBuf>, message: impl Into<String>) -> PipelineError {
    PipelineError::File(FileError::Format { path: path.into(), message: message.into() })
}

fn io<T>(path: &Path, r: std::io::Result<T>) -> Result<T> {
    r.map_err(|source| PipelineError::File(FileError::Io { path: path.into(), source }))
}

/// SHA-256 of a file, read in blocks.
pub fn hash_file(path: &Path) -> Result<ContentId> {
    use sha2::{Digest, Sha256};
    let mut f = io(path, File::open(path))?;
    let mut h = Sha256::new();
    io(path, std::io::copy(&mut f, &mut h))?;
    Ok(ContentId::from_hex(&format!("{:x}", h.finalize())).expect("64 hex digits"))
}

/// What running a step did.
#[derive(Clone, Debug, PartialEq)]
pub enum StepResult {
    /// It had finished before.
    Already(Outcome),
    /// It was skipped now, for the reason given.
    Skipped(String),
    /// It ran (one shard of it, when the step is sharded and others remain).
    Ran {
        /// Its outcome, when the step is finished.
        outcome: Option<Outcome>,
        /// The gate's reason, if a gate.
        reason: String,
    },
}

/// A run directory.
pub struct Run {
    root: PathBuf,
    recipe_text: String,
    plan: Plan,
}

impl Run {
    /// Creates the run of the recipe text `text` in `root`, or opens it when `root` holds
    /// the same recipe; files the recipe names are read relative to the current directory.
    pub fn create(root: &Path, text: &str) -> Result<Run> {
        let recipe = Recipe::from_toml(text)?;
        let existing = root.join(RECIPE_FILE);
        if existing.exists() {
            return match io(&existing, std::fs::read_to_string(&existing))? == text {
                true => Run::open(root),
                false => Err(PipelineError::OtherRecipe(root.into())),
            };
        }
        io(root, std::fs::create_dir_all(root.join("inputs")))?;
        let mut inputs = InputsFile::default();
        for path in input_paths(&recipe) {
            let bytes = io(path, std::fs::read(path))?;
            let hash = ContentId::of_bytes(&bytes);
            write(&root.join(input_file(hash, path)), &bytes)?;
            inputs.files.insert(path.clone(), hash);
        }
        if let Some(path) = &recipe.variant_file {
            let v = kage_engine::Variant::from_user_file(path, Some(&recipe.variant))
                .map_err(|e| bad_file(path.clone(), e.to_string()))?;
            if v.name != recipe.variant {
                let message =
                    format!("defines {:?}, the recipe names {:?}", v.name, recipe.variant);
                return Err(bad_file(path.clone(), message));
            }
        }
        let toml = toml::to_string(&inputs).expect("inputs serialize");
        write(&root.join(INPUTS_FILE), toml.as_bytes())?;
        write(&existing, text.as_bytes())?;
        Run::open(root)
    }

    /// Opens the run in `root`.
    pub fn open(root: &Path) -> Result<Run> {
        let path = root.join(RECIPE_FILE);
        if !path.exists() {
            return Err(PipelineError::NotARun(root.into()));
        }
        let recipe_text = io(&path, std::fs::read_to_string(&path))?;
        let recipe = Recipe::from_toml(&recipe_text)?;
        let ipath = root.join(INPUTS_FILE);
        let inputs: InputsFile = toml::from_str(&io(&ipath, std::fs::read_to_string(&ipath))?)
            .map_err(|e| bad_file(ipath, e.to_string()))?;
        let plan = plan(&recipe, &inputs.files)?;
        Ok(Run { root: root.into(), recipe_text, plan })
    }

    /// The plan.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The recipe's text.
    pub fn recipe_text(&self) -> &str {
        &self.recipe_text
    }

    fn layout(&self) -> Layout<'_> {
        Layout::new(&self.plan)
    }

    /// The outcomes on disk.
    pub fn state(&self) -> Result<RunState<'_>> {
        let mut outcomes = BTreeMap::new();
        for s in &self.plan.steps {
            if let Some(f) = self.outcome_file(s)? {
                let path = self.root.join(self.layout().outcome_file(s));
                let o = f
                    .outcome()
                    .ok_or_else(|| bad_file(path, format!("unknown status {:?}", f.status)))?;
                outcomes.insert(s.id, o);
            }
        }
        Ok(RunState::new(&self.plan, outcomes))
    }

    /// A step's `outcome.toml`, if it has one.
    pub fn outcome_file(&self, step: &Step) -> Result<Option<OutcomeFile>> {
        let path = self.root.join(self.layout().outcome_file(step));
        if !path.exists() {
            return Ok(None);
        }
        let text = io(&path, std::fs::read_to_string(&path))?;
        let f = toml::from_str(&text).map_err(|e| bad_file(path.clone(), e.to_string()))?;
        Ok(Some(f))
    }

    /// A step's lineage, if it finished by running.
    pub fn lineage(&self, step: &Step) -> Result<Option<Lineage>> {
        let path = Lineage::path_in(&self.root.join(self.layout().step_dir(step)));
        Ok(if path.exists() { Some(Lineage::read(&path)?) } else { None })
    }

    /// Runs the step named `name` (only shard `shard` of a sharded self-play step, if
    /// given), or skips it; its predecessors must have finished.
    pub fn run_step(&self, name: &str, opts: &Options, shard: Option<u32>) -> Result<StepResult> {
        let step = self.plan.named(name).ok_or_else(|| PipelineError::NoStep(name.into()))?;
        let dir = self.root.join(self.layout().step_dir(step));
        io(&dir, std::fs::create_dir_all(&dir))?;
        let lock_path = dir.join(match shard {
            Some(i) => format!("lock-{i}"),
            None => "lock".into(),
        });
        let lock = io(&lock_path, File::create(&lock_path))?;
        if lock.try_lock().is_err() {
            return Err(PipelineError::Locked(name.into()));
        }
        let state = self.state()?;
        match state.action(step) {
            Action::Finished(o) => Ok(StepResult::Already(o)),
            Action::Wait(p) => Err(PipelineError::Waiting {
                step: name.into(),
                pred: self.plan.step(p).map_or_else(|| p.to_string(), |s| s.name.clone()),
            }),
            Action::Skip(reason) => {
                self.say(opts, &format!("{name}: skipped: {reason}"));
                self.write_outcome(step, Outcome::Skipped, &reason)?;
                Ok(StepResult::Skipped(reason))
            }
            Action::Run => self.execute(step, &state, opts, shard),
        }
    }

    /// Runs (or skips) every unfinished step in order; `max_steps` stops after that many
    /// steps have run. Returns the number run.
    pub fn run_all(&self, opts: &Options, max_steps: Option<usize>) -> Result<usize> {
        let mut ran = 0;
        for step in &self.plan.steps {
            if max_steps.is_some_and(|m| ran >= m) {
                break;
            }
            if let StepResult::Ran { .. } = self.run_step(&step.name, opts, None)? {
                ran += 1;
            }
        }
        Ok(ran)
    }

    /// The recipe's result now: the player best after the last gate.
    pub fn result(&self) -> Result<Resolved> {
        Ok(self.state()?.result()?)
    }

    /// The result's net file (absolute), if the result is a net.
    pub fn result_net(&self) -> Result<Option<PathBuf>> {
        Ok(self.layout().net(&self.result()?).map(|p| self.root.join(p)))
    }

    fn say(&self, opts: &Options, line: &str) {
        if !opts.quiet {
            eprintln!("pipeline: {line}");
        }
    }

    fn write_outcome(&self, step: &Step, outcome: Outcome, reason: &str) -> Result<()> {
        let f = OutcomeFile::new(outcome, reason.into());
        let text = toml::to_string(&f).expect("outcome serializes");
        write(&self.root.join(self.layout().outcome_file(step)), text.as_bytes())
    }

    /// Runs one tool with the root as working directory.
    fn tool(&self, step: &Step, opts: &Options, inv: &Invocation) -> Result<()> {
        let program = opts.bin_dir.join(inv.tool.binary());
        self.say(opts, &format!("{}: {} {}", step.name, inv.tool.binary(), inv.args.join(" ")));
        let status = Command::new(&program).args(&inv.args).current_dir(&self.root).status();
        let status = io(&program, status)?;
        if status.success() {
            return Ok(());
        }
        let status = match status.code() {
            Some(c) => format!("exited with status {c}"),
            None => "was killed by a signal".into(),
        };
        Err(PipelineError::Tool {
            step: step.name.clone(),
            program: inv.tool.binary().into(),
            status,
        })
    }

    /// An input or output file of `step`, by hash.
    fn file(&self, role: &str, path: PathBuf, from: Option<ContentId>) -> Result<LineageFile> {
        let sha256 = hash_file(&self.root.join(&path))?;
        Ok(LineageFile { role: role.into(), path, sha256, step: from })
    }

    /// A net input (none for the HCE).
    fn net_input(&self, role: &str, p: &Resolved) -> Result<Option<LineageFile>> {
        let from = match p {
            Resolved::Net(t) => Some(*t),
            _ => None,
        };
        self.layout().net(p).map(|path| self.file(role, path, from)).transpose()
    }

    fn execute(
        &self,
        step: &Step,
        state: &RunState,
        opts: &Options,
        shard: Option<u32>,
    ) -> Result<StepResult> {
        let (l, t) = (self.layout(), opts.threads);
        let mut inputs = Vec::new();
        let mut outputs = Vec::new();
        let (mut outcome, mut reason) = (Outcome::Done { accepted: None }, String::new());
        match &step.config {
            StepConfig::Selfplay(sp) => {
                let player = state.resolve(&sp.player)?;
                inputs.extend(self.net_input("player", &player)?);
                if sp.shards == 1 {
                    self.tool(step, opts, &command::selfplay(&l, step, sp, &player, t, None))?;
                    for kind in ["positions", "games"] {
                        outputs.push(self.file(kind, l.data_file(step.id, kind), Some(step.id))?);
                    }
                } else {
                    let shards: Vec<u32> = match shard {
                        Some(i) if i >= sp.shards => {
                            return Err(PipelineError::Shard {
                                step: step.name.clone(),
                                shard: i,
                                shards: sp.shards,
                            });
                        }
                        Some(i) => vec![i],
                        None => (0..sp.shards).collect(),
                    };
                    for i in shards {
                        let done = self.root.join(l.shard_done(step, i));
                        if !done.exists() {
                            let inv = command::selfplay(&l, step, sp, &player, t, Some(i));
                            self.tool(step, opts, &inv)?;
                            write(&done, b"")?;
                        }
                    }
                    if (0..sp.shards).any(|i| !self.root.join(l.shard_done(step, i)).exists()) {
                        return Ok(StepResult::Ran { outcome: None, reason });
                    }
                    for kind in ["positions", "games"] {
                        for i in 0..sp.shards {
                            let path = l.shard_file(step, &sp.variant, i, sp.shards, kind);
                            outputs.push(self.file(kind, path, Some(step.id))?);
                        }
                    }
                }
            }
            StepConfig::Merge(m) => {
                let sp = self.plan.step(m.selfplay).expect("a planned merge names its self-play");
                for kind in ["games", "positions"] {
                    for path in command::merge_inputs(&l, sp, kind) {
                        inputs.push(self.file("shard", path, Some(sp.id))?);
                    }
                    // Not finished, so any output is a leftover of an interrupted merge.
                    let out = self.root.join(l.data_file(step.id, kind));
                    if out.exists() {
                        io(&out, std::fs::remove_file(&out))?;
                    }
                    self.tool(step, opts, &command::merge(&l, step, sp, kind))?;
                    outputs.push(self.file(kind, l.data_file(step.id, kind), Some(step.id))?);
                }
            }
            StepConfig::Train(tr) => {
                let init = state.resolve(&tr.init)?;
                for d in &tr.data {
                    inputs.push(self.file("data", l.data_file(*d, "positions"), Some(*d))?);
                }
                inputs.extend(self.net_input("init", &init)?);
                let dir = self.root.join(l.train_dir(step));
                let resume = dir.join("checkpoint.ckpt").exists();
                self.tool(step, opts, &command::train(&l, step, tr, &init, t, resume))?;
                outputs.push(self.file(
                    "net",
                    l.train_dir(step).join("net.nnue"),
                    Some(step.id),
                )?);
            }
            StepConfig::Match(m) => {
                let (c, o) = (state.resolve(&m.candidate)?, state.resolve(&m.opponent)?);
                inputs.extend(self.net_input("candidate", &c)?);
                inputs.extend(self.net_input("opponent", &o)?);
                self.tool(step, opts, &command::matches(&l, step, m, &c, &o, t))?;
                let dir = self.root.join(l.match_dir(step));
                let decision = decide(&MatchSummary::read(&dir)?)?;
                reason = decision.reason.to_string();
                if m.role == MatchRole::Gate {
                    outcome = Outcome::Done { accepted: Some(decision.accepted) };
                }
                outputs.push(self.file(
                    "games",
                    l.match_dir(step).join("games.kdata"),
                    Some(step.id),
                )?);
            }
        }
        let mut lineage = Lineage::of_step(step, kage_data::GIT_REVISION, inputs);
        lineage.outputs = outputs;
        lineage.write(&Lineage::path_in(&self.root.join(l.step_dir(step))))?;
        self.write_outcome(step, outcome, &reason)?;
        let said = match outcome {
            Outcome::Done { accepted: Some(true) } => format!("accepted ({reason})"),
            Outcome::Done { accepted: Some(false) } => format!("rejected ({reason})"),
            _ => "done".into(),
        };
        self.say(opts, &format!("{}: {said}", step.name));
        Ok(StepResult::Ran { outcome: Some(outcome), reason })
    }

    /// Copies the net of the train step `step` (by default the recipe's result, which must
    /// then be a net this run trained) to `to` and writes its lineage beside it: the train
    /// step's lineage with the recipe's text, the file `reproduce` reads.
    pub fn install(&self, to: &Path, step: Option<&str>) -> Result<(PathBuf, ContentId)> {
        let step = match step {
            Some(name) => {
                self.plan.named(name).ok_or_else(|| PipelineError::NoStep(name.into()))?
            }
            None => match self.result()? {
                Resolved::Net(train) => {
                    self.anchor_check(train)?;
                    self.plan.step(train).expect("a resolved net is a step")
                }
                other => return Err(PipelineError::NoNet(self.layout().label(&other))),
            },
        };
        if !matches!(step.config, StepConfig::Train(_)) {
            return Err(PipelineError::NoNet(step.name.clone()));
        }
        let mut lineage = self.lineage(step)?.ok_or_else(|| PipelineError::Waiting {
            step: "install".into(),
            pred: step.name.clone(),
        })?;
        let net = self.root.join(self.layout().train_dir(step)).join("net.nnue");
        let bytes = io(&net, std::fs::read(&net))?;
        write(to, &bytes)?;
        lineage.recipe = Some(self.recipe_text.clone());
        let beside = Lineage::path_beside(to);
        lineage.write(&beside)?;
        Ok((beside, ContentId::of_bytes(&bytes)))
    }
}

impl Run {
    /// The last anchor match that measured the net of `train` against generation 0, if one
    /// ran, must accept it by the gate rule ([`decide`]), as `make_net.sh` installed.
    fn anchor_check(&self, train: ContentId) -> Result<()> {
        let state = self.state()?;
        let net = Resolved::Net(train);
        let anchor = self.plan.steps.iter().rev().find(|s| {
            let StepConfig::Match(m) = &s.config else { return false };
            m.role == MatchRole::Anchor
                && matches!(state.outcome(s.id), Some(Outcome::Done { .. }))
                && state.resolve(&m.candidate).is_ok_and(|c| c == net)
        });
        let Some(anchor) = anchor else { return Ok(()) };
        let dir = self.root.join(self.layout().match_dir(anchor));
        let d = decide(&MatchSummary::read(&dir)?)?;
        match d.accepted {
            true => Ok(()),
            false => Err(PipelineError::NotAboveStart {
                anchor: anchor.name.clone(),
                reason: d.reason.to_string(),
            }),
        }
    }
}

/// Replays the recipe in the lineage file `lineage` (an installed net's) into the run
/// directory `out` and checks that the step it names wrote a net with the lineage's hash.
/// Returns the hash.
pub fn reproduce(lineage: &Path, out: &Path, opts: &Options) -> Result<ContentId> {
    let bad = |message: &str| bad_file(lineage, message);
    if let Some(r) = super::lineage::RecordedLineage::read_if_recorded(lineage) {
        return Err(bad(&format!(
            "a recorded lineage, not reproducible: {} (the same settings: {})",
            r.not_reproducible,
            r.recipe.display()
        )));
    }
    let l = Lineage::read(lineage)?;
    let text =
        l.recipe.as_deref().ok_or_else(|| bad("no recipe (not an installed net's lineage)"))?;
    let want = l.outputs.iter().find(|o| o.role == "net").ok_or_else(|| bad("no net output"))?;
    let run = Run::create(out, text)?;
    let step = run.plan.step(l.step).ok_or_else(|| bad("its step is not in its recipe's plan"))?;
    run.run_all(opts, None)?;
    let got = hash_file(&run.root.join(run.layout().train_dir(step)).join("net.nnue"))?;
    if got != want.sha256 {
        return Err(PipelineError::Differs { got, want: want.sha256 });
    }
    Ok(got)
}

/// The files a recipe names: its start net and its user variant's file.
pub fn input_paths(recipe: &Recipe) -> Vec<&PathBuf> {
    let net = match &recipe.start {
        Start::Net(p) => Some(p),
        Start::Hce => None,
    };
    net.into_iter().chain(recipe.variant_file.as_ref()).collect()
}

/// The content hash of each file a recipe names, read relative to the current directory.
pub fn input_hashes(recipe: &Recipe) -> Result<BTreeMap<PathBuf, ContentId>> {
    let mut out = BTreeMap::new();
    for p in input_paths(recipe) {
        out.insert(p.clone(), hash_file(p)?);
    }
    Ok(out)
}

/// Writes a file atomically, creating its directory.
fn write(path: &Path, bytes: &[u8]) -> Result<()> {
    if let Some(dir) = path.parent() {
        io(dir, std::fs::create_dir_all(dir))?;
    }
    io(path, kage_data::atomic::write_atomic(path, bytes))
}
