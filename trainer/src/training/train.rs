//! One training step (sparse FT in Rust + dense head in burn) and the trainer state.

use crate::data::batch::{SparseBatch, TargetBlend, sigmoid};
use crate::data::sample::Sample;
use crate::model::factor::Factoriser;
use crate::model::fsf::{self, FsfHead, FsfShape};
use crate::model::ft::{self, FtScratch};
use crate::model::head;
use crate::model::{BIAS_LIMIT, L1_LIMIT, NetParams, OUT_LIMIT};
use crate::training::config::Arch;
use crate::training::config::TrainConfig;
use crate::training::fsf_step::{FsfState, FtParts};
use crate::training::optim::{AdamStep, Moments, adamw};
use burn::tensor::Device;
use rayon::prelude::*;
use std::sync::Arc;
use std::time::Instant;

/// Adam moments of every parameter tensor.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamMoments {
    /// FT weights.
    pub ft_w: Moments,
    /// FT bias.
    pub ft_b: Moments,
    /// L1 weights.
    pub l1_w: Moments,
    /// L1 bias.
    pub l1_b: Moments,
    /// Output weights.
    pub out_w: Moments,
    /// Output bias.
    pub out_b: Moments,
}

impl ParamMoments {
    /// Zero moments shaped like `p`.
    pub fn zeros(p: &NetParams) -> ParamMoments {
        ParamMoments {
            ft_w: Moments::zeros(p.ft_w.len()),
            ft_b: Moments::zeros(p.ft_b.len()),
            l1_w: Moments::zeros(p.l1_w.len()),
            l1_b: Moments::zeros(p.l1_b.len()),
            out_w: Moments::zeros(p.out_w.len()),
            out_b: Moments::zeros(1),
        }
    }
}

/// Metrics of one finished epoch.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct EpochMetrics {
    /// 1-based epoch number.
    pub epoch: u32,
    /// Mean training loss.
    pub train_loss: f64,
    /// Validation loss (NaN when there is no validation data).
    pub val_loss: f64,
    /// Training throughput.
    pub pos_per_s: f64,
    /// Learning rate used.
    pub lr: f64,
    /// Positions trained on.
    pub positions: u64,
}

/// Wall time spent in each phase of [`Trainer::train_batch`] (benchmarks and the epoch line).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StepTimes {
    /// Sparse FT forward (Rust); for the fsf architecture also the bucket sort, the
    /// factoriser's expansion and the PSQT terms.
    pub ft_forward: f64,
    /// Head (or layer stacks) forward + backward in burn, incl. tensor transfers.
    pub head: f64,
    /// Head AdamW, mask, grouping, FT backward + AdamW (Rust).
    pub update: f64,
}

impl StepTimes {
    /// The time spent since `earlier` (a copy taken before).
    pub fn since(&self, earlier: &StepTimes) -> StepTimes {
        StepTimes {
            ft_forward: self.ft_forward - earlier.ft_forward,
            head: self.head - earlier.head,
            update: self.update - earlier.update,
        }
    }

    /// Seconds in all phases together.
    pub fn total(&self) -> f64 {
        self.ft_forward + self.head + self.update
    }
}

/// Parameters, optimiser state and scratch buffers.
pub struct Trainer {
    /// Configuration.
    pub cfg: TrainConfig,
    /// Float parameters.
    pub params: NetParams,
    /// Adam moments.
    pub moments: ParamMoments,
    /// Adam steps taken.
    pub step: u64,
    /// Epochs completed.
    pub epochs_done: u32,
    /// Metrics of completed epochs.
    pub history: Vec<EpochMetrics>,
    /// Time per phase, summed over all steps.
    pub times: StepTimes,
    device: Device,
    ft_grad: FtScratch,
    active: Vec<u8>,
    x: Vec<f32>,
    x_hi: Vec<f32>,
    /// The piece factoriser, when the configuration asks for it.
    factor: Option<Factoriser>,
    /// The factorised batch (reused).
    expanded: SparseBatch,
    /// The fsf architecture's PSQT and stacks (`params` then holds its FT alone).
    pub fsf: Option<Box<FsfState>>,
}

impl Trainer {
    /// Fresh trainer with seeded initial weights.
    pub fn new(cfg: TrainConfig, num_features: usize) -> Trainer {
        if cfg.arch == Arch::Fsf {
            return Trainer::new_fsf(cfg);
        }
        let factor = factoriser(&cfg);
        let n = factor.as_ref().map_or(num_features, Factoriser::train_features);
        let mut params = NetParams::init(n, cfg.ft_size, cfg.head_size, cfg.seed);
        if let Some(f) = &factor {
            f.zero_groups(&mut params);
        }
        Trainer::from_state(cfg, params, None, 0, 0, Vec::new())
    }

