//! Plain progress lines for logs: when stderr is not a terminal (Slurm, nohup, a pipe), long
//! commands print one line every few seconds (done/total, rate, ETA and running counts)
//! instead of a progress bar that nobody sees.

use std::time::{Duration, Instant};

/// When to print, and the rate and ETA since the start of this invocation.
#[derive(Clone, Debug)]
pub struct LogLines {
    every: Duration,
    start: Instant,
    last: Instant,
    start_done: u64,
    total: u64,
}

impl LogLines {
    /// Lines every `every` (zero: at every unit) for a job of `total` units of which `done`
    /// are done already (resumed work does not count towards the rate).
    pub fn new(every: Duration, done: u64, total: u64) -> Self {
        let now = Instant::now();
        LogLines { every, start: now, last: now, start_done: done, total }
    }

    /// Whether a line is due now; if so, the next one is due `every` later.
    pub fn due(&mut self) -> bool {
        if self.last.elapsed() >= self.every {
            self.last = Instant::now();
            true
        } else {
            false
        }
    }

    /// `done/total (pct), R units/s, ETA T` for `done` units done, `unit` naming them.
    pub fn status(&self, done: u64, unit: &str) -> String {
        status(done, self.total, done.saturating_sub(self.start_done), self.start.elapsed(), unit)
    }
}

/// `done/total (pct), R unit/s, ETA T`: `new` units done in `elapsed`.
pub fn status(done: u64, total: u64, new: u64, elapsed: Duration, unit: &str) -> String {
    let secs = elapsed.as_secs_f64();
    let pct = if total == 0 { 100.0 } else { 100.0 * done as f64 / total as f64 };
    let rate = if secs > 0.0 { new as f64 / secs } else { 0.0 };
    let eta = if rate > 0.0 {
        duration_text(total.saturating_sub(done) as f64 / rate)
    } else {
        "?".to_owned()
    };
    format!("{done}/{total} {unit} ({pct:.1}%), {rate:.2} {unit}/s, ETA {eta}")
}

/// `1h02m`, `3m05s` or `12s`.
pub fn duration_text(secs: f64) -> String {
    let s = secs.max(0.0).round() as u64;
    match (s / 3600, s % 3600 / 60, s % 60) {
        (0, 0, s) => format!("{s}s"),
        (0, m, s) => format!("{m}m{s:02}s"),
        (h, m, _) => format!("{h}h{m:02}m"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_line() {
        let s = status(30, 100, 20, Duration::from_secs(10), "games");
        assert_eq!(s, "30/100 games (30.0%), 2.00 games/s, ETA 35s");
        assert_eq!(
            status(0, 10, 0, Duration::ZERO, "pairs"),
            "0/10 pairs (0.0%), 0.00 pairs/s, ETA ?"
        );
        assert_eq!(duration_text(3725.0), "1h02m");
        assert_eq!(duration_text(185.0), "3m05s");
    }

    #[test]
    fn lines_are_due_once_per_period() {
        let mut l = LogLines::new(Duration::from_secs(3600), 0, 10);
        assert!(!l.due());
        let mut l = LogLines::new(Duration::from_millis(100), 0, 10);
        assert!(!l.due());
        std::thread::sleep(Duration::from_millis(120));
        assert!(l.due());
        assert!(!l.due(), "the next one is a period later");
        let mut l = LogLines::new(Duration::ZERO, 0, 10);
        assert!(l.due() && l.due(), "zero: every time");
    }
}
