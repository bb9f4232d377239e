//! Balance against strength: the first player's score at a ladder of players (node budgets,
//! nets), each player's strength in Elo measured by matches.
//!
//! Each [`Rung`] is a player. The ladder plays, in this order: a self-play run per rung
//! (`play/r<k>`: a `generate` run directory, resumable and byte-identical), a match between
//! each pair of adjacent rungs (`match/r<k>-r<k+1>`: a `match` directory, game pairs with
//! sides swapped, the upper rung first), and where adjudication is on an adjudication audit
//! per rung (`audit/r<k>.json`). The matches chain into an Elo scale anchored at the first
//! rung (0; [`elo`]), and the report ([`report`]) puts each rung's Elo on the x axis of the
//! balance chart and table. What is pending is recomputed from those directories, so a
//! rerun of the same command continues where an interruption left it and writes the same
//! report; `ladder.toml` holds the settings (another ladder in the same `--out` is refused).

pub mod elo;
pub mod report;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::config::{Budget, GenConfig, NetRef, Shard};
use crate::error::{Result, SelfplayError};
use crate::matches::runner::MatchError;
use crate::matches::{EngineKind, EngineSpec, LimitSpec, MatchConfig, OpeningSpec};
use crate::run::run_dir;
pub use crate::steps::Control;
pub(crate) use crate::steps::write;
use crate::study_error::StudyError;

/// The owner name of a ladder directory.
pub const OWNER: &str = "kage-selfplay ladder";

/// Nodes of the MultiPV searches of a match's random openings.
pub const OPENING_NODES: u64 = 2000;

/// What a rung evaluates with.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RungEval {
    /// The variant's shipped network (the hand-crafted evaluation where it has none).
    Default,
    /// The hand-crafted evaluation.
    Hce,
    /// A network file.
    Net(NetRef),
}

/// One player of the ladder.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rung {
    /// Its name in reports and match PGNs.
    pub name: String,
    /// Nodes per move.
    pub nodes: u64,
    /// Its evaluation.
    pub eval: RungEval,
}

/// A match's error as the ladder's: the library's own errors as they are, the match's own
/// refusals and failures as [`StudyError::Match`].
fn match_err(e: MatchError) -> SelfplayError {
    match e {
        MatchError::Selfplay(e) => e,
        e => StudyError::Match(Box::new(e)).into(),
    }
}

impl Rung {
    /// Parses `nodes=N[,net=FILE|,eval=hce|,eval=default][,name=NAME]` (a net file is read
    /// and hashed here).
    pub fn parse(text: &str) -> Result<Rung> {
        let (mut nodes, mut eval, mut name) = (None, RungEval::Default, None);
        let rung = || text.to_owned();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let Some((k, v)) = part.split_once('=') else {
                return Err(StudyError::RungNotKeyValue { rung: rung(), part: part.into() }.into());
            };
            match (k, v) {
                ("nodes", v) => {
                    let n = v.parse::<u64>().ok().filter(|n| (1..=LIMIT).contains(n));
                    nodes =
                        Some(n.ok_or_else(|| StudyError::RungNodes {
                            rung: rung(),
                            value: v.into(),
                        })?);
                }
                ("net", p) => {
                    let bytes = kage_engine::nnue::read_file(Path::new(p)).map_err(|cause| {
                        StudyError::RungNet { rung: rung(), path: p.into(), cause }
                    })?;
                    let hash = crate::player::file_hash(&bytes);
                    eval = RungEval::Net(NetRef { path: p.to_owned(), hash });
                }
                ("eval", "hce") => eval = RungEval::Hce,
                ("eval", "default") => eval = RungEval::Default,
                ("name", n) if !n.is_empty() && n.len() <= 64 => name = Some(n.to_owned()),
                _ => {
                    return Err(StudyError::RungSetting { rung: rung(), part: part.into() }.into());
                }
            }
        }
        let nodes = nodes.ok_or_else(|| StudyError::RungNoNodes(rung()))?;
        let name = name.unwrap_or_else(|| match &eval {
            RungEval::Default => format!("n{nodes}"),
            RungEval::Hce => format!("n{nodes}-hce"),
            RungEval::Net(n) => {
                let stem = Path::new(&n.path).file_stem().map(|s| s.to_string_lossy());
                format!("n{nodes}-{}", stem.unwrap_or_default())
            }
        });
        Ok(Rung { name, nodes, eval })
    }

    /// The player in words: `nodes 4000, net g3.nnue`.
    pub fn describe(&self) -> String {
        match &self.eval {
            RungEval::Default => format!("nodes {}, default eval", self.nodes),
            RungEval::Hce => format!("nodes {}, hce", self.nodes),
            RungEval::Net(n) => {
                let file = Path::new(&n.path).file_name().map(|s| s.to_string_lossy());
                format!("nodes {}, net {} ({})", self.nodes, file.unwrap_or_default(), n.hash)
            }
        }
    }
}

