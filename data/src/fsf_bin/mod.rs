//! Fairy-Stockfish's `.bin` training data (variant-nnue-tools' `PackedSfenValue`, the format
//! variant-nnue-pytorch trains on; FSF-NNUE.md §8.2): 72-byte records with no file header.
//!
//! | bytes | field |
//! |---|---|
//! | 0..63 | packed position ([`packed`]) |
//! | 64..65 | i16 score, side to move, FSF internal units (a pawn is [`PAWN_VALUE`]) |
//! | 66..67 | u16 move (FSF's internal move, truncated; kage writes 0, see below) |
//! | 68..69 | u16 game ply |
//! | 70 | i8 game result, side to move: 1 win, 0 draw, −1 loss |
//! | 71 | padding (0) |
//!
//! Integers are little-endian. A `.bin` file is just records back to back, so a reader must
//! be told the variant; [`BinReader`] streams it and reports a short trailing record.
//!
//! Conversion with kage's records ([`Converter`]):
//! * **pieces**: a kind is FSF's type of it (`kage_engine::nnue::fsf::FsfLayout`): a promoted
//!   piece is its promoted type, so where FSF's type is also an unpromoted kind (minishogi's
//!   `+P`/`+S` and gorogoroplus' `+P`/`+S`/`+L`/`+N` are golds, shinobi(plus)'s `+P`, `+L`, `+H`,
//!   `+M` are C, R, N, B) the format does not say that the piece was promoted, as in FSF's own
//!   packer. Reading, a type becomes the unpromoted kind of that type when there is one
//!   (a gold), else the promoted kind that is that type (minishogi's H is `+B`, D is `+R`).
//! * **scores** ([`cp_to_fsf`], [`fsf_to_cp`]): kage's are centipawns (a pawn 100) and FSF's
//!   internal units are 208 per pawn (`PawnValueEg`), so `fsf = round(cp · 2.08)` and back;
//!   exact both ways for |cp| ≤ 15,000. Mate scores (kage `MATE − plies`) become FSF's
//!   (`VALUE_MATE − plies`, both 32,000) when the distance is below FSF's `MAX_PLY` (246).
//! * **move**: FSF's u16 is its internal move (squares of its 8- or 12-file board, the move
//!   type in bits 12–15 or 14–17, piece types above bit 16) cut to 16 bits, so it cannot say
//!   what a drop drops; variant-nnue-pytorch never reads it (§8.2). kage writes 0 and reads
//!   no move (kage's 0 = none).
//! * **rule 50**: 7 bits; a longer kage halfmove clock is written as 127 (counted in the
//!   export summary; only variants without a move rule have such clocks).
//! * kage's flags are not in the format: read back, `IN_CHECK` is recomputed from the
//!   position, the move flags are empty.

mod bits;
mod convert;
mod io;
pub mod packed;

pub use convert::{Converter, Exported, LayoutError};
pub use io::{BinError, BinReader, BinWriter, read_bin_file};
pub use packed::{FsfPiece, FsfPosition, Geometry};

use kage_engine::search::{MATE, MATE_BOUND};

/// Bytes per record.
pub const RECORD_BYTES: usize = 72;
/// Bytes of the packed position.
pub const PACKED_BYTES: usize = 64;
/// FSF's pawn in internal units (`PawnValueEg`), the unit of the record's score.
pub const PAWN_VALUE: i32 = 208;
/// FSF's mate score (`VALUE_MATE`).
pub const FSF_MATE: i32 = 32000;
/// FSF's `MAX_PLY`: scores within this many plies of [`FSF_MATE`] are mates.
pub const FSF_MAX_PLY: i32 = 246;

/// One record as stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FsfRecord {
    /// The packed position ([`FsfPosition::unpack`]).
    pub packed: [u8; PACKED_BYTES],
    /// Score, side to move, FSF internal units.
    pub score: i16,
    /// FSF's move, truncated to 16 bits (0 for none).
    pub mv: u16,
    /// Game ply.
    pub ply: u16,
    /// Result, side to move (1, 0, −1 in a sane record).
    pub result: i8,
    /// The padding byte.
    pub padding: u8,
}

impl FsfRecord {
    /// The 72 stored bytes.
    pub fn to_bytes(&self) -> [u8; RECORD_BYTES] {
        let mut b = [0u8; RECORD_BYTES];
        b[..PACKED_BYTES].copy_from_slice(&self.packed);
        b[64..66].copy_from_slice(&self.score.to_le_bytes());
        b[66..68].copy_from_slice(&self.mv.to_le_bytes());
        b[68..70].copy_from_slice(&self.ply.to_le_bytes());
        b[70] = self.result as u8;
        b[71] = self.padding;
        b
    }

