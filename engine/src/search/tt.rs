//! Transposition table: one 16-byte entry per slot, keyed by the full Zobrist key.

use crate::types::Move;

/// What a stored score means relative to the window it was found with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// Empty slot.
    None = 0,
    /// The score is at most this (fail low).
    Upper = 1,
    /// The score is at least this (fail high).
    Lower = 2,
    /// The exact score.
    Exact = 3,
}

#[derive(Clone, Copy, Default)]
struct Entry {
    key: u64,
    mv: u16,
    score: i16,
    eval: i16,
    depth: u8,
    /// Bound in the low 2 bits, generation above.
    flags: u8,
}

/// A hit: the stored move, score (already adjusted to the probing ply), depth and bound.
#[derive(Clone, Copy, Debug)]
pub struct TtHit {
    /// Best move found (may be null).
    pub mv: Move,
    /// Score, mate scores relative to the probing ply.
    pub score: i32,
    /// Static evaluation of the position.
    pub eval: i32,
    /// Depth the score was searched to.
    pub depth: i32,
    /// What the score bounds.
    pub bound: Bound,
}

impl TtHit {
    /// Whether the stored score decides a node searched with the window `(alpha, beta)`.
    #[inline(always)]
    pub fn cuts(&self, alpha: i32, beta: i32) -> bool {
        match self.bound {
            Bound::Exact => true,
            Bound::Lower => self.score >= beta,
            Bound::Upper => self.score <= alpha,
            Bound::None => false,
        }
    }
}

/// Depth-preferred table with aging; single-threaded (one per `Searcher`).
pub struct Tt {
    entries: Vec<Entry>,
    generation: u8,
}

const ENTRY_BYTES: usize = std::mem::size_of::<Entry>();

impl Tt {
    /// A table of about `mb` megabytes (at least one entry).
    pub fn new(mb: usize) -> Tt {
        let n = (mb.max(1) * 1024 * 1024 / ENTRY_BYTES).max(1);
        Tt { entries: vec![Entry::default(); n], generation: 0 }
    }

    /// Empties the table.
    pub fn clear(&mut self) {
        self.entries.fill(Entry::default());
        self.generation = 0;
    }

    /// Called once per search: older entries become preferred victims.
    pub fn new_search(&mut self) {
        self.generation = self.generation.wrapping_add(4) & 0xfc;
    }

    #[inline(always)]
    fn index(&self, key: u64) -> usize {
        ((key as u128 * self.entries.len() as u128) >> 64) as usize
    }

    /// The entry of `key`, if stored, with mate scores made relative to `ply`.
    #[inline]
    pub fn probe(&self, key: u64, ply: usize) -> Option<TtHit> {
        let e = self.entries[self.index(key)];
        if e.key != key || e.flags & 3 == 0 {
            return None;
        }
        let bound = match e.flags & 3 {
            1 => Bound::Upper,
            2 => Bound::Lower,
            _ => Bound::Exact,
        };
        Some(TtHit {
            mv: Move(e.mv),
            score: score_from_tt(e.score as i32, ply),
            eval: e.eval as i32,
            depth: e.depth as i32,
            bound,
        })
    }

    /// Stores a search result for `key` (mate scores made relative to the node), replacing
    /// shallower or older entries.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn store(
        &mut self,
        key: u64,
        mv: Move,
        score: i32,
        eval: i32,
        depth: i32,
        bound: Bound,
        ply: usize,
    ) {
        let gen_ = self.generation;
        let i = self.index(key);
        let e = &mut self.entries[i];
        let same = e.key == key;
        let old_gen = e.flags & 0xfc != gen_;
        if !same && !old_gen && (depth + 3) < e.depth as i32 && bound != Bound::Exact {
            return;
        }
        let keep_move = same && mv.is_null();
        *e = Entry {
            key,
            mv: if keep_move { e.mv } else { mv.0 },
            score: score_to_tt(score, ply) as i16,
            eval: eval.clamp(-32000, 32000) as i16,
            depth: depth.clamp(0, 255) as u8,
            flags: gen_ | bound as u8,
        };
    }
}

use super::{MATE, MATE_BOUND};

#[inline(always)]
fn score_to_tt(s: i32, ply: usize) -> i32 {
    if s >= MATE_BOUND {
        (s + ply as i32).min(MATE)
    } else if s <= -MATE_BOUND {
        (s - ply as i32).max(-MATE)
    } else {
        s
    }
}

#[inline(always)]
fn score_from_tt(s: i32, ply: usize) -> i32 {
    if s >= MATE_BOUND {
        s - ply as i32
    } else if s <= -MATE_BOUND {
        s + ply as i32
    } else {
        s
    }
}
