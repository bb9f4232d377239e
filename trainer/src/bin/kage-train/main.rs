//! `kage-train`: train, inspect and benchmark kage NNUE networks. The command line is
//! [`cli`]; each command's work is in its module, on top of the `kage_train` library.

mod bench;
mod cli;
mod train;
mod tune;

use anyhow::{Context, Result};
use clap::Parser;
use cli::{Cli, Command};
use kage_train::export::inspect;
use std::path::Path;
use std::process::ExitCode;

pub(crate) fn init_threads(n: usize) -> Result<()> {
    if n > 0 {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .context("configuring rayon threads")?;
    }
    Ok(())
}

/// Prints the report of the network at `net` (kage's or FSF's format).
fn run_inspect(net: &Path) -> Result<()> {
    let bytes =
        kage_engine::nnue::read_file(net).with_context(|| format!("reading {}", net.display()))?;
    if kage_engine::nnue::fsf::is_fsf_net(&bytes) {
        let text =
            inspect::fsf_report(&bytes).with_context(|| format!("inspecting {}", net.display()))?;
        print!("{text}");
        return Ok(());
    }
    let net_v = kage_engine::nnue::Network::load(&bytes)
        .with_context(|| format!("loading network {}", net.display()))?;
    print!("{}", inspect::report(&net_v));
    Ok(())
}

/// The command's work; any error ends it.
fn dispatch(cli: Cli) -> Result<()> {
    match cli.command {
        Some(Command::Inspect { net }) => run_inspect(&net),
        Some(Command::Bench(a)) => bench::run_bench(a),
        Some(Command::Tune(a)) => tune::run_tune(a),
        None => train::train(cli.train),
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
