//! Legal move generation: check evasions, pins, promotions, drops, castling, en passant.

use super::{CASTLE_BK, CASTLE_BQ, CASTLE_WK, CASTLE_WQ, NO_SQ, Position};
use crate::types::{Bitboard, Color, Move, MoveKind, MoveList, PieceKind, bits};

/// Where generated moves go: a list, a counter for perft leaves, or a yes/no for mate tests.
pub trait MoveSink {
    fn push(&mut self, m: Move);

    /// Whether the sink wants no more moves (generation may stop early).
    #[inline(always)]
    fn done(&self) -> bool {
        false
    }

    /// Plain (non-promoting) moves from `from` to every square of `targets`.
    #[inline(always)]
    fn push_targets(&mut self, from: u8, targets: Bitboard) {
        for to in bits(targets) {
            self.push(Move::new(from, to, MoveKind::Normal));
        }
    }

    /// Promotions from `from` to every square of `targets`, each into each of `choices`
    /// promotion choices.
    #[inline(always)]
    fn push_promotions(&mut self, from: u8, targets: Bitboard, choices: u8) {
        for to in bits(targets) {
            for c in 0..choices {
                self.push(Move::promotion(from, to, c));
            }
        }
    }

    /// Drops of `kind` on every square of `targets`.
    #[inline(always)]
    fn push_drops(&mut self, kind: PieceKind, targets: Bitboard) {
        for to in bits(targets) {
            self.push(Move::drop(kind, to));
        }
    }
}

impl MoveSink for MoveList {
    #[inline(always)]
    fn push(&mut self, m: Move) {
        MoveList::push(self, m);
    }
}

/// Counts moves without storing them.
pub struct MoveCounter(pub u64);

impl MoveSink for MoveCounter {
    #[inline(always)]
    fn push(&mut self, _m: Move) {
        self.0 += 1;
    }
    #[inline(always)]
    fn push_targets(&mut self, _from: u8, targets: Bitboard) {
        self.0 += targets.count_ones() as u64;
    }
    #[inline(always)]
    fn push_promotions(&mut self, _from: u8, targets: Bitboard, choices: u8) {
        self.0 += targets.count_ones() as u64 * u64::from(choices);
    }
    #[inline(always)]
    fn push_drops(&mut self, _kind: PieceKind, targets: Bitboard) {
        self.0 += targets.count_ones() as u64;
    }
}

/// Whether any move was pushed: generation stops at the first one.
struct AnyMove(bool);

impl MoveSink for AnyMove {
    #[inline(always)]
    fn push(&mut self, _m: Move) {
        self.0 = true;
    }
    #[inline(always)]
    fn push_targets(&mut self, _from: u8, targets: Bitboard) {
        self.0 |= targets != 0;
    }
    #[inline(always)]
    fn push_promotions(&mut self, _from: u8, targets: Bitboard, choices: u8) {
        self.0 |= targets != 0 && choices > 0;
    }
    #[inline(always)]
    fn push_drops(&mut self, _kind: PieceKind, targets: Bitboard) {
        self.0 |= targets != 0;
    }
    #[inline(always)]
    fn done(&self) -> bool {
        self.0
    }
}

