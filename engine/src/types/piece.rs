//! Piece kinds are indices into the variant's piece table; a piece is a kind with a color.

use super::Color;

/// The most piece kinds (promoted forms included) a variant may define.
pub const MAX_KINDS: usize = 24;

/// Index into `Variant::kinds`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PieceKind(pub u8);

impl PieceKind {
    #[inline(always)]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A colored piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    pub color: Color,
    pub kind: PieceKind,
}

impl Piece {
    pub const NONE_CODE: u8 = 0xff;

    /// Compact code used by the mailbox board: `color << 5 | kind`.
    #[inline(always)]
    pub fn code(self) -> u8 {
        ((self.color as u8) << 5) | self.kind.0
    }

    #[inline(always)]
    pub fn from_code(code: u8) -> Option<Piece> {
        if code == Self::NONE_CODE {
            None
        } else {
            let color = if code & 0x20 != 0 { Color::Black } else { Color::White };
            Some(Piece { color, kind: PieceKind(code & 0x1f) })
        }
    }
}
