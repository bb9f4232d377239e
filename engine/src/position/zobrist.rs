//! Zobrist keys: board pieces (promoted kinds are kinds of their own), hand counts, side,
//! castling rights and the en-passant square. Generated at compile time from a fixed seed.

use crate::types::{Color, MAX_KINDS, MAX_SQUARES, PieceKind};
use crate::util::hash::{GOLDEN_GAMMA, splitmix64};

/// Hand counts above this share the last key slot (no real position holds that many).
pub const MAX_HAND_KEY: usize = 32;

const PSQ: usize = 2 * MAX_KINDS * MAX_SQUARES;
const HAND: usize = 2 * MAX_KINDS * MAX_HAND_KEY;
const TOTAL: usize = PSQ + HAND + 16 + MAX_SQUARES + 1;

pub struct Zobrist {
    keys: [u64; TOTAL],
}

const fn build() -> Zobrist {
    let mut keys = [0u64; TOTAL];
    let mut state = 0x6b61_6765_u64; // "kage"
    let mut i = 0;
    while i < TOTAL {
        keys[i] = splitmix64(state);
        state = state.wrapping_add(GOLDEN_GAMMA);
        i += 1;
    }
    // A zero hand count contributes nothing, so empty hands need no keys.
    let mut j = 0;
    while j < 2 * MAX_KINDS {
        keys[PSQ + j * MAX_HAND_KEY] = 0;
        j += 1;
    }
    keys[PSQ + HAND] = 0; // no castling rights
    Zobrist { keys }
}

pub static ZOBRIST: Zobrist = build();

impl Zobrist {
    #[inline(always)]
    pub fn psq(&self, c: Color, k: PieceKind, sq: u8) -> u64 {
        self.keys[(c as usize * MAX_KINDS + k.index()) * MAX_SQUARES + sq as usize]
    }

    #[inline(always)]
    pub fn hand(&self, c: Color, k: PieceKind, count: u8) -> u64 {
        let n = (count as usize).min(MAX_HAND_KEY - 1);
        self.keys[PSQ + (c as usize * MAX_KINDS + k.index()) * MAX_HAND_KEY + n]
    }

    #[inline(always)]
    pub fn castling(&self, rights: u8) -> u64 {
        self.keys[PSQ + HAND + (rights as usize & 15)]
    }

    #[inline(always)]
    pub fn ep(&self, sq: u8) -> u64 {
        self.keys[PSQ + HAND + 16 + sq as usize]
    }

    #[inline(always)]
    pub fn side(&self) -> u64 {
        self.keys[PSQ + HAND + 16 + MAX_SQUARES]
    }
}
