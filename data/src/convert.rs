//! Conversions between the engine's positions and the compact records.
//!
//! Decoding goes through the engine's validated constructor
//! ([`kage_engine::Position::from_setup`], the same checks as its FEN parser),
//! so a decoded position is validated exactly like any other input (one king
//! each, side not to move not in check, pieces allowed in hand, ...).

use kage_engine::nnue::features::write_features;
use kage_engine::position::Setup;
use kage_engine::{Color, Move, MoveKind, Piece, Position, Variant};

use crate::compact::{CompactError, CompactPosition, NO_PIECE, PositionParts};
use crate::position::{PositionFlags, PositionRecord, StmResult};

impl CompactPosition {
    /// Packs an engine position.
    pub fn from_position(pos: &Position) -> Result<Self, CompactError> {
        let v = pos.variant();
        let occupancy = pos.occupied();
        let mut board = Vec::with_capacity(occupancy.count_ones() as usize);
        let mut bb = occupancy;
        while bb != 0 {
            let sq = bb.trailing_zeros() as u8;
            bb &= bb - 1;
            let p = pos.piece_on(sq).ok_or_else(|| invalid(v, "occupied square without piece"))?;
            board.push(p.code());
        }
        let mut hand = Vec::new();
        for c in Color::ALL {
            for &k in &v.hand_kinds {
                let n = pos.hand(c, k);
                if n > 0 {
                    hand.push((Piece { color: c, kind: k }.code(), n));
                }
            }
        }
        CompactPosition::from_parts(&PositionParts {
            occupancy,
            board,
            hand,
            stm: pos.side_to_move() as u8,
            castling: pos.castling_rights(),
            ep: pos.ep_square().unwrap_or(NO_PIECE),
            halfmove: pos.halfmove_clock(),
            fullmove: pos.fullmove_number(),
        })
    }

    /// The position as FEN in the engine's notation (identical to
    /// `Position::to_fen` of the packed position).
    pub fn to_fen(&self, v: &'static Variant) -> Result<String, CompactError> {
        Ok(self.to_position(v)?.to_fen())
    }

    /// Side to move.
    pub fn side_to_move(&self) -> Color {
        if self.stm() == 0 { Color::White } else { Color::Black }
    }

    /// Pieces on the board as `(square, piece)`, in square order, without
    /// building a `Position` (no allocation, no validation).
    pub fn board(&self) -> impl Iterator<Item = (u8, Piece)> + '_ {
        let mut bb = self.occupancy();
        self.piece_bytes().iter().take(bb.count_ones() as usize).filter_map(move |&code| {
            let sq = bb.trailing_zeros() as u8;
            bb &= bb.wrapping_sub(1);
            Piece::from_code(code).map(|p| (sq, p))
        })
    }

    /// Pieces in hand, one item per piece (a kind held twice appears twice).
    pub fn hand_pieces(&self) -> impl Iterator<Item = Piece> + '_ {
        let n = self.occupancy().count_ones() as usize;
        self.piece_bytes().iter().skip(n).filter_map(|&code| Piece::from_code(code))
    }

    /// The NNUE input features of this position seen from `perspective`
    /// ([`kage_engine::nnue::features::write_features`]), straight from the compact form:
    /// the same features in the same order as `active_features` of the decoded `Position`,
    /// without going through FEN. Pieces are checked against `v`, legality is not; on error
    /// nothing is appended.
    pub fn active_features(
        &self,
        v: &Variant,
        perspective: Color,
        out: &mut Vec<u32>,
    ) -> Result<(), CompactError> {
        Ok(write_features(v, &self.piece_codes(v)?, perspective, out)?)
    }

    /// [`Self::active_features`] of the side to move, then of the other side, appended to
    /// `out`; returns the side to move's count. On error nothing is appended.
    #[inline]
    pub fn features_both_sides(
        &self,
        v: &Variant,
        out: &mut Vec<u32>,
    ) -> Result<usize, CompactError> {
        let codes = self.piece_codes(v)?;
        let stm = self.side_to_move();
        let start = out.len();
        write_features(v, &codes, stm, out)?;
        let stm_len = out.len() - start;
        // The second call checks what the first did: it cannot fail.
        write_features(v, &codes, !stm, out)?;
        Ok(stm_len)
    }

    /// Unpacks into an engine position of variant `v`, validated by the
    /// engine exactly as a FEN would be (`Position::from_setup`).
    pub fn to_position(&self, v: &'static Variant) -> Result<Position, CompactError> {
        let parts = self.to_parts()?;
        if parts.occupancy & !v.board != 0 {
            return Err(invalid(v, "pieces off the board"));
        }
        let mut setup = Setup::default();
        let mut bb = parts.occupancy;
        for &code in &parts.board {
            let sq = bb.trailing_zeros() as usize;
            bb &= bb - 1;
            setup.board[sq] = Some(check_kind(v, code)?);
        }
        for &(code, n) in &parts.hand {
            let p = check_kind(v, code)?;
            setup.hands[p.color as usize][p.kind.index()] = n;
        }
        setup.side_to_move = if parts.stm == 0 { Color::White } else { Color::Black };
        setup.castling = parts.castling;
        setup.ep = (parts.ep != NO_PIECE).then_some(parts.ep);
        setup.halfmove = parts.halfmove;
        setup.fullmove = parts.fullmove;
        Position::from_setup(v, &setup).map_err(|e| invalid(v, &e.to_string()))
    }
}

