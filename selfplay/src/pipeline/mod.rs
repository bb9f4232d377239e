//! The gated generation loop as a typed pipeline (issue 30 item 3), its pure part: a recipe
//! file per net, a planner from recipe to job graph, content ids and seeds, the one gate
//! decision and the lineage files. Nothing here runs a tool; execution comes later.
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
//!
//! An example recipe, the equivalent of `scripts/recipes/minishogi.env`:
//! `selfplay/examples/recipes/minishogi.toml`.

pub mod gate;
pub mod id;
pub mod lineage;
pub mod plan;
pub mod recipe;

pub use gate::{Decision, GateError, MatchStatus, MatchSummary, Reason, decide};
pub use id::ContentId;
pub use lineage::{Lineage, LineageError, LineageInput};
pub use plan::{
    Condition, Control, MatchRole, MatchStep, Plan, PlanError, Player, Stage, Step, StepConfig,
    StepKind, plan,
};
pub use recipe::{Recipe, RecipeError, RecipeFile};
