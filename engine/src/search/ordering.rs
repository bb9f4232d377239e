//! Move ordering: TT move, captures by MVV-LVA (promotions with them; the main search moves
//! those that lose material after the quiet moves), killers, the counter
//! move (the quiet move that last refuted the opponent's move), and a history table indexed
//! by (side, from-or-dropped-kind, to) that covers drops too.

use crate::position::Position;
use crate::types::{Color, Move};

pub const MAX_PLY: usize = 128;

pub const SCORE_TT: i32 = 1 << 30;
pub const SCORE_TACTICAL: i32 = 1 << 28;
pub const SCORE_KILLER: i32 = 1 << 27;
const HISTORY_MAX: i32 = 16384;

/// History, killers, counter moves, the LMR table and the static evaluation's correction
/// history: what survives from one search to the next.
pub struct Ordering {
    history: Vec<i16>,
    /// The quiet move that last refuted each opponent move, by (side, opponent move).
    counters: Vec<Move>,
    pub killers: [[Move; 2]; MAX_PLY + 2],
    lmr: [[u8; 64]; 64],
    /// The static evaluation's correction history.
    pub corr: super::correction::Correction,
}

/// 13 bits of the move (to, from-or-kind, drop flag) per side.
#[inline(always)]
fn hindex(stm: Color, m: Move) -> usize {
    let drop = m.is_drop() as usize;
    (stm as usize) << 13 | drop << 12 | (m.0 & 0xfff) as usize
}

impl Ordering {
    pub fn new() -> Ordering {
        let mut lmr = [[0u8; 64]; 64];
        for (d, row) in lmr.iter_mut().enumerate().skip(1) {
            for (i, r) in row.iter_mut().enumerate().skip(1) {
                let x = 1.0 + (d as f64).ln() * (i as f64).ln() / 2.0;
                *r = x.max(0.0) as u8;
            }
        }
        Ordering {
            history: vec![0; 2 << 13],
            counters: vec![Move::NULL; 2 << 13],
            killers: [[Move::NULL; 2]; MAX_PLY + 2],
            lmr,
            corr: super::correction::Correction::new(),
        }
    }

    pub fn clear(&mut self) {
        self.history.fill(0);
        self.counters.fill(Move::NULL);
        self.killers = [[Move::NULL; 2]; MAX_PLY + 2];
        self.corr.clear();
    }

    #[inline(always)]
    pub fn lmr(&self, depth: i32, index: usize) -> i32 {
        self.lmr[(depth as usize).min(63)][index.min(63)] as i32
    }

    #[inline(always)]
    pub fn history(&self, stm: Color, m: Move) -> i32 {
        self.history[hindex(stm, m)] as i32
    }

    /// Rewards the quiet move that cut off and punishes the quiets tried before it.
    pub fn update_quiet(
        &mut self,
        stm: Color,
        best: Move,
        tried: &[Move],
        depth: i32,
        ply: usize,
        last: Move,
    ) {
        // Stockfish 14's bonus.
        let bonus = (6 * depth * depth + 229 * depth - 215).clamp(0, 2000);
        if !last.is_null() {
            self.counters[hindex(!stm, last)] = best;
        }
        self.bump(stm, best, bonus);
        for &m in tried {
            if m != best {
                self.bump(stm, m, -bonus);
            }
        }
        let k = &mut self.killers[ply];
        if k[0] != best {
            k[1] = k[0];
            k[0] = best;
        }
    }

    #[inline(always)]
    fn bump(&mut self, stm: Color, m: Move, bonus: i32) {
        let h = &mut self.history[hindex(stm, m)];
        let v = *h as i32;
        *h = (v + bonus - v * bonus.abs() / HISTORY_MAX) as i16;
    }

    /// Whether `m` is the move that last refuted the opponent's move `last`.
    #[inline(always)]
    fn is_counter(&self, stm: Color, m: Move, last: Move) -> bool {
        !last.is_null() && self.counters[hindex(!stm, last)] == m
    }

    /// Ordering score of a move (higher first).
    #[inline]
    pub fn score(&self, pos: &Position, m: Move, tt_move: Move, ply: usize, last: Move) -> i32 {
        if m == tt_move {
            return SCORE_TT;
        }
        if m.is_drop() {
            return self.quiet_score(pos.side_to_move(), m, ply, last);
        }
        let v = pos.variant();
        let captured = pos.captured(m);
        if captured.is_some() || m.is_promotion() {
            let victim = captured.map_or(0, |p| v.kind(p.kind).value);
            let mover = super::tactical::mover(pos, m);
            let gain = if m.is_promotion() {
                v.kind(v.promoted_kind(mover, m)).value - v.kind(mover).value
            } else {
                0
            };
            let attacker = if v.kind(mover).royal { 0 } else { v.kind(mover).value };
            return SCORE_TACTICAL + (victim + gain) * 16 - attacker / 16;
        }
        self.quiet_score(pos.side_to_move(), m, ply, last)
    }

    /// Ordering score of a quiet move or drop: the killers, then the counter move, then the
    /// history.
    #[inline(always)]
    fn quiet_score(&self, stm: Color, m: Move, ply: usize, last: Move) -> i32 {
        let k = &self.killers[ply];
        if m == k[0] {
            SCORE_KILLER
        } else if m == k[1] {
            SCORE_KILLER - 1
        } else if self.is_counter(stm, m, last) {
            SCORE_KILLER - 2
        } else {
            self.history(stm, m)
        }
    }
}

impl Default for Ordering {
    fn default() -> Self {
        Ordering::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variant::{Variant, VariantId};

    #[test]
    fn the_refutation_of_the_last_move_is_ordered_after_the_killers() {
        let pos = Position::startpos(Variant::builtin(VariantId::MINISHOGI));
        let quiets: Vec<Move> = pos
            .legal_moves()
            .as_slice()
            .iter()
            .copied()
            .filter(|&m| pos.captured(m).is_none() && !m.is_promotion())
            .collect();
        let (cut, tried, last, other) = (quiets[0], quiets[1], Move(0x0123), Move(0x0456));
        let mut ord = Ordering::new();
        ord.update_quiet(pos.side_to_move(), cut, &[tried, cut], 6, 3, last);
        // At the ply of the cutoff it is a killer; elsewhere, after the same opponent move,
        // the counter move; after another move, its history alone.
        assert_eq!(ord.score(&pos, cut, Move::NULL, 3, last), SCORE_KILLER);
        assert_eq!(ord.score(&pos, cut, Move::NULL, 5, last), SCORE_KILLER - 2);
        let h = ord.score(&pos, cut, Move::NULL, 5, other);
        assert!(h > 0 && h < SCORE_KILLER - 2, "history {h}");
        assert!(ord.score(&pos, tried, Move::NULL, 5, last) < 0);
        ord.clear();
        assert_eq!(ord.score(&pos, cut, Move::NULL, 5, last), 0);
    }
}
