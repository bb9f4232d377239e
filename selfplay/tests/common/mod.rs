//! Helpers of the multi-step job tests (`ladder`, `rebalance`).

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use kage_selfplay::config::{Budget, GenConfig, OpeningMode};
use kage_selfplay::steps::Control;

/// A tiny Minishogi self-play config: uniform 2-ply openings, quick resignation, 120 plies.
pub fn tiny_template(games: u64, seed: u64, budget: Budget) -> GenConfig {
    let mut t = GenConfig::new("minishogi", games, seed, budget);
    t.batch_size = 2;
    t.openings.random_plies = 2;
    t.openings.mode = OpeningMode::Uniform;
    t.adjudication.resign_cp = 600;
    t.adjudication.resign_plies = 2;
    t.adjudication.max_plies = 120;
    t
}

/// A quiet control.
pub fn quiet(stop: &AtomicBool, threads: usize, max_steps: Option<usize>) -> Control<'_> {
    Control { threads, progress: false, progress_every: Duration::ZERO, stop, max_steps }
}

/// The bytes of `files` in `dir`.
pub fn read_all(dir: &Path, files: &[&str]) -> Vec<Vec<u8>> {
    files.iter().map(|f| std::fs::read(dir.join(f)).unwrap()).collect()
}