    /// A fresh fsf-architecture trainer: FT and stacks seeded, the factoriser's rows zero,
    /// the PSQT holding the piece values.
    fn new_fsf(cfg: TrainConfig) -> Trainer {
        let v = crate::data::space::rules(&cfg).expect("validated by space::resolve");
        let layout = crate::data::space::fsf_layout(v).expect("validated by space::resolve");
        let shape = FsfShape::new(layout);
        let factor = shape.factoriser();
        let rows = factor.train_features();
        let mut params = fsf::init_ft(rows, cfg.seed);
        factor.zero_groups(&mut params);
        let mut head = FsfHead::init(rows, cfg.seed);
        head.init_psqt(&shape, v);
        let state = FsfState::new(shape, head, None);
        let mut t = Trainer::from_state(cfg, params, None, 0, 0, Vec::new());
        t.fsf = Some(Box::new(state));
        t
    }

    /// A fsf-architecture trainer starting from an FSF-format net's float model (`ft` and
    /// `head` with the net's rows alone, [`crate::export::fsf::dequantise`]'s): the
    /// factoriser's rows are added as zeros, so the model computes that net.
    pub fn from_fsf_init(cfg: TrainConfig, mut ft: NetParams, mut head: FsfHead) -> Trainer {
        let v = crate::data::space::rules(&cfg).expect("validated by space::resolve");
        let layout = crate::data::space::fsf_layout(v).expect("validated by space::resolve");
        let shape = FsfShape::new(layout);
        let rows = shape.factoriser().train_features();
        ft.ft_w.resize(rows * ft.ft_size, 0.0);
        ft.num_features = rows;
        head.psqt.resize(rows * kage_engine::nnue::fsf::arch::BUCKETS, 0.0);
        let state = FsfState::new(shape, head, None);
        let mut t = Trainer::from_state(cfg, ft, None, 0, 0, Vec::new());
        t.fsf = Some(Box::new(state));
        t
    }

    /// Trainer starting from the parameters of an existing network (`--init-net`); with the
    /// factoriser, its group rows start at zero, so the model computes that network.
    pub fn from_init(cfg: TrainConfig, mut params: NetParams) -> Trainer {
        if let Some(f) = factoriser(&cfg) {
            params.ft_w.resize(f.train_features() * params.ft_size, 0.0);
            params.num_features = f.train_features();
        }
        Trainer::from_state(cfg, params, None, 0, 0, Vec::new())
    }

    /// Feature count of the model `cfg` trains over a feature space of `num_features`.
    pub fn model_features(cfg: &TrainConfig, num_features: usize) -> usize {
        if cfg.arch == Arch::Fsf {
            return num_features
                + crate::data::space::rules(cfg)
                    .ok()
                    .and_then(|v| crate::data::space::fsf_layout(v).ok())
                    .map_or(0, |l| l.per_king() as usize);
        }
        factoriser(cfg).as_ref().map_or(num_features, Factoriser::train_features)
    }

