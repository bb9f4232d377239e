//! Game records.

use bincode::{Decode, Encode};

use crate::header::RecordKind;
use crate::record::Record;

/// Final result of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Encode, Decode)]
pub enum GameResult {
    /// White won.
    WhiteWin,
    /// Black won.
    BlackWin,
    /// Draw.
    Draw,
}

impl GameResult {
    /// PGN result token: `1-0`, `0-1` or `1/2-1/2`.
    pub fn pgn(self) -> &'static str {
        match self {
            GameResult::WhiteWin => "1-0",
            GameResult::BlackWin => "0-1",
            GameResult::Draw => "1/2-1/2",
        }
    }

    /// The result seen from White: 1 win, 0 draw, -1 loss.
    pub fn white_score(self) -> i8 {
        match self {
            GameResult::WhiteWin => 1,
            GameResult::BlackWin => -1,
            GameResult::Draw => 0,
        }
    }
}

/// Why a game ended: the engine's rule verdicts (`kage_engine::Reason`) plus
/// the ways self-play stops a game early.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Encode, Decode)]
pub enum Termination {
    /// The side to move was mated.
    Checkmate,
    /// The side to move had no legal move and was not in check.
    Stalemate,
    /// A king reached its campmate (flag) ranks.
    Campmate,
    /// Repetition.
    Repetition,
    /// Perpetual check.
    PerpetualCheck,
    /// The n-move rule.
    MoveRule,
    /// A pawn drop gave mate: the dropper lost.
    PawnDropMate,
    /// Adjudicated by score (resign or draw adjudication).
    Adjudication,
    /// The self-play ply limit was reached.
    PlyLimit,
    /// Anything else.
    Other,
}

impl Termination {
    /// All terminations.
    pub const ALL: [Termination; 10] = [
        Termination::Checkmate,
        Termination::Stalemate,
        Termination::Campmate,
        Termination::Repetition,
        Termination::PerpetualCheck,
        Termination::MoveRule,
        Termination::PawnDropMate,
        Termination::Adjudication,
        Termination::PlyLimit,
        Termination::Other,
    ];

    /// Name, as the engine's `Reason::name` for rule verdicts
    /// (`checkmate`, `perpetual_check`, ..., `adjudication`, `ply_limit`, `other`).
    pub fn name(self) -> &'static str {
        match self {
            Termination::Checkmate => "checkmate",
            Termination::Stalemate => "stalemate",
            Termination::Campmate => "campmate",
            Termination::Repetition => "repetition",
            Termination::PerpetualCheck => "perpetual_check",
            Termination::MoveRule => "move_rule",
            Termination::PawnDropMate => "pawn_drop_mate",
            Termination::Adjudication => "adjudication",
            Termination::PlyLimit => "ply_limit",
            Termination::Other => "other",
        }
    }

    /// Parses [`Termination::name`].
    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.name() == s)
    }
}

impl From<kage_engine::game::Reason> for Termination {
    fn from(r: kage_engine::game::Reason) -> Self {
        use kage_engine::game::Reason;
        match r {
            Reason::Checkmate => Termination::Checkmate,
            Reason::Stalemate => Termination::Stalemate,
            Reason::Campmate => Termination::Campmate,
            Reason::Repetition => Termination::Repetition,
            Reason::PerpetualCheck => Termination::PerpetualCheck,
            Reason::MoveRule => Termination::MoveRule,
            Reason::PawnDropMate => Termination::PawnDropMate,
        }
    }
}

impl GameResult {
    /// The result of an engine outcome.
    pub fn from_winner(winner: Option<kage_engine::Color>) -> Self {
        match winner {
            None => GameResult::Draw,
            Some(kage_engine::Color::White) => GameResult::WhiteWin,
            Some(kage_engine::Color::Black) => GameResult::BlackWin,
        }
    }
}

impl std::fmt::Display for Termination {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One self-play game.
///
/// `moves` holds the engine's 16-bit move encoding (`kage_engine::Move.0`),
/// to be replayed from `start_fen`. `scores[i]`, when present, is the search
/// score (centipawns, from the side to move) of the position before
/// `moves[i]`; `scores` is either empty or as long as `moves`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Encode, Decode)]
pub struct GameRecord {
    /// Variant name (same as the file header's).
    pub variant: String,
    /// Start position.
    pub start_fen: String,
    /// Moves played, engine encoding.
    pub moves: Vec<u16>,
    /// Per-ply search scores from the side to move (or empty).
    pub scores: Vec<i16>,
    /// Final result.
    pub result: GameResult,
    /// Why the game ended.
    pub termination: Termination,
    /// Index of the game in its run (unique within a run; `merge` checks).
    pub game_index: u64,
}

impl Record for GameRecord {
    const KIND: RecordKind = RecordKind::Game;
}
