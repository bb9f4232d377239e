//! Plain progress lines for logs (Slurm, nohup): where no progress bar can be drawn, a run
//! prints one line every few seconds with what is done, the rate, the time left and the loss.

use std::time::{Duration, Instant};

/// Prints a progress line to stderr at most once per `every`.
#[derive(Debug)]
pub struct ProgressLog {
    every: Duration,
    last: Instant,
}

/// Where an epoch stands.
#[derive(Debug, Clone, Copy)]
pub struct EpochProgress {
    /// 0-based epoch.
    pub epoch: u32,
    /// Epochs of the run.
    pub epochs: u32,
    /// Positions trained on in this epoch so far.
    pub positions: u64,
    /// Positions of a whole epoch (0 when not known yet: the first epoch).
    pub expected: u64,
    /// Seconds since the epoch began.
    pub secs: f64,
    /// Mean training loss of the epoch so far.
    pub loss: f64,
}

impl ProgressLog {
    /// A log that prints at most once per `every` (the first line after `every`).
    pub fn new(every: Duration) -> ProgressLog {
        ProgressLog { every, last: Instant::now() }
    }

    /// Prints `p` if `every` has passed since the last line.
    pub fn tick(&mut self, p: &EpochProgress) {
        if self.last.elapsed() >= self.every {
            self.last = Instant::now();
            eprintln!("{}", line(p));
        }
    }
}

/// `1h02m03s`, `2m03s` or `3s`.
pub fn duration(secs: f64) -> String {
    let s = secs.max(0.0).round() as u64;
    match (s / 3600, s / 60 % 60, s % 60) {
        (0, 0, s) => format!("{s}s"),
        (0, m, s) => format!("{m}m{s:02}s"),
        (h, m, s) => format!("{h}h{m:02}m{s:02}s"),
    }
}

/// The progress line of `p`.
pub fn line(p: &EpochProgress) -> String {
    let rate = p.positions as f64 / p.secs.max(1e-9);
    let mut s = format!("train epoch {}/{}: {} positions", p.epoch + 1, p.epochs, p.positions);
    if p.expected > 0 {
        let done = p.positions.min(p.expected);
        s += &format!(" of {} ({:.0}%)", p.expected, 100.0 * done as f64 / p.expected as f64);
    }
    s += &format!(", {rate:.0} pos/s");
    if p.expected > 0 && rate > 0.0 {
        let left_epoch = p.expected.saturating_sub(p.positions) as f64 / rate;
        let later = f64::from(p.epochs.saturating_sub(p.epoch + 1)) * p.expected as f64 / rate;
        s += &format!(", ETA epoch {} run {}", duration(left_epoch), duration(left_epoch + later));
    }
    s + &format!(", loss {:.6}", p.loss)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_reports_rate_eta_and_loss() {
        let p = EpochProgress {
            epoch: 1,
            epochs: 4,
            positions: 1000,
            expected: 4000,
            secs: 2.0,
            loss: 0.0125,
        };
        // 500 pos/s: 6 s left in this epoch, 2 more epochs of 8 s.
        assert_eq!(
            line(&p),
            "train epoch 2/4: 1000 positions of 4000 (25%), 500 pos/s, ETA epoch 6s run 22s, \
             loss 0.012500"
        );
        let first = EpochProgress { epoch: 0, expected: 0, ..p };
        assert_eq!(line(&first), "train epoch 1/4: 1000 positions, 500 pos/s, loss 0.012500");
        assert_eq!(duration(3723.0), "1h02m03s");
        assert_eq!(duration(61.4), "1m01s");
    }
}
