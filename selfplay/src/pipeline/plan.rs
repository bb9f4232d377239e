//! The planner: a [`Recipe`] to its job graph, a list of [`Step`]s in an order where every
//! step comes after its predecessors. Pure: it reads no file and runs nothing (the hashes of
//! files from outside the plan, such as a starting net, are given to it).
//!
//! The graph is the one the bash loop this pipeline replaced ran (`loop.sh`, `slurm_loop.sh`,
//! `make_net.sh` and `refine_net.sh`, removed 2026-12-02), per stage:
//!
//! * generation G (1..=count): `gen-G/selfplay` by the best player after generation G-1
//!   (`gen-G/merge` after it when `shards > 1`), `gen-G/train` on the positions of
//!   generations max(1, G-window+1)..=G from that best player, `gen-G/gate` (the new net
//!   against that best, GSPRT); then `anchor`, the best net against generation 0 (no GSPRT),
//!   when `matches.anchor`;
//! * polish: `polish/train` on every generation's positions (from scratch, or from the best
//!   before the last generation), `polish/gate` against the loop's best, `polish/anchor`
//!   against generation 0;
//! * refinement round k: `refine-k/selfplay` by the best so far, `refine-k/train` from it on
//!   every generation's and rounds 1..=k's positions, `refine-k/gate` at fixed time per move
//!   (no GSPRT: the interval rule of [`super::decide`] decides).
//!
//! Which player is "the best after a gate" is known only when the gate has run, but it is a
//! function of the gate's inputs, so it is addressed by the gate's id
//! ([`Player::BestAfter`]) and the graph, the ids and the seeds are fixed before anything
//! runs. Some steps run only on a condition ([`Condition`]), as the scripts skip them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::id::ContentId;
use super::recipe::{PolishInit, Recipe, Start};

/// A player of a self-play step, a match, or the net a training starts from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Player {
    /// The hand-crafted evaluation (as a training start: from scratch).
    Hce,
    /// A net from outside the plan, by content hash ([`Plan::files`] has its path).
    File(ContentId),
    /// The net a train step wrote.
    Net(ContentId),
    /// The best player after a gate step: its candidate if it accepted, else its opponent.
    BestAfter(ContentId),
}

impl Player {
    /// The step this player comes from, if any.
    pub fn step(&self) -> Option<ContentId> {
        match self {
            Player::Net(id) | Player::BestAfter(id) => Some(*id),
            Player::Hce | Player::File(_) => None,
        }
    }
}

/// Self-play games (`kage-selfplay generate`; one array job of `shards` tasks on Slurm).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SelfplayStep {
    /// The variant.
    pub variant: String,
    /// A user variant's rules: its file's content hash ([`Plan::files`] has its path); absent
    /// for a built-in variant (and then not hashed into the id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<ContentId>,
    /// Games in all.
    pub games: u64,
    /// Nodes per move.
    pub nodes: u64,
    /// Shards (`--shard i --shards N`); more than one is followed by a merge step.
    pub shards: u32,
    /// Who plays.
    pub player: Player,
    /// More options.
    pub args: Vec<String>,
    /// The recipe's root seed.
    pub root_seed: u64,
}

/// Joins a self-play step's shards (`kage-data merge`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MergeStep {
    /// The self-play step.
    pub selfplay: ContentId,
    /// Its shards.
    pub shards: u32,
}

/// A net trained on positions (`kage-train`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrainStep {
    /// The variant.
    pub variant: String,
    /// A user variant's rules: its file's content hash ([`Plan::files`] has its path); absent
    /// for a built-in variant (and then not hashed into the id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<ContentId>,
    /// The steps whose positions are read (self-play or merge), in order.
    pub data: Vec<ContentId>,
    /// The net training starts from (`--init-net`); [`Player::Hce`]: from scratch.
    pub init: Player,
    /// Epochs.
    pub epochs: u32,
    /// Target mix.
    pub lambda: f64,
    /// More options.
    pub args: Vec<String>,
}

