//! Streaming loader: filters, held-out split, shuffle buffer and batch assembly on background
//! threads, in a deterministic order that depends only on the seed and epoch.
//!
//! Two stages run concurrently for one epoch:
//!
//! * the **reader** asks the source for the next stretch of the stream
//!   ([`PositionSource::next_blocks`], which decodes in parallel with rayon, order kept), then
//!   classifies every sample in parallel (feature-range check, load-time filters, held-out
//!   test by stream index, blended target): all the per-sample work that does not depend on
//!   the shuffle;
//! * the **shuffler** (the epoch's loader thread) walks the stretches in stream order and runs
//!   the shuffle buffer and batch assembly, the only order-dependent part, with the same RNG
//!   calls as a one-sample-at-a-time loop. Buffer slots keep their feature storage, so a
//!   replacement copies features without allocating.
//!
//! The batches are therefore the same whatever the thread count or timing.

use crate::data::batch::{SparseBatch, TargetBlend};
use crate::data::sample::{
    BlockList, Dataset, PositionSource, Sample, SampleBlock, SampleMeta, SourceError,
};
use crate::training::config::FilterConfig;
use kage_engine::util::hash::splitmix64;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, SyncSender, channel, sync_channel};
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
    Error(LoaderError),
}

/// Why the loader stopped before the end of a pass.
#[derive(Debug, thiserror::Error)]
pub enum LoaderError {
    /// The data source failed.
    #[error("{0}")]
    Source(SourceError),
    /// The reader thread could not be started.
    #[error("spawning the reader thread: {0}")]
    Spawn(std::io::Error),
    /// The reader thread ended without finishing the pass.
    #[error("the reader thread stopped")]
    ReaderStopped,
    /// A position has a feature outside the feature space.
    #[error("position {index}: feature {feature} out of range (feature space has {num_features})")]
    BadFeature {
        /// The position's index in the pass.
        index: u64,
        /// The feature.
        feature: u32,
        /// The feature space's size.
        num_features: usize,
    },
    /// The loader's channel closed before its end message.
    #[error("loader stopped before the end of the epoch")]
    Stopped,
}

/// Whether load-time filters keep this sample.
pub fn keep(filter: &FilterConfig, s: &Sample) -> bool {
    keep_meta(filter, &s.meta())
}

/// [`keep`] on a sample's scalar fields.
#[inline]
pub fn keep_meta(filter: &FilterConfig, s: &SampleMeta) -> bool {
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

/// What the loader does with one sample (decided by the reader stage).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fate {
    /// Into the shuffle buffer.
    Train,
    /// Dropped by a load-time filter.
    Filtered,
    /// Held out for validation.
    HeldOut,
    /// Has a feature outside the feature space: the pass fails here.
    BadFeature(u32),
}

/// Fates and blended targets of one block's samples.
#[derive(Debug, Default)]
struct BlockFates {
    fate: Vec<Fate>,
    target: Vec<f32>,
}

/// A stretch of the stream, classified; the end of the pass when empty and error-free.
#[derive(Debug, Default)]
struct Stretch {
    blocks: BlockList,
    fates: Vec<BlockFates>,
    /// The source failed after the samples of `blocks`.
    error: Option<SourceError>,
}

/// Stretches in flight between the reader and the shuffler (besides the one each holds).
const STRETCHES_AHEAD: usize = 1;

fn classify(cfg: &LoaderConfig, first_index: u64, block: &SampleBlock, out: &mut BlockFates) {
    out.fate.clear();
    out.target.clear();
    for i in 0..block.len() {
        let (stm, nstm) = block.features(i);
        let meta = block.meta(i);
        let fate =
            if let Some(&f) = stm.iter().chain(nstm).find(|&&f| f as usize >= cfg.num_features) {
                Fate::BadFeature(f)
            } else if !keep_meta(&cfg.filter, &meta) {
                Fate::Filtered
            } else if is_held_out(cfg.seed, first_index + i as u64, cfg.val_fraction) {
                Fate::HeldOut
            } else {
                Fate::Train
            };
        out.fate.push(fate);
        out.target.push(cfg.blend.target_of(&meta));
    }
}

