//! `kage-train`: train, inspect and benchmark kage NNUE networks.

use anyhow::{Context, Result, bail};
use clap::{Args, Parser, Subcommand};
use kage_engine::util::read::{cap, read_text_capped};
use kage_train::RunOptions;
use kage_train::bench::{self, BenchConfig};
use kage_train::data::synthetic::SyntheticConfig;
use kage_train::export::inspect;
use kage_train::training::config::{Arch, LrSchedule, TrainConfig};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(name = "kage-train", version, about = "Train NNUE networks for kage variants")]
#[command(args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    train: TrainArgs,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print the header and weight statistics of a quantised network.
    Inspect {
        /// Network file.
        net: PathBuf,
    },
    /// Measure training throughput on synthetic data.
    Bench(BenchArgs),
    /// Fit the hand-crafted evaluation's parameters to self-play results (Texel tuning) and
    /// write them as an evaluation-parameter file (engine/src/eval/params/<variant>.toml).
    Tune(TuneArgs),
}

#[derive(Args, Debug)]
struct TuneArgs {
    /// Variant name.
    #[arg(long)]
    variant: String,
    /// Training-position files of that variant.
    #[arg(long, num_args = 1.., required = true)]
    data: Vec<PathBuf>,
    /// Where to write the tuned parameters (TOML).
    #[arg(long)]
    out: PathBuf,
    /// Start from this parameter file instead of the built-in parameters.
    #[arg(long)]
    params: Option<PathBuf>,
    /// Adam steps over the whole training set.
    #[arg(long, default_value_t = 1500)]
    iterations: usize,
    /// Adam step size in centipawns.
    #[arg(long, default_value_t = 2.0)]
    lr: f64,
    /// Pull towards the starting values (weight of the squared distance).
    #[arg(long, default_value_t = 0.0)]
    l2: f64,
    /// Fraction held out to report the validation error.
    #[arg(long, default_value_t = 0.1)]
    val_fraction: f64,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Skip positions before this ply.
    #[arg(long, default_value_t = 0)]
    min_ply: u16,
    /// Weight of the game result in the target (the rest: the recorded search score; 0, the
    /// default, fits the evaluation to the search scores, which gained in matches).
    #[arg(long, default_value_t = 0.0)]
    lambda: f64,
    /// Tune on what is left when data chunks are damaged.
    #[arg(long)]
    allow_damaged: bool,
    /// Worker threads (0 = all cores); the result does not depend on it.
    #[arg(long, default_value_t = 0)]
    threads: usize,
}

/// What `kage-train bench` times.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Approach {
    /// The sparse FT in Rust and the head in burn (what training runs).
    Hybrid,
    /// Everything in burn (feature rows selected and summed as tensors).
    BurnSelect,
    /// The data loader alone, on synthetic data.
    Loader,
    /// All of them.
    All,
}

#[derive(Args, Debug)]
struct BenchArgs {
    /// Which approach: hybrid, burn-select, loader or all.
    #[arg(long, value_enum, default_value_t = Approach::All)]
    approach: Approach,
    #[arg(long, default_value_t = 128)]
    ft_size: usize,
    #[arg(long, default_value_t = 32)]
    head_size: usize,
    #[arg(long, default_value_t = 4096)]
    batch_size: usize,
    /// Timed batches.
    #[arg(long, default_value_t = 30)]
    batches: usize,
    /// Feature-space size of the synthetic data.
    #[arg(long, default_value_t = 2304)]
    features: usize,
    /// Worker threads (0 = all cores).
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Also time the loader on these training-position files (decode + engine features).
    #[arg(long, num_args = 1..)]
    data: Vec<PathBuf>,
    /// Variant of --data.
    #[arg(long, default_value = "minishogi")]
    variant: String,
    /// Decoding of --data records.
    #[arg(long, value_enum, default_value = "fast")]
    decode: kage_train::training::config::DecodeMode,
}

