//! Rebalance search: which declared rule change brings a variant's first player to 0.50?
//!
//! Each candidate ([`candidates`]) is the base spec with its changes, a user variant of its
//! own (`<base>-<candidate>`). The search is successive halving: round 0 plays `games` games
//! per candidate at each strength level, every later round keeps the better half (closest
//! to 0.50 at the strongest level, over all its games so far) and plays twice as many more,
//! while rounds and the game budget last. Then the adjudication of every measured setting is
//! audited ([`crate::audit`]) and a ranked report written ([`report`]).
//!
//! Every piece of work is a [`Step`] with a directory under `--out`: a fine-tune
//! (`tune/<cand>`, [`tune`]), a self-play run (`steps/<cand>/r<k>-l<l>`: a `generate` run
//! directory, which resumes byte-identically) or an audit (`audit/<cand>-l<l>.json`). What is
//! pending is recomputed from those directories, so a rerun of the same command continues
//! where any interruption left it and ends with the same report; `rebalance.toml` holds the
//! search's settings (another search in the same `--out` is refused) and `state.json` where
//! it stands (both written atomically).

pub mod candidates;
pub mod report;
pub mod tune;

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::balance::stats::GroupReport;
use crate::config::{Budget, GenConfig, NetRef, Shard};
use crate::error::Result;
use crate::run::run_dir;
pub use crate::steps::Control;
use crate::steps::json_err;
pub(crate) use crate::steps::write;
use crate::study_error::StudyError;
pub use candidates::Candidate;

/// The owner name of a rebalance directory.
pub const OWNER: &str = "kage-selfplay rebalance";

/// The short fine-tune loop of each candidate's player.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FineTune {
    /// No fine-tune: the base net where it fits the candidate, else the template's player.
    None,
    /// Self-play of `games` games with the base player, then `kage-train` for `epochs`
    /// epochs (from the base net where its feature space fits the candidate).
    Short {
        /// Self-play games.
        games: u64,
        /// Training epochs.
        epochs: u32,
    },
}

/// Everything that decides the search's games and report (`rebalance.toml`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Settings {
    /// Producer.
    pub tool: String,
    /// Base variant name.
    pub base: String,
    /// Base spec text.
    pub base_spec: String,
    /// Candidates: name and changes in words.
    pub candidates: Vec<(String, String)>,
    /// Every step's config but variant, games, seed, budget and net.
    pub template: GenConfig,
    /// Strength levels, weakest first; the last one ranks.
    pub levels: Vec<Budget>,
    /// Round 0 games per candidate and level (round k plays `games * 2^k`).
    pub games: u64,
    /// Rounds at most.
    pub rounds: u32,
    /// Games of all steps together at most (a round that does not fit is not played).
    pub budget_games: Option<u64>,
    /// Adjudicated games audited per candidate and level (0: no audit).
    pub audit_sample: usize,
    /// The players' fine-tune.
    pub fine_tune: FineTune,
    /// The base net, when given.
    pub base_net: Option<NetRef>,
}

/// A search to run.
pub struct Search {
    /// The settings.
    pub settings: Settings,
    /// The candidates, as parsed.
    pub candidates: Vec<Candidate>,
    /// Output root.
    pub out: PathBuf,
    /// The `kage-train` program (for fine-tunes).
    pub kage_train: Option<PathBuf>,
}

/// A candidate made concrete: its variant and spec, or why it has none.
#[derive(Clone, Debug)]
pub struct Resolved {
    /// The candidate.
    pub cand: Candidate,
    /// Its variant name (`<base>-<name>`).
    pub variant: String,
    /// The compiled spec text, or why the change does not make a variant.
    pub spec: std::result::Result<String, String>,
}

/// One piece of work.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// The fine-tune of candidate `cand` (index).
    Tune(usize),
    /// Self-play of `cand` in `round` at `level`.
    Play {
        /// Candidate index.
        cand: usize,
        /// Round.
        round: u32,
        /// Level index.
        level: usize,
    },
    /// The adjudication audit of `cand` at `level`.
    Audit {
        /// Candidate index.
        cand: usize,
        /// Level index.
        level: usize,
    },
}

/// Where the search stands.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct State {
    /// Candidates in each round played or being played (names).
    pub rounds: Vec<Vec<String>>,
    /// Games of the rounds begun.
    pub games_planned: u64,
    /// Steps still to do now (their ids).
    pub pending: Vec<String>,
    /// Whether the search (and its audits) is over.
    pub done: bool,
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// The report is written.
    Done(report::Report),
    /// Stopped early; rerun to continue.
    Interrupted {
        /// Steps still pending.
        pending: usize,
    },
}

/// The spec text of a built-in variant (the engine's own `engine/variants/<name>/rules.toml`).
pub fn builtin_spec(name: &str) -> Option<&'static str> {
    kage_engine::VariantId::from_name(name).map(kage_engine::VariantId::spec_text)
}

