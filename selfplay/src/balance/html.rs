//! The balance report as one self-contained HTML page: no scripts, no network, charts as
//! inline SVG.

use std::fmt::Write as _;

use kage_data::svg::escape;

use super::Report;
use super::chart;
use super::stats::GroupReport;
use super::text::short_label;

pub(crate) const STYLE: &str = "body{font-family:sans-serif;margin:24px;color:#222;max-width:1320px}\
table{border-collapse:collapse;margin:8px 0 16px;font-size:14px}td,th{border:1px solid #ccc;padding:3px 8px;\
text-align:right;white-space:nowrap}th{background:#f3f3f3}td.l,th.l{text-align:left}h2{margin-top:32px}\
.small{color:#666;font-size:90%}.warn{color:#a00}";

fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

/// The page.
pub fn render(r: &Report, title: &str) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{t}</title>\
         <style>{STYLE}</style></head><body>\n<h1>{t}</h1>\n<p class=\"small\">{} from {} \
         file(s); the first player's score is over distinct games (the same moves count \
         once), with a 95% normal interval.</p>\n",
        escape(&r.tool),
        r.files,
        t = escape(title)
    );
    if !r.problems.is_empty() {
        let _ = writeln!(s, "<p class=\"warn\">Skipped while reading:</p><ul class=\"warn\">");
        for p in &r.problems {
            let _ = writeln!(s, "<li>{}</li>", escape(p));
        }
        s.push_str("</ul>\n");
    }
    summary(&mut s, &r.groups);
    s.push_str("<h2>First player's score</h2>\n");
    s.push_str(&chart::score_chart(&r.groups));
    if let Some(c) = chart::budget_chart(&r.groups) {
        s.push_str("<h2>By node budget</h2>\n");
        s.push_str(&c);
    }
    s.push_str("<h2>Endings</h2>\n");
    s.push_str(&chart::endings_chart(&r.groups));
    for (i, g) in r.groups.iter().enumerate() {
        group(&mut s, i + 1, g);
    }
    s.push_str("</body></html>\n");
    s
}

fn summary(s: &mut String, groups: &[GroupReport]) {
    s.push_str(
        "<table><tr><th class=\"l\">#</th><th class=\"l\">group</th><th>games</th>\
         <th>distinct</th><th>openings</th><th class=\"l\">first player</th><th>score (95%)</th>\
         <th>Elo (95%)</th><th>draws</th><th>adj. error (95%)</th></tr>\n",
    );
    for (i, g) in groups.iter().enumerate() {
        let sc = &g.first_player_score;
        let _ = writeln!(
            s,
            "<tr><td class=\"l\"><a href=\"#g{n}\">{n}</a></td><td class=\"l\">{}</td><td>{}</td>\
             <td>{}</td><td>{}</td><td class=\"l\">{}</td><td>{:.3} ({:.3}-{:.3})</td>\
             <td>{:+.0} ({:+.0}..{:+.0})</td><td>{}</td><td>{}</td></tr>",
            escape(&short_label(g)),
            g.games,
            g.distinct_games,
            g.distinct_openings,
            escape(&g.info.sides[0]),
            sc.score,
            sc.ci_low,
            sc.ci_high,
            sc.elo,
            sc.elo_low,
            sc.elo_high,
            pct(g.draw_rate.fraction),
            match (&g.audit, g.info.adjudicated) {
                (Some(a), _) =>
                    format!("{} ({}-{})", pct(a.fraction), pct(a.ci_low), pct(a.ci_high)),
                (None, false) => "none used".to_owned(),
                (None, true) => "not audited".to_owned(),
            },
            n = i + 1
        );
    }
    s.push_str("</table>\n");
}

fn group(s: &mut String, n: usize, g: &GroupReport) {
    let i = &g.info;
    let [a, b] = &i.sides;
    let user = if i.user_variant { " (user variant)" } else { "" };
    let _ = writeln!(
        s,
        "<h2 id=\"g{n}\">{n}. {}{user}</h2>\n<p>{}</p>\n<p class=\"small\">settings {}, runs {}, \
         seeds {:?}, {} file(s); openings: {}; adjudication: {}</p>",
        escape(&short_label(g)),
        escape(&i.label),
        escape(&i.settings_hash),
        g.runs.len(),
        g.seeds,
        g.files,
        escape(&i.openings),
        escape(&i.adjudication)
    );
    let _ = writeln!(
        s,
        "<p>{} games, {} distinct, {} distinct openings (first {} plies). Adjudication audit: \
         {}.</p>",
        g.games,
        g.distinct_games,
        g.distinct_openings,
        g.opening_plies,
        escape(&super::text::audit_text(g))
    );
    s.push_str("<table><tr><th class=\"l\">result</th><th>games</th><th>share (95%)</th></tr>\n");
    for (name, sh) in g.results.named(&i.sides) {
        let _ = writeln!(
            s,
            "<tr><td class=\"l\">{}</td><td>{}</td><td>{} ({}-{})</td></tr>",
            escape(&name),
            sh.count,
            pct(sh.fraction),
            pct(sh.ci_low),
            pct(sh.ci_high)
        );
    }
    s.push_str("</table>\n");
    let _ = writeln!(
        s,
        "<table><tr><th class=\"l\">ending</th><th>games</th><th>{} wins</th><th>draws</th>\
         <th>{} wins</th></tr>",
        escape(a),
        escape(b)
    );
    for e in &g.endings {
        let _ = writeln!(
            s,
            "<tr><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&e.ending),
            e.games,
            e.first_wins,
            e.draws,
            e.second_wins
        );
    }
    s.push_str("</table>\n");
    s.push_str(&chart::length_histogram(g));
}
