//! What the two time-boxed fuzz runs share (`engine/tests/fuzz.rs` and `data/tests/fuzz.rs`,
//! which includes this file by path): the time budget of a target and a counting global
//! allocator. Including this module installs the allocator; [`largest_allocation`] reads it.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::time::Duration;

/// The time budget of one target: `KAGE_FUZZ_SECS` seconds (default 3).
pub fn budget() -> Duration {
    let secs = std::env::var("KAGE_FUZZ_SECS").ok().and_then(|s| s.parse::<f64>().ok());
    Duration::from_secs_f64(secs.unwrap_or(3.0).clamp(0.0, 3600.0))
}

/// The global allocator: the system's, noting the largest single allocation made on a thread
/// while [`largest_allocation`] runs there.
struct Counting;

thread_local! {
    static TRACK: Cell<bool> = const { Cell::new(false) };
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

fn note(size: usize) {
    let _ = TRACK.try_with(|t| {
        if t.get() {
            let _ = LARGEST.try_with(|m| m.set(m.get().max(size)));
        }
    });
}

// SAFETY: every call is forwarded to the system allocator unchanged; the bookkeeping only
// touches const-initialised thread-locals, which never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: `layout` comes with `GlobalAlloc::alloc`'s contract (non-zero size), which is
        // the system allocator's; it is passed on unchanged.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: as in `alloc`: the caller's contract is `System`'s, the layout is unchanged.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by this allocator, which is `System` (every allocation
        // above is forwarded to it), with this `layout`, as `dealloc`'s contract requires.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size);
        // SAFETY: `ptr` came from `System` with `layout` (as in `dealloc`), and `new_size` meets
        // `realloc`'s contract, which the caller upholds; all are passed on unchanged.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Runs `f` and returns its result and the largest single allocation it made on this thread.
pub fn largest_allocation<T>(f: impl FnOnce() -> T) -> (T, usize) {
    LARGEST.with(|m| m.set(0));
    TRACK.with(|t| t.set(true));
    let out = f();
    TRACK.with(|t| t.set(false));
    (out, LARGEST.with(Cell::get))
}
