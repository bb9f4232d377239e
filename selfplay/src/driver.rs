//! Plays a list of games on a rayon pool, one game per thread at a time, each thread with its
//! own player. Finished games are handed to the caller's thread in completion order, tagged
//! with their slot; what a game contains never depends on the pool.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};

use kage_engine::Variant;

use crate::config::GenConfig;
use crate::error::{Result, SelfplayError};
use crate::play::{GameOutput, play_game};
use crate::player::Player;

/// Makes one player per worker thread.
pub type PlayerFactory = Arc<dyn Fn() -> Result<Box<dyn Player>> + Send + Sync>;

/// One game to play: its global index and the group (batch) it belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    /// Global game index.
    pub game: u64,
    /// Group id; once the stop flag is set, games of groups not yet started are skipped,
    /// so every started group is finished.
    pub group: u64,
}

/// Plays `slots` (in roughly that order) with `threads` workers. `on_game` runs on the
/// calling thread for every finished game, in completion order, with the slot's position
/// in `slots`; an error from it stops the run. Setting `stop` lets every group that has
/// started finish and starts no other.
pub fn play_games(
    cfg: &GenConfig,
    variant: &'static Variant,
    slots: &[Slot],
    threads: usize,
    factory: &PlayerFactory,
    stop: &AtomicBool,
    on_game: &mut dyn FnMut(usize, GameOutput) -> Result<()>,
) -> Result<()> {
    if slots.is_empty() {
        return Ok(());
    }
    let threads = threads.clamp(1, slots.len());
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("selfplay-{i}"))
        .build()
        .map_err(|e| SelfplayError::Config(format!("cannot start {threads} threads: {e}")))?;
    let next = AtomicUsize::new(0);
    let abort = AtomicBool::new(false);
    let started: Mutex<std::collections::HashSet<u64>> = Mutex::new(Default::default());
    let (tx, rx) = mpsc::channel::<(usize, Result<GameOutput>)>();
    let mut first_err: Option<SelfplayError> = None;
    pool.in_place_scope(|s| {
        for _ in 0..threads {
            let tx = tx.clone();
            let (next, abort, started, stop) = (&next, &abort, &started, stop);
            s.spawn(move |_| {
                let mut player = match factory() {
                    Ok(p) => p,
                    Err(e) => {
                        let _ = tx.send((usize::MAX, Err(e)));
                        return;
                    }
                };
                loop {
                    if abort.load(Ordering::Relaxed) {
                        return;
                    }
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(slot) = slots.get(i) else { return };
                    {
                        let mut st = started.lock().unwrap_or_else(|p| p.into_inner());
                        if stop.load(Ordering::SeqCst) && !st.contains(&slot.group) {
                            // Leave the rest: every later slot is in a later group or in
                            // one that was started (those are taken by other workers).
                            continue;
                        }
                        st.insert(slot.group);
                    }
                    let out = play_game(cfg, variant, player.as_mut(), slot.game);
                    let failed = out.is_err();
                    if tx.send((i, out)).is_err() || failed {
                        return;
                    }
                }
            });
        }
        drop(tx);
        for (i, out) in rx.iter() {
            let res = out.and_then(|o| on_game(i, o));
            if let Err(e) = res {
                abort.store(true, Ordering::Relaxed);
                first_err.get_or_insert(e);
            }
        }
    });
    match first_err {
        Some(e) => Err(e),
        None => Ok(()),
    }
}
