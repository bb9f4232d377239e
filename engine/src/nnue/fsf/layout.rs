//! The HalfKAv2_variants input features of one variant, as FSF indexes them (FSF-NNUE.md §5;
//! `src/nnue/features/half_ka_v2_variants.cpp:28-73`, tables from `src/variant.cpp:2006-2083`).
//!
//! Squares are the real board's, `rank·F + file` (kage's own numbering); Black's perspective
//! mirrors the ranks (a vertical flip, not a rotation). Per king square of the perspective's
//! own king a block of `B = (2n−1)·S + 2(n−1)·P` features: `2n−1` board planes (own and
//! their planes per non-king type, one plane shared by both kings), then `2(n−1)` hand blocks
//! of `P = 2F` thermometer slots.

use super::FsfError;
use crate::position::Position;
use crate::types::{Color, MAX_KINDS, Piece, PieceKind, bits};
use crate::variant::Variant;

/// Most features FSF allows active per perspective (`half_ka_v2_variants.h:65`).
pub const MAX_ACTIVE: usize = 128;

/// The feature layout of one variant, built once from its `[fsf_nnue]` table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FsfLayout {
    variant: String,
    files: u8,
    ranks: u8,
    squares: u32,
    types: u32,
    pockets: u32,
    per_king: u32,
    dims: u32,
    max_pieces: u32,
    letters: Vec<char>,
    ordinal: [u8; MAX_KINDS],
    king: PieceKind,
}

impl FsfLayout {
    /// The layout of `v`; an error when its spec has no `[fsf_nnue]` table.
    pub fn for_variant(v: &Variant) -> Result<FsfLayout, FsfError> {
        let t = v.fsf_nnue.as_ref().ok_or_else(|| FsfError::NoLayout(v.name.clone()))?;
        let (squares, types) = (u32::from(v.num_squares), t.num_types() as u32);
        let pockets = 2 * u32::from(v.width);
        let per_king = (2 * types - 1) * squares + 2 * (types - 1) * pockets;
        let max_pieces = count_start_pieces(&v.start_fen);
        if max_pieces == 0 || max_pieces as usize > MAX_ACTIVE {
            return Err(FsfError::Unsupported {
                variant: v.name.clone(),
                why: format!("{max_pieces} pieces in the start position (1 to {MAX_ACTIVE})"),
            });
        }
        let mut ordinal = [0; MAX_KINDS];
        ordinal[..t.ordinal.len()].copy_from_slice(&t.ordinal);
        Ok(FsfLayout {
            variant: v.name.clone(),
            files: v.width,
            ranks: v.height,
            squares,
            types,
            pockets,
            per_king,
            dims: squares * per_king,
            max_pieces,
            letters: t.letters.clone(),
            ordinal,
            king: v.king,
        })
    }

    /// The variant's name.
    pub fn variant_name(&self) -> &str {
        &self.variant
    }

    /// Input features (FSF's `nnueDimensions`): `S·B`.
    pub fn dims(&self) -> usize {
        self.dims as usize
    }

    /// Features per king square, `B`.
    pub fn per_king(&self) -> u32 {
        self.per_king
    }

    /// Board squares, `S = F·R`.
    pub fn squares(&self) -> u32 {
        self.squares
    }

    /// FSF piece types, `n` (the king included, last).
    pub fn num_types(&self) -> u32 {
        self.types
    }

    /// Hand slots per type and colour, `P = 2F`.
    pub fn pockets(&self) -> u32 {
        self.pockets
    }

    /// FSF's `nnueMaxPieces`: the piece letters of the start FEN's board field, pocket
    /// included (`src/variant.cpp:2073-2083`).
    pub fn max_pieces(&self) -> u32 {
        self.max_pieces
    }

    /// FSF's type letters in NNUE order (the king last).
    pub fn type_letters(&self) -> &[char] {
        &self.letters
    }

    /// The size of a net file for this variant with a `desc_len`-byte description.
    pub fn file_size(&self, desc_len: usize) -> usize {
        super::arch::file_size(self.dims(), desc_len)
    }

