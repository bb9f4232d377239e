//! `kage-data bench`: write N synthetic positions, stream them back, report rates.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result};
use kage_data::synth::Synth;
use kage_data::{FileHeader, PositionRecord, Reader, RecordKind, Writer};

fn rate(n: u64, secs: f64) -> String {
    format!("{:.2} M positions/s", n as f64 / secs / 1e6)
}

pub fn run(positions: u64, dir: Option<PathBuf>) -> Result<ExitCode> {
    let dir = dir.unwrap_or_else(std::env::temp_dir);
    let path = dir.join(format!("kage-data-bench-{}.kdata", std::process::id()));
    let res = bench(positions, &path);
    let _ = std::fs::remove_file(&path);
    let _ = std::fs::remove_file(kage_data::tmp_path(&path));
    res
}

fn bench(n: u64, path: &std::path::Path) -> Result<ExitCode> {
    codec_comparison();
    engine_conversion()?;
    let header = FileHeader::new(
        RecordKind::Position,
        "minishogi",
        "bench = true\n",
        "bench",
        "kage-data bench",
    )?;
    // Generate in batches so that generation time is not counted as writing.
    let mut synth = Synth::new(1);
    let batch: Vec<PositionRecord> = (0..1_000_000.min(n)).map(|_| synth.position()).collect();
    let t = Instant::now();
    let mut w = Writer::<PositionRecord>::create(path, header)
        .with_context(|| path.display().to_string())?;
    let mut left = n;
    while left > 0 {
        let k = left.min(batch.len() as u64) as usize;
        w.write_all(&batch[..k])?;
        left -= k as u64;
    }
    let summary = w.finish()?;
    let write_s = t.elapsed().as_secs_f64();
    let mb = summary.bytes as f64 / (1 << 20) as f64;
    println!(
        "write: {} positions, {mb:.1} MiB ({:.1} bytes/position) in {write_s:.2} s: {}, {:.0} MiB/s",
        summary.records,
        summary.bytes as f64 / n.max(1) as f64,
        rate(n, write_s),
        mb / write_s
    );

    let t = Instant::now();
    let mut r = Reader::<PositionRecord>::open(path)?;
    let (mut count, mut check) = (0u64, 0i64);
    while let Some(chunk) = r.next_chunk()? {
        count += chunk.len() as u64;
        check += chunk.iter().map(|p| i64::from(p.score)).sum::<i64>();
    }
    let read_s = t.elapsed().as_secs_f64();
    println!(
        "read (chunks): {count} positions in {read_s:.2} s: {}, {:.0} MiB/s (checksum {check})",
        rate(count, read_s),
        mb / read_s
    );

    let t = Instant::now();
    let (mut count2, mut check2) = (0u64, 0i64);
    for rec in Reader::<PositionRecord>::open(path)? {
        let rec = rec?;
        count2 += 1;
        check2 += i64::from(rec.score);
    }
    let iter_s = t.elapsed().as_secs_f64();
    println!(
        "read (per record): {count2} positions in {iter_s:.2} s: {} (checksum {check2})",
        rate(count2, iter_s)
    );
    anyhow::ensure!(
        count == n && count2 == n && check == check2,
        "read back a different number of positions"
    );
    Ok(ExitCode::SUCCESS)
}

/// Encode+decode speed of fixed-int vs varint bincode on 1M records in memory.
fn codec_comparison() {
    let mut synth = Synth::new(2);
    let recs: Vec<PositionRecord> = (0..1_000_000).map(|_| synth.position()).collect();
    let fixed = bincode::config::standard().with_fixed_int_encoding();
    let var = bincode::config::standard();
    macro_rules! measure {
        ($name:expr, $cfg:expr) => {{
            let mut buf = Vec::with_capacity(recs.len() * 64);
            let t = Instant::now();
            for r in &recs {
                let _ = bincode::encode_into_std_write(r, &mut buf, $cfg);
            }
            let enc = t.elapsed().as_secs_f64();
            let t = Instant::now();
            let (mut pos, mut n) = (0, 0u64);
            while pos < buf.len() {
                match bincode::decode_from_slice::<PositionRecord, _>(&buf[pos..], $cfg) {
                    Ok((_, used)) => {
                        pos += used;
                        n += 1;
                    }
                    Err(_) => break,
                }
            }
            let dec = t.elapsed().as_secs_f64();
            println!(
                "codec {}: {:.1} bytes/position, encode {}, decode {}",
                $name,
                buf.len() as f64 / recs.len() as f64,
                rate(recs.len() as u64, enc),
                rate(n, dec)
            );
        }};
    }
    measure!("fixint", fixed);
    measure!("varint", var);
}

/// Speed of CompactPosition <-> engine Position on positions of random games.
fn engine_conversion() -> Result<()> {
    use kage_data::CompactPosition;
    use rand::{Rng, SeedableRng};
    for name in ["shinobiplus", "minishogi"] {
        let v = kage_engine::Variant::by_name(name)?;
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(3);
        let mut positions = Vec::new();
        while positions.len() < 100_000 {
            let mut pos = kage_engine::Position::startpos(v);
            for _ in 0..150 {
                let moves = pos.legal_moves();
                if moves.is_empty() || pos.flag_reached() {
                    break;
                }
                pos.play(moves.as_slice()[rng.random_range(0..moves.len())]);
                positions.push(pos.clone());
            }
        }
        let t = Instant::now();
        let packed: Vec<CompactPosition> =
            positions.iter().map(CompactPosition::from_position).collect::<Result<_, _>>()?;
        let enc = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let mut ok = 0u64;
        for c in &packed {
            ok += u64::from(c.to_position(v).is_ok());
        }
        let dec = t.elapsed().as_secs_f64();
        anyhow::ensure!(ok == packed.len() as u64, "{name}: a position failed to decode");
        let t = Instant::now();
        let mut features = Vec::with_capacity(256);
        let mut total = 0usize;
        for c in &packed {
            for persp in kage_engine::Color::ALL {
                features.clear();
                c.active_features(v, persp, &mut features)?;
                total += features.len();
            }
        }
        let feat = t.elapsed().as_secs_f64();
        println!(
            "engine {name}: Position -> compact {}, compact -> Position (via FEN) {}, \
             compact -> features (both sides) {} ({total} features)",
            rate(packed.len() as u64, enc),
            rate(ok, dec),
            rate(packed.len() as u64, feat)
        );
    }
    Ok(())
}
