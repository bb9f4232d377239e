//! The fsf architecture's layer stacks in burn: forward, loss and autodiff backward.
//!
//! The batch comes sorted by bucket, so each stack sees one contiguous group of positions;
//! each group runs as its own autodiff graph (concurrently), with the loss
//! `sum((sigmoid(LOGIT · (stack + psqt)) − target)²) / B`. A stack's gradient comes from its
//! group alone, the groups' losses are summed in bucket order, and the input gradients are
//! the groups' rows in order: nothing depends on the thread count.

use super::fsf::{FsfHead, LOGIT, STACK_SIZES};
use burn::tensor::activation::sigmoid;
use burn::tensor::module::linear;
use burn::tensor::{Device, Tensor, TensorData};
use kage_engine::nnue::fsf::arch::{BUCKETS, L1_IN, L2, L3};
use rayon::prelude::*;

/// Gradients of one step of the stacks.
#[derive(Debug, Clone, PartialEq)]
pub struct FsfHeadGrads {
    /// Mean loss of the batch.
    pub loss: f32,
    /// Gradient w.r.t. the clipped activations (`B × L1_IN`, the batch's order).
    pub x: Vec<f32>,
    /// Gradient w.r.t. each position's PSQT term.
    pub psqt: Vec<f32>,
    /// Gradients of the stack tensors, shaped like [`FsfHead`]'s (zero for empty buckets).
    pub stacks: [Vec<f32>; 6],
}

/// One bucket's group: its loss share, input gradients and stack gradients.
struct Part {
    loss: f32,
    x: Vec<f32>,
    psqt: Vec<f32>,
    stack: [Vec<f32>; 6],
}

/// Forward + backward of the stacks on `x` (`B × L1_IN` clipped activations) plus the PSQT
/// terms `psqt`, positions `ranges[b]` using stack `b`.
pub fn step(
    device: &Device,
    head: &FsfHead,
    x: &[f32],
    psqt: &[f32],
    targets: &[f32],
    ranges: &[(usize, usize); BUCKETS],
) -> FsfHeadGrads {
    let total = targets.len();
    let parts: Vec<Option<Part>> = (0..BUCKETS)
        .into_par_iter()
        .map(|b| {
            let (s, e) = ranges[b];
            (e > s).then(|| {
                let xb = x[s * L1_IN..e * L1_IN].to_vec();
                part(device, head, b, xb, &psqt[s..e], &targets[s..e], total)
            })
        })
        .collect();
    let mut g = FsfHeadGrads {
        loss: 0.0,
        x: Vec::with_capacity(x.len()),
        psqt: Vec::with_capacity(total),
        stacks: std::array::from_fn(|i| vec![0.0; BUCKETS * STACK_SIZES[i]]),
    };
    for (b, p) in parts.into_iter().enumerate() {
        let Some(p) = p else { continue };
        g.loss += p.loss;
        g.x.extend_from_slice(&p.x);
        g.psqt.extend_from_slice(&p.psqt);
        for (i, t) in p.stack.iter().enumerate() {
            g.stacks[i][b * STACK_SIZES[i]..(b + 1) * STACK_SIZES[i]].copy_from_slice(t);
        }
    }
    g
}

fn to_vec<const D: usize>(t: Tensor<D>) -> Vec<f32> {
    t.into_data().try_into_vec::<f32>().expect("head tensors are f32")
}

fn part(
    device: &Device,
    head: &FsfHead,
    b: usize,
    x: Vec<f32>,
    psqt: &[f32],
    targets: &[f32],
    total: usize,
) -> Part {
    let n = targets.len();
    let ad = device.clone().autodiff();
    let leaf2 = |v: Vec<f32>, shape: [usize; 2]| {
        Tensor::<2>::from_data(TensorData::new(v, shape), &ad).require_grad()
    };
    let leaf1 = |v: &[f32]| {
        let n = v.len();
        Tensor::<1>::from_data(TensorData::new(v.to_vec(), [n]), &ad).require_grad()
    };
    let [w1, b1, w2, b2, w3, b3] = head.stack(b);
    let x = leaf2(x, [n, L1_IN]);
    let p = leaf2(psqt.to_vec(), [n, 1]);
    let (w1, b1) = (leaf2(w1.to_vec(), [L1_IN, L2]), leaf1(b1));
    let (w2, b2) = (leaf2(w2.to_vec(), [L2, L3]), leaf1(b2));
    let (w3, b3) = (leaf2(w3.to_vec(), [L3, 1]), leaf1(b3));
    let t = Tensor::<2>::from_data(TensorData::new(targets.to_vec(), [n, 1]), &ad);
    let h1 = linear(x.clone(), w1.clone(), Some(b1.clone())).clamp(0.0, 1.0);
    let h2 = linear(h1, w2.clone(), Some(b2.clone())).clamp(0.0, 1.0);
    let out = linear(h2, w3.clone(), Some(b3.clone())) + p.clone();
    let diff = sigmoid(out.mul_scalar(LOGIT)) - t;
    let loss = (diff.clone() * diff).sum().div_scalar(total as f32);
    let mut grads = loss.backward();
    let loss = to_vec(loss)[0];
    let mut g2 = |t: &Tensor<2>| to_vec(t.grad_remove(&mut grads).expect("leaf has a gradient"));
    let (gx, gp, gw1, gw2, gw3) = (g2(&x), g2(&p), g2(&w1), g2(&w2), g2(&w3));
    let mut g1 = |t: &Tensor<1>| to_vec(t.grad_remove(&mut grads).expect("leaf has a gradient"));
    let (gb1, gb2, gb3) = (g1(&b1), g1(&b2), g1(&b3));
    Part { loss, x: gx, psqt: gp, stack: [gw1, gb1, gw2, gb2, gw3, gb3] }
}
