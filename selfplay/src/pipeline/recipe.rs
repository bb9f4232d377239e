//! A net recipe: one TOML file per net, with three stages (the gated generations, an
//! optional polish, an optional refinement) and the match settings they share.
//!
//! [`RecipeFile`] is the file as written; every default is written once, in the `Default`
//! impls of this module (they are the defaults of the bash loop this pipeline replaced, its
//! `loop_defaults` and `refine_net.sh`). [`Recipe::from_toml`] parses and validates a file into a
//! [`Recipe`], or names the bad field in a [`RecipeError`].
//!
//! Seeds are not settings of the stages: the one `seed` of the recipe enters the self-play
//! steps' configurations, and every step's seed is derived from its content id
//! ([`super::ContentId::seed`]), so the bash scripts' `SEED+G`, `SEED+1000+G`, `REFINE_SEED`
//! and the like have no counterpart here.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// A recipe as written in its TOML file (see `scripts/recipes/minishogi.toml`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecipeFile {
    /// The variant: a built-in variant's name, or the name of the user variant that
    /// `variant_file` defines.
    pub variant: String,
    /// A user variant's file (a kage spec or an FSF `variants.ini`), read relative to the
    /// directory the pipeline is started in; absent: `variant` is built in.
    #[serde(default)]
    pub variant_file: Option<PathBuf>,
    /// The root seed: part of every self-play step's configuration.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Generation 0: the hand-crafted evaluation or a net file.
    #[serde(default)]
    pub start: Start,
    /// The gated generations.
    #[serde(default)]
    pub generations: Generations,
    /// The gate and anchor matches.
    #[serde(default)]
    pub matches: Matches,
    /// The polish stage; absent: none.
    #[serde(default)]
    pub polish: Option<PolishFile>,
    /// The refinement stage; absent: none.
    #[serde(default)]
    pub refine: Option<Refine>,
}

/// The root seed when a recipe gives none (`SEED` of `loop_defaults`).
fn default_seed() -> u64 {
    1
}

/// Generation 0's player.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Start {
    /// The hand-crafted evaluation (`start = "hce"`, the default).
    #[default]
    Hce,
    /// A net file (`start = { net = "engine/nets/shinobi.nnue" }`).
    Net(PathBuf),
}

/// The gated generations: self-play by the best player, training, a gate match.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Generations {
    /// Number of generations (`GENERATIONS`).
    pub count: u32,
    /// Self-play games per generation (`GAMES`).
    pub games: u64,
    /// Search nodes per self-play move (`NODES`).
    pub nodes: u64,
    /// Self-play shards per generation (`SHARDS`): more than 1 adds a merge step.
    pub shards: u32,
    /// Generations of positions each training reads (`WINDOW`).
    pub window: u32,
    /// Training epochs (`EPOCHS`).
    pub epochs: u32,
    /// Training target mix, 0 (game result) to 1 (search score) (`LAMBDA`).
    pub lambda: f64,
    /// More `kage-selfplay generate` options (`SELFPLAY_ARGS`).
    pub selfplay_args: Vec<String>,
    /// More `kage-train` options (`TRAIN_ARGS`).
    pub train_args: Vec<String>,
}

impl Default for Generations {
    fn default() -> Self {
        Generations {
            count: 3,
            games: 8000,
            nodes: 2000,
            shards: 1,
            window: 3,
            epochs: 40,
            lambda: 0.75,
            selfplay_args: Vec::new(),
            train_args: Vec::new(),
        }
    }
}

/// The gate matches (GSPRT) and the anchor matches (a fixed number of games).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Matches {
    /// At most this many games per gate, exactly this many per anchor (`MATCH_GAMES`).
    pub games: u64,
    /// Search nodes per move (`MATCH_NODES`).
    pub nodes: u64,
    /// GSPRT H0 (`ELO0`).
    pub elo0: f64,
    /// GSPRT H1 (`ELO1`).
    pub elo1: f64,
    /// More `kage-selfplay match` options (`MATCH_ARGS`).
    pub args: Vec<String>,
    /// Whether the best net plays generation 0 at the end (`ANCHOR`).
    pub anchor: bool,
}

impl Default for Matches {
    fn default() -> Self {
        Matches {
            games: 400,
            nodes: 4000,
            elo0: 0.0,
            elo1: 10.0,
            args: vec!["--nodes-jitter".into(), "5".into()],
            anchor: true,
        }
    }
}

/// The polish stage as written: a net trained on every generation's positions.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PolishFile {
    /// Target mix (`POLISH_LAMBDA`); absent: the generations' `lambda`.
    pub lambda: Option<f64>,
    /// Where training starts (`POLISH_INIT`).
    pub init: PolishInit,
}

/// Where the polish training starts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PolishInit {
    /// From scratch (the default).
    #[default]
    Scratch,
    /// From the best net before the last generation.
    Previous,
}

