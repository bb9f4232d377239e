//! Streaming loader: filters, held-out split, shuffle buffer and batch assembly on a
//! background thread, in a deterministic order that depends only on the seed and epoch.

use crate::batch::{SparseBatch, TargetBlend};
use crate::config::FilterConfig;
use crate::sample::{Dataset, Sample};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::JoinHandle;

/// Loader settings for one epoch.
#[derive(Debug, Clone)]
pub struct LoaderConfig {
    /// Positions per batch (the last batch of an epoch may be smaller).
    pub batch_size: usize,
    /// Shuffle buffer size.
    pub shuffle_buffer: usize,
    /// Base seed (mixed with the epoch).
    pub seed: u64,
    /// Fraction of positions diverted to validation.
    pub val_fraction: f64,
    /// Most validation positions returned.
    pub val_max: usize,
    /// Filters.
    pub filter: FilterConfig,
    /// Target blend.
    pub blend: TargetBlend,
    /// Largest valid feature index plus one.
    pub num_features: usize,
    /// Batches buffered ahead of the trainer.
    pub prefetch: usize,
}

/// Counts of one pass.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LoadStats {
    /// Positions read from the source.
    pub read: u64,
    /// Positions dropped by filters.
    pub filtered: u64,
    /// Positions held out for validation.
    pub held_out: u64,
    /// Positions sent for training.
    pub trained: u64,
}

/// Messages from the loader thread.
#[derive(Debug)]
pub enum LoaderMsg {
    /// A training batch.
    Batch(SparseBatch),
    /// End of the pass, with the held-out positions.
    Done {
        /// Counters.
        stats: LoadStats,
        /// Held-out validation positions (at most `val_max`).
        val: Vec<Sample>,
    },
    /// The source failed.
    Error(String),
}

/// Whether load-time filters keep this sample.
pub fn keep(filter: &FilterConfig, s: &Sample) -> bool {
    s.ply >= filter.min_ply
        && !(filter.skip_in_check && s.flags.in_check())
        && !(filter.skip_noisy && s.flags.noisy())
        && i32::from(s.score_cp).abs() <= i32::from(filter.max_abs_score)
}

/// Whether stream position `index` is held out (stable across epochs).
pub fn is_held_out(seed: u64, index: u64, fraction: f64) -> bool {
    if fraction <= 0.0 {
        return false;
    }
    let h = splitmix64(seed ^ 0x5eed_0fba ^ splitmix64(index));
    ((h >> 11) as f64 / (1u64 << 53) as f64) < fraction
}

/// SplitMix64 finaliser.
pub fn splitmix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// A running epoch: receive batches from `rx`; join the thread when done.
pub struct EpochLoader {
    /// Message stream.
    pub rx: Receiver<LoaderMsg>,
    handle: Option<JoinHandle<()>>,
}

impl EpochLoader {
    /// Starts streaming one epoch on a background thread.
    pub fn spawn(dataset: Arc<dyn Dataset>, cfg: LoaderConfig, epoch: u32) -> EpochLoader {
        let (tx, rx) = sync_channel(cfg.prefetch.max(1));
        let handle = std::thread::Builder::new()
            .name(format!("kage-loader-{epoch}"))
            .spawn(move || run_epoch(&*dataset, &cfg, epoch, &tx))
            .expect("spawning the loader thread");
        EpochLoader { rx, handle: Some(handle) }
    }
}

impl Drop for EpochLoader {
    fn drop(&mut self) {
        // Dropping the receiver first unblocks a sender waiting on a full channel.
        let (_tx, rx) = sync_channel(1);
        drop(std::mem::replace(&mut self.rx, rx));
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

fn run_epoch(dataset: &dyn Dataset, cfg: &LoaderConfig, epoch: u32, tx: &SyncSender<LoaderMsg>) {
    let mut stats = LoadStats::default();
    let mut val = Vec::new();
    let mut rng =
        Xoshiro256PlusPlus::seed_from_u64(splitmix64(cfg.seed ^ (u64::from(epoch) << 32)));
    let mut buffer: Vec<Sample> = Vec::with_capacity(cfg.shuffle_buffer.min(1 << 22));
    let mut batch = SparseBatch::with_capacity(cfg.batch_size);
    let mut source = match dataset.open() {
        Ok(s) => s,
        Err(e) => {
            let _ = tx.send(LoaderMsg::Error(e.to_string()));
            return;
        }
    };
    let emit = |s: Sample, batch: &mut SparseBatch| -> bool {
        batch.push(&s, cfg.blend);
        if batch.len() >= cfg.batch_size {
            let full = std::mem::replace(batch, SparseBatch::with_capacity(cfg.batch_size));
            return tx.send(LoaderMsg::Batch(full)).is_ok();
        }
        true
    };
    loop {
        let s = match source.next_sample() {
            Ok(Some(s)) => s,
            Ok(None) => break,
            Err(e) => {
                let _ = tx.send(LoaderMsg::Error(e.to_string()));
                return;
            }
        };
        let index = stats.read;
        stats.read += 1;
        if let Some(&f) =
            s.stm_features.iter().chain(&s.nstm_features).find(|&&f| f as usize >= cfg.num_features)
        {
            let _ = tx.send(LoaderMsg::Error(format!(
                "position {index}: feature {f} out of range (feature space has {})",
                cfg.num_features
            )));
            return;
        }
        if !keep(&cfg.filter, &s) {
            stats.filtered += 1;
            continue;
        }
        if is_held_out(cfg.seed, index, cfg.val_fraction) {
            stats.held_out += 1;
            if val.len() < cfg.val_max {
                val.push(s);
            }
            continue;
        }
        stats.trained += 1;
        if buffer.len() < cfg.shuffle_buffer {
            buffer.push(s);
            continue;
        }
        let j = rng.random_range(0..buffer.len());
        let out = std::mem::replace(&mut buffer[j], s);
        if !emit(out, &mut batch) {
            return;
        }
    }
    // Drain the buffer in random order.
    while !buffer.is_empty() {
        let j = rng.random_range(0..buffer.len());
        let out = buffer.swap_remove(j);
        if !emit(out, &mut batch) {
            return;
        }
    }
    if !batch.is_empty() && tx.send(LoaderMsg::Batch(batch)).is_err() {
        return;
    }
    let _ = tx.send(LoaderMsg::Done { stats, val });
}
