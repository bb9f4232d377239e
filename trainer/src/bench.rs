//! Throughput benchmarks: the hybrid trainer, a burn-only `select`+sum alternative, and the
//! data loader, all on synthetic data.

use crate::data::batch::{SparseBatch, TargetBlend};
use crate::data::loader::{EpochLoader, LoaderConfig, LoaderMsg};
use crate::data::sample::Dataset;
use crate::data::synthetic::{SyntheticConfig, SyntheticDataset};
use crate::model::NetParams;
use crate::model::head;
use crate::training::config::{FilterConfig, TrainConfig};
use crate::training::train::Trainer;
use burn::tensor::activation::sigmoid;
use burn::tensor::module::linear;
use burn::tensor::{Int, Tensor, TensorData};
use kage_engine::util::cpu_time::Stopwatch;
use std::sync::Arc;

/// Benchmark shape.
#[derive(Debug, Clone)]
pub struct BenchConfig {
    /// FT width.
    pub ft_size: usize,
    /// Head width.
    pub head_size: usize,
    /// Positions per batch.
    pub batch_size: usize,
    /// Timed batches.
    pub batches: usize,
    /// Feature-space size.
    pub num_features: usize,
}

/// Throughput result.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BenchResult {
    /// Positions per second.
    pub pos_per_s: f64,
    /// Positions timed.
    pub positions: u64,
    /// Seconds timed.
    pub seconds: f64,
    /// Phase breakdown (hybrid only).
    pub times: Option<crate::training::train::StepTimes>,
    /// Process CPU seconds (user + system, all threads) spent while timing, if known.
    pub cpu_seconds: Option<f64>,
}

impl BenchResult {
    /// Positions per CPU-second (robust to other load on the machine).
    pub fn pos_per_cpu_s(&self) -> Option<f64> {
        self.cpu_seconds.filter(|&c| c > 0.0).map(|c| self.positions as f64 / c)
    }
}

struct Timer(Stopwatch);

impl Timer {
    fn start() -> Timer {
        Timer(Stopwatch::process())
    }

    fn result(&self, positions: u64) -> BenchResult {
        let seconds = self.0.wall_seconds();
        let cpu_seconds = self.0.cpu_seconds();
        BenchResult {
            pos_per_s: positions as f64 / seconds.max(1e-9),
            positions,
            seconds,
            times: None,
            cpu_seconds,
        }
    }
}

fn batches(cfg: &BenchConfig, n: usize) -> Vec<SparseBatch> {
    let data = SyntheticDataset::new(SyntheticConfig {
        positions: (n * cfg.batch_size) as u64,
        num_features: cfg.num_features,
        ..SyntheticConfig::default()
    });
    let blend = TargetBlend::new(0.75, 400.0);
    (0..n)
        .map(|b| {
            let samples: Vec<_> =
                (0..cfg.batch_size).map(|i| data.sample((b * cfg.batch_size + i) as u64)).collect();
            SparseBatch::from_samples(&samples, &blend)
        })
        .collect()
}

/// Hybrid trainer (sparse FT in Rust, head in burn): full steps incl. AdamW updates.
pub fn hybrid(cfg: &BenchConfig) -> BenchResult {
    let train_cfg = TrainConfig {
        ft_size: cfg.ft_size,
        head_size: cfg.head_size,
        synthetic: Some(SyntheticConfig::default()),
        ..TrainConfig::default()
    };
    let mut trainer = Trainer::new(train_cfg, cfg.num_features);
    let data = batches(cfg, cfg.batches.clamp(1, 8));
    for b in data.iter().take(2) {
        trainer.train_batch(b, 1e-3);
    }
    trainer.times = Default::default();
    let start = Timer::start();
    let mut positions = 0u64;
    for i in 0..cfg.batches {
        let b = &data[i % data.len()];
        trainer.train_batch(b, 1e-3);
        positions += b.len() as u64;
    }
    BenchResult { times: Some(trainer.times), ..start.result(positions) }
}

