//! Balance reports: game files grouped by variant and by what made the games (player,
//! budget, net, openings, adjudication: [`group`]), and per group the results by side as the
//! variant names them, the first player's score over distinct games with its interval and
//! Elo equivalent, endings with who won by them and game lengths ([`stats`]); as a terminal
//! table ([`text`]), JSON, SVG charts ([`chart`]) and one self-contained HTML page
//! ([`html`]).
//!
//! A file that cannot be read, or a damaged chunk, is reported as a problem and skipped: the
//! report covers everything else.

pub mod chart;
pub mod group;
pub mod html;
pub mod stats;
pub mod text;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use kage_data::{FileHeader, GameRecord, Reader, RecordKind};
use serde::Serialize;

use crate::config::GenConfig;
use crate::error::{Result, SelfplayError};
use group::{GroupInfo, GroupKey};
use stats::{GroupReport, GroupStats};

/// Game files under `paths` and the problems found looking for them: files as given,
/// directories searched (recursively) for `*.kdata` files that hold game records (position
/// files are passed over; a `.kdata` file whose header cannot be read is a problem).
pub fn game_files(paths: &[PathBuf]) -> Result<(Vec<PathBuf>, Vec<String>)> {
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for p in paths {
        if p.is_dir() {
            walk(p, &mut out, &mut problems)?;
        } else {
            out.push(p.clone());
        }
    }
    out.sort();
    out.dedup();
    Ok((out, problems))
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>, problems: &mut Vec<String>) -> Result<()> {
    let entries = std::fs::read_dir(dir).map_err(|e| SelfplayError::io(dir, "list", e))?;
    for e in entries {
        let p = e.map_err(|e| SelfplayError::io(dir, "list", e))?.path();
        if p.is_dir() {
            walk(&p, out, problems)?;
        } else if p.extension().is_some_and(|x| x == "kdata") {
            match FileHeader::read_file(&p) {
                Ok(h) if h.kind() == RecordKind::Game => out.push(p),
                Ok(_) => {}
                Err(e) => problems.push(format!("{}: skipped: {e}", p.display())),
            }
        }
    }
    Ok(())
}

/// Options of a report.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// Plies that make an opening (default: each run's sampled opening plies, or 8 when it
    /// samples none).
    pub opening_plies: Option<u32>,
}

/// Default opening length for runs that sample no opening plies.
pub const DEFAULT_OPENING_PLIES: u32 = 8;

/// The whole report: one entry per group, sorted by variant, then player, net and budget.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    /// Producer.
    pub tool: String,
    /// Files read (some perhaps in part).
    pub files: u64,
    /// Games of one run (config hash) and game index found in more than one file (e.g. shard
    /// files next to their merged file), counted once.
    pub duplicate_records: u64,
    /// Files or chunks that could not be read, skipped.
    pub problems: Vec<String>,
    /// The groups.
    pub groups: Vec<GroupReport>,
}

/// Attaches the audits of an `audit --json` file to the groups of the same variant and
/// settings; returns how many groups got one. A malformed file is an error.
pub fn attach_audits(report: &mut Report, audit: &serde_json::Value) -> Result<usize> {
    let bad = || SelfplayError::Config(crate::ConfigError::NotAnAudit);
    let groups = audit.get("groups").and_then(|g| g.as_array()).ok_or_else(bad)?;
    let mut attached = 0;
    for a in groups {
        let text = |v: &serde_json::Value| v.as_str().map(str::to_owned);
        let variant = a.pointer("/info/variant").and_then(text).ok_or_else(bad)?;
        let hash = a.pointer("/info/settings_hash").and_then(text).ok_or_else(bad)?;
        let num = |p: &str| a.pointer(p).and_then(serde_json::Value::as_u64).ok_or_else(bad);
        let (sampled, wrong) = (num("/all/sampled")?, num("/all/wrong/count")?);
        if wrong > sampled {
            return Err(bad());
        }
        for g in &mut report.groups {
            if g.info.variant == variant && g.info.settings_hash == hash {
                let (ci_low, ci_high) = kage_data::stats::wilson(wrong, sampled);
                let fraction = if sampled == 0 { 0.0 } else { wrong as f64 / sampled as f64 };
                g.audit = Some(stats::AuditSummary { sampled, wrong, fraction, ci_low, ci_high });
                attached += 1;
            }
        }
    }
    Ok(attached)
}

/// Reads `files` into a report. Files or chunks that cannot be read are listed in
/// [`Report::problems`] and skipped; an error only when nothing could be read at all is left
/// to the caller (the report then has no groups).
pub fn collect(files: &[PathBuf], opts: Options) -> Report {
    let mut groups: BTreeMap<GroupKey, (GroupInfo, GroupStats)> = BTreeMap::new();
    let mut described: HashMap<u64, (GroupKey, GroupInfo, Option<u64>)> = HashMap::new();
    let mut seen: HashSet<(u64, u64)> = HashSet::new();
    let mut report = Report {
        tool: crate::run::created_by(),
        files: 0,
        duplicate_records: 0,
        problems: Vec::new(),
        groups: Vec::new(),
    };
    for f in files {
        let mut r = match Reader::<GameRecord>::open(f) {
            Ok(r) => r,
            Err(e) => {
                report.problems.push(format!("{}: skipped: {e}", f.display()));
                continue;
            }
        };
        report.files += 1;
        let run = r.header().config_hash();
        let (key, info, seed) = described
            .entry(run)
            .or_insert_with(|| {
                let (k, i) = group::describe(r.header().variant(), r.header().config());
                let seed = GenConfig::from_toml(r.header().config()).ok().map(|c| c.seed);
                (k, i, seed)
            })
            .clone();
        let plies = opts.opening_plies.unwrap_or(match info.opening_plies {
            0 => DEFAULT_OPENING_PLIES,
            p => p,
        });
        let (_, st) = groups.entry(key).or_insert_with(|| (info, GroupStats::default()));
        st.add_file(run, seed);
        loop {
            match r.next_chunk() {
                Ok(Some(chunk)) => {
                    for g in &chunk {
                        if seen.insert((run, g.game_index)) {
                            st.add(g, plies as usize);
                        } else {
                            report.duplicate_records += 1;
                        }
                    }
                }
                Ok(None) => break,
                Err(e) => {
                    report.problems.push(format!("{}: rest of the file skipped: {e}", f.display()));
                    break;
                }
            }
        }
        for d in r.damage() {
            report.problems.push(format!("{}: damaged data skipped: {d}", f.display()));
        }
    }
    let mut out: Vec<GroupReport> = groups
        .into_values()
        .filter(|(_, st)| st.games() > 0)
        .map(|(info, st)| {
            let plies = opts.opening_plies.unwrap_or(match info.opening_plies {
                0 => DEFAULT_OPENING_PLIES,
                p => p,
            });
            st.report(info, plies)
        })
        .collect();
    out.sort_by(|a, b| {
        let k = |g: &GroupReport| {
            (
                g.info.variant.clone(),
                g.info.player.clone(),
                g.info.net.clone(),
                g.info.nodes.unwrap_or(u64::MAX),
                g.info.budget.clone(),
                g.info.settings_hash.clone(),
            )
        };
        k(a).cmp(&k(b))
    });
    report.groups = out;
    report
}
