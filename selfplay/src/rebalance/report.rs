//! The ranked report of a rebalance search: `report.txt`, `report.json`, `report.html`
//! (the balance report's page style and score charts). It holds no times or absolute paths,
//! so an interrupted and resumed search writes the same bytes as an uninterrupted one.

use std::fmt::Write as _;
use std::path::Path;

use kage_data::svg::escape;
use serde::Serialize;

use super::{Resolved, Search, State, Step};
use crate::balance::stats::{AuditSummary, GroupReport};
use crate::config::{Budget, PlayerKind};
use crate::error::Result;

/// One strength level's measurement of a candidate.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Level {
    /// Budget in words.
    pub budget: String,
    /// Games played.
    pub games: u64,
    /// Distinct games (the same moves count once): the score is over these.
    pub distinct_games: u64,
    /// The first side's (White's, `sides[0]`) score over distinct games.
    pub score: f64,
    /// 95% interval, low.
    pub ci_low: f64,
    /// 95% interval, high.
    pub ci_high: f64,
    /// `|score - 0.5|`.
    pub distance: f64,
    /// The audited adjudication error, when audited.
    pub audit: Option<AuditSummary>,
}

/// One candidate's row.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    /// Rank (1: closest to 0.50 among those measured longest).
    pub rank: usize,
    /// Candidate name.
    pub candidate: String,
    /// The change in words.
    pub change: String,
    /// Its note.
    pub note: Option<String>,
    /// Variant name.
    pub variant: String,
    /// Names of the sides (the score is the first's).
    pub sides: [String; 2],
    /// `measured`, `eliminated after round K` or `invalid spec`.
    pub status: String,
    /// Rounds played.
    pub rounds: usize,
    /// Who played.
    pub player: String,
    /// Per level, weakest first (empty for an invalid spec).
    pub levels: Vec<Level>,
    /// Why the spec is invalid.
    pub error: Option<String>,
    /// Distance from 0.50 at the strongest level (ranking key).
    pub distance: Option<f64>,
}

/// The report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    /// Producer.
    pub tool: String,
    /// Base variant.
    pub base: String,
    /// Levels in words.
    pub levels: Vec<String>,
    /// Candidates per round.
    pub rounds: Vec<Vec<String>>,
    /// Games of all rounds.
    pub games: u64,
    /// Ranked rows.
    pub rows: Vec<Row>,
    /// The balance groups behind the rows (for the charts).
    #[serde(skip)]
    pub groups: Vec<Vec<GroupReport>>,
}

fn budget_words(b: Budget, player: PlayerKind) -> String {
    match (player, b) {
        (PlayerKind::Greedy, _) => "greedy".into(),
        (_, Budget::Nodes(n)) => format!("{n} nodes"),
        (_, Budget::Depth(d)) => format!("depth {d}"),
    }
}

/// Builds the report of a finished search.
pub fn build(s: &Search, res: &[Resolved], state: &State) -> Result<Report> {
    let st = &s.settings;
    let levels: Vec<String> =
        st.levels.iter().map(|&b| budget_words(b, st.template.player)).collect();
    let last_round = state.rounds.len();
    let mut rows = Vec::new();
    let mut groups = vec![Vec::new(); st.levels.len()];
    for (i, r) in res.iter().enumerate() {
        let played = state.rounds.iter().filter(|names| names.contains(&r.cand.name)).count();
        let mut row = Row {
            rank: 0,
            candidate: r.cand.name.clone(),
            change: r.cand.describe(),
            note: r.cand.note.clone(),
            variant: r.variant.clone(),
            sides: ["White".into(), "Black".into()],
            status: if played == last_round {
                "measured".into()
            } else {
                format!("eliminated after round {}", played.saturating_sub(1))
            },
            rounds: played,
            player: String::new(),
            levels: Vec::new(),
            error: r.spec.as_ref().err().cloned(),
            distance: None,
        };
        if row.error.is_some() || played == 0 {
            row.status = "invalid spec".into();
            rows.push(row);
            continue;
        }
        for (l, budget) in levels.iter().enumerate() {
            let Some(mut g) = s.measure(res, i, played as u32 - 1, l) else { continue };
            attach_audit(s, i, l, &mut g)?;
            row.sides = g.info.sides.clone();
            row.player = player_words(&g);
            let sc = &g.first_player_score;
            row.levels.push(Level {
                budget: budget.clone(),
                games: g.games,
                distinct_games: g.distinct_games,
                score: sc.score,
                ci_low: sc.ci_low,
                ci_high: sc.ci_high,
                distance: (sc.score - 0.5).abs(),
                audit: g.audit.clone(),
            });
            groups[l].push(g);
        }
        row.distance = row.levels.last().map(|l| l.distance);
        rows.push(row);
    }
    rank(&mut rows);
    Ok(Report {
        tool: crate::run::created_by(),
        base: st.base.clone(),
        levels,
        rounds: state.rounds.clone(),
        games: state.games_planned,
        rows,
        groups,
    })
}

fn player_words(g: &GroupReport) -> String {
    match g.info.player.as_str() {
        "greedy" => "greedy".into(),
        _ if g.info.net == "hce" => "search, hand-crafted evaluation".into(),
        _ => format!("search, net {}", g.info.net),
    }
}

