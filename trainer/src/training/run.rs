//! A full training run: run directory, epochs, validation, metrics, checkpoints, export.

use crate::data::loader::{EpochLoader, LoaderConfig, LoaderError, LoaderMsg, keep};
use crate::data::sample::{Dataset, Sample};
use crate::data::space::{self, FeatureSpace};
use crate::data::synthetic::SyntheticDataset;
use crate::error::{ResumeError, TrainError, io_err};
use crate::export::report;
use crate::export::{ExportInfo, quantise};
use crate::model::fsf::FsfShape;
use crate::training::checkpoint::{self, CheckpointState};
use crate::training::config::{Arch, TrainConfig};
use crate::training::data_identity::DataIdentity;
use crate::training::fsf_step::FsfState;
use crate::training::init::{load_fsf_init_net, load_init_net};
use crate::training::progress::{EpochProgress, ProgressLog};
use crate::training::train::{EpochMetrics, Trainer};
use indicatif::{ProgressBar, ProgressStyle};
use kage_engine::util::hash::fnv1a64;
use kage_engine::util::read::{cap, read_text_capped};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// File names inside a run directory.
pub mod names {
    /// Resolved configuration.
    pub const CONFIG: &str = "config.toml";
    /// Run identity (variant, format version, git revision, run id).
    pub const RUN_INFO: &str = "run.toml";
    /// Metrics per epoch.
    pub const METRICS: &str = "metrics.csv";
    /// Loss curve.
    pub const LOSS_SVG: &str = "loss.svg";
    /// Latest checkpoint.
    pub const CHECKPOINT: &str = "checkpoint.ckpt";
    /// Final quantised network.
    pub const NET: &str = "net.nnue";
    /// Every file a run writes but the snapshots.
    pub const ALL: [&str; 7] = [
        CONFIG,
        RUN_INFO,
        METRICS,
        LOSS_SVG,
        CHECKPOINT,
        NET,
        crate::training::data_identity::FILE_NAME,
    ];

    /// Snapshot of the network after 1-based epoch `epoch` (with `snapshots`).
    pub fn snapshot(epoch: u32) -> String {
        format!("epoch-{epoch:03}.nnue")
    }
}

/// How to run.
#[derive(Debug, Clone, Copy, Default)]
pub struct RunOptions {
    /// Show indicatif progress bars.
    pub progress: bool,
    /// Stop (without exporting) once this many epochs are done, as if interrupted.
    pub stop_after: Option<u32>,
    /// Print a plain progress line to stderr this often (for logs, where no bar is drawn).
    pub log_every: Option<Duration>,
}

/// Result of a run.
#[derive(Debug, Clone)]
pub struct RunSummary {
    /// Run directory.
    pub dir: PathBuf,
    /// Metrics of every epoch.
    pub history: Vec<EpochMetrics>,
    /// Path of the quantised network.
    pub net_path: PathBuf,
    /// Run id.
    pub run_id: String,
}

/// Git revision of the build ([`kage_data::GIT_REVISION`]: `KAGE_GIT_REV` when set, else `git
/// rev-parse HEAD` where it was built, else "unknown"), so a binary records the same revision
/// wherever it runs.
pub fn git_revision() -> String {
    kage_data::GIT_REVISION.to_string()
}

/// Run id: a hash of the resolved configuration without the thread count (same settings and
/// seed, same id).
pub fn run_id(config_toml: &str) -> String {
    format!("{:016x}", fnv1a64(config_toml.as_bytes()))
}

fn open_dataset(cfg: &TrainConfig, space: &FeatureSpace) -> Result<Arc<dyn Dataset>, TrainError> {
    match &cfg.synthetic {
        Some(s) => Ok(Arc::new(SyntheticDataset::new(s.clone()))),
        None => {
            Ok(crate::data::decode::open_files(space, &cfg.data, cfg.decode, cfg.allow_damaged)?)
        }
    }
}

