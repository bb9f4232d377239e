//! An outside engine speaking UCI: a child process, a reader thread turning its output into
//! lines on a channel (so every wait has a deadline), the handshake that checks it knows the
//! variant, and one search per `go`.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::engine::{Reply, Score};

/// How to start an outside engine.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UciSpec {
    /// The command (a path or a name on PATH).
    pub cmd: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Working directory (default: the current one).
    pub dir: Option<PathBuf>,
    /// `setoption` lines sent after `uci`, in order.
    pub options: Vec<(String, String)>,
}

/// What went wrong with an outside engine.
#[derive(Debug, thiserror::Error)]
pub enum UciError {
    /// The process could not be started.
    #[error("cannot start {cmd:?}: {err}")]
    Spawn {
        /// The command.
        cmd: String,
        /// Why.
        err: std::io::Error,
    },
    /// Its output ended (it exited or crashed).
    #[error("the engine exited ({0})")]
    Exited(String),
    /// It did not answer in time.
    #[error("no {what} within {ms} ms")]
    Timeout {
        /// What was awaited (`uciok`, `bestmove`, ...).
        what: &'static str,
        /// How long (ms).
        ms: u64,
    },
    /// The built-in search did not reach its depth within the hang time.
    #[error("the built-in search did not reach depth {depth} within {ms} ms (--hang-ms)")]
    DepthNotReached {
        /// The depth asked for.
        depth: u32,
        /// The hang time (ms).
        ms: u64,
    },
    /// It wrote a line longer than [`MAX_LINE`].
    #[error("the engine wrote a line longer than {max} bytes (not UCI output)")]
    LineTooLong {
        /// The cap.
        max: usize,
    },
    /// Writing to it failed.
    #[error("cannot write to the engine: {0}")]
    Write(std::io::Error),
    /// It was given a net (`EvalFile`) and searches without it.
    #[error(
        "the engine ignores EvalFile {file:?}: it said \"classical evaluation enabled\" \
         (Fairy-Stockfish loads a net only when its file name starts with the variant's name, \
         as in minishogi-<sha12>.nnue)"
    )]
    NetIgnored {
        /// The `EvalFile` value.
        file: String,
    },
    /// It does not play the variant.
    #[error("the engine does not know variant {variant:?}{detail}")]
    UnknownVariant {
        /// The variant asked for.
        variant: String,
        /// What the engine offers instead, if it said.
        detail: String,
    },
}

/// The longest line an engine may write (bytes, its end not counted); a longer one is a
/// fault, and nothing more of its output is read (the memory it takes stays bounded).
pub const MAX_LINE: usize = 64 * 1024;

/// A line longer than [`MAX_LINE`].
#[derive(Debug)]
pub struct TooLong;

/// The next line of `r` without its end (`\n` or `\r\n`), decoded lossily (an engine's
/// Latin-1 `id author` is not an error); `Err` once a line passes `max` bytes, `None` at the
/// end of the output.
pub fn next_line(r: &mut impl BufRead, max: usize) -> Option<Result<String, TooLong>> {
    let mut line = Vec::new();
    loop {
        let buf = match r.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return None,
        };
        if buf.is_empty() {
            return (!line.is_empty()).then(|| Ok(String::from_utf8_lossy(&line).into_owned()));
        }
        let (take, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (buf.len(), false),
        };
        line.extend_from_slice(&buf[..take]);
        r.consume(take);
        if done {
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
        }
        if line.len() > max {
            return Some(Err(TooLong));
        }
        if done {
            return Some(Ok(String::from_utf8_lossy(&line).into_owned()));
        }
    }
}

/// A running outside engine.
pub struct UciEngine {
    spec: UciSpec,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<Result<String, TooLong>>,
    /// The `id name` it gave.
    pub id_name: Option<String>,
}

/// How long the handshake (`uci`, `isready`) may take.
pub const HANDSHAKE: Duration = Duration::from_secs(10);

