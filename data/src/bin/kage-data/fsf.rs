//! `kage-data export --format fsf-bin` and `kage-data import-bin`: kage positions to and from
//! Fairy-Stockfish's `.bin` training data ([`kage_data::fsf_bin`]).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use kage_data::fsf_bin::{BinError, BinReader, BinWriter, Converter, RECORD_BYTES};
use kage_data::{FileHeader, GIT_REVISION, PositionRecord, RecordKind, Writer};
use kage_engine::Variant;

use crate::common::{check_damage, check_output, distinct_inputs, open, variant_of};

/// Prints a progress line to standard error at most every few seconds.
struct Progress {
    what: &'static str,
    last: Instant,
}

impl Progress {
    fn new(what: &'static str) -> Self {
        Progress { what, last: Instant::now() }
    }

    fn tick(&mut self, records: u64) {
        if records.is_multiple_of(4096) && self.last.elapsed() > Duration::from_secs(2) {
            eprintln!("kage-data: {} {records} records ...", self.what);
            self.last = Instant::now();
        }
    }
}

/// Position files → one `.bin` file, plus `<out>.meta.toml` saying what it was made from
/// (a `.bin` file has no header).
pub fn export(out: &Path, files: &[PathBuf], allow_damaged: bool) -> Result<ExitCode> {
    check_output(out, files)?;
    let meta_path = meta_path(out);
    check_output(&meta_path, files)?;
    distinct_inputs(files)?;
    let conv = converter_of(files)?;
    let mut w = BinWriter::create(out)?;
    let mut progress = Progress::new("exported");
    let mut clamped = 0u64;
    for f in files {
        let mut r = open::<PositionRecord>(f)?;
        let mut index = 0u64;
        while let Some(chunk) = r.next_chunk()? {
            for rec in &chunk {
                let e =
                    conv.to_fsf(rec).with_context(|| format!("{}: record {index}", f.display()))?;
                clamped += u64::from(e.rule50_clamped);
                w.write(&e.record)?;
                index += 1;
                progress.tick(w.records());
            }
        }
        check_damage(&r, allow_damaged)?;
    }
    let records = w.finish()?;
    let sources: Vec<String> =
        files.iter().map(|f| format!("{:?}", f.display().to_string())).collect();
    let meta = format!(
        "# What {out} holds (a .bin file has no header).\nformat = \"fsf-bin\"\nrecord_bytes = \
         {RECORD_BYTES}\nvariant = {:?}\nrecords = {records}\nrule50_clamped = {clamped}\n\
         score_units = \"FSF internal (208 per pawn), side to move\"\nmove = \"0 (not \
         written)\"\nsources = [{}]\ngit_revision = {GIT_REVISION:?}\ncreated_by = \"kage-data \
         export --format fsf-bin {}\"\n",
        conv.variant().name,
        sources.join(", "),
        env!("CARGO_PKG_VERSION"),
        out = out.display(),
    );
    kage_data::atomic::write_atomic(&meta_path, meta.as_bytes())
        .with_context(|| format!("writing {}", meta_path.display()))?;
    eprintln!(
        "kage-data: wrote {records} {} positions to {} ({} bytes; {clamped} halfmove clocks \
         clamped to 127), described in {}",
        conv.variant().name,
        out.display(),
        records * RECORD_BYTES as u64,
        meta_path.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// `<out>.meta.toml`.
fn meta_path(out: &Path) -> PathBuf {
    let mut s = out.as_os_str().to_owned();
    s.push(".meta.toml");
    PathBuf::from(s)
}

/// The converter of the one variant all `files` hold.
fn converter_of(files: &[PathBuf]) -> Result<Converter> {
    let mut variant: Option<&'static Variant> = None;
    for f in files {
        let h = FileHeader::read_file(f)?;
        if h.kind() != RecordKind::Position {
            bail!("{} holds {} records; .bin export needs position files", f.display(), h.kind());
        }
        let v = variant_of(&h)?;
        match variant {
            Some(first) if !std::ptr::eq(first, v) => bail!(
                "{} is {} data but the first file is {} data; a .bin file holds one variant",
                f.display(),
                v.name,
                first.name
            ),
            _ => variant = Some(v),
        }
    }
    let v = variant.context("no input files")?;
    Ok(Converter::new(v)?)
}

/// `.bin` files of `variant` → one position file whose header records the sources.
pub fn import(
    variant: &str,
    out: &Path,
    files: &[PathBuf],
    allow_damaged: bool,
) -> Result<ExitCode> {
    check_output(out, files)?;
    distinct_inputs(files)?;
    let v = Variant::by_name(variant)?;
    let conv = Converter::new(v)?;
    let config = import_config(v, files)?;
    let header = FileHeader::new(
        RecordKind::Position,
        &v.name,
        &config,
        GIT_REVISION,
        &format!("kage-data import-bin {}", env!("CARGO_PKG_VERSION")),
    )?;
    let mut w = Writer::<PositionRecord>::create(out, header)?;
    let res = import_into(&conv, files, allow_damaged, &mut w);
    if let Err(e) = res {
        drop(w);
        let _ = std::fs::remove_file(kage_data::tmp_path(out));
        return Err(e);
    }
    let summary = w.finish()?;
    eprintln!("kage-data: wrote {} {} positions to {}", summary.records, v.name, out.display());
    Ok(ExitCode::SUCCESS)
}

fn import_into(
    conv: &Converter,
    files: &[PathBuf],
    allow_damaged: bool,
    w: &mut Writer<PositionRecord>,
) -> Result<()> {
    let mut progress = Progress::new("imported");
    let (mut skipped, mut shown) = (0u64, 0);
    for f in files {
        let mut r = BinReader::open(f)?;
        loop {
            let rec = match r.next_record() {
                Ok(Some(rec)) => rec,
                Ok(None) => break,
                Err(e @ BinError::Truncated { .. }) if allow_damaged => {
                    eprintln!("kage-data: warning: {e}; dropped as --allow-damaged says");
                    break;
                }
                Err(e @ BinError::Truncated { .. }) => bail!(
                    "{e}; refusing to write output without it: pass --allow-damaged to import \
                     the whole records"
                ),
                Err(e) => return Err(e.into()),
            };
            let index = r.records_read() - 1;
            match conv.from_fsf(&rec) {
                Ok(p) => w.write(&p)?,
                Err(reason) if allow_damaged => {
                    skipped += 1;
                    if shown < 10 {
                        shown += 1;
                        eprintln!("kage-data: warning: {}; skipped", r.record_error(index, reason));
                    }
                }
                Err(reason) => {
                    bail!(
                        "{}; pass --allow-damaged to skip such records",
                        r.record_error(index, reason)
                    )
                }
            }
            progress.tick(w.records());
        }
    }
    if skipped > 0 {
        eprintln!("kage-data: warning: {skipped} records skipped (--allow-damaged)");
    }
    Ok(())
}

/// The header's config of an import: the format and every source file's size and CRC-32.
fn import_config(v: &Variant, files: &[PathBuf]) -> Result<String> {
    let mut s = format!(
        "# Positions imported from Fairy-Stockfish .bin training data.\n[import]\nformat = \
         \"fsf-bin\"\nrecord_bytes = {RECORD_BYTES}\nvariant = {:?}\nscore = \"FSF internal \
         units / 2.08 = cp\"\nmove = \"not imported (0)\"\n",
        v.name
    );
    for f in files {
        let (bytes, crc) = file_crc(f)?;
        s.push_str(&format!(
            "\n[[import.source]]\npath = {:?}\nbytes = {bytes}\ncrc32 = \"{crc:08x}\"\n",
            f.display().to_string()
        ));
    }
    Ok(s)
}

fn file_crc(path: &Path) -> Result<(u64, u32)> {
    use std::io::Read;
    let mut f = std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let (mut h, mut buf, mut n) = (crc32fast::Hasher::new(), vec![0u8; 1 << 16], 0u64);
    loop {
        let k = f.read(&mut buf).with_context(|| format!("reading {}", path.display()))?;
        if k == 0 {
            return Ok((n, h.finalize()));
        }
        h.update(&buf[..k]);
        n += k as u64;
    }
}
