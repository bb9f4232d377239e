//! `kage-data shuffle`: seeded shuffle in bounded memory.
//!
//! Pass 1 deals every record to one of N bucket files at random (N chosen so
//! that one bucket fits the memory budget); pass 2 loads one bucket at a
//! time, shuffles it (Fisher-Yates) and appends it to the output. Every
//! permutation of the input is reachable and the result depends only on the
//! seed and the input order.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use kage_data::{GameRecord, PositionRecord, Record, RecordKind, Writer, read_all};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::common::{check_damage, joined_header, open};

pub fn run(
    out: &Path,
    files: &[PathBuf],
    seed: u64,
    memory_mb: u64,
    allow_damaged: bool,
    allow_mixed_builds: bool,
) -> Result<ExitCode> {
    let header = joined_header(out, files, "shuffle", allow_mixed_builds)?;
    let bytes: u64 = files
        .iter()
        .map(|f| std::fs::metadata(f).map(|m| m.len()).with_context(|| format!("{}", f.display())))
        .sum::<Result<u64>>()?;
    // Decoded records take roughly 2x their encoded size (more for games).
    let budget = memory_mb.max(1) << 20;
    let buckets = (bytes * 2).div_ceil(budget).clamp(1, 4096) as usize;
    let res = match header.kind() {
        RecordKind::Position => {
            shuffle::<PositionRecord>(out, files, &header, seed, buckets, allow_damaged)
        }
        RecordKind::Game => {
            shuffle::<GameRecord>(out, files, &header, seed, buckets, allow_damaged)
        }
    };
    let n = match res {
        Ok(n) => n,
        Err(e) => {
            let _ = std::fs::remove_file(kage_data::tmp_path(out));
            return Err(e);
        }
    };
    eprintln!("kage-data: shuffled {n} records into {} ({buckets} bucket(s))", out.display());
    Ok(ExitCode::SUCCESS)
}

fn shuffle<R: Record>(
    out: &Path,
    files: &[PathBuf],
    header: &kage_data::FileHeader,
    seed: u64,
    buckets: usize,
    allow_damaged: bool,
) -> Result<u64> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut writer = Writer::<R>::create(out, header.clone())?; // the error names the file
    if buckets == 1 {
        let mut all = Vec::new();
        for f in files {
            let mut r = open::<R>(f)?;
            while let Some(chunk) = r.next_chunk()? {
                all.extend(chunk);
            }
            check_damage(&r, allow_damaged)?;
        }
        all.shuffle(&mut rng);
        writer.write_all(&all)?;
        return Ok(writer.finish()?.records);
    }
    let tmp_dir = {
        let mut s = out.as_os_str().to_owned();
        s.push(".shuffle-buckets");
        PathBuf::from(s)
    };
    check_bucket_dir(&tmp_dir, files)?;
    std::fs::create_dir_all(&tmp_dir).with_context(|| format!("creating {}", tmp_dir.display()))?;
    let result = (|| -> Result<u64> {
        let paths: Vec<PathBuf> =
            (0..buckets).map(|i| tmp_dir.join(format!("bucket-{i:04}.kdata"))).collect();
        let mut writers = paths
            .iter()
            .map(|p| {
                let mut w = Writer::<R>::create(p, header.clone())?;
                w.set_chunk_target(64 << 10);
                Ok(w)
            })
            .collect::<Result<Vec<_>>>()?;
        for f in files {
            let mut r = open::<R>(f)?;
            while let Some(chunk) = r.next_chunk()? {
                for rec in &chunk {
                    writers[rng.random_range(0..buckets)].write(rec)?;
                }
            }
            check_damage(&r, allow_damaged)?;
        }
        for w in writers {
            w.finish()?;
        }
        for p in &paths {
            let (_, mut recs, _) = read_all::<R>(p)?;
            recs.shuffle(&mut rng);
            writer.write_all(&recs)?;
            std::fs::remove_file(p).with_context(|| format!("removing {}", p.display()))?;
        }
        Ok(writer.finish()?.records)
    })();
    let _ = std::fs::remove_dir_all(&tmp_dir);
    result
}

/// The bucket directory is removed when shuffling ends: refuse one that holds anything but
/// buckets (a leftover of an interrupted shuffle), or an input.
fn check_bucket_dir(dir: &Path, files: &[PathBuf]) -> Result<()> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Ok(()) };
    let canon = std::fs::canonicalize(dir).with_context(|| format!("{}", dir.display()))?;
    for f in files {
        if std::fs::canonicalize(f).is_ok_and(|c| c.starts_with(&canon)) {
            anyhow::bail!(
                "{} is inside {}, the bucket directory shuffle removes when done; move it or \
                 name another --out",
                f.display(),
                dir.display()
            );
        }
    }
    for e in entries {
        let e = e.with_context(|| format!("listing {}", dir.display()))?;
        let name = e.file_name();
        let name = name.to_string_lossy();
        let bucket = name.starts_with("bucket-")
            && (name.ends_with(".kdata") || name.ends_with(".kdata.tmp"));
        if !bucket {
            anyhow::bail!(
                "{} exists and holds {name}, which is not a shuffle bucket; shuffle removes \
                 that directory when done: move it or name another --out",
                dir.display()
            );
        }
    }
    Ok(())
}
