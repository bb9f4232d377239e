//! The recursive search: principal variation search with pruning, and quiescence.

use super::correction;
use super::end_scores::{outcome_score, tree_repetition_draw};
use super::ordering::{MAX_PLY, Ordering, SCORE_KILLER, SCORE_TACTICAL, SCORE_TT};
use super::params::*;
use super::see::see_ge;
use super::tactical::{campmate_in_one, drop_mate_in_one, quiet_checks, tactical_moves};
use super::tt::{Bound, Tt};
use super::{INFINITE, Limits, MATE, MATE_BOUND};
use crate::eval::Hce;
use crate::eval::nnue_eval::NetEval;
use crate::game::{Game, HistoryEntry, repetition_outcome, terminal_outcome};
use crate::nnue::fsf::arch::PAWN_VALUE;
use crate::position::Position;
use crate::types::{Move, MoveList, bits};
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};
use std::time::Instant;

const REP_FILTER: usize = 4096;

/// Per-ply scratch buffers.
pub struct Frame {
    pub list: MoveList,
    /// Ordering score and move packed as `score << 16 | move` (higher first).
    pub keys: Vec<i64>,
    pub tactical: Vec<Move>,
    pub quiets: Vec<Move>,
}

/// Everything one search needs: tables, limits, counters, the history of the game plus the
/// search path, and the principal variation table.
pub struct Ctx<'a> {
    pub tt: &'a mut Tt,
    pub ord: &'a mut Ordering,
    pub hce: &'a Hce,
    nnue: Option<&'a mut NetEval>,
    stop: &'a AtomicBool,
    pub start: Instant,
    node_limit: u64,
    pub hard_ms: Option<u64>,
    pub nodes: u64,
    pub seldepth: usize,
    pub aborted: bool,
    /// The node count past which the quiescence search entered last stands pat everywhere
    /// ([`QS_NODE_BUDGET`] after its start).
    qs_end: u64,
    hist: Vec<HistoryEntry>,
    rep_filter: Vec<u8>,
    /// Repetition scans never look below this history index (set after a null move).
    floor: usize,
    /// History index of the root position.
    pub root_index: usize,
    pub root_depth: i32,
    pv: Vec<[Move; MAX_PLY + 1]>,
    pv_len: [usize; MAX_PLY + 2],
    frames: Vec<Option<Box<Frame>>>,
}

