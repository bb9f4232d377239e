//! One game, for self-play, matches and audits alike: the players are asked in turn, every
//! move is checked, clocks are kept, random opening plies are drawn, scores adjudicated,
//! and the rules (or the ply cap, an illegal move, a flag fall) end it, as a
//! [`kage_data::GameRecord`] with a typed [`Termination`]. A crashed or hanging player ends
//! it as a fault, which is not a result. A game depends only on its inputs and the players'
//! deterministic answers, never on the thread that plays it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use kage_data::{CompactError, GameRecord, GameResult, PositionRecord, StmResult, Termination};
use kage_engine::{Color, Game, Move, Position};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

use rand::Rng;

use super::player::{Answer, Ask, MoveLimit, Player};
use crate::adjudicate::Adjudicator;
use crate::config::{Adjudication, OpeningMode, Openings};
use crate::matches::uci::UciError;

/// How long each move may take.
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

/// Why a [`LimitSpec`] is refused.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LimitError {
    /// A node count outside `1..=MAX_TOML_INT`.
    #[error("nodes {0} is outside 1..={max}", max = crate::config::MAX_TOML_INT)]
    Nodes(u64),
    /// A node jitter (a fraction) outside `0..=0.9`.
    #[error("node jitter {pct}% is outside 0..=90%", pct = .0 * 100.0)]
    Jitter(f64),
    /// A depth outside `1..=64`.
    #[error("depth {0} is outside 1..=64")]
    Depth(u32),
    /// A time outside `min..=MAX_MS`.
    #[error("{what} {value} ms is outside {min}..={MAX_MS} ms")]
    Time {
        /// Which time (`movetime`, `clock base time`, ...).
        what: &'static str,
        /// The time given (ms).
        value: u64,
        /// The least it may be (ms).
        min: u64,
    },
}

impl LimitSpec {
    /// Checks the limit: at least one node, ply or millisecond; jitter within 0..=0.9 (a
    /// fraction); times at most [`MAX_MS`].
    pub fn validate(&self) -> Result<(), LimitError> {
        let ms = |what, value, min| {
            if value < min || value > MAX_MS {
                Err(LimitError::Time { what, value, min })
            } else {
                Ok(())
            }
        };
        match *self {
            LimitSpec::Nodes { nodes, jitter } => {
                if nodes == 0 || nodes > crate::config::MAX_TOML_INT {
                    return Err(LimitError::Nodes(nodes));
                }
                if !(0.0..=0.9).contains(&jitter) {
                    return Err(LimitError::Jitter(jitter));
                }
                Ok(())
            }
            LimitSpec::Depth(d) if !(1..=64).contains(&d) => Err(LimitError::Depth(d)),
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

/// What a game is played by: one player for both sides (self-play), or two, the first with
/// White when `first_white` (a match).
pub enum Seats<'a> {
    /// One player plays both sides.
    One(&'a mut dyn Player),
    /// Two players; seat 0 is the first.
    Two {
        /// The players, first first.
        players: &'a mut [Box<dyn Player>; 2],
        /// Whether the first has White.
        first_white: bool,
    },
}

impl Seats<'_> {
    /// The seat of the side `c`.
    pub fn seat(&self, c: Color) -> usize {
        match self {
            Seats::One(_) => 0,
            Seats::Two { first_white, .. } => usize::from((c == Color::White) != *first_white),
        }
    }

    fn player(&mut self, seat: usize) -> &mut dyn Player {
        match self {
            Seats::One(p) => &mut **p,
            Seats::Two { players, .. } => players[seat].as_mut(),
        }
    }

    fn count(&self) -> usize {
        match self {
            Seats::One(_) => 1,
            Seats::Two { .. } => 2,
        }
    }
}

/// When score adjudication ends a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AdjudicateAt {
    /// On the score of a searched position, before its move is played (self-play: the
    /// position is recorded, its move is not).
    BeforeMove,
    /// After the move whose score decided it is played (matches).
    AfterMove,
}

/// How a game is played.
#[derive(Clone, Debug)]
pub struct Rules {
    /// Search limit per move.
    pub limit: LimitSpec,
    /// Each seat's own nodes per move in place of the limit's.
    pub nodes: [Option<u64>; 2],
    /// A game still running after this many plies (opening included) is a draw.
    pub max_plies: u32,
    /// Score-based resignation and draws (its `max_plies` unused: see `max_plies`).
    pub adjudication: Adjudication,
    /// When adjudication ends a game.
    pub adjudicate_at: AdjudicateAt,
    /// Random opening plies from the game's first position (self-play), if any.
    pub openings: Option<Openings>,
    /// How much longer than its limit a move may take before its player counts as hanging;
    /// `None`: no bound for node and depth limits (the built-in players).
    pub hang: Option<Duration>,
    /// Whether to keep a training position per searched position.
    pub positions: bool,
}

/// One move a player made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Turn {
    /// Its score from the mover's side (search units), if it reported one.
    pub score: Option<i32>,
    /// Thinking time (ms).
    pub ms: u64,
}

