//! One game of a match, refereed by kage's rules: the engines are asked in turn, every move
//! is checked, the clocks are kept, and the rules (or the ply cap, an illegal move, a flag
//! fall) end it. A crashed or hanging engine ends it as a fault, which is not a result.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use kage_engine::{Color, Game};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

use super::engine::Score;
use super::openings::Opening;
use super::uci::UciError;
use crate::adjudicate::Adjudicator;
use crate::arena::player::{Ask, MoveLimit, Player};
use crate::config::Adjudication;

/// How long each move may take (what a match's identity records).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum LimitSpec {
    /// Nodes per move, varied by up to +-`jitter` (a fraction) per move.
    Nodes {
        /// Nodes per move.
        nodes: u64,
        /// Largest variation, as a fraction of `nodes`.
        jitter: f64,
    },
    /// Depth per move.
    Depth(u32),
    /// Milliseconds per move.
    Movetime(u64),
    /// A clock: base time and increment (ms); a side whose clock falls below -`margin` ms
    /// loses on time.
    Clock {
        /// Base time (ms).
        time_ms: u64,
        /// Increment per move (ms).
        inc_ms: u64,
        /// How far below zero a clock may go before the flag falls (ms).
        margin_ms: u64,
    },
}

/// The longest time a limit may name (ms): about 11.6 days, far from where clock sums wrap.
pub const MAX_MS: u64 = 1_000_000_000;

impl LimitSpec {
    /// Checks the limit: at least one node, ply or millisecond; jitter within 0..=0.9 (a
    /// fraction); times at most [`MAX_MS`].
    pub fn validate(&self) -> Result<(), String> {
        let ms = |what: &str, v: u64, min: u64| {
            if v < min || v > MAX_MS {
                Err(format!("{what} {v} ms is outside {min}..={MAX_MS} ms"))
            } else {
                Ok(())
            }
        };
        match *self {
            LimitSpec::Nodes { nodes, jitter } => {
                if nodes == 0 || nodes > crate::config::MAX_TOML_INT {
                    return Err(format!(
                        "nodes {nodes} is outside 1..={}",
                        crate::config::MAX_TOML_INT
                    ));
                }
                if !(0.0..=0.9).contains(&jitter) {
                    return Err(format!("node jitter {}% is outside 0..=90%", jitter * 100.0));
                }
                Ok(())
            }
            LimitSpec::Depth(d) if !(1..=64).contains(&d) => {
                Err(format!("depth {d} is outside 1..=64"))
            }
            LimitSpec::Depth(_) => Ok(()),
            LimitSpec::Movetime(t) => ms("movetime", t, 1),
            LimitSpec::Clock { time_ms, inc_ms, margin_ms } => {
                ms("clock base time", time_ms, 1)?;
                ms("clock increment", inc_ms, 0)?;
                ms("clock margin", margin_ms, 0)
            }
        }
    }
}

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
        let white = match self.result.as_str() {
            "1-0" => 2,
            "0-1" => 0,
            _ => 1,
        };
        if self.first_white { white } else { 2 - white }
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

