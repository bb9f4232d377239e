//! How a kage tool's command ends: its exit status, and its error as one line.

use std::process::ExitCode;

/// The exit status of a command's result: its own on success; success too when the error is
/// a closed output pipe (a reader that stopped early, `| head` or `| grep -q`, is not an error
/// of ours); otherwise failure, with the error and its causes on one line of standard error:
/// `TOOL: error: ...`.
pub fn exit_code(tool: &str, res: anyhow::Result<ExitCode>) -> ExitCode {
    match res {
        Ok(code) => code,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{tool}: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Whether `e` (or one of its causes) is a write to a closed pipe.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
