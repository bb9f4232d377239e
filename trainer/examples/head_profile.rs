//! Times the burn head step alone (profiling aid).
use kage_train::head;
use kage_train::model::NetParams;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(50);
    let h: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(128);
    let b: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(4096);
    rayon::ThreadPoolBuilder::new().num_threads(2).build_global().unwrap();
    kage_train::simd::tune_allocator();
    let p = NetParams::init(2304, h, 32, 1);
    let x: Vec<f32> = (0..b * 2 * h).map(|i| ((i * 7919) % 1000) as f32 / 1000.0).collect();
    let t: Vec<f32> = (0..b).map(|i| (i % 100) as f32 / 100.0).collect();
    let dev = head::default_device();
    for _ in 0..3 {
        head::step(&dev, &p, x.clone(), &t);
    }
    let t0 = Instant::now();
    let mut copy = 0.0;
    for _ in 0..n {
        let c = Instant::now();
        let xx = x.clone();
        copy += c.elapsed().as_secs_f64();
        std::hint::black_box(head::step(&dev, &p, xx, &t));
    }
    let el = t0.elapsed().as_secs_f64() - copy;
    println!("head step {:.2} ms (x clone {:.2} ms)", el * 1e3 / n as f64, copy * 1e3 / n as f64);
}