#[derive(Args, Debug, Default)]
struct TrainArgs {
    /// Variant name.
    #[arg(long)]
    variant: Option<String>,
    /// Network architecture: kage's small net (default) or Fairy-Stockfish's (HalfKAv2,
    /// 512 x 2, 8 PSQT buckets and layer stacks; exported as <variant>-<sha256 12>.nnue).
    #[arg(long, value_enum)]
    arch: Option<Arch>,
    /// Training-position files.
    #[arg(long, num_args = 1..)]
    data: Vec<PathBuf>,
    /// Validation files (default: hold out --val-fraction of the training data).
    #[arg(long, num_args = 1..)]
    val_data: Vec<PathBuf>,
    /// Run directory.
    #[arg(long)]
    out: Option<PathBuf>,
    /// TOML configuration (command-line options override it).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Continue the run in this directory from its last checkpoint (its weights: not with
    /// --init-net, which only starts a run).
    #[arg(long, conflicts_with_all = ["config", "data", "out", "init_net"])]
    resume: Option<PathBuf>,
    /// Train on N synthetic positions instead of files.
    #[arg(long)]
    synthetic: Option<u64>,
    /// Feature count of the synthetic data.
    #[arg(long)]
    synthetic_features: Option<usize>,
    #[arg(long)]
    ft_size: Option<usize>,
    #[arg(long)]
    head_size: Option<usize>,
    #[arg(long)]
    epochs: Option<u32>,
    #[arg(long)]
    batch_size: Option<usize>,
    #[arg(long)]
    lr: Option<f64>,
    #[arg(long, value_enum)]
    lr_schedule: Option<LrSchedule>,
    #[arg(long)]
    lr_min: Option<f64>,
    #[arg(long)]
    lr_step_epochs: Option<u32>,
    #[arg(long)]
    lr_gamma: Option<f64>,
    #[arg(long)]
    weight_decay: Option<f64>,
    /// Weight of the search score in the target (0..=1).
    #[arg(long)]
    lambda: Option<f64>,
    /// Centipawns per logit.
    #[arg(long)]
    scale: Option<f64>,
    #[arg(long)]
    seed: Option<u64>,
    #[arg(long)]
    shuffle_buffer: Option<usize>,
    #[arg(long)]
    val_fraction: Option<f64>,
    #[arg(long)]
    val_max: Option<usize>,
    /// Skip positions before this ply.
    #[arg(long)]
    min_ply: Option<u16>,
    /// Train with the piece factoriser (folded away on export; the net file is unchanged
    /// in form)
    #[arg(long)]
    factorise: bool,
    /// Keep positions where the side to move is in check.
    #[arg(long)]
    keep_in_check: bool,
    /// Keep positions whose best move is a capture or promotion.
    #[arg(long)]
    keep_noisy: bool,
    /// Skip positions with |score| above this.
    #[arg(long)]
    max_abs_score: Option<i16>,
    /// Worker threads (0 = all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// How records become features: fast (compact fields) or position (engine FEN parser).
    #[arg(long, value_enum)]
    decode: Option<kage_train::training::config::DecodeMode>,
    /// Train on what is left of data files with damaged chunks (default: refuse them).
    #[arg(long)]
    allow_damaged: bool,
    /// Start from this quantised network instead of random weights: for the small net a kage
    /// net (e.g. the previous generation's net.nnue) whose variant, feature set, --ft-size,
    /// --head-size and --scale match; with --arch fsf an FSF-format net of the variant (one
    /// kage exported, or one of Fairy-Stockfish's).
    #[arg(long, value_name = "FILE.nnue")]
    init_net: Option<PathBuf>,
    /// Also write the network after every epoch as epoch-NNN.nnue in the run directory.
    #[arg(long)]
    snapshots: bool,
    /// Hide progress bars and progress lines.
    #[arg(long)]
    quiet: bool,
    /// When stderr is not a terminal (logs, Slurm, nohup), print a plain progress line this
    /// often (seconds; 0: never).
    #[arg(long, default_value_t = 30.0)]
    progress_secs: f64,
}

macro_rules! set {
    ($cfg:expr, $args:expr, $($f:ident),*) => { $( if let Some(v) = $args.$f.clone() { $cfg.$f = v; } )* };
}

