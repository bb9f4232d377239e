//! The UCI protocol: a line-oriented state machine writing replies to a sink, with searches
//! and `go perft` running on their own threads (so that `stop`, `isready` and `quit` are
//! read while they run).

mod go;
mod options;
mod stdio;
mod worker;

pub use go::{GoError, ScoreView, bestmove_line, info_line, parse_go};
pub use options::{DEFAULT_HASH_MB, EvalFileError, MAX_HASH_MB, MAX_MULTIPV, load_net};
pub use stdio::{MAX_LINE, read_line, run_stdio, run_stdio_session};
pub use worker::SharedOut;

use crate::game::Game;
use crate::perft;
use crate::position::Position;
use crate::variant::{Variant, VariantId};
use options::LoadedNet;
use std::io::Write;
use worker::Worker;

/// UCI session state.
pub struct Uci {
    variant: &'static Variant,
    /// The user variants from `--variant-file`, offered next to the built-in ones.
    custom: Vec<&'static Variant>,
    game: Option<Game>,
    /// Why the last `position` command was refused (then `go` refuses too).
    position_error: Option<String>,
    pub quit: bool,
    worker: Worker,
    multipv: usize,
    /// The network of the last good `EvalFile`.
    net: Option<LoadedNet>,
    /// Whether the fit of `net` to `variant` has been reported since either changed.
    eval_fit_said: bool,
    /// `Use NNUE`: false selects the hand-crafted evaluation whatever `EvalFile` says.
    use_nnue: bool,
    /// Whether a raw (unnormalised) score scale has been reported since the evaluation or the
    /// variant changed.
    scale_said: bool,
}

impl Uci {
    pub fn new(variant: &'static Variant, custom: Option<&'static Variant>) -> Uci {
        Uci::with_user_variants(variant, custom.into_iter().collect())
    }

    /// A session offering every variant of `custom` (e.g. each playable section of an FSF
    /// `variants.ini`) next to the built-in ones; a user variant wins over a built-in of the
    /// same name.
    pub fn with_user_variants(variant: &'static Variant, custom: Vec<&'static Variant>) -> Uci {
        Uci {
            variant,
            custom,
            game: None,
            position_error: None,
            quit: false,
            worker: Worker::new(DEFAULT_HASH_MB),
            multipv: 1,
            net: None,
            eval_fit_said: false,
            use_nnue: true,
            scale_said: false,
        }
    }

    /// Sets `Use NNUE` (false: the hand-crafted evaluation whatever `EvalFile` says).
    pub fn set_use_nnue(&mut self, on: bool) {
        self.use_nnue = on;
        self.apply_evaluator();
    }

    /// Where the search and perft threads write their lines (stdout by default).
    pub fn set_search_output(&mut self, out: SharedOut) {
        self.worker.set_output(out);
    }

    /// Waits until a running search or perft has finished by itself (a `go infinite` search
    /// is stopped).
    pub fn wait(&mut self) {
        self.worker.wait();
    }

    /// Whether a search or perft is running.
    pub fn searching(&self) -> bool {
        self.worker.busy()
    }

