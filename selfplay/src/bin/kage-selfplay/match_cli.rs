//! Arguments of `kage-selfplay match` and `stats` and their translation into a
//! [`MatchConfig`].

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::Args;
use kage_selfplay::config::Openings;
use kage_selfplay::matches::{
    EngineKind, EngineSpec, LimitSpec, MatchConfig, Model, OpeningSpec, Order, Sprt, UciSpec, stats,
};

// In a match, `--variant-file`'s help says more than the shared one. (Clap drops the final
// period of a one-line doc comment; this text leaves it out likewise.)
#[derive(Args)]
#[command(mut_arg("variant_file", |a| a.help(
    "A user variant written as a spec file (as `generate --variant-file`); outside engines \
     must know it under its name"
)))]
pub struct MatchArgs {
    #[command(flatten)]
    pub variant: crate::cli::VariantArgs,
    /// A player, given twice (the first one's results are reported): `builtin [net=FILE]
    /// [params=FILE] [eval=hce] [hash=MB] [name=N]` (without net= or eval=hce: the variant's
    /// shipped network where it has one), or an outside UCI engine `cmd=PROGRAM [arg=A]... [dir=DIR]
    /// [name=N] [option.NAME=VALUE]...` (setoption lines, in order).
    #[arg(long = "engine", num_args = 1.., required = true, value_name = "KEY=VALUE")]
    pub engine: Vec<String>,
    /// The `--engine` values by occurrence (filled in from the argument matches).
    #[arg(skip)]
    pub engines: Vec<Vec<String>>,
    /// Match directory: match.json, games.jsonl (resume log), games.pgn, summary.json.
    #[arg(long)]
    pub out: PathBuf,
    /// Games at most (whole pairs: odd counts round up).
    #[arg(long, default_value_t = 100)]
    pub games: u64,
    /// Games at once.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Nodes per move.
    #[arg(long, group = "limit")]
    pub nodes: Option<u64>,
    /// Vary the node count of each move by up to this many percent.
    #[arg(long, default_value_t = 0.0, requires = "nodes")]
    pub nodes_jitter: f64,
    /// Depth per move.
    #[arg(long, group = "limit")]
    pub depth: Option<u32>,
    /// Milliseconds per move.
    #[arg(long, group = "limit")]
    pub movetime: Option<u64>,
    /// Clock: seconds + increment seconds, e.g. `10+0.1`; a flag fall loses.
    #[arg(long, group = "limit")]
    pub tc: Option<String>,
    /// Milliseconds a clock may run below zero before the flag falls.
    #[arg(long, default_value_t = 50)]
    pub margin: u64,
    /// A game still running after this many plies is a draw.
    #[arg(long, default_value_t = 400)]
    pub max_plies: u32,
    /// Resign a game whose score (as both engines report it) stays beyond this bound (cp)...
    #[arg(long, default_value_t = 1000)]
    pub resign_cp: i32,
    /// ...for this many consecutive plies (0: never).
    #[arg(long, default_value_t = 0)]
    pub resign_plies: u32,
    /// Adjudicate a draw when |score| stays at or below this bound (cp)...
    #[arg(long, default_value_t = 10)]
    pub draw_cp: i32,
    /// ...for this many consecutive plies (0: never)...
    #[arg(long, default_value_t = 0)]
    pub draw_plies: u32,
    /// ...from this ply on.
    #[arg(long, default_value_t = 80)]
    pub draw_min_ply: u32,
    /// Opening positions (one FEN or EPD line each) instead of random plies.
    #[arg(long)]
    pub openings: Option<PathBuf>,
    /// Random openings (--opening-plies ...) even against an outside engine, which otherwise
    /// needs --openings FILE (a balanced book: `kage-selfplay book`).
    #[arg(long)]
    pub random_openings: bool,
    /// Order of file openings.
    #[arg(long, default_value = "random", hide_possible_values = true)]
    pub order: Order,
    #[command(flatten)]
    pub opening: crate::cli::OpeningArgs,
    /// Nodes of the opening search.
    #[arg(long, default_value_t = 2000)]
    pub opening_nodes: u64,
    /// Seed of openings and node jitter.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Stop at a GSPRT bound (on the pentanomial counts).
    #[arg(long)]
    pub sprt: bool,
    #[command(flatten)]
    pub test: TestArgs,
    /// Score and time comments in the PGN.
    #[arg(long)]
    pub pgn_scores: bool,
    /// Milliseconds beyond the asked time after which an engine counts as hanging.
    #[arg(long, default_value_t = 10_000)]
    pub hang_ms: u64,
    /// Engine failures in a row that stop the match.
    #[arg(long, default_value_t = 3)]
    pub max_failures: u32,
    /// Progress line every N games...
    #[arg(long, default_value_t = 10)]
    pub progress_games: u64,
    /// ...or every S seconds.
    #[arg(long, default_value_t = 30.0)]
    pub progress_secs: f64,
    /// No progress lines.
    #[arg(long)]
    pub quiet: bool,
    /// Resume even though an engine's build changed since the match began (another program
    /// file, `id name` or kage build): its games then pool two builds.
    #[arg(long)]
    pub allow_rebuilt_engines: bool,
}

