//! Game records.

use bincode::de::Decoder;
use bincode::enc::Encoder;
use bincode::error::{DecodeError, EncodeError};
use bincode::{Decode, Encode};
use kage_engine::Reason;

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

/// Why a game ended, the one vocabulary of the workspace: a rule of the variant (the
/// engine's [`Reason`]) or one of the ways self-play stops a game early.
///
/// Stored as a `u32` code (format version 1): the rule reasons 0-6 in [`Reason::ALL`] order,
/// 7 adjudication (a resignation or an adjudicated draw: the game's result tells which),
/// 8 the ply limit, 9 anything else; then the ways a game between engines ends without a
/// rule: 10 an illegal move, 11 a time forfeit, 12 an engine fault. The codes 0-9 are those
/// of the format's first `Termination`: records that use them are the bytes earlier builds
/// wrote, and earlier files read as before (a build older than codes 10-12 refuses them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Termination {
    /// A rule of the variant ended the game (`kage_engine::Game::outcome`).
    Rule(Reason),
    /// One side's score stayed beyond the resign bound: it resigned (a decisive result).
    Resign,
    /// The score stayed near zero late in the game: adjudicated a draw.
    AdjudicatedDraw,
    /// The ply limit was reached (a draw).
    PlyLimit,
    /// Anything else.
    Other,
    /// A player made an illegal (or unreadable) move: it lost.
    IllegalMove,
    /// A player's clock fell: it lost on time.
    TimeForfeit,
    /// A player failed (crashed, hung, broke its pipe): the game has no real result (it is
    /// stored as a draw; matches replay such games and count none of them).
    EngineFault,
}

const ADJUDICATION_CODE: u32 = 7;

impl Termination {
    /// The terminations of self-play (the format's first ones, codes 0-9), in report order:
    /// the first 11 of [`Termination::ALL`].
    pub const SELFPLAY: [Termination; 11] = {
        let mut first = [Termination::Other; 11];
        let mut i = 0;
        while i < first.len() {
            first[i] = Termination::ALL[i];
            i += 1;
        }
        first
    };

    /// All terminations, in report order.
    pub const ALL: [Termination; 14] = [
        Termination::Rule(Reason::Checkmate),
        Termination::Rule(Reason::Stalemate),
        Termination::Rule(Reason::Campmate),
        Termination::Rule(Reason::Repetition),
        Termination::Rule(Reason::PerpetualCheck),
        Termination::Rule(Reason::MoveRule),
        Termination::Rule(Reason::PawnDropMate),
        Termination::Resign,
        Termination::AdjudicatedDraw,
        Termination::PlyLimit,
        Termination::Other,
        Termination::IllegalMove,
        Termination::TimeForfeit,
        Termination::EngineFault,
    ];

    /// Name: the engine's [`Reason::name`] for rule verdicts (`checkmate`,
    /// `perpetual_check`, ...), then `resign`, `adjudicated_draw`, `ply_limit`, `other`,
    /// `illegal_move`, `time_forfeit`, `engine_fault`.
    pub fn name(self) -> &'static str {
        match self {
            Termination::Rule(r) => r.name(),
            Termination::Resign => "resign",
            Termination::AdjudicatedDraw => "adjudicated_draw",
            Termination::PlyLimit => "ply_limit",
            Termination::Other => "other",
            Termination::IllegalMove => "illegal_move",
            Termination::TimeForfeit => "time_forfeit",
            Termination::EngineFault => "engine_fault",
        }
    }

    /// Parses [`Termination::name`].
    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.name() == s)
    }

    /// The stored code (see the type's documentation).
    fn code(self) -> u32 {
        match self {
            Termination::Rule(r) => match r {
                Reason::Checkmate => 0,
                Reason::Stalemate => 1,
                Reason::Campmate => 2,
                Reason::Repetition => 3,
                Reason::PerpetualCheck => 4,
                Reason::MoveRule => 5,
                Reason::PawnDropMate => 6,
            },
            Termination::Resign | Termination::AdjudicatedDraw => ADJUDICATION_CODE,
            Termination::PlyLimit => 8,
            Termination::Other => 9,
            Termination::IllegalMove => 10,
            Termination::TimeForfeit => 11,
            Termination::EngineFault => 12,
        }
    }

    /// Reads a stored code back; `result` tells a resignation from an adjudicated draw.
    fn from_code(code: u32, result: GameResult) -> Option<Self> {
        Some(match code {
            0..=6 => Termination::Rule(Reason::ALL[code as usize]),
            ADJUDICATION_CODE if result == GameResult::Draw => Termination::AdjudicatedDraw,
            ADJUDICATION_CODE => Termination::Resign,
            8 => Termination::PlyLimit,
            9 => Termination::Other,
            10 => Termination::IllegalMove,
            11 => Termination::TimeForfeit,
            12 => Termination::EngineFault,
            _ => return None,
        })
    }
}

