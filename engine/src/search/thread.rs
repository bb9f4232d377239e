//! Running a search on its own thread: `start` lends the searcher to a thread, `stop` ends the
//! search early, `wait` lets it finish. What the iterations report and what becomes of the
//! result is up to the caller (the UCI layer writes `info` and `bestmove` lines).

use super::{Limits, SearchInfo, SearchResult, Searcher};
use crate::game::Game;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

/// Called after every completed iteration, on the search thread.
pub type OnInfo = Box<dyn FnMut(&SearchInfo) + Send>;
/// Called once with the result, on the search thread.
pub type OnDone = Box<dyn FnOnce(&SearchResult) + Send>;

struct Running {
    handle: JoinHandle<Searcher>,
    stop: Arc<AtomicBool>,
    /// An infinite search reports its result only after `stop`.
    infinite: bool,
}

/// The searcher, idle or lent to a running search thread.
pub struct SearchThread {
    searcher: Option<Searcher>,
    running: Option<Running>,
}

impl SearchThread {
    pub fn new(searcher: Searcher) -> SearchThread {
        SearchThread { searcher: Some(searcher), running: None }
    }

    /// Whether a search is running.
    pub fn running(&self) -> bool {
        self.running.as_ref().is_some_and(|r| !r.handle.is_finished())
    }

    /// The idle searcher (a running search is stopped first); `None` when the last search
    /// thread panicked and took it along (see [`SearchThread::replace`]).
    pub fn searcher(&mut self) -> Option<&mut Searcher> {
        self.stop();
        self.searcher.as_mut()
    }

    /// Installs a new searcher (a running search is stopped first).
    pub fn replace(&mut self, searcher: Searcher) {
        self.stop();
        self.searcher = Some(searcher);
    }

    /// Starts searching `game` (a running search is stopped first). Returns false, starting
    /// nothing, when there is no searcher (the last search thread panicked).
    pub fn start(
        &mut self,
        game: Game,
        limits: Limits,
        mut on_info: OnInfo,
        on_done: OnDone,
    ) -> bool {
        self.stop();
        let Some(mut searcher) = self.searcher.take() else { return false };
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let infinite = limits.infinite;
        let handle = std::thread::spawn(move || {
            let r = searcher.search(&game, &limits, &flag, &mut *on_info);
            // `go infinite` (and ponder-like use) must not answer before `stop`.
            if infinite {
                while !flag.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(1));
                }
            }
            on_done(&r);
            searcher
        });
        self.running = Some(Running { handle, stop, infinite });
        true
    }

    /// Stops a running search and waits for its result to be reported. Returns false when
    /// the search thread panicked (the searcher is lost with it).
    pub fn stop(&mut self) -> bool {
        if let Some(r) = &self.running {
            r.stop.store(true, Ordering::Relaxed);
        }
        self.join()
    }

    /// Waits for a running search to end by itself (an infinite one is stopped). Returns
    /// false when the search thread panicked.
    pub fn wait(&mut self) -> bool {
        if let Some(r) = &self.running
            && r.infinite
        {
            r.stop.store(true, Ordering::Relaxed);
        }
        self.join()
    }

    fn join(&mut self) -> bool {
        match self.running.take() {
            Some(r) => match r.handle.join() {
                Ok(s) => {
                    self.searcher = Some(s);
                    true
                }
                Err(_) => false,
            },
            None => true,
        }
    }
}

impl Drop for SearchThread {
    fn drop(&mut self) {
        self.stop();
    }
}
