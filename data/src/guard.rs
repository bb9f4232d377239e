//! What a kage tool may write, decided once for every tool: never over a file it was given
//! as input, never one output over another, and never into a directory that belongs to
//! another tool or run.
//!
//! A directory a tool writes its run into carries an owner file, `.kage-owner`, naming the
//! tool (`kage-selfplay generate`, `kage-selfplay match`, `kage-train`, ...). [`claim_dir`]
//! writes it into a new or empty directory and refuses a directory owned by another tool.
//! Directories written before owner files existed are recognised by the files each tool
//! leaves ([`OWNER_SIGNATURES`]).

use std::path::{Path, PathBuf};

/// The owner file's name.
pub const OWNER_FILE: &str = ".kage-owner";

/// Files that identify a directory written by a tool before owner files existed: `(tool,
/// files that all exist there)`.
pub const OWNER_SIGNATURES: &[(&str, &[&str])] = &[
    ("kage-selfplay generate", &["run.toml", "parts"]),
    ("kage-selfplay generate", &["run.toml", "games.kdata"]),
    ("kage-selfplay match", &["match.json"]),
    ("kage-selfplay match", &["games.jsonl"]),
    ("kage-train", &["config.toml", "checkpoint.ckpt"]),
    ("kage-train", &["config.toml", "data.toml"]),
];

/// Why a write was refused.
#[derive(Debug, thiserror::Error)]
pub enum GuardError {
    /// An output path names one of the inputs.
    #[error("{flag} {} is also an input; refusing to write over it", out.display())]
    OutputIsInput {
        /// The option naming the output (`--json`, `--out`, ...).
        flag: String,
        /// The output path as given.
        out: PathBuf,
    },
    /// An output is written through a temporary name (`<out>.tmp`, [`crate::atomic`]) that
    /// is one of the inputs: creating it would empty that input before it is read (e.g.
    /// `repair --out games.kdata games.kdata.tmp`, salvaging an interrupted writer's file).
    #[error(
        "{flag} {} is written through {}, which is an input; name another output",
        out.display(),
        tmp.display()
    )]
    TempIsInput {
        /// The option naming the output.
        flag: String,
        /// The output path as given.
        out: PathBuf,
        /// Its temporary name.
        tmp: PathBuf,
    },
    /// Two outputs name the same file.
    #[error("{first} and {second} both name {}; give each output its own file", path.display())]
    OutputsCollide {
        /// The first option.
        first: String,
        /// The second option.
        second: String,
        /// The path both name.
        path: PathBuf,
    },
    /// The directory belongs to another tool or run.
    #[error(
        "{} belongs to {owner}, not to {tool}; a directory holds one tool's run: use another directory",
        dir.display()
    )]
    ForeignDir {
        /// The directory.
        dir: PathBuf,
        /// Its owner.
        owner: String,
        /// The tool that wanted it.
        tool: String,
    },
    /// An I/O failure while checking or claiming.
    #[error("{}: {op}: {cause}", path.display())]
    Io {
        /// The path concerned.
        path: PathBuf,
        /// What was being done.
        op: &'static str,
        /// The underlying error.
        cause: std::io::Error,
    },
}

/// The absolute, symlink-free form of a path that may not exist yet (its parent is resolved
/// when it does not); `None` when neither resolves.
fn resolved(p: &Path) -> Option<PathBuf> {
    if let Ok(c) = std::fs::canonicalize(p) {
        return Some(c);
    }
    let name = p.file_name()?;
    let parent = match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::canonicalize(parent).ok().map(|d| d.join(name))
}

/// Refuses, before any work, an output that is one of the inputs (the same file under
/// another name included), whose temporary name (`<out>.tmp`) is one, or that another
/// output also names. `outputs` are `(option,
/// path)` pairs; `-` (standard output) is always allowed.
pub fn refuse_overwrite(outputs: &[(&str, &Path)], inputs: &[&Path]) -> Result<(), GuardError> {
    let ins: Vec<PathBuf> = inputs.iter().filter_map(|p| resolved(p)).collect();
    let mut seen: Vec<(&str, PathBuf)> = Vec::new();
    for &(flag, out) in outputs {
        if out.as_os_str() == "-" {
            continue;
        }
        let Some(o) = resolved(out) else { continue };
        if ins.contains(&o) {
            return Err(GuardError::OutputIsInput { flag: flag.into(), out: out.into() });
        }
        let tmp = crate::atomic::tmp_path(out);
        if resolved(&tmp).is_some_and(|t| ins.contains(&t)) {
            return Err(GuardError::TempIsInput { flag: flag.into(), out: out.into(), tmp });
        }
        if let Some((first, _)) = seen.iter().find(|(_, p)| *p == o) {
            return Err(GuardError::OutputsCollide {
                first: (*first).into(),
                second: flag.into(),
                path: out.into(),
            });
        }
        seen.push((flag, o));
    }
    Ok(())
}

