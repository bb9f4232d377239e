//! The Ctrl-C (or SIGTERM, e.g. Slurm preemption) handler of the long-running commands.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use anyhow::{Context, Result};

/// Installs the handler: the first interrupt sets the returned flag and says `what_next`
/// (what the command does before it stops); the second exits at once (code 130; finished
/// work is on disk either way and rerunning the same command resumes).
pub fn install(what_next: &'static str) -> Result<Arc<AtomicBool>> {
    let stop = Arc::new(AtomicBool::new(false));
    let hits = AtomicU32::new(0);
    let flag = stop.clone();
    ctrlc::set_handler(move || {
        if hits.fetch_add(1, Ordering::SeqCst) == 0 {
            flag.store(true, Ordering::SeqCst);
            eprintln!("\nkage-selfplay: interrupted; {what_next} (Ctrl-C again to quit at once)");
        } else {
            eprintln!("\nkage-selfplay: aborted; rerun the same command to resume");
            std::process::exit(130);
        }
    })
    .context("installing the Ctrl-C handler")?;
    Ok(stop)
}