/// Reader stage: stretches of the stream, classified in parallel, in stream order.
fn read_stretches(
    mut source: Box<dyn PositionSource>,
    cfg: &LoaderConfig,
    tx: SyncSender<Stretch>,
    recycled: Receiver<Stretch>,
) {
    let mut read = 0u64;
    loop {
        let mut st = recycled.try_recv().unwrap_or_default();
        st.blocks.clear();
        let result = source.next_blocks(&mut st.blocks);
        let blocks = st.blocks.blocks();
        let mut starts = Vec::with_capacity(blocks.len());
        for b in blocks {
            starts.push(read);
            read += b.len() as u64;
        }
        st.fates.resize_with(blocks.len(), BlockFates::default);
        blocks
            .par_iter()
            .zip(st.fates.par_iter_mut())
            .zip(starts.par_iter())
            .for_each(|((b, f), &start)| classify(cfg, start, b, f));
        let last = match result {
            Ok(()) => blocks.iter().all(SampleBlock::is_empty),
            Err(e) => {
                st.error = Some(e);
                true
            }
        };
        if tx.send(st).is_err() || last {
            return;
        }
    }
}

/// Header words of a shuffle-buffer slot: side-to-move count, total count, target bits.
const SLOT_HEADER: usize = 3;
/// How many replacements ahead the shuffle buffer prefetches the slot it will replace.
const PREFETCH_AHEAD: usize = 16;

/// The shuffle buffer's positions in one flat array of fixed-size slots (header, then the
/// side-to-move and other-side features), so a random replacement touches one contiguous
/// region that can be prefetched. The slot size grows (re-laying out the slots) when a
/// position has more features than fit.
#[derive(Debug, Default)]
struct SlotArena {
    stride: usize,
    words: Vec<u32>,
    len: usize,
    /// Slots to reserve room for.
    capacity: usize,
}

impl SlotArena {
    fn slot(&self, j: usize) -> &[u32] {
        &self.words[j * self.stride..(j + 1) * self.stride]
    }

    fn fit(&mut self, features: usize) {
        let need = SLOT_HEADER + features;
        if need <= self.stride {
            return;
        }
        let old = self.stride;
        let stride = need.max(old + old / 4).next_multiple_of(16);
        // Room for the whole buffer at once (no regrowth copies while filling).
        let mut words = Vec::with_capacity(self.capacity.max(self.len) * stride);
        words.resize(self.len * stride, 0);
        if old > 0 {
            for (dst, src) in words.chunks_exact_mut(stride).zip(self.words.chunks_exact(old)) {
                dst[..old].copy_from_slice(src);
            }
        }
        self.words = words;
        self.stride = stride;
    }

    fn set(&mut self, j: usize, stm: &[u32], nstm: &[u32], target: f32) {
        let (s, n) = (stm.len(), nstm.len());
        let slot = &mut self.words[j * self.stride..(j + 1) * self.stride];
        slot[0] = s as u32;
        slot[1] = (s + n) as u32;
        slot[2] = target.to_bits();
        slot[SLOT_HEADER..SLOT_HEADER + s].copy_from_slice(stm);
        slot[SLOT_HEADER + s..SLOT_HEADER + s + n].copy_from_slice(nstm);
    }

    fn push(&mut self, stm: &[u32], nstm: &[u32], target: f32) {
        self.fit(stm.len() + nstm.len());
        self.words.resize((self.len + 1) * self.stride, 0);
        self.len += 1;
        self.set(self.len - 1, stm, nstm, target);
    }

    /// Replaces slot `j`, first appending its position to `batch`.
    fn replace(&mut self, j: usize, batch: &mut SparseBatch, stm: &[u32], nstm: &[u32], t: f32) {
        self.emit(j, batch);
        self.fit(stm.len() + nstm.len());
        self.set(j, stm, nstm, t);
    }

