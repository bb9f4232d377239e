//! FSF's packed position (FSF-NNUE.md §8.2), independent of kage's rules: what the 512 bits
//! say, in FSF's terms (type ordinals, dense squares), for a board of a given size.
//!
//! Bit order: side to move (1 bit, 0 = White); White's then Black's king square (7 bits each,
//! `S = files·ranks` meaning none); the board from the last rank down, files a→h, the king
//! squares skipped, an empty square a single 0 bit and a piece the 5-bit code `2·ordinal + 1`
//! followed by its colour bit (0 = White); for White then Black a 5-bit hand count per type
//! in ordinal order, the king's included; 4 castling bits (White O-O, O-O-O, Black O-O,
//! O-O-O); an en-passant flag (and a 7-bit square); 6 bits of rule 50; the full-move number
//! in 8 + 8 bits; the 7th bit of rule 50.

use super::bits::{BitReader, BitWriter, Overflow};
use super::{PACKED_BYTES, RecordError};

/// Most FSF piece types a 5-bit code can name (`2·15 + 1 = 31`).
pub const MAX_TYPES: usize = 16;
/// Largest hand count 5 bits hold.
pub const MAX_HAND: u8 = 31;
/// Largest rule-50 counter 7 bits hold.
pub const MAX_RULE50: u8 = 127;

/// The board a packed position is for: files, ranks and FSF piece types (the king last).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    files: u8,
    ranks: u8,
    types: u8,
}

impl Geometry {
    /// A board of `files × ranks` squares with `types` FSF piece types, king included;
    /// `None` when the format cannot hold it (more than 64 squares, or not 2 to 16 types).
    pub fn new(files: u8, ranks: u8, types: u8) -> Option<Geometry> {
        let squares = usize::from(files) * usize::from(ranks);
        (files > 0 && squares <= 64 && (2..=MAX_TYPES).contains(&usize::from(types)))
            .then_some(Geometry { files, ranks, types })
    }

    /// `S = files · ranks`, also the "no king" value of a king square.
    pub fn squares(self) -> u8 {
        self.files * self.ranks
    }

    /// FSF piece types, the king included.
    pub fn types(self) -> u8 {
        self.types
    }

    /// The king's ordinal (the last type).
    pub fn king(self) -> u8 {
        self.types - 1
    }

    /// Dense squares in stream order: the last rank down, files a→h.
    fn stream_order(self) -> impl Iterator<Item = u8> {
        let f = self.files;
        (0..self.ranks).rev().flat_map(move |r| (0..f).map(move |file| r * f + file))
    }
}

/// A piece on the board, in FSF's terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FsfPiece {
    /// Type ordinal (never the king's: kings are in [`FsfPosition::kings`]).
    pub ordinal: u8,
    /// 0 White, 1 Black.
    pub color: u8,
}

/// What a packed position holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FsfPosition {
    /// 0 White, 1 Black.
    pub stm: u8,
    /// King square per colour (White, Black); `None` when that side has no king.
    pub kings: [Option<u8>; 2],
    /// Non-king pieces by dense square (`rank·files + file`); only the first `S` are used.
    pub board: [Option<FsfPiece>; 64],
    /// Hand counts per colour and type ordinal (the king's is 0 in a sane position).
    pub hands: [[u8; MAX_TYPES]; 2],
    /// Castling bits: 1 White O-O, 2 White O-O-O, 4 Black O-O, 8 Black O-O-O.
    pub castling: u8,
    /// En-passant square.
    pub ep: Option<u8>,
    /// Rule-50 counter (plies), at most [`MAX_RULE50`].
    pub rule50: u8,
    /// Full-move number.
    pub fullmove: u16,
}

impl FsfPosition {
    /// An empty board, White to move, move 1.
    pub fn empty() -> Self {
        FsfPosition {
            stm: 0,
            kings: [None; 2],
            board: [None; 64],
            hands: [[0; MAX_TYPES]; 2],
            castling: 0,
            ep: None,
            rule50: 0,
            fullmove: 1,
        }
    }

