//! `kage rules`: one JSON line describing a position reached from a FEN and moves.

use crate::game::Game;
use crate::position::{FenError, MoveError, Position};
use crate::variant::Variant;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum RulesError {
    /// The reason follows as the error's source (`bad FEN: <reason>` with `{:#}`).
    #[error("bad FEN")]
    Fen(#[from] FenError),
    #[error(transparent)]
    Move(#[from] MoveError),
}

/// Builds a game from a FEN (or the start position) and UCI moves, checking each move.
pub fn game_from(
    v: &'static Variant,
    fen: Option<&str>,
    moves: &[String],
) -> Result<Game, RulesError> {
    let start = match fen {
        Some(f) => Position::from_fen(v, f)?,
        None => Position::startpos(v),
    };
    let mut game = Game::new(start);
    for m in moves {
        // Like FSF, moves may follow a repetition or move-rule end; where no legal move
        // exists (mate, campmate) `play_uci` rejects any move as illegal.
        game.play_uci(m)?;
    }
    Ok(game)
}

/// The JSON line: `{"fen", "legal", "in_check", "outcome"}`.
pub fn rules_json(game: &Game) -> serde_json::Value {
    let pos = game.position();
    let mut legal: Vec<String> =
        pos.legal_moves().as_slice().iter().map(|&m| pos.move_to_uci(m)).collect();
    legal.sort();
    let outcome = match game.outcome() {
        None => serde_json::Value::Null,
        Some(o) => serde_json::json!({"winner": o.winner_name(), "reason": o.reason.name()}),
    };
    serde_json::json!({
        "fen": pos.to_fen(),
        "legal": legal,
        "in_check": pos.in_check(),
        "outcome": outcome,
    })
}
