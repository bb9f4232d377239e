//! The ladder's report: per rung its Elo on the matches' scale (95% interval), its
//! self-play balance (the first player's score with its interval, draws, how games ended,
//! repetitions in particular, the audited adjudication error); as text, JSON, an SVG chart
//! of the score against Elo and one HTML page (`report.txt`, `report.json`, `elo.svg`,
//! `report.html`). Nothing in it depends on timing, so a resumed ladder writes the same bytes.

use std::fmt::Write as _;
use std::path::Path;

use kage_data::svg;
use serde::Serialize;

use super::elo::{self, Link, Point};
use super::{Ladder, write};
use crate::balance::chart::{Frame, score_rows, title, x_tick};
use crate::balance::stats::GroupReport;
use crate::error::{Result, SelfplayError};
use crate::matches::Counts;

/// How the Elo scale is made, in words (in every form of the report).
pub const METHOD: &str = "Elo from matches between adjacent rungs (game pairs, sides swapped; \
    logistic Elo and 95% interval of the pentanomial counts), chained from the first rung (0); \
    the intervals are propagated along the chain (independent matches: variances add)";

/// One rung of the report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RungRow {
    /// Rung name.
    pub name: String,
    /// The player in words.
    pub player: String,
    /// Nodes per move.
    pub nodes: u64,
    /// Its Elo over the first rung (none above a match without games).
    pub elo: Option<Point>,
    /// Self-play games ended by repetition or perpetual check.
    pub repetition_games: u64,
    /// Its self-play balance (the audit attached where there is one).
    pub balance: GroupReport,
}

/// One match between adjacent rungs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MatchRow {
    /// The upper rung (first engine).
    pub upper: String,
    /// The lower rung.
    pub lower: String,
    /// Counts from the upper rung's side.
    pub counts: Counts,
    /// The upper rung's Elo over the lower one.
    pub link: Option<Link>,
}

/// The whole report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    /// Producer.
    pub tool: String,
    /// Variant.
    pub variant: String,
    /// The sides as the variant names them, first player first.
    pub sides: [String; 2],
    /// How the Elo scale is made.
    pub elo_method: String,
    /// The rungs, in ladder order.
    pub rungs: Vec<RungRow>,
    /// The matches, lowest first.
    pub matches: Vec<MatchRow>,
}

fn missing(what: String) -> SelfplayError {
    SelfplayError::Config(crate::ConfigError::LadderIncomplete(what))
}

/// The report of a complete ladder.
pub fn build(l: &Ladder) -> Result<Report> {
    let s = &l.settings;
    let mut matches = Vec::new();
    for k in 0..s.rungs.len() - 1 {
        let counts = l.match_counts(k).ok_or_else(|| missing(l.step_id(super::Step::Match(k))))?;
        matches.push(MatchRow {
            upper: s.rungs[k + 1].name.clone(),
            lower: s.rungs[k].name.clone(),
            counts,
            link: Link::of(&counts),
        });
    }
    let points = elo::chain(&matches.iter().map(|m| m.link).collect::<Vec<_>>());
    let mut rungs = Vec::new();
    for (k, r) in s.rungs.iter().enumerate() {
        let rep = crate::balance::collect(&[l.games_file(k)], Default::default());
        let mut rep = rep.groups.into_iter().next().ok_or_else(|| missing(format!("rung {k}")))?;
        if let Ok(text) = std::fs::read_to_string(l.audit_file(k)) {
            let v: serde_json::Value = serde_json::from_str(&text)
                .map_err(|cause| crate::StudyError::Audit { rung: k, cause })?;
            let mut one = crate::balance::Report {
                tool: String::new(),
                files: 0,
                duplicate_records: 0,
                problems: Vec::new(),
                groups: vec![rep],
            };
            crate::balance::attach_audits(&mut one, &v)?;
            rep = one.groups.remove(0);
        }
        let repetition_games = rep
            .endings
            .iter()
            .filter(|e| e.ending == "repetition" || e.ending == "perpetual_check")
            .map(|e| e.games)
            .sum();
        rungs.push(RungRow {
            name: r.name.clone(),
            player: r.describe(),
            nodes: r.nodes,
            elo: points[k],
            repetition_games,
            balance: rep,
        });
    }
    Ok(Report {
        tool: crate::run::created_by(),
        variant: s.template.variant.clone(),
        sides: rungs[0].balance.info.sides.clone(),
        elo_method: METHOD.into(),
        rungs,
        matches,
    })
}

fn elo_text(p: Option<Point>) -> String {
    match p {
        Some(p) if p.elo95 == 0.0 && p.elo == 0.0 => "0 (anchor)".into(),
        Some(p) => format!("{:+.0} +/- {:.0}", p.elo, p.elo95),
        None => "-".into(),
    }
}