/// An illegal (or unreadable) move that lost a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Illegal {
    /// The seat that played it.
    pub seat: usize,
    /// What it wrote.
    pub text: String,
    /// In which position.
    pub fen: String,
}

/// A finished game.
#[derive(Clone, Debug)]
pub struct Played {
    /// The game: from its first position, the opening moves included; a score per move
    /// (0 for the given opening moves and moves without a reported score).
    pub record: GameRecord,
    /// One training position per searched position (when [`Rules::positions`]).
    pub positions: Vec<PositionRecord>,
    /// Opening moves given at the start of the record's moves.
    pub book: usize,
    /// Every move the players made, in order (after the `book` moves).
    pub turns: Vec<Turn>,
    /// Nanoseconds spent inside [`Player::go`].
    pub search_ns: u64,
    /// Nodes searched (as reported).
    pub nodes: u64,
    /// The illegal move that ended it, if one did.
    pub illegal: Option<Illegal>,
}

/// How a game ended.
#[derive(Debug)]
pub enum GameEnd {
    /// With a result.
    Done(Box<Played>),
    /// A player failed (crash, hang, broken pipe): no result.
    Fault {
        /// Its seat.
        seat: usize,
        /// What happened.
        error: UciError,
    },
    /// The stop flag was set.
    Aborted,
}

fn clamp_i16(score: i32) -> i16 {
    score.clamp(-i32::from(i16::MAX), i32::from(i16::MAX)) as i16
}

/// Where a game starts, and what it is called.
pub struct Start<'a> {
    /// Variant name (the record's).
    pub variant: &'a str,
    /// The first position.
    pub position: &'a Position,
    /// Opening moves, played before the players are asked.
    pub book: &'a [Move],
    /// The record's game index.
    pub index: u64,
}

struct State {
    positions: Vec<PositionRecord>,
    scores: Vec<i16>,
    turns: Vec<Turn>,
    search_ns: u64,
    nodes: u64,
    illegal: Option<Illegal>,
    clock: [i64; 2],
}

/// Plays one game from `start` by `rules`; `rng` draws node jitter and random openings;
/// setting `stop` aborts it before the next move.
pub fn play(
    mut seats: Seats,
    start: &Start,
    rules: &Rules,
    rng: &mut Xoshiro256PlusPlus,
    stop: Option<&AtomicBool>,
) -> Result<GameEnd, CompactError> {
    let mut game = Game::new(start.position.clone());
    for &m in start.book {
        game.play(m);
    }
    for seat in 0..seats.count() {
        if let Err(error) = seats.player(seat).new_game() {
            return Ok(GameEnd::Fault { seat, error });
        }
    }
    let mut st = State {
        positions: Vec::new(),
        scores: vec![0; start.book.len()],
        turns: Vec::new(),
        search_ns: 0,
        nodes: 0,
        illegal: None,
        clock: match rules.limit {
            LimitSpec::Clock { time_ms, .. } => [time_ms as i64; 2],
            _ => [0; 2],
        },
    };
    let mut adj = Adjudicator::new(Adjudication { max_plies: 0, ..rules.adjudication });
    let (winner, end) = loop {
        if let Some(o) = game.outcome() {
            break (o.winner, Termination::Rule(o.reason));
        }
        if game.ply() >= rules.max_plies as usize {
            break (None, Termination::PlyLimit);
        }
        if stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
            return Ok(GameEnd::Aborted);
        }
        match turn(&mut seats, &mut game, rules, rng, &mut adj, &mut st)? {
            Step::Next => {}
            Step::End(w, t) => break (w, t),
            Step::Fault(seat, error) => return Ok(GameEnd::Fault { seat, error }),
        }
    };
    for p in &mut st.positions {
        p.result = StmResult::for_side(winner, p.side_to_move());
    }
    let record = GameRecord {
        variant: start.variant.to_owned(),
        start_fen: game.start_position().to_fen(),
        moves: game.moves().iter().map(|m| m.0).collect(),
        scores: st.scores,
        result: GameResult::from_winner(winner),
        termination: end,
        game_index: start.index,
    };
    Ok(GameEnd::Done(Box::new(Played {
        record,
        positions: st.positions,
        book: start.book.len(),
        turns: st.turns,
        search_ns: st.search_ns,
        nodes: st.nodes,
        illegal: st.illegal,
    })))
}

enum Step {
    Next,
    End(Option<Color>, Termination),
    Fault(usize, UciError),
}

