//! The fsf architecture's float model (Fairy-Stockfish's, FSF-NNUE.md §2, §8.3): the
//! HalfKAv2_variants feature transformer (512 wide, in [`NetParams`] with no head), its PSQT
//! (8 buckets) and 8 layer stacks `1024 -> 16 -> 32 -> 1` with clipped ReLU, the stack and
//! the PSQT column chosen by the bucket of the board's piece count. The value FSF computes
//! from the exported net is about [`NNUE2SCORE`] times the output here.

use super::NetParams;
use super::factor::Factoriser;
use kage_engine::nnue::fsf::FsfLayout;
use kage_engine::nnue::fsf::arch::{BUCKETS, L1, L1_IN, L2, L3};
use kage_engine::{Color, Variant};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// FSF internal units per unit of the float output (the trainer's `nnue2score`).
pub const NNUE2SCORE: f32 = 600.0;
/// The loss's output scaling: `sigmoid(out · NNUE2SCORE / OUT_SCALING)`.
pub const OUT_SCALING: f32 = 361.0;
/// The loss's input scaling: `sigmoid(score / IN_SCALING)`, the score in FSF units.
pub const IN_SCALING: f32 = 410.0;
/// FSF internal units per kage centipawn (PawnValueEg 208 per 100 cp).
pub const FSF_UNITS_PER_CP: f32 = 2.08;
/// The blend scale of kage's centipawn scores that gives FSF's `score / 410` in FSF units.
pub const TARGET_SCALE_CP: f32 = IN_SCALING / FSF_UNITS_PER_CP;
/// The factor from the output to the loss's logit.
pub const LOGIT: f32 = NNUE2SCORE / OUT_SCALING;
/// Largest |L1 or L2 weight| an i8 holds after ×64 (model.py's clipping).
pub const HIDDEN_LIMIT: f32 = 127.0 / 64.0;
/// Largest |output weight| an i8 holds after ×9600/127.
pub const OUT_LIMIT: f32 = 127.0 * 127.0 / 9600.0;

/// What the trainer needs of a variant's HalfKAv2 layout.
#[derive(Debug, Clone)]
pub struct FsfShape {
    /// The engine's layout.
    pub layout: FsfLayout,
    /// Real input features (`S · B`).
    pub dims: usize,
    /// Features per king block (`B`).
    pub per_king: u32,
    /// Board features per king block (`(2n − 1) · S`); the hand slots follow.
    pub board_span: u32,
}

impl FsfShape {
    /// The shape of `layout`.
    pub fn new(layout: FsfLayout) -> FsfShape {
        let board_span = (2 * layout.num_types() - 1) * layout.squares();
        FsfShape { dims: layout.dims(), per_king: layout.per_king(), board_span, layout }
    }

    /// The king-independent factoriser over this layout.
    pub fn factoriser(&self) -> Factoriser {
        Factoriser::king_free(self.dims, self.per_king)
    }

    /// The bucket of a position from one perspective's active features: its board features
    /// are its board pieces (kings included), so this is [`FsfLayout::bucket_for`] of their
    /// count. Virtual (factoriser) features are not counted.
    pub fn bucket(&self, features: &[u32]) -> usize {
        let board = features
            .iter()
            .filter(|&&f| (f as usize) < self.dims && f % self.per_king < self.board_span)
            .count();
        self.layout.bucket_for(board as u32)
    }
}

/// The PSQT and the layer stacks (float), every tensor bucket-major.
#[derive(Debug, Clone, PartialEq)]
pub struct FsfHead {
    /// Rows of the FT (real, then virtual): `rows × BUCKETS`.
    pub psqt: Vec<f32>,
    /// Per stack `L1_IN × L2`, input-major.
    pub l1_w: Vec<f32>,
    /// Per stack `L2`.
    pub l1_b: Vec<f32>,
    /// Per stack `L2 × L3`, input-major.
    pub l2_w: Vec<f32>,
    /// Per stack `L3`.
    pub l2_b: Vec<f32>,
    /// Per stack `L3`.
    pub out_w: Vec<f32>,
    /// Per stack one.
    pub out_b: Vec<f32>,
}

/// Sizes of one stack's tensors.
pub const STACK_SIZES: [usize; 6] = [L1_IN * L2, L2, L2 * L3, L3, L3, 1];

