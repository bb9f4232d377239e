//! The search's accumulators: a stack with one entry per position on the searched path, so
//! nothing is ever undone on the way up.
//!
//! Going down ([`AccumulatorStack::push`]) records only what the move changed (the squares
//! whose piece changed, the hand counts that changed); the child's accumulators are computed
//! when a position is evaluated ([`AccumulatorStack::update`]): from the nearest computed
//! ancestor by adding and removing the changed features' rows, or by a full refresh when that
//! is cheaper. Accumulators are i16; [`AccumulatorStack::exact`] tells whether the network's
//! weights guarantee that no accumulator leaves the i16 range, so that they equal the
//! reference's i32 accumulators in every position.

use super::changes::Changes;
use super::features::{active_features, hand_feature, piece_feature};
use super::network::Network;
use super::simd::{self, Level};
use crate::position::Position;
use crate::types::{Color, Piece, PieceKind};
use crate::variant::Variant;

/// What one move changed, and whether the entry's accumulators are computed.
#[derive(Clone, Copy)]
struct Entry {
    computed: bool,
    changes: Changes,
}

impl Entry {
    const EMPTY: Entry = Entry { computed: false, changes: Changes::NONE };
}

/// Accumulators (White's and Black's perspective) for every position of the searched path.
pub struct AccumulatorStack {
    variant: &'static Variant,
    level: Level,
    h: usize,
    /// Entry `i` holds `2 * h` values: White's perspective, then Black's.
    accs: Vec<i16>,
    entries: Vec<Entry>,
    top: usize,
    exact: bool,
    /// `piece_feature` of every (perspective, color, kind, square), as a table:
    /// `psq[((perspective * 2 + color) * kinds + kind) * squares + square]`.
    psq: Vec<u32>,
    add: Vec<u32>,
    sub: Vec<u32>,
}

impl AccumulatorStack {
    /// An empty stack for `net` on positions of `variant` (call [`AccumulatorStack::reset`]
    /// before use), using the best SIMD level of this CPU.
    pub fn new(net: &Network, variant: &'static Variant) -> AccumulatorStack {
        AccumulatorStack::with_level(net, variant, Level::detect())
    }

    /// As [`AccumulatorStack::new`] with a given SIMD level (tests compare levels).
    pub fn with_level(net: &Network, variant: &'static Variant, level: Level) -> AccumulatorStack {
        let h = net.ft_size();
        let depth = 160;
        AccumulatorStack {
            variant,
            level,
            h,
            accs: vec![0; depth * 2 * h],
            entries: vec![Entry::EMPTY; depth],
            top: 0,
            exact: fits_i16(net, variant),
            psq: psq_table(variant),
            add: Vec::with_capacity(64),
            sub: Vec::with_capacity(64),
        }
    }

