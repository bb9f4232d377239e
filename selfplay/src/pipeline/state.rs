//! What a run of a plan knows at run time: each finished step's [`Outcome`], and from it the
//! players behind [`Player::BestAfter`] and whether a step runs now ([`RunState::action`]).
//! Pure: the outcomes are given (the executor reads them from the step directories), so the
//! local runner, a Slurm job and the unit tests take the same decisions.
//!
//! The rules (those of the bash loop, [`super::Condition`] has them per condition):
//! * a step waits until every predecessor has an outcome;
//! * it is skipped when a step whose output it reads (positions, a net) was skipped, or when
//!   its condition fails;
//! * a gate that was skipped counts as rejected: the best player after it is its opponent,
//!   so the steps after it still run.

use std::collections::BTreeMap;

use super::id::ContentId;
use super::plan::{Condition, Plan, Player, Step, StepConfig};

/// How a step ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// It ran; a gate says whether its candidate was accepted.
    Done {
        /// The gate's decision (`None` for steps that are not gates).
        accepted: Option<bool>,
    },
    /// It did not run (its condition failed, or an input was skipped).
    Skipped,
}

/// The player a [`Player`] stands for once the gates it depends on have run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resolved {
    /// The hand-crafted evaluation.
    Hce,
    /// A net from outside the plan (by content hash).
    File(ContentId),
    /// The net of a train step.
    Net(ContentId),
}

/// What to do with a step now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// It has an outcome already.
    Finished(Outcome),
    /// A predecessor has no outcome yet.
    Wait(ContentId),
    /// It does not run, for the reason given.
    Skip(String),
    /// It runs.
    Run,
}

/// Why a player could not be resolved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StateError {
    /// A gate it depends on has no outcome yet.
    #[error("the gate {0} has not run yet")]
    Pending(String),
    /// The id names no match step of the plan.
    #[error("step {0} is not a match of this plan")]
    NotAMatch(ContentId),
}

/// A plan and the outcomes of its finished steps.
#[derive(Clone, Debug)]
pub struct RunState<'a> {
    plan: &'a Plan,
    outcomes: BTreeMap<ContentId, Outcome>,
}

impl<'a> RunState<'a> {
    /// The state of `plan` with these outcomes.
    pub fn new(plan: &'a Plan, outcomes: BTreeMap<ContentId, Outcome>) -> Self {
        RunState { plan, outcomes }
    }

    /// The plan.
    pub fn plan(&self) -> &'a Plan {
        self.plan
    }

    /// The outcome of step `id`, if it has one.
    pub fn outcome(&self, id: ContentId) -> Option<Outcome> {
        self.outcomes.get(&id).copied()
    }

    /// Records an outcome.
    pub fn set(&mut self, id: ContentId, outcome: Outcome) {
        self.outcomes.insert(id, outcome);
    }

    /// The name of step `id` (its hex id when the plan has none).
    fn name(&self, id: ContentId) -> String {
        self.plan.step(id).map_or_else(|| id.to_string(), |s| s.name.clone())
    }

    /// The player `player` stands for now.
    pub fn resolve(&self, player: &Player) -> Result<Resolved, StateError> {
        match player {
            Player::Hce => Ok(Resolved::Hce),
            Player::File(h) => Ok(Resolved::File(*h)),
            Player::Net(t) => Ok(Resolved::Net(*t)),
            Player::BestAfter(g) => {
                let Some(StepConfig::Match(m)) = self.plan.step(*g).map(|s| &s.config) else {
                    return Err(StateError::NotAMatch(*g));
                };
                match self.outcome(*g) {
                    None => Err(StateError::Pending(self.name(*g))),
                    Some(Outcome::Done { accepted: Some(true) }) => self.resolve(&m.candidate),
                    Some(_) => self.resolve(&m.opponent),
                }
            }
        }
    }

    /// The steps whose outputs `step` reads: positions and nets (not the gates behind a
    /// [`Player::BestAfter`], which only choose a player).
    fn read_outputs(&self, step: &Step) -> Result<Vec<ContentId>, StateError> {
        let mut out = Vec::new();
        let mut net = |p: &Player| -> Result<(), StateError> {
            if let Resolved::Net(t) = self.resolve(p)? {
                out.push(t);
            }
            Ok(())
        };
        match &step.config {
            StepConfig::Selfplay(s) => net(&s.player)?,
            StepConfig::Merge(m) => return Ok(vec![m.selfplay]),
            StepConfig::Train(t) => {
                net(&t.init)?;
                out.extend(&t.data);
            }
            StepConfig::Match(m) => {
                net(&m.candidate)?;
                net(&m.opponent)?;
            }
        }
        Ok(out)
    }

    /// Whether `cond` holds (every gate it reads has an outcome).
    fn holds(&self, cond: Condition) -> Result<bool, StateError> {
        Ok(match cond {
            Condition::Always => true,
            Condition::BestIsNet(g) => self.resolve(&Player::BestAfter(g))? != Resolved::Hce,
            Condition::BestChanged(g) => {
                matches!(self.resolve(&Player::BestAfter(g))?, Resolved::Net(_))
            }
            Condition::Accepted(g) => {
                self.outcome(g) == Some(Outcome::Done { accepted: Some(true) })
            }
        })
    }

    /// What to do with `step` now.
    pub fn action(&self, step: &Step) -> Action {
        if let Some(o) = self.outcome(step.id) {
            return Action::Finished(o);
        }
        if let Some(p) = step.predecessors.iter().find(|p| self.outcome(**p).is_none()) {
            return Action::Wait(*p);
        }
        // Every predecessor has an outcome, so nothing below is pending.
        let Ok(reads) = self.read_outputs(step) else { return Action::Wait(step.id) };
        if let Some(s) = reads.iter().find(|r| self.outcome(**r) == Some(Outcome::Skipped)) {
            return Action::Skip(format!("its input {} was skipped", self.name(*s)));
        }
        match self.holds(step.when) {
            Ok(true) => Action::Run,
            Ok(false) => Action::Skip(skip_reason(step.when, &self.name_of_gate(step.when))),
            Err(_) => Action::Wait(step.id),
        }
    }

    /// The name of the gate a condition reads.
    fn name_of_gate(&self, cond: Condition) -> String {
        cond.gate().map(|g| self.name(g)).unwrap_or_default()
    }

    /// The recipe's result: the player best after the plan's last gate.
    pub fn result(&self) -> Result<Resolved, StateError> {
        self.resolve(&Player::BestAfter(self.plan.result))
    }
}

/// Why a step whose condition failed is skipped.
fn skip_reason(cond: Condition, gate: &str) -> String {
    match cond {
        Condition::Always => "never".into(),
        Condition::BestIsNet(_) => format!("no net is the best player after {gate}"),
        Condition::BestChanged(_) => format!("the best player after {gate} is generation 0"),
        Condition::Accepted(_) => format!("{gate} did not accept its candidate"),
    }
}
