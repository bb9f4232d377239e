//! `kage-data validate`: every record decodes, is legal and round-trips through FEN.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;
use kage_data::{
    CompactPosition, FileHeader, GameRecord, PositionFlags, PositionRecord, RecordKind,
    position_flags,
};
use kage_engine::{Move, Position, Variant};
use rayon::prelude::*;

use crate::common::{open, variant_of};

/// Problems found in one file.
#[derive(Default)]
struct Report {
    records: u64,
    invalid: u64,
    shown: Vec<String>,
}

impl Report {
    fn add(&mut self, index: u64, problem: String, max: usize) {
        self.invalid += 1;
        if self.shown.len() < max {
            self.shown.push(format!("record {index}: {problem}"));
        }
    }
}

pub fn run(files: &[PathBuf], max_errors: usize) -> Result<ExitCode> {
    let mut ok = true;
    for f in files {
        match check_file(f, max_errors) {
            Ok((report, damage)) => {
                for s in &report.shown {
                    println!("{}: {s}", f.display());
                }
                let good = report.invalid == 0 && damage == 0;
                println!(
                    "{}: {} {} records, {} invalid, {} damaged chunk(s)",
                    f.display(),
                    if good { "OK" } else { "FAILED" },
                    report.records,
                    report.invalid,
                    damage
                );
                ok &= good;
            }
            Err(e) => {
                println!("{}: FAILED {}", f.display(), crate::common::without_path(f, &e));
                ok = false;
            }
        }
    }
    Ok(if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

fn check_file(f: &Path, max: usize) -> Result<(Report, usize)> {
    let h = FileHeader::read_file(f)?;
    let v = variant_of(&h)?;
    let mut report = Report::default();
    let damage = match h.kind() {
        RecordKind::Position => {
            let mut r = open::<PositionRecord>(f)?;
            while let Some(chunk) = r.next_chunk()? {
                let base = report.records;
                let problems: Vec<(u64, String)> = chunk
                    .par_iter()
                    .enumerate()
                    .filter_map(|(i, rec)| {
                        check_position(v, rec).err().map(|e| (base + i as u64, e))
                    })
                    .collect();
                report.records += chunk.len() as u64;
                for (i, p) in problems {
                    report.add(i, p, max);
                }
            }
            r.damage().len()
        }
        RecordKind::Game => {
            let mut r = open::<GameRecord>(f)?;
            // A game index appears once per file (self-play numbers games uniquely).
            let mut seen = std::collections::HashMap::new();
            while let Some(chunk) = r.next_chunk()? {
                let base = report.records;
                for (i, g) in chunk.iter().enumerate() {
                    if let Some(first) = seen.insert(g.game_index, base + i as u64) {
                        report.add(
                            base + i as u64,
                            format!(
                                "game index {} repeats record {first} (a duplicated game)",
                                g.game_index
                            ),
                            max,
                        );
                    }
                }
                let problems: Vec<(u64, String)> = chunk
                    .par_iter()
                    .enumerate()
                    .filter_map(|(i, g)| {
                        check_game(v, h.variant(), g).err().map(|e| (base + i as u64, e))
                    })
                    .collect();
                report.records += chunk.len() as u64;
                for (i, p) in problems {
                    report.add(i, p, max);
                }
            }
            r.damage().len()
        }
    };
    Ok((report, damage))
}

/// Decodes (the engine's FEN parser rejects positions where the side not to
/// move is in check), round-trips through FEN, and checks the move and flags.
fn check_position(v: &'static Variant, rec: &PositionRecord) -> Result<(), String> {
    let pos = rec.pos.to_position(v).map_err(|e| e.to_string())?;
    let fen = pos.to_fen();
    let again =
        Position::from_fen(v, &fen).map_err(|e| format!("FEN {fen} does not parse back: {e}"))?;
    let packed = CompactPosition::from_position(&again).map_err(|e| e.to_string())?;
    if packed != rec.pos || again != pos {
        return Err(format!("FEN round trip changes the position: {fen}"));
    }
    let played = rec.played();
    if let Some(m) = played
        && !pos.legal_moves().contains(m)
    {
        return Err(format!("move {:#06x} is not legal in {fen}", m.0));
    }
    let expect = position_flags(&pos, played, None);
    let mask = PositionFlags::ALL & !PositionFlags::BEST_NOISY;
    if rec.flags.bits() & mask != expect.bits() & mask {
        return Err(format!(
            "flags {:#04x} disagree with the position and move (expected {:#04x}) in {fen}",
            rec.flags.bits() & mask,
            expect.bits()
        ));
    }
    Ok(())
}

/// Replays the game: start FEN parses, every move is legal, scores fit.
fn check_game(v: &'static Variant, variant: &str, g: &GameRecord) -> Result<(), String> {
    if g.variant != variant {
        return Err(format!(
            "game {} is for variant {:?}, file for {variant:?}",
            g.game_index, g.variant
        ));
    }
    if !g.scores.is_empty() && g.scores.len() != g.moves.len() {
        return Err(format!(
            "game {}: {} scores for {} moves",
            g.game_index,
            g.scores.len(),
            g.moves.len()
        ));
    }
    let mut pos = Position::from_fen(v, &g.start_fen)
        .map_err(|e| format!("game {}: start FEN {:?}: {e}", g.game_index, g.start_fen))?;
    for (ply, &m) in g.moves.iter().enumerate() {
        let m = Move(m);
        if !pos.legal_moves().contains(m) {
            return Err(format!(
                "game {}: move {ply} ({:#06x}) is illegal in {}",
                g.game_index,
                m.0,
                pos.to_fen()
            ));
        }
        pos.play(m);
    }
    Ok(())
}
