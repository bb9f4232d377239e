//! Squares, indexed `rank * width + file` on a board of the variant's size.

/// The most squares any board may have (all fit in a `u64` bitboard).
pub const MAX_SQUARES: usize = 64;

/// A square index. Its meaning (file, rank) depends on the board width.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(pub u8);

impl Square {
    /// The square index.
    #[inline(always)]
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The square as a bitboard.
    #[inline(always)]
    pub fn bb(self) -> u64 {
        1u64 << self.0
    }

    /// The square on `file` and `rank` (0-based) of a board `width` files wide.
    pub fn new(file: u8, rank: u8, width: u8) -> Square {
        Square(rank * width + file)
    }

    /// The 0-based file on a board `width` files wide.
    pub fn file(self, width: u8) -> u8 {
        self.0 % width
    }

    /// The 0-based rank on a board `width` files wide.
    pub fn rank(self, width: u8) -> u8 {
        self.0 / width
    }

    /// Algebraic name such as `e4` on a board of the given width.
    pub fn name(self, width: u8) -> String {
        let f = (b'a' + self.file(width)) as char;
        format!("{f}{}", self.rank(width) + 1)
    }

    /// Parses `e4`-style names; `None` when malformed or off the board.
    pub fn parse(s: &str, width: u8, height: u8) -> Option<Square> {
        let b = s.as_bytes();
        if b.len() < 2 || !b[0].is_ascii_lowercase() {
            return None;
        }
        let file = b[0] - b'a';
        let rank: u8 = s[1..].parse().ok()?;
        if file >= width || rank == 0 || rank > height {
            return None;
        }
        Some(Square::new(file, rank - 1, width))
    }
}
