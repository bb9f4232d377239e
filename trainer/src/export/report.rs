//! Run-directory reports: metrics CSV and an SVG loss curve (`kage_data::svg`).

use crate::training::train::EpochMetrics;
use kage_data::svg;
use std::fmt::Write as _;

/// Metrics CSV text (header `epoch,train_loss,val_loss,pos_per_s,lr,positions`).
pub fn metrics_csv(history: &[EpochMetrics]) -> String {
    let mut s = String::from("epoch,train_loss,val_loss,pos_per_s,lr,positions\n");
    for m in history {
        let _ = writeln!(
            s,
            "{},{:.8},{:.8},{:.1},{:.8e},{}",
            m.epoch, m.train_loss, m.val_loss, m.pos_per_s, m.lr, m.positions
        );
    }
    s
}

/// SVG picture of train and validation loss per epoch.
pub fn loss_svg(history: &[EpochMetrics], title: &str) -> String {
    let (w, h, pad) = (640.0f64, 400.0f64, 50.0f64);
    let values: Vec<f64> =
        history.iter().flat_map(|m| [m.train_loss, m.val_loss]).filter(|v| v.is_finite()).collect();
    let (mut lo, mut hi) =
        values.iter().fold((f64::MAX, f64::MIN), |(a, b), &v| (a.min(v), b.max(v)));
    if values.is_empty() {
        (lo, hi) = (0.0, 1.0);
    }
    if hi - lo < 1e-12 {
        hi = lo + 1e-6;
    }
    let n = history.len().max(2) as f64;
    let px = |i: usize| pad + (w - 2.0 * pad) * i as f64 / (n - 1.0);
    let py = |v: f64| h - pad - (h - 2.0 * pad) * (v - lo) / (hi - lo);
    let line = |pick: fn(&EpochMetrics) -> f64| -> String {
        history
            .iter()
            .enumerate()
            .filter(|(_, m)| pick(m).is_finite())
            .map(|(i, m)| format!("{:.1},{:.1}", px(i), py(pick(m))))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut s = svg::begin(w, h, 12);
    svg::text(&mut s, pad, 25.0, r#"font-size="14""#, title);
    let _ = writeln!(
        s,
        r#"<line x1="{pad}" y1="{y}" x2="{x2}" y2="{y}" stroke="black"/><line x1="{pad}" y1="{pad}" x2="{pad}" y2="{y}" stroke="black"/>"#,
        y = h - pad,
        x2 = w - pad
    );
    let _ = writeln!(
        s,
        r#"<text x="5" y="{:.1}">{hi:.5}</text><text x="5" y="{:.1}">{lo:.5}</text>"#,
        pad + 4.0,
        h - pad
    );
    let _ = writeln!(s, r#"<text x="{:.1}" y="{:.1}">epoch</text>"#, w / 2.0, h - 15.0);
    let _ = writeln!(
        s,
        r#"<polyline fill="none" stroke="steelblue" stroke-width="2" points="{}"/>"#,
        line(|m| m.train_loss)
    );
    let _ = writeln!(
        s,
        r#"<polyline fill="none" stroke="darkorange" stroke-width="2" points="{}"/>"#,
        line(|m| m.val_loss)
    );
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{pad}" fill="steelblue">train</text><text x="{:.1}" y="{:.1}" fill="darkorange">val</text>"#,
        w - pad - 60.0,
        w - pad - 60.0,
        pad + 15.0
    );
    svg::end(s)
}
