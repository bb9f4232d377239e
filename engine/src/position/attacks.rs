//! Attack queries: attackers of a square, pins.

use super::Position;
use crate::types::{Bitboard, Color, Move, MoveKind, PieceKind, bits};

impl Position {
    /// Pieces of `by` attacking `sq` with the given occupancy.
    #[inline]
    pub fn attackers_to(&self, sq: u8, by: Color, occ: Bitboard) -> Bitboard {
        self.attackers_to_masked(sq, by, occ, self.by_color[by as usize])
    }

    /// As `attackers_to`, counting only the `by` pieces in `mask`.
    pub(crate) fn attackers_to_masked(
        &self,
        sq: u8,
        by: Color,
        occ: Bitboard,
        mask: Bitboard,
    ) -> Bitboard {
        self.leaper_attackers(sq, by, mask) | self.slider_attackers(sq, by, occ, mask)
    }

    /// Whether `by` attacks `sq` with the given occupancy (leapers first: no slider is
    /// looked at once one is found).
    #[inline]
    pub fn is_attacked(&self, sq: u8, by: Color, occ: Bitboard) -> bool {
        let mask = self.by_color[by as usize];
        self.leaper_attackers(sq, by, mask) != 0 || self.slider_attackers(sq, by, occ, mask) != 0
    }

    /// The `by` pieces in `mask` that attack `sq` by sliding, with the given occupancy.
    #[inline]
    fn slider_attackers(&self, sq: u8, by: Color, occ: Bitboard, mask: Bitboard) -> Bitboard {
        (0..8).fold(0, |att, d| att | self.ray_attacker(sq, d, by, occ, mask))
    }

    /// The `by` piece in `mask` that attacks `sq` by sliding along the ray from `sq` in
    /// direction `d` (the nearest piece on it, if it slides towards `sq`), as a bitboard.
    #[inline(always)]
    fn ray_attacker(&self, sq: u8, d: usize, by: Color, occ: Bitboard, mask: Bitboard) -> Bitboard {
        let v = self.variant;
        // Kinds of `by` sliding towards `sq` along this ray move in the opposite direction.
        let kinds = v.slide_kinds[by as usize][(d + 4) & 7];
        if kinds == 0 {
            return 0;
        }
        let blockers = v.ray[d][sq as usize] & occ;
        if blockers == 0 {
            return 0;
        }
        let b = nearest(blockers, matches!(d, 0 | 1 | 2 | 7));
        if mask & (1 << b) != 0 && kinds & (1 << (self.board[b as usize] & 0x1f)) != 0 {
            1 << b
        } else {
            0
        }
    }

    /// The `by` pieces in `mask` that attack `sq` by leaping.
    #[inline]
    fn leaper_attackers(&self, sq: u8, by: Color, mask: Bitboard) -> Bitboard {
        let v = self.variant;
        let mut att = 0;
        let them = !by;
        let mut lk = v.leaper_kinds;
        while lk != 0 {
            let k = lk.trailing_zeros() as u8;
            lk &= lk - 1;
            let pcs = self.by_kind[k as usize] & mask;
            if pcs != 0 {
                att |= v.leap_attacks(them, PieceKind(k), sq) & pcs;
            }
        }
        att
    }

    /// The pieces of the side that just moved (`us`) that check the other king, from the move
    /// alone: the piece now on `to` directly, and after a board move from `from`, the slider
    /// of `us` that the vacated square uncovers on the king's line through it. Equal to
    /// [`Self::attackers_to`] of that king for drops and normal moves and promotions (leapers
    /// cannot be uncovered, and a line through any other square is as it was); not for
    /// castling or en passant, which move or remove a second piece.
    #[inline]
    pub(crate) fn checkers_after(&self, us: Color, from: Option<u8>, to: u8) -> Bitboard {
        let v = self.variant;
        let ksq = self.king_sq[!us as usize];
        let occ = self.occupied();
        let kind = PieceKind(self.board[to as usize] & 0x1f);
        let checkers = if v.attacks(us, kind, to, occ) & (1 << ksq) != 0 { 1 << to } else { 0 };
        let Some(from) = from else { return checkers };
        // The one ray from the king that holds `from`, if any.
        match (0..8).find(|&d| v.ray[d][ksq as usize] & (1 << from) != 0) {
            Some(d) => checkers | self.ray_attacker(ksq, d, us, occ, self.by_color[us as usize]),
            None => checkers,
        }
    }

