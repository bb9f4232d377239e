//! The sparse FT backward equals a dense one-hot reference and finite differences.

use kage_train::data::batch::{SparseBatch, TargetBlend, sigmoid};
use kage_train::data::synthetic::{SyntheticConfig, SyntheticDataset};
use kage_train::model::NetParams;
use kage_train::model::ft::{self, FtGrad};
use kage_train::model::head;

const F: usize = 40;
const H: usize = 8;
const K: usize = 4;

fn setup() -> (NetParams, SparseBatch) {
    let data = SyntheticDataset::new(SyntheticConfig {
        positions: 24,
        num_features: F,
        min_active: 3,
        max_active: 7,
        seed: 3,
    });
    let samples: Vec<_> = (0..24).map(|i| data.sample(i)).collect();
    let batch = SparseBatch::from_samples(&samples, &TargetBlend::new(0.5, 400.0));
    let mut p = NetParams::init(F, H, K, 11);
    // Larger FT weights so some accumulators leave the linear region (exercises the mask).
    p.ft_w.iter_mut().for_each(|w| *w *= 6.0);
    (p, batch)
}

/// Analytic FT gradients: (weights F x H, bias H).
fn sparse_grads(p: &NetParams, batch: &SparseBatch) -> (Vec<f32>, Vec<f32>) {
    let (mut acc, mut x) = (Vec::new(), Vec::new());
    ft::forward(p, batch, &mut acc, &mut x);
    let g = head::step(&head::default_device(), p, x, &batch.targets);
    let mut fg = FtGrad::default();
    fg.compute(batch, &g.x, &acc, F, H);
    (fg.dense(), fg.bias())
}

fn loss(p: &NetParams, batch: &SparseBatch) -> f64 {
    (0..batch.len())
        .map(|i| {
            let o = p.forward(batch.features(i, 0), batch.features(i, 1));
            let d = f64::from(sigmoid(o)) - f64::from(batch.targets[i]);
            d * d
        })
        .sum::<f64>()
        / batch.len() as f64
}

#[test]
fn sparse_backward_matches_dense_one_hot_reference() {
    let (p, batch) = setup();
    let (mut acc, mut x) = (Vec::new(), Vec::new());
    ft::forward(&p, &batch, &mut acc, &mut x);
    let mut g = head::step(&head::default_device(), &p, x, &batch.targets);
    let mut fg = FtGrad::default();
    fg.compute(&batch, &g.x, &acc, F, H);
    let sparse = fg.dense();
    let sparse_bias = fg.bias();
    ft::mask_grad(&acc, &mut g.x);
    assert!(g.x.contains(&0.0), "some activations should be clipped");
    // Dense reference: one-hot input matrix (2B x F) transposed times the gradient (2B x H).
    let rows = 2 * batch.len();
    let mut onehot = vec![0f32; rows * F];
    for i in 0..batch.len() {
        for persp in 0..2 {
            for &f in batch.features(i, persp) {
                onehot[(2 * i + persp) * F + f as usize] += 1.0;
            }
        }
    }
    let mut dense = vec![0f32; F * H];
    for r in 0..rows {
        for f in 0..F {
            let a = onehot[r * F + f];
            if a != 0.0 {
                for j in 0..H {
                    dense[f * H + j] += a * g.x[r * H + j];
                }
            }
        }
    }
    let scale = dense.iter().fold(0f32, |m, v| m.max(v.abs()));
    assert!(scale > 0.0);
    for (s, d) in sparse.iter().zip(&dense) {
        assert!((s - d).abs() <= 1e-6 * scale.max(1.0), "sparse {s} vs dense {d}");
    }
    for (j, &sb) in sparse_bias.iter().enumerate() {
        let db: f32 = (0..rows).map(|r| g.x[r * H + j]).sum();
        assert!((sb - db).abs() <= 1e-6 * scale.max(1.0), "bias {j}: sparse {sb} vs dense {db}");
    }
    // Forward equals a dense one-hot matmul too.
    for r in 0..rows {
        for j in 0..H {
            let dense_acc =
                p.ft_b[j] + (0..F).map(|f| onehot[r * F + f] * p.ft_w[f * H + j]).sum::<f32>();
            assert!((dense_acc - acc[r * H + j]).abs() < 1e-4);
        }
    }
}

#[test]
fn sparse_backward_matches_finite_differences() {
    let (p, batch) = setup();
    let (gw, gb) = sparse_grads(&p, &batch);
    let eps = 1e-3f32;
    let mut checked = 0;
    // The largest gradients are the best conditioned for a finite-difference check.
    let mut order: Vec<usize> = (0..gw.len()).collect();
    order.sort_by(|&a, &b| gw[b].abs().total_cmp(&gw[a].abs()));
    for &idx in order.iter().take(12) {
        let mut plus = p.clone();
        plus.ft_w[idx] += eps;
        let mut minus = p.clone();
        minus.ft_w[idx] -= eps;
        let fd = (loss(&plus, &batch) - loss(&minus, &batch)) / (2.0 * f64::from(eps));
        let an = f64::from(gw[idx]);
        assert!(
            (fd - an).abs() <= 0.05 * an.abs() + 1e-5,
            "weight {idx}: analytic {an} vs numeric {fd}"
        );
        checked += 1;
    }
    for (j, &gbj) in gb.iter().enumerate() {
        let mut plus = p.clone();
        plus.ft_b[j] += eps;
        let mut minus = p.clone();
        minus.ft_b[j] -= eps;
        let fd = (loss(&plus, &batch) - loss(&minus, &batch)) / (2.0 * f64::from(eps));
        let an = f64::from(gbj);
        assert!(
            (fd - an).abs() <= 0.05 * an.abs() + 1e-5,
            "bias {j}: analytic {an} vs numeric {fd}"
        );
    }
    assert_eq!(checked, 12);
}

#[test]
fn burn_head_matches_plain_rust_forward() {
    let (p, batch) = setup();
    let (mut acc, mut x) = (Vec::new(), Vec::new());
    ft::forward(&p, &batch, &mut acc, &mut x);
    let out = head::forward(&head::default_device(), &p, x, batch.len());
    for (i, o) in out.iter().enumerate() {
        let r = p.forward(batch.features(i, 0), batch.features(i, 1));
        assert!((o - r).abs() < 1e-4, "position {i}: burn {o} vs rust {r}");
    }
}