/// GSPRT parameters (shared by `match --sprt` and `stats`).
#[derive(Args)]
pub struct TestArgs {
    /// H0 bound (Elo).
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    pub elo0: f64,
    /// H1 bound (Elo).
    #[arg(long, default_value_t = 5.0, allow_negative_numbers = true)]
    pub elo1: f64,
    #[arg(long, default_value_t = 0.05)]
    pub alpha: f64,
    #[arg(long, default_value_t = 0.05)]
    pub beta: f64,
    /// `logistic` or `normalized` Elo.
    #[arg(long, default_value = "logistic", hide_possible_values = true)]
    pub model: Model,
}

impl TestArgs {
    fn sprt(&self) -> Result<Sprt> {
        Ok(Sprt::new(self.elo0, self.elo1, self.alpha, self.beta, self.model)?)
    }
}

#[derive(Args)]
pub struct StatsArgs {
    /// Trinomial counts L,D,W.
    #[arg(long, conflicts_with = "penta", required_unless_present = "penta")]
    pub tri: Option<String>,
    /// Pentanomial counts LL,LD,DD+WL,WD,WW.
    #[arg(long)]
    pub penta: Option<String>,
    #[command(flatten)]
    pub test: TestArgs,
}

fn counts(text: &str, n: usize) -> Result<Vec<u64>> {
    let v: Vec<u64> = text
        .split(',')
        .map(|t| t.trim().parse::<u64>().with_context(|| format!("bad count {t:?} in {text:?}")))
        .collect::<Result<_>>()?;
    if v.len() != n {
        bail!("expected {n} comma-separated counts, got {} in {text:?}", v.len());
    }
    Ok(v)
}

/// `kage-selfplay stats`: the report of given counts.
pub fn run_stats(a: &StatsArgs) -> Result<()> {
    let results = match (&a.tri, &a.penta) {
        (Some(t), _) => counts(t, 3)?,
        (_, Some(p)) => counts(p, 5)?,
        _ => bail!("give --tri L,D,W or --penta LL,LD,DD+WL,WD,WW"),
    };
    print!("{}", stats::report(&results, Some(a.test.sprt()?)));
    Ok(())
}

/// One `--engine` occurrence, parsed.
pub fn engine_spec(tokens: &[String], hash: usize) -> Result<EngineSpec> {
    let mut name = None;
    let (mut builtin, mut net, mut params, mut hash_mb) = (false, None, None, hash);
    let mut nodes = None;
    let mut hce = false;
    let (mut cmd, mut args, mut dir, mut options) = (None, Vec::new(), None, Vec::new());
    for t in tokens {
        if t == "builtin" {
            builtin = true;
            continue;
        }
        let Some((k, v)) = t.split_once('=') else {
            bail!("engine setting {t:?} is not KEY=VALUE (or `builtin`)");
        };
        match k {
            "name" => name = Some(v.to_owned()),
            "net" => net = Some(PathBuf::from(v)),
            "params" => params = Some(PathBuf::from(v)),
            "eval" => match v {
                "hce" => hce = true,
                "default" => hce = false,
                _ => bail!("eval={v:?}: expected eval=hce or eval=default"),
            },
            "hash" => hash_mb = v.parse().with_context(|| format!("bad hash {v:?}"))?,
            "nodes" => nodes = Some(v.parse().with_context(|| format!("bad nodes {v:?}"))?),
            "cmd" => cmd = Some(v.to_owned()),
            "arg" => args.push(v.to_owned()),
            "args" => args.extend(v.split_whitespace().map(str::to_owned)),
            "dir" => dir = Some(PathBuf::from(v)),
            _ => match k.strip_prefix("option.") {
                Some(o) if !o.is_empty() => options.push((o.to_owned(), v.to_owned())),
                _ => bail!(
                    "unknown engine setting {k:?} (expected name, net, params, eval, hash, nodes, \
                     cmd, arg, args, dir or option.NAME)"
                ),
            },
        }
    }
    let kind = match (builtin, cmd) {
        (true, Some(_)) => bail!("an engine is either `builtin` or `cmd=...`, not both"),
        (true, None) => {
            if !options.is_empty() || !args.is_empty() || dir.is_some() {
                bail!(
                    "the builtin engine takes only net=, params=, eval=, hash=, nodes= and name="
                );
            }
            if net.is_some() && params.is_some() {
                bail!("give the builtin engine net= or params=, not both");
            }
            if net.is_some() && hce {
                bail!("give the builtin engine net= or eval=hce, not both");
            }
            EngineKind::Builtin { net, hash_mb, params, hce, nodes }
        }
        (false, Some(cmd)) => {
            if nodes.is_some() {
                bail!(
                    "nodes= is for the builtin engine; an outside engine plays the match's limit"
                );
            }
            if net.is_some() || params.is_some() || hce {
                bail!(
                    "net= is for the builtin engine; give an outside engine its network with option.EvalFile=FILE"
                );
            }
            EngineKind::Uci(UciSpec { cmd, args, dir, options })
        }
        (false, None) => bail!("an engine needs `builtin` or `cmd=PROGRAM`"),
    };
    let name = name.unwrap_or_else(|| match &kind {
        EngineKind::Builtin { net: Some(n), .. } => format!(
            "kage-{}",
            n.file_stem().map_or("net".into(), |s| s.to_string_lossy().into_owned())
        ),
        EngineKind::Builtin { params: Some(p), .. } => format!(
            "kage-{}",
            p.file_stem().map_or("params".into(), |s| s.to_string_lossy().into_owned())
        ),
        EngineKind::Builtin { hce: true, .. } => "kage-hce".into(),
        EngineKind::Builtin { net: None, .. } => "kage".into(),
        EngineKind::Uci(u) => std::path::Path::new(&u.cmd)
            .file_name()
            .map_or(u.cmd.clone(), |s| s.to_string_lossy().into_owned()),
    });
    Ok(EngineSpec { name, kind })
}

