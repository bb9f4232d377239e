//! Command-line arguments and their translation into validated configs.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::{Args, Parser, Subcommand};
use kage_engine::VariantId;
use kage_engine::util::read::{cap, read_text_capped};
use kage_selfplay::config::{NetRef, Openings};
use kage_selfplay::steps::Control;
use kage_selfplay::{Budget, GenConfig, OpeningMode, PlayerFactory, PlayerKind, Shard};

#[derive(Parser)]
#[command(
    name = "kage-selfplay",
    version,
    about = "Self-play game and training-position generation for kage variants"
)]
pub struct Cli {
    #[command(subcommand)]
    pub cmd: Cmd,
}

#[derive(Subcommand)]
pub enum Cmd {
    /// Plays self-play games into a resumable run directory per variant.
    Generate(GenerateArgs),
    /// Balance report of game files, grouped by variant and settings: W/D/L by side, the
    /// first player's score with its interval and Elo, endings, lengths; text, JSON, HTML.
    Balance(BalanceArgs),
    /// Plays a sample of adjudicated games (resignations, adjudicated draws) on to their real
    /// end, adjudication off, same player and budget: how often adjudication was wrong.
    Audit(AuditArgs),
    /// Measures positions/s, games/s, thread scaling and self-play overhead (in memory).
    Bench(BenchArgs),
    /// Plays a match between two engines in game pairs: Elo, pentanomial counts, GSPRT,
    /// PGN, resumable.
    Match(crate::match_cli::MatchArgs),
    /// Writes a balanced opening book (EPD): distinct openings from the start position that
    /// kage's search, and any engine given, score within a margin of the start position.
    Book(crate::book_cli::BookArgs),
    /// Searches declared rule changes of a variant for the one that balances it: successive
    /// halving over candidates at two strength levels, audited, resumable; a ranked report.
    Rebalance(crate::rebalance_cli::RebalanceArgs),
    /// Balance against strength: the first player's score at a ladder of players (node
    /// budgets, nets), each player's Elo measured by matches between adjacent rungs.
    Ladder(crate::ladder_cli::LadderArgs),
    /// A net recipe (TOML) as a job graph: plan it, run it locally or as Slurm jobs,
    /// show its status, install its net with a lineage file, reproduce a net from one.
    Pipeline(crate::pipeline_cli::PipelineArgs),
    /// Elo, interval, LOS and GSPRT LLR of given W/D/L or pentanomial counts.
    Stats(crate::match_cli::StatsArgs),
    /// Committed match results (a folder of summary.json + match.json folders) as a Markdown
    /// table; --check / --write compare or rewrite a document's marked block.
    Results(crate::results_cli::ResultsArgs),
    /// kage's UCI loop on stdin/stdout (an outside engine for tests and benchmarks).
    #[command(hide = true)]
    Uci,
}

/// Random opening plies (shared by `generate`, `bench` and `match`).
#[derive(Args, Clone)]
pub struct OpeningArgs {
    /// Random plies at the start of each game (match: without --openings).
    #[arg(long, default_value_t = 8)]
    pub opening_plies: u32,
    /// How random opening plies are chosen: `multipv` (among the built-in search's MultiPV
    /// moves within --opening-margin of the best) or `uniform` (among all legal moves).
    #[arg(long, default_value = "multipv", hide_possible_values = true)]
    pub opening_mode: OpeningMode,
    /// MultiPV width for multipv openings.
    #[arg(long, default_value_t = 4)]
    pub opening_multipv: u32,
    /// Margin (cp) below the best line for multipv openings.
    #[arg(long, default_value_t = 80)]
    pub opening_margin: i32,
}

impl OpeningArgs {
    /// The openings as given.
    pub fn openings(&self) -> Openings {
        Openings {
            random_plies: self.opening_plies,
            mode: self.opening_mode,
            multipv: self.opening_multipv,
            margin_cp: self.opening_margin,
        }
    }
}

