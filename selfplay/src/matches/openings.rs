//! Openings of a match: a few random plies (uniform or near-best MultiPV moves of the
//! built-in search), or positions from an EPD/FEN file in file or shuffled order. Opening
//! `k` depends only on (seed, variant, k), so a resumed match replays the same openings.

use std::path::{Path, PathBuf};

use kage_engine::util::read::ReadError;
use kage_engine::{FenError, Game, Move, MoveError, Position, Variant};
use rand::Rng;
use rand::seq::SliceRandom;
use serde::{Deserialize, Serialize};

use crate::arena::player::{Ask, Builtin, MoveLimit, Player};
use crate::config::{OpeningMode, Openings};
use crate::play::{game_rng, opening_move};

/// In which order file openings are used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Order {
    /// As in the file (cycling).
    Sequential,
    /// A seeded shuffle of the file (cycling).
    Random,
}

/// Where openings come from (what a match's identity records).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum OpeningSpec {
    /// Random plies from the start position; MultiPV ones searched with `nodes` nodes.
    Random {
        /// How the random plies are chosen.
        openings: Openings,
        /// Nodes per MultiPV search.
        nodes: u64,
    },
    /// A file of FENs (`;` starts EPD operations; a `moves` operation, as `kage-selfplay
    /// book` writes, is played from the start position), with its FNV hash.
    File {
        /// The file.
        path: String,
        /// Its FNV-1a hash (hex).
        hash: String,
        /// In file order or shuffled.
        order: Order,
    },
}

/// One opening: a start position and the moves played from it before the engines take over.
#[derive(Clone, Debug)]
pub struct Opening {
    /// The position the opening starts from.
    pub start: Position,
    /// Its opening moves, played from `start`.
    pub moves: Vec<Move>,
}

/// The openings of a match.
pub struct Book {
    spec: OpeningSpec,
    variant: &'static Variant,
    seed: u64,
    lines: Vec<Opening>,
}

/// The largest opening file (bytes).
pub const CAP: u64 = kage_engine::util::read::cap::TEXT;

/// One line of an opening file: the opening and the EPD operations after the FEN
/// (`(opcode, operands)`, in order; quotes kept).
#[derive(Clone, Debug)]
pub struct BookLine {
    /// Where the games start: the line's FEN, or the variant's start position and the line's
    /// `moves` when it has them (they must lead to the FEN).
    pub opening: Opening,
    /// The EPD operations (`moves`, the judges' `score_NAME`, ...).
    pub ops: Vec<(String, String)>,
    /// The line's number in the file (from 1).
    pub line: usize,
}

impl BookLine {
    /// The operands of operation `opcode`, unquoted.
    pub fn op(&self, opcode: &str) -> Option<&str> {
        self.ops.iter().find(|(k, _)| k == opcode).map(|(_, v)| v.trim_matches('"'))
    }
}

/// Why an opening file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum OpeningFileError {
    /// The file cannot be read (or is too large, or not text).
    #[error("cannot read {0}")]
    Read(ReadError),
    /// A line that is not an opening.
    #[error("{} line {line}: {cause}", path.display())]
    Line {
        /// The file.
        path: PathBuf,
        /// The line (from 1).
        line: usize,
        /// What is wrong with it (boxed: it is large).
        cause: Box<LineError>,
    },
    /// A file without positions.
    #[error("{}: no positions", .0.display())]
    Empty(PathBuf),
}

/// What is wrong with one line of an opening file.
#[derive(Debug, thiserror::Error)]
pub enum LineError {
    /// A FEN that does not parse for the variant.
    #[error("bad {variant} FEN {fen:?}: {cause}")]
    Fen {
        /// The variant's name.
        variant: String,
        /// The FEN.
        fen: String,
        /// Why it does not parse.
        cause: FenError,
    },
    /// A position where the game is over.
    #[error("the game is already over in {0:?}")]
    Over(String),
    /// A move of the line's `moves` operation that is not legal.
    #[error("move {mv:?} of its moves: {cause}")]
    Move {
        /// The move as written.
        mv: String,
        /// Why it is refused.
        cause: MoveError,
    },
    /// `moves` that do not lead to the line's FEN.
    #[error("its moves lead to {reached:?}, not to its FEN {fen:?}")]
    Lead {
        /// The position the moves reach.
        reached: String,
        /// The line's FEN (as the engine writes it).
        fen: String,
    },
}

