//! Shared helpers for the trainer's integration tests.
#![allow(dead_code)]

use kage_train::data::synthetic::SyntheticConfig;
use kage_train::training::config::{FilterConfig, LrSchedule, TrainConfig};
use std::path::PathBuf;

/// A fresh, empty temporary directory for one test.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kage-train-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}

/// A tiny but learnable configuration (trains in well under a second).
pub fn tiny_config(epochs: u32) -> TrainConfig {
    TrainConfig {
        variant: "minishogi".into(),
        synthetic: Some(SyntheticConfig {
            positions: 6000,
            num_features: 160,
            min_active: 6,
            max_active: 14,
            seed: 7,
        }),
        ft_size: 16,
        head_size: 8,
        epochs,
        batch_size: 128,
        lr: 5e-3,
        lr_schedule: LrSchedule::Cosine,
        lr_min: 5e-4,
        shuffle_buffer: 2000,
        val_fraction: 0.1,
        val_max: 2000,
        filter: FilterConfig {
            min_ply: 0,
            skip_in_check: true,
            skip_noisy: false,
            max_abs_score: 3000,
        },
        ..TrainConfig::default()
    }
}
