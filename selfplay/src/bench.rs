//! Self-play benchmark: the same games (same config, same indices) played with different
//! thread counts, in memory; positions/s, games/s, thread scaling and the share of game
//! time spent outside the search.

use std::fmt::Write as _;
use std::sync::atomic::AtomicBool;

use kage_engine::Variant;
use kage_engine::util::cpu_time::Stopwatch;
use serde::Serialize;

use crate::config::GenConfig;
use crate::driver::{PlayerFactory, Slot, play_games};
use crate::error::Result;

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
    /// CPU seconds of the process (user + system, from `/proc/self/stat`; 0 if unknown).
    pub cpu_s: f64,
    /// Positions per CPU second: how much work a core does, whatever else the machine runs.
    pub positions_per_cpu_s: f64,
}

/// Plays `cfg.games` games of `cfg`'s variant with each thread count in `threads`.
pub fn bench_variant(
    cfg: &GenConfig,
    threads: &[usize],
    factory: &PlayerFactory,
) -> Result<Vec<BenchRow>> {
    let variant: &'static Variant = cfg.variant_def()?;
    let slots: Vec<Slot> = (0..cfg.games).map(|g| Slot { game: g, group: g }).collect();
    let stop = AtomicBool::new(false);
    let mut rows: Vec<BenchRow> = Vec::new();
    for &t in threads {
        let (mut positions, mut nodes, mut search_ns, mut game_ns) = (0u64, 0u64, 0u64, 0u64);
        let watch = Stopwatch::process();
        play_games(cfg, variant, &slots, t, factory, &stop, &mut |_, out| {
            positions += out.positions.len() as u64;
            nodes += out.nodes;
            search_ns += out.search_ns;
            game_ns += out.total_ns;
            Ok(())
        })?;
        let wall_s = watch.wall_seconds().max(1e-9);
        let cpu_s = watch.cpu_seconds().unwrap_or(0.0);
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
            cpu_s,
            positions_per_cpu_s: if cpu_s > 0.0 { positions as f64 / cpu_s } else { 0.0 },
        });
    }
    Ok(rows)
}

/// A Markdown table of the rows.
pub fn table(rows: &[BenchRow]) -> String {
    let mut s = String::from(
        "| variant | threads | games | positions | wall s | CPU s | positions/s | games/s | \
         Mnodes/s | scaling | positions/CPU-s | outside search |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in rows {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {:.2} | {:.2} | {:.0} | {:.2} | {:.2} | {:.2}x | {:.0} | {:.2}% |",
            r.variant,
            r.threads,
            r.games,
            r.positions,
            r.wall_s,
            r.cpu_s,
            r.positions_per_s,
            r.games_per_s,
            r.nodes_per_s / 1e6,
            r.scaling,
            r.positions_per_cpu_s,
            100.0 * r.overhead
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Budget, PlayerKind};

    #[test]
    fn same_work_with_every_thread_count() {
        let mut c = GenConfig::new("shinobi", 4, 5, Budget::Nodes(1));
        c.player = PlayerKind::Greedy;
        let f = crate::player::factory_for(&c).unwrap();
        let rows = bench_variant(&c, &[1, 2], &f).unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].positions, rows[1].positions);
        assert_eq!(rows[0].nodes, rows[1].nodes);
        assert!(rows.iter().all(|r| (0.0..=1.0).contains(&r.overhead)));
        assert!(table(&rows).lines().count() == 4);
        if cfg!(target_os = "linux") {
            assert!(kage_engine::util::cpu_time::process_cpu_seconds().is_some());
        }
    }
}