fn load_val_files(cfg: &TrainConfig, space: &FeatureSpace) -> Result<Vec<Sample>, TrainError> {
    if cfg.val_data.is_empty() {
        return Ok(Vec::new());
    }
    let ds = crate::data::decode::open_files(space, &cfg.val_data, cfg.decode, cfg.allow_damaged)?;
    let mut src = ds.open()?;
    let mut out = Vec::new();
    while let Some(s) = src.next_sample()? {
        if keep(&cfg.filter, &s) && out.len() < cfg.val_max {
            out.push(s);
        }
    }
    Ok(out)
}

/// The training and validation files of a run (none for synthetic data).
fn data_files(cfg: &TrainConfig) -> Vec<PathBuf> {
    if cfg.synthetic.is_some() {
        return Vec::new();
    }
    cfg.data.iter().chain(&cfg.val_data).cloned().collect()
}

fn write(path: &Path, text: &str) -> Result<(), TrainError> {
    kage_data::atomic::write_atomic(path, text.as_bytes()).map_err(io_err(path))
}

/// The tool name a run directory's owner file records ([`kage_data::guard::claim_dir`]).
pub const OWNER: &str = "kage-train";

/// Refuses, before any work, a run whose outputs would replace one of its inputs: `--out`
/// naming a data file, or a data file, the `--init-net` or one of `more_inputs` (the
/// `--config` file) under the name of a file the run writes in `dir`.
pub fn refuse_overwrite(
    cfg: &TrainConfig,
    dir: &Path,
    more_inputs: &[&Path],
) -> Result<(), TrainError> {
    let data = data_files(cfg);
    let mut inputs: Vec<&Path> = data.iter().map(PathBuf::as_path).collect();
    inputs.extend(cfg.init_net.as_deref());
    inputs.extend_from_slice(more_inputs);
    let files = names::ALL.iter().map(|n| dir.join(n));
    let snapshots =
        (1..=cfg.epochs).filter(|_| cfg.snapshots).map(|e| dir.join(names::snapshot(e)));
    let outputs: Vec<PathBuf> =
        std::iter::once(dir.to_path_buf()).chain(files).chain(snapshots).collect();
    let flagged: Vec<(&str, &Path)> = outputs.iter().map(|p| ("--out", p.as_path())).collect();
    Ok(kage_data::guard::refuse_overwrite(&flagged, &inputs)?)
}

/// Starts a new run in `dir` (created if needed; refused if it already holds a run or
/// belongs to another tool, or if the data would count positions twice).
pub fn run(cfg: TrainConfig, dir: &Path, opts: RunOptions) -> Result<RunSummary, TrainError> {
    cfg.validate()?;
    refuse_overwrite(&cfg, dir, &[])?;
    let identity = DataIdentity::of(&data_files(&cfg))?;
    identity.check_distinct(cfg.data.len())?;
    let space = space::resolve(&cfg)?;
    if dir.join(names::CHECKPOINT).exists() {
        return Err(TrainError::RunExists { dir: dir.to_path_buf() });
    }
    kage_data::guard::claim_dir(dir, OWNER)?;
    let trainer = start(cfg, &space)?;
    identity.save(dir)?;
    drive(trainer, &space, dir, opts)
}

/// The trainer a new run starts with: from its `--init-net`, else seeded weights.
fn start(cfg: TrainConfig, space: &FeatureSpace) -> Result<Trainer, TrainError> {
    Ok(match (&cfg.init_net, cfg.arch) {
        (None, _) => Trainer::new(cfg, space.num_features),
        (Some(path), Arch::Small) => {
            let params = load_init_net(path, &cfg, space)?;
            Trainer::from_init(cfg, params)
        }
        (Some(path), Arch::Fsf) => {
            let (ft, head) = load_fsf_init_net(path, space)?;
            Trainer::from_fsf_init(cfg, ft, head)
        }
    })
}

