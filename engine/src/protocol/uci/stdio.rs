//! The UCI loop on stdin/stdout: one session fed line by line until `quit` or the end of
//! input (the `kage` binary's default, and `kage-selfplay uci`).

use super::Uci;
use crate::variant::Variant;
use std::io::{self, BufRead, Read, Write};

/// Longest input line read (a `position` with tens of thousands of moves fits).
pub const MAX_LINE: u64 = 16 << 20;

/// Speaks UCI on stdin/stdout until `quit` or the end of stdin (which stops a running
/// search; its `bestmove` is still written). Lines that are not UTF-8 or longer than
/// [`MAX_LINE`] and unknown commands are reported as `info string error ...` and skipped.
/// `default` is the variant before any `UCI_Variant` option; `custom` is a user variant
/// offered next to the built-in ones.
pub fn run_stdio(default: &'static Variant, custom: Option<&'static Variant>) -> io::Result<()> {
    run_stdio_session(Uci::new(default, custom))
}

/// [`run_stdio`] with a session set up by the caller (e.g. `Use NNUE` off from the command
/// line).
pub fn run_stdio_session(mut session: Uci) -> io::Result<()> {
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let stdout = io::stdout();
    loop {
        // Replies go through a buffer: the search thread writes to stdout too, and the
        // session may wait for it (stop), so stdout must not stay locked meanwhile.
        let mut reply = Vec::new();
        let line = read_line(&mut input)
            .map_err(|e| io::Error::new(e.kind(), format!("reading stdin: {e}")))?;
        match line {
            // The GUI is gone: stop whatever runs (its `bestmove` is still written) and end.
            None => {
                session.handle("quit", &mut reply)?;
            }
            Some(Err(why)) => writeln!(reply, "info string error {why}")?,
            Some(Ok(line)) => {
                if !session.handle(&line, &mut reply)? {
                    let cmd = line.split_whitespace().next().unwrap_or("");
                    writeln!(reply, "info string error unknown command '{cmd}'")?;
                }
            }
        }
        let mut out = stdout.lock();
        out.write_all(&reply)?;
        out.flush()?;
        drop(out);
        if session.quit {
            break;
        }
    }
    Ok(())
}

/// One input line without its line end: `Ok(None)` at the end of input, `Err(why)` for a
/// line that is not UTF-8 or too long (the rest of it is skipped).
pub fn read_line(input: &mut impl BufRead) -> io::Result<Option<Result<String, String>>> {
    let mut bytes = Vec::new();
    let n = input.by_ref().take(MAX_LINE).read_until(b'\n', &mut bytes)?;
    if n == 0 {
        return Ok(None);
    }
    if bytes.last() != Some(&b'\n') && n as u64 == MAX_LINE {
        // Skip to the end of the over-long line.
        loop {
            let buf = input.fill_buf()?;
            if buf.is_empty() {
                break;
            }
            match buf.iter().position(|&b| b == b'\n') {
                Some(i) => {
                    input.consume(i + 1);
                    break;
                }
                None => {
                    let len = buf.len();
                    input.consume(len);
                }
            }
        }
        return Ok(Some(Err(format!("input line longer than {MAX_LINE} bytes (ignored)"))));
    }
    while bytes.last().is_some_and(|&b| b == b'\n' || b == b'\r') {
        bytes.pop();
    }
    Ok(Some(String::from_utf8(bytes).map_err(|e| {
        format!(
            "input line is not UTF-8 (byte {} is invalid; ignored)",
            e.utf8_error().valid_up_to()
        )
    })))
}