/// What decides the games (shared by `generate` and `bench`).
#[derive(Args, Clone)]
pub struct GameArgs {
    /// Fixed node budget per move (default 4000 unless --depth is given).
    #[arg(long, conflicts_with = "depth")]
    pub nodes: Option<u64>,
    /// Fixed depth per move instead of a node budget.
    #[arg(long)]
    pub depth: Option<u32>,
    /// Varies each search's node budget by up to this many percent either way (0..=90),
    /// reproducibly: variety from near-best play without random moves.
    #[arg(long, default_value_t = 0)]
    pub nodes_jitter: u32,
    /// Run seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Who plays: the engine's search, or a 1-ply capture-greedy player (pipeline tests).
    #[arg(long, default_value = "search", hide_possible_values = true)]
    pub player: PlayerKind,
    /// Transposition table per thread, MiB.
    #[arg(long, default_value_t = 8)]
    pub hash: usize,
    #[command(flatten)]
    pub opening: OpeningArgs,
    /// Resign when the score stays beyond this bound (cp)...
    #[arg(long, default_value_t = 1500)]
    pub resign_cp: i32,
    /// ...for this many consecutive plies, both sides agreeing (0: never resign).
    #[arg(long, default_value_t = 4)]
    pub resign_plies: u32,
    /// Adjudicate a draw when |score| stays at or below this bound (cp)...
    #[arg(long, default_value_t = 8)]
    pub draw_cp: i32,
    /// ...for this many consecutive plies (0: never)...
    #[arg(long, default_value_t = 12)]
    pub draw_plies: u32,
    /// ...from this ply on.
    #[arg(long, default_value_t = 80)]
    pub draw_min_ply: u32,
    /// Ply cap: the game is a draw after this many plies (0: no cap).
    #[arg(long, default_value_t = 300)]
    pub max_plies: u32,
    /// NNUE network to evaluate with (repeatable: each variant uses the network made for it;
    /// with `--variant all`, variants without one use the hand-crafted evaluation).
    #[arg(long)]
    pub net: Vec<PathBuf>,
    /// Evaluation without --net: `default` (the variant's shipped network where it has one,
    /// recorded in the run's config as `shipped:<variant>` with its hash) or `hce` (the
    /// hand-crafted evaluation).
    #[arg(long, value_enum, default_value_t = EvalChoice::Default)]
    pub eval: EvalChoice,
}

/// The evaluation of self-play without `--net`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum EvalChoice {
    /// The variant's shipped network, or the hand-crafted evaluation where it has none.
    Default,
    /// The hand-crafted evaluation.
    Hce,
}

/// `--variant`'s help where a built-in variant is asked for: the ones the binary knows.
pub fn builtin_help() -> String {
    format!("Built-in variant: {}", VariantId::names())
}

/// The one variant a command plays: a built-in or a user variant's file (shared by `match`,
/// `book` and `ladder`).
#[derive(Args)]
pub struct VariantArgs {
    #[arg(long, required_unless_present = "variant_file", help = builtin_help())]
    pub variant: Option<String>,
    /// A user variant written as a spec file (as `generate --variant-file`).
    #[arg(long, value_name = "FILE")]
    pub variant_file: Option<PathBuf>,
}

impl VariantArgs {
    /// The variant's name and, for a user variant, its spec text; a built-in name is passed
    /// on as given.
    pub fn resolve(&self) -> Result<(String, Option<String>)> {
        match user_variant(self.variant.as_deref(), self.variant_file.as_deref())? {
            Some((name, text)) => Ok((name, Some(text))),
            None => Ok((self.variant.clone().context("give --variant or --variant-file")?, None)),
        }
    }

    /// As [`VariantArgs::resolve`], a built-in name checked: a known variant, and not `all`
    /// (refused with `refusal`).
    pub fn one(&self, refusal: &str) -> Result<(String, Option<String>)> {
        let (name, spec) = self.resolve()?;
        if spec.is_none() {
            variant_list(&name)?;
            if name == "all" {
                bail!("{refusal}");
            }
        }
        Ok((name, spec))
    }
}

