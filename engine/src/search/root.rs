//! Iterative deepening at the root: aspiration windows, MultiPV, time checks, reporting.

use super::node::Ctx;
use super::ordering::MAX_PLY;
use super::params::{
    ASPIRATION_DELTA, ASPIRATION_MAX_DELTA, ASPIRATION_MIN_DEPTH, LMR_MIN_DEPTH, LMR_MIN_SEARCHED,
};
use super::{INFINITE, Limits, MATE, MATE_BOUND, SearchInfo, SearchResult, time};
use crate::game::{Game, terminal_outcome};
use crate::position::Position;
use crate::types::Move;

struct RootMove {
    mv: Move,
    /// Score of the current iteration (`-INFINITE` when it failed low).
    score: i32,
    /// Score of the last completed iteration.
    prev: i32,
    pv: Vec<Move>,
}

/// Deepest iteration.
const MAX_DEPTH: u32 = (MAX_PLY - 8) as u32;

pub fn iterate(
    ctx: &mut Ctx,
    game: &Game,
    limits: &Limits,
    on_info: &mut dyn FnMut(&SearchInfo),
) -> SearchResult {
    let root = game.position().clone();
    let legal = root.legal_moves();
    if legal.is_empty() {
        let last = game.moves().last().copied();
        let o = terminal_outcome(&root, last, game.ply() > 0);
        let score = super::end_scores::outcome_score(o, root.side_to_move(), 0);
        return SearchResult {
            best_move: Move::NULL,
            score,
            depth: 0,
            seldepth: 0,
            nodes: 0,
            pv: Vec::new(),
            lines: Vec::new(),
        };
    }
    let budget = time::budget(limits, root.side_to_move());
    ctx.hard_ms = budget.map(|(_, h)| h);
    let timed = budget.is_some();
    let mut tm = time::TimeManager::new(budget.and_then(|(o, _)| o));
    let max_depth = limits.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH);
    let multipv = limits.multipv.clamp(1, legal.len());

    let mut rms: Vec<RootMove> = legal
        .as_slice()
        .iter()
        .map(|&mv| RootMove { mv, score: -INFINITE, prev: -INFINITE, pv: vec![mv] })
        .collect();
    // Initial order: the ordering heuristics (captures first).
    let tt_move = ctx.tt.probe(root.key(), 0).map_or(Move::NULL, |h| h.mv);
    rms.sort_by_key(|r| -ctx.ord.score(&root, r.mv, tt_move, 0, Move::NULL));

    let mut result = SearchResult {
        best_move: rms[0].mv,
        score: 0,
        depth: 0,
        seldepth: 0,
        nodes: 0,
        pv: vec![rms[0].mv],
        lines: vec![(0, vec![rms[0].mv])],
    };

    for depth in 1..=max_depth {
        ctx.root_depth = depth as i32;
        ctx.seldepth = 0;
        // The best move this iteration has proved so far: used when the clock aborts it.
        let mut partial: Option<(i32, Vec<Move>)> = None;
        for pv_idx in 0..multipv {
            let prev = rms[pv_idx].prev;
            let mut delta = ASPIRATION_DELTA;
            let (mut alpha, mut beta) = if depth >= ASPIRATION_MIN_DEPTH && prev.abs() < MATE_BOUND
            {
                ((prev - delta).max(-INFINITE), (prev + delta).min(INFINITE))
            } else {
                (-INFINITE, INFINITE)
            };
            loop {
                let s = root_search(
                    ctx,
                    &root,
                    depth as i32,
                    (alpha, beta),
                    pv_idx,
                    &mut rms,
                    &mut partial,
                );
                if ctx.aborted {
                    break;
                }
                rms[pv_idx..].sort_by_key(|r| -r.score);
                if s <= alpha && alpha > -INFINITE {
                    beta = (alpha + beta) / 2;
                    alpha = (s - delta).max(-INFINITE);
                } else if s >= beta && beta < INFINITE {
                    beta = (s + delta).min(INFINITE);
                } else {
                    break;
                }
                delta += delta;
                if delta > ASPIRATION_MAX_DELTA {
                    alpha = -INFINITE;
                    beta = INFINITE;
                }
            }
            if ctx.aborted {
                break;
            }
        }
        if ctx.aborted {
            // A move that beat the first one in the aborted iteration is better at this depth
            // than the last completed iteration's choice.
            if let Some((score, pv)) = partial.filter(|_| multipv == 1 && depth > 1) {
                result.best_move = pv[0];
                result.score = score;
                result.pv = pv;
                result.lines = vec![(score, result.pv.clone())];
            }
            break;
        }
        // Lines best first (a later line can come out higher than an earlier one).
        rms[..multipv].sort_by_key(|r| -r.score);
        for r in rms.iter_mut() {
            r.prev = r.score;
        }
        let time_ms = ctx.elapsed_ms();
        let nps = ctx.nodes * 1000 / time_ms.max(1);
        result.lines.clear();
        for (k, r) in rms.iter().take(multipv).enumerate() {
            result.lines.push((r.score, r.pv.clone()));
            on_info(&SearchInfo {
                depth,
                seldepth: ctx.seldepth.max(depth as usize) as u32,
                multipv: k + 1,
                score: r.score,
                nodes: ctx.nodes,
                nps,
                time_ms,
                pv: r.pv.clone(),
            });
        }
        result.best_move = rms[0].mv;
        result.score = rms[0].score;
        result.pv = rms[0].pv.clone();
        result.depth = depth;
        result.seldepth = ctx.seldepth.max(depth as usize) as u32;

        if ctx.stop_requested() {
            break;
        }
        if timed {
            if rms.len() == 1 || tm.should_stop(rms[0].mv, rms[0].score, time_ms) {
                break;
            }
            if rms[0].score.abs() >= MATE_BOUND && (MATE - rms[0].score.abs()) as u32 <= depth {
                break;
            }
        }
    }
    result.nodes = ctx.nodes;
    result
}

