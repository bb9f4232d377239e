//! FSF-format evaluation inside the search: accumulators on a stack that follows the searched
//! path (a move records what it changed; the way up just pops), brought up to date lazily per
//! perspective, and a king move refreshed from an accumulator cache per perspective and king
//! square (a "Finny table": the cache holds the accumulator and the pieces it was computed
//! for; a refresh adds and removes only the difference). The result equals
//! [`super::reference::evaluate`] bit for bit (tested on random playouts).

use super::arch::{BUCKETS, CLAMP_MAX, L1, L1_IN, L2, L3, OUTPUT_SCALE, WEIGHT_SCALE_BITS};
use super::network::{FsfNetwork, to_centipawns};
use crate::nnue::changes::Changes;
use crate::nnue::simd::{self, Level};
use crate::position::Position;
use crate::types::{Color, MAX_KINDS, MAX_SQUARES, Piece};
use crate::variant::Variant;
use std::sync::Arc;

#[derive(Clone, Copy)]
struct Entry {
    computed: [bool; 2],
    king: [u8; 2],
    changes: Changes,
}

impl Entry {
    const EMPTY: Entry = Entry { computed: [false; 2], king: [0; 2], changes: Changes::NONE };
}

/// One cached accumulator of the Finny table and the pieces it stands for.
#[derive(Clone)]
struct Cached {
    acc: Vec<i16>,
    psqt: [i32; BUCKETS],
    board: [u8; MAX_SQUARES],
    hands: [[u8; MAX_KINDS]; 2],
}

/// Accumulators and scratch for evaluating one variant's positions with an FSF-format net.
pub struct FsfSearchEval {
    net: Arc<FsfNetwork>,
    variant: &'static Variant,
    level: Level,
    /// Entry `i`, perspective `c`: `acc[(2 i + c) L1 ..][..L1]`, `psqt[2 i + c]`.
    acc: Vec<i16>,
    psqt: Vec<[i32; BUCKETS]>,
    entries: Vec<Entry>,
    top: usize,
    /// Per perspective and king square: `finny[c · squares + king_sq]`.
    finny: Vec<Cached>,
    add: Vec<u32>,
    sub: Vec<u32>,
    act: Vec<u8>,
}

impl FsfSearchEval {
    /// An evaluator of `net` (which must fit `variant`) at the best SIMD level of this CPU.
    pub fn new(net: Arc<FsfNetwork>, variant: &'static Variant) -> FsfSearchEval {
        FsfSearchEval::with_level(net, variant, Level::detect())
    }

    /// As [`FsfSearchEval::new`] at a given SIMD level (tests compare levels).
    pub fn with_level(net: Arc<FsfNetwork>, variant: &'static Variant, level: Level) -> Self {
        let depth = 160;
        let cached = Cached {
            acc: net.net().ft_bias.clone(),
            psqt: [0; BUCKETS],
            board: [Piece::NONE_CODE; MAX_SQUARES],
            hands: [[0; MAX_KINDS]; 2],
        };
        let squares = net.layout().squares() as usize;
        FsfSearchEval {
            variant,
            level,
            acc: vec![0; depth * 2 * L1],
            psqt: vec![[0; BUCKETS]; depth * 2],
            entries: vec![Entry::EMPTY; depth],
            top: 0,
            finny: vec![cached; 2 * squares],
            add: Vec::with_capacity(128),
            sub: Vec::with_capacity(128),
            act: vec![0; L1_IN],
            net,
        }
    }

    /// The net.
    pub fn network(&self) -> &Arc<FsfNetwork> {
        &self.net
    }

