//! NNUE evaluation inside the search: one accumulator per perspective (White, Black), kept in
//! step with the searched position by applying the difference between a parent and a child
//! position (board squares that changed, hand counts that changed) on the way down and
//! reverting it on the way up. Exact integer arithmetic makes the revert exact.

use crate::nnue::features::{active_features, hand_feature, piece_feature};
use crate::nnue::{Accumulator, Network};
use crate::position::Position;
use crate::types::{Color, bits};
use std::sync::Arc;

/// Accumulators and scratch for evaluating positions with one network.
pub struct NnueEval {
    net: Arc<Network>,
    /// Indexed by perspective color.
    acc: [Accumulator; 2],
    scratch: [Accumulator; 2],
    feats: Vec<u32>,
}

impl NnueEval {
    /// An evaluator for `net`, its accumulators not yet computed.
    pub fn new(net: Arc<Network>) -> NnueEval {
        let acc = [Accumulator::new(&net), Accumulator::new(&net)];
        let scratch = [Accumulator::new(&net), Accumulator::new(&net)];
        NnueEval { net, acc, scratch, feats: Vec::with_capacity(128) }
    }

    /// The network.
    pub fn network(&self) -> &Arc<Network> {
        &self.net
    }

    /// Recomputes both accumulators for `pos`.
    pub fn refresh(&mut self, pos: &Position) {
        for c in Color::ALL {
            self.feats.clear();
            active_features(pos, c, &mut self.feats);
            self.acc[c as usize].refresh(&self.net, &self.feats);
        }
    }

    /// Moves the accumulators from position `from` (their current state) to `to`.
    pub fn apply(&mut self, from: &Position, to: &Position) {
        let v = to.variant();
        let changed = from.occupied() | to.occupied();
        for sq in bits(changed) {
            let (a, b) = (from.piece_on(sq), to.piece_on(sq));
            if a == b {
                continue;
            }
            for c in Color::ALL {
                let acc = &mut self.acc[c as usize];
                if let Some(p) = a {
                    acc.remove_feature(&self.net, piece_feature(v, c, p, sq));
                }
                if let Some(p) = b {
                    acc.add_feature(&self.net, piece_feature(v, c, p, sq));
                }
            }
        }
        for owner in Color::ALL {
            for &k in &v.hand_kinds {
                let (n0, n1) = (from.hand(owner, k), to.hand(owner, k));
                if n0 == n1 {
                    continue;
                }
                for c in Color::ALL {
                    let acc = &mut self.acc[c as usize];
                    for slot in n0.min(n1)..n0.max(n1) {
                        if let Some(f) = hand_feature(v, c, owner, k, slot) {
                            if n1 > n0 {
                                acc.add_feature(&self.net, f);
                            } else {
                                acc.remove_feature(&self.net, f);
                            }
                        }
                    }
                }
            }
        }
    }

    /// Evaluation of the position the accumulators describe, side to move `stm`.
    pub fn evaluate_current(&self, stm: Color) -> i32 {
        self.net.evaluate_accumulators(&self.acc[stm as usize], &self.acc[!stm as usize])
    }

    /// Full-refresh evaluation of `pos` (does not touch the incremental state), in
    /// centipawns from the side to move's point of view.
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
