//! The UCI protocol: a line-oriented state machine writing replies to a sink.

use crate::game::Game;
use crate::perft;
use crate::position::Position;
use crate::search::Searcher;
use crate::search::thread::{SearchThread, SharedOut, load_eval_file, parse_go};
use crate::variant::{Variant, VariantId};
use std::io::Write;

/// Default transposition table size (MB).
pub const DEFAULT_HASH_MB: usize = 16;
/// Largest accepted `Hash` value (MB).
pub const MAX_HASH_MB: usize = 65536;

/// UCI session state.
pub struct Uci {
    variant: &'static Variant,
    /// A user variant from `--variant-file`, offered next to the built-in ones.
    custom: Option<&'static Variant>,
    game: Option<Game>,
    pub quit: bool,
    search: SearchThread,
    multipv: usize,
}

impl Uci {
    pub fn new(variant: &'static Variant, custom: Option<&'static Variant>) -> Uci {
        Uci {
            variant,
            custom,
            game: None,
            quit: false,
            search: SearchThread::new(Searcher::new(DEFAULT_HASH_MB)),
            multipv: 1,
        }
    }

    /// Where the search thread writes `info` and `bestmove` lines (stdout by default).
    pub fn set_search_output(&mut self, out: SharedOut) {
        self.search.set_output(out);
    }

    /// Waits until a running search has finished by itself (a `go infinite` search is stopped).
    pub fn wait(&mut self) {
        self.search.wait();
    }

    /// Whether a search is running.
    pub fn searching(&self) -> bool {
        self.search.running()
    }