    /// The variant whose positions this evaluator follows.
    pub fn variant(&self) -> &'static Variant {
        self.variant
    }

    /// Starts a search path at `pos`.
    pub fn refresh(&mut self, pos: &Position) {
        self.top = 0;
        self.entries[0] = Entry::EMPTY;
        self.entries[0].king = [pos.king_square(Color::White), pos.king_square(Color::Black)];
        for c in Color::ALL {
            self.refresh_from_cache(c, pos);
        }
    }

    /// Descends from `parent` (the current end of the path) to `child`: records what changed.
    pub fn push(&mut self, parent: &Position, child: &Position) {
        self.top += 1;
        if self.top == self.entries.len() {
            self.entries.push(Entry::EMPTY);
            self.acc.resize(self.acc.len() + 2 * L1, 0);
            self.psqt.extend([[0; BUCKETS]; 2]);
        }
        self.entries[self.top] = Entry {
            computed: [false; 2],
            king: [child.king_square(Color::White), child.king_square(Color::Black)],
            changes: Changes::between(self.variant, parent, child),
        };
    }

    /// Returns to the parent of the current end of the path.
    ///
    /// # Panics
    /// Panics at the root.
    pub fn pop(&mut self) {
        assert!(self.top > 0, "accumulator stack popped at the root");
        self.top -= 1;
    }

    /// Brings the current end of the path (`pos`) up to date, both perspectives.
    pub fn update(&mut self, pos: &Position) {
        for c in Color::ALL {
            if self.entries[self.top].computed[c.index()] {
                continue;
            }
            let king = self.entries[self.top].king[c.index()];
            let mut base = self.top;
            let mut refresh = false;
            while !self.entries[base].computed[c.index()] {
                let e = &self.entries[base];
                refresh |= e.changes.overflow() || e.king[c.index()] != king;
                base -= 1; // entry 0 is always computed
            }
            if refresh || self.entries[base].king[c.index()] != king {
                self.refresh_from_cache(c, pos);
            } else {
                (base + 1..=self.top).for_each(|i| self.apply(c, i));
            }
        }
    }

    /// The plain NNUE value of `pos` (the current end of the path) in FSF internal units,
    /// side-to-move relative (FSF-NNUE.md §4.2 step 6).
    pub fn evaluate_internal(&mut self, pos: &Position) -> i32 {
        self.update(pos);
        let (us, them) = (pos.side_to_move().index(), (!pos.side_to_move()).index());
        let at = |c: usize| (2 * self.top + c) * L1;
        let (a_us, a_them) = (at(us), at(them));
        simd::crelu(
            self.level,
            &self.acc[a_us..a_us + L1],
            &self.acc[a_them..a_them + L1],
            &mut self.act,
        );
        let b = self.net.layout().bucket(pos);
        let mut dots = [0i32; L2];
        simd::dots(self.level, &self.act, self.net.l1(b), &mut dots);
        let stack = &self.net.net().stacks[b];
        let mut h1 = [0u8; L2];
        for (o, h) in h1.iter_mut().enumerate() {
            let sum = stack.l1_bias[o].wrapping_add(dots[o]);
            *h = (sum >> WEIGHT_SCALE_BITS).clamp(0, CLAMP_MAX) as u8;
        }
        // Layer 2 (16 → 32) by the same dot products; the inputs are in 0..=127 and the
        // sums far from overflow, so this equals `reference::layers_after_l1` exactly.
        let mut d2 = [0i32; L3];
        simd::dots(self.level, &h1, self.net.l2(b), &mut d2);
        let mut out = stack.out_bias;
        for ((&d, &bias), &w) in d2.iter().zip(&stack.l2_bias).zip(&stack.out_weights) {
            let h2 = ((bias + d) >> WEIGHT_SCALE_BITS).clamp(0, CLAMP_MAX);
            out += h2 * i32::from(w);
        }
        let (p_us, p_them) = (self.psqt[2 * self.top + us][b], self.psqt[2 * self.top + them][b]);
        ((p_us - p_them) / 2 + out) / OUTPUT_SCALE
    }

    /// [`FsfSearchEval::evaluate_internal`] in kage's centipawns (FSF's 208 = 100).
    pub fn evaluate_current(&mut self, pos: &Position) -> i32 {
        to_centipawns(self.evaluate_internal(pos))
    }

    /// Computes perspective `c` of entry `i` from entry `i − 1` (same king square).
    fn apply(&mut self, c: Color, i: usize) {
        let e = self.entries[i];
        let layout = self.net.layout();
        let block = layout.king_block(c, e.king[c.index()]);
        self.add.clear();
        self.sub.clear();
        for s in e.changes.squares() {
            if let Some(p) = s.old {
                self.sub.push(layout.board_feature(c, block, p, s.sq));
            }
            if let Some(p) = s.new {
                self.add.push(layout.board_feature(c, block, p, s.sq));
            }
        }
        for h in e.changes.hands() {
            let list = if h.to > h.from { &mut self.add } else { &mut self.sub };
            for slot in h.from.min(h.to)..h.from.max(h.to) {
                list.extend(layout.hand_feature(c, block, h.owner, h.kind, slot));
            }
        }
        let (before, after) = self.acc.split_at_mut((2 * i) * L1);
        let src = &before[(2 * (i - 1) + c.index()) * L1..][..L1];
        let dst = &mut after[c.index() * L1..][..L1];
        simd::update(self.level, dst, src, &self.net.net().ft_weights, &self.add, &self.sub);
        let mut psqt = self.psqt[2 * (i - 1) + c.index()];
        psqt_update(&mut psqt, &self.net, &self.add, &self.sub);
        self.psqt[2 * i + c.index()] = psqt;
        self.entries[i].computed[c.index()] = true;
    }

    /// Perspective `c` of the current end of the path from the cache of its king square:
    /// only the pieces that differ from the cached ones are added or removed.
    fn refresh_from_cache(&mut self, c: Color, pos: &Position) {
        let layout = self.net.layout();
        let ksq = pos.king_square(c);
        let block = layout.king_block(c, ksq);
        let cached = &mut self.finny[c.index() * layout.squares() as usize + ksq as usize];
        self.add.clear();
        self.sub.clear();
        for sq in 0..layout.squares() as u8 {
            let now = pos.piece_on(sq).map_or(Piece::NONE_CODE, Piece::code);
            let was = std::mem::replace(&mut cached.board[sq as usize], now);
            if now != was {
                self.sub
                    .extend(Piece::from_code(was).map(|p| layout.board_feature(c, block, p, sq)));
                self.add
                    .extend(Piece::from_code(now).map(|p| layout.board_feature(c, block, p, sq)));
            }
        }
        for owner in Color::ALL {
            for &kind in &self.variant.hand_kinds {
                let now = pos.hand(owner, kind);
                let was = std::mem::replace(&mut cached.hands[owner.index()][kind.index()], now);
                let list = if now > was { &mut self.add } else { &mut self.sub };
                for slot in now.min(was)..now.max(was) {
                    list.extend(layout.hand_feature(c, block, owner, kind, slot));
                }
            }
        }
        let at = (2 * self.top + c.index()) * L1;
        let dst = &mut self.acc[at..at + L1];
        simd::update(
            self.level,
            dst,
            &cached.acc,
            &self.net.net().ft_weights,
            &self.add,
            &self.sub,
        );
        cached.acc.copy_from_slice(dst);
        psqt_update(&mut cached.psqt, &self.net, &self.add, &self.sub);
        self.psqt[2 * self.top + c.index()] = cached.psqt;
        self.entries[self.top].computed[c.index()] = true;
    }
}

/// `psqt += rows(add) − rows(sub)` (i32).
fn psqt_update(psqt: &mut [i32; BUCKETS], net: &FsfNetwork, add: &[u32], sub: &[u32]) {
    for &f in add {
        psqt.iter_mut().zip(net.net().psqt_row(f)).for_each(|(p, &w)| *p = p.wrapping_add(w));
    }
    for &f in sub {
        psqt.iter_mut().zip(net.net().psqt_row(f)).for_each(|(p, &w)| *p = p.wrapping_sub(w));
    }
}

#[cfg(test)]
mod tests;
