//! Compares the scale of the hand-crafted evaluation and a network on exported positions:
//! `kage-data export --text --perspective stm` lines (`FEN | score | result`). Prints mean
//! absolute centipawns of each, of the recorded search score, and the least-squares factor
//! that maps the network's scores onto the HCE's (the factor that would put the net on the
//! scale the search's pruning margins were tuned with).
//!
//! cargo run --release -p kage-engine --example eval_scale -- VARIANT NET POSITIONS.txt [N]
use kage_engine::eval::Hce;
use kage_engine::eval::nnue_eval::NnueEval;
use kage_engine::nnue::Network;
use kage_engine::position::Position;
use kage_engine::variant::Variant;
use std::io::BufRead;
use std::sync::Arc;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 4 {
        return Err("usage: eval_scale VARIANT NET POSITIONS.txt [N]".into());
    }
    let variant = Variant::by_name(&args[1])?;
    let net = Arc::new(Network::load_for_variant(&std::fs::read(&args[2])?, variant)?);
    let limit: usize = args.get(4).map(|s| s.parse()).transpose()?.unwrap_or(50_000);
    let file = std::io::BufReader::new(std::fs::File::open(&args[3])?);
    let hce = Hce::new(variant);
    let mut nnue = NnueEval::new(net, variant);
    let (mut n, mut sh, mut sn, mut ss, mut hn, mut nn) = (0f64, 0f64, 0f64, 0f64, 0f64, 0f64);
    let mut bands = [(0usize, 0f64, 0f64); 6];
    for (i, line) in file.lines().enumerate() {
        // Every 7th line: positions spread over many games.
        if i % 7 != 0 {
            continue;
        }
        let line = line?;
        let mut parts = line.split(" | ");
        let (Some(fen), Some(score)) = (parts.next(), parts.next()) else { continue };
        let pos = Position::from_fen(variant, fen)?;
        if pos.in_check() {
            continue;
        }
        let score: f64 = score.trim().parse()?;
        if score.abs() > 3000.0 {
            continue;
        }
        let h = f64::from(hce.evaluate(&pos));
        let e = f64::from(nnue.evaluate(&pos));
        n += 1.0;
        sh += h.abs();
        sn += e.abs();
        ss += score.abs();
        hn += h * e;
        nn += e * e;
        let b = ((h.abs() / 100.0) as usize).min(5);
        bands[b].0 += 1;
        bands[b].1 += h.abs();
        bands[b].2 += e.abs();
        if n as usize >= limit {
            break;
        }
    }
    println!(
        "{}: {} positions, mean |hce| {:.0}, mean |net| {:.0}, mean |search score| {:.0}, \
         least-squares hce ~ k*net: k = {:.2}",
        variant.name,
        n,
        sh / n,
        sn / n,
        ss / n,
        hn / nn
    );
    for (b, (c, h, e)) in bands.iter().enumerate() {
        if *c > 0 {
            println!(
                "  |hce| band {}..: {} positions, mean |hce| {:.0}, mean |net| {:.0}",
                b * 100,
                c,
                h / *c as f64,
                e / *c as f64
            );
        }
    }
    Ok(())
}
