//! FEN in FSF's notation: `board[hand] side castling ep halfmove fullmove`.

use super::{CASTLE_BK, CASTLE_BQ, CASTLE_WK, CASTLE_WQ, NO_SQ, Position};
use crate::types::{Color, MAX_KINDS, MAX_SQUARES, Piece, PieceKind, bits};
use crate::variant::Variant;
use thiserror::Error;

/// Why a FEN was rejected; each names the offending part.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum FenError {
    /// Nothing to parse.
    #[error("empty FEN")]
    Empty,
    #[error("board has {found} ranks, {variant} needs {expected}")]
    /// The board has the wrong number of ranks.
    RankCount {
        /// Ranks found.
        found: usize,
        /// Ranks of the variant.
        expected: u8,
        /// The variant.
        variant: String,
    },
    #[error("rank {rank} ('{text}') is {found} squares wide, expected {expected}")]
    /// A rank has the wrong number of squares.
    RankWidth {
        /// Rank number, from the top of the FEN.
        rank: usize,
        /// The rank as written.
        text: String,
        /// Squares found.
        found: usize,
        /// Files of the variant.
        expected: u8,
    },
    /// A board letter that is no piece of the variant.
    #[error("unknown piece '{0}' in the board")]
    UnknownPiece(String),
    /// The hand field (given, then why it is wrong).
    #[error("bad hand '{0}': {1}")]
    BadHand(String, String),
    /// A side (named) without exactly one king (count).
    #[error("{0} has {1} kings (exactly one needed)")]
    KingCount(&'static str, u32),
    /// The side-to-move field is not `w` or `b`.
    #[error("bad side to move '{0}' (expected w or b)")]
    BadSide(String),
    /// The castling field.
    #[error("bad castling field '{0}'")]
    BadCastling(String),
    /// The en-passant field.
    #[error("bad en-passant field '{0}'")]
    BadEnPassant(String),
    /// A move counter.
    #[error("bad move counter '{0}'")]
    BadCounter(String),
    /// A field after the last one.
    #[error("unexpected trailing field '{0}'")]
    Trailing(String),
    /// The side that just moved is in check.
    #[error("the side not to move is in check")]
    OpponentInCheck,
}

impl Position {
    /// Parses and validates a FEN for `variant`.
    pub fn from_fen(variant: &'static Variant, fen: &str) -> Result<Position, FenError> {
        let v = variant;
        let mut fields = fen.split_whitespace();
        let placement = fields.next().ok_or(FenError::Empty)?;
        let mut pos = Position::empty(v);
        let (board, hand) = match placement.find('[') {
            Some(i) => {
                let h = &placement[i + 1..];
                let h = h
                    .strip_suffix(']')
                    .ok_or_else(|| FenError::BadHand(h.to_string(), "missing ']'".into()))?;
                (&placement[..i], Some(h))
            }
            None => (placement, None),
        };
        pos.parse_board(board)?;
        if let Some(h) = hand {
            pos.parse_hand(h)?;
        }
        let side = fields.next().unwrap_or("w");
        pos.stm = match side {
            "w" => Color::White,
            "b" => Color::Black,
            _ => return Err(FenError::BadSide(side.to_string())),
        };
        let rest: Vec<&str> = fields.collect();
        let mut i = 0;
        let numeric = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        let mut castling = "-";
        let mut ep = "-";
        if i < rest.len() && !numeric(rest[i]) {
            castling = rest[i];
            i += 1;
            if i < rest.len() && !numeric(rest[i]) {
                ep = rest[i];
                i += 1;
            }
        }
        let mut counter = |default: u16| -> Result<u16, FenError> {
            match rest.get(i) {
                Some(s) => {
                    i += 1;
                    s.parse().map_err(|_| FenError::BadCounter(s.to_string()))
                }
                None => Ok(default),
            }
        };
        pos.halfmove = counter(0)?;
        pos.fullmove = counter(1)?.max(1);
        if let Some(extra) = rest.get(i) {
            return Err(FenError::Trailing(extra.to_string()));
        }
        let rights = castling_bits(v, castling)?;
        let ep_sq = match ep {
            "-" => None,
            s => Some(
                crate::types::Square::parse(s, v.width, v.height)
                    .ok_or_else(|| FenError::BadEnPassant(s.to_string()))?
                    .0,
            ),
        };
        pos.finish(rights, ep_sq)?;
        Ok(pos)
    }