/// What a match is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchRole {
    /// Decides whether the candidate becomes the best player.
    Gate,
    /// Measures the best net against generation 0; decides nothing in the graph.
    Anchor,
}

/// How long a match's engines think.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Control {
    /// Nodes per move (reproducible).
    Nodes(u64),
    /// Milliseconds per move (not reproducible game for game).
    MovetimeMs(u64),
}

/// The bounds of a GSPRT.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SprtBounds {
    /// H0.
    pub elo0: f64,
    /// H1.
    pub elo1: f64,
}

/// A match (`kage-selfplay match`), the candidate first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchStep {
    /// Gate or anchor.
    pub role: MatchRole,
    /// The variant.
    pub variant: String,
    /// A user variant's rules: its file's content hash ([`Plan::files`] has its path); absent
    /// for a built-in variant (and then not hashed into the id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<ContentId>,
    /// The first engine.
    pub candidate: Player,
    /// The second engine.
    pub opponent: Player,
    /// Games (at most, with a GSPRT).
    pub games: u64,
    /// Time control.
    pub control: Control,
    /// The GSPRT, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sprt: Option<SprtBounds>,
    /// More options.
    pub args: Vec<String>,
}

/// A step's full configuration: everything that decides its output (not threads, paths of
/// binaries or Slurm resources).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepConfig {
    /// Self-play.
    Selfplay(SelfplayStep),
    /// Merging shards.
    Merge(MergeStep),
    /// Training.
    Train(TrainStep),
    /// A match.
    Match(MatchStep),
}

impl StepConfig {
    /// The steps this configuration names, in order, each once.
    pub fn references(&self) -> Vec<ContentId> {
        let mut out = Vec::new();
        let mut add = |id: Option<ContentId>| {
            if let Some(id) = id.filter(|id| !out.contains(id)) {
                out.push(id);
            }
        };
        match self {
            StepConfig::Selfplay(s) => add(s.player.step()),
            StepConfig::Merge(m) => add(Some(m.selfplay)),
            StepConfig::Train(t) => {
                t.data.iter().for_each(|d| add(Some(*d)));
                add(t.init.step());
            }
            StepConfig::Match(m) => {
                add(m.candidate.step());
                add(m.opponent.step());
            }
        }
        out
    }

    /// The kind of step.
    pub fn kind(&self) -> StepKind {
        match self {
            StepConfig::Selfplay(_) => StepKind::Selfplay,
            StepConfig::Merge(_) => StepKind::Merge,
            StepConfig::Train(_) => StepKind::Train,
            StepConfig::Match(m) if m.role == MatchRole::Gate => StepKind::Gate,
            StepConfig::Match(_) => StepKind::Anchor,
        }
    }
}

/// The kinds of step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepKind {
    /// Self-play games.
    Selfplay,
    /// Shards joined.
    Merge,
    /// A net trained.
    Train,
    /// A gate match (and its decision).
    Gate,
    /// An anchor match.
    Anchor,
}

impl StepKind {
    /// The kind's name (also the word hashed into the step's id).
    pub fn name(self) -> &'static str {
        match self {
            StepKind::Selfplay => "selfplay",
            StepKind::Merge => "merge",
            StepKind::Train => "train",
            StepKind::Gate => "gate",
            StepKind::Anchor => "anchor",
        }
    }
}

/// The stage a step belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// A gated generation (1-based); the loop's anchor belongs to the last one.
    Generation(u32),
    /// The polish stage.
    Polish,
    /// A refinement round (1-based).
    Refine(u32),
}

/// When a step runs. A step whose condition fails, or one of whose predecessors was
/// skipped, is skipped; a skipped gate counts as rejected (the best after it is its
/// opponent), so the steps after it still run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Condition {
    /// Always.
    Always,
    /// Only when the best player after this gate is a net, not the HCE (`step_polish`'s
    /// "no net beat generation 0"; the refinement needs a net to start from).
    BestIsNet(ContentId),
    /// Only when the best player after this gate is not generation 0 (`step_anchor`).
    BestChanged(ContentId),
    /// Only when this gate accepted (the polish net's anchor match).
    Accepted(ContentId),
}

