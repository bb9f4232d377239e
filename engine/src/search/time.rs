//! Time management. A `movetime` search runs until its hard limit. Under a clock the search has
//! an optimum time and a hard limit (abort the iteration in progress); after each iteration
//! [`TimeManager::should_stop`] decides whether to start another, scaling the optimum by how
//! settled the best move and the score are.

use super::Limits;
use crate::types::{Color, Move};

/// Milliseconds kept in reserve for process and I/O latency under a clock.
const OVERHEAD_MS: u64 = 30;
/// The most a `movetime` search keeps in reserve (it uses the rest of the time).
const MOVETIME_MARGIN_MS: u64 = 5;
/// Moves to go assumed under a clock without `movestogo` (games of these variants are short).
const DEFAULT_MOVES_TO_GO: u64 = 20;

/// `(optimum, hard)` in milliseconds for the side to move, or `None` for untimed searches.
/// The optimum of a `movetime` search is `None`: it searches until the hard limit.
pub fn budget(limits: &Limits, stm: Color) -> Option<(Option<u64>, u64)> {
    if limits.infinite {
        return None;
    }
    if let Some(mt) = limits.movetime_ms {
        // `movetime` means: search this long. Iterations go on until the hard limit aborts
        // one; only a small margin (at most 5 ms, 2 % of short times) is kept for the reply.
        let t = mt.saturating_sub(MOVETIME_MARGIN_MS.min(mt / 50)).max(1);
        return Some((None, t));
    }
    let (time, inc) = match stm {
        Color::White => (limits.wtime?, limits.winc.unwrap_or(0)),
        Color::Black => (limits.btime?, limits.binc.unwrap_or(0)),
    };
    let avail = time.saturating_sub(OVERHEAD_MS).max(1);
    let mtg = limits.movestogo.map_or(DEFAULT_MOVES_TO_GO, |m| m.clamp(1, 40) as u64);
    let optimum = (avail / mtg + inc).min(avail / 2).max(1);
    let hard = (optimum * 4).min(avail * 2 / 5).max(optimum.min(avail)).max(1);
    Some((Some(optimum), hard))
}

/// What the iterations so far say about the time still worth spending.
pub struct TimeManager {
    optimum: Option<u64>,
    best: Move,
    /// Best-move changes, halved at every iteration (recent changes weigh most).
    changes: f64,
    /// Iterations in a row that kept the best move.
    stable: u32,
    prev_score: Option<i32>,
}

impl TimeManager {
    pub fn new(optimum: Option<u64>) -> TimeManager {
        TimeManager { optimum, best: Move::NULL, changes: 0.0, stable: 0, prev_score: None }
    }

    /// Records a completed iteration; true when no further iteration should start.
    pub fn should_stop(&mut self, best: Move, score: i32, elapsed_ms: u64) -> bool {
        self.changes /= 2.0;
        if best == self.best {
            self.stable += 1;
        } else {
            if !self.best.is_null() {
                self.changes += 1.0;
            }
            self.stable = 0;
            self.best = best;
        }
        let falling = match self.prev_score {
            Some(p) => (1.0 + (p - score) as f64 / 200.0).clamp(0.75, 1.5),
            None => 1.0,
        };
        self.prev_score = Some(score);
        let Some(opt) = self.optimum else { return false };
        let instability = 1.0 + 1.5 * self.changes;
        let settled = if self.stable >= 4 { 0.7 } else { 1.0 };
        // The next iteration takes longer than all before it: none is started past about
        // half the scaled optimum.
        elapsed_ms as f64 >= opt as f64 * 0.55 * instability * falling * settled
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock(ms: u64, inc: u64) -> Limits {
        Limits {
            wtime: Some(ms),
            btime: Some(ms),
            winc: Some(inc),
            binc: Some(inc),
            ..Limits::default()
        }
    }

    #[test]
    fn hard_limit_never_exceeds_two_fifths_of_the_clock() {
        for (t, inc) in [(1000, 100), (100, 100), (31, 0), (60_000, 0), (5000, 1000)] {
            let (opt, hard) = budget(&clock(t, inc), Color::White).expect("timed");
            let avail = t.saturating_sub(OVERHEAD_MS).max(1);
            assert!(hard <= (avail * 2 / 5).max(1).max(opt.unwrap().min(avail)), "{t}+{inc}");
            assert!(opt.unwrap() <= avail / 2 + 1, "{t}+{inc}");
        }
    }

    #[test]
    fn a_changing_best_move_gets_more_time_than_a_settled_one() {
        let (opt, _) = budget(&clock(1000, 100), Color::Black).expect("timed");
        let a = Move(1);
        let b = Move(2);
        // Settled: the same move for six iterations stops sooner than the optimum.
        let mut settled = TimeManager::new(opt);
        let stop_settled =
            (0..6).map(|_| settled.should_stop(a, 0, opt.unwrap() * 2 / 5)).last().unwrap();
        assert!(stop_settled);
        // Unsettled: the best move changes at every iteration; the same elapsed time goes on.
        let mut unsettled = TimeManager::new(opt);
        let stop_unsettled = (0..6)
            .map(|i| unsettled.should_stop(if i % 2 == 0 { a } else { b }, 0, opt.unwrap() * 2 / 5))
            .last()
            .unwrap();
        assert!(!stop_unsettled);
        // A movetime search never stops between iterations.
        let mut mt = TimeManager::new(None);
        assert!(!mt.should_stop(a, 0, 1_000_000));
    }
}
