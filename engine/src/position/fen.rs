//! FEN in FSF's notation: `board[hand] side castling ep halfmove fullmove`.

use super::{CASTLE_BK, CASTLE_BQ, CASTLE_WK, CASTLE_WQ, NO_SQ, Position};
use crate::types::{Color, PieceKind, bits};
use crate::variant::Variant;
use thiserror::Error;

/// Why a FEN was rejected; each names the offending part.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum FenError {
    #[error("empty FEN")]
    Empty,
    #[error("board has {found} ranks, {variant} needs {expected}")]
    RankCount { found: usize, expected: u8, variant: String },
    #[error("rank {rank} ('{text}') is {found} squares wide, expected {expected}")]
    RankWidth { rank: usize, text: String, found: usize, expected: u8 },
    #[error("unknown piece '{0}' in the board")]
    UnknownPiece(String),
    #[error("bad hand '{0}': {1}")]
    BadHand(String, String),
    #[error("{0} has {1} kings (exactly one needed)")]
    KingCount(&'static str, u32),
    #[error("bad side to move '{0}' (expected w or b)")]
    BadSide(String),
    #[error("bad castling field '{0}'")]
    BadCastling(String),
    #[error("bad en-passant field '{0}'")]
    BadEnPassant(String),
    #[error("bad move counter '{0}'")]
    BadCounter(String),
    #[error("unexpected trailing field '{0}'")]
    Trailing(String),
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
        for c in Color::ALL {
            let n = pos.pieces(c, v.king).count_ones();
            if n != 1 {
                return Err(FenError::KingCount(c.name(), n));
            }
            pos.king_sq[c as usize] = pos.pieces(c, v.king).trailing_zeros() as u8;
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
        pos.parse_castling(castling)?;
        let ep_sq = match ep {
            "-" => NO_SQ,
            s => {
                crate::types::Square::parse(s, v.width, v.height)
                    .ok_or_else(|| FenError::BadEnPassant(s.to_string()))?
                    .0
            }
        };
        // Compute state that depends on the whole position.
        let us = pos.stm;
        let them_king = pos.king_sq[!us as usize];
        if pos.is_attacked(them_king, us, pos.occupied()) {
            return Err(FenError::OpponentInCheck);
        }
        pos.checkers = pos.attackers_to(pos.king_sq[us as usize], !us, pos.occupied());
        if ep_sq != NO_SQ && pos.ep_plausible(ep_sq) && pos.ep_capture_exists(ep_sq) {
            pos.ep = ep_sq;
        }
        pos.key = pos.compute_key();
        Ok(pos)
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

    fn parse_castling(&mut self, field: &str) -> Result<(), FenError> {
        let v = self.variant;
        if field == "-" {
            return Ok(());
        }
        if !v.castling {
            return Err(FenError::BadCastling(format!("{field} ({} has no castling)", v.name)));
        }
        let mut rights = 0;
        for ch in field.chars() {
            let (c, side, bit) = match ch {
                'K' => (Color::White, 0, CASTLE_WK),
                'Q' => (Color::White, 1, CASTLE_WQ),
                'k' => (Color::Black, 0, CASTLE_BK),
                'q' => (Color::Black, 1, CASTLE_BQ),
                _ => return Err(FenError::BadCastling(field.to_string())),
            };
            // A right without its king and rook in place cannot be used: drop it, as FSF does.
            let geo = v.castling_geometry[c];
            let rook_ok = matches!(self.piece_on(geo.rook_from[side]),
                Some(p) if p.color == c && v.kind(p.kind).castling_rook);
            let king_ok = self.pieces(c, v.king) & (1u64 << geo.king_from) != 0;
            if rook_ok && king_ok {
                rights |= bit;
            }
        }
        self.castling = rights;
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
        let _ = bits(0);
        out
    }

    /// Kinds in hand for a color with counts, in FEN order (for display and features).
    pub fn hand_list(&self, c: Color) -> Vec<(PieceKind, u8)> {
        self.variant.hand_kinds.iter().map(|&k| (k, self.hand(c, k))).filter(|x| x.1 > 0).collect()
    }
}

fn case(letter: char, c: Color) -> char {
    if c == Color::White { letter } else { letter.to_ascii_lowercase() }
}
