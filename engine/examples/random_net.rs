//! Writes a random network of the trainer's default shape (FT 128, head 32) for a variant,
//! for speed measurements (`kage bench --net FILE`): its weights have a trained net's ranges,
//! not its skill.
//!
//! `cargo run --release -p kage-engine --example random_net -- VARIANT OUT.nnue [SEED]`

use anyhow::{Context, Result, bail};
use kage_engine::Variant;
use kage_engine::nnue::random::random_network_shaped;

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
    let net = random_network_shaped(v, seed, 128, 32);
    std::fs::write(out, net.to_bytes()).with_context(|| format!("writing {out}"))?;
    let h = net.header();
    println!(
        "wrote {out}: {} {} features, FT {}, head {}",
        v.name, h.num_features, h.ft_size, h.head_size
    );
    Ok(())
}