/// Searches root moves `pv_idx..` with the window; records exact scores and PVs. `partial`
/// receives the score and line of each move that raises alpha in the first line's search (a
/// move that beats the first; only single-line searches use it).
#[allow(clippy::needless_range_loop)]
fn root_search(
    ctx: &mut Ctx,
    root: &Position,
    depth: i32,
    (mut alpha, beta): (i32, i32),
    pv_idx: usize,
    rms: &mut [RootMove],
    partial: &mut Option<(i32, Vec<Move>)>,
) -> i32 {
    ctx.nodes += 1;
    let mut best = -INFINITE;
    for i in pv_idx..rms.len() {
        let m = rms[i].mv; // (indexes: `rms` is written below)
        let mut child = root.clone();
        child.play(m);
        let ext = i32::from(child.in_check());
        ctx.push(&child);
        ctx.enter(root, &child);
        let s = if i == pv_idx {
            -ctx.search(&child, depth - 1 + ext, -beta, -alpha, 1, m, false)
        } else {
            let quiet = ext == 0 && root.captured(m).is_none() && !m.is_promotion();
            // Not once a mate is found: a shorter one may be a late, quiet move.
            let r = if quiet && alpha < MATE_BOUND {
                root_reduction(ctx, depth, i - pv_idx)
            } else {
                0
            };
            ctx.search_late_move(&child, depth - 1 + ext, r, alpha, beta, 0, m)
        };
        ctx.leave();
        ctx.pop();
        if ctx.aborted {
            return best;
        }
        if s > alpha || i == pv_idx {
            rms[i].score = s;
            let mut pv = vec![m];
            pv.extend_from_slice(ctx.pv_at(1));
            rms[i].pv = pv;
        } else {
            rms[i].score = -INFINITE;
        }
        if s > best {
            best = s;
        }
        if s > alpha {
            alpha = s;
            if pv_idx == 0 {
                *partial = Some((s, rms[i].pv.clone()));
            }
            if s >= beta {
                break;
            }
        }
    }
    best
}

/// The late-move reduction of the quiet root move searched `searched`-th in its line: as at
/// a PV node of the tree, one ply less than the table, never into quiescence.
fn root_reduction(ctx: &Ctx, depth: i32, searched: usize) -> i32 {
    if depth < LMR_MIN_DEPTH || searched < LMR_MIN_SEARCHED + 1 {
        return 0;
    }
    (ctx.ord.lmr(depth, searched) - 1).clamp(0, depth - 2)
}
