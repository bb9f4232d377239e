//! A validated position: bitboards, mailbox, hands, Zobrist key; copy-make moves.

mod attacks;
mod fen;
mod movegen;
mod notation;
mod zobrist;

pub use fen::{FenError, Setup};
pub use notation::MoveError;

use crate::types::{
    Bitboard, Color, MAX_KINDS, MAX_SQUARES, Move, MoveKind, Piece, PieceKind, bits,
};
use crate::variant::Variant;
use zobrist::ZOBRIST;

/// No square (en passant, king).
pub const NO_SQ: u8 = 0xff;

/// Castling right bits: White king side, White queen side, Black king side, Black queen side.
pub const CASTLE_WK: u8 = 1;
/// Castling right: White, queen side.
pub const CASTLE_WQ: u8 = 2;
/// Castling right: Black, king side.
pub const CASTLE_BK: u8 = 4;
/// Castling right: Black, queen side.
pub const CASTLE_BQ: u8 = 8;

/// A legal position of a variant: board, hands, side to move, castling, en passant,
/// clocks, and its Zobrist key.
#[derive(Clone)]
pub struct Position {
    variant: &'static Variant,
    by_kind: [Bitboard; MAX_KINDS],
    by_color: [Bitboard; 2],
    board: [u8; MAX_SQUARES],
    hands: [[u8; MAX_KINDS]; 2],
    stm: Color,
    castling: u8,
    ep: u8,
    halfmove: u16,
    fullmove: u16,
    key: u64,
    checkers: Bitboard,
    king_sq: [u8; 2],
}

impl std::fmt::Debug for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Position({} {})", self.variant.name, self.to_fen())
    }
}

impl PartialEq for Position {
    fn eq(&self, o: &Self) -> bool {
        std::ptr::eq(self.variant, o.variant)
            && self.by_kind == o.by_kind
            && self.by_color == o.by_color
            && self.board == o.board
            && self.hands == o.hands
            && self.stm == o.stm
            && self.castling == o.castling
            && self.ep == o.ep
            && self.halfmove == o.halfmove
            && self.fullmove == o.fullmove
            && self.key == o.key
            && self.checkers == o.checkers
            && self.king_sq == o.king_sq
    }
}

impl Position {
    fn empty(variant: &'static Variant) -> Position {
        Position {
            variant,
            by_kind: [0; MAX_KINDS],
            by_color: [0; 2],
            board: [Piece::NONE_CODE; MAX_SQUARES],
            hands: [[0; MAX_KINDS]; 2],
            stm: Color::White,
            castling: 0,
            ep: NO_SQ,
            halfmove: 0,
            fullmove: 1,
            key: 0,
            checkers: 0,
            king_sq: [NO_SQ; 2],
        }
    }

    /// The variant's start position.
    pub fn startpos(variant: &'static Variant) -> Position {
        Position::from_fen(variant, &variant.start_fen).expect("start FEN checked at compile")
    }