#[derive(Args)]
pub struct GenerateArgs {
    #[arg(long, help = format!(
        "Variant: {}, or all (the default); with --variant-file, only the file's own name",
        VariantId::names()
    ))]
    pub variant: Option<String>,
    /// Plays a user variant written as a spec file (TOML, as `kage --variant-file`): its
    /// text goes into the run config, so reports show it as a variant of its own.
    #[arg(long, value_name = "FILE")]
    pub variant_file: Option<PathBuf>,
    /// Games per variant (all shards together).
    #[arg(long, default_value_t = 100)]
    pub games: u64,
    /// Worker threads, one game each (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Output root; each variant goes to OUT/<variant>[/shard-IIII-of-NNNN].
    #[arg(long, default_value = "selfplay-data")]
    pub out: PathBuf,
    /// This shard (game indices i with i % shards == shard).
    #[arg(long, default_value_t = 0, requires = "shards")]
    pub shard: u32,
    /// Number of shards.
    #[arg(long, default_value_t = 1)]
    pub shards: u32,
    /// Games per batch file (the unit of atomic writes and resume).
    #[arg(long, default_value_t = 8)]
    pub batch_size: u64,
    /// No progress bar or progress lines.
    #[arg(long)]
    pub quiet: bool,
    /// Resume a run that another build of kage-selfplay began (its games then pool two
    /// builds); without it such a resume is refused.
    #[arg(long)]
    pub allow_rebuild: bool,
    /// When stderr is not a terminal: a plain progress line every S seconds (done/total,
    /// rate, ETA, running results by side; 0: after every game).
    #[arg(long, default_value_t = 30.0)]
    pub progress_secs: f64,
    #[command(flatten)]
    pub game: GameArgs,
}

#[derive(Args)]
pub struct BalanceArgs {
    /// Game files or directories (searched recursively for game files).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Writes the chart of the first player's score per group (SVG) here.
    #[arg(long)]
    pub svg: Option<PathBuf>,
    /// Writes the report as JSON here.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Writes the report as one self-contained HTML page (inline SVG charts) here.
    #[arg(long)]
    pub html: Option<PathBuf>,
    /// Plies that make an opening (default: each run's sampled opening plies, else 8).
    #[arg(long)]
    pub opening_plies: Option<u32>,
    /// Adjudication audits (`kage-selfplay audit --json`) to show with the groups of the same
    /// settings (repeatable).
    #[arg(long)]
    pub audit: Vec<PathBuf>,
    /// Title of the HTML page.
    #[arg(long, default_value = "kage balance report")]
    pub title: String,
}

#[derive(Args)]
pub struct AuditArgs {
    /// Game files or directories (searched recursively for game files).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Adjudicated games played on per group (variant and settings).
    #[arg(long, default_value_t = 50)]
    pub sample: usize,
    /// Seed of the sample.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Writes the audit as JSON here (with every game played on).
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// A progress line on stderr every S seconds (games played on, rate, ETA).
    #[arg(long, default_value_t = 30.0)]
    pub progress_secs: f64,
    /// No progress lines.
    #[arg(long)]
    pub quiet: bool,
}

#[derive(Args)]
pub struct BenchArgs {
    /// Variant or `all`.
    #[arg(long, default_value = "all")]
    pub variant: String,
    /// Games per variant and thread count.
    #[arg(long, default_value_t = 8)]
    pub games: u64,
    /// Thread counts to compare, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "1,2")]
    pub threads: Vec<usize>,
    /// Writes the rows as JSON here.
    #[arg(long)]
    pub json: Option<PathBuf>,
    #[command(flatten)]
    pub game: GameArgs,
}

/// Progress of the resumable multi-step jobs (shared by `rebalance` and `ladder`).
#[derive(Args, Clone)]
pub struct StepProgressArgs {
    /// No progress lines.
    #[arg(long)]
    pub quiet: bool,
    /// When stderr is not a terminal: a progress line every S seconds.
    #[arg(long, default_value_t = 30.0)]
    pub progress_secs: f64,
}

impl StepProgressArgs {
    /// How to run a job with `threads` (default: all cores) and at most `max_steps` steps.
    pub fn control<'a>(
        &self,
        threads: Option<usize>,
        max_steps: Option<usize>,
        stop: &'a AtomicBool,
    ) -> Result<Control<'a>> {
        Ok(Control {
            threads: crate::cli::threads(threads),
            progress: !self.quiet,
            progress_every: progress_every(self.progress_secs)?,
            stop,
            max_steps,
        })
    }
}

/// `--progress-secs` as a duration.
pub fn progress_every(secs: f64) -> Result<Duration> {
    Duration::try_from_secs_f64(secs)
        .map_err(|_| anyhow::anyhow!("--progress-secs must be a number of seconds >= 0"))
}