    /// The parameters of the network to export (the factoriser folded away).
    pub fn export_params(&self) -> std::borrow::Cow<'_, NetParams> {
        match &self.factor {
            Some(f) => std::borrow::Cow::Owned(f.fold(&self.params)),
            None => std::borrow::Cow::Borrowed(&self.params),
        }
    }

    /// Trainer from saved state.
    pub fn from_state(
        cfg: TrainConfig,
        params: NetParams,
        moments: Option<ParamMoments>,
        step: u64,
        epochs_done: u32,
        history: Vec<EpochMetrics>,
    ) -> Trainer {
        let moments = moments.unwrap_or_else(|| ParamMoments::zeros(&params));
        let factor = factoriser(&cfg);
        Trainer {
            factor,
            expanded: SparseBatch::default(),
            fsf: None,
            cfg,
            params,
            moments,
            step,
            epochs_done,
            history,
            times: StepTimes::default(),
            device: head::default_device(),
            ft_grad: FtScratch::default(),
            active: Vec::new(),
            x: Vec::new(),
            x_hi: Vec::new(),
        }
    }

    /// Target blend of the configuration (the fsf architecture: FSF's `score / 410` in FSF
    /// units, whatever `scale` says).
    pub fn blend(&self) -> TargetBlend {
        let scale = match self.cfg.arch {
            Arch::Small => self.cfg.scale as f32,
            Arch::Fsf => fsf::TARGET_SCALE_CP,
        };
        // `validate` has checked the models.
        let wdl = self.cfg.score_wdl.as_ref().and_then(|w| w.models().ok()).map(Arc::new);
        TargetBlend::new(self.cfg.lambda as f32, scale).with_wdl(wdl)
    }

    fn train_fsf(&mut self, batch: &SparseBatch, lr: f64) -> f32 {
        let Some(state) = self.fsf.as_mut() else { return 0.0 };
        self.step += 1;
        let c = &self.cfg;
        let s = AdamStep::new(lr, c.beta1, c.beta2, c.eps, c.weight_decay, self.step);
        let ft = FtParts {
            params: &mut self.params,
            moments: &mut self.moments,
            scratch: &mut self.ft_grad,
            active: &mut self.active,
            x: (&mut self.x, &mut self.x_hi),
        };
        state.train_batch(&self.device, ft, batch, &s, &mut self.times)
    }

    /// One optimisation step on `batch` at learning rate `lr`; returns the batch loss.
    pub fn train_batch(&mut self, batch: &SparseBatch, lr: f64) -> f32 {
        if batch.is_empty() {
            return 0.0;
        }
        if self.fsf.is_some() {
            return self.train_fsf(batch, lr);
        }
        let Some(f) = self.factor.take() else {
            return self.train_plain(batch, lr);
        };
        let mut expanded = std::mem::take(&mut self.expanded);
        f.expand(batch, &mut expanded);
        let loss = self.train_plain(&expanded, lr);
        self.expanded = expanded;
        self.factor = Some(f);
        loss
    }

    fn train_plain(&mut self, batch: &SparseBatch, lr: f64) -> f32 {
        let t0 = Instant::now();
        // The head runs the two fixed halves of the batch concurrently; the FT forward writes
        // their activations into separate buffers so none is copied.
        let split = head::split_point(batch.len(), head::SPLIT_MIN);
        let xs = (&mut self.x, &mut self.x_hi);
        ft::forward_split(&self.params, batch, &mut self.active, xs, split);
        let (x, x_hi) = (std::mem::take(&mut self.x), std::mem::take(&mut self.x_hi));
        let t1 = Instant::now();
        let g = head::step_halves(&self.device, &self.params, x, x_hi, &batch.targets);
        let t2 = Instant::now();
        self.step += 1;
        let c = &self.cfg;
        let s = AdamStep::new(lr, c.beta1, c.beta2, c.eps, c.weight_decay, self.step);
        let p = &mut self.params;
        let m = &mut self.moments;
        adamw(&mut p.l1_w, &mut m.l1_w.m, &mut m.l1_w.v, &g.l1_w, &s, true, L1_LIMIT);
        adamw(&mut p.l1_b, &mut m.l1_b.m, &mut m.l1_b.v, &g.l1_b, &s, false, BIAS_LIMIT);
        adamw(&mut p.out_w, &mut m.out_w.m, &mut m.out_w.v, &g.out_w, &s, true, OUT_LIMIT);
        adamw(&mut p.out_b, &mut m.out_b.m, &mut m.out_b.v, &g.out_b, &s, false, BIAS_LIMIT);
        ft::backward_update(
            p,
            (&mut m.ft_w, &mut m.ft_b),
            &mut self.ft_grad,
            batch,
            ft::Rows { lo: &g.x, hi: &g.x_hi, split },
            &self.active,
            &s,
        );
        self.times.ft_forward += (t1 - t0).as_secs_f64();
        self.times.head += (t2 - t1).as_secs_f64();
        self.times.update += t2.elapsed().as_secs_f64();
        g.loss
    }

    /// Mean loss of the float model on samples (same loss as training, no update).
    pub fn loss_on(&self, samples: &[Sample]) -> f64 {
        if samples.is_empty() {
            return f64::NAN;
        }
        let blend = self.blend();
        // Fixed-size chunks summed in order: the value does not depend on the thread count.
        let partials: Vec<f64> = samples
            .par_chunks(1024)
            .map(|chunk| {
                chunk
                    .iter()
                    .map(|s| {
                        if let Some(state) = &self.fsf {
                            return state.sample_loss(&self.params, s, blend.target(s));
                        }
                        let out = match &self.factor {
                            None => self.params.forward(&s.stm_features, &s.nstm_features),
                            Some(f) => {
                                let (mut a, mut b) = (Vec::new(), Vec::new());
                                f.extend(&s.stm_features, &mut a);
                                f.extend(&s.nstm_features, &mut b);
                                self.params.forward(&a, &b)
                            }
                        };
                        let d = f64::from(sigmoid(out) - blend.target(s));
                        d * d
                    })
                    .sum::<f64>()
            })
            .collect();
        let total: f64 = partials.iter().sum();
        total / samples.len() as f64
    }
}

/// The factoriser `cfg` asks for (none for synthetic data, which has no pieces).
fn factoriser(cfg: &TrainConfig) -> Option<Factoriser> {
    if !cfg.factorise || cfg.synthetic.is_some() || cfg.arch == Arch::Fsf {
        return None;
    }
    crate::data::space::rules(cfg).ok().map(Factoriser::new)
}