/// `repetition 16 (Gote 16), resign 4 (Sente 3, Gote 1)`: each ending and who won by it.
fn endings_text(g: &GroupReport) -> String {
    let [a, b] = &g.info.sides;
    let one = |e: &crate::balance::stats::Ending| {
        let parts: Vec<String> =
            [(a.as_str(), e.first_wins), ("draw", e.draws), (b, e.second_wins)]
                .iter()
                .filter(|(_, n)| *n > 0)
                .map(|(who, n)| format!("{who} {n}"))
                .collect();
        format!("{} {} ({})", e.ending, e.games, parts.join(", "))
    };
    g.endings.iter().map(one).collect::<Vec<_>>().join(", ")
}

fn audit_short(g: &GroupReport) -> String {
    match (&g.audit, g.info.adjudicated) {
        (Some(a), _) if a.sampled == 0 => "none adjudicated".into(),
        (Some(a), _) => format!(
            "{}/{} wrong ({:.1}%-{:.1}%)",
            a.wrong,
            a.sampled,
            100.0 * a.ci_low,
            100.0 * a.ci_high
        ),
        (None, false) => "none used".into(),
        (None, true) => "not audited".into(),
    }
}

/// The report as text.
pub fn text(r: &Report) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "ladder of {} ({} moves first)", r.variant, r.sides[0]);
    let w = r.rungs.iter().map(|x| x.name.len()).max().unwrap_or(4).max(4);
    let _ = writeln!(
        s,
        "{:<w$}  {:<16} {:>6}  {:<22} {:>6} {:>5}  {:<24} endings",
        "rung", "Elo (95%)", "games", "first player's score", "draws", "rep.", "adj. error (95%)"
    );
    for x in &r.rungs {
        let g = &x.balance;
        let sc = &g.first_player_score;
        let _ = writeln!(
            s,
            "{:<w$}  {:<16} {:>6}  {:<22} {:>5.1}% {:>5}  {:<24} {}",
            x.name,
            elo_text(x.elo),
            g.games,
            format!("{:.3} ({:.3}-{:.3})", sc.score, sc.ci_low, sc.ci_high),
            100.0 * g.draw_rate.fraction,
            x.repetition_games,
            audit_short(g),
            endings_text(g)
        );
    }
    let _ = writeln!(s, "players:");
    for x in &r.rungs {
        let _ = writeln!(s, "  {:<w$}  {}", x.name, x.player);
    }
    let _ = writeln!(s, "matches (upper rung's W/D/L):");
    for m in &r.matches {
        let c = &m.counts;
        let link = m.link.map_or("-".into(), |l| format!("{:+.0} +/- {:.0}", l.elo, l.elo95));
        let _ = writeln!(
            s,
            "  {} vs {}: {}/{}/{}, Elo {link}",
            m.upper, m.lower, c.wins, c.draws, c.losses
        );
    }
    let _ = writeln!(s, "Elo: {}", r.elo_method);
    s
}