/// How often to print progress: every `--progress-secs`, or never with `--quiet`.
pub fn progress_interval(quiet: bool, secs: f64) -> Result<Option<Duration>> {
    if quiet { Ok(None) } else { progress_every(secs).map(Some) }
}

/// Says that a job in `out` stopped with `pending` steps to go: exit code 130.
pub fn stopped(out: &std::path::Path, pending: usize) -> std::process::ExitCode {
    println!(
        "{}: stopped with {pending} step(s) pending; rerun the same command to continue",
        out.display()
    );
    std::process::ExitCode::from(130)
}

/// Writes `text` to `p` (atomically).
pub fn write(p: &std::path::Path, text: &str) -> Result<()> {
    kage_data::atomic::write_atomic(p, text.as_bytes())
        .with_context(|| format!("writing {}", p.display()))
}

/// Writes `value` to `p` as pretty JSON with a final newline (atomically).
pub fn write_json(p: &std::path::Path, value: &impl serde::Serialize) -> Result<()> {
    write(p, &(serde_json::to_string_pretty(value)? + "\n"))
}

/// Default node budget per move.
pub const DEFAULT_NODES: u64 = 4000;

/// `all` or one variant name, checked.
pub fn variant_list(v: &str) -> Result<Vec<String>> {
    if v == "all" {
        return Ok(VariantId::ALL.iter().map(|v| v.name().to_owned()).collect());
    }
    match VariantId::from_name(v) {
        Some(id) => Ok(vec![id.name().to_owned()]),
        None => bail!("unknown variant {v:?} (expected all or one of {})", VariantId::names()),
    }
}

/// Thread count: as asked (at least 1), else the machine's cores.
pub fn threads(t: Option<usize>) -> usize {
    t.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())).max(1)
}

/// The network of `nets` made for `variant` (path and hash), if any. With one variant
/// asked, a network for another variant is an error; with `all`, variants without a
/// network of their own use the hand-crafted evaluation.
fn net_for(nets: &[PathBuf], variant: &str, strict: bool) -> Result<Option<NetRef>> {
    let mut found = None;
    for path in nets {
        let bytes = kage_engine::nnue::read_file(path)
            .with_context(|| format!("loading network {}", path.display()))?;
        let net_variant = net_variant(&bytes, variant, strict)
            .with_context(|| format!("loading network {}", path.display()))?;
        if net_variant == variant {
            if found.is_some() {
                bail!("two networks given for {variant}");
            }
            let hash = kage_selfplay::player::file_hash(&bytes);
            found = Some(NetRef { path: path.display().to_string(), hash });
        } else if strict {
            bail!("network {} is for variant {net_variant:?}, not {variant:?}", path.display());
        }
    }
    Ok(found)
}

/// The variant a network file is for: a kage net's header names it. A Fairy-Stockfish-format
/// net names none: with one variant asked it is taken for that one (its size and layout are
/// checked when it is loaded for it); with `all`, for the built-in variant its size fits.
fn net_variant(bytes: &[u8], variant: &str, strict: bool) -> Result<String> {
    use kage_engine::nnue::fsf;
    if !fsf::is_fsf_net(bytes) {
        return Ok(kage_engine::nnue::Network::load(bytes)?.header().variant.clone());
    }
    if strict {
        return Ok(variant.to_owned());
    }
    Ok(fsf::guess_variant(bytes)?.map_or_else(String::new, |id| id.name().to_owned()))
}

impl GameArgs {
    /// The config of one variant (a user variant's spec text given) at the given budget
    /// options: what `rebalance` makes its steps' template of.
    pub fn config_for(
        &self,
        variant: &str,
        games: u64,
        batch_size: u64,
        spec: Option<&str>,
    ) -> Result<GenConfig> {
        self.config(variant, games, batch_size, true, spec)
    }

