//! `kage`: UCI engine, perft, rules queries, variant spec checks and benchmarks.

use anyhow::{Context, Result, bail};
use clap::{Args, Parser, Subcommand};
use kage_engine::eval::Evaluator;
use kage_engine::nnue::shipped::{ShippedNet, shipped};
use kage_engine::nnue::{Network, read_file};
use kage_engine::protocol::{rules, uci};
use kage_engine::search::bench;
use kage_engine::util::cpu_time::Stopwatch;
use kage_engine::{Game, Position, Variant, VariantId};
use std::path::PathBuf;

#[path = "kage/check.rs"]
mod check;
#[path = "kage/fsf_net.rs"]
mod fsf_net;

#[derive(Parser)]
#[command(
    name = "kage",
    version,
    about = "kage: engine for Shinobi+, Shinobi, Gorogoro+ and Minishogi"
)]
struct Cli {
    /// Play a variant written as a spec file instead of a built-in one: a kage TOML spec, or a
    /// Fairy-Stockfish `variants.ini` file (its section chosen by `--variant`).
    #[arg(long, global = true, value_name = "FILE")]
    variant_file: Option<PathBuf>,
    /// Evaluation: `default` (the variant's shipped network where it has one, else the
    /// hand-crafted evaluation) or `hce` (the hand-crafted one; UCI `Use NNUE` false).
    #[arg(long, global = true, value_enum, default_value_t = EvalChoice::Default)]
    eval: EvalChoice,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum EvalChoice {
    Default,
    Hce,
}

#[derive(Subcommand)]
enum Command {
    /// Speak UCI on stdin/stdout (the default). With an FSF `variants.ini` file, UCI_Variant
    /// offers its sections that kage can play.
    Uci {
        /// The variant to start with (default: the --variant-file variant, else shinobiplus;
        /// for an .ini file, its first playable section).
        #[arg(long)]
        variant: Option<String>,
    },
    /// Count leaf nodes of the legal move tree, per root move.
    Perft(PerftArgs),
    /// One JSON line: FEN, sorted legal moves, check and game verdict after the moves.
    Rules(PositionArgs),
    /// Check a variant file and print a summary: a kage TOML spec, or a Fairy-Stockfish
    /// `variants.ini` file (each section: OK, or the key kage refuses and why).
    Check {
        file: PathBuf,
        /// Only this section of an .ini file.
        #[arg(long)]
        variant: Option<String>,
    },
    /// The rules a variant compiles to, as Markdown (the tables in docs/RULES.md).
    Describe {
        #[arg(long, help = variant_help())]
        variant: Option<String>,
    },
    /// Benchmarks: `search` (default: fixed-depth search of a position set, nodes and
    /// nodes/s per variant, node-count signature), `perft` (move generation speed), `match`
    /// (depth d+2 against depth d in self-play; `--depth`, `--games`), `fens` (the search
    /// position set, one `variant<TAB>fen` line each, for scripts).
    Bench {
        #[arg(default_value = "search")]
        what: String,
        /// Search depth (search: default per variant; match: the weaker side's depth).
        #[arg(long)]
        depth: Option<u32>,
        /// Games per variant (match).
        #[arg(long, default_value_t = 24)]
        games: usize,
        /// Only this variant.
        #[arg(long)]
        variant: Option<String>,
        /// NNUE network to search with too (search), beside the HCE; repeat for several
        /// variants. Without it, the shipped networks (`engine/nets/<variant>.nnue`) are used.
        #[arg(long, value_name = "FILE")]
        net: Vec<PathBuf>,
    },
    /// Fairy-Stockfish-format NNUE nets: `random`, `inspect`, `eval`.
    #[command(subcommand)]
    FsfNet(fsf_net::FsfNetCommand),
    /// The built-in variants, one `name<TAB>board<TAB>sides<TAB>default evaluation` line each (for
    /// scripts): each is a folder `engine/variants/<name>/`.
    Variants,
}

/// `--variant`'s help: the built-in variants, as the binary knows them.
fn variant_help() -> String {
    format!(
        "{}, or the name in --variant-file (default: the --variant-file variant, else \
         shinobiplus)",
        VariantId::names()
    )
}

#[derive(Args)]
struct PositionArgs {
    #[arg(long, help = variant_help())]
    variant: Option<String>,
    /// Start FEN (default: the variant's start position).
    #[arg(long)]
    fen: Option<String>,
    /// Moves in UCI notation, played from the FEN.
    #[arg(long, num_args = 0.., allow_hyphen_values = false)]
    moves: Vec<String>,
}

#[derive(Args)]
struct PerftArgs {
    #[command(flatten)]
    pos: PositionArgs,
    #[arg(long)]
    depth: u32,
}

fn main() {
    let cli = Cli::parse();
    if let Err(e) = run(cli) {
        eprintln!("error: {e:#}");
        std::process::exit(2);
    }
}

/// The `--variant-file` variants: for an FSF `.ini` file, its section named by the command's
/// `--variant` (uci without one: every playable section, the first the default).
fn custom_variants(cli: &Cli) -> Result<Vec<&'static Variant>> {
    let Some(f) = &cli.variant_file else { return Ok(Vec::new()) };
    let context = || format!("variant file {}", f.display());
    let name = cli.command.as_ref().and_then(Command::variant_name);
    if name.is_none() && matches!(cli.command, None | Some(Command::Uci { .. })) {
        return uci_variants(f).with_context(context);
    }
    Ok(vec![Variant::from_user_file(f, name).with_context(context)?])
}