/// The tool a directory belongs to: its owner file, else what its files say
/// ([`OWNER_SIGNATURES`]); `None` for a new, empty or unclaimed directory.
pub fn owner_of(dir: &Path) -> Result<Option<String>, GuardError> {
    let path = dir.join(OWNER_FILE);
    // At most 256 bytes, whatever the file is (a tool name is one short line).
    let head = std::fs::File::open(&path).and_then(|f| {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::Read::take(f, 256), &mut bytes)?;
        Ok(bytes)
    });
    match head {
        Ok(bytes) => {
            let text = String::from_utf8_lossy(&bytes).into_owned();
            return Ok(Some(text.lines().next().unwrap_or("").trim().to_owned()));
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => {}
        Err(cause) => return Err(GuardError::Io { path, op: "read", cause }),
    }
    for (tool, files) in OWNER_SIGNATURES {
        if files.iter().all(|f| dir.join(f).exists()) {
            return Ok(Some((*tool).to_owned()));
        }
    }
    Ok(None)
}

/// Makes `dir` (if needed) and claims it for `tool`: refuses a directory that belongs to
/// another tool, writes the owner file into one that belongs to none.
pub fn claim_dir(dir: &Path, tool: &str) -> Result<(), GuardError> {
    std::fs::create_dir_all(dir).map_err(|cause| GuardError::Io {
        path: dir.into(),
        op: "create directory",
        cause,
    })?;
    match owner_of(dir)? {
        Some(owner) if owner == tool => Ok(()),
        Some(owner) => Err(GuardError::ForeignDir { dir: dir.into(), owner, tool: tool.into() }),
        None => {
            let path = dir.join(OWNER_FILE);
            crate::atomic::write_atomic(&path, format!("{tool}\n").as_bytes())
                .map_err(|cause| GuardError::Io { path, op: "write", cause })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_output_naming_an_input_is_refused_under_any_name() {
        let t = tempfile::tempdir().unwrap();
        let input = t.path().join("games.kdata");
        std::fs::write(&input, b"x").unwrap();
        let other = t.path().join("sub/../games.kdata");
        std::fs::create_dir(t.path().join("sub")).unwrap();
        let e = refuse_overwrite(&[("--json", &other)], &[&input]).unwrap_err();
        assert!(e.to_string().contains("--json"), "{e}");
        assert!(e.to_string().contains("is also an input"), "{e}");
        let fresh = t.path().join("report.json");
        refuse_overwrite(&[("--json", &fresh), ("--html", Path::new("-"))], &[&input]).unwrap();
        let e = refuse_overwrite(&[("--json", &fresh), ("--html", &fresh)], &[&input]);
        assert!(matches!(e, Err(GuardError::OutputsCollide { .. })), "{e:?}");
        assert_eq!(std::fs::read(&input).unwrap(), b"x");
    }

    #[test]
    fn a_directory_belongs_to_one_tool() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path().join("run");
        claim_dir(&d, "kage-train").unwrap();
        claim_dir(&d, "kage-train").unwrap();
        let e = claim_dir(&d, "kage-selfplay match").unwrap_err().to_string();
        assert!(e.contains("belongs to kage-train"), "{e}");
        // A directory written before owner files: known by its files.
        let old = t.path().join("old");
        std::fs::create_dir_all(old.join("parts")).unwrap();
        std::fs::write(old.join("run.toml"), b"").unwrap();
        assert_eq!(owner_of(&old).unwrap().as_deref(), Some("kage-selfplay generate"));
        assert!(claim_dir(&old, "kage-train").is_err());
        assert!(!old.join(OWNER_FILE).exists());
        claim_dir(&old, "kage-selfplay generate").unwrap();
    }
}
