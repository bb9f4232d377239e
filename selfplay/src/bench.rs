//! Self-play benchmark: the same games (same config, same indices) played with different
//! thread counts, in memory; positions/s, games/s, thread scaling and the share of game
//! time spent outside the search.

use std::fmt::Write as _;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use kage_engine::Variant;
use serde::Serialize;

use crate::config::GenConfig;
use crate::driver::{PlayerFactory, Slot, play_games};
use crate::error::{Result, SelfplayError};

/// One measurement.
#[derive(Clone, Debug, Serialize)]
pub struct BenchRow {
    /// Variant.
    pub variant: String,
    /// Worker threads.
    pub threads: usize,
    /// Games played.
    pub games: u64,
    /// Training positions produced.
    pub positions: u64,
    /// Nodes searched.
    pub nodes: u64,
    /// Wall-clock seconds.
    pub wall_s: f64,
    /// Positions per second.
    pub positions_per_s: f64,
    /// Games per second.
    pub games_per_s: f64,
    /// Nodes per second (all threads).
    pub nodes_per_s: f64,
    /// Time in games outside the search / time in games.
    pub overhead: f64,
    /// Games/s relative to the first thread count of the same variant.
    pub scaling: f64,
}

/// Plays `cfg.games` games of `cfg`'s variant with each thread count in `threads`.
pub fn bench_variant(
    cfg: &GenConfig,
    threads: &[usize],
    factory: &PlayerFactory,
) -> Result<Vec<BenchRow>> {
    let variant: &'static Variant = Variant::by_name(&cfg.variant)
        .map_err(|e| SelfplayError::Config(format!("variant {:?}: {e}", cfg.variant)))?;
    let slots: Vec<Slot> = (0..cfg.games).map(|g| Slot { game: g, group: g }).collect();
    let stop = AtomicBool::new(false);
    let mut rows: Vec<BenchRow> = Vec::new();
    for &t in threads {
        let (mut positions, mut nodes, mut search_ns, mut game_ns) = (0u64, 0u64, 0u64, 0u64);
        let start = Instant::now();
        play_games(cfg, variant, &slots, t, factory, &stop, &mut |_, out| {
            positions += out.positions.len() as u64;
            nodes += out.nodes;
            search_ns += out.search_ns;
            game_ns += out.total_ns;
            Ok(())
        })?;
        let wall_s = start.elapsed().as_secs_f64().max(1e-9);
        let games_per_s = cfg.games as f64 / wall_s;
        let scaling = rows.first().map_or(1.0, |r| games_per_s / r.games_per_s);
        rows.push(BenchRow {
            variant: cfg.variant.clone(),
            threads: t,
            games: cfg.games,
            positions,
            nodes,
            wall_s,
            positions_per_s: positions as f64 / wall_s,
            games_per_s,
            nodes_per_s: nodes as f64 / wall_s,
            overhead: if game_ns > 0 { 1.0 - search_ns as f64 / game_ns as f64 } else { 0.0 },
            scaling,
        });
    }
    Ok(rows)
}

/// A Markdown table of the rows.
pub fn table(rows: &[BenchRow]) -> String {
    let mut s = String::from(
        "| variant | threads | games | positions | wall s | positions/s | games/s | Mnodes/s | scaling | outside search |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in rows {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {:.2} | {:.0} | {:.2} | {:.2} | {:.2}x | {:.2}% |",
            r.variant,
            r.threads,
            r.games,
            r.positions,
            r.wall_s,
            r.positions_per_s,
            r.games_per_s,
            r.nodes_per_s / 1e6,
            r.scaling,
            100.0 * r.overhead
        );
    }
    s
}
