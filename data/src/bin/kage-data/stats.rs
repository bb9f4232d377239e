//! `kage-data stats`: counts, result and score histograms per variant.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use kage_data::stats::GameStats;
use kage_data::{FileHeader, GameRecord, PositionFlags, PositionRecord, RecordKind, StmResult};

use crate::common::open;

/// Upper bounds (exclusive) of the score buckets, in centipawns.
const EDGES: [i32; 10] = [-1000, -500, -250, -100, -25, 25, 100, 250, 500, 1000];

#[derive(Default)]
struct ScoreHist {
    buckets: [u64; EDGES.len() + 1],
    n: u64,
    sum: i64,
}

impl ScoreHist {
    fn add(&mut self, s: i16) {
        let s = i32::from(s);
        let i = EDGES.iter().position(|&e| s < e).unwrap_or(EDGES.len());
        self.buckets[i] += 1;
        self.n += 1;
        self.sum += i64::from(s);
    }

    fn print(&self, title: &str) {
        if self.n == 0 {
            return;
        }
        println!("  {title} (n={}, mean {:.1} cp):", self.n, self.sum as f64 / self.n as f64);
        for (i, &c) in self.buckets.iter().enumerate() {
            let label = match i {
                0 => format!("< {}", EDGES[0]),
                i if i == EDGES.len() => format!(">= {}", EDGES[i - 1]),
                i => format!("[{}, {})", EDGES[i - 1], EDGES[i]),
            };
            let pct = 100.0 * c as f64 / self.n as f64;
            println!(
                "    {label:>14} {c:>12} {pct:6.2}% {}",
                "#".repeat((pct / 2.0).round() as usize)
            );
        }
    }
}

#[derive(Default)]
struct VariantStats {
    files: u64,
    damaged: u64,
    errors: u64,
    configs: BTreeMap<u64, String>,
    // positions
    positions: u64,
    stm_results: [u64; 3],
    white_results: [u64; 3],
    flags: [u64; 5],
    ply_sum: u64,
    ply_max: u16,
    scores: ScoreHist,
    games: GameStats,
    /// Games whose index already appeared earlier in the same file.
    duplicate_games: u64,
    game_scores: ScoreHist,
}

fn outcome_idx(o: StmResult) -> usize {
    match o {
        StmResult::Win => 0,
        StmResult::Draw => 1,
        StmResult::Loss => 2,
    }
}

fn pct(n: u64, d: u64) -> f64 {
    if d == 0 { 0.0 } else { 100.0 * n as f64 / d as f64 }
}

pub fn run(files: &[PathBuf]) -> Result<ExitCode> {
    let mut per: BTreeMap<String, VariantStats> = BTreeMap::new();
    let mut failed = false;
    for f in files {
        let h = FileHeader::read_file(f)?;
        let st = per.entry(h.variant().to_owned()).or_default();
        st.files += 1;
        st.configs.insert(h.config_hash(), h.git_revision().to_owned());
        let res = match h.kind() {
            RecordKind::Position => position_file(f, st),
            RecordKind::Game => game_file(f, st),
        };
        if let Err(e) = res {
            eprintln!("kage-data: error: {}: {}", f.display(), crate::common::without_path(f, &e));
            st.errors += 1;
            failed = true;
        }
    }
    for (variant, st) in &per {
        println!(
            "variant {variant}: {} file(s), {} damaged chunk(s), {} unreadable file(s), config hash(es) {}",
            st.files,
            st.damaged,
            st.errors,
            st.configs.keys().map(|h| format!("{h:016x}")).collect::<Vec<_>>().join(", ")
        );
        if st.positions > 0 {
            let n = st.positions;
            println!(
                "  positions: {n} (mean ply {:.1}, max ply {})",
                st.ply_sum as f64 / n as f64,
                st.ply_max
            );
            for (whose, r) in [("side to move", &st.stm_results), ("White", &st.white_results)] {
                let [w, d, l] = r.map(|c| format!("{c} ({:.2}%)", pct(c, n)));
                println!("  results, {whose}: win {w}  draw {d}  loss {l}");
            }
            let names = ["in_check", "capture", "promotion", "drop", "best_noisy"];
            let flags: Vec<String> = names
                .iter()
                .zip(&st.flags)
                .map(|(name, &c)| format!("{name} {c} ({:.2}%)", pct(c, n)))
                .collect();
            println!("  flags: {}", flags.join("  "));
            st.scores.print("scores, side to move");
        }
        if st.games.games > 0 {
            let g = &st.games;
            println!("  games: {} ({} plies)", g.games, g.plies);
            if st.duplicate_games > 0 {
                println!(
                    "  duplicate games: {} (a game index repeated within a file; counted above)",
                    st.duplicate_games
                );
            }
            print!("{}", g.outcome_text());
            st.game_scores.print("per-ply scores, side to move");
        }
    }
    Ok(if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}

fn position_file(f: &std::path::Path, st: &mut VariantStats) -> Result<()> {
    let mut r = open::<PositionRecord>(f)?;
    let res = (|| -> Result<()> {
        while let Some(chunk) = r.next_chunk()? {
            for rec in chunk {
                st.positions += 1;
                st.stm_results[outcome_idx(rec.result)] += 1;
                st.white_results[outcome_idx(rec.white_result())] += 1;
                for (i, bit) in [
                    PositionFlags::IN_CHECK,
                    PositionFlags::CAPTURE,
                    PositionFlags::PROMOTION,
                    PositionFlags::DROP,
                    PositionFlags::BEST_NOISY,
                ]
                .into_iter()
                .enumerate()
                {
                    st.flags[i] += u64::from(rec.flags.has(bit));
                }
                st.ply_sum += u64::from(rec.ply);
                st.ply_max = st.ply_max.max(rec.ply);
                st.scores.add(rec.score);
            }
        }
        Ok(())
    })();
    st.damaged += r.damage().len() as u64;
    res
}

fn game_file(f: &std::path::Path, st: &mut VariantStats) -> Result<()> {
    let mut r = open::<GameRecord>(f)?;
    let mut seen = std::collections::HashSet::new();
    let res = (|| -> Result<()> {
        while let Some(chunk) = r.next_chunk()? {
            for g in chunk {
                st.games.add(&g, 0);
                st.duplicate_games += u64::from(!seen.insert(g.game_index));
                for &s in &g.scores {
                    st.game_scores.add(s);
                }
            }
        }
        Ok(())
    })();
    st.damaged += r.damage().len() as u64;
    res
}
