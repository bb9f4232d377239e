//! Helpers shared by the subcommands.

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use kage_data::{FileHeader, Lineage, Reader, Record};
use kage_engine::Variant;

/// Reads the header of every file.
pub fn headers(files: &[PathBuf]) -> Result<Vec<FileHeader>> {
    files.iter().map(|f| Ok(FileHeader::read_file(f)?)).collect()
}

/// Opens a file for reading; damaged chunks are printed as warnings.
pub fn open<R: Record>(path: &Path) -> Result<Reader<R>> {
    Ok(Reader::<R>::open(path)?.on_damage(|d| eprintln!("kage-data: warning: {d}")))
}

/// The engine variant of a header: a built-in, or the user variant whose spec the file's
/// config carries ([`kage_data::variant::of_header`]).
pub fn variant_of(h: &FileHeader) -> Result<&'static Variant> {
    Ok(kage_data::variant::of_header(h)?)
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

/// The checks of a tool that joins several files into one: the output is none of the inputs,
/// the inputs agree ([`compatible`]), are distinct, share no lineage, and come from one build
/// unless `allow_mixed`. Returns the output's header, made from the inputs by `tool`.
pub fn joined_header(
    out: &Path,
    files: &[PathBuf],
    tool: &str,
    allow_mixed: bool,
) -> Result<FileHeader> {
    check_output(out, files)?;
    let header = compatible(files)?;
    distinct_inputs(files)?;
    let lineages = disjoint(files)?;
    let revision = build_revision(files, allow_mixed)?;
    made_from(&header, tool, &revision, &lineages)
}

/// The header of a file `tool` makes from `inputs` (of the common header `h`): written by
/// the build `revision` ([`build_revision`]), recording the inputs as its sources
/// ([`kage_data::lineage`]).
pub fn made_from(
    h: &FileHeader,
    tool: &str,
    revision: &str,
    inputs: &[Lineage],
) -> Result<FileHeader> {
    let created_by =
        format!("kage-data {tool} {} (from: {})", env!("CARGO_PKG_VERSION"), h.created_by());
    Ok(FileHeader::new(h.kind(), h.variant(), h.config(), revision, &created_by)?
        .with_sources(kage_data::lineage::sources_for(inputs))?)
}

/// Refuses inputs that overlap (the same data twice, a file with one it was made from, two
/// files made from a common source); returns their lineages.
pub fn disjoint(files: &[PathBuf]) -> Result<Vec<Lineage>> {
    kage_data::lineage::disjoint_lineages(files).map_err(|e| {
        anyhow::anyhow!("{e}; refusing to combine them (each position must count once)")
    })
}

/// The git revision to record for a file made from `files`: theirs when they agree.
/// Files written by different builds (self-play resumed or sharded across a rebuild) are
/// refused unless `allow_mixed`; then the output records every revision (`mixed: a, b`).
pub fn build_revision(files: &[PathBuf], allow_mixed: bool) -> Result<String> {
    let hs = headers(files)?;
    let first = hs[0].git_revision();
    let Some(i) = hs.iter().position(|h| h.git_revision() != first) else {
        return Ok(first.to_owned());
    };
    let what = format!(
        "{} was written by build {:?} but {} by build {:?}",
        files[i].display(),
        hs[i].git_revision(),
        files[0].display(),
        first
    );
    if !allow_mixed {
        bail!(
            "{what}: positions from two builds would be mixed in one file; pass              --allow-mixed-builds to combine them anyway"
        );
    }
    let mut revs: Vec<&str> = hs
        .iter()
        .flat_map(|h| {
            let r = h.git_revision();
            r.strip_prefix("mixed: ").map_or_else(|| vec![r], |rest| rest.split(", ").collect())
        })
        .collect();
    revs.sort_unstable();
    revs.dedup();
    eprintln!("kage-data: warning: {what}; combined as --allow-mixed-builds says");
    Ok(format!("mixed: {}", revs.join(", ")))
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

/// Refuses an output path that is a directory or one of the inputs (under any name), before
/// any work: the one rule of every kage tool ([`kage_data::guard::refuse_overwrite`]).
pub fn check_output(out: &Path, files: &[PathBuf]) -> Result<()> {
    if out.as_os_str() == "-" {
        return Ok(());
    }
    if out.is_dir() {
        bail!("--out {} is a directory; name a file", out.display());
    }
    let inputs: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    kage_data::guard::refuse_overwrite(&[("--out", out)], &inputs)?;
    Ok(())
}

/// The error's text without a leading `<path>: ` (for lines that name the path already).
pub fn without_path(path: &Path, e: &anyhow::Error) -> String {
    let msg = format!("{e:#}");
    let p = format!("{}: ", path.display());
    msg.strip_prefix(&p).map(str::to_owned).unwrap_or(msg)
}
