//! `kage bench search` (fixed-depth searches of a fixed position set, nodes and nodes/s per
//! variant, node-count signature) and `kage bench match` (depth d+2 against depth d).

use super::{Limits, Searcher};
use crate::eval::Evaluator;
use crate::eval::nnue_eval::NnueEval;
use crate::game::Game;
use crate::nnue::Network;
use crate::position::Position;
use crate::types::Color;
use crate::util::cpu_time::Stopwatch;
use crate::variant::{SpecError, Variant, VariantId};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// Every variant's bench positions, (variant, FEN or `startpos`), from each built-in variant's
/// `engine/variants/<name>/bench.toml`: the start position and middlegame positions taken from
/// the FSF perft references.
pub fn positions() -> impl Iterator<Item = (&'static str, &'static str)> {
    VariantId::ALL
        .into_iter()
        .flat_map(|id| id.bench().positions.iter().map(move |f| (id.name(), f.as_str())))
}

/// Default bench depth of a built-in variant (`bench.toml`'s `search_depth`); 15 otherwise.
pub fn default_depth(name: &str) -> u32 {
    VariantId::from_name(name).map_or(15, |id| id.bench().search_depth)
}

fn position(v: &'static Variant, fen: &str) -> Position {
    if fen == "startpos" {
        Position::startpos(v)
    } else {
        Position::from_fen(v, fen).expect("bench FENs are valid")
    }
}

/// The variant `only` names, if any.
fn selected(only: Option<&str>) -> Result<Option<VariantId>, SpecError> {
    only.map(str::parse).transpose()
}

/// Why `kage bench search` cannot run.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// An unknown variant name.
    #[error(transparent)]
    Variant(#[from] SpecError),
    /// A network of a variant the bench does not run (it would measure nothing).
    #[error(
        "the network is for variant {net:?}, which this bench does not run (it runs {benched})"
    )]
    NetNotBenched {
        /// The network's variant.
        net: String,
        /// The variants benched.
        benched: String,
    },
    /// A network that does not fit its variant.
    #[error("the network does not fit variant {variant}: {why}")]
    NetMismatch {
        /// The variant.
        variant: String,
        /// Why.
        why: crate::nnue::NetError,
    },
}

/// The benched variant (all, or `only`) that `net` is for; an error when it is for none or
/// does not fit it: `kage bench --net` never silently measures another net.
pub fn net_variant(only: Option<&str>, net: &Network) -> Result<&'static Variant, BenchError> {
    let only = selected(only)?;
    let benched: Vec<VariantId> =
        VariantId::ALL.into_iter().filter(|&id| only.is_none_or(|o| o == id)).collect();
    let name = &net.header().variant;
    let Some(id) = benched.iter().copied().find(|id| id.name() == name) else {
        let benched = benched.iter().map(|id| id.name()).collect::<Vec<_>>().join(", ");
        return Err(BenchError::NetNotBenched { net: name.clone(), benched });
    };
    let v = Variant::builtin(id);
    net.check_variant(v)
        .map_err(|why| BenchError::NetMismatch { variant: id.name().to_string(), why })?;
    Ok(v)
}

/// Nodes, wall seconds and CPU seconds of one variant's bench searches.
struct Run {
    nodes: u64,
    secs: f64,
    cpu: f64,
}

fn run_positions(name: &str, v: &'static Variant, d: u32, evaluator: &Evaluator) -> Run {
    let mut nodes = 0u64;
    let watch = Stopwatch::process();
    for (_, fen) in positions().filter(|(n, _)| *n == name) {
        let mut s = Searcher::new(16);
        s.set_evaluator(evaluator.clone());
        let game = Game::new(position(v, fen));
        let stop = AtomicBool::new(false);
        let r = s.search(&game, &Limits::depth(d), &stop, &mut |_| {});
        nodes += r.nodes;
    }
    let secs = watch.wall_seconds();
    let cpu = watch.cpu_seconds().unwrap_or(secs);
    Run { nodes, secs, cpu }
}

