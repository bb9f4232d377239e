//! Players strong for each candidate: the base net, renamed for the candidate's variant where
//! its feature space fits, and optionally fine-tuned by a short loop on the candidate's own
//! self-play: `tune/<cand>/selfplay` (a `generate` run with the base player) then
//! `tune/<cand>/train` (the `kage-train` program, run as a subprocess; from the base net where
//! it fits, else a fresh net; resumed from its checkpoint after an interruption).

use std::path::{Path, PathBuf};
use std::process::Command;

use kage_engine::nnue::Network;

use super::{FineTune, Resolved, Search, Step, write};
use crate::config::{NetRef, Shard};
use crate::error::{Result, SelfplayError};
use crate::player::file_hash;
use crate::run::run_dir;
use crate::study_error::StudyError;

fn tune_dir(s: &Search, r: &Resolved) -> PathBuf {
    let i = s.candidates.iter().position(|c| c.name == r.cand.name).unwrap_or(0);
    s.out.join(s.step_id(&Step::Tune(i)))
}

/// The base net's bytes renamed for `r`'s variant, when it is given and its feature space fits.
fn renamed_base(s: &Search, r: &Resolved) -> Result<Option<Vec<u8>>> {
    let Some(base) = &s.settings.base_net else { return Ok(None) };
    let bytes = crate::player::net_bytes(base)?;
    let net = Network::load(&bytes)
        .map_err(|cause| SelfplayError::Net { path: base.path.clone(), cause })?;
    let mut header = net.header().clone();
    header.variant = r.variant.clone();
    let renamed = Network::from_parts(header, net.weights().clone())
        .map_err(|cause| SelfplayError::Net { path: base.path.clone(), cause })?
        .to_bytes();
    let Some(v) = r.spec.as_ref().ok().and_then(|t| kage_data::variant::from_spec_cached(t).ok())
    else {
        return Ok(None);
    };
    Ok(Network::load_for_variant(&renamed, v).is_ok().then_some(renamed))
}

/// Without a fine-tune: the base net renamed for `r` (written to `tune/<cand>/base.nnue`),
/// or `None` (the hand-crafted evaluation) when none is given or it does not fit.
pub fn base_net_for(s: &Search, r: &Resolved) -> Result<Option<NetRef>> {
    let Some(bytes) = renamed_base(s, r)? else { return Ok(None) };
    let path = tune_dir(s, r).join("base.nnue");
    write_net(&path, &bytes)?;
    Ok(Some(NetRef { path: path.display().to_string(), hash: file_hash(&bytes) }))
}

fn write_net(path: &Path, bytes: &[u8]) -> Result<()> {
    if std::fs::read(path).is_ok_and(|b| b == bytes) {
        return Ok(());
    }
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| SelfplayError::io(dir, "create", e))?;
    kage_data::atomic::write_atomic(path, bytes).map_err(|e| SelfplayError::io(path, "write", e))
}

fn net_path(s: &Search, r: &Resolved) -> PathBuf {
    tune_dir(s, r).join("train").join("net.nnue")
}

/// Whether `r`'s fine-tune is done.
pub fn done(s: &Search, r: &Resolved) -> bool {
    net_path(s, r).exists()
}

/// The fine-tuned net of `r` (the fine-tune must be done).
pub fn tuned_net(s: &Search, r: &Resolved) -> Result<NetRef> {
    let path = net_path(s, r);
    let bytes = kage_engine::nnue::read_file(&path)
        .map_err(|cause| SelfplayError::Net { path: path.display().to_string(), cause })?;
    Ok(NetRef { path: path.display().to_string(), hash: file_hash(&bytes) })
}

/// Runs (or continues) `r`'s fine-tune; `Ok(false)` when interrupted.
pub fn run(s: &Search, r: &Resolved, ctl: &super::Control) -> Result<bool> {
    let FineTune::Short { games, epochs } = s.settings.fine_tune else { return Ok(true) };
    let dir = tune_dir(s, r);
    let mut cfg = s.settings.template.clone();
    cfg.variant = r.variant.clone();
    cfg.variant_spec = r.spec.clone().ok();
    cfg.games = games;
    cfg.budget = s.settings.levels[0];
    cfg.seed = s.settings.template.seed.wrapping_add(1 << 20) & crate::config::MAX_TOML_INT;
    cfg.net = base_net_for(s, r)?;
    let cfg = cfg.validated()?;
    if !ctl.play(&cfg, dir.join("selfplay"))? {
        return Ok(false);
    }
    let data = run_dir(&dir.join("selfplay"), &r.variant, Shard::WHOLE).join("positions.kdata");
    let train = dir.join("train");
    let exe = s.kage_train.as_ref().ok_or(StudyError::NoKageTrain)?;
    let mut cmd = Command::new(exe);
    if train.join("checkpoint.ckpt").exists() {
        cmd.arg("--resume").arg(&train);
    } else {
        cmd.args(["--variant", &r.variant]).arg("--data").arg(&data).arg("--out").arg(&train);
        cmd.args(["--epochs", &epochs.to_string(), "--seed", &cfg.seed.to_string()]);
        if let Some(net) = &cfg.net {
            let bytes = kage_engine::nnue::read_file(Path::new(&net.path))
                .map_err(|cause| SelfplayError::Net { path: net.path.clone(), cause })?;
            let h = Network::load(&bytes)
                .map_err(|cause| SelfplayError::Net { path: net.path.clone(), cause })?;
            let h = h.header();
            cmd.arg("--init-net").arg(&net.path);
            cmd.args([
                "--ft-size",
                &h.ft_size.to_string(),
                "--head-size",
                &h.head_size.to_string(),
            ]);
            cmd.args(["--scale", &h.output_scale.to_string()]);
        }
    }
    cmd.args(["--threads", &ctl.threads.to_string()]);
    let status =
        cmd.status().map_err(|cause| StudyError::TrainStart { exe: exe.clone(), cause })?;
    if !status.success() {
        if ctl.stop.load(std::sync::atomic::Ordering::SeqCst) {
            return Ok(false);
        }
        let variant = r.variant.clone();
        return Err(StudyError::TrainFailed { exe: exe.clone(), status, variant }.into());
    }
    if !done(s, r) {
        return Err(StudyError::TrainNoNet { exe: exe.clone(), net: net_path(s, r) }.into());
    }
    write(&dir.join("done.txt"), "fine-tune complete\n")?;
    Ok(true)
}
