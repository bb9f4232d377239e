//! One self-play game: the arena's game ([`crate::arena::game::play`]) by a config's rules
//! (random opening plies, its budget, adjudication), and the records that come out of it. A
//! game depends only on (config, game index) and the player's deterministic answers, never
//! on the thread that plays it.

use std::time::Instant;

use kage_data::{GameRecord, PositionRecord, Termination};
use kage_engine::util::hash::{fnv1a64, splitmix64};
use kage_engine::{Position, Variant};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

pub(crate) use crate::arena::game::opening_move;
use crate::arena::game::{self as arena, AdjudicateAt, GameEnd, LimitSpec, Rules, Seats, Start};
use crate::arena::player::Player;
use crate::config::{Budget, GenConfig};
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
    /// Nanoseconds spent inside [`Player::go`].
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

/// The arena rules of a self-play config: its budget and node jitter, ply cap, adjudication
/// on the score before each move, random opening plies, a training position per search.
pub fn rules(cfg: &GenConfig) -> Rules {
    let limit = match cfg.budget {
        Budget::Nodes(nodes) => {
            LimitSpec::Nodes { nodes, jitter: f64::from(cfg.nodes_jitter_pct) / 100.0 }
        }
        Budget::Depth(d) => LimitSpec::Depth(d),
    };
    Rules {
        limit,
        nodes: [None; 2],
        max_plies: match cfg.adjudication.max_plies {
            0 => u32::from(u16::MAX),
            n => n,
        },
        adjudication: cfg.adjudication,
        adjudicate_at: AdjudicateAt::BeforeMove,
        openings: Some(cfg.openings),
        hang: None,
        positions: true,
    }
}

/// Plays game `index` of the run described by `cfg` with `player` (both sides).
pub fn play_game(
    cfg: &GenConfig,
    variant: &'static Variant,
    player: &mut dyn Player,
    index: u64,
) -> Result<GameOutput> {
    let start = Instant::now();
    let mut rng = game_rng(cfg.seed, &cfg.variant, index);
    let first = Position::startpos(variant);
    let at = Start { variant: &cfg.variant, position: &first, book: &[], index };
    let bad = |reason: String| SelfplayError::BadGame { game: index, reason };
    let p = match arena::play(Seats::One(player), &at, &rules(cfg), &mut rng, None)? {
        GameEnd::Done(p) => p,
        GameEnd::Fault { error, .. } => {
            return Err(SelfplayError::PlayerFault { game: index, cause: error });
        }
        GameEnd::Aborted => return Err(SelfplayError::Interrupted),
    };
    // Self-play keeps no game its player lost by an illegal move: a broken player.
    if let Some(i) = &p.illegal {
        return Err(bad(format!("player returned an illegal move {:?} in {}", i.text, i.fen)));
    }
    let p = *p;
    Ok(GameOutput {
        end: p.record.termination,
        record: p.record,
        positions: p.positions,
        search_ns: p.search_ns,
        total_ns: start.elapsed().as_nanos() as u64,
        nodes: p.nodes,
    })
}

/// A node budget factor in `1 +- fraction`, uniform, from `rng` (self-play, audits and
/// matches all jitter their node budgets with it).
pub fn jitter_factor(fraction: f64, rng: &mut Xoshiro256PlusPlus) -> f64 {
    1.0 + fraction * rng.random_range(-1.0..=1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::player::GreedyPlayer;
    use crate::config::OpeningMode;
    use kage_data::GameResult;
    use kage_engine::{Game, Move};

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