const LIMIT: u64 = crate::config::MAX_TOML_INT;

/// Everything that decides the ladder's games and report (`ladder.toml`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Settings {
    /// Producer.
    pub tool: String,
    /// The rungs, weakest first by intent (the scale is anchored at the first).
    pub rungs: Vec<Rung>,
    /// Every self-play run's config but budget and net (variant, games, seed, openings,
    /// adjudication, ...).
    pub template: GenConfig,
    /// Games of each match between adjacent rungs (whole pairs).
    pub match_games: u64,
    /// Where match games start (a book, or the template's random openings).
    pub match_openings: OpeningSpec,
    /// Adjudicated games audited per rung (0: none).
    pub audit_sample: usize,
}

impl Settings {
    /// Checks the rungs (two or more, distinct names and players) and the counts.
    pub fn validated(self) -> Result<Settings> {
        if self.rungs.len() < 2 {
            return Err(StudyError::TooFewRungs.into());
        }
        for (i, r) in self.rungs.iter().enumerate() {
            for o in &self.rungs[..i] {
                if o.name == r.name {
                    return Err(StudyError::RungTwice(r.name.clone()).into());
                }
                if (o.nodes, &o.eval) == (r.nodes, &r.eval) {
                    let (a, b) = (o.name.clone(), r.name.clone());
                    return Err(StudyError::OnePlayer(a, b).into());
                }
            }
            crate::config::check_variant_name(&r.name)
                .map_err(|_| StudyError::RungName(r.name.clone()))?;
        }
        crate::config::check_games(self.match_games)?;
        let template = self.template.validated()?;
        Ok(Settings { template, ..self })
    }
}

/// A ladder to run.
pub struct Ladder {
    /// The settings.
    pub settings: Settings,
    /// Output root.
    pub out: PathBuf,
}

/// One piece of work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Self-play of rung k.
    Play(usize),
    /// The match of rung k+1 against rung k.
    Match(usize),
    /// The adjudication audit of rung k.
    Audit(usize),
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// The report is written.
    Done(Box<report::Report>),
    /// Stopped early; rerun to continue.
    Interrupted {
        /// Steps still pending.
        pending: usize,
    },
}

impl Ladder {
    /// A step's id (its path under `--out`).
    pub fn step_id(&self, s: Step) -> String {
        match s {
            Step::Play(k) => format!("play/r{k}"),
            Step::Match(k) => format!("match/r{k}-r{}", k + 1),
            Step::Audit(k) => format!("audit/r{k}"),
        }
    }

    /// Every step, in the order they run.
    pub fn steps(&self) -> Vec<Step> {
        let n = self.settings.rungs.len();
        let mut v: Vec<Step> = (0..n).map(Step::Play).collect();
        v.extend((0..n - 1).map(Step::Match));
        if self.settings.audit_sample > 0 && self.settings.template.adjudication_on() {
            v.extend((0..n).map(Step::Audit));
        }
        v
    }

    /// The self-play config of rung `k`.
    pub fn play_config(&self, k: usize) -> Result<GenConfig> {
        let r = &self.settings.rungs[k];
        let mut c = self.settings.template.clone();
        c.budget = Budget::Nodes(r.nodes);
        c.net = match &r.eval {
            RungEval::Default => crate::player::shipped_ref(&c.variant),
            RungEval::Hce => None,
            RungEval::Net(n) => Some(n.clone()),
        };
        c.validated()
    }

    /// The game file of rung `k`'s self-play.
    pub fn games_file(&self, k: usize) -> PathBuf {
        let dir = self.out.join(self.step_id(Step::Play(k)));
        run_dir(&dir, &self.settings.template.variant, Shard::WHOLE).join("games.kdata")
    }

    fn engine(&self, k: usize) -> EngineSpec {
        let r = &self.settings.rungs[k];
        let (net, hce) = match &r.eval {
            RungEval::Default => (None, false),
            RungEval::Hce => (None, true),
            RungEval::Net(n) => (Some(PathBuf::from(&n.path)), false),
        };
        let hash_mb = self.settings.template.hash_mb;
        let kind = EngineKind::Builtin { net, hash_mb, params: None, hce, nodes: Some(r.nodes) };
        EngineSpec { name: r.name.clone(), kind }
    }

