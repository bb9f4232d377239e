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