impl Condition {
    /// The gate the condition reads.
    pub fn gate(&self) -> Option<ContentId> {
        match *self {
            Condition::Always => None,
            Condition::BestIsNet(g) | Condition::BestChanged(g) | Condition::Accepted(g) => Some(g),
        }
    }
}

/// One step of the job graph.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// Content id: SHA-256 of kind, configuration and predecessors' ids ([`ContentId`]).
    pub id: ContentId,
    /// A readable name, unique in the plan (`gen-2/train`, `polish/gate`).
    pub name: String,
    /// Its stage.
    pub stage: Stage,
    /// What it does.
    pub config: StepConfig,
    /// The steps it needs: those its configuration names, then its condition's gate.
    pub predecessors: Vec<ContentId>,
    /// Its seed, derived from its id ([`ContentId::seed`]).
    pub seed: u64,
    /// When it runs.
    pub when: Condition,
}

impl Step {
    /// The kind of step.
    pub fn kind(&self) -> StepKind {
        self.config.kind()
    }

    /// Its directory's name: the name with `/` as `-`, then the id's first 12 hex digits.
    pub fn dir_name(&self) -> String {
        format!("{}-{}", self.name.replace('/', "-"), self.id.short())
    }
}

/// A recipe's job graph.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// The steps, every one after its predecessors.
    pub steps: Vec<Step>,
    /// Files from outside the plan, by content hash.
    pub files: BTreeMap<ContentId, PathBuf>,
    /// The last gate: the best player after it is the recipe's net.
    pub result: ContentId,
}

/// Why a recipe could not be planned.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PlanError {
    /// The content hash of a file the recipe names was not given.
    #[error("no content hash given for {0}")]
    MissingHash(PathBuf),
}

impl Plan {
    /// The step with id `id`.
    pub fn step(&self, id: ContentId) -> Option<&Step> {
        self.steps.iter().find(|s| s.id == id)
    }

    /// The step named `name`.
    pub fn named(&self, name: &str) -> Option<&Step> {
        self.steps.iter().find(|s| s.name == name)
    }

    /// The steps that depend on `id`, directly or not.
    pub fn descendants(&self, id: ContentId) -> BTreeSet<ContentId> {
        let mut out = BTreeSet::from([id]);
        for s in &self.steps {
            if s.predecessors.iter().any(|p| out.contains(p)) {
                out.insert(s.id);
            }
        }
        out.remove(&id);
        out
    }
}

/// The job graph of `recipe`; `files` gives the content hash of each file the recipe names
/// (the starting net).
pub fn plan(recipe: &Recipe, files: &BTreeMap<PathBuf, ContentId>) -> Result<Plan, PlanError> {
    let mut b = Builder { recipe, steps: Vec::new(), files: BTreeMap::new(), rules: None };
    if let Some(path) = &recipe.variant_file {
        let hash = *files.get(path).ok_or_else(|| PlanError::MissingHash(path.clone()))?;
        b.files.insert(hash, path.clone());
        b.rules = Some(hash);
    }
    let start = match &recipe.start {
        Start::Hce => Player::Hce,
        Start::Net(path) => {
            let hash = *files.get(path).ok_or_else(|| PlanError::MissingHash(path.clone()))?;
            b.files.insert(hash, path.clone());
            Player::File(hash)
        }
    };
    let (positions, last_gate) = b.generations(&start);
    let mut result = last_gate;
    if recipe.matches.anchor {
        b.anchor("anchor", Stage::Generation(recipe.generations.count), last_gate, &start);
    }
    if recipe.polish.is_some() {
        result = b.polish(&positions, last_gate, &start);
    }
    if recipe.refine.is_some() {
        result = b.refine(positions, result);
    }
    Ok(Plan { steps: b.steps, files: b.files, result })
}