fn resolve_config(a: &TrainArgs) -> Result<TrainConfig> {
    let mut cfg = match &a.config {
        Some(p) => {
            let text = read_text_capped(p, cap::TEXT, "training configuration")?;
            TrainConfig::from_toml_partial(&text).with_context(|| format!("in {}", p.display()))?
        }
        None => TrainConfig::default(),
    };
    set!(cfg, a, variant, ft_size, head_size, epochs, batch_size, lr, lr_schedule, lr_min);
    set!(cfg, a, lr_step_epochs, lr_gamma, weight_decay, lambda, scale, seed, shuffle_buffer);
    set!(cfg, a, val_fraction, val_max, threads, decode, arch);
    if !a.data.is_empty() {
        cfg.data = a.data.clone();
    }
    if !a.val_data.is_empty() {
        cfg.val_data = a.val_data.clone();
    }
    if let Some(n) = a.synthetic {
        let s = cfg.synthetic.get_or_insert_with(SyntheticConfig::default);
        s.positions = n;
    }
    if let (Some(f), Some(s)) = (a.synthetic_features, cfg.synthetic.as_mut()) {
        s.num_features = f;
    }
    if let Some(v) = a.min_ply {
        cfg.filter.min_ply = v;
    }
    if let Some(v) = a.max_abs_score {
        cfg.filter.max_abs_score = v;
    }
    if a.factorise {
        cfg.factorise = true;
    }
    if a.keep_in_check {
        cfg.filter.skip_in_check = false;
    }
    if a.keep_noisy {
        cfg.filter.skip_noisy = false;
    }
    if a.allow_damaged {
        cfg.allow_damaged = true;
    }
    if let Some(p) = &a.init_net {
        cfg.init_net = Some(p.clone());
    }
    if a.snapshots {
        cfg.snapshots = true;
    }
    if a.variant.is_none() && a.config.is_none() {
        bail!("--variant is required (or give --config)");
    }
    if cfg.arch == Arch::Fsf {
        fsf_defaults(&mut cfg, a)?;
    }
    cfg.validate().context("invalid training configuration")?;
    Ok(cfg)
}

/// The fsf architecture's fixed FT width, and synthetic data over the variant's HalfKAv2
/// features, unless given.
fn fsf_defaults(cfg: &mut TrainConfig, a: &TrainArgs) -> Result<()> {
    if a.ft_size.is_none() {
        cfg.ft_size = kage_train::training::config::FSF_FT_SIZE;
    }
    if let (None, Some(s)) = (a.synthetic_features, cfg.synthetic.as_mut()) {
        let v = kage_engine::Variant::by_name(&cfg.variant)?;
        s.num_features = kage_train::data::space::fsf_layout(v)?.dims();
    }
    Ok(())
}

fn init_threads(n: usize) -> Result<()> {
    if n > 0 {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .context("configuring rayon threads")?;
    }
    Ok(())
}

fn train(a: TrainArgs) -> Result<()> {
    use std::io::IsTerminal;
    if !(a.progress_secs.is_finite() && a.progress_secs >= 0.0) {
        bail!("--progress-secs must be a number of seconds >= 0, got {}", a.progress_secs);
    }
    let log_every = (!a.quiet && a.progress_secs > 0.0 && !std::io::stderr().is_terminal())
        .then(|| std::time::Duration::from_secs_f64(a.progress_secs));
    let opts = RunOptions { progress: !a.quiet, stop_after: None, log_every };
    let summary = if let Some(dir) = &a.resume {
        init_threads(a.threads.unwrap_or(0))?;
        kage_train::resume(dir, a.epochs, opts)
            .with_context(|| format!("resuming {}", dir.display()))?
    } else {
        let cfg = resolve_config(&a)?;
        let Some(out) = &a.out else { bail!("--out DIR is required") };
        let config: Vec<&Path> = a.config.as_deref().into_iter().collect();
        kage_train::training::run::refuse_overwrite(&cfg, out, &config)?;
        init_threads(cfg.threads)?;
        kage_train::run(cfg, out, opts)
            .with_context(|| format!("training into {}", out.display()))?
    };
    if let Some(last) = summary.history.last() {
        println!(
            "run {} done: epoch {} train_loss {:.6} val_loss {:.6}; network {}",
            summary.run_id,
            last.epoch,
            last.train_loss,
            last.val_loss,
            summary.net_path.display()
        );
    }
    Ok(())
}

