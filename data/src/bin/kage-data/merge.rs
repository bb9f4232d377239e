//! `kage-data merge`: joins shard outputs, refusing mismatches and duplicates.
//!
//! All inputs must hold the same record kind, variant and generator config
//! hash. Game files must not repeat a game index (shards of one run number
//! their games disjointly). Position records carry no game index, so for them
//! a repeated input is detected per file: the same file given twice, or two
//! files with identical contents (same records in the same order), is refused.
//!
//! Inputs that overlap by lineage (one made from another, two made from a common file:
//! [`kage_data::lineage`]) are refused, and the output records its inputs as its sources.
//! Inputs written by different builds are refused unless `--allow-mixed-builds`.

use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Result, bail};
use kage_data::{GameRecord, PositionRecord, Record, RecordKind, Writer};

use crate::common::{check_damage, joined_header, open};

pub fn run(
    out: &Path,
    files: &[PathBuf],
    allow_damaged: bool,
    allow_mixed_builds: bool,
) -> Result<ExitCode> {
    let header = joined_header(out, files, "merge", allow_mixed_builds)?;
    let res = match header.kind() {
        RecordKind::Position => {
            merge::<PositionRecord>(out, files, &header, allow_damaged, |_| None)
        }
        RecordKind::Game => {
            merge::<GameRecord>(out, files, &header, allow_damaged, |g| Some(g.game_index))
        }
    };
    match res {
        Ok(n) => {
            eprintln!(
                "kage-data: merged {n} records from {} file(s) into {}",
                files.len(),
                out.display()
            );
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            let _ = std::fs::remove_file(kage_data::tmp_path(out));
            Err(e)
        }
    }
}

fn merge<R: Record + Hash>(
    out: &Path,
    files: &[PathBuf],
    header: &kage_data::FileHeader,
    allow_damaged: bool,
    key: impl Fn(&R) -> Option<u64>,
) -> Result<u64> {
    let mut w = Writer::<R>::create(out, header.clone())?; // the error names the file
    let mut indices: HashMap<u64, usize> = HashMap::new();
    let mut digests: HashSet<(u64, u64)> = HashSet::new();
    let mut digest_owner: HashMap<(u64, u64), usize> = HashMap::new();
    for (fi, f) in files.iter().enumerate() {
        let mut r = open::<R>(f)?;
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        let count = w.append_from(&mut r, |rec| {
            if let Some(k) = key(rec)
                && let Some(prev) = indices.insert(k, fi)
            {
                bail!(
                    "game index {k} appears in {} and in {}; shards must number games disjointly",
                    files[prev].display(),
                    f.display()
                );
            }
            rec.hash(&mut hasher);
            Ok(())
        })?;
        check_damage(&r, allow_damaged)?;
        let digest = (hasher.finish(), count);
        if count > 0 && !digests.insert(digest) {
            bail!(
                "{} has the same {count} records as {}; refusing to merge a duplicate shard",
                f.display(),
                files[digest_owner[&digest]].display()
            );
        }
        digest_owner.insert(digest, fi);
    }
    Ok(w.finish()?.records)
}
