//! Balance report: per variant, how often White wins, draws and Black wins (with 95%
//! Wilson intervals), how games end and how long they are; as text and as an SVG chart.

use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use kage_data::{FileHeader, GameRecord, Reader, RecordKind};

use crate::error::{Result, SelfplayError};
use kage_data::stats::GameStats;
use kage_data::svg;

/// Game files under `paths`: files as given, directories searched (recursively) for
/// `*.kdata` files that hold game records.
pub fn game_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            walk(p, &mut out)?;
        } else {
            out.push(p.clone());
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let entries = std::fs::read_dir(dir).map_err(|e| SelfplayError::io(dir, "list", e))?;
    for e in entries {
        let p = e.map_err(|e| SelfplayError::io(dir, "list", e))?.path();
        if p.is_dir() {
            walk(&p, out)?;
        } else if p.extension().is_some_and(|x| x == "kdata")
            && FileHeader::read_file(&p).is_ok_and(|h| h.kind() == RecordKind::Game)
        {
            out.push(p);
        }
    }
    Ok(())
}

/// Statistics per variant of the games in `files` (positions are not counted), and the
/// number of duplicate games skipped: a game of the same run (config hash) and game index
/// counts once, so shard files next to their merged file are not counted twice.
/// Damaged chunks are skipped with a warning on stderr.
pub fn collect(files: &[PathBuf]) -> Result<(BTreeMap<String, GameStats>, u64)> {
    let mut by_variant: BTreeMap<String, GameStats> = BTreeMap::new();
    let mut seen: HashSet<(u64, u64)> = HashSet::new();
    let mut duplicates = 0;
    for f in files {
        let mut r = Reader::<GameRecord>::open(f)?
            .on_damage(|d| eprintln!("kage-selfplay: warning: skipping damaged data: {d}"));
        let run = r.header().config_hash();
        let st = by_variant.entry(r.header().variant().to_owned()).or_default();
        while let Some(chunk) = r.next_chunk()? {
            for g in &chunk {
                if seen.insert((run, g.game_index)) {
                    st.add(g, 0);
                } else {
                    duplicates += 1;
                }
            }
        }
    }
    Ok((by_variant, duplicates))
}

/// The text report.
pub fn text(stats: &BTreeMap<String, GameStats>) -> String {
    let mut s = String::new();
    for (v, st) in stats {
        let _ = writeln!(s, "{v}");
        s.push_str(&st.text());
    }
    s
}

/// The JSON report.
pub fn json(stats: &BTreeMap<String, GameStats>) -> serde_json::Value {
    let m: serde_json::Map<String, serde_json::Value> = stats
        .iter()
        .map(|(v, st)| (v.clone(), serde_json::to_value(st.report()).expect("serialises")))
        .collect();
    serde_json::Value::Object(m)
}

/// A hand-written SVG: one stacked bar per variant (White wins, draws, Black wins) with the
/// 95% interval of the White and Black win rates as whiskers.
pub fn svg(stats: &BTreeMap<String, GameStats>) -> String {
    let (left, width, row, top) = (200.0, 520.0, 46.0, 50.0);
    let height = top + row * stats.len() as f64 + 50.0;
    let mut s = svg::begin(left + width + 40.0, height, 13);
    svg::text(
        &mut s,
        left,
        22.0,
        r#"font-size="15" font-weight="bold""#,
        "Self-play results by side (95% Wilson intervals)",
    );
    let colors = [("White wins", "#f0e6c8"), ("Draws", "#9aa5b1"), ("Black wins", "#2f3640")];
    for (i, (name, c)) in colors.iter().enumerate() {
        let x = left + i as f64 * 140.0;
        let _ = writeln!(
            s,
            r#"<rect x="{x}" y="30" width="12" height="12" fill="{c}" stroke="black"/><text x="{}" y="41">{name}</text>"#,
            x + 16.0
        );
    }
    for (k, (v, st)) in stats.iter().enumerate() {
        let y = top + row * k as f64;
        let r = st.report();
        let label = format!("{v} ({} games)", r.games);
        svg::text(&mut s, left - 8.0, y + 18.0, r#"text-anchor="end""#, &label);
        let mut x = left;
        for (share, (_, c)) in [&r.white_wins, &r.draws, &r.black_wins].iter().zip(colors) {
            let w = width * share.fraction;
            let _ = writeln!(
                s,
                r#"<rect x="{x:.1}" y="{y:.1}" width="{w:.1}" height="26" fill="{c}" stroke="black" stroke-width="0.5"><title>{:.1}%</title></rect>"#,
                100.0 * share.fraction
            );
            x += w;
        }
        // Whiskers: White's win rate from the left edge, Black's from the right edge.
        let whisker = |s: &mut String, a: f64, b: f64, yy: f64| {
            let _ = writeln!(
                s,
                r##"<line x1="{a:.1}" y1="{yy:.1}" x2="{b:.1}" y2="{yy:.1}" stroke="#c0392b" stroke-width="2"/><line x1="{a:.1}" y1="{:.1}" x2="{a:.1}" y2="{:.1}" stroke="#c0392b" stroke-width="2"/><line x1="{b:.1}" y1="{:.1}" x2="{b:.1}" y2="{:.1}" stroke="#c0392b" stroke-width="2"/>"##,
                yy - 4.0,
                yy + 4.0,
                yy - 4.0,
                yy + 4.0
            );
        };
        whisker(
            &mut s,
            left + width * r.white_wins.ci_low,
            left + width * r.white_wins.ci_high,
            y + 8.0,
        );
        whisker(
            &mut s,
            left + width * (1.0 - r.black_wins.ci_high),
            left + width * (1.0 - r.black_wins.ci_low),
            y + 18.0,
        );
    }
    let axis_y = top + row * stats.len() as f64 + 4.0;
    for t in 0..=4 {
        let x = left + width * f64::from(t) / 4.0;
        let _ = writeln!(
            s,
            r##"<line x1="{x}" y1="{}" x2="{x}" y2="{axis_y}" stroke="#ccc"/><text x="{x}" y="{}" text-anchor="middle">{}%</text>"##,
            top - 4.0,
            axis_y + 16.0,
            t * 25
        );
    }
    svg::end(s)
}