    pub fn variant(&self) -> &'static Variant {
        self.variant
    }

    pub fn game(&self) -> Option<&Game> {
        self.game.as_ref()
    }

    fn variant_names(&self) -> Vec<String> {
        let mut names: Vec<String> = VariantId::ALL.iter().map(|v| v.name().to_string()).collect();
        for c in &self.custom {
            if !names.contains(&c.name) {
                names.push(c.name.clone());
            }
        }
        names
    }

    /// Handles one input line; returns false for lines this layer does not know.
    pub fn handle(&mut self, line: &str, out: &mut dyn Write) -> std::io::Result<bool> {
        let mut tokens = line.split_whitespace();
        let Some(cmd) = tokens.next() else { return Ok(true) };
        let rest: Vec<&str> = tokens.collect();
        match cmd {
            "uci" => self.uci(out)?,
            "isready" => {
                self.report_eval_fit(out)?;
                writeln!(out, "readyok")?;
            }
            "quit" => {
                self.worker.stop();
                self.quit = true;
            }
            "stop" => self.worker.stop(),
            "ucinewgame" => {
                self.game = None;
                self.position_error = None;
                self.worker.searcher().clear();
            }
            "setoption" => {
                self.worker.stop();
                self.setoption(&rest, out)?;
            }
            "position" => {
                self.worker.stop();
                self.position(&rest, out)?;
            }
            "go" if rest.first() == Some(&"perft") => {
                self.worker.stop();
                match rest.get(1).and_then(|d| d.parse::<u32>().ok()) {
                    Some(d) if rest.len() == 2 => match self.go_position(out)? {
                        Some(game) => {
                            out.flush()?;
                            self.worker.perft(game.position().clone(), d);
                        }
                        None => writeln!(out, "info string error go perft: no position")?,
                    },
                    _ => writeln!(out, "info string error go perft needs a depth")?,
                }
            }
            "go" => {
                self.worker.stop();
                let limits = match parse_go(&rest, self.multipv) {
                    Ok(l) => l,
                    Err(e) => return writeln!(out, "info string error {e}").map(|_| true),
                };
                self.report_eval_fit(out)?;
                match self.go_position(out)? {
                    Some(game) => {
                        self.report_scale(&game, out)?;
                        out.flush()?;
                        self.worker.go(game, limits);
                    }
                    // A GUI waits for a `bestmove` after every `go`.
                    None => writeln!(out, "bestmove (none)")?,
                }
            }
            "d" => {
                if let Some(e) = &self.position_error {
                    writeln!(out, "info string error the last position was refused ({e})")?;
                }
                let pos = self.current();
                write!(out, "{}", pos.diagram())?;
                writeln!(out, "Fen: {}", pos.to_fen())?;
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    fn uci(&self, out: &mut dyn Write) -> std::io::Result<()> {
        writeln!(out, "id name kage {}", env!("CARGO_PKG_VERSION"))?;
        writeln!(out, "id author the kage developers")?;
        let vars: Vec<String> = self.variant_names().iter().map(|n| format!("var {n}")).collect();
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
        writeln!(out, "option name MultiPV type spin default 1 min 1 max {MAX_MULTIPV}")?;
        writeln!(out, "option name Use NNUE type check default true")?;
        writeln!(out, "option name EvalFile type string default <empty>")?;
        writeln!(out, "option name UCI_ShowWDL type check default false")?;
        writeln!(out, "uciok")
    }

    /// The game `go` searches: the last good `position`, or the start position when none was
    /// sent (said as an error). After a refused `position` there is none: `go` must not
    /// search a position the GUI did not mean.
    fn go_position(&self, out: &mut dyn Write) -> std::io::Result<Option<Game>> {
        if let Some(e) = &self.position_error {
            writeln!(
                out,
                "info string error no position to search: the last position command was \
                 refused ({e}); send a valid position"
            )?;
            return Ok(None);
        }
        Ok(Some(match &self.game {
            Some(g) => g.clone(),
            None => {
                writeln!(
                    out,
                    "info string error go before position: searching the start position"
                )?;
                Game::startpos(self.variant)
            }
        }))
    }

    /// The current position (the start position before any `position` command).
    pub fn current(&self) -> Position {
        match &self.game {
            Some(g) => g.position().clone(),
            None => Position::startpos(self.variant),
        }
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
                Position::from_fen(self.variant, &spec[1..].join(" "))
                    .map_err(|e| format!("bad FEN: {e}"))
            }
            _ => Err(format!("malformed position command '{}'", args.join(" "))),
        };
        let start = match start {
            Ok(p) => p,
            Err(e) => {
                writeln!(out, "info string error {e}")?;
                self.game = None;
                self.position_error = Some(e);
                return Ok(());
            }
        };
        self.position_error = None;
        let mut game = Game::new(start);
        for m in moves {
            if let Err(e) = game.play_uci(m) {
                // Keep the position before the bad move, as most engines do, and say so.
                writeln!(out, "info string error {e}: searching the position before it")?;
                break;
            }
        }
        self.game = Some(game);
        Ok(())
    }
}

/// `<move>: <count>` per root move, then `Nodes searched: <N>`.
pub fn write_divide(pos: &Position, depth: u32, out: &mut dyn Write) -> std::io::Result<()> {
    write_counts(&perft::divide(pos, depth), depth, out)
}

/// The lines of [`write_divide`] for counts already made.
fn write_counts(counts: &[(String, u64)], depth: u32, out: &mut dyn Write) -> std::io::Result<()> {
    for (m, n) in counts {
        writeln!(out, "{m}: {n}")?;
    }
    let total: u64 = if depth == 0 { 1 } else { counts.iter().map(|c| c.1).sum() };
    writeln!(out)?;
    writeln!(out, "Nodes searched: {total}")
}
