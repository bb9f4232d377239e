//! `kage-data`: inspect, check, shuffle, merge and export kage data files.

mod bench;
mod common;
mod export;
mod fsf;
mod merge;
mod repair;
mod shuffle;
mod stats;
mod validate;
mod wdl;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

#[derive(Parser)]
#[command(
    name = "kage-data",
    version,
    about = "Inspect, check, shuffle, merge and export kage data files"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

/// Point of view of scores and results in text export.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Perspective {
    /// White's point of view (score in cp for White, result 1.0/0.5/0.0 for White).
    White,
    /// The side to move's point of view.
    Stm,
}

/// What `kage-data export` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// `FEN | score | result` lines.
    Text,
    /// Games as PGN.
    Pgn,
    /// Fairy-Stockfish `.bin` training data (positions only).
    FsfBin,
}

/// What `kage-data fit-wdl --by` groups positions by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ByArg {
    /// Plies from the start, in groups of 20.
    Ply,
    /// Pieces on the board.
    Material,
}

/// What the commands that join several files into one (`shuffle`, `merge`) take.
#[derive(clap::Args)]
struct JoinArgs {
    /// Output file.
    #[arg(long)]
    out: PathBuf,
    /// Write the output even when an input has damaged chunks (they are dropped).
    #[arg(long)]
    allow_damaged: bool,
    /// Combine files written by different builds (git revisions); refused otherwise.
    #[arg(long)]
    allow_mixed_builds: bool,
    /// Input files (same kind, variant and config).
    #[arg(required = true)]
    files: Vec<PathBuf>,
}

#[derive(Subcommand)]
enum Cmd {
    /// Counts, result and score histograms per variant.
    Stats {
        /// Data files (games or training positions).
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Checks that every record decodes, is legal and round-trips through FEN.
    Validate {
        /// Data files (games or training positions).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Errors to print per file before only counting.
        #[arg(long, default_value_t = 10)]
        max_errors: usize,
    },
    /// Shuffles records of compatible files into one file (seeded, bounded memory).
    Shuffle {
        #[command(flatten)]
        join: JoinArgs,
        /// Random seed.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Memory budget for one bucket, in MiB; more input means more buckets.
        #[arg(long, default_value_t = 1024)]
        memory_mb: u64,
    },
    /// Joins shard outputs; refuses mismatched configs or duplicates.
    Merge {
        #[command(flatten)]
        join: JoinArgs,
    },
    /// Exports records as text (`FEN | score | result`), games as PGN, or positions as
    /// Fairy-Stockfish `.bin` training data (`--format fsf-bin`).
    Export {
        /// One line per position: `FEN | score | result` (= `--format text`).
        #[arg(long, conflicts_with_all = ["pgn", "format"], required_unless_present_any = ["pgn", "format"])]
        text: bool,
        /// Games as PGN (Variant, FEN and SetUp tags; UCI moves) (= `--format pgn`).
        #[arg(long, conflicts_with = "format")]
        pgn: bool,
        /// Output format: text, pgn, or fsf-bin (72-byte records for Fairy-Stockfish's
        /// trainer, with `<out>.meta.toml` beside it saying what it holds).
        #[arg(long, value_enum)]
        format: Option<ExportFormat>,
        /// Point of view of score and result in text export.
        #[arg(long, value_enum, default_value_t = Perspective::White)]
        perspective: Perspective,
        /// Add per-ply search scores as PGN comments.
        #[arg(long)]
        scores: bool,
        /// Output file (`-` for standard output).
        #[arg(long)]
        out: PathBuf,
        /// Write the output even when an input has damaged chunks (they are dropped).
        #[arg(long)]
        allow_damaged: bool,
        /// Input files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Imports Fairy-Stockfish `.bin` training data (a file has no header: name its
    /// variant) into a position file whose header records the sources.
    ImportBin {
        /// The variant the `.bin` files hold.
        #[arg(long)]
        variant: String,
        /// Output position file.
        #[arg(long)]
        out: PathBuf,
        /// Import the rest when a file ends inside a record or a record does not decode
        /// (each reported); refused otherwise.
        #[arg(long)]
        allow_damaged: bool,
        /// `.bin` files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Salvages a damaged or truncated file: writes its intact chunks (records in order) to
    /// a new, valid file and says what was lost.
    Repair {
        /// Output file.
        #[arg(long)]
        out: PathBuf,
        /// The damaged file.
        file: PathBuf,
    },
    /// Fits the engine's WDL model (win/draw/loss against search score) to self-play
    /// positions and prints it as the TOML the engine reads (engine/src/eval/wdl.rs).
    FitWdl {
        /// The data was made with this net: a kage net (its run id is recorded) or a
        /// Fairy-Stockfish-format one (its file name by content).
        #[arg(long, required_unless_present = "hce", conflicts_with = "hce")]
        net: Option<PathBuf>,
        /// The data was made with the hand-crafted evaluation.
        #[arg(long)]
        hce: bool,
        /// Also fit per group of positions (written as `[[bucket]]` tables).
        #[arg(long, value_enum)]
        by: Option<ByArg>,
        /// Also write the parameters to this file.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Fit the rest when an input has damaged chunks (they are dropped).
        #[arg(long)]
        allow_damaged: bool,
        /// Position files (one variant).
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Writes synthetic positions to a temporary file and times writing and reading.
    Bench {
        /// Number of positions.
        #[arg(long, default_value_t = 10_000_000)]
        positions: u64,
        /// Directory for the temporary file (default: the system temp dir).
        #[arg(long)]
        dir: Option<PathBuf>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let res = match cli.cmd {
        Cmd::Stats { files } => stats::run(&files),
        Cmd::Validate { files, max_errors } => validate::run(&files, max_errors),
        Cmd::Shuffle { join: j, seed, memory_mb } => {
            shuffle::run(&j.out, &j.files, seed, memory_mb, j.allow_damaged, j.allow_mixed_builds)
        }
        Cmd::Merge { join: j } => {
            merge::run(&j.out, &j.files, j.allow_damaged, j.allow_mixed_builds)
        }
        Cmd::Export { text, pgn, format, perspective, scores, out, allow_damaged, files } => {
            let format = match format {
                Some(f) => f,
                None if text => ExportFormat::Text,
                None if pgn => ExportFormat::Pgn,
                None => ExportFormat::Text,
            };
            match format {
                ExportFormat::Text => export::text(&out, &files, perspective, allow_damaged),
                ExportFormat::Pgn => export::pgn(&out, &files, scores, allow_damaged),
                ExportFormat::FsfBin => fsf::export(&out, &files, allow_damaged),
            }
        }
        Cmd::ImportBin { variant, out, allow_damaged, files } => {
            fsf::import(&variant, &out, &files, allow_damaged)
        }
        Cmd::Repair { out, file } => repair::run(&out, &file),
        Cmd::FitWdl { net, hce: _, by, out, allow_damaged, files } => {
            let by = by.map(|b| match b {
                ByArg::Ply => kage_data::wdl::Bucketing::Ply,
                ByArg::Material => kage_data::wdl::Bucketing::Material,
            });
            let what = net.map_or(wdl::Fitted::Hce, wdl::Fitted::Net);
            wdl::run(&files, by, &what, out.as_deref(), allow_damaged)
        }
        Cmd::Bench { positions, dir } => bench::run(positions, dir),
    };
    kage_data::exit::exit_code("kage-data", res)
}
