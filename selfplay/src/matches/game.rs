//! One game of a match: the arena's game ([`crate::arena::game::play`]) between two
//! engines, and its record in the match log (names, UCI moves, scores, times), made from the
//! arena's [`kage_data::GameRecord`] by its typed termination and result.

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use kage_data::{GameResult, Termination};
use kage_engine::Position;
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

use super::engine::Score;
use super::openings::Opening;
use super::uci::UciError;
use crate::arena::game::{self as arena, AdjudicateAt, Played, Rules, Seats, Start};
pub use crate::arena::game::{LimitError, LimitSpec, MAX_MS};
use crate::arena::player::Player;
use crate::config::Adjudication;

/// Game settings.
#[derive(Clone, Debug)]
pub struct GameSettings {
    /// Search limit per move.
    pub limit: LimitSpec,
    /// A game still running after this many plies (opening included) is a draw.
    pub max_plies: u32,
    /// An untimed move (nodes, depth) or a movetime move that takes this much longer than
    /// asked is a hang.
    pub hang: Duration,
    /// Player names, first engine first.
    pub names: [String; 2],
    /// Each engine's own nodes per move in place of the limit's (first engine first).
    pub nodes: [Option<u64>; 2],
    /// Score-based resignation and draws (on the engines' reported scores; its `max_plies`
    /// is not used: see `max_plies` above).
    pub adjudication: Adjudication,
}

/// A finished game (a line of the match log holds two of them).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    /// Whether the first engine had White.
    pub first_white: bool,
    /// White's name.
    pub white: String,
    /// Black's name.
    pub black: String,
    /// The position the game (opening included) starts from.
    pub start_fen: String,
    /// Opening plies at the start of `moves`.
    pub book: usize,
    /// Every move, UCI notation.
    pub moves: Vec<String>,
    /// Per engine move: its score.
    pub scores: Vec<Option<Score>>,
    /// Per engine move: its thinking time (ms).
    pub ms: Vec<u64>,
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub result: String,
    /// Why it ended (a rule, `ply cap`, `illegal move`, `time forfeit`, `resign`,
    /// `adjudicated draw`).
    pub termination: String,
}

impl GameRecord {
    /// The first engine's points in halves (0, 1, 2).
    pub fn first_halves(&self) -> u8 {
        let white = match self.outcome() {
            Some(GameResult::WhiteWin) => 2,
            Some(GameResult::BlackWin) => 0,
            _ => 1,
        };
        if self.first_white { white } else { 2 - white }
    }

    /// The result, typed (`None`: not a result token).
    pub fn outcome(&self) -> Option<GameResult> {
        [GameResult::WhiteWin, GameResult::BlackWin, GameResult::Draw]
            .into_iter()
            .find(|r| r.pgn() == self.result)
    }

    /// Why it ended, typed (`None`: a text this build does not know).
    pub fn end(&self) -> Option<Termination> {
        match self.termination.as_str() {
            "ply cap" => Some(Termination::PlyLimit),
            t => Termination::from_name(&t.replace(' ', "_")),
        }
    }
}

impl GameRecord {
    /// The game as a [`kage_data::GameRecord`] (game `index`, a score per move: 0 for the
    /// opening moves and moves without one), like any self-play game; `None` when it does
    /// not replay in `variant` or has no result.
    pub fn to_data(
        &self,
        variant: &'static kage_engine::Variant,
        name: &str,
        index: u64,
    ) -> Option<kage_data::GameRecord> {
        let mut game = kage_engine::Game::new(Position::from_fen(variant, &self.start_fen).ok()?);
        let mut moves = Vec::with_capacity(self.moves.len());
        for text in &self.moves {
            let m = game.position().parse_move(text).ok()?;
            if !game.position().is_legal(m) {
                return None;
            }
            moves.push(m.0);
            game.play(m);
        }
        let clamp = |s: Score| s.centipawns().clamp(-i32::from(i16::MAX), i32::from(i16::MAX));
        let mut scores = vec![0i16; self.book.min(moves.len())];
        scores.extend(self.scores.iter().map(|s| s.map_or(0, |s| clamp(s) as i16)));
        scores.resize(moves.len(), 0);
        Some(kage_data::GameRecord {
            variant: name.to_owned(),
            start_fen: game.start_position().to_fen(),
            moves,
            scores,
            result: self.outcome()?,
            termination: self.end().unwrap_or(Termination::Other),
            game_index: index,
        })
    }
}

