//! What a kage-selfplay command may write, checked before any work: a report never over one
//! of its inputs, over another output or over a kage data file (the one-token slip
//! `balance --json A/games.kdata B/games.kdata`), and a run never into a directory that
//! belongs to another tool ([`kage_data::guard`] decides ownership).

use std::path::{Path, PathBuf};

use kage_data::guard::{claim_dir, owner_of, refuse_overwrite};

use crate::error::Result;

/// The owner name of self-play run directories.
pub const GENERATE: &str = "kage-selfplay generate";
/// The owner name of match directories.
pub const MATCH: &str = "kage-selfplay match";

/// Refuses report outputs (`(option, path)`, absent ones skipped) that name an input, each
/// other, or a file that is already a kage data file; `inputs` are the files actually read.
pub fn check_reports(outputs: &[(&str, Option<&Path>)], inputs: &[PathBuf]) -> Result<()> {
    let outs: Vec<(&str, &Path)> = outputs.iter().filter_map(|(f, p)| Some((*f, (*p)?))).collect();
    let ins: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
    refuse_overwrite(&outs, &ins)?;
    for (flag, p) in outs {
        if p.as_os_str() != "-" && (p.extension().is_some_and(|x| x == "kdata") || is_data_file(p))
        {
            let (flag, path) = (flag.to_string(), p.to_path_buf());
            return Err(crate::ConfigError::ReportOverData { flag, path }.into());
        }
    }
    Ok(())
}

/// Whether `p` exists and starts like a kage data file.
fn is_data_file(p: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 8];
    std::fs::File::open(p).and_then(|mut f| f.read_exact(&mut head)).is_ok()
        && head == kage_data::header::FILE_MAGIC
}

/// Claims the run directory `dir` (at or below `root`) for `tool`, after checking that no
/// directory from `root` down to it belongs to another tool; nothing is created when one
/// does.
pub fn claim_run_dir(root: &Path, dir: &Path, tool: &str) -> Result<()> {
    let mut d = Some(dir);
    while let Some(here) = d {
        if here.is_dir() {
            match owner_of(here)? {
                Some(owner) if owner != tool => {
                    return Err(kage_data::guard::GuardError::ForeignDir {
                        dir: here.to_path_buf(),
                        owner,
                        tool: tool.into(),
                    }
                    .into());
                }
                _ => {}
            }
        }
        d = if here == root { None } else { here.parent().filter(|p| p.starts_with(root)) };
    }
    Ok(claim_dir(dir, tool)?)
}
