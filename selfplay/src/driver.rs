//! Plays a list of self-play games on the arena's scheduler ([`crate::arena::schedule`]), one
//! game per thread at a time, each thread with its own player. Finished games are handed to
//! the caller's thread in completion order, tagged with their slot; what a game contains
//! never depends on the threads.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use kage_engine::Variant;

use crate::arena::schedule::{self, Control, Event, Plan, StopMode, Work};
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

/// Player faults in a row (without a finished game between them) that stop a run.
pub const MAX_FAULTS_IN_ROW: u32 = 3;

/// Plays `slots` (in roughly that order) with `threads` workers. `on_game` runs on the
/// calling thread for every finished game, in completion order, with the slot's position
/// in `slots`; an error from it stops the run. A player that fails (an outside engine) is
/// restarted and replays its game, up to [`MAX_FAULTS_IN_ROW`] faults in a row. Setting
/// `stop` lets every group that has started finish and starts no other.
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
    let players = (0..threads).map(|_| factory()).collect::<Result<Vec<Box<dyn Player>>>>()?;
    let plan = Plan {
        slots: slots.len(),
        group: &|i| slots[i].group,
        stop,
        mode: StopMode::FinishGroups,
        name: "selfplay",
    };
    let work = |p: &mut Box<dyn Player>, i: usize, _: &AtomicBool| match play_game(
        cfg,
        variant,
        p.as_mut(),
        slots[i].game,
    ) {
        Ok(out) => Work::Done(out),
        Err(e @ SelfplayError::PlayerFault { .. }) => Work::Fault(e),
        Err(e) => Work::Fail(e),
    };
    // A failed player (an outside engine) is started afresh and plays the game again.
    let restart = |p: &mut Box<dyn Player>, e: &SelfplayError| {
        p.restart().map_err(|cause| SelfplayError::RestartFailed { fault: e.to_string(), cause })
    };
    let mut first_err: Option<SelfplayError> = None;
    let mut faults_in_row = 0;
    schedule::run(&plan, players, &work, &restart, &mut |ev| {
        let res = match ev {
            Event::Done(i, out) => {
                faults_in_row = 0;
                on_game(i, out)
            }
            Event::Fault(_, e) if faults_in_row + 1 < MAX_FAULTS_IN_ROW => {
                faults_in_row += 1;
                eprintln!("kage-selfplay: {e}; restarted, the game will be replayed");
                Ok(())
            }
            Event::Fault(_, e) | Event::Failed(e) => Err(e),
        };
        match res {
            Ok(()) => Control::Go,
            Err(e) => {
                first_err.get_or_insert(e);
                Control::Halt
            }
        }
    });
    match first_err {
        Some(e) => Err(e),
        None => Ok(()),
    }
}