/// How the match log writes a termination: the name with spaces, `ply cap` for the ply limit.
pub fn termination_text(t: Termination) -> String {
    match t {
        Termination::PlyLimit => "ply cap".to_owned(),
        t => t.name().replace('_', " "),
    }
}

/// How a game ended.
pub enum GameEnd {
    /// With a result.
    Done {
        /// The game.
        record: GameRecord,
        /// Time inside the engines' searches.
        think: Duration,
        /// Remarks for the log (e.g. an engine's complaint).
        notes: Vec<String>,
    },
    /// An engine failed (crash, hang, broken pipe): no result; `first`: whether it was
    /// the first engine.
    Fault {
        /// Whether the first engine failed.
        first: bool,
        /// What happened.
        error: UciError,
    },
    /// The match was stopped.
    Aborted,
}

/// Plays one game. `engines[0]` is the first engine; it has White when `first_white`.
pub fn play(
    engines: &mut [Box<dyn Player>; 2],
    first_white: bool,
    opening: &Opening,
    s: &GameSettings,
    rng: &mut Xoshiro256PlusPlus,
    stop: &AtomicBool,
) -> GameEnd {
    let rules = Rules {
        limit: s.limit,
        nodes: s.nodes,
        max_plies: s.max_plies,
        adjudication: Adjudication { max_plies: 0, ..s.adjudication },
        adjudicate_at: AdjudicateAt::AfterMove,
        openings: None,
        hang: Some(s.hang),
        positions: false,
    };
    let start = Start { variant: "", position: &opening.start, book: &opening.moves, index: 0 };
    let seats = Seats::Two { players: engines, first_white };
    let names = if first_white { [&s.names[0], &s.names[1]] } else { [&s.names[1], &s.names[0]] };
    match arena::play(seats, &start, &rules, rng, Some(stop)) {
        // Without training positions nothing is packed: no error.
        Err(_) => GameEnd::Aborted,
        Ok(arena::GameEnd::Aborted) => GameEnd::Aborted,
        Ok(arena::GameEnd::Fault { seat, error }) => GameEnd::Fault { first: seat == 0, error },
        Ok(arena::GameEnd::Done(p)) => {
            let notes = p
                .illegal
                .iter()
                .map(|i| {
                    let who = &s.names[i.seat];
                    format!("{who} played an illegal move {:?} in {}", i.text, i.fen)
                })
                .collect();
            let think = Duration::from_nanos(p.search_ns);
            let record = record_of(&p, first_white, names, &opening.start);
            GameEnd::Done { record, think, notes }
        }
    }
}

/// The match log's record of an arena game.
fn record_of(p: &Played, first_white: bool, names: [&String; 2], start: &Position) -> GameRecord {
    let mut pos = start.clone();
    let moves = p
        .record
        .moves
        .iter()
        .map(|&m| {
            let m = kage_engine::Move(m);
            let t = pos.move_to_uci(m);
            pos.play(m);
            t
        })
        .collect();
    GameRecord {
        first_white,
        white: names[0].clone(),
        black: names[1].clone(),
        start_fen: p.record.start_fen.clone(),
        book: p.book,
        moves,
        scores: p.turns.iter().map(|t| t.score.map(Score::from_search)).collect(),
        ms: p.turns.iter().map(|t| t.ms).collect(),
        result: p.record.result.pgn().to_owned(),
        termination: termination_text(p.record.termination),
    }
}