    /// Builds a position from raw parts (a decoded record, say), validated like a FEN.
    pub fn from_setup(variant: &'static Variant, setup: &Setup) -> Result<Position, FenError> {
        let v = variant;
        let mut pos = Position::empty(v);
        for (sq, p) in setup.board.iter().enumerate() {
            let Some(p) = *p else { continue };
            if sq >= v.num_squares as usize || p.kind.index() >= v.num_kinds() {
                return Err(FenError::UnknownPiece(format!("kind {} on square {sq}", p.kind.0)));
            }
            pos.put(p.color, p.kind, sq as u8);
        }
        for c in Color::ALL {
            for (k, &n) in setup.hands[c as usize].iter().enumerate() {
                if n == 0 {
                    continue;
                }
                let kind = PieceKind(k as u8);
                if k >= v.num_kinds() || !v.hand_kinds.contains(&kind) || n > 31 {
                    return Err(FenError::BadHand(
                        format!("{n} of kind {k}"),
                        format!("not a hand piece of {} (or more than 31)", v.name),
                    ));
                }
                pos.hands[c as usize][k] = n;
            }
        }
        pos.stm = setup.side_to_move;
        pos.halfmove = setup.halfmove;
        pos.fullmove = setup.fullmove.max(1);
        if setup.castling & !15 != 0 || (setup.castling != 0 && !v.castling) {
            return Err(FenError::BadCastling(format!("bits {:#x}", setup.castling)));
        }
        if let Some(ep) = setup.ep
            && ep >= v.num_squares
        {
            return Err(FenError::BadEnPassant(format!("square {ep}")));
        }
        pos.finish(setup.castling, setup.ep)?;
        Ok(pos)
    }

    /// The raw parts of this position (`from_setup` gives it back).
    pub fn to_setup(&self) -> Setup {
        let mut board = [None; MAX_SQUARES];
        for sq in bits(self.occupied()) {
            board[sq as usize] = self.piece_on(sq);
        }
        Setup {
            board,
            hands: self.hands,
            side_to_move: self.stm,
            castling: self.castling,
            ep: (self.ep != NO_SQ).then_some(self.ep),
            halfmove: self.halfmove,
            fullmove: self.fullmove,
        }
    }

    /// Checks and completes a position whose pieces, hands, side and counters are set:
    /// kings, castling rights (kept only with king and rook in place, as FSF does), the side
    /// not to move not in check, checkers, the en-passant square (kept only when a capture
    /// there is legal) and the key.
    fn finish(&mut self, rights: u8, ep: Option<u8>) -> Result<(), FenError> {
        let v = self.variant;
        for c in Color::ALL {
            let n = self.pieces(c, v.king).count_ones();
            if n != 1 {
                return Err(FenError::KingCount(c.name(), n));
            }
            self.king_sq[c as usize] = self.pieces(c, v.king).trailing_zeros() as u8;
        }
        self.castling = 0;
        for (bit, c, side) in [
            (CASTLE_WK, Color::White, 0),
            (CASTLE_WQ, Color::White, 1),
            (CASTLE_BK, Color::Black, 0),
            (CASTLE_BQ, Color::Black, 1),
        ] {
            if rights & bit == 0 {
                continue;
            }
            let geo = v.castling_geometry[c];
            let rook_ok = matches!(self.piece_on(geo.rook_from[side]),
                Some(p) if p.color == c && v.kind(p.kind).castling_rook);
            let king_ok = self.pieces(c, v.king) & (1u64 << geo.king_from) != 0;
            if rook_ok && king_ok {
                self.castling |= bit;
            }
        }
        let us = self.stm;
        if self.is_attacked(self.king_sq[!us as usize], us, self.occupied()) {
            return Err(FenError::OpponentInCheck);
        }
        self.checkers = self.attackers_to(self.king_sq[us as usize], !us, self.occupied());
        self.ep = NO_SQ;
        if let Some(e) = ep
            && self.ep_plausible(e)
            && self.ep_capture_exists(e)
        {
            self.ep = e;
        }
        self.key = self.compute_key();
        Ok(())
    }

