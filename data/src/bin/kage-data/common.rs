//! Helpers shared by the subcommands.

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use kage_data::{FileHeader, Reader, Record};
use kage_engine::Variant;

/// Reads the header of every file.
pub fn headers(files: &[PathBuf]) -> Result<Vec<FileHeader>> {
    files.iter().map(|f| Ok(FileHeader::read_file(f)?)).collect()
}

/// Opens a file for reading; damaged chunks are printed as warnings.
pub fn open<R: Record>(path: &Path) -> Result<Reader<R>> {
    Ok(Reader::<R>::open(path)?.on_damage(|d| eprintln!("kage-data: warning: {d}")))
}

/// The engine variant of a header.
pub fn variant_of(h: &FileHeader) -> Result<&'static Variant> {
    Ok(Variant::by_name(h.variant())?)
}

/// Requires all files to hold the same record kind, variant and generator
/// config; returns the common header (of the first file).
pub fn compatible(files: &[PathBuf]) -> Result<FileHeader> {
    let hs = headers(files)?;
    let (first, f0) = (&hs[0], &files[0]);
    for (h, f) in hs.iter().zip(files).skip(1) {
        if h.kind() != first.kind() {
            bail!(
                "{} holds {} records but {} holds {} records; files of different kinds cannot be combined",
                f.display(),
                h.kind(),
                f0.display(),
                first.kind()
            );
        }
        if h.variant() != first.variant() {
            bail!(
                "{} is for variant {:?} but {} is for variant {:?}; combine files of one variant only",
                f.display(),
                h.variant(),
                f0.display(),
                first.variant()
            );
        }
        if h.config_hash() != first.config_hash() {
            bail!(
                "{} was generated with config hash {:016x} but {} with {:016x}; \
                 files made with different generator configs must not be mixed \
                 (compare the configs with `kage-data stats`)",
                f.display(),
                h.config_hash(),
                f0.display(),
                first.config_hash()
            );
        }
    }
    Ok(first.clone())
}

/// A header like `h` but marked as produced by `tool`.
pub fn derived_header(h: &FileHeader, tool: &str) -> Result<FileHeader> {
    let created_by =
        format!("kage-data {tool} {} (from: {})", env!("CARGO_PKG_VERSION"), h.created_by());
    Ok(FileHeader::new(h.kind(), h.variant(), h.config(), h.git_revision(), &created_by)?)
}

/// After a file was read to its end: damaged input is an error unless `allow` (then a
/// warning), and either way says how much was lost.
pub fn check_damage<R: Record>(r: &Reader<R>, allow: bool) -> Result<()> {
    let n = r.damage().len();
    if n == 0 {
        return Ok(());
    }
    let lost = match r.declared_records() {
        Some(total) if total > r.records_read() => {
            format!("{} of {total} records lost", total - r.records_read())
        }
        Some(total) if total < r.records_read() => {
            format!("{} records more than the {total} written", r.records_read() - total)
        }
        _ => format!("{} records read", r.records_read()),
    };
    let what = format!(
        "{}: {n} damaged region(s), {} bytes skipped ({lost})",
        r.path().display(),
        r.damaged_bytes()
    );
    if allow {
        eprintln!("kage-data: warning: {what}; dropped as --allow-damaged says");
        Ok(())
    } else {
        bail!(
            "{what}; refusing to write output without them: pass --allow-damaged to accept \
             the loss, or salvage the intact chunks with `kage-data repair`"
        )
    }
}

/// Refuses an input given twice (the same file under two names included).
pub fn distinct_inputs(files: &[PathBuf]) -> Result<()> {
    let mut seen = std::collections::HashMap::new();
    for f in files {
        let canon =
            std::fs::canonicalize(f).map_err(|e| anyhow::anyhow!("{}: {e}", f.display()))?;
        if let Some(prev) = seen.insert(canon, f) {
            bail!(
                "{} is given twice (also as {}): its records would count twice",
                f.display(),
                prev.display()
            );
        }
    }
    Ok(())
}

/// Refuses an output path that is a directory or one of the inputs, before any work.
pub fn check_output(out: &Path, files: &[PathBuf]) -> Result<()> {
    if out.as_os_str() == "-" {
        return Ok(());
    }
    if out.is_dir() {
        bail!("--out {} is a directory; name a file", out.display());
    }
    if let Ok(o) = std::fs::canonicalize(out) {
        for f in files {
            if std::fs::canonicalize(f).is_ok_and(|c| c == o) {
                bail!("--out {} is also an input", out.display());
            }
        }
    }
    Ok(())
}

/// The error's text without a leading `<path>: ` (for lines that name the path already).
pub fn without_path(path: &Path, e: &anyhow::Error) -> String {
    let msg = format!("{e:#}");
    let p = format!("{}: ", path.display());
    msg.strip_prefix(&p).map(str::to_owned).unwrap_or(msg)
}
