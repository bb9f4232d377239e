//! NNUE evaluation inside the search: reusable accumulators and feature buffers, refreshed
//! from the position at each evaluated node (no allocation per node).

use crate::nnue::features::active_features;
use crate::nnue::{Accumulator, Network};
use crate::position::Position;
use std::sync::Arc;

/// Scratch state for evaluating positions with one network.
pub struct NnueEval {
    net: Arc<Network>,
    stm: Accumulator,
    nstm: Accumulator,
    feats: Vec<u32>,
}

impl NnueEval {
    pub fn new(net: Arc<Network>) -> NnueEval {
        let stm = Accumulator::new(&net);
        let nstm = Accumulator::new(&net);
        NnueEval { net, stm, nstm, feats: Vec::with_capacity(128) }
    }

    pub fn network(&self) -> &Arc<Network> {
        &self.net
    }

    /// Evaluation in centipawns from the side to move's point of view.
    pub fn evaluate(&mut self, pos: &Position) -> i32 {
        let us = pos.side_to_move();
        self.feats.clear();
        active_features(pos, us, &mut self.feats);
        self.stm.refresh(&self.net, &self.feats);
        self.feats.clear();
        active_features(pos, !us, &mut self.feats);
        self.nstm.refresh(&self.net, &self.feats);
        self.net.evaluate_accumulators(&self.stm, &self.nstm)
    }
}
