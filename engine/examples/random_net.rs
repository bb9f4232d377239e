//! Writes a random network of the trainer's default shape (FT 128, head 32) for a variant,
//! for speed measurements (`kage bench --net FILE`): its weights have a trained net's ranges,
//! not its skill.
//!
//! `cargo run --release -p kage-engine --example random_net -- VARIANT OUT.nnue [SEED]`

use anyhow::{Context, Result, bail};
use kage_engine::Variant;
use kage_engine::nnue::features::{FEATURE_SET_ID, num_features};
use kage_engine::nnue::{Activation, NetHeader, NetWeights, Network};
use rand::{Rng, SeedableRng};
use std::io::Write;

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [variant, out, rest @ ..] = args.as_slice() else {
        bail!("usage: random_net VARIANT OUT.nnue [SEED]");
    };
    let seed: u64 = match rest.first() {
        Some(s) => s.parse().with_context(|| format!("seed '{s}'"))?,
        None => 1,
    };
    let v = Variant::by_name(variant)?;
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
    let (f, h, k) = (num_features(v), 128usize, 32usize);
    let header = NetHeader {
        variant: v.name.clone(),
        feature_set_id: FEATURE_SET_ID,
        num_features: f as u32,
        ft_size: h as u32,
        head_size: k as u32,
        activation: Activation::ClippedRelu,
        output_scale: 400,
        run_id: format!("random-{seed}"),
        git_revision: "random".into(),
        config: String::new(),
    };
    let weights = NetWeights {
        ft_weights: (0..f * h).map(|_| rng.random_range(-20..20)).collect(),
        ft_bias: (0..h).map(|_| rng.random_range(0..40)).collect(),
        l1_weights: (0..k * 2 * h).map(|_| rng.random_range(-30..30)).collect(),
        l1_bias: (0..k).map(|_| rng.random_range(-500..500)).collect(),
        out_weights: (0..k).map(|_| rng.random_range(-60..60)).collect(),
        out_bias: 0,
    };
    let net = Network::from_parts(header, weights)?;
    let tmp = format!("{out}.tmp");
    let mut file = std::fs::File::create(&tmp).with_context(|| format!("creating {tmp}"))?;
    file.write_all(&net.to_bytes())?;
    file.sync_all()?;
    std::fs::rename(&tmp, out).with_context(|| format!("renaming {tmp} to {out}"))?;
    println!("wrote {out}: {} {f} features, FT {h}, head {k}", v.name);
    Ok(())
}
