//! The command line: the options of training (the default command) and of the `inspect`,
//! `bench` and `tune` subcommands.

use clap::{Args, Parser, Subcommand};
use kage_train::training::config::{Arch, LrSchedule};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(name = "kage-train", version, about = "Train NNUE networks for kage variants")]
#[command(args_conflicts_with_subcommands = true)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Option<Command>,
    #[command(flatten)]
    pub(crate) train: TrainArgs,
}

#[derive(Subcommand, Debug)]
pub(crate) enum Command {
    /// Print the header and weight statistics of a quantised network.
    Inspect {
        /// Network file.
        net: PathBuf,
    },
    /// Measure training throughput on synthetic data.
    Bench(BenchArgs),
    /// Fit the hand-crafted evaluation's parameters to self-play results (Texel tuning) and
    /// write them as an evaluation-parameter file (engine/variants/<variant>/hce.toml).
    Tune(TuneArgs),
}

#[derive(Args, Debug)]
pub(crate) struct TuneArgs {
    /// Variant name.
    #[arg(long)]
    pub(crate) variant: String,
    /// Training-position files of that variant.
    #[arg(long, num_args = 1.., required = true)]
    pub(crate) data: Vec<PathBuf>,
    /// Where to write the tuned parameters (TOML).
    #[arg(long)]
    pub(crate) out: PathBuf,
    /// Start from this parameter file instead of the built-in parameters.
    #[arg(long)]
    pub(crate) params: Option<PathBuf>,
    /// Adam steps over the whole training set.
    #[arg(long, default_value_t = 1500)]
    pub(crate) iterations: usize,
    /// Adam step size in centipawns.
    #[arg(long, default_value_t = 2.0)]
    pub(crate) lr: f64,
    /// Pull towards the starting values (weight of the squared distance).
    #[arg(long, default_value_t = 0.0)]
    pub(crate) l2: f64,
    /// Fraction held out to report the validation error.
    #[arg(long, default_value_t = 0.1)]
    pub(crate) val_fraction: f64,
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
    /// Skip positions before this ply.
    #[arg(long, default_value_t = 0)]
    pub(crate) min_ply: u16,
    /// Weight of the game result in the target (the rest: the recorded search score; 0, the
    /// default, fits the evaluation to the search scores, which gained in matches).
    #[arg(long, default_value_t = 0.0)]
    pub(crate) lambda: f64,
    /// Tune on what is left when data chunks are damaged.
    #[arg(long)]
    pub(crate) allow_damaged: bool,
    /// Worker threads (0 = all cores); the result does not depend on it.
    #[arg(long, default_value_t = 0)]
    pub(crate) threads: usize,
}

/// What `kage-train bench` times.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Approach {
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
pub(crate) struct BenchArgs {
    /// Which approach: hybrid, burn-select, loader or all.
    #[arg(long, value_enum, default_value_t = Approach::All)]
    pub(crate) approach: Approach,
    #[arg(long, default_value_t = 128)]
    pub(crate) ft_size: usize,
    #[arg(long, default_value_t = 32)]
    pub(crate) head_size: usize,
    #[arg(long, default_value_t = 4096)]
    pub(crate) batch_size: usize,
    /// Timed batches.
    #[arg(long, default_value_t = 30)]
    pub(crate) batches: usize,
    /// Feature-space size of the synthetic data.
    #[arg(long, default_value_t = 2304)]
    pub(crate) features: usize,
    /// Worker threads (0 = all cores).
    #[arg(long, default_value_t = 0)]
    pub(crate) threads: usize,
    /// Also time the loader on these training-position files (decode + engine features).
    #[arg(long, num_args = 1..)]
    pub(crate) data: Vec<PathBuf>,
    /// Variant of --data.
    #[arg(long, default_value = "minishogi")]
    pub(crate) variant: String,
    /// Decoding of --data records.
    #[arg(long, value_enum, default_value = "fast")]
    pub(crate) decode: kage_train::training::config::DecodeMode,
}