impl Search {
    /// The candidates made concrete (a change that does not compile is kept, with why).
    pub fn resolve(&self) -> Result<Vec<Resolved>> {
        let base = &self.settings.base;
        self.candidates
            .iter()
            .map(|c| {
                let variant = format!("{base}-{}", c.name);
                crate::config::check_variant_name(&variant)?;
                let spec = candidates::apply(&self.settings.base_spec, &variant, c).and_then(|t| {
                    crate::config::resolve_variant(&variant, Some(&t))
                        .map(|_| t)
                        .map_err(|e| e.to_string().trim_start_matches("invalid config: ").into())
                });
                Ok(Resolved { cand: c.clone(), variant, spec })
            })
            .collect()
    }

    /// A step's id (its directory under `--out`, and `--step ID`).
    pub fn step_id(&self, s: &Step) -> String {
        let name = |i: usize| &self.candidates[i].name;
        match *s {
            Step::Tune(c) => format!("tune/{}", name(c)),
            Step::Play { cand, round, level } => format!("steps/{}/r{round}-l{level}", name(cand)),
            Step::Audit { cand, level } => format!("audit/{}-l{level}", name(cand)),
        }
    }

    /// The config of a self-play step.
    pub fn play_config(&self, r: &Resolved, round: u32, level: usize) -> Result<GenConfig> {
        let s = &self.settings;
        let mut c = s.template.clone();
        c.variant = r.variant.clone();
        c.variant_spec = r.spec.clone().ok();
        c.games = s.games << round;
        c.seed = s.template.seed.wrapping_add(u64::from(round)) & crate::config::MAX_TOML_INT;
        c.budget = s.levels[level];
        c.net = self.player_net(r)?;
        c.validated()
    }

    /// The net a candidate plays with: its fine-tuned net, else the base net where it fits.
    fn player_net(&self, r: &Resolved) -> Result<Option<NetRef>> {
        if self.settings.template.player != crate::config::PlayerKind::Search {
            return Ok(None);
        }
        match self.settings.fine_tune {
            FineTune::Short { .. } => tune::tuned_net(self, r).map(Some),
            FineTune::None => tune::base_net_for(self, r),
        }
    }

    /// Game files of `cand`'s self-play at `level` in rounds `0..=round`.
    pub fn game_files(&self, r: &Resolved, cand: usize, round: u32, level: usize) -> Vec<PathBuf> {
        (0..=round)
            .map(|k| {
                let step = Step::Play { cand, round: k, level };
                run_dir(&self.out.join(self.step_id(&step)), &r.variant, Shard::WHOLE)
                    .join("games.kdata")
            })
            .collect()
    }

    fn step_done(&self, res: &[Resolved], s: &Step) -> bool {
        let dir = self.out.join(self.step_id(s));
        match *s {
            Step::Tune(c) => tune::done(self, &res[c]),
            Step::Play { cand, .. } => {
                run_dir(&dir, &res[cand].variant, Shard::WHOLE).join("summary.json").exists()
            }
            Step::Audit { .. } => dir.with_extension("json").exists(),
        }
    }

    /// The pooled measurement of `cand` at `level` over rounds `0..=round`.
    pub fn measure(
        &self,
        res: &[Resolved],
        cand: usize,
        round: u32,
        level: usize,
    ) -> Option<GroupReport> {
        let files = self.game_files(&res[cand], cand, round, level);
        let rep = crate::balance::collect(&files, crate::balance::Options::default());
        rep.groups.into_iter().next()
    }

    /// Replays the search over what is on disk: the rounds, and the steps pending now.
    pub fn plan(&self, res: &[Resolved]) -> State {
        let s = &self.settings;
        let valid: Vec<usize> = (0..res.len()).filter(|&i| res[i].spec.is_ok()).collect();
        let mut state =
            State { rounds: Vec::new(), games_planned: 0, pending: Vec::new(), done: false };
        let names = |v: &[usize]| v.iter().map(|&i| self.candidates[i].name.clone()).collect();
        if s.fine_tune != FineTune::None && s.template.player == crate::config::PlayerKind::Search {
            let p: Vec<Step> =
                valid.iter().map(|&c| Step::Tune(c)).filter(|t| !self.step_done(res, t)).collect();
            if !p.is_empty() {
                state.pending = p.iter().map(|t| self.step_id(t)).collect();
                return state;
            }
        }
        let mut alive = valid.clone();
        let levels = s.levels.len();
        for round in 0..s.rounds {
            let cost = alive.len() as u64 * levels as u64 * (s.games << round);
            let over = s.budget_games.is_some_and(|b| state.games_planned + cost > b);
            if alive.is_empty() || (over && round > 0) {
                break;
            }
            state.games_planned += cost;
            state.rounds.push(names(&alive));
            let steps: Vec<Step> = alive
                .iter()
                .flat_map(|&cand| (0..levels).map(move |level| Step::Play { cand, round, level }))
                .filter(|t| !self.step_done(res, t))
                .collect();
            if !steps.is_empty() {
                state.pending = steps.iter().map(|t| self.step_id(t)).collect();
                return state;
            }
            if round + 1 < s.rounds {
                alive = self.halve(res, &alive, round);
            }
        }
        if s.audit_sample > 0 && s.template.adjudication_on() {
            let audits: Vec<Step> = valid
                .iter()
                .flat_map(|&cand| (0..levels).map(move |level| Step::Audit { cand, level }))
                .filter(|t| !self.step_done(res, t))
                .collect();
            state.pending = audits.iter().map(|t| self.step_id(t)).collect();
        }
        state.done = state.pending.is_empty();
        state
    }

