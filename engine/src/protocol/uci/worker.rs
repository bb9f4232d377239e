//! The work the UCI loop starts and must be able to stop: a search (on a
//! [`SearchThread`]) or a `go perft`, each writing its lines to the shared output while the
//! loop goes on reading `stop`, `isready` and `quit`.

use super::go::{ScoreView, bestmove_line, info_line};
use crate::eval::Evaluator;
use crate::game::Game;
use crate::position::Position;
use crate::search::thread::SearchThread;
use crate::search::{Limits, Searcher};
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// Output shared between the UCI loop and the threads it starts.
pub type SharedOut = Arc<Mutex<dyn Write + Send>>;

/// Writes one line and flushes (errors are dropped: a closed output ends the loop anyway).
pub(super) fn write_line(out: &SharedOut, line: &str) {
    if let Ok(mut o) = out.lock() {
        let _ = writeln!(o, "{line}");
        let _ = o.flush();
    }
}

struct PerftJob {
    handle: JoinHandle<()>,
    stop: Arc<AtomicBool>,
}

/// The searcher's settings (hash, evaluation) and whatever runs in the background.
pub struct Worker {
    search: SearchThread,
    perft: Option<PerftJob>,
    out: SharedOut,
    hash_mb: usize,
    evaluator: Evaluator,
    /// `UCI_ShowWDL`.
    show_wdl: bool,
}

impl Worker {
    pub fn new(hash_mb: usize) -> Worker {
        Worker {
            search: SearchThread::new(Searcher::new(hash_mb)),
            perft: None,
            out: Arc::new(Mutex::new(std::io::stdout())),
            hash_mb,
            evaluator: Evaluator::Default,
            show_wdl: false,
        }
    }

    pub fn set_output(&mut self, out: SharedOut) {
        self.out = out;
    }

    pub fn busy(&self) -> bool {
        self.search.running() || self.perft.as_ref().is_some_and(|p| !p.handle.is_finished())
    }

    /// Stops a search or perft and waits until it has written its last line.
    pub fn stop(&mut self) {
        if let Some(p) = self.perft.take() {
            p.stop.store(true, Ordering::Relaxed);
            let _ = p.handle.join();
        }
        if !self.search.stop() {
            self.recover();
        }
    }

    /// Waits for a search or perft to end by itself (an infinite search is stopped).
    pub fn wait(&mut self) {
        if let Some(p) = self.perft.take() {
            let _ = p.handle.join();
        }
        if !self.search.wait() {
            self.recover();
        }
    }

    /// After a search thread panicked: a fresh searcher with the same settings.
    fn recover(&mut self) {
        write_line(&self.out, "info string error the search thread panicked");
        let mut s = Searcher::new(self.hash_mb);
        s.set_evaluator(self.evaluator.clone());
        self.search.replace(s);
    }

    /// The idle searcher (anything running is stopped first).
    pub fn searcher(&mut self) -> &mut Searcher {
        self.stop();
        if self.search.searcher().is_none() {
            self.recover();
        }
        self.search.searcher().expect("a searcher was just installed")
    }

    /// Resizes the hash; returns the megabytes the table got.
    pub fn set_hash(&mut self, mb: usize) -> usize {
        self.hash_mb = mb;
        let got = self.searcher().resize(mb);
        self.hash_mb = got.max(1);
        got
    }

    pub fn set_evaluator(&mut self, evaluator: Evaluator) {
        self.evaluator = evaluator.clone();
        self.searcher().set_evaluator(evaluator);
    }

    pub fn set_show_wdl(&mut self, on: bool) {
        self.show_wdl = on;
    }

    /// How scores of `game`'s search are shown.
    pub fn score_view(&self, game: &Game) -> ScoreView {
        ScoreView { model: self.evaluator.wdl_for(game.variant()), show_wdl: self.show_wdl }
    }

    /// Starts searching `game`; the thread writes `info` lines and `bestmove`.
    pub fn go(&mut self, game: Game, limits: Limits) {
        self.searcher(); // stops what runs, and recovers a lost searcher
        let pos = game.position().clone();
        let multi = limits.multipv > 1;
        let view = self.score_view(&game);
        let (out_info, out_done) = (Arc::clone(&self.out), Arc::clone(&self.out));
        let pos_done = pos.clone();
        let started = self.search.start(
            game,
            limits,
            Box::new(move |i| write_line(&out_info, &info_line(i, &pos, multi, view))),
            Box::new(move |r| write_line(&out_done, &bestmove_line(r, &pos_done))),
        );
        if !started {
            write_line(&self.out, "info string error no searcher");
            write_line(&self.out, "bestmove (none)");
        }
    }

    /// Starts `go perft <depth>` on its own thread: `<move>: <count>` lines, then the total.
    pub fn perft(&mut self, pos: Position, depth: u32) {
        self.stop();
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let out = Arc::clone(&self.out);
        let handle =
            std::thread::spawn(move || match crate::perft::divide_until(&pos, depth, &flag) {
                Some(counts) => {
                    let mut text = Vec::new();
                    let _ = super::write_counts(&counts, depth, &mut text);
                    let text = String::from_utf8_lossy(&text);
                    write_line(&out, text.trim_end_matches('\n'));
                }
                None => write_line(&out, "info string perft stopped"),
            });
        self.perft = Some(PerftJob { handle, stop });
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.stop();
    }
}