/// Reads an opening file: one FEN per line (blank lines and `#` comments skipped), EPD
/// operations after `;`. A line with a `moves "M1 M2 ..."` operation (what `kage-selfplay
/// book` writes) is played from the variant's start position through those moves, which
/// must lead to its FEN; other operations are kept, not used. Every position must parse and
/// have a legal move. Returns the lines and the file's hash.
pub fn read_book(
    path: &Path,
    variant: &'static Variant,
) -> Result<(Vec<BookLine>, String), OpeningFileError> {
    let text = kage_engine::util::read::read_text_capped(path, CAP, "opening file")
        .map_err(OpeningFileError::Read)?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let at = |cause| OpeningFileError::Line {
            path: path.to_path_buf(),
            line: i + 1,
            cause: Box::new(cause),
        };
        if let Some(l) = book_line(variant, line, i + 1).map_err(at)? {
            out.push(l);
        }
    }
    if out.is_empty() {
        return Err(OpeningFileError::Empty(path.to_path_buf()));
    }
    Ok((out, crate::player::file_hash(text.as_bytes())))
}

/// The positions of an opening file (see [`read_book`]) and its hash.
pub fn read_file(
    path: &Path,
    variant: &'static Variant,
) -> Result<(Vec<Position>, String), OpeningFileError> {
    let (lines, hash) = read_book(path, variant)?;
    Ok((lines.into_iter().map(|l| l.opening.end()).collect(), hash))
}

/// The EPD operations of `text` (after the FEN's `;`): `opcode operands` items split at `;`.
fn parse_ops(text: &str) -> Vec<(String, String)> {
    text.split(';')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(|t| match t.split_once(char::is_whitespace) {
            Some((k, v)) => (k.to_owned(), v.trim().to_owned()),
            None => (t.to_owned(), String::new()),
        })
        .collect()
}

/// The opening of a FEN and its `moves` operation (if any), checked.
fn line_opening(
    variant: &'static Variant,
    pos: Position,
    moves: Option<&str>,
) -> Result<Opening, LineError> {
    let Some(moves) = moves else { return Ok(Opening { start: pos, moves: Vec::new() }) };
    let mut game = Game::startpos(variant);
    for m in moves.split_whitespace() {
        game.play_uci(m).map_err(|cause| LineError::Move { mv: m.into(), cause })?;
    }
    if game.position().to_fen() != pos.to_fen() {
        return Err(LineError::Lead { reached: game.position().to_fen(), fen: pos.to_fen() });
    }
    Ok(Opening { start: Position::startpos(variant), moves: game.moves().to_vec() })
}

/// Line `n` of an opening file: its opening (`None` for a blank line or a comment).
fn book_line(
    variant: &'static Variant,
    line: &str,
    n: usize,
) -> Result<Option<BookLine>, LineError> {
    let (fen, rest) = line.split_once(';').unwrap_or((line, ""));
    let fen = fen.trim();
    if fen.is_empty() || fen.starts_with('#') {
        return Ok(None);
    }
    let pos = Position::from_fen(variant, fen).map_err(|cause| LineError::Fen {
        variant: variant.name.to_string(),
        fen: fen.into(),
        cause,
    })?;
    let game = Game::new(pos.clone());
    if pos.legal_moves().is_empty() || game.outcome().is_some() {
        return Err(LineError::Over(fen.into()));
    }
    let ops = parse_ops(rest);
    let moves = ops.iter().find(|(k, _)| k == "moves").map(|(_, v)| v.trim_matches('"'));
    let opening = line_opening(variant, pos, moves)?;
    Ok(Some(BookLine { opening, ops, line: n }))
}

impl Opening {
    /// The position after the opening moves.
    pub fn end(&self) -> Position {
        let mut p = self.start.clone();
        for &m in &self.moves {
            p.play(m);
        }
        p
    }
}

impl Book {
    /// The openings of `spec` (a file is read and checked here).
    pub fn new(
        spec: OpeningSpec,
        variant: &'static Variant,
        seed: u64,
    ) -> Result<Self, OpeningFileError> {
        let mut lines: Vec<Opening> = match &spec {
            OpeningSpec::Random { .. } => Vec::new(),
            OpeningSpec::File { path, .. } => {
                read_book(Path::new(path), variant)?.0.into_iter().map(|l| l.opening).collect()
            }
        };
        if let OpeningSpec::File { order: Order::Random, .. } = spec {
            lines.shuffle(&mut game_rng(seed, "opening-order", 0));
        }
        Ok(Book { spec, variant, seed, lines })
    }

    /// The random openings of `openings` (MultiPV ones searched with `nodes` nodes).
    pub fn new_random(
        openings: Openings,
        nodes: u64,
        variant: &'static Variant,
        seed: u64,
    ) -> Self {
        Book { spec: OpeningSpec::Random { openings, nodes }, variant, seed, lines: Vec::new() }
    }

    /// The number of lines of a file book (`None`: random openings).
    pub fn file_lines(&self) -> Option<usize> {
        matches!(self.spec, OpeningSpec::File { .. }).then_some(self.lines.len())
    }

    /// A searcher for MultiPV openings (one per worker), if this book needs one.
    pub fn helper(&self) -> Option<Builtin> {
        match &self.spec {
            OpeningSpec::Random { openings, .. } if openings.mode == OpeningMode::Multipv => {
                Some(Builtin::default_eval(4))
            }
            _ => None,
        }
    }

