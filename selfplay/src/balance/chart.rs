//! Hand-written SVG charts of a balance report: the first player's score with its 95%
//! interval per group, endings as stacked bars, and a game length histogram.

use std::fmt::Write as _;

use kage_data::svg;

use super::stats::GroupReport;
use super::text::short_label;

/// Colours of the endings, cycled.
const ENDING_COLOURS: [&str; 11] = [
    "#c0392b", "#e67e22", "#f1c40f", "#2980b9", "#8e44ad", "#27ae60", "#2c3e50", "#7f8c8d",
    "#d35400", "#16a085", "#95a5a6",
];

/// A plot area in px: the left and top edges, its width and height.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Frame {
    /// Left edge.
    pub left: f64,
    /// Width.
    pub width: f64,
    /// Top edge.
    pub top: f64,
    /// Height.
    pub height: f64,
}

impl Frame {
    /// The vertical position of a score `v` (0 to 1, bottom to top).
    pub fn score_y(self, v: f64) -> f64 {
        self.top + self.height * (1.0 - v)
    }
}

/// Horizontal grid lines every 10% of a 0-100% score axis (the even line at 50% darker),
/// labelled every 20% left of the frame.
pub(crate) fn score_rows(s: &mut String, f: Frame) {
    for t in 0..=10 {
        let v = f64::from(t) / 10.0;
        let colour = if t == 5 { "#555" } else { "#e3e3e3" };
        let _ = writeln!(
            s,
            r#"<line x1="{0}" y1="{1:.1}" x2="{2:.1}" y2="{1:.1}" stroke="{colour}"/>"#,
            f.left,
            f.score_y(v),
            f.left + f.width
        );
        if t % 2 == 0 {
            let y = f.score_y(v) + 4.0;
            svg::text(s, f.left - 6.0, y, r#"text-anchor="end""#, &format!("{}%", t * 10));
        }
    }
}

/// A vertical grid line at `tx` across the frame, `label` below it.
pub(crate) fn x_tick(s: &mut String, f: Frame, tx: f64, label: &str) {
    let _ = writeln!(
        s,
        r##"<line x1="{tx:.1}" y1="{0}" x2="{tx:.1}" y2="{1:.1}" stroke="#eee"/>"##,
        f.top,
        f.top + f.height
    );
    svg::text(s, tx, f.top + f.height + 16.0, r#"text-anchor="middle""#, label);
}

/// A chart's title, top left.
pub(crate) fn title(s: &mut String, text: &str) {
    svg::text(s, 10.0, 22.0, r#"font-size="15" font-weight="bold""#, text);
}

/// Room for labels of 12 px sans-serif text left of a chart.
fn label_room(labels: &[String]) -> f64 {
    let chars = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    (16.0 + 6.8 * chars as f64).max(150.0)
}

/// The first player's score over distinct games per group: a point with its 95% interval as
/// an error bar, on a 0-100% axis with the even line at 50%.
pub fn score_chart(groups: &[GroupReport]) -> String {
    let labels: Vec<String> =
        groups.iter().map(|g| format!("{} ({})", short_label(g), g.info.sides[0])).collect();
    let (left, width, row, top) = (label_room(&labels), 440.0, 30.0, 56.0);
    let height = top + row * groups.len() as f64 + 40.0;
    let mut s = svg::begin(left + width + 150.0, height, 12);
    title(&mut s, "First player's score over distinct games (95% interval)");
    let x = |v: f64| left + width * v;
    let bottom = top + row * groups.len() as f64;
    for t in 0..=10 {
        let v = f64::from(t) / 10.0;
        let colour = if t == 5 { "#555" } else { "#ddd" };
        let _ = writeln!(
            s,
            r#"<line x1="{0:.1}" y1="{1:.1}" x2="{0:.1}" y2="{2:.1}" stroke="{colour}"/>"#,
            x(v),
            top - 10.0,
            bottom
        );
        if t % 2 == 0 {
            svg::text(
                &mut s,
                x(v),
                bottom + 16.0,
                r#"text-anchor="middle""#,
                &format!("{}%", t * 10),
            );
        }
    }
    for (k, g) in groups.iter().enumerate() {
        let y = top + row * k as f64 + row / 2.0 - 6.0;
        let sc = &g.first_player_score;
        svg::text(&mut s, left - 8.0, y + 4.0, r#"text-anchor="end""#, &labels[k]);
        let _ = writeln!(
            s,
            r##"<line x1="{a:.1}" y1="{y:.1}" x2="{b:.1}" y2="{y:.1}" stroke="#2c3e50" stroke-width="2"/><line x1="{a:.1}" y1="{y0:.1}" x2="{a:.1}" y2="{y1:.1}" stroke="#2c3e50" stroke-width="2"/><line x1="{b:.1}" y1="{y0:.1}" x2="{b:.1}" y2="{y1:.1}" stroke="#2c3e50" stroke-width="2"/><circle cx="{c:.1}" cy="{y:.1}" r="4.5" fill="#c0392b"><title>{t}</title></circle>"##,
            a = x(sc.ci_low),
            b = x(sc.ci_high),
            c = x(sc.score),
            y0 = y - 5.0,
            y1 = y + 5.0,
            t = svg::escape(&format!(
                "{:.3} ({:.3}-{:.3}), Elo {:+.0}, {} distinct games",
                sc.score, sc.ci_low, sc.ci_high, sc.elo, sc.games
            )),
        );
        svg::text(
            &mut s,
            left + width + 8.0,
            y + 4.0,
            "",
            &format!("{:.1}% (n={})", 100.0 * sc.score, sc.games),
        );
    }
    svg::end(s)
}

/// One stacked bar per group: the share of each kind of ending, with who won by it in each
/// segment's tooltip and the legend.
pub fn endings_chart(groups: &[GroupReport]) -> String {
    let mut names: Vec<String> = Vec::new();
    for g in groups {
        for e in &g.endings {
            if !names.contains(&e.ending) {
                names.push(e.ending.clone());
            }
        }
    }
    let labels: Vec<String> = groups.iter().map(short_label).collect();
    let (left, width, row, top) = (label_room(&labels), 440.0, 30.0, 64.0);
    let height = top + row * groups.len() as f64 + 20.0;
    let mut s = svg::begin(left + width + 40.0, height, 12);
    title(&mut s, "How games end");
    let colour = |name: &str| {
        let i = names.iter().position(|n| n == name).unwrap_or(0);
        ENDING_COLOURS[i % ENDING_COLOURS.len()]
    };
    let mut lx = 10.0;
    for n in &names {
        let _ = writeln!(
            s,
            r#"<rect x="{lx:.1}" y="34" width="12" height="12" fill="{}"/>"#,
            colour(n)
        );
        svg::text(&mut s, lx + 16.0, 45.0, "", n);
        lx += 30.0 + 7.5 * n.len() as f64;
    }
    for (k, g) in groups.iter().enumerate() {
        let y = top + row * k as f64;
        svg::text(&mut s, left - 8.0, y + 15.0, r#"text-anchor="end""#, &labels[k]);
        let [a, b] = &g.info.sides;
        let mut x = left;
        for e in &g.endings {
            let w = width * e.games as f64 / g.games.max(1) as f64;
            let tip = format!(
                "{}: {} games ({:.1}%): {a} {}, draws {}, {b} {}",
                e.ending,
                e.games,
                100.0 * e.games as f64 / g.games.max(1) as f64,
                e.first_wins,
                e.draws,
                e.second_wins
            );
            let _ = writeln!(
                s,
                r#"<rect x="{x:.1}" y="{y:.1}" width="{w:.1}" height="20" fill="{}" stroke="white" stroke-width="0.5"><title>{}</title></rect>"#,
                colour(&e.ending),
                svg::escape(&tip)
            );
            x += w;
        }
    }
    svg::end(s)
}

/// The game length histogram of one group.
pub fn length_histogram(g: &GroupReport) -> String {
    let l = &g.lengths;
    let (left, width, height, top) = (50.0, 620.0, 160.0, 40.0);
    let mut s = svg::begin(left + width + 20.0, top + height + 40.0, 11);
    svg::text(
        &mut s,
        10.0,
        20.0,
        r#"font-size="13" font-weight="bold""#,
        &format!(
            "{}: game lengths (plies; mean {:.1}, median {:.1})",
            short_label(g),
            l.mean,
            l.median
        ),
    );
    let most = l.histogram.iter().copied().max().unwrap_or(0).max(1) as f64;
    let bins = l.histogram.len().max(1) as f64;
    let bw = width / bins;
    for (i, &c) in l.histogram.iter().enumerate() {
        let h = height * c as f64 / most;
        let x = left + bw * i as f64;
        let from = i as u64 * l.bin_width;
        let _ = writeln!(
            s,
            r##"<rect x="{x:.1}" y="{:.1}" width="{:.1}" height="{h:.1}" fill="#2980b9"><title>{}-{} plies: {c} games</title></rect>"##,
            top + height - h,
            (bw - 1.0).max(0.5),
            from,
            from + l.bin_width - 1
        );
    }
    let _ = writeln!(
        s,
        r##"<line x1="{left}" y1="{0}" x2="{1}" y2="{0}" stroke="#333"/>"##,
        top + height,
        left + width
    );
    let step = (l.histogram.len() / 6).max(1);
    for i in (0..=l.histogram.len()).step_by(step) {
        let x = left + bw * i as f64;
        svg::text(
            &mut s,
            x,
            top + height + 14.0,
            r#"text-anchor="middle""#,
            &(i as u64 * l.bin_width).to_string(),
        );
    }
    svg::text(&mut s, left - 6.0, top + 10.0, r#"text-anchor="end""#, &format!("{most}"));
    svg::text(&mut s, left - 6.0, top + height, r#"text-anchor="end""#, "0");
    svg::end(s)
}

/// Colours of the series of the budget chart, cycled.
const SERIES_COLOURS: [&str; 8] =
    ["#c0392b", "#2980b9", "#27ae60", "#8e44ad", "#e67e22", "#2c3e50", "#16a085", "#d35400"];

/// The series of the budget chart: groups of one variant, player and net (and everything
/// else but the node budget), by budget. `None` when no series has two budgets.
fn budget_series(groups: &[GroupReport]) -> Option<Vec<(String, Vec<&GroupReport>)>> {
    let mut series: Vec<(String, Vec<&GroupReport>)> = Vec::new();
    for g in groups.iter().filter(|g| g.info.nodes.is_some()) {
        let i = &g.info;
        // The label without the budget: what stays the same along the line.
        let rest = i.label.replacen(i.budget.as_deref().unwrap_or(""), "", 1);
        let user = if i.user_variant { " (user variant)" } else { "" };
        let key = format!("{}{user} {} {}|{rest}", i.variant, i.player, i.net);
        match series.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(g),
            None => series.push((key, vec![g])),
        }
    }
    for (_, v) in &mut series {
        v.sort_by_key(|g| g.info.nodes);
    }
    series.iter().any(|(_, v)| v.len() >= 2).then_some(series)
}

/// The first player's score against the node budget (log scale), one line per variant,
/// player and net, with 95% error bars: does balance change with strength? `None` when no
/// variant was played at two budgets or more.
pub fn budget_chart(groups: &[GroupReport]) -> Option<String> {
    let series = budget_series(groups)?;
    let nodes: Vec<f64> = series
        .iter()
        .flat_map(|(_, v)| v.iter().filter_map(|g| g.info.nodes))
        .map(|n| n as f64)
        .collect();
    let (lo, hi) = nodes.iter().fold((f64::MAX, f64::MIN), |(a, b), &n| (a.min(n), b.max(n)));
    let (lo, hi) = (lo.log10() - 0.15, hi.log10() + 0.15);
    let frame = Frame { left: 60.0, width: 560.0, top: 40.0, height: 300.0 };
    let Frame { left, width, top, height } = frame;
    let legend_top = top + height + 44.0;
    let total_h = legend_top + 18.0 * series.len() as f64 + 10.0;
    let mut s = svg::begin(left + width + 30.0, total_h, 12);
    title(&mut s, "First player's score by node budget (95% interval)");
    let x = |n: f64| left + width * (n.log10() - lo) / (hi - lo);
    let y = |v: f64| frame.score_y(v);
    score_rows(&mut s, frame);
    let mut ticks: Vec<u64> = nodes.iter().map(|&n| n as u64).collect();
    ticks.sort_unstable();
    ticks.dedup();
    for t in ticks {
        x_tick(&mut s, frame, x(t as f64), &t.to_string());
    }
    svg::text(
        &mut s,
        left + width / 2.0,
        top + height + 32.0,
        r#"text-anchor="middle""#,
        "nodes per move",
    );
    for (k, (key, pts)) in series.iter().enumerate() {
        let c = SERIES_COLOURS[k % SERIES_COLOURS.len()];
        // Points of one series are offset a little so that error bars do not hide each other.
        let dx = (k as f64 - (series.len() as f64 - 1.0) / 2.0) * 4.0;
        let path: Vec<String> = pts
            .iter()
            .filter_map(|g| g.info.nodes)
            .zip(pts.iter())
            .map(|(n, g)| format!("{:.1},{:.1}", x(n as f64) + dx, y(g.first_player_score.score)))
            .collect();
        let _ = writeln!(
            s,
            r#"<polyline points="{}" fill="none" stroke="{c}" stroke-width="1.5"/>"#,
            path.join(" ")
        );
        for g in pts {
            let (Some(n), sc) = (g.info.nodes, &g.first_player_score) else { continue };
            let px = x(n as f64) + dx;
            let _ = writeln!(
                s,
                r#"<line x1="{px:.1}" y1="{:.1}" x2="{px:.1}" y2="{:.1}" stroke="{c}" stroke-width="1.5"/><circle cx="{px:.1}" cy="{:.1}" r="3.5" fill="{c}"><title>{}</title></circle>"#,
                y(sc.ci_low),
                y(sc.ci_high),
                y(sc.score),
                svg::escape(&format!(
                    "{} nodes: {:.3} ({:.3}-{:.3}), {} distinct games",
                    n, sc.score, sc.ci_low, sc.ci_high, sc.games
                ))
            );
        }
        let ly = legend_top + 18.0 * k as f64;
        let _ = writeln!(
            s,
            r#"<rect x="{left}" y="{:.1}" width="14" height="4" fill="{c}"/>"#,
            ly - 6.0
        );
        let name = key.split('|').next().unwrap_or(key);
        let first = &pts[0].info.sides[0];
        svg::text(&mut s, left + 20.0, ly, "", &format!("{name} ({first}'s score)"));
    }
    Some(svg::end(s))
}
