//! The terminal form of a balance report: a summary table, then each group in detail.

use std::fmt::Write as _;

use super::Report;
use super::stats::GroupReport;

fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

fn elo(x: f64) -> String {
    format!("{x:+.0}")
}

/// The short name of a group in tables: variant, player, budget and net.
pub fn short_label(g: &GroupReport) -> String {
    let i = &g.info;
    let budget = i.budget.clone().unwrap_or_else(|| "?".into());
    let net = if i.net == "hce" { "hce".to_owned() } else { i.net.clone() };
    let user = if i.user_variant { " (user variant)" } else { "" };
    format!("{}{user} {} {} {}", i.variant, i.player, budget, net)
}

/// The whole report as text.
pub fn render(r: &Report) -> String {
    let mut s = String::new();
    let w = r.groups.iter().map(|g| short_label(g).len()).max().unwrap_or(0).max(5);
    let _ = writeln!(
        s,
        "{:<w$} {:>8} {:>8}  {:<22} {:<22} {:>6}",
        "group", "games", "distinct", "first player's score", "Elo (95%)", "draws"
    );
    for g in &r.groups {
        let sc = &g.first_player_score;
        let _ = writeln!(
            s,
            "{:<w$} {:>8} {:>8}  {:<22} {:<22} {:>6}",
            short_label(g),
            g.games,
            g.distinct_games,
            format!("{:.3} ({:.3}-{:.3})", sc.score, sc.ci_low, sc.ci_high),
            format!("{} ({}..{})", elo(sc.elo), elo(sc.elo_low), elo(sc.elo_high)),
            pct(g.draw_rate.fraction),
        );
    }
    for g in &r.groups {
        s.push('\n');
        s.push_str(&group(g));
    }
    if r.duplicate_records > 0 {
        let _ = writeln!(
            s,
            "\n({} game records found twice, same run and game index, counted once)",
            r.duplicate_records
        );
    }
    if !r.problems.is_empty() {
        let _ = writeln!(s, "\n{} problem(s) reading the files (see stderr)", r.problems.len());
    }
    s
}

/// One group in detail.
pub fn group(g: &GroupReport) -> String {
    let i = &g.info;
    let [a, b] = &i.sides;
    let mut s = String::new();
    let user = if i.user_variant { " (user variant)" } else { "" };
    let _ = writeln!(s, "{}{user}: {}", i.variant, i.label);
    let seeds: Vec<String> = g.seeds.iter().map(u64::to_string).collect();
    let _ = writeln!(
        s,
        "  runs       {} (seeds {}), {} file(s), settings {}",
        g.runs.len(),
        if seeds.is_empty() { "unknown".into() } else { seeds.join(", ") },
        g.files,
        i.settings_hash
    );
    let _ = writeln!(
        s,
        "  games      {} played, {} distinct, {} distinct openings (first {} plies)",
        g.games, g.distinct_games, g.distinct_openings, g.opening_plies
    );
    let _ = writeln!(s, "  openings   {}", i.openings);
    for (name, sh) in g.results.named(&i.sides) {
        let _ = writeln!(
            s,
            "  {name:<14} {:>6}  {:>6}  (95% {} - {})",
            sh.count,
            pct(sh.fraction),
            pct(sh.ci_low),
            pct(sh.ci_high)
        );
    }
    let sc = &g.first_player_score;
    let _ = writeln!(
        s,
        "  {a} (first player) score {:.3} (95% {:.3} - {:.3}) over {} distinct games: \
         Elo {} ({} .. {})",
        sc.score,
        sc.ci_low,
        sc.ci_high,
        sc.games,
        elo(sc.elo),
        elo(sc.elo_low),
        elo(sc.elo_high)
    );
    let _ = writeln!(
        s,
        "  draw rate  {} (95% {} - {}) of distinct games",
        pct(g.draw_rate.fraction),
        pct(g.draw_rate.ci_low),
        pct(g.draw_rate.ci_high)
    );
    let _ = writeln!(s, "  endings    (games: {a} wins / draws / {b} wins)");
    for e in &g.endings {
        let _ = writeln!(
            s,
            "    {:<18} {:>6}: {} / {} / {}",
            e.ending, e.games, e.first_wins, e.draws, e.second_wins
        );
    }
    let l = &g.lengths;
    let _ = writeln!(
        s,
        "  length     mean {:.1}, median {:.1}, min {}, max {} plies",
        l.mean, l.median, l.min, l.max
    );
    let _ = writeln!(s, "  adjudication {}", i.adjudication);
    let _ = writeln!(s, "  audit      {}", audit_text(g));
    s
}

/// The audited adjudication error of a group in words.
pub fn audit_text(g: &GroupReport) -> String {
    match (&g.audit, g.info.adjudicated) {
        (Some(a), _) => format!(
            "{} of {} adjudicated games played on were adjudicated wrong: {} (95% {} - {})",
            a.wrong,
            a.sampled,
            pct(a.fraction),
            pct(a.ci_low),
            pct(a.ci_high)
        ),
        (None, false) => "no adjudication (games played to their end)".to_owned(),
        (None, true) => "not audited (kage-selfplay audit, then balance --audit FILE)".to_owned(),
    }
}
