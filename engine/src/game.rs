//! A game: a start position and the moves played, with the history that repetition needs,
//! and the verdict of the rules once the game is over.

use crate::position::{MoveError, Position};
use crate::types::{Color, Move, MoveKind};
use crate::variant::{RepetitionVerdict, Variant};

/// Why a game ended by a rule of the variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reason {
    /// The side to move is in check and has no legal move.
    Checkmate,
    /// The side to move has no legal move and is not in check.
    Stalemate,
    /// A king reached its campmate (flag) ranks.
    Campmate,
    /// A position occurred the variant's repetition count of times.
    Repetition,
    /// A repetition in which one side gave check with every move.
    PerpetualCheck,
    /// The n-move rule (50 moves without an irreversible move).
    MoveRule,
    /// A pawn drop gave checkmate: the dropper loses.
    PawnDropMate,
}

impl Reason {
    /// Every reason, in report order.
    pub const ALL: [Reason; 7] = [
        Reason::Checkmate,
        Reason::Stalemate,
        Reason::Campmate,
        Reason::Repetition,
        Reason::PerpetualCheck,
        Reason::MoveRule,
        Reason::PawnDropMate,
    ];

    /// `checkmate`, `stalemate`, `campmate`, `repetition`, `perpetual_check`, `move_rule` or
    /// `pawn_drop_mate`.
    pub fn name(self) -> &'static str {
        match self {
            Reason::Checkmate => "checkmate",
            Reason::Stalemate => "stalemate",
            Reason::Campmate => "campmate",
            Reason::Repetition => "repetition",
            Reason::PerpetualCheck => "perpetual_check",
            Reason::MoveRule => "move_rule",
            Reason::PawnDropMate => "pawn_drop_mate",
        }
    }

    /// Parses [`Reason::name`].
    pub fn from_name(s: &str) -> Option<Reason> {
        Reason::ALL.into_iter().find(|r| r.name() == s)
    }
}

/// The end of a game: the winner (`None` for a draw) and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Outcome {
    /// The winner; `None` for a draw.
    pub winner: Option<Color>,
    /// Why the game ended.
    pub reason: Reason,
}

impl Outcome {
    /// "white", "black" or "draw".
    pub fn winner_name(&self) -> &'static str {
        self.winner.map_or("draw", Color::name)
    }

    /// +1 when `c` won, -1 when it lost, 0 for a draw.
    pub fn score_for(&self, c: Color) -> i32 {
        match self.winner {
            None => 0,
            Some(w) if w == c => 1,
            Some(_) => -1,
        }
    }
}

/// What repetition detection needs to know about each position of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct HistoryEntry {
    /// Zobrist key of the position.
    pub key: u64,
    /// The side to move was in check (so the move before gave check).
    pub in_check: bool,
}

/// Repetition verdict for the last entry of `history` (root first), by FSF's rules: the
/// position must occur for the `repetition_count`-th time; if one side gave check with every
/// one of its moves since the first occurrence, it loses (both: draw).
///
/// `halfmove` is the current position's halfmove clock; `stm` its side to move.
pub fn repetition_outcome(
    v: &Variant,
    history: &[HistoryEntry],
    halfmove: u16,
    stm: Color,
) -> Option<Outcome> {
    let n = history.len().checked_sub(1)?;
    let plies = n;
    let end = if v.captures_to_hand { plies } else { plies.min(halfmove as usize) };
    if end < 4 {
        return None;
    }
    let cur = history[n];
    let perp = v.perpetual_check_loses;
    let mut perpetual_them = perp && cur.in_check && history[n - 2].in_check;
    let mut perpetual_us = perp && history[n - 1].in_check && history[n - 3].in_check;
    let mut count = 0;
    let mut i = 4;
    while i <= end {
        let e = history[n - i];
        perpetual_them &= e.in_check;
        if e.key == cur.key {
            count += 1;
            if count + 1 >= v.repetition_count as usize {
                let (winner, reason) = if perpetual_them || perpetual_us {
                    let w = match (perpetual_them, perpetual_us) {
                        (true, false) => Some(stm),
                        (false, true) => Some(!stm),
                        _ => None,
                    };
                    (w, Reason::PerpetualCheck)
                } else {
                    let w = match v.repetition_verdict {
                        RepetitionVerdict::Draw => None,
                        RepetitionVerdict::WhiteLoses => Some(Color::Black),
                    };
                    (w, Reason::Repetition)
                };
                return Some(Outcome { winner, reason });
            }
        }
        if i < end {
            perpetual_us &= history[n - i - 1].in_check;
        }
        i += 2;
    }
    None
}