/// The polish stage, validated.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Polish {
    /// Target mix.
    pub lambda: f64,
    /// Where training starts.
    pub init: PolishInit,
}

/// The refinement stage (the bash loop's `refine_net.sh`): rounds of self-play by the best net, a
/// net trained from it on every earlier position, and a match at fixed time per move.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Refine {
    /// Rounds (`REFINE_STEP`: round k also trains on rounds 1..k's games).
    pub rounds: u32,
    /// Self-play games per round (`REFINE_GAMES`).
    pub games: u64,
    /// Nodes per self-play move (`REFINE_NODES`).
    pub nodes: u64,
    /// More self-play options (`REFINE_SELFPLAY_ARGS`).
    pub selfplay_args: Vec<String>,
    /// Training epochs (`REFINE_EPOCHS`).
    pub epochs: u32,
    /// Target mix (`REFINE_LAMBDA`).
    pub lambda: f64,
    /// More `kage-train` options (`REFINE_TRAIN_ARGS`).
    pub train_args: Vec<String>,
    /// Games of the match (`REFINE_MATCH_GAMES`).
    pub match_games: u64,
    /// Milliseconds per move in the match (`REFINE_MOVETIME`).
    pub movetime_ms: u64,
}

impl Default for Refine {
    fn default() -> Self {
        Refine {
            rounds: 1,
            games: 12000,
            nodes: 2000,
            selfplay_args: Vec::new(),
            epochs: 40,
            lambda: 1.0,
            train_args: Vec::new(),
            match_games: 200,
            movetime_ms: 25,
        }
    }
}

/// A validated recipe: what the planner ([`super::plan()`]) reads.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Recipe {
    /// The variant.
    pub variant: String,
    /// The user variant's file, if the variant is not built in.
    pub variant_file: Option<PathBuf>,
    /// The root seed.
    pub seed: u64,
    /// Generation 0.
    pub start: Start,
    /// The gated generations.
    pub generations: Generations,
    /// The gate and anchor matches.
    pub matches: Matches,
    /// The polish stage, if any.
    pub polish: Option<Polish>,
    /// The refinement stage, if any.
    pub refine: Option<Refine>,
}

/// Why a recipe was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RecipeError {
    /// The file could not be read.
    #[error("{path}: {message}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The system's message.
        message: String,
    },
    /// Not TOML, or not a recipe's shape (an unknown or mistyped field).
    #[error("recipe: {0}")]
    Parse(String),
    /// A field's value is out of range.
    #[error("recipe field `{field}`: {message}")]
    Invalid {
        /// The field, dotted (`generations.window`).
        field: String,
        /// What is wrong.
        message: String,
    },
}

impl RecipeError {
    /// The field an [`RecipeError::Invalid`] names.
    pub fn field(&self) -> Option<&str> {
        match self {
            RecipeError::Invalid { field, .. } => Some(field),
            _ => None,
        }
    }
}

/// Options the pipeline sets itself; the `*_args` lists may not repeat them.
const OWNED_OPTIONS: &[&str] = &[
    "--seed",
    "--out",
    "--variant",
    "--variant-file",
    "--threads",
    "--resume",
    "--games",
    "--nodes",
    "--net",
    "--eval",
    "--data",
    "--init-net",
    "--epochs",
    "--lambda",
    "--engine",
    "--sprt",
    "--elo0",
    "--elo1",
    "--movetime",
    "--shard",
    "--shards",
];

impl Recipe {
    /// Reads and validates the recipe file `path`.
    pub fn load(path: &Path) -> Result<Recipe, RecipeError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| RecipeError::Read { path: path.into(), message: e.to_string() })?;
        Recipe::from_toml(&text)
    }

    /// Parses and validates recipe text.
    pub fn from_toml(text: &str) -> Result<Recipe, RecipeError> {
        let file: RecipeFile =
            toml::from_str(text).map_err(|e| RecipeError::Parse(e.to_string()))?;
        Recipe::validate(file)
    }

    /// Checks every field of `file` and resolves the defaults that depend on other fields.
    pub fn validate(file: RecipeFile) -> Result<Recipe, RecipeError> {
        match &file.variant_file {
            None if kage_engine::Variant::by_name(&file.variant).is_err() => {
                let why =
                    format!("{:?} is not a built-in variant (and no variant_file)", file.variant);
                return Err(invalid("variant", why));
            }
            Some(p) if p.as_os_str().is_empty() => {
                return Err(invalid("variant_file", "an empty path".into()));
            }
            _ if file.variant.is_empty() => return Err(invalid("variant", "empty".into())),
            _ => {}
        }
        if let Start::Net(p) = &file.start
            && p.as_os_str().is_empty()
        {
            return Err(invalid("start.net", "an empty path".into()));
        }
        check_generations(&file.generations)?;
        check_matches(&file.matches)?;
        let polish = file.polish.map(|p| resolve_polish(p, file.generations.lambda)).transpose()?;
        if let Some(r) = &file.refine {
            check_refine(r)?;
        }
        Ok(Recipe {
            variant: file.variant,
            variant_file: file.variant_file,
            seed: file.seed,
            start: file.start,
            generations: file.generations,
            matches: file.matches,
            polish,
            refine: file.refine,
        })
    }
}