/// Runs the search bench and prints a table; returns the total node count of the hand-crafted
/// evaluation's searches (the signature). For each variant with a network in `nets` (the
/// first that fits), the same searches run again with it and its nodes/s are printed beside
/// the HCE's, with their ratio. `only` names one variant to bench; an unknown name is an
/// error.
pub fn search(
    depth: Option<u32>,
    only: Option<&str>,
    nets: &[Evaluator],
) -> Result<u64, BenchError> {
    for e in nets {
        if let Evaluator::Nnue(net) = e {
            net_variant(only, net)?;
        }
    }
    let only = selected(only)?;
    println!(
        "{:<14} {:>5} {:>12} {:>9} {:>10} {:>9} {:>12}",
        "variant", "depth", "nodes", "seconds", "knodes/s", "cpu s", "knodes/cpu-s"
    );
    let mut total = 0u64;
    let (mut all_nodes, mut all_time) = (0u64, 0f64);
    let mut side_by_side = Vec::new();
    for id in VariantId::ALL {
        let name = id.name();
        if only.is_some_and(|o| o != id) {
            continue;
        }
        let v = Variant::builtin(id);
        let d = depth.unwrap_or_else(|| default_depth(name));
        let hce = run_positions(name, v, d, &Evaluator::HandCrafted);
        let Run { nodes, secs, cpu } = hce;
        println!(
            "{name:<14} {d:>5} {nodes:>12} {secs:>9.3} {:>10.0} {cpu:>9.2} {:>12.0}",
            nodes as f64 / secs.max(1e-9) / 1e3,
            nodes as f64 / cpu.max(1e-2) / 1e3
        );
        total += nodes;
        all_nodes += nodes;
        all_time += secs;
        let nnue = nets
            .iter()
            .find(|e| e.network_for(v).is_some() || e.fsf_network_for(v).is_some())
            .cloned()
            .or_else(|| crate::nnue::shipped::shipped(v).map(|_| Evaluator::Default));
        if let Some(e) = nnue {
            if let Some(net) = e.network_for(v)
                && !NnueEval::new(Arc::clone(net), v).is_fast()
            {
                println!("{name}: the net's weights may overflow i16 accumulators: slow path");
            }
            side_by_side.push((name, d, hce, run_positions(name, v, d, &e)));
        }
    }
    println!(
        "total nodes {all_nodes}, {:.0} knodes/s\nsignature {total}",
        all_nodes as f64 / all_time.max(1e-9) / 1e3
    );
    if !side_by_side.is_empty() {
        println!(
            "\n{:<14} {:>5} {:>12} {:>12} {:>12} {:>12} {:>7}",
            "variant", "depth", "hce nodes", "hce kn/cpu-s", "nnue nodes", "nnue kn/cpu-s", "ratio"
        );
        for (name, d, h, n) in &side_by_side {
            let (hk, nk) = (h.nodes as f64 / h.cpu.max(1e-2), n.nodes as f64 / n.cpu.max(1e-2));
            println!(
                "{name:<14} {d:>5} {:>12} {:>12.0} {:>12} {:>12.0} {:>6.0}%",
                h.nodes,
                hk / 1e3,
                n.nodes,
                nk / 1e3,
                nk / hk.max(1e-9) * 100.0
            );
        }
        let nnue_total: u64 = side_by_side.iter().map(|s| s.3.nodes).sum();
        println!("nnue signature {nnue_total}");
    }
    Ok(total)
}

/// Self-play match: depth `d + 2` against depth `d`, colours alternating; prints the score of
/// the deeper side per variant.
/// `only` names one variant to play; an unknown name is an error.
pub fn play_match(d: u32, games: usize, only: Option<&str>) -> Result<(), SpecError> {
    let only = selected(only)?;
    for id in VariantId::ALL {
        let name = id.name();
        if only.is_some_and(|o| o != id) {
            continue;
        }
        let v = Variant::builtin(id);
        let (mut w, mut l, mut dr) = (0, 0, 0);
        let mut reasons = std::collections::BTreeMap::new();
        for g in 0..games {
            let deep_white = g % 2 == 0;
            let mut game = Game::startpos(v);
            // Vary the openings: three pseudo-random plies per game pair (both colours).
            let mut seed = (g / 2) as u64 * 0x9e37_79b9_7f4a_7c15 + 12345;
            for _ in 0..3 {
                let ms = game.position().legal_moves();
                if ms.is_empty() {
                    break;
                }
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                game.play(ms.as_slice()[(seed % ms.len() as u64) as usize]);
            }
            let mut deep = Searcher::new(16);
            let mut shallow = Searcher::new(16);
            let stop = AtomicBool::new(false);
            let outcome = loop {
                if let Some(o) = game.outcome() {
                    break Some(o);
                }
                if game.ply() > 400 {
                    break None;
                }
                let white = game.position().side_to_move() == Color::White;
                let (s, depth) =
                    if white == deep_white { (&mut deep, d + 2) } else { (&mut shallow, d) };
                let r = s.search(&game, &Limits::depth(depth), &stop, &mut |_| {});
                if r.best_move.is_null() {
                    break game.outcome();
                }
                game.play(r.best_move);
            };
            let deep_color = if deep_white { Color::White } else { Color::Black };
            let reason = outcome.map_or("unfinished", |o| o.reason.name());
            *reasons.entry(reason).or_insert(0) += 1;
            match outcome.map_or(0, |o| o.score_for(deep_color)) {
                1 => w += 1,
                -1 => l += 1,
                _ => dr += 1,
            }
        }
        let pct = (w as f64 + dr as f64 / 2.0) / games.max(1) as f64 * 100.0;
        println!(
            "{name:<14} depth {} vs {d}: +{w} -{l} ={dr} ({pct:.1}% for the deeper side) {reasons:?}",
            d + 2
        );
    }
    Ok(())
}
