//! Training-position records.

use bincode::de::{Decode, Decoder};
use bincode::enc::{Encode, Encoder};
use bincode::error::{DecodeError, EncodeError};

use crate::compact::CompactPosition;
use crate::header::RecordKind;
use crate::record::Record;

/// Game result from the side to move of the position (a game's result from White's view
/// is [`crate::GameResult`]; how and why it ended is the engine's `Outcome`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StmResult {
    /// The side to move lost the game.
    Loss,
    /// Draw.
    Draw,
    /// The side to move won the game.
    Win,
}

impl StmResult {
    /// -1, 0 or 1.
    pub fn as_i8(self) -> i8 {
        match self {
            StmResult::Loss => -1,
            StmResult::Draw => 0,
            StmResult::Win => 1,
        }
    }

    /// Parses -1, 0 or 1.
    pub fn from_i8(v: i8) -> Option<Self> {
        match v {
            -1 => Some(StmResult::Loss),
            0 => Some(StmResult::Draw),
            1 => Some(StmResult::Win),
            _ => None,
        }
    }

    /// The result for `side` of a game `winner` won (`None`: a draw).
    pub fn for_side(winner: Option<kage_engine::Color>, side: kage_engine::Color) -> Self {
        match winner {
            None => StmResult::Draw,
            Some(c) if c == side => StmResult::Win,
            Some(_) => StmResult::Loss,
        }
    }

    /// The same result seen from the other side.
    pub fn flip(self) -> Self {
        match self {
            StmResult::Loss => StmResult::Win,
            StmResult::Draw => StmResult::Draw,
            StmResult::Win => StmResult::Loss,
        }
    }

    /// 0.0, 0.5 or 1.0.
    pub fn as_f32(self) -> f32 {
        match self {
            StmResult::Loss => 0.0,
            StmResult::Draw => 0.5,
            StmResult::Win => 1.0,
        }
    }
}

impl Encode for StmResult {
    fn encode<E: Encoder>(&self, e: &mut E) -> Result<(), EncodeError> {
        self.as_i8().encode(e)
    }
}

impl<C> Decode<C> for StmResult {
    fn decode<D: Decoder<Context = C>>(d: &mut D) -> Result<Self, DecodeError> {
        let v = i8::decode(d)?;
        StmResult::from_i8(v).ok_or(DecodeError::Other("outcome out of range"))
    }
}
bincode::impl_borrow_decode!(StmResult);

/// Position flags: what the trainer may want to filter on at load time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct PositionFlags(u8);

impl PositionFlags {
    /// The side to move is in check.
    pub const IN_CHECK: u8 = 1;
    /// The move played is a capture.
    pub const CAPTURE: u8 = 2;
    /// The move played is a promotion.
    pub const PROMOTION: u8 = 4;
    /// The move played is a drop.
    pub const DROP: u8 = 8;
    /// The search's best move is noisy (capture or promotion).
    pub const BEST_NOISY: u8 = 16;
    /// Every defined bit.
    pub const ALL: u8 = 31;

    /// Builds flags from bits; `None` if an undefined bit is set.
    pub fn from_bits(bits: u8) -> Option<Self> {
        (bits & !Self::ALL == 0).then_some(PositionFlags(bits))
    }

    /// The raw bits.
    pub fn bits(self) -> u8 {
        self.0
    }

    /// Whether every bit of `mask` is set.
    pub fn has(self, mask: u8) -> bool {
        self.0 & mask == mask
    }

    /// Sets or clears `mask` (undefined bits are ignored).
    pub fn set(&mut self, mask: u8, on: bool) {
        if on {
            self.0 |= mask & Self::ALL;
        } else {
            self.0 &= !mask;
        }
    }

    /// In check.
    pub fn in_check(self) -> bool {
        self.has(Self::IN_CHECK)
    }
    /// Move played is a capture.
    pub fn capture(self) -> bool {
        self.has(Self::CAPTURE)
    }
    /// Move played is a promotion.
    pub fn promotion(self) -> bool {
        self.has(Self::PROMOTION)
    }
    /// Move played is a drop.
    pub fn drop(self) -> bool {
        self.has(Self::DROP)
    }
    /// Best move is a capture or promotion.
    pub fn best_noisy(self) -> bool {
        self.has(Self::BEST_NOISY)
    }
}

impl Encode for PositionFlags {
    fn encode<E: Encoder>(&self, e: &mut E) -> Result<(), EncodeError> {
        self.0.encode(e)
    }
}

impl<C> Decode<C> for PositionFlags {
    fn decode<D: Decoder<Context = C>>(d: &mut D) -> Result<Self, DecodeError> {
        PositionFlags::from_bits(u8::decode(d)?).ok_or(DecodeError::Other("undefined flag bits"))
    }
}
bincode::impl_borrow_decode!(PositionFlags);

/// One training position.
///
/// * `score`: search score in centipawns **from the side to move**.
/// * `result`: final game result **from the side to move** of this position.
/// * `ply`: plies played from the game's start position.
/// * `mv`: the move played in the game from this position, engine encoding
///   (`kage_engine::Move.0`; 0 when none, e.g. the last position).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, bincode::Encode, bincode::Decode)]
pub struct PositionRecord {
    /// The position.
    pub pos: CompactPosition,
    /// Search score (cp, side to move).
    pub score: i16,
    /// Game result (side to move).
    pub result: StmResult,
    /// Ply number.
    pub ply: u16,
    /// Move played (engine encoding).
    pub mv: u16,
    /// Flags.
    pub flags: PositionFlags,
}

impl Record for PositionRecord {
    const KIND: RecordKind = RecordKind::Position;
    /// Fixed size: every record takes exactly this many bytes.
    const MIN_ENCODED_LEN: usize = 63;
}