    fn ep_plausible(&self, ep: u8) -> bool {
        let v = self.variant;
        if !v.en_passant || self.piece_on(ep).is_some() {
            return false;
        }
        let w = v.width;
        let (victim, origin) = if self.stm == Color::White {
            (ep.checked_sub(w), ep.checked_add(w))
        } else {
            (ep.checked_add(w), ep.checked_sub(w))
        };
        match (victim, origin) {
            (Some(vs), Some(os)) if vs < v.num_squares && os < v.num_squares => {
                self.piece_on(os).is_none()
                    && matches!(self.piece_on(vs), Some(p) if p.color != self.stm && v.kind(p.kind).pawn)
            }
            _ => false,
        }
    }

    fn parse_board(&mut self, board: &str) -> Result<(), FenError> {
        let v = self.variant;
        let ranks: Vec<&str> = board.split('/').collect();
        if ranks.len() != v.height as usize {
            return Err(FenError::RankCount {
                found: ranks.len(),
                expected: v.height,
                variant: v.name.clone(),
            });
        }
        for (i, text) in ranks.iter().enumerate() {
            let rank = v.height as usize - 1 - i;
            let mut file = 0usize;
            let mut chars = text.chars().peekable();
            while let Some(ch) = chars.next() {
                if let Some(d) = ch.to_digit(10) {
                    let mut n = d as usize;
                    while let Some(d2) = chars.peek().and_then(|c| c.to_digit(10)) {
                        n = n.saturating_mul(10).saturating_add(d2 as usize);
                        chars.next();
                    }
                    file = file.saturating_add(n);
                    continue;
                }
                let (promoted, letter) = if ch == '+' {
                    match chars.next() {
                        Some(l) => (true, l),
                        None => return Err(FenError::UnknownPiece("+".into())),
                    }
                } else {
                    (false, ch)
                };
                let sym = if promoted { format!("+{letter}") } else { letter.to_string() };
                if !letter.is_ascii_alphabetic() {
                    return Err(FenError::UnknownPiece(sym));
                }
                let k = v.kind_by_symbol(letter, promoted).ok_or(FenError::UnknownPiece(sym))?;
                let c = if letter.is_ascii_uppercase() { Color::White } else { Color::Black };
                if file >= v.width as usize {
                    file += 1;
                    continue;
                }
                self.put(c, k, (rank * v.width as usize + file) as u8);
                file += 1;
            }
            if file != v.width as usize {
                return Err(FenError::RankWidth {
                    rank: rank + 1,
                    text: text.to_string(),
                    found: file,
                    expected: v.width,
                });
            }
        }
        Ok(())
    }

    fn parse_hand(&mut self, hand: &str) -> Result<(), FenError> {
        let v = self.variant;
        if hand == "-" {
            return Ok(());
        }
        for ch in hand.chars() {
            let bad = |why: &str| FenError::BadHand(hand.to_string(), why.to_string());
            if !ch.is_ascii_alphabetic() {
                return Err(bad(&format!("'{ch}' is not a piece letter")));
            }
            let k = v
                .kind_by_symbol(ch, false)
                .filter(|k| v.hand_kinds.contains(k))
                .ok_or_else(|| bad(&format!("'{ch}' cannot be in hand in {}", v.name)))?;
            let c = if ch.is_ascii_uppercase() { Color::White } else { Color::Black };
            let n = &mut self.hands[c as usize][k.index()];
            if *n >= 31 {
                return Err(bad("more than 31 pieces of one kind"));
            }
            *n += 1;
        }
        Ok(())
    }

