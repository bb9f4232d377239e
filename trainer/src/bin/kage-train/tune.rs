//! `kage-train tune`: Texel tuning of the hand-crafted evaluation's parameters.

use crate::cli::TuneArgs;
use crate::init_threads;
use anyhow::{Context, Result, bail};
use kage_engine::eval::EvalParams;
use kage_engine::eval::hce_terms::params_toml;
use kage_engine::util::read::{cap, read_text_capped};
use kage_train::tune::TuneReport;
use std::path::{Path, PathBuf};

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

/// Tunes on `--data` from `--params` (or the built-in parameters), prints the result and
/// writes the parameter file.
pub(crate) fn run_tune(a: TuneArgs) -> Result<()> {
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
    print_report(&variant.name, &r);
    let text = params_toml(&r.tuned, &header(&a, &variant.name, &r));
    kage_data::atomic::write_atomic(&a.out, text.as_bytes())
        .with_context(|| format!("writing {}", a.out.display()))?;
    println!("wrote {}", a.out.display());
    Ok(())
}

/// The errors before and after, and the material, hand and tempo values.
fn print_report(variant: &str, r: &TuneReport) {
    println!(
        "{}: {} training + {} held-out positions ({} skipped: check, noisy best move, ply); K = {:.6}",
        variant, r.train_positions, r.val_positions, r.skipped, r.k
    );
    println!("train error {:.6} -> {:.6}", r.train_mse.0, r.train_mse.1);
    println!("held-out error {:.6} -> {:.6}", r.val_mse.0, r.val_mse.1);
    for (name, before, after) in &r.params {
        if name.starts_with("material.") || name.starts_with("hand.") || name == "tempo" {
            println!("  {name:<16} {before:>6.0} -> {after:>6.0}");
        }
    }
}

/// The parameter file's header comment: what was tuned, on what, and how.
fn header(a: &TuneArgs, variant: &str, r: &TuneReport) -> String {
    let files: Vec<String> = a.data.iter().map(|p| p.display().to_string()).collect();
    format!(
        "Hand-crafted evaluation parameters for {} (the terms: engine/src/eval/params.rs),\n\
         tuned by `kage-train tune` (git {}) on {} positions of {}\n\
         iterations {}, lr {}, l2 {}, seed {}, min-ply {}, lambda {}; K {:.6};\n\
         held-out error {:.6} -> {:.6}. Material values here override the spec's for the\n\
         evaluation only.",
        variant,
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
    )
}
