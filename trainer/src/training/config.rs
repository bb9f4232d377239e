//! Training configuration: defaults, TOML round trip and validation.

use crate::data::score_wdl::ScoreWdlConfig;
use crate::data::synthetic::SyntheticConfig;
use kage_engine::nnue::network::{MAX_FT_SIZE, MAX_HEAD_SIZE};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use thiserror::Error;

/// Learning-rate schedule (applied per epoch).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum LrSchedule {
    /// `lr` throughout.
    Constant,
    /// `lr * lr_gamma ^ floor(epoch / lr_step_epochs)`.
    Step,
    /// Cosine from `lr` down to `lr_min` over `epochs`.
    Cosine,
}

/// How position records are turned into features.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum DecodeMode {
    /// Features from the compact fields directly (fast; piece codes checked).
    #[default]
    Fast,
    /// Full `kage_engine::Position` through the engine's FEN parser, then
    /// `features::active_features` (validates legality; slower).
    Position,
}

/// The network architecture a run trains.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Arch {
    /// kage's own small net: `(features -> ft_size) x 2 -> head_size -> 1` (the default).
    #[default]
    Small,
    /// Fairy-Stockfish's architecture (HalfKAv2_variants, 512 x 2, 8 PSQT buckets, 8 layer
    /// stacks 1024 -> 16 -> 32 -> 1), exported in FSF's own file format.
    Fsf,
}

impl Arch {
    /// Whether this is the small net (the TOML leaves the default out, so small-net runs
    /// keep their configuration text and run ids).
    pub fn is_small(&self) -> bool {
        *self == Arch::Small
    }
}

/// Filters applied to positions at load time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FilterConfig {
    /// Skip positions before this ply.
    pub min_ply: u16,
    /// Skip positions where the side to move is in check.
    pub skip_in_check: bool,
    /// Skip positions whose best move is a capture or a promotion.
    pub skip_noisy: bool,
    /// Skip positions with `|score| > max_abs_score`.
    pub max_abs_score: i16,
}

impl Default for FilterConfig {
    fn default() -> Self {
        FilterConfig { min_ply: 8, skip_in_check: true, skip_noisy: true, max_abs_score: 3000 }
    }
}

/// An `--epochs` change made when a run was resumed: the epochs before `at` were trained as
/// part of a run of `epochs` epochs (the cosine schedule's length). Recorded so that the
/// configuration still says how the weights were made, and an extended run has another id
/// than a fresh run of its new length.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EpochsChange {
    /// Epochs done when the length changed.
    pub at: u32,
    /// The run's length before.
    pub epochs: u32,
}