/// Burn-only alternative: the FT is a dense burn parameter, the forward is `select` of the
/// active rows plus a sum per position (indices padded to a fixed count with a zero row),
/// burn's autodiff does the backward (dense gradient), and Adam runs as dense tensor ops.
pub fn burn_select(cfg: &BenchConfig) -> BenchResult {
    let dev = head::default_device().autodiff();
    let p = NetParams::init(cfg.num_features + 1, cfg.ft_size, cfg.head_size, 1);
    let (f1, h, k) = (cfg.num_features + 1, cfg.ft_size, cfg.head_size);
    let t2 = |v: Vec<f32>, s: [usize; 2]| Tensor::<2>::from_data(TensorData::new(v, s), &dev);
    let t1 = |v: Vec<f32>| {
        let n = v.len();
        Tensor::<1>::from_data(TensorData::new(v, [n]), &dev)
    };
    let mut w = t2(p.ft_w.clone(), [f1, h]);
    let mut m = t2(vec![0.0; f1 * h], [f1, h]);
    let mut v = t2(vec![0.0; f1 * h], [f1, h]);
    let fb = t1(p.ft_b.clone());
    let w1 = t2(p.l1_w.clone(), [2 * h, k]);
    let b1 = t1(p.l1_b.clone());
    let w2 = t2(p.out_w.clone(), [k, 1]);
    let b2 = t1(p.out_b.clone());
    let data = batches(cfg, cfg.batches.clamp(1, 8));
    let pad = cfg.num_features as i64;
    let padded = |batch: &SparseBatch, persp: usize, kmax: usize| -> Vec<i64> {
        let mut out = Vec::with_capacity(batch.len() * kmax);
        for i in 0..batch.len() {
            let f = batch.features(i, persp);
            out.extend(f.iter().map(|&x| i64::from(x)));
            out.extend(std::iter::repeat_n(pad, kmax - f.len()));
        }
        out
    };
    let mut step = |batch: &SparseBatch, t: i32| {
        let b = batch.len();
        let kmax = (0..b)
            .flat_map(|i| [batch.features(i, 0).len(), batch.features(i, 1).len()])
            .max()
            .unwrap_or(1);
        let wl = w.clone().detach().require_grad();
        let acc = |persp: usize| {
            let idx = Tensor::<1, Int>::from_data(
                TensorData::new(padded(batch, persp, kmax), [b * kmax]),
                &dev,
            );
            let rows = wl.clone().select(0, idx).reshape([b, kmax, h]);
            (rows.sum_dim(1).reshape([b, h]) + fb.clone().unsqueeze::<2>()).clamp(0.0, 1.0)
        };
        let x = Tensor::cat(vec![acc(0), acc(1)], 1);
        let hidden = linear(x, w1.clone(), Some(b1.clone())).clamp(0.0, 1.0);
        let out = linear(hidden, w2.clone(), Some(b2.clone()));
        let tgt = Tensor::<2>::from_data(TensorData::new(batch.targets.clone(), [b, 1]), &dev);
        let d = sigmoid(out) - tgt;
        let loss = (d.clone() * d).mean();
        let grads = loss.backward();
        let g = wl.grad(&grads).expect("ft gradient").autodiff();
        let (b1c, b2c) = (1.0 - 0.9f32.powi(t), 1.0 - 0.999f32.powi(t));
        m = m.clone() * 0.9 + g.clone() * 0.1;
        v = v.clone() * 0.999 + g.clone() * g * 0.001;
        let upd = (m.clone() / b1c) / ((v.clone() / b2c).sqrt() + 1e-8);
        w = (w.clone() - upd * 1e-3).clamp(-258.0, 258.0);
        // Force execution so the timing covers the work.
        let _ = w.clone().slice([0..1, 0..1]).into_data();
    };
    step(&data[0], 1);
    let start = Timer::start();
    let mut positions = 0u64;
    for i in 0..cfg.batches {
        let batch = &data[i % data.len()];
        step(batch, i as i32 + 2);
        positions += batch.len() as u64;
    }
    start.result(positions)
}

/// Data loader alone: synthetic generation, filters, shuffle buffer and batch assembly.
pub fn loader(cfg: &BenchConfig, positions: u64) -> BenchResult {
    let data: Arc<dyn Dataset> = Arc::new(SyntheticDataset::new(SyntheticConfig {
        positions,
        num_features: cfg.num_features,
        ..SyntheticConfig::default()
    }));
    loader_on(cfg, data, positions)
}

/// Data loader alone on any data set whose pass holds `positions` positions.
pub fn loader_on(cfg: &BenchConfig, data: Arc<dyn Dataset>, positions: u64) -> BenchResult {
    let lc = LoaderConfig {
        batch_size: cfg.batch_size,
        shuffle_buffer: 100_000,
        seed: 1,
        val_fraction: 0.01,
        val_max: 10_000,
        filter: FilterConfig::default(),
        blend: TargetBlend::new(0.75, 400.0),
        num_features: cfg.num_features,
        prefetch: 8,
    };
    let start = Timer::start();
    let mut n = 0u64;
    let l = EpochLoader::spawn(data, lc, 0);
    for msg in l.rx.iter() {
        match msg {
            LoaderMsg::Batch(b) => n += b.len() as u64,
            LoaderMsg::Done { .. } | LoaderMsg::Error(_) => break,
        }
    }
    debug_assert!(n <= positions);
    // Rates count positions read (not only those kept): the loader's real work.
    start.result(positions)
}