/// Continues the run in `dir` from its last checkpoint; `epochs` may extend the run.
///
/// The checkpoint is what decides: new settings (`epochs`) are stored in it before
/// `config.toml` says them, and a `config.toml` that differs from it only in the epochs (an
/// `--epochs` change interrupted between the two writes, or made by an older kage-train
/// before its first checkpoint) is taken as the checkpoint says, so the directory can be
/// resumed at every instant.
pub fn resume(dir: &Path, epochs: Option<u32>, opts: RunOptions) -> Result<RunSummary, TrainError> {
    let cfg_path = dir.join(names::CONFIG);
    let text = read_text_capped(&cfg_path, cap::TEXT, "training configuration")?;
    let mut state = checkpoint::load(&dir.join(names::CHECKPOINT))?;
    let saved = TrainConfig::from_toml(&state.config_toml)?;
    let mut cfg = reconcile(TrainConfig::from_toml(&text)?, &saved, &cfg_path)?;
    if let Some(e) = epochs {
        check_epochs(e, state.epochs_done, saved.epochs)?;
        cfg = cfg.with_epochs(e, state.epochs_done);
        cfg.validate()?;
    }
    refuse_overwrite(&cfg, dir, &[])?;
    kage_data::guard::claim_dir(dir, OWNER)?;
    if let Some(then) = DataIdentity::load(dir)? {
        let now = DataIdentity::of(&data_files(&cfg))?;
        if let Some(why) = then.differs(&now) {
            return Err(ResumeError::DataChanged(why).into());
        }
    }
    let space = space::resolve(&cfg)?;
    let p = &state.params;
    let model_features = Trainer::model_features(&cfg, space.num_features);
    let head_size = if cfg.arch == Arch::Fsf { 0 } else { cfg.head_size };
    if (p.num_features, p.ft_size, p.head_size) != (model_features, cfg.ft_size, head_size)
        || (cfg.arch == Arch::Fsf) != state.fsf.is_some()
    {
        return Err(ResumeError::Shape.into());
    }
    let result_toml = cfg.result_toml()?;
    if result_toml != state.config_toml {
        state.config_toml = result_toml;
        checkpoint::save(&dir.join(names::CHECKPOINT), &state)?;
    }
    let CheckpointState { epochs_done, step, history, params, moments, fsf, .. } = state;
    let mut trainer = Trainer::from_state(cfg, params, Some(moments), step, epochs_done, history);
    if let (Some((head, moments)), Some(layout)) = (fsf, &space.fsf) {
        let shape = FsfShape::new(layout.as_ref().clone());
        trainer.fsf = Some(Box::new(FsfState::new(shape, head, Some(moments))));
    }
    drive(trainer, &space, dir, opts)
}

/// The configuration to resume with: `config.toml`'s, which must decide the weights as the
/// checkpoint's does but for the epoch count (and its changes), taken from the checkpoint.
fn reconcile(
    cfg: TrainConfig,
    saved: &TrainConfig,
    cfg_path: &Path,
) -> Result<TrainConfig, TrainError> {
    let epochs_changes = saved.epochs_changes.clone();
    let cfg = TrainConfig { epochs_changes, ..cfg };
    let same_but_epochs = TrainConfig { epochs: saved.epochs, ..cfg.result_config() };
    if same_but_epochs != saved.result_config() {
        return Err(ResumeError::ConfigDiffers(cfg_path.to_path_buf()).into());
    }
    if cfg.epochs != saved.epochs {
        eprintln!(
            "kage-train: note: {} says {} epochs, the checkpoint {} (an --epochs change that \
             was interrupted); continuing with {}: pass --epochs to choose",
            cfg_path.display(),
            cfg.epochs,
            saved.epochs,
            saved.epochs
        );
    }
    Ok(TrainConfig { epochs: saved.epochs, ..cfg })
}

/// Refuses `--epochs e` that would stop a run at or before where it stands (`done` epochs
/// of `planned`): the net would be labelled as an `e`-epoch run, whose id a fresh run of `e`
/// epochs, with other weights, also has.
fn check_epochs(e: u32, done: u32, planned: u32) -> Result<(), TrainError> {
    if e < planned && e <= done {
        return Err(ResumeError::Epochs { epochs: e, done, planned }.into());
    }
    Ok(())
}

