//! Training (the default command): the configuration from `--config` and the options, a
//! new run or a resumed one.

use crate::cli::TrainArgs;
use crate::init_threads;
use anyhow::{Context, Result, bail};
use kage_engine::util::read::{cap, read_text_capped};
use kage_train::RunOptions;
use kage_train::data::score_wdl::ScoreWdlConfig;
use kage_train::data::synthetic::SyntheticConfig;
use kage_train::training::config::{Arch, TrainConfig};
use std::path::Path;

/// Copies each named option that was given into the configuration.
macro_rules! set {
    ($cfg:expr, $args:expr, $($f:ident),*) => { $( if let Some(v) = $args.$f.clone() { $cfg.$f = v; } )* };
}

/// The configuration of a new run: `--config`'s (or the defaults) with the options over it,
/// validated.
pub(crate) fn resolve_config(a: &TrainArgs) -> Result<TrainConfig> {
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
    if let Some(p) = &a.score_wdl {
        cfg.score_wdl = Some(ScoreWdlConfig::read(p, &cfg.variant)?);
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

/// Trains a new run into `--out`, or continues `--resume`'s; prints the last epoch's losses.
pub(crate) fn train(a: TrainArgs) -> Result<()> {
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