/// Every setting of a training run. Written resolved to `config.toml` in the run directory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TrainConfig {
    /// Variant name.
    pub variant: String,
    /// The network architecture (`small` or `fsf`). Written to the TOML only for `fsf`.
    #[serde(skip_serializing_if = "Arch::is_small")]
    pub arch: Arch,
    /// Training data files (kage-data training-position files).
    pub data: Vec<PathBuf>,
    /// Optional separate validation files (otherwise a fraction of `data` is held out).
    pub val_data: Vec<PathBuf>,
    /// Train on synthetic data instead of files (tests, benchmarks).
    pub synthetic: Option<SyntheticConfig>,
    /// Feature-transformer width per perspective.
    pub ft_size: usize,
    /// Hidden head width.
    pub head_size: usize,
    /// Number of epochs (one epoch = one pass over the training data).
    pub epochs: u32,
    /// Positions per batch.
    pub batch_size: usize,
    /// Initial learning rate.
    pub lr: f64,
    /// Schedule.
    pub lr_schedule: LrSchedule,
    /// Final learning rate of the cosine schedule.
    pub lr_min: f64,
    /// Epochs per step of the step schedule.
    pub lr_step_epochs: u32,
    /// Factor per step of the step schedule.
    pub lr_gamma: f64,
    /// AdamW decoupled weight decay (weights only, not biases).
    pub weight_decay: f64,
    /// Adam beta1.
    pub beta1: f64,
    /// Adam beta2.
    pub beta2: f64,
    /// Adam epsilon.
    pub eps: f64,
    /// Train with the piece factoriser (a shared row per piece group besides each
    /// piece-square row; folded into the piece-square rows on export).
    #[serde(default)]
    pub factorise: bool,
    /// Weight of the search score in the target (1 = score only, 0 = result only).
    pub lambda: f64,
    /// The data's WDL model (`--score-wdl FILE`, its numbers as read): the score part of the
    /// target is the model's expected result instead of `sigmoid(score / scale)`
    /// (`data::score_wdl`). Written to the TOML only when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score_wdl: Option<ScoreWdlConfig>,
    /// Centipawns per logit: target uses `sigmoid(score / scale)`, the net predicts
    /// `sigmoid(output / scale)` and the exported net evaluates `output` in centipawns.
    pub scale: f64,
    /// Seed for initialisation and shuffling.
    pub seed: u64,
    /// Shuffle buffer size in positions.
    pub shuffle_buffer: usize,
    /// Fraction of the data held out for validation when `val_data` is empty.
    pub val_fraction: f64,
    /// Most validation positions kept.
    pub val_max: usize,
    /// Load-time filters.
    pub filter: FilterConfig,
    /// Worker threads (0 = all cores).
    pub threads: usize,
    /// How position records become features (`fast` or `position`).
    pub decode: DecodeMode,
    /// Train on what is left of data files with damaged chunks (dropped with a warning)
    /// instead of refusing them. Written to the TOML only when set.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub allow_damaged: bool,
    /// Start from this quantised network (its weights dequantised) instead of random weights.
    /// The small net: a kage net whose variant, feature set, sizes and output scale match
    /// the configuration; the fsf architecture: an FSF-format net of the variant.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub init_net: Option<PathBuf>,
    /// Also write the quantised network after every epoch (`epoch-NNN.nnue` in the run
    /// directory). Does not change the trained weights (not part of the run id).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub snapshots: bool,
    /// The `--epochs` changes of resumes, in order (none for a run that kept its length;
    /// written to the TOML only when there are some).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub epochs_changes: Vec<EpochsChange>,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            variant: "minishogi".into(),
            arch: Arch::Small,
            data: Vec::new(),
            val_data: Vec::new(),
            synthetic: None,
            ft_size: 128,
            head_size: 32,
            epochs: 10,
            batch_size: 4096,
            lr: 1e-3,
            lr_schedule: LrSchedule::Cosine,
            lr_min: 1e-5,
            lr_step_epochs: 4,
            lr_gamma: 0.3,
            weight_decay: 1e-5,
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
            factorise: false,
            lambda: 0.75,
            score_wdl: None,
            scale: 400.0,
            seed: 1,
            shuffle_buffer: 200_000,
            val_fraction: 0.01,
            val_max: 20_000,
            filter: FilterConfig::default(),
            threads: 0,
            decode: DecodeMode::Fast,
            allow_damaged: false,
            init_net: None,
            snapshots: false,
            epochs_changes: Vec::new(),
        }
    }
}

/// Invalid configuration.
#[derive(Debug, Error)]
pub enum ConfigError {
    /// A setting is out of range.
    #[error("invalid setting {field}: {reason}")]
    Invalid {
        /// Setting name.
        field: &'static str,
        /// Why.
        reason: String,
    },
    /// TOML parse error.
    #[error("parsing config TOML: {}", crate::error::toml_one_line(.0))]
    Parse(toml::de::Error),
    /// TOML write error.
    #[error("writing config TOML: {0}")]
    Write(toml::ser::Error),
}

// Not `#[from]`: that would also make the TOML error the `source`, and `{:#}` would print
// it twice.
impl From<toml::de::Error> for ConfigError {
    fn from(e: toml::de::Error) -> ConfigError {
        ConfigError::Parse(e)
    }
}

impl From<toml::ser::Error> for ConfigError {
    fn from(e: toml::ser::Error) -> ConfigError {
        ConfigError::Write(e)
    }
}

/// The FT width of the fsf architecture (FSF's L1).
pub const FSF_FT_SIZE: usize = kage_engine::nnue::fsf::arch::L1;

/// Smallest accepted `scale` (centipawns per logit).
pub const MIN_SCALE: f64 = 1.0;
/// Largest accepted `scale`.
pub const MAX_SCALE: f64 = 1e6;

fn invalid(field: &'static str, reason: impl Into<String>) -> ConfigError {
    ConfigError::Invalid { field, reason: reason.into() }
}

impl TrainConfig {
    /// Parses TOML (unknown keys rejected, missing keys default) and validates.
    pub fn from_toml(text: &str) -> Result<TrainConfig, ConfigError> {
        let cfg = TrainConfig::from_toml_partial(text)?;
        cfg.validate()?;
        Ok(cfg)
    }