    /// A record from its 72 bytes (every byte pattern is a record; its position is checked
    /// when it is unpacked).
    pub fn from_bytes(b: &[u8; RECORD_BYTES]) -> Self {
        let mut packed = [0u8; PACKED_BYTES];
        packed.copy_from_slice(&b[..PACKED_BYTES]);
        FsfRecord {
            packed,
            score: i16::from_le_bytes([b[64], b[65]]),
            mv: u16::from_le_bytes([b[66], b[67]]),
            ply: u16::from_le_bytes([b[68], b[69]]),
            result: b[70] as i8,
            padding: b[71],
        }
    }
}

/// Why one record cannot be packed, unpacked or converted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    /// The fields need more than 512 bits (or the stream ends inside a field).
    #[error("the packed position runs past its 512 bits")]
    Overflow,
    /// A king square beyond the board (`S` means none).
    #[error("{} king square {value} is off the board", if *color == 0 { "White's" } else { "Black's" })]
    KingSquare {
        /// 0 White, 1 Black.
        color: usize,
        /// The stored value.
        value: u8,
    },
    /// Both kings on one square.
    #[error("both kings on one square")]
    KingsCollide,
    /// A piece code that names no non-king type of the variant.
    #[error("piece code {code} on square {square} names no piece type of the variant")]
    PieceCode {
        /// Dense square.
        square: u8,
        /// The 5-bit code `2·ordinal + 1`.
        code: u8,
    },
    /// A hand count above 31.
    #[error("hand count {0} does not fit 5 bits")]
    HandCount(u8),
    /// An en-passant square beyond the board.
    #[error("en-passant square {0} is off the board")]
    EpSquare(u8),
    /// A rule-50 counter above 127.
    #[error("rule-50 counter {0} does not fit 7 bits")]
    Rule50(u8),
    /// A side without a king (kage's positions have one each).
    #[error("{} has no king", if *.0 == 0 { "White" } else { "Black" })]
    NoKing(usize),
    /// A king in hand.
    #[error("a king in hand")]
    KingInHand,
    /// An FSF type that no kind of the kage variant is.
    #[error("FSF piece type {ordinal} ({letter}) is no piece of the kage variant")]
    NoKind {
        /// Type ordinal.
        ordinal: u8,
        /// FSF's letter of it.
        letter: char,
    },
    /// A result byte other than −1, 0, 1.
    #[error("game result {0} is not -1, 0 or 1")]
    Result(i8),
    /// The fields do not form a valid kage position (the engine's reason).
    #[error(transparent)]
    Position(#[from] crate::CompactError),
}

/// A kage score (centipawns, side to move) in FSF internal units (module documentation).
pub fn cp_to_fsf(cp: i16) -> i16 {
    let cp = i32::from(cp);
    let mate_in = (MATE - cp.abs()).max(0);
    let v = if cp.abs() > MATE_BOUND && mate_in < FSF_MAX_PLY {
        FSF_MATE - mate_in
    } else {
        ((cp.abs() * PAWN_VALUE + 50) / 100).min(FSF_MATE - FSF_MAX_PLY - 1)
    };
    (cp.signum() * v) as i16
}

/// An FSF score (internal units, side to move) in kage centipawns (module documentation).
pub fn fsf_to_cp(v: i16) -> i16 {
    let v = i32::from(v);
    let cp = if v.abs() >= FSF_MATE - FSF_MAX_PLY {
        MATE - (FSF_MATE - v.abs()).max(0)
    } else {
        (v.abs() * 100 + PAWN_VALUE / 2) / PAWN_VALUE
    };
    (v.signum() * cp) as i16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_convert_exactly_below_fifteen_thousand_and_for_mates() {
        for cp in -15_000..=15_000i16 {
            assert_eq!(fsf_to_cp(cp_to_fsf(cp)), cp, "{cp}");
        }
        assert_eq!(cp_to_fsf(100), 208);
        assert_eq!(cp_to_fsf(-1), -2);
        assert_eq!(fsf_to_cp(208), 100);
        assert_eq!(cp_to_fsf((MATE - 5) as i16), (FSF_MATE - 5) as i16);
        assert_eq!(fsf_to_cp(-(FSF_MATE - 5) as i16), -(MATE - 5) as i16);
        assert_eq!(cp_to_fsf(i16::MAX), FSF_MATE as i16);
        assert_eq!(cp_to_fsf(MATE_BOUND as i16), (FSF_MATE - FSF_MAX_PLY - 1) as i16);
        assert_eq!(fsf_to_cp(i16::MIN), -MATE as i16);
        assert!(fsf_to_cp((FSF_MATE - FSF_MAX_PLY - 1) as i16) < MATE_BOUND as i16);
    }

    #[test]
    fn record_bytes_round_trip() {
        let mut packed = [0u8; PACKED_BYTES];
        packed[3] = 0xa5;
        let r = FsfRecord { packed, score: -417, mv: 0xbeef, ply: 301, result: -1, padding: 0 };
        let b = r.to_bytes();
        assert_eq!(&b[64..], &[0x5f, 0xfe, 0xef, 0xbe, 0x2d, 0x01, 0xff, 0x00]);
        assert_eq!(FsfRecord::from_bytes(&b), r);
    }
}
