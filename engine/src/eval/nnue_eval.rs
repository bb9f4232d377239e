//! NNUE evaluation inside the search: an accumulator stack ([`AccumulatorStack`]) follows
//! the searched path (a move pushes what it changed, the way up just pops), accumulators are
//! brought up to date lazily when a position is evaluated, and the head runs with SIMD
//! ([`crate::nnue::simd`]). The result is bit for bit the reference evaluation
//! ([`Network::evaluate`]); a network whose weights could overflow the i16 accumulators is
//! evaluated with the reference instead.

use crate::nnue::features::active_features;
use crate::nnue::fsf::FsfSearchEval;
use crate::nnue::network::{QA, QB, QB_SHIFT};
use crate::nnue::simd::{self, HeadWeights, Level};
use crate::nnue::stack::AccumulatorStack;
use crate::nnue::{Accumulator, Network};
use crate::position::Position;
use crate::types::Color;
use crate::variant::Variant;
use std::sync::Arc;

/// Accumulators and scratch for evaluating positions with one network.
pub struct NnueEval {
    net: Arc<Network>,
    level: Level,
    stack: AccumulatorStack,
    /// The L1 weights, prepared for the SIMD dot products.
    l1: HeadWeights,
    act: Vec<u8>,
    hidden: Vec<i32>,
    /// Reference (i32) accumulators for [`NnueEval::evaluate`].
    scratch: [Accumulator; 2],
    feats: Vec<u32>,
}

impl NnueEval {
    /// An evaluator of `net` for positions of `variant`, using the best SIMD level of this CPU.
    pub fn new(net: Arc<Network>, variant: &'static Variant) -> NnueEval {
        NnueEval::with_level(net, variant, Level::detect())
    }

    /// As [`NnueEval::new`] with a given SIMD level (tests compare levels).
    pub fn with_level(net: Arc<Network>, variant: &'static Variant, level: Level) -> NnueEval {
        let stack = AccumulatorStack::with_level(&net, variant, level);
        let h = net.ft_size();
        let k = net.weights().l1_bias.len();
        let l1 = HeadWeights::new(net.weights().l1_weights.clone(), 2 * h, k);
        let scratch = [Accumulator::new(&net), Accumulator::new(&net)];
        NnueEval {
            level,
            stack,
            l1,
            act: vec![0; 2 * h],
            hidden: vec![0; k],
            scratch,
            feats: Vec::with_capacity(128),
            net,
        }
    }

    /// The network.
    pub fn network(&self) -> &Arc<Network> {
        &self.net
    }

    /// The variant whose positions this evaluator follows.
    pub fn variant(&self) -> &'static Variant {
        self.stack.variant()
    }

    /// Whether the fast i16 path is used (see [`AccumulatorStack::exact`]).
    pub fn is_fast(&self) -> bool {
        self.stack.exact()
    }

    /// Starts a search path at `pos` (its accumulators are computed).
    pub fn refresh(&mut self, pos: &Position) {
        self.stack.reset(&self.net, pos);
    }

    /// Descends from `parent` (the current end of the path) to `child`.
    pub fn push(&mut self, parent: &Position, child: &Position) {
        self.stack.push(parent, child);
    }

    /// Returns to the parent of the current end of the path.
    pub fn pop(&mut self) {
        self.stack.pop();
    }

    /// The accumulator of `pos` (the current end of the path) from `perspective`.
    pub fn accumulator(&mut self, pos: &Position, perspective: Color) -> &[i16] {
        self.stack.update(&self.net, pos);
        self.stack.current(perspective)
    }

    /// Evaluation of `pos`, the current end of the path, in centipawns from its side to move's
    /// point of view.
    pub fn evaluate_current(&mut self, pos: &Position) -> i32 {
        if !self.stack.exact() {
            return self.evaluate(pos);
        }
        self.stack.update(&self.net, pos);
        let stm = pos.side_to_move();
        simd::crelu(self.level, self.stack.current(stm), self.stack.current(!stm), &mut self.act);
        simd::dots(self.level, &self.act, &self.l1, &mut self.hidden);
        // The reference's head (`Network::raw_output`) from here on.
        let w = self.net.weights();
        let mut out = w.out_bias;
        for ((&dot, &b), &ow) in self.hidden.iter().zip(&w.l1_bias).zip(&w.out_weights) {
            let s = b.wrapping_add(dot);
            let hidden = ((s + (QB >> 1)) >> QB_SHIFT).clamp(0, QA);
            out += hidden * i32::from(ow);
        }
        self.net.output_to_cp(out)
    }

    /// Full-refresh evaluation of `pos` with the scalar reference (does not touch the
    /// incremental state), in centipawns from the side to move's point of view.
    pub fn evaluate(&mut self, pos: &Position) -> i32 {
        let us = pos.side_to_move();
        for (i, c) in [us, !us].into_iter().enumerate() {
            self.feats.clear();
            active_features(pos, c, &mut self.feats);
            self.scratch[i].refresh(&self.net, &self.feats);
        }
        self.net.evaluate_accumulators(&self.scratch[0], &self.scratch[1])
    }
}

/// The net evaluation a search uses: a kage-format network or a Fairy-Stockfish-format one.
pub enum NetEval {
    /// kage's own format.
    Kage(NnueEval),
    /// Fairy-Stockfish's format.
    Fsf(FsfSearchEval),
}

impl NetEval {
    /// Starts a search path at `pos`.
    pub fn refresh(&mut self, pos: &Position) {
        match self {
            NetEval::Kage(n) => n.refresh(pos),
            NetEval::Fsf(n) => n.refresh(pos),
        }
    }

    /// Descends from `parent` (the current end of the path) to `child`.
    #[inline]
    pub fn push(&mut self, parent: &Position, child: &Position) {
        match self {
            NetEval::Kage(n) => n.push(parent, child),
            NetEval::Fsf(n) => n.push(parent, child),
        }
    }

    /// Returns to the parent of the current end of the path.
    #[inline]
    pub fn pop(&mut self) {
        match self {
            NetEval::Kage(n) => n.pop(),
            NetEval::Fsf(n) => n.pop(),
        }
    }

    /// Evaluation of `pos`, the current end of the path, in centipawns from its side to
    /// move's point of view.
    #[inline]
    pub fn evaluate_current(&mut self, pos: &Position) -> i32 {
        match self {
            NetEval::Kage(n) => n.evaluate_current(pos),
            NetEval::Fsf(n) => n.evaluate_current(pos),
        }
    }
}