fn drive(
    mut trainer: Trainer,
    space: &FeatureSpace,
    dir: &Path,
    opts: RunOptions,
) -> Result<RunSummary, TrainError> {
    let cfg = trainer.cfg.clone();
    let config_toml = cfg.to_toml()?;
    let result_toml = cfg.result_toml()?;
    let id = run_id(&result_toml);
    let rev = git_revision();
    write(&dir.join(names::CONFIG), &config_toml)?;
    let (arch, version) = match cfg.arch {
        Arch::Small => ("", kage_engine::nnue::FORMAT_VERSION.to_string()),
        Arch::Fsf => ("arch = \"fsf\"\n", format!("{:#x}", kage_engine::nnue::fsf::arch::VERSION)),
    };
    let info = format!(
        "run_id = \"{id}\"\n{arch}variant = \"{}\"\nfeature_set_id = {:#x}\nnum_features = {}\nnet_format_version = {version}\ngit_revision = \"{rev}\"\n",
        space.variant, space.feature_set_id, space.num_features,
    );
    write(&dir.join(names::RUN_INFO), &info)?;
    let info = RunIdentity { id: id.clone(), rev: rev.clone(), result_toml: result_toml.clone() };
    let dataset = open_dataset(&cfg, space)?;
    let mut val = load_val_files(&cfg, space)?;
    let have_val_files = !cfg.val_data.is_empty();
    let loader_cfg = LoaderConfig {
        batch_size: cfg.batch_size,
        shuffle_buffer: cfg.shuffle_buffer,
        seed: cfg.seed,
        val_fraction: if have_val_files { 0.0 } else { cfg.val_fraction },
        val_max: cfg.val_max,
        filter: cfg.filter.clone(),
        blend: trainer.blend(),
        num_features: space.num_features,
        prefetch: 8,
    };
    let mut expected = trainer.history.last().map(|m| m.positions).unwrap_or(0);
    for epoch in trainer.epochs_done..cfg.epochs {
        if opts.stop_after.is_some_and(|n| epoch >= n) {
            return Ok(RunSummary {
                dir: dir.to_path_buf(),
                history: trainer.history,
                net_path: dir.join(names::NET),
                run_id: id,
            });
        }
        let lr = cfg.lr_at(epoch);
        let bar = progress_bar(opts.progress, epoch, cfg.epochs, expected);
        let loader = EpochLoader::spawn(dataset.clone(), loader_cfg.clone(), epoch);
        let start = Instant::now();
        let times_before = trainer.times;
        let (mut loss_sum, mut positions) = (0f64, 0u64);
        let mut held = None;
        let mut log = opts.log_every.map(ProgressLog::new);
        for msg in loader.rx.iter() {
            match msg {
                LoaderMsg::Batch(batch) => {
                    let loss = trainer.train_batch(&batch, lr);
                    loss_sum += f64::from(loss) * batch.len() as f64;
                    positions += batch.len() as u64;
                    bar.inc(batch.len() as u64);
                    if let Some(log) = &mut log {
                        log.tick(&EpochProgress {
                            epoch,
                            epochs: cfg.epochs,
                            positions,
                            expected,
                            secs: start.elapsed().as_secs_f64(),
                            loss: loss_sum / positions as f64,
                        });
                    }
                }
                LoaderMsg::Done { val, .. } => held = Some(val),
                LoaderMsg::Error(e) => return Err(TrainError::Loader(e)),
            }
        }
        let Some(held) = held else {
            return Err(TrainError::Loader(LoaderError::Stopped));
        };
        let secs = start.elapsed().as_secs_f64();
        bar.finish_and_clear();
        if positions == 0 {
            return Err(TrainError::NoPositions {
                epoch: epoch + 1,
                min_ply: cfg.filter.min_ply,
                max_abs_score: cfg.filter.max_abs_score,
                val_fraction: loader_cfg.val_fraction,
            });
        }
        if !have_val_files && val.is_empty() {
            val = held;
        }
        let m = EpochMetrics {
            epoch: epoch + 1,
            train_loss: if positions > 0 { loss_sum / positions as f64 } else { f64::NAN },
            val_loss: trainer.loss_on(&val),
            pos_per_s: positions as f64 / secs.max(1e-9),
            lr,
            positions,
        };
        if !m.train_loss.is_finite() {
            return Err(TrainError::Diverged { epoch: m.epoch, loss: m.train_loss });
        }
        if opts.progress {
            let left = f64::from(cfg.epochs - m.epoch) * secs;
            eprintln!(
                "epoch {:>3}/{}: train {:.6} val {:.6} lr {:.2e} {:.0} pos/s ({} positions), ETA {}",
                m.epoch,
                cfg.epochs,
                m.train_loss,
                m.val_loss,
                m.lr,
                m.pos_per_s,
                m.positions,
                crate::training::progress::duration(left)
            );
            let t = trainer.times.since(&times_before);
            eprintln!(
                "  phases: ft forward {:.1}s, head {:.1}s, updates {:.1}s, waiting for data {:.1}s",
                t.ft_forward,
                t.head,
                t.update,
                (secs - t.total()).max(0.0)
            );
        }
        expected = positions;
        trainer.history.push(m);
        trainer.epochs_done = epoch + 1;
        checkpoint::save(
            &dir.join(names::CHECKPOINT),
            &CheckpointState::of(&trainer, &result_toml),
        )?;
        write(&dir.join(names::METRICS), &report::metrics_csv(&trainer.history))?;
        let title = format!("kage-train {} run {id} (git {rev})", space.variant);
        write(&dir.join(names::LOSS_SVG), &report::loss_svg(&trainer.history, &title))?;
        if cfg.snapshots {
            export(&trainer, space, &info, &dir.join(names::snapshot(epoch + 1)))?;
        }
    }
    let net_path = export(&trainer, space, &info, &dir.join(names::NET))?;
    Ok(RunSummary { dir: dir.to_path_buf(), history: trainer.history, net_path, run_id: id })
}

