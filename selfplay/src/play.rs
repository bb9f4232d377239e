//! One self-play game: random opening plies, searched moves, adjudication, and the records
//! that come out of it. A game depends only on (config, game index) and the player's
//! deterministic answers, never on the thread that plays it.

use std::time::Instant;

use kage_data::{GameRecord, GameResult, PositionRecord, StmResult, Termination};
use kage_engine::util::hash::{fnv1a64, splitmix64};
use kage_engine::{Game, Move, Variant};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::adjudicate::Adjudicator;
use crate::arena::player::{Answer, Ask, MoveLimit, Player};
use crate::config::Budget;
use crate::config::{GenConfig, OpeningMode};
use crate::error::{Result, SelfplayError};

/// A finished game: its records plus what the run statistics and the benchmark need.
#[derive(Clone, Debug)]
pub struct GameOutput {
    /// The game record.
    pub record: GameRecord,
    /// One training position per searched position.
    pub positions: Vec<PositionRecord>,
    /// Why it ended.
    pub end: Termination,
    /// Nanoseconds spent inside [`Player::choose`].
    pub search_ns: u64,
    /// Nanoseconds the whole game took (search included).
    pub total_ns: u64,
    /// Nodes searched.
    pub nodes: u64,
}

/// The random stream of one game: Xoshiro256++ seeded by a hash of (run seed, variant,
/// global game index), so it is the same whatever thread, shard or batch plays the game.
pub fn game_rng(seed: u64, variant: &str, index: u64) -> Xoshiro256PlusPlus {
    let v = fnv1a64(variant.as_bytes());
    let h = splitmix64(splitmix64(splitmix64(seed) ^ v) ^ index);
    Xoshiro256PlusPlus::seed_from_u64(h)
}

fn clamp_i16(score: i32) -> i16 {
    score.clamp(-i32::from(i16::MAX), i32::from(i16::MAX)) as i16
}

/// Plays game `index` of the run described by `cfg` with `player`.
pub fn play_game(
    cfg: &GenConfig,
    variant: &'static Variant,
    player: &mut dyn Player,
    index: u64,
) -> Result<GameOutput> {
    let start = Instant::now();
    let mut rng = game_rng(cfg.seed, &cfg.variant, index);
    let bad = |reason: String| SelfplayError::BadGame { game: index, reason };
    player.new_game().map_err(|e| bad(format!("new game: {e}")))?;
    let mut game = Game::startpos(variant);
    let mut adj = Adjudicator::new(cfg.adjudication);
    let mut positions: Vec<PositionRecord> = Vec::new();
    let mut scores: Vec<i16> = Vec::new();
    let (mut search_ns, mut nodes) = (0u64, 0u64);
    let open = cfg.openings;
    let ply_limit = if cfg.adjudication.max_plies == 0 {
        u32::from(u16::MAX)
    } else {
        cfg.adjudication.max_plies
    };
    let (winner, end) = loop {
        let ply = game.ply() as u32;
        if let Some(o) = game.outcome() {
            break (o.winner, Termination::Rule(o.reason));
        }
        if adj.capped(ply) || ply >= ply_limit {
            break (None, Termination::PlyLimit);
        }
        let opening = ply < open.random_plies;
        let multipv = if opening && open.mode == OpeningMode::Multipv { open.multipv } else { 1 };
        let scale =
            (cfg.nodes_jitter_pct > 0).then(|| jitter_scale(cfg.nodes_jitter_pct, &mut rng));
        let ask = Ask { multipv: multipv as usize, ..Ask::new(budget_limit(cfg.budget, scale)) };
        let t = Instant::now();
        let choice = player.go(&game, &ask).map_err(|e| bad(format!("player failed: {e}")))?;
        search_ns += t.elapsed().as_nanos() as u64;
        nodes += choice.nodes.unwrap_or(0);
        let pos = game.position();
        let Some(best) = choice.best.filter(|&m| pos.is_legal(m)) else {
            return Err(bad(format!("player returned an illegal move in {}", pos.to_fen())));
        };
        let raw = choice.score.unwrap_or(0);
        let score = clamp_i16(raw);
        let verdict = adj.observe(ply, pos.side_to_move(), raw);
        let played = match verdict {
            Some(_) => None,
            None if !opening => Some(best),
            None => Some(opening_move(&game, &choice, open.mode, open.margin_cp, &mut rng)),
        };
        // The result is filled in once the game is over.
        positions.push(PositionRecord::from_position(
            pos,
            score,
            None,
            ply as u16,
            played,
            Some(best),
        )?);
        match (verdict, played) {
            (Some(v), _) => break v,
            (None, Some(m)) => {
                scores.push(score);
                game.play(m);
            }
            (None, None) => unreachable!("a move is chosen when there is no verdict"),
        }
    };
    for p in &mut positions {
        p.result = StmResult::for_side(winner, p.side_to_move());
    }
    let record = GameRecord {
        variant: cfg.variant.clone(),
        start_fen: game.start_position().to_fen(),
        moves: game.moves().iter().map(|m| m.0).collect(),
        scores,
        result: GameResult::from_winner(winner),
        termination: end,
        game_index: index,
    };
    Ok(GameOutput {
        record,
        positions,
        end,
        search_ns,
        total_ns: start.elapsed().as_nanos() as u64,
        nodes,
    })
}