    fn emit(&self, j: usize, batch: &mut SparseBatch) {
        let slot = self.slot(j);
        let (s, n) = (slot[0] as usize, slot[1] as usize);
        let f = &slot[SLOT_HEADER..SLOT_HEADER + n];
        batch.push_features(&f[..s], &f[s..], f32::from_bits(slot[2]));
    }

    /// Moves the last slot into slot `j` and drops the last (`Vec::swap_remove`).
    fn swap_remove(&mut self, j: usize) {
        let last = self.len - 1;
        if j != last {
            let used = SLOT_HEADER + self.slot(last)[1] as usize;
            let (from, to) = (last * self.stride, j * self.stride);
            self.words.copy_within(from..from + used, to);
        }
        self.len = last;
        self.words.truncate(last * self.stride);
    }
}

/// Shuffler stage: shuffle buffer (random replacement, then a random drain) and batches.
struct Shuffler<'a> {
    cfg: &'a LoaderConfig,
    tx: &'a SyncSender<LoaderMsg>,
    rng: Xoshiro256PlusPlus,
    /// A copy of `rng` running `PREFETCH_AHEAD` draws ahead once the buffer is full: it
    /// names the slots to prefetch and never affects the batches.
    ahead: Option<Xoshiro256PlusPlus>,
    slots: SlotArena,
    batch: SparseBatch,
}

impl Shuffler<'_> {
    /// Emits the full batch; false when the trainer went away.
    fn flush_if_full(&mut self) -> bool {
        if self.batch.len() >= self.cfg.batch_size {
            let full =
                std::mem::replace(&mut self.batch, SparseBatch::with_capacity(self.cfg.batch_size));
            return self.tx.send(LoaderMsg::Batch(full)).is_ok();
        }
        true
    }

    /// Adds a training position; false when the trainer went away.
    fn add(&mut self, stm: &[u32], nstm: &[u32], target: f32) -> bool {
        let cap = self.cfg.shuffle_buffer;
        if self.slots.len < cap {
            self.slots.push(stm, nstm, target);
            return true;
        }
        let ahead = self.ahead.get_or_insert_with(|| {
            let mut a = self.rng.clone();
            for _ in 0..PREFETCH_AHEAD {
                let _: usize = a.random_range(0..cap);
            }
            a
        });
        crate::model::simd::prefetch(self.slots.slot(ahead.random_range(0..cap)));
        let j = self.rng.random_range(0..cap);
        self.slots.replace(j, &mut self.batch, stm, nstm, target);
        self.flush_if_full()
    }

    /// Drains the buffer in random order (as `swap_remove` of a random index would) and sends
    /// the last, partial batch; false when the trainer went away.
    fn finish(&mut self) -> bool {
        // As in `add`, a copy of the RNG names the slot the drain reads `PREFETCH_AHEAD`
        // steps later (the range shrinks by one per step).
        let mut ahead = self.rng.clone();
        for k in 0..PREFETCH_AHEAD.min(self.slots.len) {
            let _: usize = ahead.random_range(0..self.slots.len - k);
        }
        while self.slots.len > 0 {
            if self.slots.len > PREFETCH_AHEAD {
                let later = ahead.random_range(0..self.slots.len - PREFETCH_AHEAD);
                crate::model::simd::prefetch(self.slots.slot(later));
            }
            let j = self.rng.random_range(0..self.slots.len);
            self.slots.emit(j, &mut self.batch);
            self.slots.swap_remove(j);
            if !self.flush_if_full() {
                return false;
            }
        }
        if !self.batch.is_empty() {
            let last = std::mem::take(&mut self.batch);
            return self.tx.send(LoaderMsg::Batch(last)).is_ok();
        }
        true
    }
}

