//! Running a search on its own thread for the UCI loop: `go` starts it, `stop` ends it, the
//! thread writes `info` and `bestmove` lines to a shared output.

use super::{Limits, SearchInfo, Searcher, mate_in_moves};
use crate::eval::Evaluator;
use crate::game::Game;
use crate::variant::Variant;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// Output shared between the UCI loop and the search thread.
pub type SharedOut = Arc<Mutex<dyn Write + Send>>;

/// The searcher, idle or lent to a running search thread.
pub struct SearchThread {
    searcher: Option<Searcher>,
    running: Option<(JoinHandle<Searcher>, Arc<AtomicBool>, bool)>,
    out: SharedOut,
}

impl SearchThread {
    pub fn new(searcher: Searcher) -> SearchThread {
        SearchThread {
            searcher: Some(searcher),
            running: None,
            out: Arc::new(Mutex::new(std::io::stdout())),
        }
    }

    pub fn set_output(&mut self, out: SharedOut) {
        self.out = out;
    }

    pub fn running(&self) -> bool {
        self.running.as_ref().is_some_and(|(h, _, _)| !h.is_finished())
    }

    /// Runs `f` on the idle searcher (stops a running search first).
    pub fn with_searcher(&mut self, f: impl FnOnce(&mut Searcher)) {
        self.stop();
        if let Some(s) = self.searcher.as_mut() {
            f(s);
        }
    }

    /// Starts searching `game` (a running search is stopped first).
    pub fn start(&mut self, game: Game, limits: Limits) {
        self.stop();
        let Some(mut searcher) = self.searcher.take() else { return };
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let out = Arc::clone(&self.out);
        let infinite = limits.infinite;
        let handle = std::thread::spawn(move || {
            let pos = game.position().clone();
            let multi = limits.multipv > 1;
            let mut on_info = |i: &SearchInfo| {
                let line = info_line(i, &pos, multi);
                write_line(&out, &line);
            };
            let r = searcher.search(&game, &limits, &flag, &mut on_info);
            // `go infinite` (and ponder-like use) must not answer before `stop`.
            if infinite {
                while !flag.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(1));
                }
            }
            let best = if r.best_move.is_null() {
                "(none)".to_string()
            } else {
                pos.move_to_uci(r.best_move)
            };
            let ponder = r.pv.get(1).map(|&m| {
                let mut p = pos.clone();
                p.play(r.best_move);
                format!(" ponder {}", p.move_to_uci(m))
            });
            write_line(&out, &format!("bestmove {best}{}", ponder.unwrap_or_default()));
            searcher
        });
        self.running = Some((handle, stop, infinite));
    }

    /// Stops a running search and waits for its `bestmove`.
    pub fn stop(&mut self) {
        if let Some((_, flag, _)) = &self.running {
            flag.store(true, Ordering::Relaxed);
        }
        self.join();
    }

    /// Waits for a running search to end by itself (an infinite one is stopped).
    pub fn wait(&mut self) {
        if let Some((_, flag, true)) = &self.running {
            flag.store(true, Ordering::Relaxed);
        }
        self.join();
    }

    fn join(&mut self) {
        if let Some((h, _, _)) = self.running.take() {
            match h.join() {
                Ok(s) => self.searcher = Some(s),
                Err(_) => {
                    write_line(&self.out, "info string error the search thread panicked");
                    self.searcher = Some(Searcher::new(crate::protocol::uci::DEFAULT_HASH_MB));
                }
            }
        }
    }
}

impl Drop for SearchThread {
    fn drop(&mut self) {
        self.wait();
    }
}

fn write_line(out: &SharedOut, line: &str) {
    if let Ok(mut o) = out.lock() {
        let _ = writeln!(o, "{line}");
        let _ = o.flush();
    }
}

/// `info depth .. seldepth .. [multipv k] score cp|mate .. nodes .. nps .. time .. pv ..`.
pub fn info_line(i: &SearchInfo, pos: &crate::position::Position, multi: bool) -> String {
    let score = match mate_in_moves(i.score) {
        Some(n) => format!("mate {n}"),
        None => format!("cp {}", i.score),
    };
    let mut s = format!("info depth {} seldepth {}", i.depth, i.seldepth);
    if multi {
        s += &format!(" multipv {}", i.multipv);
    }
    s += &format!(" score {score} nodes {} nps {} time {} pv", i.nodes, i.nps, i.time_ms);
    let mut p = pos.clone();
    for &m in &i.pv {
        if !p.is_legal(m) {
            break;
        }
        s.push(' ');
        s += &p.move_to_uci(m);
        p.play(m);
    }
    s
}

/// Parses the arguments of `go` (everything but `perft`).
pub fn parse_go(args: &[&str], multipv: usize) -> Result<Limits, String> {
    let mut l = Limits { multipv, ..Limits::default() };
    let mut it = args.iter();
    while let Some(&tok) = it.next() {
        let mut num = |name: &str| -> Result<u64, String> {
            let v = it.next().ok_or_else(|| format!("go {name} needs a value"))?;
            // Negative clock values (some GUIs send them) count as zero.
            if let Some(neg) = v.strip_prefix('-') {
                return neg.parse::<u64>().map(|_| 0).map_err(|_| format!("bad go {name} '{v}'"));
            }
            v.parse::<u64>().map_err(|_| format!("bad go {name} '{v}'"))
        };
        match tok {
            "depth" => l.depth = Some(num("depth")?.clamp(1, 1000) as u32),
            "nodes" => l.nodes = Some(num("nodes")?.max(1)),
            "movetime" => l.movetime_ms = Some(num("movetime")?),
            "wtime" => l.wtime = Some(num("wtime")?),
            "btime" => l.btime = Some(num("btime")?),
            "winc" => l.winc = Some(num("winc")?),
            "binc" => l.binc = Some(num("binc")?),
            "movestogo" => l.movestogo = Some(num("movestogo")?.min(10_000) as u32),
            "infinite" => l.infinite = true,
            "ponder" => {}
            other => return Err(format!("unknown go argument '{other}'")),
        }
    }
    Ok(l)
}

/// Loads an evaluation for `EvalFile` (an empty value or `<empty>` selects the hand-crafted
/// one); the network must fit `variant`.
pub fn load_eval_file(path: &str, variant: &'static Variant) -> Result<Evaluator, String> {
    if path.is_empty() || path == "<empty>" {
        return Ok(Evaluator::HandCrafted);
    }
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read '{path}': {e}"))?;
    Evaluator::load_nnue(&bytes, variant).map_err(|e| format!("'{path}': {e}"))
}