    /// The FEN in FSF's notation (all six fields; hands in the variant's order).
    pub fn to_fen(&self) -> String {
        let v = self.variant;
        let mut s = String::with_capacity(96);
        for r in (0..v.height).rev() {
            let mut empty = 0;
            for f in 0..v.width {
                let sq = r * v.width + f;
                match self.piece_on(sq) {
                    None => empty += 1,
                    Some(p) => {
                        if empty > 0 {
                            s.push_str(&empty.to_string());
                            empty = 0;
                        }
                        let info = v.kind(p.kind);
                        if info.promoted {
                            s.push('+');
                        }
                        s.push(case(info.letter, p.color));
                    }
                }
            }
            if empty > 0 {
                s.push_str(&empty.to_string());
            }
            if r > 0 {
                s.push('/');
            }
        }
        s.push('[');
        for c in Color::ALL {
            for &k in &v.hand_kinds {
                for _ in 0..self.hand(c, k) {
                    s.push(case(v.kind(k).letter, c));
                }
            }
        }
        s.push(']');
        s.push_str(if self.stm == Color::White { " w " } else { " b " });
        if self.castling == 0 {
            s.push('-');
        } else {
            for (bit, ch) in
                [(CASTLE_WK, 'K'), (CASTLE_WQ, 'Q'), (CASTLE_BK, 'k'), (CASTLE_BQ, 'q')]
            {
                if self.castling & bit != 0 {
                    s.push(ch);
                }
            }
        }
        s.push(' ');
        if self.ep == NO_SQ {
            s.push('-');
        } else {
            s.push_str(&crate::types::Square(self.ep).name(v.width));
        }
        s.push_str(&format!(" {} {}", self.halfmove, self.fullmove));
        s
    }

    /// A board diagram for humans (`d` in UCI).
    pub fn diagram(&self) -> String {
        let v = self.variant;
        let mut out = String::new();
        for r in (0..v.height).rev() {
            out.push_str(&format!("{} ", r + 1));
            for f in 0..v.width {
                let sq = r * v.width + f;
                let cell = match self.piece_on(sq) {
                    None => " .".to_string(),
                    Some(p) => {
                        let info = v.kind(p.kind);
                        let l = case(info.letter, p.color);
                        if info.promoted { format!("+{l}") } else { format!(" {l}") }
                    }
                };
                out.push_str(&cell);
            }
            out.push('\n');
        }
        out.push_str("  ");
        for f in 0..v.width {
            out.push_str(&format!(" {}", (b'a' + f) as char));
        }
        out.push('\n');
        out
    }

    /// Kinds in hand for a color with counts, in FEN order (for display and features).
    pub fn hand_list(&self, c: Color) -> Vec<(PieceKind, u8)> {
        self.variant.hand_kinds.iter().map(|&k| (k, self.hand(c, k))).filter(|x| x.1 > 0).collect()
    }
}

/// Castling rights named by a FEN field (validated; sanitised later against the board).
fn castling_bits(v: &Variant, field: &str) -> Result<u8, FenError> {
    if field == "-" {
        return Ok(0);
    }
    if !v.castling {
        return Err(FenError::BadCastling(format!("{field} ({} has no castling)", v.name)));
    }
    let mut rights = 0;
    for ch in field.chars() {
        rights |= match ch {
            'K' => CASTLE_WK,
            'Q' => CASTLE_WQ,
            'k' => CASTLE_BK,
            'q' => CASTLE_BQ,
            _ => return Err(FenError::BadCastling(field.to_string())),
        };
    }
    Ok(rights)
}

/// Raw position data, not yet validated: what a FEN or a compact record holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    /// Piece per square index (`rank * width + file`).
    pub board: [Option<Piece>; MAX_SQUARES],
    /// Hand counts per color and piece kind.
    pub hands: [[u8; MAX_KINDS]; 2],
    /// The side to move.
    pub side_to_move: Color,
    /// `CASTLE_*` bits.
    pub castling: u8,
    /// En-passant target square.
    pub ep: Option<u8>,
    /// Plies since the last capture or pawn move.
    pub halfmove: u16,
    /// Fullmove number.
    pub fullmove: u16,
}

impl Default for Setup {
    fn default() -> Setup {
        Setup {
            board: [None; MAX_SQUARES],
            hands: [[0; MAX_KINDS]; 2],
            side_to_move: Color::White,
            castling: 0,
            ep: None,
            halfmove: 0,
            fullmove: 1,
        }
    }
}

fn case(letter: char, c: Color) -> char {
    if c == Color::White { letter } else { letter.to_ascii_lowercase() }
}