    pub fn variant(&self) -> &'static Variant {
        self.variant
    }

    pub fn game(&self) -> Option<&Game> {
        self.game.as_ref()
    }

    fn variant_names(&self) -> Vec<String> {
        let mut names: Vec<String> = VariantId::ALL.iter().map(|v| v.name().to_string()).collect();
        if let Some(c) = self.custom
            && !names.contains(&c.name)
        {
            names.push(c.name.clone());
        }
        names
    }

    /// Handles one input line; returns false for lines this layer does not know (so a
    /// search layer can take `go`, `stop`, ...).
    pub fn handle(&mut self, line: &str, out: &mut dyn Write) -> std::io::Result<bool> {
        let mut tokens = line.split_whitespace();
        let Some(cmd) = tokens.next() else { return Ok(true) };
        let rest: Vec<&str> = tokens.collect();
        match cmd {
            "uci" => {
                writeln!(out, "id name kage {}", env!("CARGO_PKG_VERSION"))?;
                writeln!(out, "id author the kage developers")?;
                let names = self.variant_names();
                let vars: Vec<String> = names.iter().map(|n| format!("var {n}")).collect();
                writeln!(
                    out,
                    "option name UCI_Variant type combo default {} {}",
                    self.variant.name,
                    vars.join(" ")
                )?;
                writeln!(
                    out,
                    "option name Hash type spin default {DEFAULT_HASH_MB} min 1 max {MAX_HASH_MB}"
                )?;
                writeln!(out, "option name MultiPV type spin default 1 min 1 max 500")?;
                writeln!(out, "option name EvalFile type string default <empty>")?;
                writeln!(out, "uciok")?;
            }
            "isready" => writeln!(out, "readyok")?,
            "quit" => {
                self.search.stop();
                self.quit = true;
            }
            "stop" => self.search.stop(),
            "ucinewgame" => {
                self.search.stop();
                self.game = None;
                self.search.with_searcher(|s| s.clear());
            }
            "setoption" => {
                self.search.stop();
                self.setoption(&rest, out)?;
            }
            "position" => {
                self.search.stop();
                self.position(&rest, out)?;
            }
            "go" if rest.first() != Some(&"perft") => {
                self.search.stop();
                let limits = match parse_go(&rest, self.multipv) {
                    Ok(l) => l,
                    Err(e) => return writeln!(out, "info string error {e}").map(|_| true),
                };
                let game = match &self.game {
                    Some(g) => g.clone(),
                    None => {
                        writeln!(
                            out,
                            "info string error go before position: searching the start position"
                        )?;
                        Game::startpos(self.variant)
                    }
                };
                out.flush()?;
                self.search.start(game, limits);
            }
            "d" => match &self.game {
                Some(g) => {
                    write!(out, "{}", g.position().diagram())?;
                    writeln!(out, "Fen: {}", g.position().to_fen())?;
                }
                None => {
                    let p = Position::startpos(self.variant);
                    write!(out, "{}", p.diagram())?;
                    writeln!(out, "Fen: {}", p.to_fen())?;
                }
            },
            "go" if rest.first() == Some(&"perft") => {
                let depth = rest.get(1).and_then(|d| d.parse::<u32>().ok());
                match depth {
                    Some(d) => {
                        let pos = self.current();
                        write_divide(&pos, d, out)?;
                    }
                    None => writeln!(out, "info string error go perft needs a depth")?,
                }
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The current position (the start position before any `position` command).
    pub fn current(&self) -> Position {
        match &self.game {
            Some(g) => g.position().clone(),
            None => Position::startpos(self.variant),
        }
    }

    fn setoption(&mut self, args: &[&str], out: &mut dyn Write) -> std::io::Result<()> {
        // setoption name <id> [value <x>]
        let joined = args.join(" ");
        let Some(rest) = joined.strip_prefix("name ") else {
            return writeln!(out, "info string error malformed setoption");
        };
        let (name, value) = match rest.split_once(" value ") {
            Some((n, v)) => (n.trim(), v.trim()),
            None => (rest.trim(), ""),
        };
        if name.eq_ignore_ascii_case("UCI_Variant") {
            let chosen = match self.custom {
                Some(c) if c.name == value => Some(c),
                _ => Variant::by_name(value).ok(),
            };
            match chosen {
                Some(v) => {
                    self.variant = v;
                    self.game = None;
                }
                None => writeln!(out, "info string error unknown variant '{value}'")?,
            }
        } else if name.eq_ignore_ascii_case("Hash") {
            match value.parse::<usize>() {
                Ok(mb) if (1..=MAX_HASH_MB).contains(&mb) => {
                    self.search.with_searcher(|s| s.resize(mb));
                }
                _ => writeln!(out, "info string error Hash must be 1..={MAX_HASH_MB} (MB)")?,
            }
        } else if name.eq_ignore_ascii_case("MultiPV") {
            match value.parse::<usize>() {
                Ok(k) if (1..=500).contains(&k) => self.multipv = k,
                _ => writeln!(out, "info string error MultiPV must be 1..=500")?,
            }
        } else if name.eq_ignore_ascii_case("EvalFile") {
            match load_eval_file(value, self.variant) {
                Ok(ev) => {
                    let desc = ev.describe();
                    self.search.with_searcher(|s| s.set_evaluator(ev));
                    writeln!(out, "info string evaluation: {desc}")?;
                }
                Err(e) => writeln!(out, "info string error EvalFile: {e}")?,
            }
        } else {
            writeln!(out, "info string error unknown option '{name}'")?;
        }
        Ok(())
    }

    fn position(&mut self, args: &[&str], out: &mut dyn Write) -> std::io::Result<()> {
        let moves_at = args.iter().position(|&t| t == "moves");
        let (spec, moves) = match moves_at {
            Some(i) => (&args[..i], &args[i + 1..]),
            None => (args, &args[args.len()..]),
        };
        let start = match spec.first() {
            Some(&"startpos") if spec.len() == 1 => Ok(Position::startpos(self.variant)),
            Some(&"fen") if spec.len() > 1 => {
                Position::from_fen(self.variant, &spec[1..].join(" ")).map_err(|e| e.to_string())
            }
            _ => Err(format!("malformed position command '{}'", args.join(" "))),
        };
        let start = match start {
            Ok(p) => p,
            Err(e) => return writeln!(out, "info string error {e}"),
        };
        let mut game = Game::new(start);
        for m in moves {
            if let Err(e) = game.play_uci(m) {
                // Keep the position before the bad move, as most engines do, and say so.
                writeln!(out, "info string error {e}")?;
                break;
            }
        }
        self.game = Some(game);
        Ok(())
    }
}

/// `<move>: <count>` per root move, then `Nodes searched: <N>`.
pub fn write_divide(pos: &Position, depth: u32, out: &mut dyn Write) -> std::io::Result<()> {
    let mut total = 0;
    if depth == 0 {
        total = 1;
    } else {
        for (m, n) in perft::divide(pos, depth) {
            writeln!(out, "{m}: {n}")?;
            total += n;
        }
    }
    writeln!(out)?;
    writeln!(out, "Nodes searched: {total}")
}
