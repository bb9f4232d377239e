//! The one scheduler of self-play, matches and audits: ordered slots played by worker
//! threads, each with its own state (its players), results handed to the calling thread in
//! completion order; a stop flag, a halt from the caller, and a restart after a fault (the
//! slot is then played again). What a slot's work produces never depends on the threads.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{RecvTimeoutError, channel};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// What setting the stop flag does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopMode {
    /// Every group that has started is finished; no other starts (self-play batches).
    FinishGroups,
    /// Halts at once: the work in flight sees the halt flag, no slot starts (matches).
    Halt,
}

/// The slots to play and how to stop.
pub struct Plan<'a> {
    /// How many slots (played in roughly their order).
    pub slots: usize,
    /// The group of a slot (see [`StopMode::FinishGroups`]).
    pub group: &'a (dyn Fn(usize) -> u64 + Sync),
    /// Set from outside to stop.
    pub stop: &'a AtomicBool,
    /// What the stop flag does.
    pub mode: StopMode,
    /// Worker thread names: this, a dash and the worker's number.
    pub name: &'a str,
}

/// What the work of one slot came to.
pub enum Work<T, E> {
    /// Done.
    Done(T),
    /// A fault (a player crashed or hung): the worker restarts its state and plays the slot
    /// again.
    Fault(E),
    /// A failure that ends the worker (and, by the caller's halt, the run).
    Fail(E),
    /// The halt flag was seen: the slot is left unplayed.
    Stopped,
}

/// What the calling thread is told.
pub enum Event<T, E> {
    /// Slot `.0` is done.
    Done(usize, T),
    /// A fault in a slot; the worker restarted and plays the slot again.
    Fault(usize, E),
    /// A failure (of a slot, or of a restart after a fault): that worker has ended.
    Failed(E),
}

/// The caller's answer to an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Control {
    /// Go on.
    Go,
    /// Start no more slots; work in flight sees the halt flag.
    Halt,
}

/// The shared state of the workers.
struct Queue<'a> {
    plan: &'a Plan<'a>,
    next: AtomicUsize,
    halt: AtomicBool,
    started: Mutex<std::collections::HashSet<u64>>,
}

impl Queue<'_> {
    /// The next slot to play, if any.
    fn take(&self) -> Option<usize> {
        loop {
            if self.halt.load(Ordering::SeqCst) {
                return None;
            }
            let i = self.next.fetch_add(1, Ordering::Relaxed);
            if i >= self.plan.slots {
                return None;
            }
            if self.plan.mode == StopMode::Halt {
                return Some(i);
            }
            let group = (self.plan.group)(i);
            let mut st = self.started.lock().unwrap_or_else(PoisonError::into_inner);
            if self.plan.stop.load(Ordering::SeqCst) && !st.contains(&group) {
                // Leave it: every later slot is in a later group or in one that was started
                // (those are taken by other workers).
                continue;
            }
            st.insert(group);
            return Some(i);
        }
    }
}

/// Plays `plan`'s slots with one thread per worker state in `workers`: `work` plays a slot
/// (seeing the halt flag), `restart` renews a state after a fault, `on_event` runs on the
/// calling thread for every event. Returns the workers' lifetimes, summed.
pub fn run<S, T, E>(
    plan: &Plan,
    workers: Vec<S>,
    work: &(dyn Fn(&mut S, usize, &AtomicBool) -> Work<T, E> + Sync),
    restart: &(dyn Fn(&mut S, &E) -> Result<(), E> + Sync),
    on_event: &mut dyn FnMut(Event<T, E>) -> Control,
) -> Duration
where
    S: Send,
    T: Send,
    E: Send,
{
    if plan.slots == 0 || workers.is_empty() {
        return Duration::ZERO;
    }
    let q = Queue {
        plan,
        next: AtomicUsize::new(0),
        halt: AtomicBool::new(false),
        started: Mutex::new(Default::default()),
    };
    let (tx, rx) = channel::<Result<Event<T, E>, Duration>>();
    let mut lifetimes = Duration::ZERO;
    std::thread::scope(|scope| {
        let mut running = 0;
        for (k, mut state) in workers.into_iter().enumerate() {
            let (tx, q) = (tx.clone(), &q);
            let body = move || {
                let t0 = Instant::now();
                worker(q, &mut state, work, restart, &|e| tx.send(Ok(e)).is_ok());
                let _ = tx.send(Err(t0.elapsed()));
            };
            let spawned = std::thread::Builder::new()
                .name(format!("{}-{k}", plan.name))
                .spawn_scoped(scope, body);
            // A thread that cannot start leaves its slots to the others.
            running += usize::from(spawned.is_ok());
        }
        drop(tx);
        while running > 0 {
            if plan.mode == StopMode::Halt && plan.stop.load(Ordering::Relaxed) {
                q.halt.store(true, Ordering::SeqCst);
            }
            let ev = match rx.recv_timeout(Duration::from_millis(100)) {
                Ok(Ok(ev)) => ev,
                Ok(Err(life)) => {
                    lifetimes += life;
                    running -= 1;
                    continue;
                }
                Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => break,
            };
            if on_event(ev) == Control::Halt {
                q.halt.store(true, Ordering::SeqCst);
            }
        }
    });
    lifetimes
}