impl FsfHead {
    /// Seeded initialisation (PyTorch's default: uniform ±1/√fan_in; biases 0.5 so hidden
    /// units start in the clipped ReLU's linear region), the PSQT zero.
    pub fn init(rows: usize, seed: u64) -> FsfHead {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0xf5f_5eed);
        let mut uniform =
            |n: usize, a: f32| -> Vec<f32> { (0..n).map(|_| rng.random_range(-a..a)).collect() };
        let l1_w = uniform(BUCKETS * L1_IN * L2, (1.0 / L1_IN as f32).sqrt());
        let l2_w = uniform(BUCKETS * L2 * L3, (1.0 / L2 as f32).sqrt());
        let out_w = uniform(BUCKETS * L3, (1.0 / L3 as f32).sqrt());
        FsfHead {
            psqt: vec![0.0; rows * BUCKETS],
            l1_w,
            l1_b: vec![0.5; BUCKETS * L2],
            l2_w,
            l2_b: vec![0.5; BUCKETS * L3],
            out_w,
            out_b: vec![0.0; BUCKETS],
        }
    }

    /// Puts the variant's piece values (spec values, converted to FSF units, / 600) into the
    /// PSQT rows of every king block and bucket, as FSF's trainer does (model.py): own pieces
    /// positive, the opponent's negative, the kings 0. Promoted kinds FSF sees as another
    /// type take the value of the last kage kind mapped to it.
    pub fn init_psqt(&mut self, shape: &FsfShape, v: &Variant) {
        let l = &shape.layout;
        let (s, p) = (l.squares() as usize, l.pockets() as usize);
        let mut board = vec![0.0f32; l.num_types() as usize];
        let mut hand = board.clone();
        for (i, k) in v.kinds.iter().enumerate() {
            let kind = kage_engine::PieceKind(i as u8);
            if kind == v.king {
                continue;
            }
            let o = l.piece_ordinal(kind) as usize;
            board[o] = k.value as f32 * FSF_UNITS_PER_CP / NNUE2SCORE;
            hand[o] = k.hand_value as f32 * FSF_UNITS_PER_CP / NNUE2SCORE;
        }
        let types = l.num_types() as usize - 1;
        let mut block = vec![0.0f32; shape.per_king as usize];
        for o in 0..types {
            for c in 0..2 {
                let sign = if c == 0 { 1.0 } else { -1.0 };
                let plane = 2 * o + c;
                block[plane * s..(plane + 1) * s].fill(sign * board[o]);
                let h = shape.board_span as usize + plane * p;
                block[h..h + p].fill(sign * hand[o]);
            }
        }
        for f in 0..shape.dims {
            let value = block[f % shape.per_king as usize];
            self.psqt[f * BUCKETS..(f + 1) * BUCKETS].fill(value);
        }
    }

    /// Trainable values.
    pub fn count(&self) -> usize {
        self.tensors().iter().map(|t| t.len()).sum()
    }

    /// The tensors in checkpoint order.
    pub fn tensors(&self) -> [&Vec<f32>; 7] {
        [&self.psqt, &self.l1_w, &self.l1_b, &self.l2_w, &self.l2_b, &self.out_w, &self.out_b]
    }

    /// One stack's slices of every stack tensor, in [`STACK_SIZES`] order.
    pub fn stack(&self, b: usize) -> [&[f32]; 6] {
        let t = [&self.l1_w, &self.l1_b, &self.l2_w, &self.l2_b, &self.out_w, &self.out_b];
        std::array::from_fn(|i| &t[i][b * STACK_SIZES[i]..(b + 1) * STACK_SIZES[i]])
    }

    /// The PSQT term `(Σ psqt_stm − Σ psqt_other) / 2` of `bucket`.
    pub fn psqt_term(&self, stm: &[u32], nstm: &[u32], bucket: usize) -> f32 {
        let sum = |f: &[u32]| -> f32 {
            f.iter().map(|&f| self.psqt[f as usize * BUCKETS + bucket]).sum()
        };
        0.5 * (sum(stm) - sum(nstm))
    }

    /// The stack `bucket`'s output for the clipped activations `x` (`L1_IN`).
    pub fn stack_forward(&self, x: &[f32], bucket: usize) -> f32 {
        let [w1, b1, w2, b2, w3, b3] = self.stack(bucket);
        let layer = |input: &[f32], w: &[f32], b: &[f32]| -> Vec<f32> {
            let n = b.len();
            let mut out = b.to_vec();
            for (i, &xi) in input.iter().enumerate() {
                out.iter_mut().zip(&w[i * n..(i + 1) * n]).for_each(|(o, w)| *o += xi * w);
            }
            out.iter_mut().for_each(|o| *o = o.clamp(0.0, 1.0));
            out
        };
        let h2 = layer(&layer(x, w1, b1), w2, b2);
        b3[0] + h2.iter().zip(w3).map(|(h, w)| h * w).sum::<f32>()
    }
}

/// The float model's output for one position (side to move's features first); FSF's value
/// of the exported net is about [`NNUE2SCORE`] times it.
pub fn forward(ft: &NetParams, head: &FsfHead, stm: &[u32], nstm: &[u32], bucket: usize) -> f32 {
    let mut x = vec![0.0f32; L1_IN];
    let (a, b) = x.split_at_mut(L1);
    ft.accumulate(stm, a);
    ft.accumulate(nstm, b);
    x.iter_mut().for_each(|v| *v = v.clamp(0.0, 1.0));
    head.stack_forward(&x, bucket) + head.psqt_term(stm, nstm, bucket)
}

/// The feature transformer of the fsf architecture (`rows` features, 512 wide, no head of
/// its own): the small net's initialisation.
pub fn init_ft(rows: usize, seed: u64) -> NetParams {
    let mut p = NetParams::init(rows, L1, 0, seed);
    p.out_b = vec![0.0];
    p
}

/// The active features of a position from both perspectives (side to move first), as FSF
/// indexes them.
pub fn position_features(
    layout: &FsfLayout,
    pos: &kage_engine::Position,
    out: &mut Vec<u32>,
) -> usize {
    let stm: Color = pos.side_to_move();
    let start = out.len();
    layout.active_features(pos, stm, out);
    let n = out.len() - start;
    layout.active_features(pos, !stm, out);
    n
}
