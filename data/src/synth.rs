//! Synthetic records for benchmarks and tests (not real positions).

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::compact::{CompactPosition, NO_PIECE, PositionParts};
use crate::game::{GameRecord, GameResult, Termination};
use crate::position::{PositionFlags, PositionRecord, StmResult};

/// Deterministic generator of synthetic records.
pub struct Synth {
    rng: Xoshiro256PlusPlus,
}

impl Synth {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        Synth { rng: Xoshiro256PlusPlus::seed_from_u64(seed) }
    }

    /// A structurally valid position record with random content.
    pub fn position(&mut self) -> PositionRecord {
        let rng = &mut self.rng;
        let mut occupancy: u64 = rng.random::<u64>() & rng.random::<u64>();
        while occupancy.count_ones() > 30 {
            occupancy &= occupancy - 1;
        }
        let board = (0..occupancy.count_ones())
            .map(|_| rng.random_range(0..12u8) | (rng.random_range(0..2u8) << 5))
            .collect();
        let hand = (0..rng.random_range(0..4))
            .map(|_| (rng.random_range(0..8u8), rng.random_range(1..3u8)))
            .collect();
        let parts = PositionParts {
            occupancy,
            board,
            hand,
            stm: rng.random_range(0..2),
            castling: rng.random_range(0..16),
            ep: if rng.random_bool(0.1) { rng.random_range(0..64) } else { NO_PIECE },
            halfmove: rng.random_range(0..100),
            fullmove: rng.random_range(1..300),
        };
        let pos = CompactPosition::from_parts(&parts).expect("synthetic parts are valid");
        PositionRecord {
            pos,
            score: rng.random_range(-3000..3000),
            result: StmResult::from_i8(rng.random_range(-1..=1)).unwrap_or(StmResult::Draw),
            ply: rng.random_range(0..400),
            mv: rng.random(),
            flags: PositionFlags::from_bits(rng.random::<u8>() & PositionFlags::ALL)
                .unwrap_or_default(),
        }
    }

    /// A game record with random moves (not a legal game).
    pub fn game(&mut self, variant: &str, index: u64) -> GameRecord {
        let rng = &mut self.rng;
        let n = rng.random_range(0..200);
        let results = [GameResult::WhiteWin, GameResult::BlackWin, GameResult::Draw];
        // Self-play's terminations only: the same synthetic data as before codes 10-12.
        let all = Termination::SELFPLAY;
        let termination = all[rng.random_range(0..all.len())];
        // Resignations are decisive and adjudicated draws drawn: they are stored alike.
        let result = match termination {
            Termination::Resign => results[rng.random_range(0..2)],
            Termination::AdjudicatedDraw => GameResult::Draw,
            _ => results[rng.random_range(0..3)],
        };
        GameRecord {
            variant: variant.to_owned(),
            start_fen: "rbsgk/4p/5/P4/KGSBR[-] w 0 1".to_owned(),
            moves: (0..n).map(|_| rng.random()).collect(),
            scores: (0..n).map(|_| rng.random_range(-2000..2000)).collect(),
            result,
            termination,
            game_index: index,
        }
    }
}