    /// Opening `k`.
    pub fn opening(&self, k: u64, helper: Option<&mut Builtin>) -> Opening {
        match &self.spec {
            OpeningSpec::File { .. } => self.lines[(k % self.lines.len() as u64) as usize].clone(),
            OpeningSpec::Random { openings, nodes } => {
                self.random(k, *openings, MoveLimit::Nodes(*nodes), helper)
            }
        }
    }

    fn random(
        &self,
        k: u64,
        o: Openings,
        limit: MoveLimit,
        mut helper: Option<&mut Builtin>,
    ) -> Opening {
        let mut rng = game_rng(self.seed, &self.variant.name, k);
        let mut best = Vec::new();
        // A line that ends the game early is drawn again (a few times).
        for _ in 0..50 {
            let mut game = Game::startpos(self.variant);
            if let Some(h) = helper.as_deref_mut() {
                let _ = h.new_game(); // the built-in player cannot fail
            }
            while game.ply() < o.random_plies as usize && game.outcome().is_none() {
                let ask = Ask { multipv: o.multipv.max(1) as usize, ..Ask::new(limit) };
                // The built-in player answers every ask (no wait bound, no process).
                let answer = match (o.mode, helper.as_deref_mut()) {
                    (OpeningMode::Multipv, Some(h)) => h.go(&game, &ask).ok(),
                    _ => None,
                };
                let mv = match answer {
                    Some(a) => opening_move(&game, &a, o.mode, o.margin_cp, &mut rng),
                    None => {
                        let moves = game.position().legal_moves();
                        let all = moves.as_slice();
                        all[rng.random_range(0..all.len())]
                    }
                };
                game.play(mv);
            }
            let moves = game.moves().to_vec();
            if game.outcome().is_none() {
                return Opening { start: Position::startpos(self.variant), moves };
            }
            if moves.len() > best.len() {
                best = moves;
            }
        }
        best.pop();
        Opening { start: Position::startpos(self.variant), moves: best }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mini() -> &'static Variant {
        Variant::by_name("minishogi").unwrap()
    }

    #[test]
    fn random_openings_are_reproducible_and_legal() {
        let spec = OpeningSpec::Random {
            openings: Openings {
                random_plies: 6,
                mode: OpeningMode::Uniform,
                multipv: 1,
                margin_cp: 0,
            },
            nodes: 0,
        };
        let book = Book::new(spec, mini(), 3).unwrap();
        let a = book.opening(5, None);
        let b = book.opening(5, None);
        assert_eq!(a.moves, b.moves);
        assert_eq!(a.moves.len(), 6);
        assert_ne!(a.moves, book.opening(6, None).moves);
        let mut g = Game::new(a.start);
        for m in a.moves {
            assert!(g.position().is_legal(m));
            g.play(m);
        }
    }

    #[test]
    fn multipv_openings_use_the_search() {
        let spec = OpeningSpec::Random {
            openings: Openings {
                random_plies: 4,
                mode: OpeningMode::Multipv,
                multipv: 3,
                margin_cp: 50,
            },
            nodes: 300,
        };
        let book = Book::new(spec, mini(), 3).unwrap();
        let mut h = book.helper().unwrap();
        let a = book.opening(1, Some(&mut h));
        assert_eq!(a.moves, book.opening(1, Some(&mut h)).moves);
        assert_eq!(a.moves.len(), 4);
    }

    #[test]
    fn opening_files() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("book.epd");
        let start = Position::startpos(mini()).to_fen();
        std::fs::write(&p, format!("# comment\n{start}\n\n{start} ; id \"x\"\n")).unwrap();
        let (pos, _) = read_file(&p, mini()).unwrap();
        assert_eq!(pos.len(), 2);
        std::fs::write(&p, format!("{start}\nrnbqk/9 w - - 0 1\n")).unwrap();
        let e = read_file(&p, mini()).unwrap_err().to_string();
        assert!(e.contains("line 2") && e.contains("bad minishogi FEN"), "{e}");
        let e = read_file(&p, mini()).unwrap_err();
        let bad_fen = matches!(&e, OpeningFileError::Line { line: 2, cause, .. }
            if matches!(**cause, LineError::Fen { .. }));
        assert!(bad_fen, "{e:?}");
        let e = read_file(&dir.path().join("none"), mini()).unwrap_err().to_string();
        assert!(e.contains("cannot read"), "{e}");
        std::fs::write(&p, format!("{start} ; moves \"a1a1\"\n")).unwrap();
        let e = read_file(&p, mini()).unwrap_err();
        let bad_move = matches!(&e, OpeningFileError::Line { cause, .. }
            if matches!(&**cause, LineError::Move { mv, .. } if mv == "a1a1"));
        assert!(bad_move, "{e:?}");
        std::fs::write(&p, "# nothing\n").unwrap();
        assert!(matches!(read_file(&p, mini()), Err(OpeningFileError::Empty(_))));
    }
}
