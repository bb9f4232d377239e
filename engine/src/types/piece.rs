//! Piece kinds are indices into the variant's piece table; a piece is a kind with a color.

use super::Color;

/// The most piece kinds (promoted forms included) a variant may define.
pub const MAX_KINDS: usize = 24;

/// Index into `Variant::kinds`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PieceKind(pub u8);

impl PieceKind {
    /// The index into the variant's kinds.
    #[inline(always)]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A colored piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    /// Owner.
    pub color: Color,
    /// Kind.
    pub kind: PieceKind,
}

impl Piece {
    /// The code of an empty square.
    pub const NONE_CODE: u8 = 0xff;

    /// Compact code used by the mailbox board: `color << 5 | kind`.
    #[inline(always)]
    pub fn code(self) -> u8 {
        ((self.color as u8) << 5) | self.kind.0
    }

    /// Whether `code` is a well-formed piece code: only the color bit (5) and a kind below
    /// [`MAX_KINDS`] (bits 0-4). Whether the kind exists in a variant is the variant's
    /// business ([`Piece::from_code_in`]).
    #[inline(always)]
    pub fn is_valid_code(code: u8) -> bool {
        code & !0x3f == 0 && usize::from(code & 0x1f) < MAX_KINDS
    }

    /// The piece of a well-formed code ([`Piece::is_valid_code`]) whose kind is one of the
    /// first `num_kinds` kinds; `None` for anything else, [`Piece::NONE_CODE`] included.
    #[inline(always)]
    pub fn from_code_in(code: u8, num_kinds: usize) -> Option<Piece> {
        if Self::is_valid_code(code) && usize::from(code & 0x1f) < num_kinds {
            Self::from_code(code)
        } else {
            None
        }
    }

    /// The piece of a mailbox code, trusting it (any code but [`Piece::NONE_CODE`] is read
    /// as `color << 5 | kind`); see [`Piece::from_code_in`] for untrusted codes.
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