/// The openings of a match: those of the book `file` played in `order`, else random plies as
/// `random` sets them (MultiPV at least 1), chosen by searches of `nodes` nodes (at least 1).
pub fn match_openings(
    file: Option<&Path>,
    order: Order,
    random: Openings,
    nodes: u64,
) -> Result<OpeningSpec> {
    Ok(match file {
        Some(p) => file_openings(p, order)?,
        None => OpeningSpec::Random {
            openings: Openings { multipv: random.multipv.max(1), ..random },
            nodes: nodes.max(1),
        },
    })
}

/// Openings from the file `p` (read and hashed here), played in `order`.
fn file_openings(p: &Path, order: Order) -> Result<OpeningSpec> {
    let bytes = kage_engine::util::read::read_capped(
        p,
        kage_selfplay::matches::openings::CAP,
        "opening file",
    )
    .context("cannot read opening file")?;
    let hash = kage_selfplay::player::file_hash(&bytes);
    Ok(OpeningSpec::File { path: p.display().to_string(), hash, order })
}

/// Parses `10+0.1` (seconds) to milliseconds.
fn parse_tc(tc: &str) -> Result<(u64, u64)> {
    let (t, i) = tc.split_once('+').unwrap_or((tc, "0"));
    let secs = |s: &str| -> Result<u64> {
        let x: f64 = s.trim().parse().with_context(|| format!("bad --tc {tc:?} (e.g. 10+0.1)"))?;
        if !(x.is_finite() && x >= 0.0) {
            bail!("bad --tc {tc:?}");
        }
        Ok((x * 1000.0).round() as u64)
    };
    Ok((secs(t)?, secs(i)?))
}

impl MatchArgs {
    /// The match config.
    pub fn config(&self) -> Result<MatchConfig> {
        if self.engines.len() != 2 {
            bail!("give --engine exactly twice (got {})", self.engines.len());
        }
        let mut engines = [engine_spec(&self.engines[0], 16)?, engine_spec(&self.engines[1], 16)?];
        if engines[0].name == engines[1].name {
            engines[0].name += "-1";
            engines[1].name += "-2";
        }
        let limit = match (self.nodes, self.depth, self.movetime, &self.tc) {
            (Some(n), ..) => LimitSpec::Nodes { nodes: n, jitter: self.nodes_jitter / 100.0 },
            (_, Some(d), ..) => LimitSpec::Depth(d),
            (_, _, Some(ms), _) => LimitSpec::Movetime(ms),
            (_, _, _, Some(tc)) => {
                let (time_ms, inc_ms) = parse_tc(tc)?;
                LimitSpec::Clock { time_ms, inc_ms, margin_ms: self.margin }
            }
            _ => bail!("give one limit: --nodes, --depth, --movetime or --tc"),
        };
        let openings = match_openings(
            self.openings.as_deref(),
            self.order,
            self.opening.openings(),
            self.opening_nodes,
        )?;
        let (variant, variant_spec) = self.variant.resolve()?;
        let cfg = MatchConfig {
            variant,
            variant_spec,
            engines,
            limit,
            openings,
            seed: self.seed,
            max_plies: self.max_plies,
            adjudication: kage_selfplay::config::Adjudication {
                resign_cp: self.resign_cp,
                resign_plies: self.resign_plies,
                draw_cp: self.draw_cp,
                draw_plies: self.draw_plies,
                draw_min_ply: self.draw_min_ply,
                max_plies: 0,
            },
            games: self.games,
            threads: self.threads.max(1),
            sprt: if self.sprt { Some(self.test.sprt()?) } else { None },
            out: self.out.clone(),
            pgn_scores: self.pgn_scores,
            hang: Duration::from_millis(self.hang_ms),
            max_failures: self.max_failures.max(1),
            progress_games: self.progress_games,
            progress_secs: self.progress_secs,
            quiet: self.quiet,
            allow_rebuilt: self.allow_rebuilt_engines,
            random_openings: self.random_openings,
            command: Vec::new(),
        };
        Ok(cfg.validated()?)
    }
}