impl UciEngine {
    /// Starts the engine and sets it up for `variant`: `uci`, the `setoption` lines, a check
    /// that `variant` is among its `UCI_Variant` values, `setoption name UCI_Variant`.
    pub fn start(spec: &UciSpec, variant: &str) -> Result<Self, UciError> {
        let mut cmd = Command::new(&spec.cmd);
        cmd.args(&spec.args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null());
        if let Some(d) = &spec.dir {
            cmd.current_dir(d);
        }
        // Its own process group: Ctrl-C in a terminal stops the match, which then ends its
        // engines itself, instead of killing them mid-game.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let mut child =
            cmd.spawn().map_err(|err| UciError::Spawn { cmd: spec.cmd.clone(), err })?;
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            while let Some(line) = next_line(&mut r, MAX_LINE) {
                let end = line.is_err();
                if tx.send(line).is_err() || end {
                    break;
                }
            }
        });
        let mut e = UciEngine { spec: spec.clone(), child, stdin, lines: rx, id_name: None };
        e.setup(variant)?;
        Ok(e)
    }

    /// The same engine, started afresh.
    pub fn restart(&mut self, variant: &str) -> Result<(), UciError> {
        let fresh = UciEngine::start(&self.spec, variant)?;
        let old = std::mem::replace(self, fresh);
        drop(old);
        Ok(())
    }

    fn setup(&mut self, variant: &str) -> Result<(), UciError> {
        self.send("uci")?;
        let mut variants = self.read_options()?;
        let mut reread = false;
        for (name, value) in self.spec.options.clone() {
            self.send(&format!("setoption name {name} value {value}"))?;
            reread |= name.eq_ignore_ascii_case("VariantPath");
        }
        if reread {
            // A variants file adds variants: ask for the option list again.
            self.send("uci")?;
            variants = self.read_options()?;
        }
        match variants {
            Some(list) if !list.iter().any(|v| v == variant) => {
                let mut shown: Vec<&str> = list.iter().map(String::as_str).take(12).collect();
                if list.len() > 12 {
                    shown.push("...");
                }
                return Err(UciError::UnknownVariant {
                    variant: variant.to_owned(),
                    detail: format!(" (its UCI_Variant values: {})", shown.join(", ")),
                });
            }
            None => {
                return Err(UciError::UnknownVariant {
                    variant: variant.to_owned(),
                    detail: " (it has no UCI_Variant option)".into(),
                });
            }
            Some(_) => {}
        }
        self.send(&format!("setoption name UCI_Variant value {variant}"))?;
        self.send("isready")?;
        let deadline = Instant::now() + HANDSHAKE;
        loop {
            let line = self.recv(deadline, "readyok")?;
            if line.trim() == "readyok" {
                return self.check_net();
            }
            let l = line.to_ascii_lowercase();
            if l.contains("error") && l.contains("variant") {
                return Err(UciError::UnknownVariant {
                    variant: variant.to_owned(),
                    detail: format!(" (it said: {})", line.trim()),
                });
            }
        }
    }

    /// With an `EvalFile` set (and NNUE not switched off), a depth-1 search from the start
    /// position: an engine that then says it uses its classical evaluation (Fairy-Stockfish
    /// does so, silently otherwise, for a net whose file name does not start with the
    /// variant's name) is refused, so that a match is never played against the wrong
    /// evaluation.
    fn check_net(&mut self) -> Result<(), UciError> {
        let opt = |name: &str| {
            self.spec
                .options
                .iter()
                .rev()
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
                .map(|(_, v)| v)
        };
        let Some(file) = opt("EvalFile").cloned() else { return Ok(()) };
        if opt("Use NNUE").is_some_and(|v| v.eq_ignore_ascii_case("false")) {
            return Ok(());
        }
        self.send("position startpos")?;
        self.send("go depth 1")?;
        let deadline = Instant::now() + HANDSHAKE;
        let mut classical = false;
        loop {
            let line = self.recv(deadline, "bestmove")?;
            let t = line.trim();
            if t.starts_with("bestmove") {
                break;
            }
            classical |= t.starts_with("info string") && t.contains("classical evaluation enabled");
        }
        if classical { Err(UciError::NetIgnored { file }) } else { Ok(()) }
    }

    /// Reads up to `uciok`; returns the `UCI_Variant` combo values, if it has the option.
    fn read_options(&mut self) -> Result<Option<Vec<String>>, UciError> {
        let deadline = Instant::now() + HANDSHAKE;
        let mut variants = None;
        loop {
            let line = self.recv(deadline, "uciok")?;
            let t = line.trim();
            if t == "uciok" {
                return Ok(variants);
            }
            if let Some(name) = t.strip_prefix("id name ") {
                self.id_name = Some(name.trim().to_owned());
            }
            if let Some(rest) = t.strip_prefix("option name UCI_Variant ") {
                let toks: Vec<&str> = rest.split_whitespace().collect();
                let vars = toks
                    .windows(2)
                    .filter(|w| w[0] == "var")
                    .map(|w| w[1].to_owned())
                    .collect::<Vec<_>>();
                variants = Some(vars);
            }
        }
    }

    /// Its program file's hash and its `id name`.
    pub fn build(&self) -> crate::build::Build {
        crate::build::outside(&self.spec.cmd, self.spec.dir.as_deref(), self.id_name.clone())
    }

    /// Sends one line.
    pub fn send(&mut self, line: &str) -> Result<(), UciError> {
        writeln!(self.stdin, "{line}").and_then(|_| self.stdin.flush()).map_err(UciError::Write)
    }

    fn recv(&mut self, deadline: Instant, what: &'static str) -> Result<String, UciError> {
        let wait = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(wait) {
            Ok(Ok(l)) => Ok(l),
            Ok(Err(TooLong)) => Err(UciError::LineTooLong { max: MAX_LINE }),
            Err(RecvTimeoutError::Timeout) => {
                Err(UciError::Timeout { what, ms: wait.as_millis() as u64 })
            }
            Err(RecvTimeoutError::Disconnected) => Err(UciError::Exited(self.exit_status())),
        }
    }

    fn exit_status(&mut self) -> String {
        // The output closed; give the process a moment to be reaped.
        for _ in 0..50 {
            if let Ok(Some(s)) = self.child.try_wait() {
                return s.to_string();
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        "output closed".into()
    }

    /// `ucinewgame` and `isready`.
    pub fn new_game(&mut self) -> Result<(), UciError> {
        self.send("ucinewgame")?;
        self.send("isready")?;
        let deadline = Instant::now() + HANDSHAKE;
        while self.recv(deadline, "readyok")?.trim() != "readyok" {}
        Ok(())
    }

    /// Sends `position` and `go`, and waits (up to `wait`) for `bestmove`; returns the move
    /// text and the last score, depth and node count it reported.
    pub fn go(&mut self, position: &str, go: &str, wait: Duration) -> Result<Reply, UciError> {
        let deadline = Instant::now() + wait;
        let asked = wait.as_millis() as u64;
        self.send(position)?;
        self.send(go)?;
        let (mut score, mut depth, mut nodes) = (None, None, None);
        loop {
            let line = self.recv(deadline, "bestmove").map_err(|e| match e {
                UciError::Timeout { what, .. } => UciError::Timeout { what, ms: asked },
                e => e,
            })?;
            let mut toks = line.split_whitespace();
            match toks.next() {
                Some("bestmove") => {
                    let text = toks.next().unwrap_or("").to_owned();
                    return Ok(Reply { text, score, depth, nodes });
                }
                Some("info") => {
                    let t: Vec<&str> = toks.collect();
                    // Only the principal line's score (multipv 1 or none).
                    let mpv = t.windows(2).find(|w| w[0] == "multipv").map(|w| w[1]);
                    if mpv.is_some_and(|m| m != "1") {
                        continue;
                    }
                    for w in t.windows(3) {
                        match (w[0], w[1]) {
                            ("score", "cp") => score = w[2].parse().ok().map(Score::Cp),
                            ("score", "mate") => score = w[2].parse().ok().map(Score::Mate),
                            _ => {}
                        }
                    }
                    for w in t.windows(2) {
                        match w[0] {
                            "depth" => depth = w[1].parse().ok().or(depth),
                            "nodes" => nodes = w[1].parse().ok().or(nodes),
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// Asks a search to stop and waits up to `grace` for its `bestmove`; false if none came.
    pub fn stop(&mut self, grace: Duration) -> bool {
        if self.send("stop").is_err() {
            return false;
        }
        let deadline = Instant::now() + grace;
        while let Ok(l) = self.recv(deadline, "bestmove") {
            if l.starts_with("bestmove") {
                return true;
            }
        }
        false
    }
}

impl Drop for UciEngine {
    fn drop(&mut self) {
        let _ = self.send("quit");
        let deadline = Instant::now() + Duration::from_millis(500);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