/// A game from a start position: positions, moves and history.
#[derive(Clone, Debug)]
pub struct Game {
    positions: Vec<Position>,
    moves: Vec<Move>,
    history: Vec<HistoryEntry>,
}

impl Game {
    /// A game starting at `start`.
    pub fn new(start: Position) -> Game {
        let h = HistoryEntry { key: start.key(), in_check: start.in_check() };
        Game { positions: vec![start], moves: Vec::new(), history: vec![h] }
    }

    /// A game from the variant's start position.
    pub fn startpos(v: &'static Variant) -> Game {
        Game::new(Position::startpos(v))
    }

    /// The variant played.
    pub fn variant(&self) -> &'static Variant {
        self.position().variant()
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        self.positions.last().expect("a game always has a position")
    }

    /// The position the game started from.
    pub fn start_position(&self) -> &Position {
        &self.positions[0]
    }

    /// The moves played so far.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// One entry per position of the game, the start included.
    pub fn history(&self) -> &[HistoryEntry] {
        &self.history
    }

    /// Plies played from the start position.
    pub fn ply(&self) -> usize {
        self.moves.len()
    }

    /// Plays a move known to be legal.
    pub fn play(&mut self, m: Move) {
        let mut p = self.position().clone();
        p.play(m);
        self.history.push(HistoryEntry { key: p.key(), in_check: p.in_check() });
        self.positions.push(p);
        self.moves.push(m);
    }

    /// Parses, checks and plays a UCI move.
    pub fn play_uci(&mut self, text: &str) -> Result<Move, MoveError> {
        let m = self.position().parse_move(text)?;
        self.play(m);
        Ok(m)
    }

    /// Takes back the last move.
    pub fn undo(&mut self) -> Option<Move> {
        let m = self.moves.pop()?;
        self.positions.pop();
        self.history.pop();
        Some(m)
    }

    /// The verdict of the rules, or `None` while the game goes on.
    pub fn outcome(&self) -> Option<Outcome> {
        let pos = self.position();
        let v = pos.variant();
        let stm = pos.side_to_move();
        if pos.flag_reached() {
            return Some(Outcome { winner: Some(!stm), reason: Reason::Campmate });
        }
        let has_moves = pos.has_legal_move();
        if v.move_rule_plies > 0
            && pos.halfmove_clock() >= v.move_rule_plies
            && (!pos.in_check() || has_moves)
        {
            return Some(Outcome { winner: None, reason: Reason::MoveRule });
        }
        if let Some(o) = repetition_outcome(v, &self.history, pos.halfmove_clock(), stm) {
            return Some(o);
        }
        if has_moves {
            return None;
        }
        Some(terminal_outcome(pos, self.moves.last().copied(), self.positions.len() > 1))
    }
}

/// The verdict for a position without legal moves (checkmate, pawn-drop mate, stalemate).
/// `last` is the move that led here, when known.
pub fn terminal_outcome(pos: &Position, last: Option<Move>, has_previous: bool) -> Outcome {
    let v = pos.variant();
    let stm = pos.side_to_move();
    if pos.in_check() {
        let pawn_drop = has_previous
            && last.is_some_and(|m| {
                m.kind() == MoveKind::Drop && v.kind(m.drop_kind()).drop_mate_loses
            });
        if pawn_drop {
            Outcome { winner: Some(stm), reason: Reason::PawnDropMate }
        } else {
            Outcome { winner: Some(!stm), reason: Reason::Checkmate }
        }
    } else if v.stalemate_loses {
        Outcome { winner: Some(!stm), reason: Reason::Stalemate }
    } else {
        Outcome { winner: None, reason: Reason::Stalemate }
    }
}