impl Position {
    /// All legal moves.
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate(&mut list);
        list
    }

    /// The number of legal moves (faster than generating them).
    pub fn count_legal(&self) -> u64 {
        let mut c = MoveCounter(0);
        self.generate(&mut c);
        c.0
    }

    /// Whether the side to move has a legal move (stops at the first one: cheaper than
    /// [`Self::count_legal`] for mate and stalemate tests).
    pub fn has_legal_move(&self) -> bool {
        let mut any = AnyMove(false);
        self.generate(&mut any);
        any.0
    }

    /// The squares where a piece stops the check the piece on `checker` gives the king on
    /// `ksq`: between them for a slider's check, none for a leaper's (a piece that jumps two
    /// squares, `D` or `A`, is aligned with the king, yet cannot be blocked).
    fn check_blocks(&self, ksq: u8, checker: u8) -> Bitboard {
        let v = self.variant;
        let leaps = match self.piece_on(checker) {
            Some(p) => v.leap_attacks(p.color, p.kind, checker),
            None => 0,
        };
        if leaps & (1u64 << ksq) != 0 { 0 } else { v.between(ksq, checker) }
    }

    /// Generates every legal move into `sink`. A position whose campmate has been reached has
    /// none.
    pub fn generate<S: MoveSink>(&self, sink: &mut S) {
        if self.flag_reached() {
            return;
        }
        let v = self.variant;
        let us = self.stm;
        let them = !us;
        let ksq = self.king_sq[us as usize];
        let occ = self.occupied();
        let own = self.by_color[us as usize];
        let theirs = self.by_color[them as usize];
        let king = v.king;

        // King moves.
        let occ_nk = occ ^ (1u64 << ksq);
        for to in bits(v.leap_attacks(us, king, ksq) & !own) {
            if !self.is_attacked(to, them, occ_nk) {
                sink.push(Move::new(ksq, to, MoveKind::Normal));
                if sink.done() {
                    return;
                }
            }
        }
        let nchk = self.checkers.count_ones();
        if nchk >= 2 {
            return;
        }
        let (target, drop_target) = if nchk == 1 {
            let c = self.checkers.trailing_zeros() as u8;
            let btw = self.check_blocks(ksq, c);
            (self.checkers | btw, btw)
        } else {
            (v.board & !own, v.board & !occ)
        };
        let pinned = self.pinned(us);

        if nchk == 0 && self.castling != 0 {
            self.gen_castling(sink);
        }

        // Piece moves.
        for (ki, info) in v.kinds.iter().enumerate() {
            let k = PieceKind(ki as u8);
            if k == king {
                continue;
            }
            let pcs = self.by_kind[ki] & own;
            if pcs == 0 {
                continue;
            }
            let promo_zone = if info.promotes_to.is_some() { v.promotion_zone[us] } else { 0 };
            let immobile = if v.immobility_illegal { v.immobile(us, k) } else { 0 };
            let slides = info.slides[us];
            for from in bits(pcs) {
                let mut t = v.leap_both(us, k, from) & !own;
                if slides != 0 {
                    t |= v.slide_attacks(slides, from, occ) & !own;
                }
                t |= v.leap_capture(us, k, from) & theirs;
                t |= v.leap_quiet(us, k, from) & !occ;
                t |= self.double_step_target(k, from, occ);
                t &= target;
                if pinned & (1u64 << from) != 0 {
                    t &= self.line_segment(ksq, from);
                }
                if t == 0 {
                    continue;
                }
                if promo_zone != 0 {
                    let promo = if promo_zone & (1u64 << from) != 0 { t } else { t & promo_zone };
                    sink.push_promotions(from, promo, info.promotion_choices.len().max(1) as u8);
                    if v.mandatory_promotion {
                        t &= !promo;
                    } else {
                        t &= !(promo & immobile);
                    }
                } else {
                    t &= !immobile;
                }
                sink.push_targets(from, t);
                if sink.done() {
                    return;
                }
            }
        }

        if self.ep != NO_SQ {
            let ep = self.ep;
            // The capture must resolve any check: the checker is the double-stepped pawn.
            for from in bits(self.ep_capturers(ep)) {
                if self.ep_is_legal(from, ep, us) {
                    sink.push(Move::new(from, ep, MoveKind::EnPassant));
                }
            }
        }

        // Drops.
        let hand = &self.hands[us as usize];
        if drop_target != 0 {
            for &k in &v.hand_kinds {
                if hand[k.index()] == 0 {
                    continue;
                }
                sink.push_drops(k, self.drop_squares(k, drop_target));
            }
        }
    }

    /// The square a double step of the side to move's `k` from `from` reaches (both squares
    /// empty), as a bitboard; empty when there is none.
    #[inline(always)]
    pub(crate) fn double_step_target(&self, k: PieceKind, from: u8, occ: Bitboard) -> Bitboard {
        let v = self.variant;
        if v.double_step_kinds & (1 << k.index()) != 0
            && let Some(ds) = v.double_step(self.stm, k, from)
            && occ & ((1u64 << ((from + ds) / 2)) | (1u64 << ds)) == 0
        {
            1u64 << ds
        } else {
            0
        }
    }

    /// The squares of `targets` where the side to move may drop `k`: the kind's drop region,
    /// less the files that already hold one of its own when the kind has nifu.
    #[inline(always)]
    pub(crate) fn drop_squares(&self, k: PieceKind, targets: Bitboard) -> Bitboard {
        let v = self.variant;
        let us = self.stm;
        let mut t = targets & v.drop_targets(us, k);
        if v.kind(k).nifu {
            for f in bits(self.pieces(us, k)) {
                t &= !v.file_masks[(f % v.width) as usize];
            }
        }
        t
    }

    fn gen_castling<S: MoveSink>(&self, sink: &mut S) {
        let v = self.variant;
        let us = self.stm;
        let them = !us;
        let geo = v.castling_geometry[us];
        let rights =
            if us == Color::White { [CASTLE_WK, CASTLE_WQ] } else { [CASTLE_BK, CASTLE_BQ] };
        let occ = self.occupied();
        if self.king_sq[us as usize] != geo.king_from {
            return;
        }
        for (side, right) in rights.into_iter().enumerate() {
            if self.castling & right == 0 {
                continue;
            }
            let rook_sq = geo.rook_from[side];
            match self.piece_on(rook_sq) {
                Some(p) if p.color == us && v.kind(p.kind).castling_rook => {}
                _ => continue,
            }
            if v.between(geo.king_from, rook_sq) & occ != 0 {
                continue;
            }
            let king_to = geo.king_to[side];
            let path = v.between(geo.king_from, king_to) | (1u64 << king_to);
            if bits(path).any(|s| self.is_attacked(s, them, occ)) {
                continue;
            }
            sink.push(Move::new(geo.king_from, king_to, MoveKind::Castling));
        }
    }

    /// Whether `m` is legal here (by generation; for checked input and tests).
    pub fn is_legal(&self, m: Move) -> bool {
        self.legal_moves().contains(m)
    }
}