fn run_epoch(dataset: &dyn Dataset, cfg: &LoaderConfig, epoch: u32, tx: &SyncSender<LoaderMsg>) {
    let source = match dataset.open() {
        Ok(s) => s,
        Err(e) => {
            let _ = tx.send(LoaderMsg::Error(LoaderError::Source(e)));
            return;
        }
    };
    let (stretch_tx, stretch_rx) = sync_channel(STRETCHES_AHEAD);
    let (recycle_tx, recycle_rx) = channel();
    std::thread::scope(|scope| {
        let reader = std::thread::Builder::new()
            .name(format!("kage-reader-{epoch}"))
            .spawn_scoped(scope, move || read_stretches(source, cfg, stretch_tx, recycle_rx));
        if let Err(e) = reader {
            let _ = tx.send(LoaderMsg::Error(LoaderError::Spawn(e)));
            return;
        }
        // Dropping `stretch_rx` (on return) stops the reader at its next send.
        shuffle_epoch(cfg, epoch, stretch_rx, &recycle_tx, tx);
    });
}

fn shuffle_epoch(
    cfg: &LoaderConfig,
    epoch: u32,
    stretches: Receiver<Stretch>,
    recycle: &Sender<Stretch>,
    tx: &SyncSender<LoaderMsg>,
) {
    let mut stats = LoadStats::default();
    let mut val = Vec::new();
    let mut sh = Shuffler {
        cfg,
        tx,
        rng: Xoshiro256PlusPlus::seed_from_u64(splitmix64(cfg.seed ^ (u64::from(epoch) << 32))),
        ahead: None,
        slots: SlotArena { capacity: cfg.shuffle_buffer.min(1 << 22), ..SlotArena::default() },
        batch: SparseBatch::with_capacity(cfg.batch_size),
    };
    loop {
        let Ok(mut st) = stretches.recv() else {
            let _ = tx.send(LoaderMsg::Error(LoaderError::ReaderStopped));
            return;
        };
        let mut empty = true;
        for (block, fates) in st.blocks.blocks().iter().zip(&st.fates) {
            for (i, (&fate, &target)) in fates.fate.iter().zip(&fates.target).enumerate() {
                empty = false;
                let index = stats.read;
                stats.read += 1;
                match fate {
                    Fate::BadFeature(f) => {
                        let _ = tx.send(LoaderMsg::Error(LoaderError::BadFeature {
                            index,
                            feature: f,
                            num_features: cfg.num_features,
                        }));
                        return;
                    }
                    Fate::Filtered => stats.filtered += 1,
                    Fate::HeldOut => {
                        stats.held_out += 1;
                        if val.len() < cfg.val_max {
                            val.push(block.to_sample(i));
                        }
                    }
                    Fate::Train => {
                        stats.trained += 1;
                        let (stm, nstm) = block.features(i);
                        if !sh.add(stm, nstm, target) {
                            return;
                        }
                    }
                }
            }
        }
        if let Some(e) = st.error.take() {
            let _ = tx.send(LoaderMsg::Error(LoaderError::Source(e)));
            return;
        }
        if empty {
            break;
        }
        // The reader may have stopped (end of pass): a failed send only loses reuse.
        let _ = recycle.send(st);
    }
    if sh.finish() {
        let _ = tx.send(LoaderMsg::Done { stats, val });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::synthetic::{SyntheticConfig, SyntheticDataset};

    /// Batches of a pass, then `Ok((stats, val))` or the error.
    type Outcome = (Vec<SparseBatch>, Result<(LoadStats, Vec<Sample>), String>);

    /// The loader as a one-sample-at-a-time loop over `next_sample` (the algorithm before the
    /// two-stage version): batches, then `Ok((stats, val))` or the error.
    fn reference(dataset: &dyn Dataset, cfg: &LoaderConfig, epoch: u32) -> Outcome {
        let mut stats = LoadStats::default();
        let mut val = Vec::new();
        let mut rng =
            Xoshiro256PlusPlus::seed_from_u64(splitmix64(cfg.seed ^ (u64::from(epoch) << 32)));
        let mut buffer: Vec<Sample> = Vec::new();
        let mut batches = vec![SparseBatch::with_capacity(cfg.batch_size)];
        let emit = |s: Sample, batches: &mut Vec<SparseBatch>| {
            let b = batches.last_mut().expect("a batch");
            b.push(&s, &cfg.blend);
            if b.len() >= cfg.batch_size {
                batches.push(SparseBatch::with_capacity(cfg.batch_size));
            }
        };
        let mut source = dataset.open().expect("opens");
        while let Some(s) = source.next_sample().expect("reads") {
            let index = stats.read;
            stats.read += 1;
            if let Some(&f) = s
                .stm_features
                .iter()
                .chain(&s.nstm_features)
                .find(|&&f| f as usize >= cfg.num_features)
            {
                batches.pop();
                return (batches, Err(format!("position {index}: feature {f} out of range")));
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
            emit(out, &mut batches);
        }
        while !buffer.is_empty() {
            let j = rng.random_range(0..buffer.len());
            let out = buffer.swap_remove(j);
            emit(out, &mut batches);
        }
        if batches.last().is_some_and(SparseBatch::is_empty) {
            batches.pop();
        }
        (batches, Ok((stats, val)))
    }

    fn run(dataset: Arc<dyn Dataset>, cfg: &LoaderConfig, epoch: u32) -> Outcome {
        let loader = EpochLoader::spawn(dataset, cfg.clone(), epoch);
        let mut batches = Vec::new();
        for msg in loader.rx.iter() {
            match msg {
                LoaderMsg::Batch(b) => batches.push(b),
                LoaderMsg::Done { stats, val } => return (batches, Ok((stats, val))),
                LoaderMsg::Error(e) => return (batches, Err(e.to_string())),
            }
        }
        panic!("the loader ended without Done or Error");
    }

    fn config(shuffle_buffer: usize, num_features: usize) -> LoaderConfig {
        LoaderConfig {
            batch_size: 500,
            shuffle_buffer,
            seed: 7,
            val_fraction: 0.05,
            val_max: 300,
            filter: FilterConfig::default(),
            blend: TargetBlend::new(0.75, 400.0),
            num_features,
            prefetch: 4,
        }
    }

    #[test]
    fn batches_match_the_one_sample_at_a_time_loader() {
        let data = SyntheticDataset::new(SyntheticConfig {
            positions: 40_000,
            num_features: 300,
            ..SyntheticConfig::default()
        });
        let data: Arc<dyn Dataset> = Arc::new(data);
        // Buffer smaller than the pass (replacement, then drain), and larger (drain only).
        for (shuffle_buffer, epoch) in [(3000, 0), (1, 1), (100_000, 2)] {
            let cfg = config(shuffle_buffer, 300);
            let (want, want_end) = reference(&*data, &cfg, epoch);
            let (got, got_end) = run(data.clone(), &cfg, epoch);
            assert_eq!(got.len(), want.len(), "buffer {shuffle_buffer}");
            assert!(got == want, "batches differ with buffer {shuffle_buffer}");
            let (stats, val) = got_end.expect("no error");
            let (want_stats, want_val) = want_end.expect("no error");
            assert_eq!(stats, want_stats);
            assert_eq!(val, want_val);
            assert_eq!(stats.read, 40_000);
            assert!(stats.filtered > 0 && stats.held_out > 0);
        }
    }

    #[test]
    fn an_out_of_range_feature_is_an_error_after_the_batches_before_it() {
        let data = SyntheticDataset::new(SyntheticConfig {
            positions: 30_000,
            num_features: 300,
            ..SyntheticConfig::default()
        });
        let data: Arc<dyn Dataset> = Arc::new(data);
        // Features 0..300 exist; declare a space of 299 so feature 299 is out of range.
        let cfg = LoaderConfig { shuffle_buffer: 50, batch_size: 8, ..config(50, 299) };
        let (want, want_end) = reference(&*data, &cfg, 0);
        let (got, got_end) = run(data, &cfg, 0);
        let (e, want_e) = (got_end.expect_err("fails"), want_end.expect_err("fails"));
        assert!(e.starts_with(&want_e), "{e} vs {want_e}");
        assert!(e.contains("out of range (feature space has 299)"), "{e}");
        assert!(got == want);
    }
}