    /// The variant.
    #[inline(always)]
    pub fn variant(&self) -> &'static Variant {
        self.variant
    }

    /// The side to move.
    #[inline(always)]
    pub fn side_to_move(&self) -> Color {
        self.stm
    }

    /// Zobrist key (board, hands, side, castling rights, en-passant square).
    #[inline(always)]
    pub fn key(&self) -> u64 {
        self.key
    }

    /// Pieces giving check to the side to move.
    #[inline(always)]
    pub fn checkers(&self) -> Bitboard {
        self.checkers
    }

    /// Whether the side to move is in check.
    #[inline(always)]
    pub fn in_check(&self) -> bool {
        self.checkers != 0
    }

    /// Plies since the last capture, drop, promotion or pawn move.
    #[inline(always)]
    pub fn halfmove_clock(&self) -> u16 {
        self.halfmove
    }

    /// The fullmove number (starts at 1, grows after Black's move).
    pub fn fullmove_number(&self) -> u16 {
        self.fullmove
    }

    /// Castling rights (`CASTLE_*` bits).
    pub fn castling_rights(&self) -> u8 {
        self.castling
    }

    /// En-passant target square, set only when an en-passant capture is legal.
    pub fn ep_square(&self) -> Option<u8> {
        (self.ep != NO_SQ).then_some(self.ep)
    }

    /// Occupied squares.
    #[inline(always)]
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    /// Squares of `c`'s pieces.
    #[inline(always)]
    pub fn pieces_of(&self, c: Color) -> Bitboard {
        self.by_color[c as usize]
    }

    /// Squares of the pieces of kind `k`, both colors.
    #[inline(always)]
    pub fn pieces_of_kind(&self, k: PieceKind) -> Bitboard {
        self.by_kind[k.index()]
    }

    /// Squares of `c`'s pieces of kind `k`.
    #[inline(always)]
    pub fn pieces(&self, c: Color, k: PieceKind) -> Bitboard {
        self.by_kind[k.index()] & self.by_color[c as usize]
    }

    /// The piece on `sq`, if any.
    #[inline(always)]
    pub fn piece_on(&self, sq: u8) -> Option<Piece> {
        Piece::from_code(self.board[sq as usize])
    }

    /// How many pieces of kind `k` `c` holds in hand.
    #[inline(always)]
    pub fn hand(&self, c: Color, k: PieceKind) -> u8 {
        self.hands[c as usize][k.index()]
    }

    /// Square of `c`'s king.
    #[inline(always)]
    pub fn king_square(&self, c: Color) -> u8 {
        self.king_sq[c as usize]
    }

    /// True when the side that just moved has its king on its campmate ranks:
    /// the game is over and there are no legal moves.
    #[inline(always)]
    pub fn flag_reached(&self) -> bool {
        let them = !self.stm;
        self.variant.flag_zone[them] & self.pieces(them, self.variant.king) != 0
    }

    #[inline(always)]
    fn put(&mut self, c: Color, k: PieceKind, sq: u8) {
        let b = 1u64 << sq;
        self.by_kind[k.index()] |= b;
        self.by_color[c as usize] |= b;
        self.board[sq as usize] = Piece { color: c, kind: k }.code();
        self.key ^= ZOBRIST.psq(c, k, sq);
    }

    #[inline(always)]
    fn remove(&mut self, c: Color, k: PieceKind, sq: u8) {
        let b = 1u64 << sq;
        self.by_kind[k.index()] ^= b;
        self.by_color[c as usize] ^= b;
        self.board[sq as usize] = Piece::NONE_CODE;
        self.key ^= ZOBRIST.psq(c, k, sq);
    }

    #[inline(always)]
    fn add_hand(&mut self, c: Color, k: PieceKind, delta: i8) {
        let n = &mut self.hands[c as usize][k.index()];
        self.key ^= ZOBRIST.hand(c, k, *n);
        *n = (*n as i8 + delta) as u8;
        self.key ^= ZOBRIST.hand(c, k, *n);
    }

    fn set_castling(&mut self, rights: u8) {
        self.key ^= ZOBRIST.castling(self.castling) ^ ZOBRIST.castling(rights);
        self.castling = rights;
    }

    /// The kind a move leaves on its destination square.
    pub fn moved_kind(&self, m: Move) -> PieceKind {
        match m.kind() {
            MoveKind::Drop => m.drop_kind(),
            MoveKind::Castling => self.variant.king,
            MoveKind::Promotion => {
                let k = self.piece_on(m.from().0).expect("promotion from an occupied square").kind;
                self.variant.promoted_kind(k, m)
            }
            _ => self.piece_on(m.from().0).expect("move from an occupied square").kind,
        }
    }

    /// The piece a move captures, if any.
    pub fn captured(&self, m: Move) -> Option<Piece> {
        match m.kind() {
            MoveKind::Drop | MoveKind::Castling => None,
            MoveKind::EnPassant => self.piece_on(self.ep_victim(m.to().0)),
            _ => self.piece_on(m.to().0),
        }
    }

    /// Square of the pawn an en-passant capture onto `to` removes.
    #[inline(always)]
    pub(crate) fn ep_victim(&self, to: u8) -> u8 {
        let w = self.variant.width;
        if self.stm == Color::White { to - w } else { to + w }
    }

    /// Plays a legal move (behaviour for an illegal move is unspecified but memory-safe).
    pub fn play(&mut self, m: Move) {
        let v = self.variant;
        let us = self.stm;
        let them = !us;
        self.halfmove = self.halfmove.saturating_add(1);
        if self.ep != NO_SQ {
            self.key ^= ZOBRIST.ep(self.ep);
            self.ep = NO_SQ;
        }
        let mut double_step_mid = NO_SQ;
        match m.kind() {
            MoveKind::Drop => {
                let k = m.drop_kind();
                self.add_hand(us, k, -1);
                self.put(us, k, m.to().0);
                self.halfmove = 0;
            }
            MoveKind::Castling => {
                let geo = v.castling_geometry[us];
                let side = if m.to().0 == geo.king_to[0] { 0 } else { 1 };
                let rook = self.piece_on(geo.rook_from[side]).expect("castling rook").kind;
                self.remove(us, v.king, geo.king_from);
                self.remove(us, rook, geo.rook_from[side]);
                self.put(us, v.king, geo.king_to[side]);
                self.put(us, rook, geo.rook_to[side]);
                self.king_sq[us as usize] = geo.king_to[side];
                let mask =
                    if us == Color::White { CASTLE_WK | CASTLE_WQ } else { CASTLE_BK | CASTLE_BQ };
                self.set_castling(self.castling & !mask);
            }
            _ => {
                let (from, to) = (m.from().0, m.to().0);
                let k = self.piece_on(from).expect("move from an occupied square").kind;
                let capsq = if m.kind() == MoveKind::EnPassant { self.ep_victim(to) } else { to };
                if let Some(cap) = self.piece_on(capsq) {
                    self.remove(them, cap.kind, capsq);
                    if v.captures_to_hand {
                        self.add_hand(us, v.kind(cap.kind).demoted, 1);
                    }
                    self.halfmove = 0;
                }
                self.remove(us, k, from);
                let info = v.kind(k);
                let nk = if m.kind() == MoveKind::Promotion {
                    self.halfmove = 0;
                    v.promoted_kind(k, m)
                } else {
                    k
                };
                self.put(us, nk, to);
                if info.pawn {
                    self.halfmove = 0;
                    if from.abs_diff(to) == 2 * v.width && v.en_passant {
                        double_step_mid = (from + to) / 2;
                    }
                }
                if k == v.king {
                    self.king_sq[us as usize] = to;
                }
                if self.castling != 0 {
                    let lost = castle_mask(v, from) | castle_mask(v, to);
                    if self.castling & lost != 0 {
                        self.set_castling(self.castling & !lost);
                    }
                }
            }
        }
        if us == Color::Black {
            self.fullmove = self.fullmove.saturating_add(1);
        }
        self.stm = them;
        self.key ^= ZOBRIST.side();
        let ksq = self.king_sq[them as usize];
        self.checkers = match m.kind() {
            _ if ksq as usize >= MAX_SQUARES => 0,
            MoveKind::Castling | MoveKind::EnPassant => self.attackers_to(ksq, us, self.occupied()),
            MoveKind::Drop => self.checkers_after(us, None, m.to().0),
            _ => self.checkers_after(us, Some(m.from().0), m.to().0),
        };
        debug_assert!(
            ksq as usize >= MAX_SQUARES
                || self.checkers == self.attackers_to(ksq, us, self.occupied()),
            "incremental checkers after {m:?}"
        );
        if double_step_mid != NO_SQ && self.ep_capture_exists(double_step_mid) {
            self.ep = double_step_mid;
            self.key ^= ZOBRIST.ep(self.ep);
        }
    }

    /// Plays a null move (pass), for null-move pruning. Not valid when in check.
    pub fn play_null(&mut self) {
        if self.ep != NO_SQ {
            self.key ^= ZOBRIST.ep(self.ep);
            self.ep = NO_SQ;
        }
        self.halfmove = self.halfmove.saturating_add(1);
        self.stm = !self.stm;
        self.key ^= ZOBRIST.side();
        self.checkers = 0;
    }

    /// Whether the side to move has a legal en-passant capture onto `ep`.
    fn ep_capture_exists(&self, ep: u8) -> bool {
        let us = self.stm;
        bits(self.ep_capturers(ep)).any(|from| self.ep_is_legal(from, ep, us))
    }

    /// Appends the legal en-passant captures of the side to move (none when there is no
    /// en-passant square).
    pub fn en_passant_moves(&self, out: &mut Vec<Move>) {
        if self.ep == NO_SQ {
            return;
        }
        let (ep, us) = (self.ep, self.stm);
        for from in bits(self.ep_capturers(ep)) {
            if self.ep_is_legal(from, ep, us) {
                out.push(Move::new(from, ep, MoveKind::EnPassant));
            }
        }
    }

    /// Pawns of the side to move that attack `ep`.
    fn ep_capturers(&self, ep: u8) -> Bitboard {
        let v = self.variant;
        let us = self.stm;
        let mut b = 0;
        for (i, info) in v.kinds.iter().enumerate() {
            if info.pawn {
                let k = PieceKind(i as u8);
                b |= v.leap_capture(!us, k, ep) & self.pieces(us, k);
            }
        }
        b
    }

    fn ep_is_legal(&self, from: u8, to: u8, us: Color) -> bool {
        let victim = self.ep_victim(to);
        let occ = (self.occupied() ^ (1 << from) ^ (1 << victim)) | (1 << to);
        let ksq = self.king_sq[us as usize];
        let them_mask = self.by_color[!us as usize] & !(1 << victim);
        self.attackers_to_masked(ksq, !us, occ, them_mask) == 0
    }

    /// Recomputes the key from scratch (for tests of the incremental key).
    pub fn compute_key(&self) -> u64 {
        let mut k = 0;
        for sq in bits(self.occupied()) {
            let p = self.piece_on(sq).expect("occupied");
            k ^= ZOBRIST.psq(p.color, p.kind, sq);
        }
        for c in Color::ALL {
            for i in 0..self.variant.num_kinds() {
                let n = self.hands[c as usize][i];
                k ^= ZOBRIST.hand(c, PieceKind(i as u8), n);
            }
        }
        if self.stm == Color::Black {
            k ^= ZOBRIST.side();
        }
        k ^= ZOBRIST.castling(self.castling);
        if self.ep != NO_SQ {
            k ^= ZOBRIST.ep(self.ep);
        }
        k
    }
}

/// Castling rights lost when a piece moves from or to `sq`.
fn castle_mask(v: &Variant, sq: u8) -> u8 {
    let mut m = 0;
    for (c, [king_side, queen_side]) in
        [(Color::White, [CASTLE_WK, CASTLE_WQ]), (Color::Black, [CASTLE_BK, CASTLE_BQ])]
    {
        let g = &v.castling_geometry[c];
        if sq == g.king_from {
            m |= king_side | queen_side;
        }
        if sq == g.rook_from[0] {
            m |= king_side;
        }
        if sq == g.rook_from[1] {
            m |= queen_side;
        }
    }
    m
}