fn check_kind(v: &Variant, code: u8) -> Result<Piece, CompactError> {
    match Piece::from_code(code) {
        Some(p) if p.kind.index() < v.num_kinds() => Ok(p),
        _ => Err(CompactError::BadPiece(code)),
    }
}

fn invalid(v: &Variant, reason: &str) -> CompactError {
    CompactError::Invalid { variant: v.name.clone(), reason: reason.to_owned() }
}

/// Flags of `pos` and the move played from it (`played`), with the search's
/// best move (`best`) deciding [`PositionFlags::BEST_NOISY`].
pub fn position_flags(pos: &Position, played: Option<Move>, best: Option<Move>) -> PositionFlags {
    let mut f = PositionFlags::default();
    f.set(PositionFlags::IN_CHECK, pos.in_check());
    if let Some(m) = played.filter(|m| !m.is_null()) {
        f.set(PositionFlags::CAPTURE, pos.captured(m).is_some());
        f.set(PositionFlags::PROMOTION, m.kind() == MoveKind::Promotion);
        f.set(PositionFlags::DROP, m.kind() == MoveKind::Drop);
    }
    if let Some(b) = best.filter(|m| !m.is_null()) {
        f.set(PositionFlags::BEST_NOISY, pos.captured(b).is_some() || b.is_promotion());
    }
    f
}

impl PositionRecord {
    /// A training record of `pos`: `score` from the side to move, `winner`
    /// of the game (`None` for a draw), the move `played` from `pos` and the
    /// search's `best` move (for the noisy flag).
    pub fn from_position(
        pos: &Position,
        score: i16,
        winner: Option<Color>,
        ply: u16,
        played: Option<Move>,
        best: Option<Move>,
    ) -> Result<Self, CompactError> {
        let result = StmResult::for_side(winner, pos.side_to_move());
        Ok(PositionRecord {
            pos: CompactPosition::from_position(pos)?,
            score,
            result,
            ply,
            mv: played.map_or(0, |m| m.0),
            flags: position_flags(pos, played, best),
        })
    }

    /// Side to move of the position.
    pub fn side_to_move(&self) -> Color {
        if self.pos.stm() == 0 { Color::White } else { Color::Black }
    }

    /// Score from White's point of view.
    pub fn white_score(&self) -> i16 {
        if self.pos.stm() == 0 { self.score } else { self.score.saturating_neg() }
    }

    /// Result from White's point of view.
    pub fn white_result(&self) -> StmResult {
        if self.pos.stm() == 0 { self.result } else { self.result.flip() }
    }

    /// The move played, if any.
    pub fn played(&self) -> Option<Move> {
        (self.mv != 0).then_some(Move(self.mv))
    }
}