    /// Parses TOML without validating: a recipe file that leaves the data (or other settings)
    /// to the command line; the caller validates once everything is set.
    pub fn from_toml_partial(text: &str) -> Result<TrainConfig, ConfigError> {
        Ok(toml::from_str(text)?)
    }

    /// Resolved TOML text.
    pub fn to_toml(&self) -> Result<String, ConfigError> {
        Ok(toml::to_string(self)?)
    }

    /// The settings that decide the trained weights: everything but the thread count (results
    /// do not depend on it; it reads 0 here) and `snapshots`. Runs that differ only in these
    /// share a run id and write byte-identical checkpoints and nets.
    pub fn result_config(&self) -> TrainConfig {
        TrainConfig { threads: 0, snapshots: false, ..self.clone() }
    }

    /// [`Self::result_config`] as TOML (what the run id hashes and the net and checkpoint
    /// record).
    pub fn result_toml(&self) -> Result<String, ConfigError> {
        self.result_config().to_toml()
    }

    /// Checks every setting's range.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.variant.trim().is_empty() {
            return Err(invalid("variant", "must not be empty"));
        }
        if self.data.is_empty() && self.synthetic.is_none() {
            return Err(invalid("data", "give data files or a synthetic data set"));
        }
        // The sizes a network file may have (the engine refuses larger ones).
        if !(1..=MAX_FT_SIZE as usize).contains(&self.ft_size) {
            return Err(invalid("ft_size", format!("must be in 1..={MAX_FT_SIZE}")));
        }
        if self.arch == Arch::Fsf && self.ft_size != FSF_FT_SIZE {
            return Err(invalid(
                "ft_size",
                format!("the fsf architecture's feature transformer is {FSF_FT_SIZE} wide"),
            ));
        }
        if !(1..=MAX_HEAD_SIZE as usize).contains(&self.head_size) {
            return Err(invalid("head_size", format!("must be in 1..={MAX_HEAD_SIZE}")));
        }
        if self.epochs == 0 {
            return Err(invalid("epochs", "must be at least 1"));
        }
        if !(1..=1 << 20).contains(&self.batch_size) {
            return Err(invalid("batch_size", "must be in 1..=1048576"));
        }
        // Scores are divided by `scale`: a tiny one turns every target into 0 or 1 and the
        // loss into NaN; the exported net stores it as an integer.
        if !(self.scale.is_finite() && (MIN_SCALE..=MAX_SCALE).contains(&self.scale)) {
            return Err(invalid(
                "scale",
                format!(
                    "must be in {MIN_SCALE}..={MAX_SCALE} (centipawns per logit), got {}",
                    self.scale
                ),
            ));
        }
        if let Some(w) = &self.score_wdl {
            w.models().map_err(|e| invalid("score_wdl", e.to_string()))?;
        }
        let positive = [("lr", self.lr), ("eps", self.eps)];
        for (field, v) in positive {
            if !(v.is_finite() && v > 0.0) {
                return Err(invalid(field, format!("must be a positive number, got {v}")));
            }
        }
        let unit = [
            ("lambda", self.lambda),
            ("beta1", self.beta1),
            ("beta2", self.beta2),
            ("val_fraction", self.val_fraction),
            ("lr_gamma", self.lr_gamma),
        ];
        for (field, v) in unit {
            if !(0.0..=1.0).contains(&v) {
                return Err(invalid(field, format!("must be in [0, 1], got {v}")));
            }
        }
        if self.val_fraction >= 1.0 && self.val_data.is_empty() {
            return Err(invalid(
                "val_fraction",
                "must be below 1 (1 holds out every position and leaves none to train on)",
            ));
        }
        if !(self.weight_decay.is_finite() && self.weight_decay >= 0.0) {
            return Err(invalid("weight_decay", "must be >= 0"));
        }
        if !(self.lr_min.is_finite() && self.lr_min >= 0.0 && self.lr_min <= self.lr) {
            return Err(invalid("lr_min", "must be in [0, lr]"));
        }
        let mut after = 0;
        for c in &self.epochs_changes {
            if !(c.at > after && c.at <= c.epochs && c.at < self.epochs) {
                return Err(invalid(
                    "epochs_changes",
                    "each change must come after the one before it, within the epochs before \
                     and before the run's last epoch",
                ));
            }
            after = c.at;
        }
        if self.lr_step_epochs == 0 {
            return Err(invalid("lr_step_epochs", "must be at least 1"));
        }
        if self.shuffle_buffer == 0 {
            return Err(invalid("shuffle_buffer", "must be at least 1"));
        }
        if self.filter.max_abs_score <= 0 {
            return Err(invalid("filter.max_abs_score", "must be positive"));
        }
        if let Some(s) = &self.synthetic
            && (s.num_features == 0 || s.min_active == 0 || s.max_active < s.min_active)
        {
            return Err(invalid(
                "synthetic",
                "need num_features > 0 and 0 < min_active <= max_active",
            ));
        }
        Ok(())
    }

    /// The run's length as it was when the 0-based `epoch` was trained.
    pub fn epochs_at(&self, epoch: u32) -> u32 {
        self.epochs_changes.iter().find(|c| epoch < c.at).map_or(self.epochs, |c| c.epochs)
    }

    /// This configuration resumed after `done` epochs with `epochs` as its length: the
    /// change is recorded (once per point of the run).
    pub fn with_epochs(&self, epochs: u32, done: u32) -> TrainConfig {
        let mut cfg = self.clone();
        if epochs == self.epochs {
            return cfg;
        }
        if cfg.epochs_changes.last().is_none_or(|c| c.at < done) {
            cfg.epochs_changes.push(EpochsChange { at: done, epochs: self.epochs });
        }
        cfg.epochs = epochs;
        cfg
    }

    /// Learning rate for a 0-based epoch (of the run's length then: [`Self::epochs_at`]).
    pub fn lr_at(&self, epoch: u32) -> f64 {
        let epochs = self.epochs_at(epoch);
        match self.lr_schedule {
            LrSchedule::Constant => self.lr,
            LrSchedule::Step => self.lr * self.lr_gamma.powi((epoch / self.lr_step_epochs) as i32),
            LrSchedule::Cosine => {
                let t = if epochs <= 1 { 0.0 } else { f64::from(epoch) / f64::from(epochs - 1) };
                self.lr_min
                    + 0.5 * (self.lr - self.lr_min) * (1.0 + (std::f64::consts::PI * t).cos())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toml_round_trip_and_validation() {
        let mut cfg =
            TrainConfig { synthetic: Some(SyntheticConfig::default()), ..Default::default() };
        cfg.data.push("a.bin".into());
        let text = cfg.to_toml().expect("serialises");
        assert_eq!(TrainConfig::from_toml(&text).expect("parses"), cfg);
        assert!(TrainConfig::from_toml("bogus_key = 1\nsynthetic = {}").is_err());
        let err = TrainConfig::from_toml("lambda = 2.0\nsynthetic = {}").unwrap_err();
        assert!(err.to_string().contains("lambda"));
    }

    #[test]
    fn schedules() {
        let cfg = TrainConfig { epochs: 5, lr: 1.0, lr_min: 0.0, ..Default::default() };
        assert!((cfg.lr_at(0) - 1.0).abs() < 1e-12);
        assert!(cfg.lr_at(4).abs() < 1e-12);
        let step = TrainConfig {
            lr_schedule: LrSchedule::Step,
            lr: 1.0,
            lr_step_epochs: 2,
            lr_gamma: 0.5,
            ..cfg
        };
        assert_eq!(
            [step.lr_at(0), step.lr_at(1), step.lr_at(2), step.lr_at(5)],
            [1.0, 1.0, 0.5, 0.25]
        );
    }

    #[test]
    fn a_changed_length_keeps_the_schedule_of_the_epochs_before() {
        let two = TrainConfig { epochs: 2, lr: 1.0, lr_min: 0.0, ..Default::default() };
        let four = two.with_epochs(4, 2);
        assert_eq!(four.epochs_changes, [EpochsChange { at: 2, epochs: 2 }]);
        assert_eq!((four.lr_at(0), four.lr_at(1)), (two.lr_at(0), two.lr_at(1)));
        let fresh = TrainConfig { epochs: 4, ..two.clone() };
        assert_eq!((four.lr_at(2), four.lr_at(3)), (fresh.lr_at(2), fresh.lr_at(3)));
        // Two changes at one point of the run: the first says how its epochs were trained.
        assert_eq!(four.with_epochs(6, 2).epochs_changes, four.epochs_changes);
        assert_eq!(two.with_epochs(2, 2), two);
        let synthetic = Some(SyntheticConfig::default());
        let good = TrainConfig { synthetic, ..four };
        good.validate().expect("valid");
        let bad = TrainConfig { epochs_changes: vec![EpochsChange { at: 3, epochs: 2 }], ..good };
        let e = bad.validate().expect_err("refused").to_string();
        assert!(e.contains("epochs_changes"), "{e}");
    }
}