/// The playable variants of a variant file, in file order (refused ones reported on stderr);
/// an error when none is.
fn uci_variants(f: &std::path::Path) -> Result<Vec<&'static Variant>> {
    let mut ok = Vec::new();
    for (name, v) in kage_engine::variant::read_user_variants(f)? {
        match v {
            Ok(u) => ok.push(u.variant),
            Err(e) => eprintln!("info: variant {name} not offered: {e}"),
        }
    }
    if ok.is_empty() {
        bail!("no variant of the file is playable by kage");
    }
    Ok(ok)
}

impl Command {
    /// The variant the command names (`--variant`).
    fn variant_name(&self) -> Option<&str> {
        match self {
            Command::Uci { variant } | Command::Describe { variant } => variant.as_deref(),
            Command::Perft(a) => a.pos.variant.as_deref(),
            Command::Rules(a) => a.variant.as_deref(),
            Command::FsfNet(c) => c.variant_name(),
            Command::Check { .. } | Command::Bench { .. } | Command::Variants => None,
        }
    }
}

/// `--variant` given `--variant-file`: they must name the same variant (see
/// [`Variant::resolve`]).
fn resolve(name: Option<&str>, custom: Option<&'static Variant>) -> Result<&'static Variant> {
    Ok(Variant::resolve(name, custom, VariantId::SHINOBIPLUS)?)
}

fn game_from(args: &PositionArgs, custom: Option<&'static Variant>) -> Result<Game> {
    let v = resolve(args.variant.as_deref(), custom)?;
    Ok(rules::game_from(v, args.fen.as_deref(), &args.moves)?)
}

fn run(cli: Cli) -> Result<()> {
    let customs = custom_variants(&cli)?;
    let custom = customs.first().copied();
    match cli.command {
        None | Some(Command::Uci { .. }) => run_uci(customs, cli.eval),
        Some(Command::Perft(a)) => {
            let game = game_from(&a.pos, custom)?;
            let stdout = std::io::stdout();
            let mut out = stdout.lock();
            uci::write_divide(game.position(), a.depth, &mut out)?;
            Ok(())
        }
        Some(Command::Rules(a)) => {
            let game = game_from(&a, custom)?;
            println!("{}", rules::rules_json(&game));
            Ok(())
        }
        Some(Command::Describe { variant }) => {
            print!("{}", resolve(variant.as_deref(), custom)?.describe_markdown());
            Ok(())
        }
        Some(Command::Check { file, variant }) => check::run(&file, variant.as_deref()),
        Some(Command::Bench { what, depth, games, variant, net }) => match what.as_str() {
            "perft" => bench_perft(),
            "search" => {
                let nets = bench_nets(&net, variant.as_deref())?;
                Ok(bench::search(depth, variant.as_deref(), &nets).map(|_| ())?)
            }
            "match" => Ok(bench::play_match(depth.unwrap_or(2), games, variant.as_deref())?),
            "fens" => {
                bench::positions().for_each(|(v, fen)| println!("{v}\t{fen}"));
                Ok(())
            }
            other => bail!("unknown benchmark '{other}' (expected search, perft, match or fens)"),
        },
        Some(Command::FsfNet(c)) => fsf_net::run(c, custom),
        Some(Command::Variants) => {
            for id in VariantId::ALL {
                let v = Variant::builtin(id);
                let eval = match shipped(v) {
                    Some(ShippedNet::Kage(n)) => format!("net (run {})", n.header().run_id),
                    Some(ShippedNet::Fsf(n)) => {
                        format!("fsf-net ({})", n.file_name().unwrap_or_default())
                    }
                    None => "hce".to_string(),
                };
                let [a, b] = &v.side_names;
                println!("{}\t{}x{}\t{a}-{b}\t{eval}", v.name, v.width, v.height);
            }
            Ok(())
        }
    }
}

/// The networks `kage bench search` runs beside the HCE: the `--net` files (without them,
/// the shipped networks embedded in the engine).
/// Each must be for a benched variant (all, or `only`).
fn bench_nets(files: &[PathBuf], only: Option<&str>) -> Result<Vec<Evaluator>> {
    files
        .iter()
        .map(|f| {
            let bytes = read_file(f).with_context(|| format!("reading network {}", f.display()))?;
            if kage_engine::nnue::fsf::is_fsf_net(&bytes) {
                return fsf_net::bench_evaluator(&bytes, only)
                    .with_context(|| format!("network {}", f.display()));
            }
            let net = Network::load(&bytes).with_context(|| format!("network {}", f.display()))?;
            bench::net_variant(only, &net).with_context(|| format!("network {}", f.display()))?;
            Ok(Evaluator::Nnue(std::sync::Arc::new(net)))
        })
        .collect()
}

fn run_uci(customs: Vec<&'static Variant>, eval: EvalChoice) -> Result<()> {
    let default = match customs.first() {
        Some(&c) => c,
        None => Variant::by_name("shinobiplus")?,
    };
    let mut session = uci::Uci::with_user_variants(default, customs);
    session.set_use_nnue(eval == EvalChoice::Default);
    Ok(uci::run_stdio_session(session)?)
}

/// Start-position perft per variant at the depths FSF was timed at (leaves of the last ply
/// counted without playing them, as FSF does).
fn bench_perft() -> Result<()> {
    println!(
        "{:<14} {:>5} {:>14} {:>9} {:>9} {:>11} {:>11}",
        "variant", "depth", "nodes", "wall s", "cpu s", "Mnps wall", "Mnps cpu"
    );
    for id in VariantId::ALL {
        let (name, depth) = (id.name(), id.bench().perft_depth);
        let v = Variant::builtin(id);
        let pos = Position::startpos(v);
        let watch = Stopwatch::thread();
        let n = kage_engine::perft::perft(&pos, depth);
        let wall = watch.wall_seconds();
        let cpu = watch.cpu_seconds().unwrap_or(wall);
        println!(
            "{name:<14} {depth:>5} {n:>14} {wall:>9.3} {cpu:>9.3} {:>11.2} {:>11.2}",
            n as f64 / wall / 1e6,
            n as f64 / cpu / 1e6
        );
    }
    Ok(())
}