    /// The match of rung `k + 1` (first engine) against rung `k`.
    pub fn match_config(&self, k: usize, ctl: &Control) -> Result<MatchConfig> {
        let t = &self.settings.template;
        let upper = &self.settings.rungs[k + 1];
        let cfg = MatchConfig {
            variant: t.variant.clone(),
            variant_spec: t.variant_spec.clone(),
            engines: [self.engine(k + 1), self.engine(k)],
            limit: LimitSpec::Nodes {
                nodes: upper.nodes,
                jitter: f64::from(t.nodes_jitter_pct) / 100.0,
            },
            openings: self.settings.match_openings.clone(),
            seed: t.seed,
            max_plies: if t.adjudication.max_plies == 0 { 400 } else { t.adjudication.max_plies },
            adjudication: crate::config::Adjudication { max_plies: 0, ..t.adjudication },
            games: self.settings.match_games,
            threads: ctl.threads,
            sprt: None,
            out: self.out.join(self.step_id(Step::Match(k))),
            pgn_scores: false,
            hang: Duration::from_secs(60),
            max_failures: 3,
            progress_games: 10,
            progress_secs: ctl.progress_every.as_secs_f64(),
            quiet: !ctl.progress,
            random_openings: false,
            allow_rebuilt: false,
            command: Vec::new(),
        };
        cfg.validated().map_err(match_err)
    }

    /// The counts of a complete match `k`, read from its `summary.json`.
    pub fn match_counts(&self, k: usize) -> Option<crate::matches::Counts> {
        let path = self.out.join(self.step_id(Step::Match(k))).join("summary.json");
        let text = std::fs::read_to_string(path).ok()?;
        let v: serde_json::Value = serde_json::from_str(&text).ok()?;
        let complete = v.get("status").and_then(|s| s.as_str()) == Some("complete");
        let pairs = v.get("pairs").and_then(serde_json::Value::as_u64)?;
        if !complete || pairs != self.settings.match_games.div_ceil(2) {
            return None;
        }
        serde_json::from_value(v.get("counts")?.clone()).ok()
    }

    /// The audit file of rung `k`.
    pub fn audit_file(&self, k: usize) -> PathBuf {
        self.out.join(format!("{}.json", self.step_id(Step::Audit(k))))
    }

    fn done(&self, s: Step) -> bool {
        match s {
            Step::Play(k) => self.games_file(k).with_file_name("summary.json").exists(),
            Step::Match(k) => self.match_counts(k).is_some(),
            Step::Audit(k) => self.audit_file(k).exists(),
        }
    }

    /// The steps still to do, in order.
    pub fn pending(&self) -> Vec<Step> {
        self.steps().into_iter().filter(|&s| !self.done(s)).collect()
    }

    /// Runs one step; `false` when it was interrupted.
    pub fn run_step(&self, step: Step, ctl: &Control) -> Result<bool> {
        match step {
            Step::Play(k) => ctl.play(&self.play_config(k)?, self.out.join(self.step_id(step))),
            Step::Match(k) => {
                let cfg = self.match_config(k, ctl)?;
                let r = crate::matches::run(&cfg, ctl.stop).map_err(match_err)?;
                Ok(r.status != crate::matches::MatchStatus::Interrupted)
            }
            Step::Audit(k) => {
                let (sample, seed) = (self.settings.audit_sample, self.settings.template.seed);
                ctl.audit(&[self.games_file(k)], sample, seed, &self.audit_file(k))?;
                Ok(true)
            }
        }
    }

    /// Claims `--out` and records the settings, or checks that it holds this ladder.
    pub fn open(&self) -> Result<()> {
        crate::steps::claim(&self.out, OWNER, "ladder.toml", &self.settings)
    }

    /// Runs the ladder (or continues it) until it is over or stopped; then writes the
    /// report.
    pub fn run(&self, ctl: &Control) -> Result<Outcome> {
        self.open()?;
        let total = self.steps().len();
        for (i, step) in self.pending().into_iter().enumerate() {
            if ctl.stops_before(i) {
                return Ok(Outcome::Interrupted { pending: self.pending().len() });
            }
            if ctl.progress {
                let done = total - self.pending().len();
                eprintln!("ladder: step {} ({}/{total} done)", self.step_id(step), done);
            }
            if !self.run_step(step, ctl)? {
                return Ok(Outcome::Interrupted { pending: self.pending().len() });
            }
        }
        let rep = report::build(self)?;
        report::write_all(&self.out, &rep)?;
        Ok(Outcome::Done(Box::new(rep)))
    }
}