fn invalid(field: &str, message: String) -> RecipeError {
    RecipeError::Invalid { field: field.into(), message }
}

/// `value >= 1`, else an error naming `field`.
fn at_least_one(field: &str, value: u64) -> Result<(), RecipeError> {
    if value == 0 {
        return Err(invalid(field, "must be at least 1".into()));
    }
    Ok(())
}

fn check_lambda(field: &str, lambda: f64) -> Result<(), RecipeError> {
    if !(0.0..=1.0).contains(&lambda) {
        return Err(invalid(field, format!("{lambda} is not between 0 and 1")));
    }
    Ok(())
}

fn check_args(field: &str, args: &[String]) -> Result<(), RecipeError> {
    for a in args {
        let owned = OWNED_OPTIONS
            .iter()
            .any(|o| a == o || a.strip_prefix(o).is_some_and(|r| r.starts_with('=')));
        if owned {
            return Err(invalid(field, format!("{a} is set by the pipeline itself")));
        }
        if a.is_empty() {
            return Err(invalid(field, "an empty argument".into()));
        }
    }
    Ok(())
}

fn check_generations(g: &Generations) -> Result<(), RecipeError> {
    at_least_one("generations.count", g.count.into())?;
    at_least_one("generations.games", g.games)?;
    at_least_one("generations.nodes", g.nodes)?;
    at_least_one("generations.shards", g.shards.into())?;
    if u64::from(g.shards) > g.games {
        return Err(invalid("generations.shards", format!("more shards than {} games", g.games)));
    }
    at_least_one("generations.window", g.window.into())?;
    at_least_one("generations.epochs", g.epochs.into())?;
    check_lambda("generations.lambda", g.lambda)?;
    check_args("generations.selfplay_args", &g.selfplay_args)?;
    check_args("generations.train_args", &g.train_args)
}

fn check_matches(m: &Matches) -> Result<(), RecipeError> {
    at_least_one("matches.games", m.games)?;
    at_least_one("matches.nodes", m.nodes)?;
    if !m.elo0.is_finite() {
        return Err(invalid("matches.elo0", format!("{} is not a number", m.elo0)));
    }
    if !(m.elo1.is_finite() && m.elo1 > m.elo0) {
        return Err(invalid("matches.elo1", format!("{} is not above elo0 {}", m.elo1, m.elo0)));
    }
    check_args("matches.args", &m.args)
}

fn resolve_polish(p: PolishFile, loop_lambda: f64) -> Result<Polish, RecipeError> {
    let lambda = p.lambda.unwrap_or(loop_lambda);
    check_lambda("polish.lambda", lambda)?;
    Ok(Polish { lambda, init: p.init })
}

fn check_refine(r: &Refine) -> Result<(), RecipeError> {
    at_least_one("refine.rounds", r.rounds.into())?;
    at_least_one("refine.games", r.games)?;
    at_least_one("refine.nodes", r.nodes)?;
    at_least_one("refine.epochs", r.epochs.into())?;
    check_lambda("refine.lambda", r.lambda)?;
    at_least_one("refine.match_games", r.match_games)?;
    at_least_one("refine.movetime_ms", r.movetime_ms)?;
    check_args("refine.selfplay_args", &r.selfplay_args)?;
    check_args("refine.train_args", &r.train_args)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_minimal_recipe_takes_the_loop_defaults() {
        let r = Recipe::from_toml("variant = \"minishogi\"").expect("valid");
        assert_eq!(r.seed, 1);
        assert_eq!(r.start, Start::Hce);
        assert_eq!(r.generations, Generations::default());
        assert_eq!(r.matches, Matches::default());
        assert_eq!((r.polish, r.refine), (None, None));
    }

    #[test]
    fn polish_lambda_defaults_to_the_loops() {
        let r = Recipe::from_toml("variant = \"shinobi\"\n[generations]\nlambda = 1.0\n[polish]\n")
            .expect("valid");
        assert_eq!(r.polish, Some(Polish { lambda: 1.0, init: PolishInit::Scratch }));
    }

    #[test]
    fn a_net_start_parses() {
        let r = Recipe::from_toml("variant = \"shinobi\"\nstart = { net = \"a.nnue\" }")
            .expect("valid");
        assert_eq!(r.start, Start::Net("a.nnue".into()));
    }
}
