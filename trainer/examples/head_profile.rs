//! Times the burn head step alone (profiling aid).
use kage_train::model::NetParams;
use kage_train::model::head;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(50);
    let h: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(128);
    let b: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(4096);
    let threads: usize = args.get(4).and_then(|s| s.parse().ok()).unwrap_or(2);
    rayon::ThreadPoolBuilder::new().num_threads(threads).build_global().unwrap();
    kage_train::model::simd::tune_allocator();
    let p = NetParams::init(2304, h, 32, 1);
    let x: Vec<f32> = (0..b * 2 * h).map(|i| ((i * 7919) % 1000) as f32 / 1000.0).collect();
    let t: Vec<f32> = (0..b).map(|i| (i % 100) as f32 / 100.0).collect();
    let dev = head::default_device();
    for _ in 0..3 {
        head::step(&dev, &p, x.clone(), &t);
    }
    // One graph and two half graphs, alternating blocks of 10 steps: wall ms per step (min of
    // the blocks and overall mean) and CPU ms per step (all threads).
    let cpu = || kage_engine::util::cpu_time::process_cpu_seconds().unwrap_or(0.0);
    let (mut wall, mut cpu_s, mut min) = ([0.0; 2], [0.0; 2], [f64::INFINITY; 2]);
    for _ in 0..n.div_ceil(10) {
        for (k, split_min) in [usize::MAX, head::SPLIT_MIN].into_iter().enumerate() {
            if std::env::var("HP_ONLY").is_ok_and(|v| v != k.to_string()) {
                continue;
            }
            let xs: Vec<Vec<f32>> = (0..10).map(|_| x.clone()).collect();
            let (c, w) = (cpu(), Instant::now());
            for xx in xs {
                std::hint::black_box(head::step_split(&dev, &p, xx, &t, split_min));
            }
            let el = w.elapsed().as_secs_f64() * 1e3 / 10.0;
            wall[k] += el;
            min[k] = f64::min(min[k], el);
            cpu_s[k] += (cpu() - c) * 1e3 / 10.0;
        }
    }
    let blocks = n.div_ceil(10) as f64;
    for (k, name) in ["one graph", "two halves"].iter().enumerate() {
        let (w, c) = (wall[k] / blocks, cpu_s[k] / blocks);
        println!("head step, {name}: wall min {:.2} mean {w:.2} ms, CPU {c:.2} ms", min[k]);
    }
}