/// The limit of the next move and how long to wait for it.
fn next_limit(
    rules: &Rules,
    seat: usize,
    stm: Color,
    clock: [i64; 2],
    rng: &mut Xoshiro256PlusPlus,
) -> (MoveLimit, Option<Duration>) {
    match rules.limit {
        LimitSpec::Nodes { nodes, jitter } => {
            let nodes = rules.nodes[seat].unwrap_or(nodes);
            let n = if jitter > 0.0 {
                let f = crate::play::jitter_factor(jitter, rng);
                ((nodes as f64 * f).round() as u64).max(1)
            } else {
                nodes
            };
            (MoveLimit::Nodes(n), rules.hang)
        }
        LimitSpec::Depth(d) => (MoveLimit::Depth(d), rules.hang),
        LimitSpec::Movetime(t) => (
            MoveLimit::Movetime(t),
            Some(Duration::from_millis(t) + rules.hang.unwrap_or_default()),
        ),
        LimitSpec::Clock { inc_ms, margin_ms, .. } => {
            let time = [clock[0].max(0) as u64, clock[1].max(0) as u64];
            let left = clock[stm.index()].max(0) as u64 + margin_ms;
            (MoveLimit::Clock { time, inc: [inc_ms; 2] }, Some(Duration::from_millis(left + 1)))
        }
    }
}

/// One move: ask, check, keep the clock, adjudicate, play.
fn turn(
    seats: &mut Seats,
    game: &mut Game,
    rules: &Rules,
    rng: &mut Xoshiro256PlusPlus,
    adj: &mut Adjudicator,
    st: &mut State,
) -> Result<Step, CompactError> {
    let ply = game.ply() as u32;
    let stm = game.position().side_to_move();
    let seat = seats.seat(stm);
    let opening = rules.openings.filter(|o| ply < o.random_plies);
    let multipv = match opening {
        Some(o) if o.mode == OpeningMode::Multipv => o.multipv as usize,
        _ => 1,
    };
    let (limit, wait) = next_limit(rules, seat, stm, st.clock, rng);
    let player = seats.player(seat);
    let t0 = Instant::now();
    let reply = player.go(game, &Ask { limit, multipv, wait });
    let took = t0.elapsed();
    st.search_ns += took.as_nanos() as u64;
    let timed = matches!(rules.limit, LimitSpec::Clock { .. });
    let answer = match reply {
        Ok(a) => a,
        Err(UciError::Timeout { .. }) if timed => {
            if let Err(error) = player.abandon() {
                return Ok(Step::Fault(seat, error));
            }
            return Ok(Step::End(Some(!stm), Termination::TimeForfeit));
        }
        Err(error) => return Ok(Step::Fault(seat, error)),
    };
    st.nodes += answer.nodes.unwrap_or(0);
    if let LimitSpec::Clock { inc_ms, margin_ms, .. } = rules.limit {
        let c = &mut st.clock[stm.index()];
        *c -= took.as_millis() as i64;
        if *c < -(margin_ms as i64) {
            return Ok(Step::End(Some(!stm), Termination::TimeForfeit));
        }
        *c += inc_ms as i64;
    }
    let pos = game.position();
    let Some(best) = answer.best.filter(|&m| pos.is_legal(m)) else {
        st.illegal = Some(Illegal { seat, text: answer.text, fen: pos.to_fen() });
        return Ok(Step::End(Some(!stm), Termination::IllegalMove));
    };
    let score = clamp_i16(answer.score.unwrap_or(0));
    let verdict = answer.score.and_then(|s| adj.observe(ply, stm, s));
    let before = rules.adjudicate_at == AdjudicateAt::BeforeMove;
    let played = match (opening, verdict) {
        (_, Some(_)) if before => None,
        (Some(o), _) => Some(opening_move(game, &answer, o.mode, o.margin_cp, rng)),
        (None, _) => Some(best),
    };
    if rules.positions {
        st.positions.push(PositionRecord::from_position(
            pos,
            score,
            None,
            ply as u16,
            played,
            Some(best),
        )?);
    }
    // No move played: adjudicated before it (`verdict` is set).
    if let Some(m) = played {
        st.scores.push(score);
        st.turns.push(Turn { score: answer.score, ms: took.as_millis() as u64 });
        game.play(m);
    }
    Ok(match verdict {
        Some((w, t)) => Step::End(w, t),
        None => Step::Next,
    })
}

/// A random opening move: uniform among all legal moves, or among the MultiPV moves within
/// `margin` of the best.
pub(crate) fn opening_move(
    game: &Game,
    choice: &Answer,
    mode: OpeningMode,
    margin: i32,
    rng: &mut Xoshiro256PlusPlus,
) -> Move {
    match mode {
        OpeningMode::Uniform => {
            let moves = game.position().legal_moves();
            let all = moves.as_slice();
            all[rng.random_range(0..all.len())]
        }
        OpeningMode::Multipv => {
            let best = choice.lines.first().map_or(choice.score.unwrap_or(0), |l| l.0);
            let near: Vec<Move> = choice
                .lines
                .iter()
                .filter(|(s, m)| *s >= best.saturating_sub(margin) && !m.is_null())
                .map(|&(_, m)| m)
                .collect();
            match choice.best {
                Some(m) if near.is_empty() => m,
                _ if near.is_empty() => Move::NULL,
                _ => near[rng.random_range(0..near.len())],
            }
        }
    }
}