impl<'a> Ctx<'a> {
    pub fn new(
        tt: &'a mut Tt,
        ord: &'a mut Ordering,
        hce: &'a Hce,
        nnue: Option<&'a mut NetEval>,
        stop: &'a AtomicBool,
        game: &Game,
        limits: &Limits,
    ) -> Ctx<'a> {
        let hist = game.history().to_vec();
        let mut nnue = nnue;
        if let Some(n) = nnue.as_mut() {
            n.refresh(game.position());
        }
        let mut rep_filter = vec![0u8; REP_FILTER];
        for e in &hist {
            let s = &mut rep_filter[e.key as usize % REP_FILTER];
            *s = s.saturating_add(1);
        }
        let frames = (0..MAX_PLY + 2)
            .map(|_| {
                Some(Box::new(Frame {
                    list: MoveList::new(),
                    keys: Vec::with_capacity(256),
                    tactical: Vec::with_capacity(64),
                    quiets: Vec::with_capacity(64),
                }))
            })
            .collect();
        Ctx {
            tt,
            ord,
            hce,
            nnue,
            stop,
            start: Instant::now(),
            node_limit: limits.nodes.unwrap_or(u64::MAX),
            hard_ms: None,
            nodes: 0,
            seldepth: 0,
            aborted: false,
            qs_end: u64::MAX,
            root_index: hist.len() - 1,
            hist,
            rep_filter,
            floor: 0,
            root_depth: 1,
            pv: vec![[Move::NULL; MAX_PLY + 1]; MAX_PLY + 2],
            pv_len: [0; MAX_PLY + 2],
            frames,
        }
    }

    pub fn elapsed_ms(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }

    /// The principal variation found at `ply` by the last search of that node.
    pub fn pv_at(&self, ply: usize) -> &[Move] {
        &self.pv[ply][..self.pv_len[ply]]
    }

    #[inline]
    fn check_abort(&mut self) -> bool {
        if self.aborted {
            return true;
        }
        let poll = self.nodes & 511 == 0;
        if self.nodes >= self.node_limit
            || poll
                && (self.stop.load(AtomicOrdering::Relaxed)
                    || self.hard_ms.is_some_and(|h| self.elapsed_ms() >= h))
        {
            self.aborted = true;
        }
        self.aborted
    }

    /// Stop requested from outside (checked also between iterations).
    pub fn stop_requested(&self) -> bool {
        self.stop.load(AtomicOrdering::Relaxed)
    }

    #[inline]
    pub fn push(&mut self, pos: &Position) {
        let e = HistoryEntry { key: pos.key(), in_check: pos.in_check() };
        let s = &mut self.rep_filter[e.key as usize % REP_FILTER];
        *s = s.saturating_add(1);
        self.hist.push(e);
    }

    #[inline]
    pub fn pop(&mut self) {
        if let Some(e) = self.hist.pop() {
            let s = &mut self.rep_filter[e.key as usize % REP_FILTER];
            *s = s.saturating_sub(1);
        }
    }

    #[inline]
    fn evaluate(&mut self, pos: &Position) -> i32 {
        match self.nnue.as_mut() {
            Some(n) => n.evaluate_current(pos).clamp(-MATE_BOUND + 1, MATE_BOUND - 1),
            // A user variant's values or parameters must not read as a mate.
            None => self.hce.evaluate(pos).clamp(-MATE_BOUND + 1, MATE_BOUND - 1),
        }
    }

    /// Descends from `parent` to `child` (NNUE accumulators follow the searched position).
    #[inline]
    pub fn enter(&mut self, parent: &Position, child: &Position) {
        if let Some(n) = self.nnue.as_mut() {
            n.push(parent, child);
        }
    }

    /// Returns from the child entered last to its parent.
    #[inline]
    pub fn leave(&mut self) {
        if let Some(n) = self.nnue.as_mut() {
            n.pop();
        }
    }

    #[inline]
    fn take_frame(&mut self, ply: usize) -> Box<Frame> {
        self.frames[ply].take().expect("frame in use only once per ply")
    }

    #[inline]
    fn put_frame(&mut self, ply: usize, f: Box<Frame>) {
        self.frames[ply] = Some(f);
    }

    fn update_pv(&mut self, ply: usize, m: Move) {
        let child_len = self.pv_len[ply + 1].min(MAX_PLY - 1);
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        head[ply][0] = m;
        head[ply][1..=child_len].copy_from_slice(&tail[0][..child_len]);
        self.pv_len[ply] = child_len + 1;
    }

    /// Rule-based end of the game at a non-root node (already in the history): campmate
    /// reached, move rule, repetition. Returns the score when the game is over.
    #[inline]
    fn rule_end(&mut self, pos: &Position, ply: usize) -> Option<i32> {
        if pos.flag_reached() {
            return Some(-(MATE - ply as i32));
        }
        let v = pos.variant();
        let hm = pos.halfmove_clock();
        if v.move_rule_plies > 0 && hm >= v.move_rule_plies {
            if !pos.in_check() || pos.has_legal_move() {
                return Some(0);
            }
            return None;
        }
        let key = pos.key();
        if self.rep_filter[key as usize % REP_FILTER] >= 2 {
            let h = &self.hist[self.floor..];
            if let Some(o) = repetition_outcome(v, h, hm, pos.side_to_move()) {
                return Some(outcome_score(o, pos.side_to_move(), ply));
            }
            let root = self.root_index.max(self.floor) - self.floor;
            if tree_repetition_draw(v, h, root, hm) {
                return Some(0);
            }
        }
        None
    }

    /// The frame of `ply` holding every legal move of `pos`, or, when there is none, the
    /// score of the game's end (the frame given back).
    fn all_moves(&mut self, pos: &Position, ply: usize, last: Move) -> Result<Box<Frame>, i32> {
        let mut f = self.take_frame(ply);
        f.list.clear();
        pos.generate(&mut f.list);
        if f.list.as_slice().is_empty() {
            self.put_frame(ply, f);
            return Err(Self::no_moves_score(pos, last, ply));
        }
        Ok(f)
    }

    /// Score when the side to move has no legal move.
    fn no_moves_score(pos: &Position, last: Move, ply: usize) -> i32 {
        let last = (!last.is_null()).then_some(last);
        outcome_score(terminal_outcome(pos, last, true), pos.side_to_move(), ply)
    }

    /// Principal variation search of a non-root node.
    #[allow(clippy::too_many_arguments)]
    pub fn search(
        &mut self,
        pos: &Position,
        depth: i32,
        mut alpha: i32,
        mut beta: i32,
        ply: usize,
        last: Move,
        cut_null: bool,
    ) -> i32 {
        let pv_node = beta - alpha > 1;
        self.pv_len[ply] = 0;
        if let Some(s) = self.rule_end(pos, ply) {
            return s;
        }
        if depth <= 0 {
            self.qs_end = self.nodes.saturating_add(QS_NODE_BUDGET);
            return self.qsearch(pos, alpha, beta, ply, last, 0, true);
        }
        self.nodes += 1;
        if self.check_abort() {
            return 0;
        }
        if ply >= MAX_PLY - 1 {
            return self.evaluate(pos);
        }
        // Mate distance pruning.
        alpha = alpha.max(-(MATE - ply as i32));
        beta = beta.min(MATE - ply as i32 - 1);
        if alpha >= beta {
            return alpha;
        }
        if campmate_in_one(pos) {
            return MATE - ply as i32 - 1;
        }
        let key = pos.key();
        let in_check = pos.in_check();
        let hit = self.tt.probe(key, ply);
        let tt_move = hit.map_or(Move::NULL, |h| h.mv);
        if let Some(h) = hit
            && !pv_node
            && h.depth >= depth
            && h.cuts(alpha, beta)
        {
            return h.score;
        }
        // Internal iterative reduction: no move to try first, search shallower.
        let depth = if depth >= IIR_MIN_DEPTH && tt_move.is_null() { depth - 1 } else { depth };
        let raw_eval = if in_check {
            -INFINITE
        } else if let Some(h) = hit {
            h.eval
        } else {
            self.evaluate(pos)
        };
        // The correction history's slot, computed once for reading and learning.
        let corr_slot = (!in_check).then(|| correction::slot(pos));
        let eval = corr_slot.map_or(raw_eval, |s| self.ord.corr.apply(s, raw_eval));
        if !pv_node
            && !in_check
            && beta.abs() < MATE_BOUND
            && let Some(s) = self.prune_node(pos, depth, eval, beta, ply, cut_null)
        {
            return s;
        }

        let mut f = match self.all_moves(pos, ply, last) {
            Ok(f) => f,
            Err(score) => return score,
        };
        let n = f.list.len();
        order_moves(self.ord, &mut f.keys, f.list.as_slice(), pos, tt_move, ply, last);
        demote_losing_captures(&mut f.keys, pos);
        f.quiets.clear();
        let stm = pos.side_to_move();
        let node = Node { depth, eval, beta, pv_node, in_check };
        let mut best = -INFINITE;
        let mut best_move = Move::NULL;
        let mut searched = 0usize;
        let old_alpha = alpha;
        let mut discoverers = None;
        for i in 0..n {
            let (m, mscore) = next_move(&mut f.keys, i);
            let quiet = pos.captured(m).is_none() && !m.is_promotion();
            // Shallow-depth pruning, decided before the move is played (checks that lose much
            // material too).
            if !pv_node
                && !in_check
                && best > -MATE_BOUND
                && searched > 0
                && prune_move(
                    pos,
                    &LateMove {
                        m,
                        quiet,
                        mscore,
                        searched,
                        lmr_depth: if quiet { self.lmr_depth(&node, searched, mscore) } else { 0 },
                    },
                    alpha,
                    &node,
                    &mut || {
                        pos.gives_check(m, *discoverers.get_or_insert_with(|| pos.discoverers()))
                    },
                )
            {
                continue;
            }
            let mut child = pos.clone();
            child.play(m);
            let gives_check = child.in_check();
            // Check extension: at PV nodes, elsewhere when the check does not lose material
            // (drop mates are long chains of checks that reductions would cut short).
            let ext = i32::from(
                gives_check && (ply as i32) < 2 * self.root_depth && (pv_node || see_ge(pos, m, 0)),
            );
            self.push(&child);
            self.enter(pos, &child);
            let score = if searched == 0 {
                -self.search(&child, depth - 1 + ext, -beta, -alpha, ply + 1, m, false)
            } else {
                let r = if quiet && ext == 0 { self.reduction(&node, searched, mscore) } else { 0 };
                self.search_late_move(&child, depth - 1 + ext, r, alpha, beta, ply, m)
            };
            self.pop();
            self.leave();
            if self.aborted {
                self.put_frame(ply, f);
                return 0;
            }
            searched += 1;
            if score > best {
                best = score;
                if score > alpha {
                    best_move = m;
                    alpha = score;
                    if pv_node {
                        self.update_pv(ply, m);
                    }
                    if score >= beta {
                        if quiet {
                            self.ord.update_quiet(stm, m, &f.quiets, depth, ply, last);
                        }
                        break;
                    }
                }
            }
            if quiet {
                f.quiets.push(m);
            }
        }
        self.put_frame(ply, f);
        if best == -INFINITE {
            return alpha;
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > old_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        let store_eval = if in_check { 0 } else { raw_eval };
        self.tt.store(key, best_move, best, store_eval, depth, bound, ply);
        if let Some(slot) = corr_slot {
            self.learn_correction(pos, slot, best, best_move, bound, eval, depth);
        }
        best
    }

    /// Teaches the correction history what a search `depth` plies deep found against the
    /// corrected static evaluation `eval`: only where the best move is quiet (or none), the
    /// score no mate, and the bound says on which side of `eval` the value lies.
    #[allow(clippy::too_many_arguments)]
    fn learn_correction(
        &mut self,
        pos: &Position,
        slot: usize,
        best: i32,
        best_move: Move,
        bound: Bound,
        eval: i32,
        depth: i32,
    ) {
        let quiet =
            best_move.is_null() || pos.captured(best_move).is_none() && !best_move.is_promotion();
        if quiet
            && best.abs() < MATE_BOUND
            && !(bound == Bound::Lower && best <= eval)
            && !(bound == Bound::Upper && best >= eval)
        {
            self.ord.corr.update(slot, best - eval, depth);
        }
    }

    /// Whole-node pruning of a non-PV node not in check, before any move: reverse futility
    /// pruning, then null-move pruning. The score to return, if the node is pruned.
    fn prune_node(
        &mut self,
        pos: &Position,
        depth: i32,
        eval: i32,
        beta: i32,
        ply: usize,
        cut_null: bool,
    ) -> Option<i32> {
        if depth <= RFP_MAX_DEPTH && eval - RFP_MARGIN * depth >= beta {
            // Halfway to beta: the static evaluation is no proven bound.
            return Some((eval + beta) / 2);
        }
        if cut_null || depth < NMP_MIN_DEPTH || eval < beta || !has_pieces(pos) {
            return None;
        }
        let r = NMP_BASE
            + depth / NMP_DEPTH_DIVISOR
            + ((eval - beta) / NMP_EVAL_DIVISOR).min(NMP_EVAL_MAX);
        let mut child = pos.clone();
        child.play_null();
        self.push(&child);
        let saved_floor = self.floor;
        self.floor = self.hist.len() - 1;
        let s = -self.search(&child, depth - 1 - r, -beta, -beta + 1, ply + 1, Move::NULL, true);
        self.floor = saved_floor;
        self.pop();
        if self.aborted {
            return Some(0);
        }
        (s >= beta).then_some(if s >= MATE_BOUND { beta } else { s })
    }

    /// The late-move reduction of a quiet move that neither is an evasion nor extended.
    fn reduction(&self, node: &Node, searched: usize, mscore: i32) -> i32 {
        let Node { depth, eval, beta, pv_node, in_check, .. } = *node;
        if depth < LMR_MIN_DEPTH || in_check || searched < LMR_MIN_SEARCHED + pv_node as usize {
            return 0;
        }
        let mut r = self.ord.lmr(depth, searched);
        r -= pv_node as i32;
        r += i32::from(!pv_node && !improving_guess(eval, beta));
        if mscore >= SCORE_KILLER - 1 {
            r -= 1;
        } else if mscore < LMR_BAD_HISTORY {
            r += 1;
        }
        let new_depth = depth - 1;
        r.clamp(0, new_depth - 1)
    }

    /// The depth a quiet move after `searched` others would be searched to after its
    /// late-move reduction (what shallow-depth pruning judges it by).
    fn lmr_depth(&self, node: &Node, searched: usize, mscore: i32) -> i32 {
        (node.depth - 1 - self.reduction(node, searched, mscore)).max(0)
    }

    /// A move after the first (at the root too, `ply` 0): a null-window search `r` plies
    /// shallower, again at full depth if it beats alpha, then with the full window inside it.
    #[allow(clippy::too_many_arguments)]
    pub fn search_late_move(
        &mut self,
        child: &Position,
        new_depth: i32,
        r: i32,
        alpha: i32,
        beta: i32,
        ply: usize,
        m: Move,
    ) -> i32 {
        let mut s = -self.search(child, new_depth - r, -alpha - 1, -alpha, ply + 1, m, false);
        if s > alpha && r > 0 {
            s = -self.search(child, new_depth, -alpha - 1, -alpha, ply + 1, m, false);
        }
        if s > alpha && s < beta {
            s = -self.search(child, new_depth, -beta, -alpha, ply + 1, m, false);
        }
        s
    }

    /// Plays `m` and searches the child in quiescence; the chain of check evasions grows when
    /// `m` is an evasion or gives check.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn qsearch_child(
        &mut self,
        pos: &Position,
        m: Move,
        alpha: i32,
        beta: i32,
        ply: usize,
        qdepth: usize,
        evasion: bool,
    ) -> i32 {
        let mut child = pos.clone();
        child.play(m);
        let q = if evasion || child.in_check() { qdepth + 1 } else { qdepth };
        self.enter(pos, &child);
        let s = -self.qsearch(&child, -beta, -alpha, ply + 1, m, q, false);
        self.leave();
        s
    }

    /// Quiescence: captures and valuable promotions; all evasions when in check; at the
    /// first quiescence ply (`checks`), quiet checks that do not lose material too.
    #[allow(clippy::too_many_arguments)]
    pub fn qsearch(
        &mut self,
        pos: &Position,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        last: Move,
        qdepth: usize,
        checks: bool,
    ) -> i32 {
        self.nodes += 1;
        self.pv_len[ply] = 0;
        if self.check_abort() {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        if pos.flag_reached() {
            return -(MATE - ply as i32);
        }
        // Past the ply or node limit (a capture-dense variant), the static evaluation.
        if ply >= MAX_PLY - 1 || self.nodes > self.qs_end {
            return self.evaluate(pos);
        }
        if campmate_in_one(pos) {
            return MATE - ply as i32 - 1;
        }
        let key = pos.key();
        let pv_node = beta - alpha > 1;
        let hit = self.tt.probe(key, ply);
        if let Some(h) = hit
            && !pv_node
            && h.cuts(alpha, beta)
        {
            return h.score;
        }
        let tt_move = hit.map_or(Move::NULL, |h| h.mv);
        let old_alpha = alpha;
        let mut best_move = Move::NULL;
        let mut best;
        let mut raw_stand = 0;
        let in_check = pos.in_check();
        let mut f;
        if in_check {
            f = match self.all_moves(pos, ply, last) {
                Ok(f) => f,
                Err(score) => return score,
            };
            let n = f.list.len();
            if qdepth >= QS_CHECK_LIMIT {
                self.put_frame(ply, f);
                return self.evaluate(pos);
            }
            order_moves(self.ord, &mut f.keys, f.list.as_slice(), pos, tt_move, ply, last);
            best = -INFINITE;
            let mut quiet_evasions = 0;
            for i in 0..n {
                let (m, _) = next_move(&mut f.keys, i);
                let quiet = pos.captured(m).is_none() && !m.is_promotion();
                // Once an evasion that does not lose is known, at most two quiet ones
                // (drops and king steps) more: the full search resolves the rest.
                if quiet && best > -MATE_BOUND {
                    if quiet_evasions >= QS_QUIET_EVASIONS {
                        continue;
                    }
                    quiet_evasions += 1;
                }
                let s = self.qsearch_child(pos, m, alpha, beta, ply, qdepth, true);
                if self.aborted || raise(s, m, &mut best, &mut alpha, &mut best_move, beta) {
                    break;
                }
            }
        } else {
            f = self.take_frame(ply);
            raw_stand = match hit {
                Some(h) => h.eval,
                None => self.evaluate(pos),
            };
            let stand = self.ord.corr.apply(correction::slot(pos), raw_stand);
            if stand >= beta {
                self.put_frame(ply, f);
                if hit.is_none() {
                    self.tt.store(key, Move::NULL, stand, raw_stand, 0, Bound::Lower, ply);
                }
                return stand;
            }
            // A drop mate one move past the horizon (no quiet move is searched after the
            // first quiescence ply).
            if drop_mate_in_one(pos) {
                self.put_frame(ply, f);
                return MATE - ply as i32 - 1;
            }
            alpha = alpha.max(stand);
            best = stand;
            f.tactical.clear();
            tactical_moves(pos, &mut f.tactical);
            let n = f.tactical.len();
            order_moves(self.ord, &mut f.keys, &f.tactical, pos, tt_move, ply, last);
            let v = pos.variant();
            for i in 0..n {
                let (m, _) = next_move(&mut f.keys, i);
                if !m.is_promotion() {
                    let victim = pos.captured(m).map_or(0, |p| v.kind(p.kind).value);
                    if stand + victim + QS_DELTA_MARGIN <= alpha {
                        continue;
                    }
                    // Captures that lose material in the exchange.
                    if !see_ge(pos, m, 0) {
                        continue;
                    }
                }
                let s = self.qsearch_child(pos, m, alpha, beta, ply, qdepth, false);
                if self.aborted || raise(s, m, &mut best, &mut alpha, &mut best_move, beta) {
                    break;
                }
            }
            // Quiet checks (drops above all) that do not lose material: an attack one move
            // past the horizon.
            if checks && best < beta && !self.aborted {
                f.quiets.clear();
                quiet_checks(pos, &mut f.quiets);
                for i in 0..f.quiets.len() {
                    let m = f.quiets[i];
                    if f.tactical.contains(&m) || !see_ge(pos, m, 0) {
                        continue;
                    }
                    let s = self.qsearch_child(pos, m, alpha, beta, ply, qdepth, false);
                    if self.aborted || raise(s, m, &mut best, &mut alpha, &mut best_move, beta) {
                        break;
                    }
                }
            }
        }
        self.put_frame(ply, f);
        if self.aborted {
            return 0;
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if pv_node && best > old_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.tt.store(key, best_move, best, if in_check { 0 } else { raw_stand }, 0, bound, ply);
        best
    }
}

/// Folds the score `s` of move `m` into a quiescence node's best score, window and best move;
/// true on a beta cutoff.
#[inline(always)]
fn raise(
    s: i32,
    m: Move,
    best: &mut i32,
    alpha: &mut i32,
    best_move: &mut Move,
    beta: i32,
) -> bool {
    if s > *best {
        *best = s;
        if s > *alpha {
            *alpha = s;
            *best_move = m;
            return s >= beta;
        }
    }
    false
}

/// What move pruning and reductions need to know about the node being searched.
#[derive(Clone, Copy)]
struct Node {
    depth: i32,
    eval: i32,
    beta: i32,
    pv_node: bool,
    in_check: bool,
}

/// A move after the first of a node, as shallow-depth pruning judges it: whether it is quiet,
/// its ordering score, how many moves were searched before it and the depth its late-move
/// reduction would leave.
struct LateMove {
    m: Move,
    quiet: bool,
    mscore: i32,
    searched: usize,
    lmr_depth: i32,
}

/// Shallow-depth pruning of a move of a non-PV node not in check, after the first move:
/// late-move, futility, history and SEE pruning of quiet moves, SEE pruning of captures, for
/// moves that do not give check; checks only when they lose more than `CHECK_SEE_MARGIN` a
/// ply in the exchange, up to `CHECK_PRUNE_MAX_DEPTH`. True when the move is skipped.
/// `gives_check` (cheap) is asked before the exchange of a possible check is evaluated.
#[inline]
fn prune_move(
    pos: &Position,
    lm: &LateMove,
    alpha: i32,
    node: &Node,
    gives_check: &mut dyn FnMut() -> bool,
) -> bool {
    let Node { depth, .. } = *node;
    let losing_check =
        || depth <= CHECK_PRUNE_MAX_DEPTH && !see_ge(pos, lm.m, -CHECK_SEE_MARGIN * depth);
    if ordinary_prune(pos, lm, alpha, node) {
        // Checks are kept unless they lose much material.
        return !gives_check() || losing_check();
    }
    gives_check() && losing_check()
}

/// The rules of [`prune_move`] for a move that does not give check.
#[inline]
fn ordinary_prune(pos: &Position, lm: &LateMove, alpha: i32, node: &Node) -> bool {
    let &LateMove { m, quiet, mscore, searched, lmr_depth } = lm;
    let Node { depth, eval, beta, .. } = *node;
    if !quiet {
        // Captures that lose material at shallow depth.
        return depth <= SEE_PRUNE_MAX_DEPTH && !see_ge(pos, m, -SEE_CAPTURE_MARGIN * depth);
    }
    let lmp = if improving_guess(eval, beta) {
        LMP_BASE + 2 * depth * depth
    } else {
        LMP_BASE + depth * depth
    };
    // Futility and exchange pruning judge the move on the depth it would be reduced to (FSF's
    // rules and margins); futility never against a mate score (a shorter mate is no futile move).
    let cheap = (depth <= LMP_MAX_DEPTH && searched >= lmp as usize)
        || (lmr_depth < FUTILITY_MAX_LMR_DEPTH
            && alpha < MATE_BOUND
            && eval + FUTILITY_BASE + FUTILITY_PER_PLY * lmr_depth <= alpha)
        || (depth <= HISTORY_PRUNE_MAX_DEPTH && mscore < -HISTORY_PRUNE_PER_PLY * depth);
    // Quiet moves and drops onto squares where the piece is lost.
    let see_margin =
        (SEE_QUIET_BASE - lmr_depth.min(18)) * lmr_depth * lmr_depth * 100 / PAWN_VALUE;
    cheap || !see_ge(pos, m, -see_margin)
}

/// Whether the side to move has something besides king and pawns (on board or in hand):
/// null-move pruning is unsafe otherwise (zugzwang).
fn has_pieces(pos: &Position) -> bool {
    let v = pos.variant();
    let us = pos.side_to_move();
    if v.hand_kinds.iter().any(|&k| pos.hand(us, k) > 0) {
        return true;
    }
    bits(pos.pieces_of(us)).any(|sq| {
        pos.piece_on(sq).is_some_and(|p| {
            let info = v.kind(p.kind);
            !(info.royal || info.pawn || info.letter == 'P' && !info.promoted)
        })
    })
}

/// A cheap stand-in for "the position is improving": the static evaluation is not far below
/// the window.
#[inline(always)]
fn improving_guess(eval: i32, beta: i32) -> bool {
    eval > beta - IMPROVING_MARGIN
}

/// Fills `keys` with the ordering keys of `moves` (see [`next_move`]).
#[inline(always)]
fn order_moves(
    ord: &Ordering,
    keys: &mut Vec<i64>,
    moves: &[Move],
    pos: &Position,
    tt_move: Move,
    ply: usize,
    last: Move,
) {
    keys.clear();
    keys.extend(moves.iter().map(|&m| key_of(ord.score(pos, m, tt_move, ply, last), m)));
}

/// Captures that lose material in the exchange go after the quiet moves (their order among
/// themselves kept): Stockfish's bad captures.
fn demote_losing_captures(keys: &mut [i64], pos: &Position) {
    for k in keys.iter_mut() {
        let (m, score) = key_parts(*k);
        if (SCORE_TACTICAL..SCORE_TT).contains(&score) && !m.is_promotion() && !see_ge(pos, m, 0) {
            *k = key_of(BAD_CAPTURE + (score - SCORE_TACTICAL), m);
        }
    }
}

/// Ordering score base of a capture that loses material (below any history score).
const BAD_CAPTURE: i32 = -(1 << 24);

#[inline(always)]
fn key_of(score: i32, m: Move) -> i64 {
    ((score as i64) << 16) | m.0 as i64
}

/// The move and ordering score packed by [`key_of`].
#[inline(always)]
fn key_parts(k: i64) -> (Move, i32) {
    (Move((k & 0xffff) as u16), (k >> 16) as i32)
}

/// The `i`-th move in ordering order: selection for the first few, then one sort of the rest.
#[inline]
fn next_move(keys: &mut [i64], i: usize) -> (Move, i32) {
    const SELECT: usize = 3;
    if i < SELECT {
        let mut best = i;
        for j in i + 1..keys.len() {
            if keys[j] > keys[best] {
                best = j;
            }
        }
        keys.swap(i, best);
    } else if i == SELECT {
        keys[i..].sort_unstable_by(|a, b| b.cmp(a));
    }
    key_parts(keys[i])
}
