//! The dense head in burn: forward, loss and autodiff backward, returning plain gradients
//! for the head parameters and for the accumulator input.

use crate::model::NetParams;
use burn::tensor::activation::sigmoid;
use burn::tensor::module::linear;
use burn::tensor::{Device, Tensor, TensorData};

/// The burn device the head runs on: CUDA with the `cuda` feature, the best wgpu adapter with
/// the `gpu` feature, else the Flex CPU backend.
pub fn default_device() -> Device {
    #[cfg(feature = "cuda")]
    {
        Device::cuda(0)
    }
    #[cfg(all(feature = "gpu", not(feature = "cuda")))]
    {
        Device::wgpu(burn::tensor::DeviceKind::DefaultDevice)
    }
    #[cfg(not(any(feature = "gpu", feature = "cuda")))]
    {
        Device::flex()
    }
}

/// Gradients of one head step.
#[derive(Debug, Clone, PartialEq)]
pub struct HeadGrads {
    /// Mean loss of the batch.
    pub loss: f32,
    /// Gradient w.r.t. the clipped activations (`B x 2H`): all rows, or from
    /// [`step_halves`] the rows of its first half.
    pub x: Vec<f32>,
    /// From [`step_halves`]: the input-gradient rows of its second half (else empty).
    pub x_hi: Vec<f32>,
    /// Gradient of `l1_w` (`2H x K`, input-major).
    pub l1_w: Vec<f32>,
    /// Gradient of `l1_b`.
    pub l1_b: Vec<f32>,
    /// Gradient of `out_w`.
    pub out_w: Vec<f32>,
    /// Gradient of `out_b`.
    pub out_b: Vec<f32>,
}

fn to_vec(t: Tensor<2>) -> Vec<f32> {
    t.into_data().try_into_vec::<f32>().expect("head tensors are f32")
}

fn to_vec1(t: Tensor<1>) -> Vec<f32> {
    t.into_data().try_into_vec::<f32>().expect("head tensors are f32")
}

/// Batches of at least this many positions run the head as two graphs, one per fixed half.
pub const SPLIT_MIN: usize = 512;

/// Where a batch of `b` positions is cut into the two halves the head runs concurrently:
/// `ceil(b / 2)` from [`SPLIT_MIN`] positions on, else `b` (one graph). Depends on the
/// position count only, never on the thread count.
pub fn split_point(b: usize, split_min: usize) -> usize {
    if b >= split_min.max(2) { b.div_ceil(2) } else { b }
}

/// One forward + backward of the head on `x` (`B x 2H` clipped activations) against
/// `targets`: loss `mean((sigmoid(output) - target)^2)`; the whole input gradient in `x`.
///
/// From [`SPLIT_MIN`] positions on, the batch is cut at [`split_point`] into two halves that
/// run concurrently, each on its own autodiff graph with loss `sum(half) / B`: the rows of the
/// input gradient are the two halves' rows in order and the parameter gradients (and the loss)
/// are the sums of the halves'. That is the gradient of the mean loss over the whole batch,
/// up to the summation order of the parameter gradients.
pub fn step(device: &Device, params: &NetParams, x: Vec<f32>, targets: &[f32]) -> HeadGrads {
    step_split(device, params, x, targets, SPLIT_MIN)
}

/// [`step`] with its splitting threshold as a parameter (`usize::MAX`: one graph; tests).
pub fn step_split(
    device: &Device,
    params: &NetParams,
    mut x: Vec<f32>,
    targets: &[f32],
    split_min: usize,
) -> HeadGrads {
    let split = split_point(targets.len(), split_min);
    let x_hi = x.split_off(split * 2 * params.ft_size);
    let mut g = step_halves(device, params, x, x_hi, targets);
    g.x.append(&mut g.x_hi);
    g
}

/// [`step`] on activations already cut in two (`x_lo`: the rows of the first
/// `x_lo.len() / 2H` positions, `x_hi` the rest; `x_hi` empty: one graph). The input gradient
/// comes back cut the same way, in `x` and `x_hi`, without copies.
pub fn step_halves(
    device: &Device,
    params: &NetParams,
    x_lo: Vec<f32>,
    x_hi: Vec<f32>,
    targets: &[f32],
) -> HeadGrads {
    let b = targets.len();
    let split = x_lo.len() / (2 * params.ft_size).max(1);
    if split >= b {
        return part(device, params, x_lo, targets, b);
    }
    let (t_lo, t_hi) = targets.split_at(split);
    let (mut lo, hi) =
        rayon::join(|| part(device, params, x_lo, t_lo, b), || part(device, params, x_hi, t_hi, b));
    let add = |a: &mut Vec<f32>, b: &[f32]| a.iter_mut().zip(b).for_each(|(a, b)| *a += b);
    lo.loss += hi.loss;
    lo.x_hi = hi.x;
    add(&mut lo.l1_w, &hi.l1_w);
    add(&mut lo.l1_b, &hi.l1_b);
    add(&mut lo.out_w, &hi.out_w);
    add(&mut lo.out_b, &hi.out_b);
    lo
}

