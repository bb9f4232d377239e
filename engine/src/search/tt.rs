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
    entries: Box<[Entry]>,
    generation: u8,
}

/// A stored result this many plies deeper than a new one of the same position is kept.
const TT_KEEP_DEEPER: i32 = 4;

const ENTRY_BYTES: usize = std::mem::size_of::<Entry>();
const MB: usize = 1024 * 1024;

/// Tables at least this large are cleared by allocating fresh zeroed memory (which the
/// system hands out lazily) rather than by writing every entry.
const REALLOC_CLEAR_BYTES: usize = 256 * MB;

/// `n` zeroed entries, or `None` when the allocator cannot give them. Zeroed memory comes
/// lazily from the system, so a large table costs no time until it is used.
fn zeroed_entries(n: usize) -> Option<Box<[Entry]>> {
    let layout = std::alloc::Layout::array::<Entry>(n).ok()?;
    if n == 0 || layout.size() == 0 {
        return None;
    }
    // SAFETY: the layout has a non-zero size; an all-zero `Entry` is a valid value (integers
    // only); the pointer comes from the global allocator with exactly the layout of a
    // `[Entry]` of length `n`, so the box owns and later frees it with the same layout.
    unsafe {
        let ptr = std::alloc::alloc_zeroed(layout) as *mut Entry;
        if ptr.is_null() {
            return None;
        }
        Some(Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, n)))
    }
}

/// Megabytes the system can still give this process (Linux): `MemAvailable` of
/// `/proc/meminfo`, less where a cgroup (v2) limit leaves less; `None` where unknown.
fn available_mb() -> Option<usize> {
    let read = |p: &str| std::fs::read_to_string(p).ok();
    let meminfo = read("/proc/meminfo")?;
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    let mut mb = kb / 1024;
    let num = |t: Option<String>| t.and_then(|t| t.trim().parse::<usize>().ok());
    if let (Some(max), Some(cur)) =
        (num(read("/sys/fs/cgroup/memory.max")), num(read("/sys/fs/cgroup/memory.current")))
    {
        mb = mb.min(max.saturating_sub(cur) >> 20);
    }
    Some(mb)
}

impl Tt {
    /// A table of about `mb` megabytes (at least one entry), or the largest table the
    /// allocator gives when that much cannot be had (see [`Tt::allocate`]).
    pub fn new(mb: usize) -> Tt {
        Tt::allocate(mb).0
    }

    /// A table of about `mb` megabytes, or, when the allocator refuses, of half as many, and
    /// so on (never less than one entry): the table and the megabytes it got (0 for a table
    /// smaller than one megabyte). Never aborts on allocation failure.
    /// On Linux the request is first cut to the memory the system says is available, so that
    /// a table the machine cannot hold is not promised lazily and then killed for.
    pub fn allocate(mb: usize) -> (Tt, usize) {
        let mut want = mb.max(1).min(available_mb().unwrap_or(usize::MAX).max(1));
        loop {
            let n = (want.saturating_mul(MB) / ENTRY_BYTES).max(1);
            if let Some(entries) = zeroed_entries(n) {
                return (Tt { entries, generation: 0 }, want);
            }
            if want == 1 {
                break;
            }
            want /= 2;
        }
        // Not even one megabyte: a single entry (a few bytes; the search still runs).
        let entries = vec![Entry::default(); 1].into_boxed_slice();
        (Tt { entries, generation: 0 }, 0)
    }

    /// The table's size in megabytes (rounded down).
    pub fn size_mb(&self) -> usize {
        self.entries.len() * ENTRY_BYTES / MB
    }

    /// Empties the table.
    pub fn clear(&mut self) {
        let n = self.entries.len();
        if n * ENTRY_BYTES >= REALLOC_CLEAR_BYTES {
            // Free the old table first so that the new one fits where it did.
            self.entries = Box::new([]);
            match zeroed_entries(n) {
                Some(e) => self.entries = e,
                None => *self = Tt::allocate(n * ENTRY_BYTES / MB).0,
            }
        } else {
            self.entries.fill(Entry::default());
        }
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
        // The same position searched much shallower (a quiescence visit of a main-search node,
        // say) keeps the deeper result and takes only a new best move (Stockfish's rule).
        if same && bound != Bound::Exact && depth + TT_KEEP_DEEPER <= e.depth as i32 {
            if !mv.is_null() {
                e.mv = mv.0;
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_much_shallower_result_of_the_same_position_keeps_the_deeper_one() {
        let mut tt = Tt::new(1);
        let (key, deep, shallow) = (0x1234_5678_9abc_def0, Move(7), Move(9));
        tt.store(key, deep, 150, 20, 8, Bound::Lower, 0);
        // A quiescence visit (depth 0) of the same position: the depth-8 bound stays, the
        // new best move is taken.
        tt.store(key, shallow, -40, 20, 0, Bound::Upper, 0);
        let h = tt.probe(key, 0).expect("stored");
        assert_eq!((h.depth, h.score, h.bound, h.mv), (8, 150, Bound::Lower, shallow));
        // No move: the stored one stays too.
        tt.store(key, Move::NULL, -40, 20, 1, Bound::Upper, 0);
        assert_eq!(tt.probe(key, 0).expect("stored").mv, shallow);
        // Within TT_KEEP_DEEPER plies, or exact, the new result replaces it.
        tt.store(key, deep, 60, 20, 5, Bound::Upper, 0);
        let h = tt.probe(key, 0).expect("stored");
        assert_eq!((h.depth, h.score, h.bound), (5, 60, Bound::Upper));
        tt.store(key, deep, 70, 20, 0, Bound::Exact, 0);
        assert_eq!(tt.probe(key, 0).expect("stored").depth, 0);
    }
}