/// The limit of one move of a self-play budget, its nodes scaled by `scale` (node jitter).
pub fn budget_limit(budget: Budget, scale: Option<f64>) -> MoveLimit {
    match (budget, scale) {
        (Budget::Nodes(n), Some(f)) => MoveLimit::Nodes(((n as f64 * f).round() as u64).max(1)),
        (Budget::Nodes(n), None) => MoveLimit::Nodes(n),
        (Budget::Depth(d), _) => MoveLimit::Depth(d),
    }
}

/// A node budget factor in `1 +- pct/100`, uniform, from `rng`.
pub fn jitter_scale(pct: u32, rng: &mut Xoshiro256PlusPlus) -> f64 {
    jitter_factor(f64::from(pct) / 100.0, rng)
}

/// A node budget factor in `1 +- fraction`, uniform, from `rng` (self-play, audits and
/// matches all jitter their node budgets with it).
pub fn jitter_factor(fraction: f64, rng: &mut Xoshiro256PlusPlus) -> f64 {
    1.0 + fraction * rng.random_range(-1.0..=1.0)
}

/// A random opening move: uniform among all legal moves, or among the MultiPV moves within
/// `margin` of the best.
pub(crate) fn opening_move(
    game: &Game,
    choice: &Answer,
    mode: OpeningMode,
    margin: i32,
    rng: &mut Xoshiro256PlusPlus,
) -> Move {
    match mode {
        OpeningMode::Uniform => {
            let moves = game.position().legal_moves();
            let all = moves.as_slice();
            all[rng.random_range(0..all.len())]
        }
        OpeningMode::Multipv => {
            let best = choice.lines.first().map_or(choice.score.unwrap_or(0), |l| l.0);
            let near: Vec<Move> = choice
                .lines
                .iter()
                .filter(|(s, m)| *s >= best.saturating_sub(margin) && !m.is_null())
                .map(|&(_, m)| m)
                .collect();
            match choice.best {
                Some(m) if near.is_empty() => m,
                _ if near.is_empty() => Move::NULL,
                _ => near[rng.random_range(0..near.len())],
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::player::GreedyPlayer;
    use crate::config::Budget;

    fn cfg() -> GenConfig {
        GenConfig::new("minishogi", 4, 7, Budget::Nodes(1)).validated().unwrap()
    }

    #[test]
    fn game_is_reproducible_and_records_are_consistent() {
        let v = Variant::by_name("minishogi").unwrap();
        let mut c = cfg();
        c.openings.mode = OpeningMode::Uniform;
        let a = play_game(&c, v, &mut GreedyPlayer, 3).unwrap();
        let b = play_game(&c, v, &mut GreedyPlayer, 3).unwrap();
        assert_eq!(a.record, b.record);
        assert_eq!(a.positions, b.positions);
        let other = play_game(&c, v, &mut GreedyPlayer, 4).unwrap();
        assert_ne!(a.record.moves, other.record.moves, "games differ by index");
        let r = &a.record;
        assert_eq!(r.scores.len(), r.moves.len());
        assert!(a.positions.len() == r.moves.len() || a.positions.len() == r.moves.len() + 1);
        // Replay: every stored move is legal and the positions match.
        let mut g = Game::startpos(v);
        for (i, &m) in r.moves.iter().enumerate() {
            let p = &a.positions[i];
            assert_eq!(p.pos.to_fen(v).unwrap(), g.position().to_fen());
            assert_eq!(p.mv, m);
            assert_eq!(p.ply as usize, i);
            assert!(g.position().is_legal(Move(m)));
            g.play(Move(m));
        }
        if a.positions.len() == r.moves.len() {
            assert_eq!(g.outcome().map(|o| GameResult::from_winner(o.winner)), Some(r.result));
        }
    }

    #[test]
    fn node_jitter_varies_games_reproducibly() {
        let v = Variant::by_name("minishogi").unwrap();
        let mut c = cfg();
        c.budget = Budget::Nodes(60);
        c.openings.random_plies = 0;
        c.adjudication.max_plies = 40;
        let play = |c: &GenConfig, i| {
            let mut p = crate::arena::player::Builtin::default_eval(1);
            play_game(c, v, &mut p, i).unwrap().record.moves
        };
        // Without openings or jitter every game is the same game.
        assert_eq!(play(&c, 0), play(&c, 1));
        let j = GenConfig { nodes_jitter_pct: 50, ..c.clone() };
        assert_eq!(play(&j, 0), play(&j, 0), "reproducible");
        let games: Vec<Vec<u16>> = (0..4).map(|i| play(&j, i)).collect();
        assert!(games.iter().any(|g| *g != games[0]), "jitter makes other games");
    }

    #[test]
    fn rngs_differ_by_seed_variant_and_index() {
        let x = |s, v, i| game_rng(s, v, i).random::<u64>();
        assert_eq!(x(1, "shogi", 2), x(1, "shogi", 2));
        assert_ne!(x(1, "shogi", 2), x(1, "shogi", 3));
        assert_ne!(x(1, "shogi", 2), x(2, "shogi", 2));
        assert_ne!(x(1, "shogi", 2), x(1, "minishogi", 2));
    }

    #[test]
    fn ply_cap_ends_the_game_as_a_draw() {
        let v = Variant::by_name("minishogi").unwrap();
        let mut c = cfg();
        c.adjudication.max_plies = 5;
        c.adjudication.resign_plies = 0;
        let out = play_game(&c, v, &mut GreedyPlayer, 0).unwrap();
        if out.end == Termination::PlyLimit {
            assert_eq!(out.record.moves.len(), 5);
            assert_eq!(out.record.result, GameResult::Draw);
        }
        assert!(out.record.moves.len() <= 5);
    }
}