#[derive(Args, Debug, Default)]
pub(crate) struct TrainArgs {
    /// Variant name.
    #[arg(long)]
    pub(crate) variant: Option<String>,
    /// Network architecture: kage's small net (default) or Fairy-Stockfish's (HalfKAv2,
    /// 512 x 2, 8 PSQT buckets and layer stacks; exported as <variant>-<sha256 12>.nnue).
    #[arg(long, value_enum)]
    pub(crate) arch: Option<Arch>,
    /// Training-position files.
    #[arg(long, num_args = 1..)]
    pub(crate) data: Vec<PathBuf>,
    /// Validation files (default: hold out --val-fraction of the training data).
    #[arg(long, num_args = 1..)]
    pub(crate) val_data: Vec<PathBuf>,
    /// Run directory.
    #[arg(long)]
    pub(crate) out: Option<PathBuf>,
    /// TOML configuration (command-line options override it).
    #[arg(long)]
    pub(crate) config: Option<PathBuf>,
    /// Continue the run in this directory from its last checkpoint (its weights: not with
    /// --init-net or --score-wdl, which only start a run; the run keeps its own).
    #[arg(long, conflicts_with_all = ["config", "data", "out", "init_net", "score_wdl"])]
    pub(crate) resume: Option<PathBuf>,
    /// Train on N synthetic positions instead of files.
    #[arg(long)]
    pub(crate) synthetic: Option<u64>,
    /// Feature count of the synthetic data.
    #[arg(long)]
    pub(crate) synthetic_features: Option<usize>,
    #[arg(long)]
    pub(crate) ft_size: Option<usize>,
    #[arg(long)]
    pub(crate) head_size: Option<usize>,
    #[arg(long)]
    pub(crate) epochs: Option<u32>,
    #[arg(long)]
    pub(crate) batch_size: Option<usize>,
    #[arg(long)]
    pub(crate) lr: Option<f64>,
    #[arg(long, value_enum)]
    pub(crate) lr_schedule: Option<LrSchedule>,
    #[arg(long)]
    pub(crate) lr_min: Option<f64>,
    #[arg(long)]
    pub(crate) lr_step_epochs: Option<u32>,
    #[arg(long)]
    pub(crate) lr_gamma: Option<f64>,
    #[arg(long)]
    pub(crate) weight_decay: Option<f64>,
    /// Weight of the search score in the target (0..=1).
    #[arg(long)]
    pub(crate) lambda: Option<f64>,
    /// Centipawns per logit.
    #[arg(long)]
    pub(crate) scale: Option<f64>,
    /// Read each record's score through this WDL model of the evaluator that made the data
    /// (kage-data fit-wdl's file, e.g. engine/nets/shinobi.wdl.toml; its ply buckets where it
    /// has them): the target's score part becomes the model's expected result instead of
    /// sigmoid(score / scale), so the new net does not learn that evaluator's bias for a side.
    #[arg(long, value_name = "FILE.wdl.toml")]
    pub(crate) score_wdl: Option<PathBuf>,
    #[arg(long)]
    pub(crate) seed: Option<u64>,
    #[arg(long)]
    pub(crate) shuffle_buffer: Option<usize>,
    #[arg(long)]
    pub(crate) val_fraction: Option<f64>,
    #[arg(long)]
    pub(crate) val_max: Option<usize>,
    /// Skip positions before this ply.
    #[arg(long)]
    pub(crate) min_ply: Option<u16>,
    /// Train with the piece factoriser (folded away on export; the net file is unchanged
    /// in form)
    #[arg(long)]
    pub(crate) factorise: bool,
    /// Keep positions where the side to move is in check.
    #[arg(long)]
    pub(crate) keep_in_check: bool,
    /// Keep positions whose best move is a capture or promotion.
    #[arg(long)]
    pub(crate) keep_noisy: bool,
    /// Skip positions with |score| above this.
    #[arg(long)]
    pub(crate) max_abs_score: Option<i16>,
    /// Worker threads (0 = all cores).
    #[arg(long)]
    pub(crate) threads: Option<usize>,
    /// How records become features: fast (compact fields) or position (engine FEN parser).
    #[arg(long, value_enum)]
    pub(crate) decode: Option<kage_train::training::config::DecodeMode>,
    /// Train on what is left of data files with damaged chunks (default: refuse them).
    #[arg(long)]
    pub(crate) allow_damaged: bool,
    /// Start from this quantised network instead of random weights: for the small net a kage
    /// net (e.g. the previous generation's net.nnue) whose variant, feature set, --ft-size,
    /// --head-size and --scale match; with --arch fsf an FSF-format net of the variant (one
    /// kage exported, or one of Fairy-Stockfish's).
    #[arg(long, value_name = "FILE.nnue")]
    pub(crate) init_net: Option<PathBuf>,
    /// Also write the network after every epoch as epoch-NNN.nnue in the run directory.
    #[arg(long)]
    pub(crate) snapshots: bool,
    /// Hide progress bars and progress lines.
    #[arg(long)]
    pub(crate) quiet: bool,
    /// When stderr is not a terminal (logs, Slurm, nohup), print a plain progress line this
    /// often (seconds; 0: never).
    #[arg(long, default_value_t = 30.0)]
    pub(crate) progress_secs: f64,
}