    /// The 64 packed bytes; an error when a field does not fit the format or the board.
    pub fn pack(&self, g: Geometry) -> Result<[u8; PACKED_BYTES], RecordError> {
        let s = g.squares();
        let mut w = BitWriter::new();
        let of = |_: Overflow| RecordError::Overflow;
        w.write(u32::from(self.stm & 1), 1).map_err(of)?;
        for (color, king) in self.kings.iter().enumerate() {
            match *king {
                Some(sq) if sq >= s => return Err(RecordError::KingSquare { color, value: sq }),
                k => w.write(u32::from(k.unwrap_or(s)), 7).map_err(of)?,
            }
        }
        for sq in g.stream_order() {
            if self.kings.contains(&Some(sq)) {
                continue;
            }
            match self.board[usize::from(sq)] {
                None => w.write(0, 1).map_err(of)?,
                Some(p) if p.ordinal >= g.king() || p.color > 1 => {
                    return Err(RecordError::PieceCode { square: sq, code: 2 * p.ordinal + 1 });
                }
                Some(p) => {
                    w.write(u32::from(2 * p.ordinal + 1), 5).map_err(of)?;
                    w.write(u32::from(p.color), 1).map_err(of)?;
                }
            }
        }
        for hand in &self.hands {
            for &n in &hand[..usize::from(g.types)] {
                if n > MAX_HAND {
                    return Err(RecordError::HandCount(n));
                }
                w.write(u32::from(n), 5).map_err(of)?;
            }
        }
        w.write(u32::from(self.castling & 15), 4).map_err(of)?;
        match self.ep {
            Some(sq) if sq >= s => return Err(RecordError::EpSquare(sq)),
            Some(sq) => w.write(1 | u32::from(sq) << 1, 8).map_err(of)?,
            None => w.write(0, 1).map_err(of)?,
        }
        if self.rule50 > MAX_RULE50 {
            return Err(RecordError::Rule50(self.rule50));
        }
        w.write(u32::from(self.rule50), 6).map_err(of)?;
        w.write(u32::from(self.fullmove), 16).map_err(of)?;
        w.write(u32::from(self.rule50 >> 6), 1).map_err(of)?;
        Ok(w.finish())
    }

    /// Reads packed bytes; an error (never a panic) when they do not describe a position of
    /// board `g`.
    pub fn unpack(data: &[u8; PACKED_BYTES], g: Geometry) -> Result<Self, RecordError> {
        let s = g.squares();
        let mut r = BitReader::new(data);
        let mut read = |n| r.read(n).map_err(|_| RecordError::Overflow);
        let mut p = FsfPosition::empty();
        p.stm = read(1)? as u8;
        for color in 0..2 {
            let value = read(7)? as u8;
            p.kings[color] = match value {
                v if v < s => Some(v),
                v if v == s => None,
                v => return Err(RecordError::KingSquare { color, value: v }),
            };
        }
        if p.kings[0].is_some() && p.kings[0] == p.kings[1] {
            return Err(RecordError::KingsCollide);
        }
        for sq in g.stream_order() {
            if p.kings.contains(&Some(sq)) || read(1)? == 0 {
                continue;
            }
            let ordinal = read(4)? as u8;
            if ordinal >= g.king() {
                return Err(RecordError::PieceCode { square: sq, code: 2 * ordinal + 1 });
            }
            p.board[usize::from(sq)] = Some(FsfPiece { ordinal, color: read(1)? as u8 });
        }
        for color in 0..2 {
            for t in 0..usize::from(g.types) {
                p.hands[color][t] = read(5)? as u8;
            }
        }
        p.castling = read(4)? as u8;
        if read(1)? == 1 {
            let sq = read(7)? as u8;
            if sq >= s {
                return Err(RecordError::EpSquare(sq));
            }
            p.ep = Some(sq);
        }
        let low = read(6)? as u8;
        p.fullmove = read(16)? as u16;
        p.rule50 = low | (read(1)? as u8) << 6;
        Ok(p)
    }
}