    /// The FSF type ordinal (0..n, the king n−1) kind `k` is seen as. FSF's packed `.bin`
    /// positions code a piece as `2·ordinal + 1` (FSF-NNUE.md §8.2).
    #[inline(always)]
    pub fn piece_ordinal(&self, k: PieceKind) -> u8 {
        self.ordinal[k.index()]
    }

    /// Square `sq` (kage's numbering, which is FSF's dense one) seen from `perspective`:
    /// Black mirrors the ranks.
    #[inline(always)]
    pub fn orient(&self, perspective: Color, sq: u8) -> u32 {
        match perspective {
            Color::White => u32::from(sq),
            Color::Black => {
                let (f, r) = (sq % self.files, sq / self.files);
                u32::from((self.ranks - 1 - r) * self.files + f)
            }
        }
    }

    /// The first feature of the block of `perspective`'s own king standing on `king_sq`.
    #[inline(always)]
    pub fn king_block(&self, perspective: Color, king_sq: u8) -> u32 {
        self.orient(perspective, king_sq) * self.per_king
    }

    /// The feature of `piece` on `sq` seen from `perspective`, whose king block is `block`
    /// ([`FsfLayout::king_block`]).
    #[inline(always)]
    pub fn board_feature(&self, perspective: Color, block: u32, piece: Piece, sq: u8) -> u32 {
        let plane = if piece.kind == self.king {
            2 * (self.types - 1)
        } else {
            2 * u32::from(self.piece_ordinal(piece.kind)) + u32::from(piece.color != perspective)
        };
        block + plane * self.squares + self.orient(perspective, sq)
    }

    /// The feature of the `slot`-th (0-based) copy of `kind` in `owner`'s hand seen from
    /// `perspective`. `None` past the `P` slots: FSF would spill into the next block there,
    /// which no legal game of the built-in variants reaches.
    #[inline(always)]
    pub fn hand_feature(
        &self,
        perspective: Color,
        block: u32,
        owner: Color,
        kind: PieceKind,
        slot: u8,
    ) -> Option<u32> {
        let slot = u32::from(slot);
        (slot < self.pockets).then(|| {
            let b = 2 * u32::from(self.piece_ordinal(kind)) + u32::from(owner != perspective);
            block + (2 * self.types - 1) * self.squares + b * self.pockets + slot
        })
    }

    /// Appends the active features of `pos` seen from `perspective`: board pieces in
    /// ascending square order, then both hands (White's first) in kind order.
    pub fn active_features(&self, pos: &Position, perspective: Color, out: &mut Vec<u32>) {
        let block = self.king_block(perspective, pos.king_square(perspective));
        for sq in bits(pos.occupied()) {
            if let Some(piece) = pos.piece_on(sq) {
                out.push(self.board_feature(perspective, block, piece, sq));
            }
        }
        for &owner in &Color::ALL {
            for &kind in &pos.variant().hand_kinds {
                for slot in 0..pos.hand(owner, kind) {
                    out.extend(self.hand_feature(perspective, block, owner, kind, slot));
                }
            }
        }
    }

    /// The PSQT column and layer stack for `board_pieces` pieces on the board (both
    /// colours, kings included, hands excluded): `min((count − 1)·8 / nnueMaxPieces, 7)`
    /// (`evaluate_nnue.cpp:163`).
    #[inline(always)]
    pub fn bucket_for(&self, board_pieces: u32) -> usize {
        let b = board_pieces.saturating_sub(1) * super::arch::BUCKETS as u32 / self.max_pieces;
        (b as usize).min(super::arch::BUCKETS - 1)
    }

    /// The bucket of `pos` ([`FsfLayout::bucket_for`] of its board pieces).
    #[inline(always)]
    pub fn bucket(&self, pos: &Position) -> usize {
        self.bucket_for(pos.occupied().count_ones())
    }
}

/// The piece letters of a FEN's first field, its `[pocket]` included.
fn count_start_pieces(fen: &str) -> u32 {
    let board = fen.split_whitespace().next().unwrap_or("");
    board.chars().filter(char::is_ascii_alphabetic).count() as u32
}

#[cfg(test)]
mod tests;
