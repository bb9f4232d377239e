//! The search's tunable parameters, in one place. Scores are centipawns, depths plies.
//! Changing any of them changes the search (and the `kage bench` signature).

/// Internal iterative reduction: nodes this deep without a hash move search one ply less.
pub const IIR_MIN_DEPTH: i32 = 4;

/// Reverse futility pruning: up to this depth, a static evaluation this far above beta
/// (`RFP_MARGIN` per ply) returns at once.
pub const RFP_MAX_DEPTH: i32 = 6;
/// Reverse futility margin per ply of depth.
pub const RFP_MARGIN: i32 = 110;

/// Null-move pruning from this depth on.
pub const NMP_MIN_DEPTH: i32 = 3;
/// Null-move reduction: `NMP_BASE + depth / NMP_DEPTH_DIVISOR` plus one per
/// `NMP_EVAL_DIVISOR` of evaluation above beta, at most `NMP_EVAL_MAX` of those.
pub const NMP_BASE: i32 = 3;
/// See [`NMP_BASE`].
pub const NMP_DEPTH_DIVISOR: i32 = 4;
/// See [`NMP_BASE`].
pub const NMP_EVAL_DIVISOR: i32 = 200;
/// See [`NMP_BASE`].
pub const NMP_EVAL_MAX: i32 = 2;

/// The static evaluation counts as "improving" when above `beta - IMPROVING_MARGIN`.
pub const IMPROVING_MARGIN: i32 = 50;

/// Late-move pruning of quiet moves up to this depth, after
/// `LMP_BASE + depth²` moves (twice `depth²` when improving).
pub const LMP_MAX_DEPTH: i32 = 5;
/// See [`LMP_MAX_DEPTH`].
pub const LMP_BASE: i32 = 3;

/// Futility pruning of quiet moves whose reduced depth `l` is below this when
/// `eval + FUTILITY_BASE + FUTILITY_PER_PLY * l <= alpha` (Stockfish's 174 + 157 l in its
/// units, 208 a pawn).
pub const FUTILITY_MAX_LMR_DEPTH: i32 = 7;
/// See [`FUTILITY_MAX_LMR_DEPTH`].
pub const FUTILITY_BASE: i32 = 84;
/// See [`FUTILITY_MAX_LMR_DEPTH`].
pub const FUTILITY_PER_PLY: i32 = 75;
/// Quiet moves losing more than `(SEE_QUIET_BASE - min(l, 18)) l²` in FSF's units
/// ([`crate::nnue::fsf::arch::PAWN_VALUE`] a pawn) in the exchange are pruned, `l` their
/// reduced depth.
pub const SEE_QUIET_BASE: i32 = 30;

/// History pruning of quiet moves up to this depth when their ordering score is below
/// `-HISTORY_PRUNE_PER_PLY * depth`.
pub const HISTORY_PRUNE_MAX_DEPTH: i32 = 3;
/// See [`HISTORY_PRUNE_MAX_DEPTH`].
pub const HISTORY_PRUNE_PER_PLY: i32 = 1500;

/// SEE pruning of captures up to this depth: those losing more than
/// `SEE_CAPTURE_MARGIN * depth`.
pub const SEE_PRUNE_MAX_DEPTH: i32 = 6;
/// See [`SEE_PRUNE_MAX_DEPTH`].
pub const SEE_CAPTURE_MARGIN: i32 = 150;

/// Checks are pruned up to this depth when they lose more than `CHECK_SEE_MARGIN * depth`
/// in the exchange.
pub const CHECK_PRUNE_MAX_DEPTH: i32 = 6;
/// See [`CHECK_PRUNE_MAX_DEPTH`].
pub const CHECK_SEE_MARGIN: i32 = 100;

/// Late-move reductions from this depth on (at the root too), for quiet moves after the first
/// `LMR_MIN_SEARCHED` (one more at PV nodes).
pub const LMR_MIN_DEPTH: i32 = 3;
/// See [`LMR_MIN_DEPTH`].
pub const LMR_MIN_SEARCHED: usize = 1;
/// Quiet moves with an ordering score below this are reduced one ply more.
pub const LMR_BAD_HISTORY: i32 = -2000;

/// Quiescence: captures that cannot raise alpha even with this margin over the victim's
/// value are skipped (delta pruning).
pub const QS_DELTA_MARGIN: i32 = 200;
/// Deepest quiescence check-evasion chain before falling back to the static evaluation.
pub const QS_CHECK_LIMIT: usize = 6;
/// Nodes one quiescence search (from a leaf of the main search) may visit before every node
/// left stands pat: a capture-dense variant's capture tree is exponential, and a fixed depth
/// must still end. The built-in variants' largest quiescence trees in `kage bench` have
/// about 2,000 nodes, and self-play at 4,000 nodes a move cannot reach it.
pub const QS_NODE_BUDGET: u64 = 8192;
/// Quiet check evasions tried in quiescence once one evasion is known not to lose.
pub const QS_QUIET_EVASIONS: usize = 2;

/// Aspiration windows from this iteration on: `ASPIRATION_DELTA` around the last score,
/// doubled after each failure, the full window once above `ASPIRATION_MAX_DELTA`.
pub const ASPIRATION_MIN_DEPTH: u32 = 4;
/// See [`ASPIRATION_MIN_DEPTH`].
pub const ASPIRATION_DELTA: i32 = 30;
/// See [`ASPIRATION_MIN_DEPTH`].
pub const ASPIRATION_MAX_DELTA: i32 = 1000;