    /// Pieces of `us` pinned to their king, and for each the line it may move along.
    #[inline]
    pub(crate) fn pinned(&self, us: Color) -> Bitboard {
        self.line_blockers(us, us)
    }

    /// Pieces of the side to move whose move off the line to the opposing king uncovers a
    /// check by one of its own sliders (discovered-check candidates, for [`Self::gives_check`]).
    #[inline]
    pub fn discoverers(&self) -> Bitboard {
        self.line_blockers(!self.stm, self.stm)
    }

    /// Pieces of `blockers` that stand alone between the king of `king` and a slider of the
    /// other colour that would attack it along that line.
    fn line_blockers(&self, king: Color, blockers: Color) -> Bitboard {
        let v = self.variant;
        let them = !king;
        let ksq = self.king_sq[king as usize] as usize;
        let occ = self.occupied();
        let own = self.by_color[blockers as usize];
        let theirs = self.by_color[them as usize];
        let mut pinned = 0;
        for d in 0..8 {
            let kinds = v.slide_kinds[them as usize][(d + 4) & 7];
            if kinds == 0 {
                continue;
            }
            let ray = v.ray[d][ksq];
            let mut blockers = ray & occ;
            if blockers == 0 {
                continue;
            }
            let positive = matches!(d, 0 | 1 | 2 | 7);
            let first = nearest(blockers, positive);
            if own & (1 << first) == 0 {
                continue;
            }
            blockers &= !(1 << first);
            if blockers == 0 {
                continue;
            }
            let second = nearest(blockers, positive);
            if theirs & (1 << second) != 0 {
                let k = self.board[second as usize] & 0x1f;
                if kinds & (1 << k) != 0 {
                    pinned |= 1 << first;
                }
            }
        }
        pinned
    }

    /// For a piece on `from` aligned with the king on `ksq`: the squares between the king and
    /// the nearest piece beyond `from` on their line, that piece included. A pinned piece (or a
    /// discoverer) moving there keeps the line shut; elsewhere on the line (past the pinner or
    /// the king, where a leaper such as `D` can jump) it opens it.
    pub(crate) fn line_segment(&self, ksq: u8, from: u8) -> Bitboard {
        let v = self.variant;
        let occ = self.occupied();
        for x in bits(v.line(ksq, from) & occ) {
            if x != from && v.between(ksq, x) & (1 << from) != 0 && v.between(from, x) & occ == 0 {
                return v.between(ksq, x) | 1 << x;
            }
        }
        v.line(ksq, from)
    }

    /// Whether the legal move `m` gives check, without playing it. `discoverers` is
    /// [`Self::discoverers`] of this position (computed once per node by the caller).
    pub fn gives_check(&self, m: Move, discoverers: Bitboard) -> bool {
        let v = self.variant;
        let us = self.stm;
        let ksq = self.king_sq[!us as usize];
        let to = m.to().0;
        let (kind, occ) = match m.kind() {
            MoveKind::Castling | MoveKind::EnPassant => {
                let mut child = self.clone();
                child.play(m);
                return child.in_check();
            }
            MoveKind::Drop => (m.drop_kind(), self.occupied() | 1 << to),
            kind => {
                let from = m.from().0;
                let Some(p) = self.piece_on(from) else { return false };
                let k =
                    if kind == MoveKind::Promotion { v.promoted_kind(p.kind, m) } else { p.kind };
                if discoverers & (1 << from) != 0 && self.line_segment(ksq, from) & (1 << to) == 0 {
                    return true;
                }
                (k, (self.occupied() ^ 1 << from) | 1 << to)
            }
        };
        v.attacks(us, kind, to, occ) & (1 << ksq) != 0
    }

    /// Squares attacked by `by` (used by evaluation and tests; not on the movegen hot path).
    pub fn attacked_squares(&self, by: Color) -> Bitboard {
        let occ = self.occupied();
        let mut a = 0;
        for sq in bits(self.by_color[by as usize]) {
            let p = self.piece_on(sq).expect("occupied");
            a |= self.variant.attacks(by, p.kind, sq, occ);
        }
        a
    }
}

#[inline(always)]
fn nearest(b: Bitboard, positive: bool) -> u8 {
    if positive { b.trailing_zeros() as u8 } else { 63 - b.leading_zeros() as u8 }
}
