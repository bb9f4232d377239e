//! `kage-train bench`: training throughput on synthetic data (and the loader on files).

use crate::cli::{Approach, BenchArgs};
use crate::init_threads;
use anyhow::Result;
use kage_train::bench::{self, BenchConfig};

fn cpu(r: &bench::BenchResult) -> String {
    match r.pos_per_cpu_s() {
        Some(v) => format!(", {:.0} pos per CPU-second", v),
        None => String::new(),
    }
}

/// Runs the approaches `a` asks for, then the loader on `--data` if given.
pub(crate) fn run_bench(a: BenchArgs) -> Result<()> {
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
    let runs = |x: Approach| a.approach == Approach::All || a.approach == x;
    if runs(Approach::Hybrid) {
        hybrid(&cfg);
    }
    if runs(Approach::BurnSelect) {
        let r = bench::burn_select(&cfg);
        println!(
            "burn select+sum (all in burn):       {:>10.0} pos/s ({} pos in {:.2}s{})",
            r.pos_per_s,
            r.positions,
            r.seconds,
            cpu(&r)
        );
    }
    if runs(Approach::Loader) {
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
        loader_on_files(&a, cfg)?;
    }
    Ok(())
}

fn hybrid(cfg: &BenchConfig) {
    let r = bench::hybrid(cfg);
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

/// The loader on `--data` (decode, engine features, filter, shuffle, batches), after a
/// first pass that counts the positions.
fn loader_on_files(a: &BenchArgs, cfg: BenchConfig) -> Result<()> {
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
    Ok(())
}
