//! CPU time from Linux's `/proc`, so that benchmarks can report work per CPU second whatever
//! else the machine runs. Elsewhere these return `None`.

/// CPU seconds used by this process (user + system, all threads) from `/proc/self/stat`,
/// at the usual 100 clock ticks per second.
pub fn process_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (in parentheses, may contain spaces): utime and stime
    // are fields 14 and 15 of the whole line.
    let rest = stat.rsplit_once(')')?.1;
    let mut fields = rest.split_whitespace().skip(11);
    let utime: u64 = fields.next()?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some((utime + stime) as f64 / 100.0)
}

/// Seconds the calling thread has spent on a CPU (`/proc/thread-self/schedstat`).
pub fn thread_cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e9)
}

/// Wall time and CPU time since a start, for benchmarks.
#[derive(Clone, Copy, Debug)]
pub struct Stopwatch {
    wall: std::time::Instant,
    cpu: Option<f64>,
    cpu_of: fn() -> Option<f64>,
}

impl Stopwatch {
    /// Starts timing wall time and this process's CPU time ([`process_cpu_seconds`]).
    pub fn process() -> Self {
        Self::with(process_cpu_seconds)
    }

    /// Starts timing wall time and the calling thread's CPU time ([`thread_cpu_seconds`]).
    pub fn thread() -> Self {
        Self::with(thread_cpu_seconds)
    }

    fn with(cpu_of: fn() -> Option<f64>) -> Self {
        Stopwatch { cpu: cpu_of(), wall: std::time::Instant::now(), cpu_of }
    }

    /// Wall seconds so far.
    pub fn wall_seconds(&self) -> f64 {
        self.wall.elapsed().as_secs_f64()
    }

    /// CPU seconds so far, if this platform tells.
    pub fn cpu_seconds(&self) -> Option<f64> {
        Some((self.cpu_of)()? - self.cpu?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_time_grows_with_work_on_linux() {
        if !cfg!(target_os = "linux") {
            return;
        }
        let (p0, t0) =
            (process_cpu_seconds().expect("proc"), thread_cpu_seconds().expect("thread"));
        let mut x = 1u64;
        let start = std::time::Instant::now();
        while start.elapsed().as_millis() < 30 {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
        let (p1, t1) =
            (process_cpu_seconds().expect("proc"), thread_cpu_seconds().expect("thread"));
        assert!(p1 >= p0 && t1 > t0, "{p0} {p1} {t0} {t1}");
        let w = Stopwatch::thread();
        let start = std::time::Instant::now();
        while start.elapsed().as_millis() < 20 {
            x = std::hint::black_box(x.wrapping_add(1));
        }
        let cpu = w.cpu_seconds().expect("thread cpu");
        assert!(cpu > 0.0 && cpu <= w.wall_seconds() + 0.01, "{cpu}");
    }
}
