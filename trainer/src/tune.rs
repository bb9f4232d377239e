//! Texel-style tuning of the hand-crafted evaluation (`kage-train tune`): fits the linear
//! parameters of [`kage_engine::eval::hce_terms::TermLayout`] (material on the board and in
//! hand, advancement, centrality, tempo) to self-play positions by minimising the mean squared
//! error between a target and `sigmoid(K * eval)`. The target blends the game result with the
//! recorded search score (`lambda`); the default, `lambda = 0`, fits the static evaluation to
//! the deeper search's scores, which is what gained in matches (BENCHMARKS.md), while fitting
//! to results alone lost Elo on self-play data.
//!
//! `K` is fitted first with the starting parameters; then Adam runs full-batch over the
//! training positions. Gradients are summed per fixed block of positions and the blocks are
//! added in order, so the same data and seed give the same parameters whatever the thread
//! count.

use kage_data::{PositionRecord, Reader};
use kage_engine::Variant;
use kage_engine::eval::EvalParams;
use kage_engine::eval::hce_terms::TermLayout;
use rayon::prelude::*;
use std::path::PathBuf;
use thiserror::Error;

/// Positions per gradient block (fixed, so sums do not depend on the thread count).
const BLOCK: usize = 4096;

/// What went wrong while tuning.
#[derive(Debug, Error)]
pub enum TuneError {
    /// A data file could not be read.
    #[error("{path}: {cause}")]
    Data {
        /// The file.
        path: PathBuf,
        /// The reader's error.
        cause: kage_data::DataError,
    },
    /// Damaged chunks were skipped and the caller did not allow it.
    #[error("{path}: {chunks} damaged chunk(s) skipped; repair the file or pass --allow-damaged")]
    Damaged {
        /// The file.
        path: PathBuf,
        /// Damaged chunks.
        chunks: usize,
    },
    /// Too few positions survived the filters.
    #[error("only {0} usable positions after the filters (need at least 1000)")]
    TooFewPositions(usize),
    /// A setting is out of range.
    #[error("{0}")]
    Setting(String),
}

/// Settings of one tuning run.
#[derive(Clone, Debug)]
pub struct TuneConfig {
    /// Training-position files (all of the variant being tuned).
    pub data: Vec<PathBuf>,
    /// Adam steps over the whole training set.
    pub iterations: usize,
    /// Adam step size in centipawns.
    pub lr: f64,
    /// Pull towards the starting values: `l2 * sum((θ - θ0)^2)` is added to the loss.
    pub l2: f64,
    /// Fraction of positions held out to report the validation error.
    pub val_fraction: f64,
    /// Seeds the validation split.
    pub seed: u64,
    /// Skip positions before this ply.
    pub min_ply: u16,
    /// Target = `lambda * result + (1 - lambda) * sigmoid(K * recorded score)`.
    pub lambda: f64,
    /// Train on what is left when chunks are damaged (reported either way).
    pub allow_damaged: bool,
}

impl Default for TuneConfig {
    fn default() -> Self {
        TuneConfig {
            data: Vec::new(),
            iterations: 1500,
            lr: 2.0,
            l2: 0.0,
            val_fraction: 0.1,
            seed: 1,
            min_ply: 0,
            lambda: 0.0,
            allow_damaged: false,
        }
    }
}

/// The positions as sparse rows: `coef[offsets[i]..offsets[i + 1]]`.
struct Rows {
    offsets: Vec<u32>,
    index: Vec<u32>,
    coef: Vec<f32>,
    fixed: Vec<f32>,
    result: Vec<f32>,
    score: Vec<f32>,
}

impl Rows {
    fn len(&self) -> usize {
        self.fixed.len()
    }

    fn eval(&self, i: usize, theta: &[f64]) -> f64 {
        let (a, b) = (self.offsets[i] as usize, self.offsets[i + 1] as usize);
        let mut e = f64::from(self.fixed[i]);
        for j in a..b {
            e += theta[self.index[j] as usize] * f64::from(self.coef[j]);
        }
        e
    }
}