/// The planner's state: the steps so far.
struct Builder<'a> {
    recipe: &'a Recipe,
    steps: Vec<Step>,
    files: BTreeMap<ContentId, PathBuf>,
    /// The user variant's file hash, if any.
    rules: Option<ContentId>,
}

impl Builder<'_> {
    /// Adds a step and returns its id.
    fn push(
        &mut self,
        name: String,
        stage: Stage,
        config: StepConfig,
        when: Condition,
    ) -> ContentId {
        let mut predecessors = config.references();
        if let Some(g) = when.gate().filter(|g| !predecessors.contains(g)) {
            predecessors.push(g);
        }
        let json = serde_json::to_string(&config).expect("step configurations serialize");
        let id = ContentId::of_step(config.kind().name(), &json, &predecessors);
        let seed = id.seed();
        self.steps.push(Step { id, name, stage, config, predecessors, seed, when });
        id
    }

    /// Self-play (and its merge): the id of the step that holds its positions.
    /// `play`: games, nodes per move, more options.
    fn selfplay(
        &mut self,
        prefix: &str,
        stage: Stage,
        play: (u64, u64, &[String]),
        player: Player,
        when: Condition,
    ) -> ContentId {
        let (r, (games, nodes, args)) = (self.recipe, play);
        let shards = r.generations.shards;
        let config = StepConfig::Selfplay(SelfplayStep {
            variant: r.variant.clone(),
            rules: self.rules,
            games,
            nodes,
            shards,
            player,
            args: args.to_vec(),
            root_seed: r.seed,
        });
        let sp = self.push(format!("{prefix}/selfplay"), stage, config, when);
        if shards == 1 {
            return sp;
        }
        let merge = StepConfig::Merge(MergeStep { selfplay: sp, shards });
        self.push(format!("{prefix}/merge"), stage, merge, Condition::Always)
    }

    /// A training step of the recipe's variant; `settings`: epochs, lambda, more options.
    fn train(
        &mut self,
        name: String,
        stage: Stage,
        data: Vec<ContentId>,
        init: Player,
        settings: (u32, f64, &[String]),
        when: Condition,
    ) -> ContentId {
        let (epochs, lambda, args) = settings;
        let config = StepConfig::Train(TrainStep {
            variant: self.recipe.variant.clone(),
            rules: self.rules,
            data,
            init,
            epochs,
            lambda,
            args: args.to_vec(),
        });
        self.push(name, stage, config, when)
    }

    /// A match of the recipe's gate settings (with the GSPRT for a gate).
    fn matches(
        &mut self,
        name: String,
        stage: Stage,
        role: MatchRole,
        candidate: Player,
        opponent: Player,
        when: Condition,
    ) -> ContentId {
        let m = &self.recipe.matches;
        let sprt = (role == MatchRole::Gate).then_some(SprtBounds { elo0: m.elo0, elo1: m.elo1 });
        let config = StepConfig::Match(MatchStep {
            role,
            variant: self.recipe.variant.clone(),
            rules: self.rules,
            candidate,
            opponent,
            games: m.games,
            control: Control::Nodes(m.nodes),
            sprt,
            args: m.args.clone(),
        });
        self.push(name, stage, config, when)
    }

    /// The gated generations: every generation's positions step and the last gate.
    fn generations(&mut self, start: &Player) -> (Vec<ContentId>, ContentId) {
        let g = &self.recipe.generations;
        let mut positions: Vec<ContentId> = Vec::new();
        let mut best = start.clone();
        let mut last_gate = None;
        for n in 1..=g.count {
            let (stage, prefix) = (Stage::Generation(n), format!("gen-{n}"));
            let play = (g.games, g.nodes, g.selfplay_args.as_slice());
            let sp = self.selfplay(&prefix, stage, play, best.clone(), Condition::Always);
            positions.push(sp);
            let first = positions.len().saturating_sub(g.window as usize);
            let settings = (g.epochs, g.lambda, g.train_args.as_slice());
            let train = self.train(
                format!("{prefix}/train"),
                stage,
                positions[first..].to_vec(),
                best.clone(),
                settings,
                Condition::Always,
            );
            let gate = self.matches(
                format!("{prefix}/gate"),
                stage,
                MatchRole::Gate,
                Player::Net(train),
                best,
                Condition::Always,
            );
            best = Player::BestAfter(gate);
            last_gate = Some(gate);
        }
        (positions, last_gate.expect("a validated recipe has at least one generation"))
    }

    /// An anchor match: the best after `gate` against generation 0.
    fn anchor(&mut self, name: &str, stage: Stage, gate: ContentId, start: &Player) {
        let (best, when) = (Player::BestAfter(gate), Condition::BestChanged(gate));
        self.matches(name.into(), stage, MatchRole::Anchor, best, start.clone(), when);
    }

    /// The polish stage after the generations; returns its gate.
    fn polish(
        &mut self,
        positions: &[ContentId],
        last_gate: ContentId,
        start: &Player,
    ) -> ContentId {
        let r = self.recipe;
        let p = r.polish.as_ref().expect("polish stage");
        let init = match p.init {
            PolishInit::Scratch => Player::Hce,
            PolishInit::Previous => self.best_before_last_gate(start),
        };
        let settings = (r.generations.epochs, p.lambda, r.generations.train_args.as_slice());
        let when = Condition::BestIsNet(last_gate);
        let train = self.train(
            "polish/train".into(),
            Stage::Polish,
            positions.to_vec(),
            init,
            settings,
            when,
        );
        let best = Player::BestAfter(last_gate);
        let gate = self.matches(
            "polish/gate".into(),
            Stage::Polish,
            MatchRole::Gate,
            Player::Net(train),
            best,
            Condition::Always,
        );
        if r.matches.anchor {
            let when = Condition::Accepted(gate);
            self.matches(
                "polish/anchor".into(),
                Stage::Polish,
                MatchRole::Anchor,
                Player::Net(train),
                start.clone(),
                when,
            );
        }
        gate
    }

    /// The best player before the last generation (what that generation trained from).
    fn best_before_last_gate(&self, start: &Player) -> Player {
        let count = self.recipe.generations.count;
        let name = format!("gen-{count}/train");
        let train = self.steps.iter().find(|s| s.name == name);
        match train.map(|s| &s.config) {
            Some(StepConfig::Train(t)) => t.init.clone(),
            _ => start.clone(),
        }
    }

    /// The refinement rounds after the gate `last`; returns the last round's gate.
    fn refine(&mut self, mut positions: Vec<ContentId>, mut last: ContentId) -> ContentId {
        let f = self.recipe.refine.clone().expect("refine stage");
        for k in 1..=f.rounds {
            let (stage, prefix) = (Stage::Refine(k), format!("refine-{k}"));
            let best = Player::BestAfter(last);
            let when = Condition::BestIsNet(last);
            let play = (f.games, f.nodes, f.selfplay_args.as_slice());
            let sp = self.selfplay(&prefix, stage, play, best.clone(), when);
            positions.push(sp);
            let settings = (f.epochs, f.lambda, f.train_args.as_slice());
            let train = self.train(
                format!("{prefix}/train"),
                stage,
                positions.clone(),
                best.clone(),
                settings,
                Condition::Always,
            );
            let config = StepConfig::Match(MatchStep {
                role: MatchRole::Gate,
                variant: self.recipe.variant.clone(),
                rules: self.rules,
                candidate: Player::Net(train),
                opponent: best,
                games: f.match_games,
                control: Control::MovetimeMs(f.movetime_ms),
                sprt: None,
                args: Vec::new(),
            });
            last = self.push(format!("{prefix}/gate"), stage, config, Condition::Always);
        }
        last
    }
}