fn result_of(winner: Option<Color>) -> &'static str {
    match winner {
        Some(Color::White) => "1-0",
        Some(Color::Black) => "0-1",
        None => "1/2-1/2",
    }
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
    let idx = |c: Color| usize::from((c == Color::White) != first_white);
    let names = [&s.names[idx(Color::White)], &s.names[idx(Color::Black)]];
    let mut game = Game::new(opening.start.clone());
    for &m in &opening.moves {
        game.play(m);
    }
    for (i, e) in engines.iter_mut().enumerate() {
        if let Err(error) = e.new_game() {
            return GameEnd::Fault { first: i == 0, error };
        }
    }
    let mut moves: Vec<String> = {
        let mut p = opening.start.clone();
        opening
            .moves
            .iter()
            .map(|&m| {
                let t = p.move_to_uci(m);
                p.play(m);
                t
            })
            .collect()
    };
    let (mut scores, mut ms) = (Vec::new(), Vec::new());
    let mut notes = Vec::new();
    let mut think = Duration::ZERO;
    let mut adjudicator = Adjudicator::new(Adjudication { max_plies: 0, ..s.adjudication });
    let mut clock = match s.limit {
        LimitSpec::Clock { time_ms, .. } => [time_ms as i64; 2],
        _ => [0; 2],
    };
    let (winner, termination) = loop {
        if let Some(o) = game.outcome() {
            break (o.winner, o.reason.name().replace('_', " "));
        }
        if game.ply() >= s.max_plies as usize {
            break (None, "ply cap".to_owned());
        }
        if stop.load(Ordering::Relaxed) {
            return GameEnd::Aborted;
        }
        let stm = game.position().side_to_move();
        let (limit, wait) = match s.limit {
            LimitSpec::Nodes { nodes, jitter } => {
                let nodes = s.nodes[idx(stm)].unwrap_or(nodes);
                let f = if jitter > 0.0 { crate::play::jitter_factor(jitter, rng) } else { 1.0 };
                (MoveLimit::Nodes(((nodes as f64 * f).round() as u64).max(1)), s.hang)
            }
            LimitSpec::Depth(d) => (MoveLimit::Depth(d), s.hang),
            LimitSpec::Movetime(t) => (MoveLimit::Movetime(t), Duration::from_millis(t) + s.hang),
            LimitSpec::Clock { inc_ms, margin_ms, .. } => {
                let time = [clock[0].max(0) as u64, clock[1].max(0) as u64];
                let left = clock[stm.index()].max(0) as u64 + margin_ms;
                (MoveLimit::Clock { time, inc: [inc_ms; 2] }, Duration::from_millis(left + 1))
            }
        };
        let eng = &mut engines[idx(stm)];
        let t0 = Instant::now();
        let reply = eng.go(&game, &Ask { limit, multipv: 1, wait: Some(wait) });
        let took = t0.elapsed();
        think += took;
        let timed = matches!(s.limit, LimitSpec::Clock { .. });
        let reply = match reply {
            Ok(r) => r,
            Err(UciError::Timeout { .. }) if timed => {
                if let Err(error) = eng.abandon() {
                    return GameEnd::Fault { first: idx(stm) == 0, error };
                }
                break (Some(!stm), "time forfeit".to_owned());
            }
            Err(error) => return GameEnd::Fault { first: idx(stm) == 0, error },
        };
        if let LimitSpec::Clock { inc_ms, margin_ms, .. } = s.limit {
            let c = &mut clock[stm.index()];
            *c -= took.as_millis() as i64;
            if *c < -(margin_ms as i64) {
                break (Some(!stm), "time forfeit".to_owned());
            }
            *c += inc_ms as i64;
        }
        let score = reply.score.map(Score::from_search);
        let mv = match reply.best.filter(|&m| game.position().is_legal(m)) {
            Some(m) => m,
            None => {
                notes.push(format!(
                    "{} played an illegal move {:?} in {}",
                    names[stm.index()],
                    reply.text,
                    game.position().to_fen()
                ));
                break (Some(!stm), "illegal move".to_owned());
            }
        };
        moves.push(game.position().move_to_uci(mv));
        scores.push(score);
        ms.push(took.as_millis() as u64);
        let ply = game.ply() as u32;
        game.play(mv);
        let verdict = score.and_then(|sc| adjudicator.observe(ply, stm, sc.centipawns()));
        if let Some((winner, why)) = verdict {
            break (winner, why.name().replace('_', " "));
        }
    };
    let record = GameRecord {
        first_white,
        white: names[0].clone(),
        black: names[1].clone(),
        start_fen: opening.start.to_fen(),
        book: opening.moves.len(),
        moves,
        scores,
        ms,
        result: result_of(winner).to_owned(),
        termination,
    };
    GameEnd::Done { record, think, notes }
}