/// Forward + backward of the positions `x`/`targets`, part of a batch of `total`: loss
/// `sum((sigmoid(output) - target)^2) / total`.
fn part(
    device: &Device,
    params: &NetParams,
    x: Vec<f32>,
    targets: &[f32],
    total: usize,
) -> HeadGrads {
    let b = targets.len();
    let (h2, k) = (2 * params.ft_size, params.head_size);
    let ad = device.clone().autodiff();
    let leaf2 = |v: Vec<f32>, shape: [usize; 2]| {
        Tensor::<2>::from_data(TensorData::new(v, shape), &ad).require_grad()
    };
    let leaf1 = |v: Vec<f32>| {
        let n = v.len();
        Tensor::<1>::from_data(TensorData::new(v, [n]), &ad).require_grad()
    };
    let x = leaf2(x, [b, h2]);
    let w1 = leaf2(params.l1_w.clone(), [h2, k]);
    let b1 = leaf1(params.l1_b.clone());
    let w2 = leaf2(params.out_w.clone(), [k, 1]);
    let b2 = leaf1(params.out_b.clone());
    let t = Tensor::<2>::from_data(TensorData::new(targets.to_vec(), [b, 1]), &ad);

    let hidden = linear(x.clone(), w1.clone(), Some(b1.clone())).clamp(0.0, 1.0);
    let out = linear(hidden, w2.clone(), Some(b2.clone()));
    let diff = sigmoid(out) - t;
    let loss = (diff.clone() * diff).sum().div_scalar(total as f32);
    let mut grads = loss.backward();
    let loss_value = to_vec1(loss)[0];
    // `grad_remove` leaves the gradient uniquely owned, so reading it back is zero-copy.
    let mut grad2 = |p: &Tensor<2>| to_vec(p.grad_remove(&mut grads).expect("leaf has a gradient"));
    let (gx, gw1, gw2) = (grad2(&x), grad2(&w1), grad2(&w2));
    let mut grad1 =
        |p: &Tensor<1>| to_vec1(p.grad_remove(&mut grads).expect("leaf has a gradient"));
    let (gb1, gb2) = (grad1(&b1), grad1(&b2));
    HeadGrads {
        loss: loss_value,
        x: gx,
        x_hi: Vec::new(),
        l1_w: gw1,
        l1_b: gb1,
        out_w: gw2,
        out_b: gb2,
    }
}

/// Head output logits for a batch without autodiff (used by the burn-only benchmark and
/// to cross-check the plain-Rust float forward).
pub fn forward(device: &Device, params: &NetParams, x: Vec<f32>, batch: usize) -> Vec<f32> {
    let (h2, k) = (2 * params.ft_size, params.head_size);
    let t2 = |v: Vec<f32>, s: [usize; 2]| Tensor::<2>::from_data(TensorData::new(v, s), device);
    let t1 = |v: Vec<f32>| {
        let n = v.len();
        Tensor::<1>::from_data(TensorData::new(v, [n]), device)
    };
    let hidden =
        linear(t2(x, [batch, h2]), t2(params.l1_w.clone(), [h2, k]), Some(t1(params.l1_b.clone())))
            .clamp(0.0, 1.0);
    let out = linear(hidden, t2(params.out_w.clone(), [k, 1]), Some(t1(params.out_b.clone())));
    to_vec(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: &[f32], b: &[f32], what: &str) {
        assert_eq!(a.len(), b.len(), "{what}: length");
        let scale = b.iter().fold(0.0f32, |m, v| m.max(v.abs())).max(1e-12);
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            assert!(
                (x - y).abs() <= 1e-5 * scale + 1e-9,
                "{what}[{i}]: split {x} vs one graph {y}"
            );
        }
    }

    /// Two half graphs give the one-graph gradient of the mean loss (float tolerance), for
    /// even and odd batch sizes; below the threshold the batch stays one graph.
    #[test]
    fn split_head_gradient_equals_the_one_graph_gradient() {
        let dev = default_device();
        let mut p = NetParams::init(64, 16, 8, 3);
        // Larger head weights so some hidden units clip (the clamp's gradient matters).
        p.l1_w.iter_mut().for_each(|w| *w *= 8.0);
        for b in [2, 3, 17, 1001, 4096] {
            let x: Vec<f32> = (0..b * 32).map(|i| ((i * 7919) % 1000) as f32 / 1000.0).collect();
            let t: Vec<f32> = (0..b).map(|i| ((i * 31) % 100) as f32 / 100.0).collect();
            let one = step_split(&dev, &p, x.clone(), &t, usize::MAX);
            let two = step_split(&dev, &p, x.clone(), &t, 2);
            assert!((one.loss - two.loss).abs() <= 1e-6 * one.loss.abs().max(1e-6), "loss b={b}");
            close(&two.x, &one.x, &format!("x b={b}"));
            close(&two.l1_w, &one.l1_w, &format!("l1_w b={b}"));
            close(&two.l1_b, &one.l1_b, &format!("l1_b b={b}"));
            close(&two.out_w, &one.out_w, &format!("out_w b={b}"));
            close(&two.out_b, &one.out_b, &format!("out_b b={b}"));
            // The default threshold keeps small batches in one graph: identical bits.
            if b < SPLIT_MIN {
                assert_eq!(step(&dev, &p, x, &t), one, "b={b} below the threshold");
            }
        }
    }
}
