//! Times the FT forward and backward+update variants (profiling aid).
use kage_train::batch::{SparseBatch, TargetBlend};
use kage_train::ft::{self, FtGrad, FtScratch};
use kage_train::model::NetParams;
use kage_train::optim::AdamStep;
use kage_train::simd;
use kage_train::synthetic::{SyntheticConfig, SyntheticDataset};
use kage_train::train::ParamMoments;
use rayon::prelude::*;
use std::time::Instant;

fn old_forward(params: &NetParams, batch: &SparseBatch, acc: &mut Vec<f32>, x: &mut Vec<f32>) {
    let h = params.ft_size;
    let b = batch.len();
    acc.resize(b * 2 * h, 0.0);
    x.resize(b * 2 * h, 0.0);
    acc.par_chunks_mut(2 * h).zip(x.par_chunks_mut(2 * h)).enumerate().with_min_len(32).for_each(
        |(i, (acc_row, x_row))| {
            for p in 0..2 {
                let dst = &mut acc_row[p * h..(p + 1) * h];
                params.accumulate(batch.features(i, p), dst);
                simd::clamp01(&mut x_row[p * h..(p + 1) * h], dst);
            }
        },
    );
}

fn main() {
    let a: Vec<usize> = std::env::args().skip(1).map(|s| s.parse().unwrap()).collect();
    let threads = a.first().copied().unwrap_or(2);
    let h = a.get(1).copied().unwrap_or(128);
    let bs = a.get(2).copied().unwrap_or(4096);
    let nf = a.get(3).copied().unwrap_or(2304);
    rayon::ThreadPoolBuilder::new().num_threads(threads).build_global().unwrap();
    simd::tune_allocator();
    let data = SyntheticDataset::new(SyntheticConfig {
        positions: bs as u64,
        num_features: nf,
        ..SyntheticConfig::default()
    });
    let samples: Vec<_> = (0..bs).map(|i| data.sample(i as u64)).collect();
    let batch = SparseBatch::from_samples(&samples, TargetBlend { lambda: 0.75, scale: 400.0 });
    let mut p = NetParams::init(nf, h, 32, 1);
    let (mut acc, mut x) = (Vec::new(), Vec::new());
    let (mut active, mut x2) = (Vec::new(), Vec::new());
    let grad: Vec<f32> = (0..bs * 2 * h).map(|i| ((i * 7919) % 1000) as f32 / 1e6 - 5e-4).collect();
    let mut mom = ParamMoments::zeros(&p);
    let s = AdamStep::new(1e-3, 0.9, 0.999, 1e-8, 0.0, 3);
    let mut sc = FtScratch::default();
    let mut fg = FtGrad::default();
    let n = 30;
    let mut best = [f64::MAX; 4];
    for _ in 0..n {
        let t = Instant::now();
        old_forward(&p, &batch, &mut acc, &mut x);
        best[0] = best[0].min(t.elapsed().as_secs_f64());
        let t = Instant::now();
        ft::forward_split(&p, &batch, &mut active, (&mut x2, &mut Vec::new()), bs);
        best[1] = best[1].min(t.elapsed().as_secs_f64());
        let t = Instant::now();
        old_backward(&mut p, &mut mom, &mut fg, &batch, &grad, &acc, &s);
        best[2] = best[2].min(t.elapsed().as_secs_f64());
        let t = Instant::now();
        ft::backward_update(
            &mut p,
            (&mut mom.ft_w, &mut mom.ft_b),
            &mut sc,
            &batch,
            ft::Rows::whole(&grad, batch.len()),
            &active,
            &s,
        );
        best[3] = best[3].min(t.elapsed().as_secs_f64());
    }
    println!(
        "min ms: forward old {:.2} new {:.2} | backward+adam old {:.2} new {:.2}",
        best[0] * 1e3,
        best[1] * 1e3,
        best[2] * 1e3,
        best[3] * 1e3
    );
}

fn old_backward(
    p: &mut NetParams,
    mom: &mut ParamMoments,
    fg: &mut FtGrad,
    batch: &SparseBatch,
    grad: &[f32],
    acc: &[f32],
    s: &AdamStep,
) {
    let h = p.ft_size;
    fg.compute(batch, grad, acc, p.num_features, h);
    let fg = &*fg;
    p.ft_w
        .par_chunks_mut(h)
        .zip(mom.ft_w.m.par_chunks_mut(h))
        .zip(mom.ft_w.v.par_chunks_mut(h))
        .enumerate()
        .with_min_len(8)
        .for_each_init(
            || vec![0.0f32; h],
            |g, (f, ((w, m), v))| {
                if !fg.touched(f) {
                    return;
                }
                fg.feature_grad(f, g);
                simd::adamw(w, m, v, g, s, true, 1.0);
            },
        );
}