fn cpu(r: &bench::BenchResult) -> String {
    match r.pos_per_cpu_s() {
        Some(v) => format!(", {:.0} pos per CPU-second", v),
        None => String::new(),
    }
}

fn run_bench(a: BenchArgs) -> Result<()> {
    init_threads(a.threads)?;
    let cfg = BenchConfig {
        ft_size: a.ft_size,
        head_size: a.head_size,
        batch_size: a.batch_size,
        batches: a.batches,
        num_features: a.features,
    };
    println!(
        "net ({} -> {}) x 2 -> {} -> 1, batch {}, {} batches, {} threads",
        cfg.num_features,
        cfg.ft_size,
        cfg.head_size,
        cfg.batch_size,
        cfg.batches,
        rayon::current_num_threads()
    );
    let all = a.approach == Approach::All;
    if all || a.approach == Approach::Hybrid {
        let r = bench::hybrid(&cfg);
        println!(
            "hybrid (Rust sparse FT + burn head): {:>10.0} pos/s ({} pos in {:.2}s{})",
            r.pos_per_s,
            r.positions,
            r.seconds,
            cpu(&r)
        );
        if let Some(t) = r.times {
            println!(
                "  phases: ft forward {:.2}s, burn head fwd+bwd {:.2}s, updates (FT backward + AdamW) {:.2}s",
                t.ft_forward, t.head, t.update
            );
        }
    }
    if all || a.approach == Approach::BurnSelect {
        let r = bench::burn_select(&cfg);
        println!(
            "burn select+sum (all in burn):       {:>10.0} pos/s ({} pos in {:.2}s{})",
            r.pos_per_s,
            r.positions,
            r.seconds,
            cpu(&r)
        );
    }
    if all || a.approach == Approach::Loader {
        let n = (cfg.batches * cfg.batch_size * 4) as u64;
        let r = bench::loader(&cfg, n);
        println!(
            "loader (synthetic->filter->shuffle->batches): {:>10.0} pos/s read ({} read{})",
            r.pos_per_s,
            r.positions,
            cpu(&r)
        );
    }
    if !a.data.is_empty() {
        use kage_train::data::space::{space_of, variant_of_files};
        let space = space_of(variant_of_files(&a.variant, &a.data)?);
        let data = kage_train::data::decode::open_files(&space, &a.data, a.decode, false)?;
        let mut n = 0u64;
        let mut src = data.open()?;
        let mut blocks = kage_train::BlockList::default();
        loop {
            blocks.clear();
            src.next_blocks(&mut blocks)?;
            match blocks.num_samples() {
                0 => break,
                k => n += k as u64,
            }
        }
        let r = bench::loader_on(&BenchConfig { num_features: space.num_features, ..cfg }, data, n);
        println!(
            "loader on files (decode, engine features, filter, shuffle, batches): {:>10.0} pos/s read ({} read{})",
            r.pos_per_s,
            r.positions,
            cpu(&r)
        );
    }
    Ok(())
}

/// Refuses, before any work, a tune whose `--out` is one of its inputs or lies in a
/// directory that belongs to a tool's run, and data that would count positions twice.
fn check_tune_paths(a: &TuneArgs) -> Result<()> {
    let mut inputs: Vec<&Path> = a.data.iter().map(PathBuf::as_path).collect();
    inputs.extend(a.params.as_deref());
    kage_data::guard::refuse_overwrite(&[("--out", &a.out)], &inputs)?;
    let parent = match a.out.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if let Some(owner) = kage_data::guard::owner_of(parent)? {
        bail!(
            "--out {}: {} belongs to {owner}; write the parameter file outside a run directory",
            a.out.display(),
            parent.display()
        );
    }
    kage_train::training::data_identity::check_distinct(&a.data, &[])?;
    Ok(())
}

