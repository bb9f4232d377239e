//! The gated generation loop as a typed pipeline (issue 30 item 3): a recipe file per net,
//! a pure planner from recipe to job graph, content ids and seeds, the one gate decision, the
//! lineage files, and the executor that runs the graph locally or as Slurm jobs
//! (`kage-selfplay pipeline`).
//!
//! * [`recipe`](crate::pipeline::recipe): the recipe TOML
//!   ([`RecipeFile`](crate::pipeline::RecipeFile), defaults written once) validated into a
//!   [`Recipe`](crate::pipeline::Recipe), or a [`RecipeError`](crate::pipeline::RecipeError)
//!   naming the field.
//! * [`plan`](mod@crate::pipeline::plan): [`plan()`](crate::pipeline::plan()), the pure
//!   planner from recipe to [`Step`](crate::pipeline::Step)s (a DAG).
//! * [`id`](crate::pipeline::id): [`ContentId`](crate::pipeline::ContentId), a step's SHA-256
//!   over its kind, configuration and predecessors' ids, and the seed derived from it.
//! * [`gate`](crate::pipeline::gate): [`decide`](crate::pipeline::decide), the one gate
//!   decision on a [`MatchSummary`](crate::pipeline::MatchSummary).
//! * [`lineage`](crate::pipeline::lineage): [`Lineage`](crate::pipeline::Lineage), the
//!   `lineage.toml` of a step directory or a shipped net.
//! * [`state`](crate::pipeline::state): the run-time decisions (who the best player is,
//!   which step runs or is skipped), pure.
//! * [`layout`](crate::pipeline::layout) and [`command`](crate::pipeline::command): a run
//!   directory's paths and each step's tool command lines, pure.
//! * [`exec`](crate::pipeline::exec): [`Run`](crate::pipeline::Run), the executor;
//!   [`slurm`](crate::pipeline::slurm): the same steps as Slurm batch jobs.
//!
//! The recipes: `scripts/recipes/*.toml` (one per variant's net, and `tiny.toml`).

pub mod command;
pub mod exec;
pub mod gate;
pub mod id;
pub mod layout;
pub mod lineage;
pub mod plan;
pub mod recipe;
pub mod slurm;
pub mod state;

pub use exec::{Options, PipelineError, Run, StepResult, reproduce};
pub use gate::{Decision, GateError, MatchStatus, MatchSummary, Reason, decide};
pub use id::ContentId;
pub use lineage::{FileError, Lineage, LineageFile, RecordedLineage, RecordedStep};
pub use plan::{
    Condition, Control, MatchRole, MatchStep, Plan, PlanError, Player, Stage, Step, StepConfig,
    StepKind, plan,
};
pub use recipe::{Recipe, RecipeError, RecipeFile};
pub use state::{Action, Outcome, Resolved, RunState};