/// What a tuning run found.
#[derive(Clone, Debug)]
pub struct TuneReport {
    /// Training and validation positions.
    pub train_positions: usize,
    /// Held-out positions.
    pub val_positions: usize,
    /// Positions skipped by the filters (check, noisy best move, ply).
    pub skipped: usize,
    /// The fitted scale of `sigmoid(K * cp)`.
    pub k: f64,
    /// Mean squared error on the training set before and after.
    pub train_mse: (f64, f64),
    /// Mean squared error on the held-out set before and after.
    pub val_mse: (f64, f64),
    /// `(name, before, after)` of every parameter.
    pub params: Vec<(String, f64, f64)>,
    /// The tuned evaluation parameters.
    pub tuned: EvalParams,
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// splitmix64 of `seed ^ i`, for the validation split.
fn split_hash(seed: u64, i: u64) -> u64 {
    let mut z = (seed ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15)).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Reads and filters the positions of `cfg.data` into training and validation rows.
fn load(
    variant: &'static Variant,
    layout: &TermLayout,
    cfg: &TuneConfig,
) -> Result<(Rows, Rows, usize), TuneError> {
    let empty = || Rows {
        offsets: vec![0],
        index: Vec::new(),
        coef: Vec::new(),
        fixed: Vec::new(),
        result: Vec::new(),
        score: Vec::new(),
    };
    let (mut train, mut val) = (empty(), empty());
    let mut skipped = 0usize;
    let mut seen = 0u64;
    let mut dense = Vec::new();
    for path in &cfg.data {
        let data_err = |cause| TuneError::Data { path: path.clone(), cause };
        let mut reader =
            Reader::<PositionRecord>::open_variant(path, &variant.name).map_err(data_err)?;
        while let Some(chunk) = reader.next_chunk().map_err(data_err)? {
            for rec in chunk {
                seen += 1;
                if rec.flags.in_check() || rec.flags.best_noisy() || rec.ply < cfg.min_ply {
                    skipped += 1;
                    continue;
                }
                let Ok(pos) = rec.pos.to_position(variant) else {
                    skipped += 1;
                    continue;
                };
                let terms = layout.terms(&pos, &mut dense);
                let rows =
                    if (split_hash(cfg.seed, seen) as f64 / u64::MAX as f64) < cfg.val_fraction {
                        &mut val
                    } else {
                        &mut train
                    };
                for (i, c) in terms.coefs {
                    rows.index.push(i);
                    rows.coef.push(c);
                }
                rows.offsets.push(rows.index.len() as u32);
                rows.fixed.push(terms.fixed as f32);
                rows.result.push(rec.white_result().as_f32());
                rows.score.push(f32::from(rec.white_score()));
            }
        }
        let damaged = reader.damage().len();
        if damaged > 0 {
            if !cfg.allow_damaged {
                return Err(TuneError::Damaged { path: path.clone(), chunks: damaged });
            }
            eprintln!("kage-train tune: {}: {damaged} damaged chunk(s) skipped", path.display());
        }
    }
    Ok((train, val, skipped))
}

/// Targets: the result, blended with the recorded search score through the same sigmoid.
fn targets(rows: &Rows, k: f64, lambda: f64) -> Vec<f64> {
    (0..rows.len())
        .map(|i| {
            lambda * f64::from(rows.result[i])
                + (1.0 - lambda) * sigmoid(k * f64::from(rows.score[i]))
        })
        .collect()
}

/// The positions `0..n` as fixed blocks of [`BLOCK`], in parallel; collecting keeps block
/// order, so sums do not depend on the thread count.
fn blocks(n: usize) -> impl IndexedParallelIterator<Item = std::ops::Range<usize>> {
    (0..n.div_ceil(BLOCK)).into_par_iter().map(move |b| b * BLOCK..((b + 1) * BLOCK).min(n))
}

/// Mean squared error of `sigmoid(k * eval)` against `target`.
fn mse(rows: &Rows, theta: &[f64], k: f64, target: &[f64]) -> f64 {
    if rows.len() == 0 {
        return f64::NAN;
    }
    let sums: Vec<f64> = blocks(rows.len())
        .map(|ix| {
            ix.map(|i| {
                let d = sigmoid(k * rows.eval(i, theta)) - target[i];
                d * d
            })
            .sum::<f64>()
        })
        .collect();
    sums.iter().sum::<f64>() / rows.len() as f64
}

/// The gradient of the training error (without the L2 term).
fn gradient(rows: &Rows, theta: &[f64], k: f64, target: &[f64]) -> Vec<f64> {
    let n = theta.len();
    let per_block: Vec<Vec<f64>> = blocks(rows.len())
        .map(|ix| {
            let mut g = vec![0.0; n];
            for i in ix {
                let s = sigmoid(k * rows.eval(i, theta));
                let d = 2.0 * (s - target[i]) * s * (1.0 - s) * k;
                let (a, b) = (rows.offsets[i] as usize, rows.offsets[i + 1] as usize);
                for j in a..b {
                    g[rows.index[j] as usize] += d * f64::from(rows.coef[j]);
                }
            }
            g
        })
        .collect();
    let mut g = vec![0.0; n];
    for b in per_block {
        for (x, y) in g.iter_mut().zip(b) {
            *x += y;
        }
    }
    let inv = 1.0 / rows.len() as f64;
    g.iter_mut().for_each(|x| *x *= inv);
    g
}

/// The `K` that minimises the result error with the starting parameters (golden section on
/// `log K`).
fn fit_k(rows: &Rows, theta: &[f64]) -> f64 {
    let results: Vec<f64> = rows.result.iter().map(|&r| f64::from(r)).collect();
    let f = |lk: f64| mse(rows, theta, lk.exp(), &results);
    let (mut a, mut b) = ((1e-4f64).ln(), (0.05f64).ln());
    let g = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..60 {
        let c = b - g * (b - a);
        let d = a + g * (b - a);
        if f(c) < f(d) {
            b = d;
        } else {
            a = c;
        }
    }
    ((a + b) / 2.0).exp()
}

/// Tunes `variant`'s evaluation starting from `base`. `progress` gets `(iteration, train
/// error)` every few iterations.
pub fn tune(
    variant: &'static Variant,
    base: &EvalParams,
    cfg: &TuneConfig,
    mut progress: impl FnMut(usize, f64),
) -> Result<TuneReport, TuneError> {
    if !(0.0..1.0).contains(&cfg.val_fraction) {
        return Err(TuneError::Setting("--val-fraction must be in [0, 1)".into()));
    }
    if !(0.0..=1.0).contains(&cfg.lambda) {
        return Err(TuneError::Setting("--lambda must be in [0, 1]".into()));
    }
    if !(cfg.lr.is_finite() && cfg.lr > 0.0 && cfg.l2.is_finite() && cfg.l2 >= 0.0) {
        return Err(TuneError::Setting("--lr must be positive and --l2 at least 0".into()));
    }
    let layout = TermLayout::new(variant, base);
    let (train, val, skipped) = load(variant, &layout, cfg)?;
    if train.len() < 1000 {
        return Err(TuneError::TooFewPositions(train.len()));
    }
    let theta0 = layout.initial().to_vec();
    let k = fit_k(&train, &theta0);
    let (t_train, t_val) = (targets(&train, k, cfg.lambda), targets(&val, k, cfg.lambda));
    let before = (mse(&train, &theta0, k, &t_train), mse(&val, &theta0, k, &t_val));
    let mut theta = theta0.clone();
    let (b1, b2, eps) = (0.9, 0.999, 1e-8);
    let (mut m, mut v) = (vec![0.0; theta.len()], vec![0.0; theta.len()]);
    for it in 1..=cfg.iterations {
        let mut g = gradient(&train, &theta, k, &t_train);
        for (j, gj) in g.iter_mut().enumerate() {
            *gj += 2.0 * cfg.l2 * (theta[j] - theta0[j]);
        }
        for j in 0..theta.len() {
            m[j] = b1 * m[j] + (1.0 - b1) * g[j];
            v[j] = b2 * v[j] + (1.0 - b2) * g[j] * g[j];
            let mh = m[j] / (1.0 - b1.powi(it as i32));
            let vh = v[j] / (1.0 - b2.powi(it as i32));
            theta[j] -= cfg.lr * mh / (vh.sqrt() + eps);
        }
        if it % 50 == 0 || it == cfg.iterations {
            progress(it, mse(&train, &theta, k, &t_train));
        }
    }
    let tuned = layout.to_params(&theta);
    // Report the error of the rounded parameters: what the engine will play with.
    let rounded = TermLayout::new(variant, &tuned);
    let after_theta = rounded.initial();
    let after = (mse(&train, after_theta, k, &t_train), mse(&val, after_theta, k, &t_val));
    let params = layout
        .names()
        .iter()
        .zip(theta0.iter().zip(after_theta))
        .map(|(n, (&a, &b))| (n.clone(), a, b))
        .collect();
    Ok(TuneReport {
        train_positions: train.len(),
        val_positions: val.len(),
        skipped,
        k,
        train_mse: (before.0, after.0),
        val_mse: (before.1, after.1),
        params,
        tuned,
    })
}