/// One worker: slots until none is left, the halt, or a failure.
fn worker<S, T, E>(
    q: &Queue,
    state: &mut S,
    work: &(dyn Fn(&mut S, usize, &AtomicBool) -> Work<T, E> + Sync),
    restart: &(dyn Fn(&mut S, &E) -> Result<(), E> + Sync),
    send: &dyn Fn(Event<T, E>) -> bool,
) {
    while let Some(i) = q.take() {
        loop {
            match work(state, i, &q.halt) {
                Work::Done(t) => {
                    if !send(Event::Done(i, t)) {
                        return;
                    }
                    break;
                }
                Work::Stopped => return,
                Work::Fail(e) => {
                    send(Event::Failed(e));
                    return;
                }
                Work::Fault(e) => {
                    let renewed = restart(state, &e);
                    if !send(Event::Fault(i, e)) {
                        return;
                    }
                    if let Err(e) = renewed {
                        send(Event::Failed(e));
                        return;
                    }
                    if q.halt.load(Ordering::SeqCst) {
                        return;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan<'a>(slots: usize, stop: &'a AtomicBool, mode: StopMode) -> Plan<'a> {
        Plan { slots, group: &|i| (i / 3) as u64, stop, mode, name: "test" }
    }

    #[test]
    fn every_slot_once_and_faults_replay_the_slot() {
        let stop = AtomicBool::new(false);
        let p = plan(20, &stop, StopMode::FinishGroups);
        // Worker state: faults still to throw.
        let work = |s: &mut u32, i: usize, _: &AtomicBool| {
            if i % 7 == 3 && *s > 0 {
                *s -= 1;
                Work::Fault(i)
            } else {
                Work::Done(i * 2)
            }
        };
        let (mut done, mut faults) = (vec![0; 20], 0);
        run(&p, vec![5u32, 5], &work, &|_, _| Ok(()), &mut |e| {
            match e {
                Event::Done(i, t) => {
                    assert_eq!(t, 2 * i);
                    done[i] += 1;
                }
                Event::Fault(..) => faults += 1,
                Event::Failed(_) => panic!("no failure"),
            }
            Control::Go
        });
        assert!(done.iter().all(|&n| n == 1), "{done:?}");
        assert!(faults > 0);
    }

    #[test]
    fn stop_finishes_started_groups_and_halt_stops() {
        let stop = AtomicBool::new(false);
        let p = plan(30, &stop, StopMode::FinishGroups);
        let mut done = Vec::new();
        let slow = |_: &mut (), i: usize, _: &AtomicBool| {
            std::thread::sleep(Duration::from_millis(20));
            Work::<usize, ()>::Done(i)
        };
        run(&p, vec![(); 2], &slow, &|_, _| Ok(()), &mut |e| {
            if let Event::Done(i, _) = e {
                done.push(i);
                stop.store(true, Ordering::SeqCst);
            }
            Control::Go
        });
        let groups: std::collections::BTreeSet<usize> = done.iter().map(|i| i / 3).collect();
        for g in &groups {
            assert!((0..3).all(|k| done.contains(&(g * 3 + k))), "group {g} finished: {done:?}");
        }
        assert!(done.len() < 30);
        let stop = AtomicBool::new(false);
        let p = plan(30, &stop, StopMode::Halt);
        let mut n = 0;
        let restart = |_: &mut (), _: &u8| Err(9u8);
        let failed = std::cell::Cell::new(false);
        run(&p, vec![()], &|_, _, _| Work::<(), u8>::Fault(1), &restart, &mut |e| {
            n += 1;
            failed.set(failed.get() || matches!(e, Event::Failed(9)));
            Control::Halt
        });
        assert!(failed.get() && n == 2, "a fault, then the failed restart");
    }
}