/// Quantises the trainer's weights into `path` (temp file + rename); returns the path. The
/// fsf architecture writes FSF's file instead, named by FSF's rule in `path`'s directory
/// (snapshots: in a directory named after `path`).
fn export(
    trainer: &Trainer,
    space: &FeatureSpace,
    info: &RunIdentity,
    path: &Path,
) -> Result<PathBuf, TrainError> {
    if let (Some(state), Some(layout)) = (&trainer.fsf, &space.fsf) {
        let (ft, head) = state.folded(&trainer.params);
        let desc = kage_engine::nnue::fsf::net::kage_description(&info.id, &info.rev);
        let dir = match path.file_name() {
            Some(n) if n != names::NET => path.with_extension(""),
            _ => path.parent().unwrap_or(Path::new(".")).to_path_buf(),
        };
        std::fs::create_dir_all(&dir).map_err(io_err(&dir))?;
        return crate::export::fsf::write(
            &dir,
            layout,
            &crate::export::fsf::quantise(&ft, &head, &desc),
        );
    }
    let net = quantise(
        &trainer.export_params(),
        &ExportInfo {
            variant: space.variant.clone(),
            feature_set_id: space.feature_set_id,
            output_scale: trainer.cfg.scale.round().clamp(1.0, f64::from(u32::MAX)) as u32,
            run_id: info.id.clone(),
            git_revision: info.rev.clone(),
            config: info.result_toml.clone(),
        },
    )?;
    kage_data::atomic::write_atomic(path, &net.to_bytes()).map_err(io_err(path))?;
    Ok(path.to_path_buf())
}

/// What every network of a run records about it.
struct RunIdentity {
    id: String,
    rev: String,
    result_toml: String,
}

fn progress_bar(show: bool, epoch: u32, epochs: u32, expected: u64) -> ProgressBar {
    if !show {
        return ProgressBar::hidden();
    }
    let bar = if expected > 0 { ProgressBar::new(expected) } else { ProgressBar::no_length() };
    let style = ProgressStyle::with_template(
        "{prefix} [{elapsed_precise}] {wide_bar} {human_pos}/{human_len} pos ({per_sec})",
    )
    .unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style);
    bar.set_prefix(format!("epoch {}/{}", epoch + 1, epochs));
    bar
}