fn attach_audit(s: &Search, cand: usize, level: usize, g: &mut GroupReport) -> Result<()> {
    let path = s.out.join(s.step_id(&Step::Audit { cand, level })).with_extension("json");
    let Ok(text) = std::fs::read_to_string(&path) else { return Ok(()) };
    let v: serde_json::Value = serde_json::from_str(&text)
        .map_err(|cause| crate::error::SelfplayError::DamagedJson { path: path.clone(), cause })?;
    let mut one = crate::balance::Report {
        tool: String::new(),
        files: 0,
        duplicate_records: 0,
        problems: Vec::new(),
        groups: vec![g.clone()],
    };
    crate::balance::attach_audits(&mut one, &v)?;
    *g = one.groups.remove(0);
    Ok(())
}

/// Ranks rows: the longest measured first, each set by distance from 0.50, then by name;
/// invalid specs last.
pub fn rank(rows: &mut [Row]) {
    rows.sort_by(|a, b| {
        let key = |r: &Row| (r.distance.is_none(), std::cmp::Reverse(r.rounds));
        key(a)
            .cmp(&key(b))
            .then(a.distance.unwrap_or(0.0).total_cmp(&b.distance.unwrap_or(0.0)))
            .then(a.candidate.cmp(&b.candidate))
    });
    for (i, r) in rows.iter_mut().enumerate() {
        r.rank = i + 1;
    }
}

fn audit_words(a: &Option<AuditSummary>) -> String {
    match a {
        Some(a) => format!(
            "{}/{} {:.1}% ({:.1}-{:.1}%)",
            a.wrong,
            a.sampled,
            100.0 * a.fraction,
            100.0 * a.ci_low,
            100.0 * a.ci_high
        ),
        None => "not audited".into(),
    }
}

/// The report as a terminal table.
pub fn text(r: &Report) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "rebalance of {}: {} candidates, {} rounds, {} games; levels {}",
        r.base,
        r.rows.len(),
        r.rounds.len(),
        r.games,
        r.levels.join(", ")
    );
    let w = r.rows.iter().map(|x| x.candidate.len()).max().unwrap_or(9).max(9);
    for row in &r.rows {
        let _ =
            writeln!(s, "{:>3}. {:<w$}  {}  [{}]", row.rank, row.candidate, row.change, row.status);
        if let Some(e) = &row.error {
            let _ = writeln!(s, "       {e}");
        } else {
            let _ = writeln!(s, "       player: {}", row.player);
        }
        for l in &row.levels {
            let _ = writeln!(
                s,
                "       {:<12} {}'s score {:.3} ({:.3}-{:.3}) over {} games ({} distinct), \
                 |s-0.5| {:.3}, adjudication error {}",
                l.budget,
                row.sides[0],
                l.score,
                l.ci_low,
                l.ci_high,
                l.games,
                l.distinct_games,
                l.distance,
                audit_words(&l.audit)
            );
        }
    }
    s
}

/// The report as one HTML page.
pub fn html(r: &Report) -> String {
    let mut s = String::new();
    let t = escape(&format!("kage rebalance of {}", r.base));
    let _ = writeln!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{t}</title>\
         <style>{}</style></head><body>\n<h1>{t}</h1>\n<p class=\"small\">{}: {} rounds of \
         successive halving, {} games; the first side's score over distinct games with a 95% \
         interval; ranked by distance from 0.50 at the strongest level.</p>",
        crate::balance::html::STYLE,
        escape(&r.tool),
        r.rounds.len(),
        r.games
    );
    s.push_str("<table><tr><th>#</th><th class=\"l\">candidate</th><th class=\"l\">change</th>");
    for l in &r.levels {
        let _ = write!(
            s,
            "<th>{0}: score (95%)</th><th>{0}: games</th><th>{0}: adj. error</th>",
            escape(l)
        );
    }
    s.push_str("<th class=\"l\">status</th></tr>\n");
    for row in &r.rows {
        let _ = write!(
            s,
            "<tr><td>{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td>",
            row.rank,
            escape(&row.candidate),
            escape(&row.change)
        );
        for (i, _) in r.levels.iter().enumerate() {
            match row.levels.get(i) {
                Some(l) => {
                    let _ = write!(
                        s,
                        "<td>{:.3} ({:.3}-{:.3})</td><td>{}</td><td>{}</td>",
                        l.score,
                        l.ci_low,
                        l.ci_high,
                        l.games,
                        escape(&audit_words(&l.audit))
                    );
                }
                None => s.push_str("<td></td><td></td><td></td>"),
            }
        }
        let status = match &row.error {
            Some(e) => format!("{}: {e}", row.status),
            None => row.status.clone(),
        };
        let _ = writeln!(s, "<td class=\"l\">{}</td></tr>", escape(&status));
    }
    s.push_str("</table>\n");
    for (l, groups) in r.levels.iter().zip(&r.groups) {
        if !groups.is_empty() {
            let _ = writeln!(s, "<h2>{}</h2>", escape(l));
            s.push_str(&crate::balance::chart::score_chart(groups));
        }
    }
    s.push_str("</body></html>\n");
    s
}

/// Writes `report.txt`, `report.json` and `report.html` into `out`.
pub fn write(out: &Path, r: &Report) -> Result<()> {
    let json = serde_json::to_string_pretty(r).map_err(crate::error::SelfplayError::Json)?;
    super::write(&out.join("report.txt"), &text(r))?;
    super::write(&out.join("report.json"), &(json + "\n"))?;
    super::write(&out.join("report.html"), &html(r))
}
