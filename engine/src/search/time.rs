//! Time management: a soft limit (do not start another iteration once it has passed) and a
//! hard limit (abort the iteration in progress).

use super::Limits;
use crate::types::Color;

/// Milliseconds kept in reserve for process and I/O latency under a clock.
const OVERHEAD_MS: u64 = 30;
/// The most a `movetime` search keeps in reserve (it uses the rest of the time).
const MOVETIME_MARGIN_MS: u64 = 5;

/// `(soft, hard)` in milliseconds for the side to move, or `None` for untimed searches.
pub fn budget(limits: &Limits, stm: Color) -> Option<(u64, u64)> {
    if limits.infinite {
        return None;
    }
    if let Some(mt) = limits.movetime_ms {
        // `movetime` means: search this long. Iterations go on until the hard limit aborts
        // one; only a small margin (at most 5 ms, 2 % of short times) is kept for the reply.
        let t = mt.saturating_sub(MOVETIME_MARGIN_MS.min(mt / 50)).max(1);
        return Some((t, t));
    }
    let (time, inc) = match stm {
        Color::White => (limits.wtime?, limits.winc.unwrap_or(0)),
        Color::Black => (limits.btime?, limits.binc.unwrap_or(0)),
    };
    let avail = time.saturating_sub(OVERHEAD_MS).max(1);
    let mtg = limits.movestogo.map_or(25, |m| m.clamp(1, 40)) as u64;
    let target = (avail / mtg + inc).min(avail / 2).max(1);
    let hard = (target * 3).min(avail * 2 / 5).max(target.min(avail)).max(1);
    // The next iteration takes longer than all before it: none is started after half the
    // target time.
    let soft = (target.min(hard) / 2).max(1);
    Some((soft, hard))
}
