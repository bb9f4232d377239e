//! UCI move notation, FSF style: `e2e4`, `a5a7+` (promotion), `a7a8q` (chess-style promotion,
//! the chosen kind's letter), `J@e3` (drop), `e8g8` (castling).

use super::Position;
use crate::types::{Move, MoveKind, Square};
use thiserror::Error;

/// Why a move in text was rejected.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum MoveError {
    /// Not a move in the engine's notation.
    #[error("malformed move '{0}'")]
    Malformed(String),
    /// A well-formed move (given) that is not legal here (FEN).
    #[error("illegal move '{0}' in {1}")]
    Illegal(String, String),
}

impl Position {
    /// The move in FSF's UCI notation.
    pub fn move_to_uci(&self, m: Move) -> String {
        let w = self.variant.width;
        match m.kind() {
            MoveKind::Drop => {
                format!("{}@{}", self.variant.kind(m.drop_kind()).letter, m.to().name(w))
            }
            MoveKind::Promotion => {
                let (from, to) = (m.from(), m.to());
                let chosen = self
                    .piece_on(from.0)
                    .map(|p| p.kind)
                    .filter(|&k| !self.variant.kind(k).promotion_choices.is_empty());
                match chosen {
                    Some(k) => {
                        let letter = self.variant.kind(self.variant.promoted_kind(k, m)).letter;
                        format!("{}{}{}", from.name(w), to.name(w), letter.to_ascii_lowercase())
                    }
                    None => format!("{}{}+", from.name(w), to.name(w)),
                }
            }
            _ => format!("{}{}", m.from().name(w), m.to().name(w)),
        }
    }

    /// Parses a UCI move and checks that it is legal here.
    pub fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        let v = self.variant;
        let malformed = || MoveError::Malformed(text.to_string());
        let t = text.strip_suffix('=').unwrap_or(text);
        if !t.is_ascii() || t.len() < 3 {
            return Err(malformed());
        }
        // Syntax first, so that junk and illegal moves get different errors.
        if let Some((piece, sq)) = t.split_once('@') {
            let mut pc = piece.chars();
            match (pc.next(), pc.next()) {
                (Some(c), None) if c.is_ascii_alphabetic() => {}
                _ => return Err(malformed()),
            }
            Square::parse(sq, v.width, v.height).ok_or_else(malformed)?;
        } else {
            let body = t.strip_suffix('+').unwrap_or(t);
            // A chess-style promotion's letter (`a7a8q`).
            let body = match body.as_bytes() {
                [.., d, c] if d.is_ascii_digit() && c.is_ascii_lowercase() => {
                    &body[..body.len() - 1]
                }
                _ => body,
            };
            let split = body[1..].find(|c: char| c.is_ascii_lowercase()).map(|i| i + 1);
            let (a, b) = match split {
                Some(i) => body.split_at(i),
                None => return Err(malformed()),
            };
            Square::parse(a, v.width, v.height).ok_or_else(malformed)?;
            Square::parse(b, v.width, v.height).ok_or_else(malformed)?;
        }
        let canonical = match t.split_once('@') {
            Some((p, sq)) => format!("{}@{sq}", p.to_ascii_uppercase()),
            None => t.to_string(),
        };
        self.legal_moves()
            .as_slice()
            .iter()
            .copied()
            .find(|&m| self.move_to_uci(m) == canonical)
            .ok_or_else(|| MoveError::Illegal(text.to_string(), self.to_fen()))
    }
}
