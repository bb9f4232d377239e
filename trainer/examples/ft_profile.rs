//! Times the FT forward and backward+update against their plain references (profiling aid).
use kage_train::data::batch::{SparseBatch, TargetBlend};
use kage_train::data::synthetic::{SyntheticConfig, SyntheticDataset};
use kage_train::model::NetParams;
use kage_train::model::ft::{self, FtGrad, FtScratch};
use kage_train::model::simd;
use kage_train::training::optim::AdamStep;
use kage_train::training::train::ParamMoments;
use std::time::Instant;

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
    let batch = SparseBatch::from_samples(&samples, &TargetBlend::new(0.75, 400.0));
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
        ft::forward(&p, &batch, &mut acc, &mut x);
        best[0] = best[0].min(t.elapsed().as_secs_f64());
        let t = Instant::now();
        ft::forward_split(&p, &batch, &mut active, (&mut x2, &mut Vec::new()), bs);
        best[1] = best[1].min(t.elapsed().as_secs_f64());
        let t = Instant::now();
        let (w, b) = (&mut mom.ft_w, &mut mom.ft_b);
        ft::backward_update_reference(&mut p, (w, b), &mut fg, &batch, &grad, &acc, &s);
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
        "min ms: forward reference {:.2} blocked {:.2} | backward+adam reference {:.2} fused {:.2}",
        best[0] * 1e3,
        best[1] * 1e3,
        best[2] * 1e3,
        best[3] * 1e3
    );
}
