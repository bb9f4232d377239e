//! Time management: a soft limit (do not start another iteration) and a hard limit (abort).

use super::Limits;
use crate::types::Color;

/// Milliseconds kept in reserve for process and I/O latency.
const OVERHEAD_MS: u64 = 30;

/// `(soft, hard)` in milliseconds for the side to move, or `None` for untimed searches.
pub fn budget(limits: &Limits, stm: Color) -> Option<(u64, u64)> {
    if limits.infinite {
        return None;
    }
    if let Some(mt) = limits.movetime_ms {
        let t = mt.saturating_sub(OVERHEAD_MS.min(mt / 4)).max(1);
        return Some((t, t));
    }
    let (time, inc) = match stm {
        Color::White => (limits.wtime?, limits.winc.unwrap_or(0)),
        Color::Black => (limits.btime?, limits.binc.unwrap_or(0)),
    };
    let avail = time.saturating_sub(OVERHEAD_MS).max(1);
    let mtg = limits.movestogo.map_or(25, |m| m.clamp(1, 40)) as u64;
    let soft = (avail / mtg + inc).min(avail / 2).max(1);
    let hard = (soft * 3).min(avail * 2 / 5).max(soft.min(avail)).max(1);
    Some((soft.min(hard), hard))
}
