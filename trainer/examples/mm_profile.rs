//! Times burn Flex matmuls of the head's shapes (profiling aid).
use burn::tensor::{Device, Tensor, TensorData};
use std::time::Instant;

fn t2(v: Vec<f32>, s: [usize; 2], d: &Device) -> Tensor<2> {
    Tensor::<2>::from_data(TensorData::new(v, s), d)
}

fn time(name: &str, n: usize, mut f: impl FnMut()) {
    for _ in 0..3 {
        f();
    }
    let mut best = f64::MAX;
    let mut sum = 0.0;
    for _ in 0..n {
        let t0 = Instant::now();
        f();
        let e = t0.elapsed().as_secs_f64();
        best = best.min(e);
        sum += e;
    }
    println!("{name:40} min {:.3} ms  mean {:.3} ms", best * 1e3, sum * 1e3 / n as f64);
}

fn main() {
    let threads: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(2);
    rayon::ThreadPoolBuilder::new().num_threads(threads).build_global().unwrap();
    kage_train::model::simd::tune_allocator();
    let d = Device::flex();
    let (b, h2, k) = (4096, 256, 32);
    let v = |n: usize| (0..n).map(|i| ((i * 7919) % 1000) as f32 / 1000.0).collect::<Vec<_>>();
    let x = t2(v(b * h2), [b, h2], &d);
    let w = t2(v(h2 * k), [h2, k], &d);
    let wt = t2(v(h2 * k), [k, h2], &d);
    let g = t2(v(b * k), [b, k], &d);
    let gt = t2(v(b * k), [k, b], &d);
    let n = 50;
    let sink = |t: Tensor<2>| {
        std::hint::black_box(t.into_data());
    };
    time("x @ w            [B,2H]@[2H,K]", n, || sink(x.clone().matmul(w.clone())));
    time("x @ wt^T         [B,2H]@[K,2H]^T", n, || sink(x.clone().matmul(wt.clone().transpose())));
    time("x^T @ g          [B,2H]^T@[B,K]", n, || sink(x.clone().transpose().matmul(g.clone())));
    time("g^T @ x          [B,K]^T@[B,2H]", n, || sink(g.clone().transpose().matmul(x.clone())));
    time("gt @ x           [K,B]@[B,2H]", n, || sink(gt.clone().matmul(x.clone())));
    time("g @ w^T          [B,K]@[2H,K]^T", n, || sink(g.clone().matmul(w.clone().transpose())));
    time("g @ wt           [B,K]@[K,2H]", n, || sink(g.clone().matmul(wt.clone())));
    let xt = t2(v(b * h2), [h2, b], &d);
    time("wt @ x^T         [K,2H]@[B,2H]^T", n, || sink(wt.clone().matmul(x.clone().transpose())));
    time("wt @ xt          [K,2H]@[2H,B]", n, || sink(wt.clone().matmul(xt.clone())));
    time("w^T @ gt         [2H,K]^T@[K,B]", n, || sink(w.clone().transpose().matmul(gt.clone())));
    time("wt^T @ gt        [K,2H]^T@[K,B]", n, || sink(wt.clone().transpose().matmul(gt.clone())));
    time("x.clone().into_data", n, || sink(x.clone()));
    time("from_data 4MB vec", n, || {
        sink(t2(v(0).into_iter().chain(std::iter::repeat_n(0.5, b * h2)).collect(), [b, h2], &d))
    });
}