    /// The better half of `alive` after `round` (closest to 0.50 at the strongest level).
    fn halve(&self, res: &[Resolved], alive: &[usize], round: u32) -> Vec<usize> {
        let top = self.settings.levels.len() - 1;
        let mut ranked: Vec<(f64, &str, usize)> = alive
            .iter()
            .map(|&c| {
                let d = self
                    .measure(res, c, round, top)
                    .map_or(1.0, |g| (g.first_player_score.score - 0.5).abs());
                (d, self.candidates[c].name.as_str(), c)
            })
            .collect();
        ranked.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(b.1)));
        let keep = alive.len().div_ceil(2);
        let mut kept: Vec<usize> = ranked.into_iter().take(keep).map(|r| r.2).collect();
        kept.sort_unstable();
        kept
    }

    /// The step of an id, if the search has one.
    pub fn parse_step(&self, id: &str) -> Option<Step> {
        let n = self.candidates.len();
        let levels = self.settings.levels.len();
        let mut all: Vec<Step> = (0..n).map(Step::Tune).collect();
        for cand in 0..n {
            for level in 0..levels {
                all.push(Step::Audit { cand, level });
                all.extend((0..self.settings.rounds).map(|round| Step::Play {
                    cand,
                    round,
                    level,
                }));
            }
        }
        all.into_iter().find(|s| self.step_id(s) == id)
    }

    /// Runs one step; `false` when it was interrupted.
    pub fn run_step(&self, res: &[Resolved], step: &Step, ctl: &Control) -> Result<bool> {
        let dir = self.out.join(self.step_id(step));
        match *step {
            Step::Tune(c) => tune::run(self, &res[c], ctl),
            Step::Play { cand, round, level } => {
                ctl.play(&self.play_config(&res[cand], round, level)?, dir)
            }
            Step::Audit { cand, level } => {
                let last = self.settings.rounds - 1;
                let files: Vec<PathBuf> = self
                    .game_files(&res[cand], cand, last, level)
                    .into_iter()
                    .filter(|f| f.exists())
                    .collect();
                let (sample, seed) = (self.settings.audit_sample, self.settings.template.seed);
                ctl.audit(&files, sample, seed, &dir.with_extension("json"))?;
                Ok(true)
            }
        }
    }

    /// Claims `--out` and records the settings, or checks that it holds this search.
    pub fn open(&self) -> Result<Vec<Resolved>> {
        crate::steps::claim(&self.out, OWNER, "rebalance.toml", &self.settings)?;
        self.resolve()
    }

    /// Runs the search (or continues it) until it is over or stopped; then writes the report.
    pub fn run(&self, ctl: &Control) -> Result<Outcome> {
        let res = self.open()?;
        let mut steps = 0usize;
        loop {
            let state = self.plan(&res);
            self.write_state(&state)?;
            if state.done {
                let rep = report::build(self, &res, &state)?;
                report::write(&self.out, &rep)?;
                return Ok(Outcome::Done(rep));
            }
            for id in &state.pending {
                if ctl.stops_before(steps) {
                    let pending = self.plan(&res).pending.len();
                    return Ok(Outcome::Interrupted { pending });
                }
                let step = self.parse_step(id).expect("planned steps parse");
                if ctl.progress {
                    eprintln!("rebalance: step {id}");
                }
                if !self.run_step(&res, &step, ctl)? {
                    let pending = self.plan(&res).pending.len();
                    return Ok(Outcome::Interrupted { pending });
                }
                steps += 1;
            }
        }
    }

    /// Runs the pending step `id` alone (a batch job's command); `Ok(false)`: interrupted.
    pub fn run_one(&self, id: &str, ctl: &Control) -> Result<bool> {
        let res = self.open()?;
        let state = self.plan(&res);
        let step = self.parse_step(id).ok_or_else(|| StudyError::NoStep(id.into()))?;
        if !state.pending.iter().any(|p| p == id) {
            return Err(StudyError::NotPending { id: id.into(), pending: state.pending }.into());
        }
        let done = self.run_step(&res, &step, ctl)?;
        self.write_state(&self.plan(&res))?;
        Ok(done)
    }

    /// Claims `--out` and says where the search stands (what `--emit-slurm` writes jobs of).
    pub fn state(&self) -> Result<State> {
        let res = self.open()?;
        let state = self.plan(&res);
        self.write_state(&state)?;
        Ok(state)
    }

    fn write_state(&self, state: &State) -> Result<()> {
        let text = serde_json::to_string_pretty(state).map_err(json_err)? + "\n";
        write(&self.out.join("state.json"), &text)
    }
}