impl From<Reason> for Termination {
    fn from(r: Reason) -> Self {
        Termination::Rule(r)
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
/// `moves[i]`; `scores` is either empty or as long as `moves`. A
/// [`Termination::Resign`] goes with a decisive result and a
/// [`Termination::AdjudicatedDraw`] with a draw: they are stored alike.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
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

// The fields in declaration order, the termination as its stored code: the bytes a derived
// encoding of the format's first `Termination` enum gave.
impl Encode for GameRecord {
    fn encode<E: Encoder>(&self, e: &mut E) -> Result<(), EncodeError> {
        self.variant.encode(e)?;
        self.start_fen.encode(e)?;
        self.moves.encode(e)?;
        self.scores.encode(e)?;
        self.result.encode(e)?;
        self.termination.code().encode(e)?;
        self.game_index.encode(e)
    }
}

impl<C> Decode<C> for GameRecord {
    fn decode<D: Decoder<Context = C>>(d: &mut D) -> Result<Self, DecodeError> {
        // Lengths come from the file: decoded without trusting them (record.rs).
        let variant = crate::record::decode_string(d)?;
        let start_fen = crate::record::decode_string(d)?;
        let moves = crate::record::decode_vec(d)?;
        let scores = crate::record::decode_vec(d)?;
        let result = GameResult::decode(d)?;
        let code = u32::decode(d)?;
        let termination = Termination::from_code(code, result)
            .ok_or_else(|| DecodeError::OtherString(format!("unknown termination code {code}")))?;
        let game_index = u64::decode(d)?;
        Ok(GameRecord { variant, start_fen, moves, scores, result, termination, game_index })
    }
}

bincode::impl_borrow_decode!(GameRecord);

impl Record for GameRecord {
    const KIND: RecordKind = RecordKind::Game;
    /// Four u64 lengths, the result and termination (u32 each) and the game index.
    const MIN_ENCODED_LEN: usize = 48;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(result: GameResult, termination: Termination) -> GameRecord {
        GameRecord {
            variant: "minishogi".into(),
            start_fen: "startpos".into(),
            moves: vec![1, 2, 3],
            scores: vec![-5, 0, 7],
            result,
            termination,
            game_index: 300,
        }
    }

    /// The encoding the format's first `Termination` (a plain derived enum) gave.
    #[derive(Encode)]
    struct Version1 {
        variant: String,
        start_fen: String,
        moves: Vec<u16>,
        scores: Vec<i16>,
        result: GameResult,
        termination: u32,
        game_index: u64,
    }

    #[test]
    fn termination_codes_read_back_and_match_the_first_format() {
        let cfg = crate::BINCODE_CONFIG;
        // The first format's codes are where they were.
        let codes: Vec<u32> = Termination::ALL.iter().map(|t| t.code()).collect();
        assert_eq!(codes, [0, 1, 2, 3, 4, 5, 6, 7, 7, 8, 9, 10, 11, 12]);
        // Self-play's terminations are exactly the first format's codes.
        let selfplay: Vec<u32> = Termination::SELFPLAY.iter().map(|t| t.code()).collect();
        assert_eq!(selfplay, [0, 1, 2, 3, 4, 5, 6, 7, 7, 8, 9]);
        for t in Termination::ALL {
            let result = match t {
                Termination::Resign => GameResult::BlackWin,
                _ => GameResult::Draw,
            };
            let g = game(result, t);
            let bytes = bincode::encode_to_vec(&g, cfg).expect("encodes");
            let (back, n): (GameRecord, usize) =
                bincode::decode_from_slice(&bytes, cfg).expect("decodes");
            assert_eq!((back, n), (g.clone(), bytes.len()), "{t}");
            let v1 = Version1 {
                variant: g.variant,
                start_fen: g.start_fen,
                moves: g.moves,
                scores: g.scores,
                result,
                termination: t.code(),
                game_index: 300,
            };
            assert_eq!(bincode::encode_to_vec(&v1, cfg).expect("encodes"), bytes, "{t}");
            assert_eq!(Termination::from_name(t.name()), Some(t));
        }
        // Old adjudication records: the result says which.
        assert_eq!(Termination::from_code(7, GameResult::WhiteWin), Some(Termination::Resign));
        assert_eq!(Termination::from_code(7, GameResult::Draw), Some(Termination::AdjudicatedDraw));
        let mut bytes = bincode::encode_to_vec(game(GameResult::Draw, Termination::Other), cfg)
            .expect("encodes");
        let code_at = bytes.len() - 12; // a fixed-width u32 code, then the u64 game index
        assert_eq!(bytes[code_at..code_at + 4], [9, 0, 0, 0]);
        bytes[code_at] = 13;
        let e = bincode::decode_from_slice::<GameRecord, _>(&bytes, cfg).expect_err("code 13");
        assert!(e.to_string().contains("unknown termination code 13"), "{e}");
    }
}