fn run_tune(a: TuneArgs) -> Result<()> {
    use kage_engine::eval::EvalParams;
    use kage_engine::eval::hce_terms::params_toml;
    check_tune_paths(&a)?;
    init_threads(a.threads)?;
    let variant = kage_train::data::space::variant_of_files(&a.variant, &a.data)?;
    let base = match &a.params {
        Some(p) => {
            let text = read_text_capped(p, cap::TEXT, "parameter file")?;
            EvalParams::parse(&text).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?
        }
        None => EvalParams::for_variant(&variant.name),
    };
    let cfg = kage_train::tune::TuneConfig {
        data: a.data.clone(),
        iterations: a.iterations,
        lr: a.lr,
        l2: a.l2,
        val_fraction: a.val_fraction,
        seed: a.seed,
        min_ply: a.min_ply,
        lambda: a.lambda,
        allow_damaged: a.allow_damaged,
    };
    let r = kage_train::tune::tune(variant, &base, &cfg, |it, mse| {
        eprintln!("iteration {it:>5}: train error {mse:.6}");
    })?;
    println!(
        "{}: {} training + {} held-out positions ({} skipped: check, noisy best move, ply); K = {:.6}",
        variant.name, r.train_positions, r.val_positions, r.skipped, r.k
    );
    println!("train error {:.6} -> {:.6}", r.train_mse.0, r.train_mse.1);
    println!("held-out error {:.6} -> {:.6}", r.val_mse.0, r.val_mse.1);
    for (name, before, after) in &r.params {
        if name.starts_with("material.") || name.starts_with("hand.") || name == "tempo" {
            println!("  {name:<16} {before:>6.0} -> {after:>6.0}");
        }
    }
    let files: Vec<String> = a.data.iter().map(|p| p.display().to_string()).collect();
    let header = format!(
        "Hand-crafted evaluation parameters for {} (the terms: engine/src/eval/params.rs),\n\
         tuned by `kage-train tune` (git {}) on {} positions of {}\n\
         iterations {}, lr {}, l2 {}, seed {}, min-ply {}, lambda {}; K {:.6};\n\
         held-out error {:.6} -> {:.6}. Material values here override the spec's for the\n\
         evaluation only.",
        variant.name,
        kage_train::training::run::git_revision(),
        r.train_positions,
        files.join(", "),
        a.iterations,
        a.lr,
        a.l2,
        a.seed,
        a.min_ply,
        a.lambda,
        r.k,
        r.val_mse.0,
        r.val_mse.1
    );
    let text = params_toml(&r.tuned, &header);
    kage_data::atomic::write_atomic(&a.out, text.as_bytes())
        .with_context(|| format!("writing {}", a.out.display()))?;
    println!("wrote {}", a.out.display());
    Ok(())
}

/// The command's work; any error ends it.
fn dispatch(cli: Cli) -> Result<()> {
    match cli.command {
        Some(Command::Inspect { net }) => {
            let bytes = kage_engine::nnue::read_file(&net)
                .with_context(|| format!("reading {}", net.display()))?;
            if kage_engine::nnue::fsf::is_fsf_net(&bytes) {
                let text = inspect::fsf_report(&bytes)
                    .with_context(|| format!("inspecting {}", net.display()))?;
                print!("{text}");
                return Ok(());
            }
            let net_v = kage_engine::nnue::Network::load(&bytes)
                .with_context(|| format!("loading network {}", net.display()))?;
            print!("{}", inspect::report(&net_v));
            Ok(())
        }
        Some(Command::Bench(a)) => run_bench(a),
        Some(Command::Tune(a)) => run_tune(a),
        None => train(cli.train),
    }
}

/// A user error is one line on standard error (its causes joined by `: `, never a
/// backtrace, whatever `RUST_BACKTRACE` says) and a non-zero exit.
fn main() -> ExitCode {
    // Keep the head's multi-MiB per-step buffers in the heap (see `simd::tune_allocator`).
    kage_train::model::simd::tune_allocator();
    match dispatch(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("kage-train: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
