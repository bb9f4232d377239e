//! Factorisers: besides its own row, a feature also activates a shared "virtual" row, so
//! what it has in common with its group is learnt from every position the group appears in;
//! on export the virtual rows are added to their real rows, so the network file has the
//! plain feature set and computes exactly the trained function.
//!
//! - the small net's piece factoriser: a board feature's group is its piece (own/theirs and
//!   kind, any square);
//! - the fsf architecture's king-independent factoriser (Fairy-Stockfish's "HalfKAv2^", the
//!   "A" features of FSF-NNUE.md §8.3): a HalfKAv2 feature's group is the same
//!   piece-square or hand slot without the king block, `f mod B`.

use super::NetParams;
use crate::data::batch::SparseBatch;
use kage_engine::Variant;
use kage_engine::nnue::features;

/// Which virtual row a real feature also activates.
#[derive(Debug, Clone, Copy)]
enum Groups {
    /// The small net's piece groups.
    Pieces(&'static Variant),
    /// HalfKAv2 without the king block: `f mod per_king`.
    KingFree(u32),
}

/// Adds the virtual group features to batches and folds them away for export.
#[derive(Debug, Clone)]
pub struct Factoriser {
    groups_of: Groups,
    /// The engine's feature count: virtual features are numbered from here.
    real: usize,
    groups: usize,
}

impl Factoriser {
    /// The piece factoriser of `variant`'s small-net feature set.
    pub fn new(variant: &'static Variant) -> Factoriser {
        Factoriser {
            groups_of: Groups::Pieces(variant),
            real: features::num_features(variant),
            groups: features::num_piece_groups(variant),
        }
    }

    /// The king-independent factoriser of a HalfKAv2 feature set of `dims` features,
    /// `per_king` per king square.
    pub fn king_free(dims: usize, per_king: u32) -> Factoriser {
        Factoriser { groups_of: Groups::KingFree(per_king), real: dims, groups: per_king as usize }
    }

    /// The virtual group (0-based) real feature `f` also activates, if any.
    #[inline]
    fn group(&self, f: u32) -> Option<u32> {
        match self.groups_of {
            Groups::Pieces(v) => features::piece_group(v, f),
            Groups::KingFree(per_king) => ((f as usize) < self.real).then_some(f % per_king),
        }
    }

    /// Feature count the model trains with (real and virtual).
    pub fn train_features(&self) -> usize {
        self.real + self.groups
    }

    /// Feature count of the exported network.
    pub fn real_features(&self) -> usize {
        self.real
    }

    /// Appends `feats` and their group features to `out`.
    pub fn extend(&self, feats: &[u32], out: &mut Vec<u32>) {
        out.extend_from_slice(feats);
        for &f in feats {
            if let Some(g) = self.group(f) {
                out.push(self.real as u32 + g);
            }
        }
    }

    /// `batch` with the group features added (into `out`, reusing its allocations).
    pub fn expand(&self, batch: &SparseBatch, out: &mut SparseBatch) {
        out.stm_indices.clear();
        out.stm_offsets.clear();
        out.nstm_indices.clear();
        out.nstm_offsets.clear();
        out.targets.clear();
        let (mut stm, mut nstm) = (Vec::new(), Vec::new());
        for i in 0..batch.len() {
            stm.clear();
            nstm.clear();
            self.extend(batch.features(i, 0), &mut stm);
            self.extend(batch.features(i, 1), &mut nstm);
            out.push_features(&stm, &nstm, batch.targets[i]);
        }
    }

    /// Zeroes the group rows (a fresh model starts as if it had no factoriser).
    pub fn zero_groups(&self, params: &mut NetParams) {
        let h = params.ft_size;
        params.ft_w[self.real * h..].iter_mut().for_each(|w| *w = 0.0);
    }

    /// The network the engine runs: group rows added to their piece-square rows, then
    /// dropped. Its output equals the factorised model's for every position (in exact
    /// arithmetic; float rounding differs in the last bits).
    pub fn fold(&self, params: &NetParams) -> NetParams {
        let mut out = params.clone();
        out.ft_w = self.fold_rows(&params.ft_w, params.ft_size);
        out.num_features = self.real;
        out
    }

    /// Rows of `width` values per feature (real then virtual) folded into the real rows:
    /// each real row plus its group's virtual row.
    pub fn fold_rows(&self, rows: &[f32], width: usize) -> Vec<f32> {
        let mut out = rows[..self.real * width].to_vec();
        for f in 0..self.real {
            if let Some(g) = self.group(f as u32) {
                let src = (self.real + g as usize) * width;
                for j in 0..width {
                    out[f * width + j] += rows[src + j];
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kage_engine::nnue::features::active_features;
    use kage_engine::{Position, VariantId};

    #[test]
    fn folded_network_computes_the_factorised_function() {
        for id in VariantId::ALL {
            let v = Variant::builtin(id);
            let fz = Factoriser::new(v);
            let mut params = NetParams::init(fz.train_features(), 16, 8, 3);
            // Non-zero group rows, so folding has something to do.
            let h = params.ft_size;
            for (i, w) in params.ft_w[fz.real_features() * h..].iter_mut().enumerate() {
                *w = ((i % 7) as f32 - 3.0) * 0.01;
            }
            let folded = fz.fold(&params);
            assert_eq!(folded.num_features, features::num_features(v));
            assert_eq!(folded.ft_w.len(), folded.num_features * h);
            let pos = &Position::startpos(v);
            let stm = pos.side_to_move();
            let (mut a, mut b) = (Vec::new(), Vec::new());
            active_features(pos, stm, &mut a);
            active_features(pos, !stm, &mut b);
            let (mut ax, mut bx) = (Vec::new(), Vec::new());
            fz.extend(&a, &mut ax);
            fz.extend(&b, &mut bx);
            assert!(ax.len() > a.len(), "board pieces add group features");
            let want = params.forward(&ax, &bx);
            let got = folded.forward(&a, &b);
            assert!((want - got).abs() < 1e-4, "{}: {want} vs {got}", v.name);
        }
    }

    #[test]
    fn expand_adds_one_group_feature_per_board_feature() {
        let v = Variant::builtin(VariantId::MINISHOGI);
        let fz = Factoriser::new(v);
        let mut batch = SparseBatch::with_capacity(1);
        let board = features::board_features(v) as u32;
        batch.push_features(&[0, 1, board], &[2], 0.25);
        let mut out = SparseBatch::default();
        fz.expand(&batch, &mut out);
        let g = fz.real_features() as u32;
        assert_eq!(out.features(0, 0), &[0, 1, board, g, g]);
        assert_eq!(out.features(0, 1), &[2, g]);
        assert_eq!(out.targets, vec![0.25]);
    }
}
