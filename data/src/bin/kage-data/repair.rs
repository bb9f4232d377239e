//! `kage-data repair`: salvages the intact chunks of a damaged or truncated file.
//!
//! Every chunk whose checksum holds is copied, records in order, to a new file with the same
//! header and a fresh end marker; damaged regions, a damaged end marker and a cut-off tail are
//! left out and reported. The input is never changed.

use std::path::Path;
use std::process::ExitCode;

use anyhow::{Result, bail};
use kage_data::{
    DataError, FileHeader, GameRecord, PositionRecord, Reader, Record, RecordKind, Writer,
};

use crate::common::check_output;
use kage_data::Lineage;
use kage_data::lineage::sources_for;

pub fn run(out: &Path, file: &Path) -> Result<ExitCode> {
    check_output(out, std::slice::from_ref(&file.to_path_buf()))?;
    let input = FileHeader::read_file(file)?;
    // The repaired file records the damaged one as its source (kage_data::lineage).
    let header = input.clone().with_sources(sources_for(&[Lineage::of(file)?]))?;
    let res = match header.kind() {
        RecordKind::Position => repair::<PositionRecord>(out, file, &header),
        RecordKind::Game => repair::<GameRecord>(out, file, &header),
    };
    if res.is_err() {
        let _ = std::fs::remove_file(kage_data::tmp_path(out));
    }
    let r = res?;
    eprintln!(
        "kage-data: repair: {} records in {} intact chunk(s) written to {}",
        r.records,
        r.chunks,
        out.display()
    );
    for d in &r.problems {
        eprintln!("kage-data: repair: left out: {d}");
    }
    match r.declared {
        Some(total) if total != r.records => eprintln!(
            "kage-data: repair: the end marker counts {total} records: {} lost",
            total.abs_diff(r.records)
        ),
        Some(_) => {}
        None => eprintln!(
            "kage-data: repair: no intact end marker: how many records were lost is unknown"
        ),
    }
    Ok(ExitCode::SUCCESS)
}

struct Repaired {
    records: u64,
    chunks: u64,
    declared: Option<u64>,
    problems: Vec<String>,
}

fn repair<R: Record>(out: &Path, file: &Path, header: &FileHeader) -> Result<Repaired> {
    let mut r = Reader::<R>::open(file)?;
    let mut w = Writer::<R>::create(out, header.clone())?; // the error names the file
    let mut chunks = 0u64;
    let mut problems = Vec::new();
    loop {
        match r.next_chunk() {
            Ok(Some(chunk)) => {
                w.write_all(&chunk)?;
                // One output chunk per input chunk keeps the layout recognisable.
                w.flush_chunk()?;
                chunks += 1;
            }
            Ok(None) => break,
            // A cut-off tail or a damaged end marker: what came before is kept.
            Err(e @ DataError::Truncated { .. }) => {
                problems.push(e.to_string());
                break;
            }
            Err(e) => return Err(e.into()),
        }
    }
    let mut all: Vec<String> = r.damage().iter().map(|d| d.to_string()).collect();
    all.extend(problems);
    let declared = r.declared_records();
    if chunks == 0 && declared.is_none() {
        bail!("{}: no intact chunk to salvage", file.display());
    }
    let records = w.finish()?.records;
    Ok(Repaired { records, chunks, declared, problems: all })
}