    /// The variant whose positions the stack follows.
    pub fn variant(&self) -> &'static Variant {
        self.variant
    }

    /// Whether the i16 accumulators are exact for every position of the variant: the bias
    /// plus the largest possible sum of active rows stays within i16 in every column.
    pub fn exact(&self) -> bool {
        self.exact
    }

    /// Empties the stack and computes the accumulators of `pos` (the root).
    pub fn reset(&mut self, net: &Network, pos: &Position) {
        self.top = 0;
        self.entries[0] = Entry::EMPTY;
        self.refresh_top(net, pos);
    }

    /// Descends from `parent` (the position of the top entry) to `child`: records what
    /// changed; nothing is computed until [`AccumulatorStack::update`].
    pub fn push(&mut self, parent: &Position, child: &Position) {
        self.top += 1;
        if self.top == self.entries.len() {
            self.entries.push(Entry::EMPTY);
            self.accs.resize(self.accs.len() + 2 * self.h, 0);
        }
        self.entries[self.top] =
            Entry { computed: false, changes: Changes::between(self.variant, parent, child) };
    }

    /// Returns to the parent of the top entry (its accumulators are still there).
    ///
    /// # Panics
    /// Panics at the root.
    pub fn pop(&mut self) {
        assert!(self.top > 0, "accumulator stack popped at the root");
        self.top -= 1;
    }

    /// Computes the top entry's accumulators for `pos` (the position it stands for), from the
    /// nearest computed ancestor or by a refresh, whichever is cheaper.
    pub fn update(&mut self, net: &Network, pos: &Position) {
        if self.entries[self.top].computed {
            return;
        }
        let mut base = self.top;
        let mut rows = 0u32;
        let mut overflow = false;
        while !self.entries[base].computed {
            rows += self.entries[base].changes.rows();
            overflow |= self.entries[base].changes.overflow();
            base -= 1; // entry 0 is always computed
        }
        let refresh_rows = pos.occupied().count_ones() + hand_slots(pos);
        if overflow || rows > refresh_rows {
            self.refresh_top(net, pos);
            return;
        }
        for i in base + 1..=self.top {
            self.apply(net, i);
        }
    }

    /// The top entry's accumulator from `perspective` (call [`AccumulatorStack::update`]
    /// first).
    ///
    /// # Panics
    /// Panics if the top entry is not computed.
    pub fn current(&self, perspective: Color) -> &[i16] {
        assert!(self.entries[self.top].computed, "accumulator not computed");
        let start = (self.top * 2 + perspective as usize) * self.h;
        &self.accs[start..start + self.h]
    }

    /// Computes entry `i` from entry `i - 1` (computed) and the changes `i` recorded.
    fn apply(&mut self, net: &Network, i: usize) {
        let e = self.entries[i];
        let (v, h) = (self.variant, self.h);
        let (kinds, squares) = (v.num_kinds(), v.num_squares as usize);
        let psq = |c: Color, p: Piece, sq: u8| {
            self.psq[((c as usize * 2 + p.color as usize) * kinds + p.kind.index()) * squares
                + sq as usize]
        };
        let (before, after) = self.accs.split_at_mut(i * 2 * h);
        let parent = &before[(i - 1) * 2 * h..];
        for c in Color::ALL {
            self.add.clear();
            self.sub.clear();
            for s in e.changes.squares() {
                if let Some(p) = s.old {
                    self.sub.push(psq(c, p, s.sq));
                }
                if let Some(p) = s.new {
                    self.add.push(psq(c, p, s.sq));
                }
            }
            for hc in e.changes.hands() {
                let list = if hc.to > hc.from { &mut self.add } else { &mut self.sub };
                for slot in hc.from.min(hc.to)..hc.from.max(hc.to) {
                    if let Some(f) = hand_feature(v, c, hc.owner, hc.kind, slot) {
                        list.push(f);
                    }
                }
            }
            let at = c as usize * h;
            simd::update(
                self.level,
                &mut after[at..at + h],
                &parent[at..at + h],
                &net.weights().ft_weights,
                &self.add,
                &self.sub,
            );
        }
        self.entries[i].computed = true;
    }

    fn refresh_top(&mut self, net: &Network, pos: &Position) {
        let h = self.h;
        for c in Color::ALL {
            self.add.clear();
            active_features(pos, c, &mut self.add);
            let at = (self.top * 2 + c as usize) * h;
            simd::update(
                self.level,
                &mut self.accs[at..at + h],
                net.ft_bias(),
                &net.weights().ft_weights,
                &self.add,
                &[],
            );
        }
        self.entries[self.top].computed = true;
    }
}

fn psq_table(v: &Variant) -> Vec<u32> {
    let mut t = Vec::with_capacity(4 * v.num_kinds() * v.num_squares as usize);
    for perspective in Color::ALL {
        for color in Color::ALL {
            for k in 0..v.num_kinds() {
                for sq in 0..v.num_squares {
                    let piece = Piece { color, kind: PieceKind(k as u8) };
                    t.push(piece_feature(v, perspective, piece, sq));
                }
            }
        }
    }
    t
}

fn hand_slots(pos: &Position) -> u32 {
    let v = pos.variant();
    Color::ALL
        .iter()
        .flat_map(|&c| v.hand_kinds.iter().map(move |&k| u32::from(pos.hand(c, k))))
        .sum()
}

/// Whether every accumulator value of every position of `v` fits i16, so that i16 arithmetic
/// (wrapping in between) ends at the exact value. Per FT column: `|bias|` plus, for every
/// square, the largest `|w|` of a piece there, plus every hand slot's `|w|` must be at most
/// `i16::MAX` (a square holds one piece at most; the board flip for Black only permutes the
/// squares, so White's view bounds both).
fn fits_i16(net: &Network, v: &Variant) -> bool {
    let h = net.ft_size();
    let w = &net.weights().ft_weights;
    let mut bound: Vec<i64> = net.ft_bias().iter().map(|&b| i64::from(b).abs()).collect();
    let row = |f: u32| &w[f as usize * h..(f as usize + 1) * h];
    let mut best = vec![0i64; h];
    for sq in 0..v.num_squares {
        best.iter_mut().for_each(|b| *b = 0);
        for color in Color::ALL {
            for k in 0..v.num_kinds() {
                let piece = Piece { color, kind: PieceKind(k as u8) };
                for (b, &x) in best.iter_mut().zip(row(piece_feature(v, Color::White, piece, sq))) {
                    *b = (*b).max(i64::from(x).abs());
                }
            }
        }
        bound.iter_mut().zip(&best).for_each(|(t, &b)| *t += b);
    }
    for owner in Color::ALL {
        for (&kind, &max) in v.hand_kinds.iter().zip(&v.hand_max) {
            for slot in 0..max {
                if let Some(f) = hand_feature(v, Color::White, owner, kind, slot) {
                    for (t, &x) in bound.iter_mut().zip(row(f)) {
                        *t += i64::from(x).abs();
                    }
                }
            }
        }
    }
    bound.iter().all(|&b| b <= i64::from(i16::MAX))
}
