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
    /// Gradient w.r.t. the clipped activations (`B x 2H`).
    pub x: Vec<f32>,
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

/// One forward + backward of the head on `x` (`B x 2H` clipped activations) against
/// `targets`: loss `mean((sigmoid(output) - target)^2)`.
pub fn step(device: &Device, params: &NetParams, x: Vec<f32>, targets: &[f32]) -> HeadGrads {
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
    let loss = (diff.clone() * diff).mean();
    let mut grads = loss.backward();
    let loss_value = to_vec1(loss)[0];
    // `grad_remove` leaves the gradient uniquely owned, so reading it back is zero-copy.
    let mut grad2 = |p: &Tensor<2>| to_vec(p.grad_remove(&mut grads).expect("leaf has a gradient"));
    let (gx, gw1, gw2) = (grad2(&x), grad2(&w1), grad2(&w2));
    let mut grad1 =
        |p: &Tensor<1>| to_vec1(p.grad_remove(&mut grads).expect("leaf has a gradient"));
    let (gb1, gb2) = (grad1(&b1), grad1(&b2));
    HeadGrads { loss: loss_value, x: gx, l1_w: gw1, l1_b: gb1, out_w: gw2, out_b: gb2 }
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