/// The first player's score (95% interval, vertical) against each rung's Elo (95% interval,
/// horizontal), rungs joined in ladder order, the even line at 50%.
pub fn chart(r: &Report) -> String {
    let pts: Vec<(&RungRow, Point)> = r.rungs.iter().filter_map(|x| Some((x, x.elo?))).collect();
    let lo = pts.iter().map(|(_, p)| p.elo - p.elo95).fold(0.0f64, f64::min);
    let hi = pts.iter().map(|(_, p)| p.elo + p.elo95).fold(0.0f64, f64::max);
    let pad = ((hi - lo) * 0.08).max(20.0);
    let (lo, hi) = (lo - pad, hi + pad);
    let frame = Frame { left: 60.0, width: 640.0, top: 40.0, height: 320.0 };
    let Frame { left, width, top, height } = frame;
    let mut s = svg::begin(left + width + 30.0, top + height + 50.0, 12);
    title(
        &mut s,
        &format!("{}: {}'s score against strength (95% intervals)", r.variant, r.sides[0]),
    );
    let x = |e: f64| left + width * (e - lo) / (hi - lo);
    let y = |v: f64| frame.score_y(v);
    score_rows(&mut s, frame);
    let step = nice_step(hi - lo);
    let mut t = (lo / step).ceil() * step;
    while t <= hi {
        // `+ 0.0` turns a -0.0 tick (rounded up from a negative start) into 0.
        x_tick(&mut s, frame, x(t), &format!("{:.0}", t + 0.0));
        t += step;
    }
    let axis = "Elo (matches between adjacent rungs, first rung = 0)";
    svg::text(&mut s, left + width / 2.0, top + height + 34.0, r#"text-anchor="middle""#, axis);
    let path: Vec<String> = pts
        .iter()
        .map(|(g, p)| format!("{:.1},{:.1}", x(p.elo), y(g.balance.first_player_score.score)))
        .collect();
    let _ = writeln!(
        s,
        r##"<polyline points="{}" fill="none" stroke="#2980b9" stroke-width="1.5"/>"##,
        path.join(" ")
    );
    for (g, p) in &pts {
        let sc = &g.balance.first_player_score;
        let (px, py) = (x(p.elo), y(sc.score));
        let tip = format!(
            "{} ({}): Elo {}, score {:.3} ({:.3}-{:.3}), {} distinct games",
            g.name,
            g.player,
            elo_text(Some(*p)),
            sc.score,
            sc.ci_low,
            sc.ci_high,
            sc.games
        );
        let _ = writeln!(
            s,
            r##"<g stroke="#2c3e50" stroke-width="1.5"><line x1="{px:.1}" y1="{:.1}" x2="{px:.1}" y2="{:.1}"/><line x1="{:.1}" y1="{py:.1}" x2="{:.1}" y2="{py:.1}"/></g><circle cx="{px:.1}" cy="{py:.1}" r="4.5" fill="#c0392b"><title>{}</title></circle>"##,
            y(sc.ci_low),
            y(sc.ci_high),
            x(p.elo - p.elo95),
            x(p.elo + p.elo95),
            svg::escape(&tip)
        );
        svg::text(&mut s, px + 6.0, py - 8.0, r##"fill="#555""##, &g.name);
    }
    svg::end(s)
}

/// A round tick step for a span of `span` Elo (about 6 to 12 ticks).
fn nice_step(span: f64) -> f64 {
    [10.0, 20.0, 25.0, 50.0, 100.0, 200.0, 250.0, 500.0, 1000.0]
        .into_iter()
        .find(|s| span / s <= 12.0)
        .unwrap_or(2000.0)
}

/// The HTML page.
pub fn html(r: &Report) -> String {
    use svg::escape;
    let mut s = String::new();
    let t = format!("kage ladder: balance of {} against strength", r.variant);
    let _ = write!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{t}</title>\
         <style>{}</style></head><body>\n<h1>{t}</h1>\n<p class=\"small\">{}; {} moves first. \
         The first player's score is over distinct self-play games with a 95% normal interval. \
         {}.</p>\n",
        crate::balance::html::STYLE,
        escape(&r.tool),
        escape(&r.sides[0]),
        escape(&r.elo_method),
        t = escape(&t)
    );
    s.push_str(&chart(r));
    s.push_str(
        "<h2>Rungs</h2>\n<table><tr><th class=\"l\">rung</th><th class=\"l\">player</th>\
         <th>Elo (95%)</th><th>games</th><th>first player's score (95%)</th><th>draws</th>\
         <th>by repetition</th><th class=\"l\">how games ended</th><th>adj. error (95%)</th></tr>\n",
    );
    for x in &r.rungs {
        let g = &x.balance;
        let sc = &g.first_player_score;
        let _ = writeln!(
            s,
            "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td>\
             <td>{:.3} ({:.3}-{:.3})</td><td>{:.1}%</td><td>{}</td><td class=\"l\" style=\"white-space:normal\">{}</td>\
             <td>{}</td></tr>",
            escape(&x.name),
            escape(&x.player),
            escape(&elo_text(x.elo)),
            g.games,
            sc.score,
            sc.ci_low,
            sc.ci_high,
            100.0 * g.draw_rate.fraction,
            x.repetition_games,
            escape(&endings_text(g)),
            escape(&audit_short(g))
        );
    }
    s.push_str(
        "</table>\n<h2>Matches</h2>\n<table><tr><th class=\"l\">upper</th>\
         <th class=\"l\">lower</th><th>W</th><th>D</th><th>L</th><th>pairs LL,LD,DD+WL,WD,WW</th>\
         <th>Elo (95%)</th></tr>\n",
    );
    for m in &r.matches {
        let c = &m.counts;
        let link = m.link.map_or("-".into(), |l| format!("{:+.0} +/- {:.0}", l.elo, l.elo95));
        let penta: Vec<String> = c.penta.iter().map(u64::to_string).collect();
        let _ = writeln!(
            s,
            "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td>\
             <td>{}</td><td>{}</td></tr>",
            escape(&m.upper),
            escape(&m.lower),
            c.wins,
            c.draws,
            c.losses,
            penta.join(","),
            escape(&link)
        );
    }
    s.push_str("</table>\n<h2>How self-play games end</h2>\n");
    let groups: Vec<GroupReport> = r.rungs.iter().map(|x| x.balance.clone()).collect();
    s.push_str(&crate::balance::chart::endings_chart(&groups));
    s.push_str("</body></html>\n");
    s
}

/// Writes `report.txt`, `report.json`, `elo.svg` and `report.html` into `out`.
pub fn write_all(out: &Path, r: &Report) -> Result<()> {
    let json = serde_json::to_string_pretty(r).map_err(SelfplayError::Json)?;
    write(&out.join("report.txt"), &text(r))?;
    write(&out.join("report.json"), &(json + "\n"))?;
    write(&out.join("elo.svg"), &chart(r))?;
    write(&out.join("report.html"), &html(r))
}