    fn config(
        &self,
        variant: &str,
        games: u64,
        batch_size: u64,
        strict: bool,
        spec: Option<&str>,
    ) -> Result<GenConfig> {
        let budget = match (self.nodes, self.depth) {
            (_, Some(d)) => Budget::Depth(d),
            (n, None) => Budget::Nodes(n.unwrap_or(DEFAULT_NODES)),
        };
        let mut c = GenConfig::new(variant, games, self.seed, budget);
        c.player = self.player;
        c.hash_mb = self.hash;
        c.batch_size = batch_size;
        c.variant_spec = spec.map(str::to_owned);
        c.nodes_jitter_pct = self.nodes_jitter;
        c.openings = self.opening.openings();
        let a = &mut c.adjudication;
        a.resign_cp = self.resign_cp;
        a.resign_plies = self.resign_plies;
        a.draw_cp = self.draw_cp;
        a.draw_plies = self.draw_plies;
        a.draw_min_ply = self.draw_min_ply;
        a.max_plies = self.max_plies;
        c.net = net_for(&self.net, variant, strict)?;
        if c.net.is_none()
            && self.eval == EvalChoice::Default
            && self.player == kage_selfplay::config::PlayerKind::Search
        {
            c.net = kage_selfplay::player::shipped_ref(variant);
        }
        Ok(c.validated()?)
    }
}

/// The user variant of `--variant-file` (its name and spec text), checked against `--variant`
/// (shared by `generate` and `match`).
pub fn user_variant(
    variant: Option<&str>,
    file: Option<&std::path::Path>,
) -> Result<Option<(String, String)>> {
    let Some(path) = file else { return Ok(None) };
    let text = read_text_capped(path, cap::TEXT, "variant spec")
        .with_context(|| format!("reading variant file {}", path.display()))?;
    if kage_engine::variant::file_format(path, &text) == kage_engine::variant::FileFormat::FsfIni {
        return ini_variant(variant, path);
    }
    let v = kage_data::variant::from_spec_cached(&text)
        .with_context(|| format!("variant file {}", path.display()))?;
    if VariantId::from_name(&v.name).is_some() {
        bail!(
            "variant file {}: the name {:?} is a built-in variant's; give the user variant a \
             name of its own",
            path.display(),
            v.name
        );
    }
    if let Some(asked) = variant.filter(|a| *a != v.name) {
        bail!(
            "--variant {asked} and --variant-file {} (the user variant {:?}) name different \
             variants; give --variant-file alone, or --variant {:?} with it",
            path.display(),
            v.name,
            v.name
        );
    }
    Ok(Some((v.name.clone(), text)))
}

/// A section of a Fairy-Stockfish `variants.ini` (`--variant` names it; a file of one section
/// needs no name), as the engine translates it: its name and kage spec text, or `None` when
/// the section plays a built-in variant's game and `--variant` names that built-in.
pub fn ini_variant(
    variant: Option<&str>,
    path: &std::path::Path,
) -> Result<Option<(String, String)>> {
    let u = kage_engine::variant::read_user_variant(path, variant)
        .with_context(|| format!("variant file {}", path.display()))?;
    let name = u.variant.name.clone();
    match u.spec_text {
        Some(text) => Ok(Some((name, text))),
        None if variant == Some(name.as_str()) => Ok(None),
        None => bail!(
            "variant file {}: section {name:?} plays kage's built-in {name}; use --variant {name}",
            path.display()
        ),
    }
}

impl GenerateArgs {
    /// The user variant of `--variant-file`: its name and spec text.
    pub fn user_variant(&self) -> Result<Option<(String, String)>> {
        user_variant(self.variant.as_deref(), self.variant_file.as_deref())
    }

    pub fn variants(&self) -> Result<Vec<String>> {
        match self.user_variant()? {
            Some((name, _)) => Ok(vec![name]),
            None => variant_list(self.variant.as_deref().unwrap_or("all")),
        }
    }

    pub fn shard(&self) -> Result<Shard> {
        Ok(Shard::new(self.shard, self.shards)?)
    }

    pub fn config(&self, variant: &str) -> Result<GenConfig> {
        let user = self.user_variant()?;
        let spec = user.as_ref().filter(|(name, _)| name == variant).map(|(_, t)| t.as_str());
        let strict = self.variant.as_deref().is_some_and(|v| v != "all");
        self.game.config(variant, self.games, self.batch_size, strict, spec)
    }
}

impl BenchArgs {
    pub fn config(&self, variant: &str) -> Result<GenConfig> {
        if self.threads.is_empty() || self.threads.contains(&0) {
            bail!("--threads needs one or more counts of at least 1");
        }
        self.game.config(variant, self.games, 1, self.variant != "all", None)
    }
}

/// The player factory of a config.
pub fn factory(cfg: &GenConfig) -> Result<PlayerFactory> {
    Ok(kage_selfplay::factory_for(cfg)?)
}
