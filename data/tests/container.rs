//! Container format behaviour: round trips, damage, truncation, bad headers.

use std::path::{Path, PathBuf};

use kage_data::synth::Synth;
use kage_data::{
    DataError, FileHeader, GameRecord, PartDir, PositionRecord, Reader, Record, RecordKind, Writer,
    read_all, tmp_path,
};

fn header(kind: RecordKind, variant: &str) -> FileHeader {
    FileHeader::new(kind, variant, "nodes = 5000\nseed = 1\n", "abc123", "container-test").unwrap()
}

fn positions(n: usize, seed: u64) -> Vec<PositionRecord> {
    let mut s = Synth::new(seed);
    (0..n).map(|_| s.position()).collect()
}

fn write<R: Record>(path: &Path, h: FileHeader, recs: &[R], chunk: usize) {
    let mut w = Writer::<R>::create(path, h).unwrap();
    w.set_chunk_target(chunk);
    w.write_all(recs).unwrap();
    let s = w.finish().unwrap();
    assert_eq!(s.records, recs.len() as u64);
    assert_eq!(s.bytes, std::fs::metadata(path).unwrap().len());
}

fn dir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

#[test]
fn positions_round_trip() {
    let d = dir();
    let p = d.path().join("pos.kdata");
    let recs = positions(5000, 1);
    write(&p, header(RecordKind::Position, "minishogi"), &recs, 4096);
    assert!(!tmp_path(&p).exists());
    let (h, back, damage) = read_all::<PositionRecord>(&p).unwrap();
    assert_eq!(h, header(RecordKind::Position, "minishogi"));
    assert_eq!(h.config_hash(), kage_data::config_hash("nodes = 5000\nseed = 1\n"));
    assert!(damage.is_empty());
    assert_eq!(back, recs);
    // Per-record iteration gives the same records.
    let it: Vec<_> = Reader::<PositionRecord>::open(&p).unwrap().map(|r| r.unwrap()).collect();
    assert_eq!(it, recs);
}

#[test]
fn games_round_trip() {
    let d = dir();
    let p = d.path().join("games.kdata");
    let mut s = Synth::new(2);
    let games: Vec<GameRecord> = (0..300).map(|i| s.game("shinobiplus", i)).collect();
    write(&p, header(RecordKind::Game, "shinobiplus"), &games, 2000);
    let (_, back, damage) = read_all::<GameRecord>(&p).unwrap();
    assert!(damage.is_empty());
    assert_eq!(back, games);
}

#[test]
fn empty_file_round_trips() {
    let d = dir();
    let p = d.path().join("empty.kdata");
    write::<PositionRecord>(&p, header(RecordKind::Position, "shinobi"), &[], 4096);
    let (_, back, damage) = read_all::<PositionRecord>(&p).unwrap();
    assert!(back.is_empty() && damage.is_empty());
}

/// Offsets of the chunks of a file (walks the framing by hand).
fn chunk_offsets(p: &Path) -> Vec<(u64, u32)> {
    let bytes = std::fs::read(p).unwrap();
    let body = u32::from_le_bytes(bytes[10..14].try_into().unwrap()) as usize;
    let mut off = 18 + body;
    let mut out = Vec::new();
    while off < bytes.len() {
        let len = u32::from_le_bytes(bytes[off + 4..off + 8].try_into().unwrap()) as usize;
        let count = u32::from_le_bytes(bytes[off + 8..off + 12].try_into().unwrap());
        out.push((off as u64, count));
        off += 16 + len;
    }
    out
}

/// Writes `n` Minishogi positions (seed `seed`) to `p` in chunks of about `chunk` bytes, for a
/// test to damage: the records, the chunks' offsets and record counts, and the file's bytes.
fn file_to_damage(
    p: &Path,
    n: usize,
    seed: u64,
    chunk: usize,
) -> (Vec<PositionRecord>, Vec<(u64, u32)>, Vec<u8>) {
    let recs = positions(n, seed);
    write(p, header(RecordKind::Position, "minishogi"), &recs, chunk);
    (recs, chunk_offsets(p), std::fs::read(p).unwrap())
}

fn damaged_read(p: &Path) -> (Vec<PositionRecord>, Vec<kage_data::Damage>, Vec<String>) {
    use std::sync::{Arc, Mutex};
    let seen = Arc::new(Mutex::new(Vec::new()));
    let seen2 = Arc::clone(&seen);
    let mut r = Reader::<PositionRecord>::open(p)
        .unwrap()
        .on_damage(move |d| seen2.lock().unwrap().push(d.to_string()));
    let recs: Vec<_> = r.by_ref().map(|x| x.unwrap()).collect();
    let damage = r.damage().to_vec();
    let seen = seen.lock().unwrap().clone();
    (recs, damage, seen)
}

/// Expected records when the chunks with the given indices are lost.
fn without_chunks(
    recs: &[PositionRecord],
    chunks: &[(u64, u32)],
    lost: &[usize],
) -> Vec<PositionRecord> {
    let mut out = Vec::new();
    let mut i = 0;
    for (ci, &(_, n)) in chunks.iter().enumerate() {
        if !lost.contains(&ci) {
            out.extend_from_slice(&recs[i..i + n as usize]);
        }
        i += n as usize;
    }
    out
}

#[test]
fn flipped_payload_bytes_skip_one_chunk() {
    let d = dir();
    let p = d.path().join("damaged.kdata");
    let (recs, chunks, mut bytes) = file_to_damage(&p, 20_000, 3, 8192);
    assert!(chunks.len() > 20);
    // Flip bytes in the middle of the payload of chunk 7.
    let target = chunks[7].0 as usize + 16 + 1000;
    for b in &mut bytes[target..target + 5] {
        *b ^= 0xa5;
    }
    std::fs::write(&p, &bytes).unwrap();
    let (back, damage, seen) = damaged_read(&p);
    assert_eq!(damage.len(), 1, "{damage:?}");
    assert_eq!(damage[0].offset, chunks[7].0);
    assert_eq!(damage[0].length, chunks[8].0 - chunks[7].0);
    assert_eq!(damage[0].reason, "checksum mismatch");
    assert_eq!(damage[0].path, p);
    assert_eq!(seen.len(), 1);
    assert!(seen[0].contains("damaged.kdata") && seen[0].contains(&chunks[7].0.to_string()));
    assert_eq!(back, without_chunks(&recs, &chunks, &[7]));
}

#[test]
fn damaged_chunk_headers_resynchronise() {
    let d = dir();
    let p = d.path().join("damaged.kdata");
    let (recs, chunks, mut bytes) = file_to_damage(&p, 20_000, 4, 8192);
    // Chunk 3: bad magic. Chunk 9: length pointing past the end of the file.
    // Chunk 15: record count changed. Chunks 20-21: zeroed across the boundary.
    bytes[chunks[3].0 as usize] = b'X';
    bytes[chunks[9].0 as usize + 4..chunks[9].0 as usize + 8]
        .copy_from_slice(&0x00ff_ffffu32.to_le_bytes());
    bytes[chunks[15].0 as usize + 8] ^= 1;
    let z = chunks[21].0 as usize;
    bytes[z - 100..z + 100].fill(0);
    std::fs::write(&p, &bytes).unwrap();
    let (back, damage, _) = damaged_read(&p);
    let offs: Vec<u64> = damage.iter().map(|d| d.offset).collect();
    assert_eq!(offs, vec![chunks[3].0, chunks[9].0, chunks[15].0, chunks[20].0]);
    assert_eq!(damage[3].length, chunks[22].0 - chunks[20].0);
    assert_eq!(back, without_chunks(&recs, &chunks, &[3, 9, 15, 20, 21]));
}

#[test]
fn truncated_files_are_errors_after_intact_records() {
    let d = dir();
    let p = d.path().join("t.kdata");
    let recs = positions(3000, 5);
    write(&p, header(RecordKind::Position, "gorogoroplus"), &recs, 4096);
    let full = std::fs::read(&p).unwrap();
    let chunks = chunk_offsets(&p);
    let cuts = [
        full.len() - 1,             // inside the end marker
        full.len() - 24,            // exactly before the end marker
        chunks[5].0 as usize + 100, // inside a chunk
        chunks[5].0 as usize,       // on a chunk boundary
        chunks[0].0 as usize,       // header only
    ];
    for cut in cuts {
        std::fs::write(&p, &full[..cut]).unwrap();
        let mut r = Reader::<PositionRecord>::open(&p).unwrap();
        let mut got = Vec::new();
        let err = loop {
            match r.next() {
                Some(Ok(x)) => got.push(x),
                Some(Err(e)) => break e,
                None => panic!("cut at {cut}: no error"),
            }
        };
        assert!(matches!(err, DataError::Truncated { .. }), "cut at {cut}: {err}");
        assert!(err.to_string().contains("truncated"), "{err}");
        assert!(r.next().is_none());
        assert_eq!(got[..], recs[..got.len()], "cut at {cut}");
        assert!(r.damage().is_empty(), "cut at {cut}: {:?}", r.damage());
    }
    // Truncated inside the header.
    for cut in [3, 9, 17, 30] {
        std::fs::write(&p, &full[..cut]).unwrap();
        let err = Reader::<PositionRecord>::open(&p).err().unwrap();
        assert!(matches!(err, DataError::Truncated { .. }), "cut at {cut}: {err}");
    }
}

#[test]
fn bad_headers_give_typed_errors() {
    let d = dir();
    let p = d.path().join("h.kdata");
    write(&p, header(RecordKind::Position, "minishogi"), &positions(10, 6), 4096);
    let good = std::fs::read(&p).unwrap();

    let mut b = good.clone();
    b[0] = b'X';
    std::fs::write(&p, &b).unwrap();
    let e = Reader::<PositionRecord>::open(&p).err().unwrap();
    assert!(matches!(e, DataError::BadMagic { .. }), "{e}");
    assert!(e.to_string().contains("not a kage data file"));

    std::fs::write(&p, b"").unwrap();
    assert!(matches!(Reader::<PositionRecord>::open(&p), Err(DataError::BadMagic { .. })));

    let mut b = good.clone();
    b[8..10].copy_from_slice(&(kage_data::NEWEST_FORMAT_VERSION + 1).to_le_bytes());
    std::fs::write(&p, &b).unwrap();
    let e = Reader::<PositionRecord>::open(&p).err().unwrap();
    assert!(matches!(e, DataError::NewerVersion { found: 3, supported: 2, .. }), "{e}");
    assert!(e.to_string().contains("upgrade kage"));

    let mut b = good.clone();
    b[30] ^= 0xff;
    std::fs::write(&p, &b).unwrap();
    let e = Reader::<PositionRecord>::open(&p).err().unwrap();
    assert!(matches!(e, DataError::BadHeader { .. }), "{e}");

    std::fs::write(&p, &good).unwrap();
    let e = Reader::<PositionRecord>::open_variant(&p, "shinobi").err().unwrap();
    assert!(matches!(e, DataError::WrongVariant { .. }), "{e}");
    assert_eq!(
        e.to_string(),
        format!("{}: file is for variant \"minishogi\", expected variant \"shinobi\"", p.display())
    );
    assert!(Reader::<PositionRecord>::open_variant(&p, "minishogi").is_ok());
    let e = Reader::<GameRecord>::open(&p).err().unwrap();
    assert!(matches!(e, DataError::WrongKind { .. }), "{e}");

    let e = Reader::<PositionRecord>::open(d.path().join("missing.kdata")).err().unwrap();
    assert!(matches!(e, DataError::Io { .. }), "{e}");
}

#[test]
fn writer_refuses_mismatched_kind_and_bad_header() {
    let d = dir();
    let e =
        Writer::<GameRecord>::create(d.path().join("x"), header(RecordKind::Position, "minishogi"));
    assert!(matches!(e, Err(DataError::InvalidHeader(_))));
    assert!(FileHeader::new(RecordKind::Game, "", "", "", "").is_err());
    assert!(FileHeader::new(RecordKind::Game, "mini shogi", "", "", "").is_err());
}

#[test]
fn unfinished_writer_leaves_only_tmp_and_resumes() {
    let d = dir();
    let p = d.path().join("run.kdata");
    let h = header(RecordKind::Position, "shinobi");
    let recs = positions(1000, 7);
    {
        let mut w = Writer::<PositionRecord>::create(&p, h.clone()).unwrap();
        w.set_chunk_target(2048);
        w.write_all(&recs[..600]).unwrap();
        w.flush_chunk().unwrap();
        // Dropped without finish: a crash.
    }
    assert!(!p.exists());
    let tmp = tmp_path(&p);
    // Simulate a half-written chunk at the end.
    let mut b = std::fs::read(&tmp).unwrap();
    b.extend_from_slice(b"KCHK\x10\x00\x00\x00garbage");
    std::fs::write(&tmp, &b).unwrap();

    let (mut w, done) = Writer::<PositionRecord>::resume(&p, h.clone()).unwrap();
    assert_eq!(done, 600);
    w.write_all(&recs[600..]).unwrap();
    w.finish().unwrap();
    let (_, back, damage) = read_all::<PositionRecord>(&p).unwrap();
    assert!(damage.is_empty());
    assert_eq!(back, recs);

    let other = header(RecordKind::Position, "minishogi");
    std::fs::write(&tmp, &b).unwrap();
    assert!(Writer::<PositionRecord>::resume(&p, other).is_err());
}

#[test]
fn part_dir_writes_complete_parts_and_cleans_tmp() {
    let d = dir();
    let h = header(RecordKind::Game, "minishogi");
    let mut s = Synth::new(8);
    let mut parts = PartDir::open(d.path().join("games")).unwrap();
    assert_eq!(parts.next_index(), 0);
    let mut all = Vec::new();
    for batch in 0..3u64 {
        let games: Vec<GameRecord> = (0..10).map(|i| s.game("minishogi", batch * 10 + i)).collect();
        parts.write_part(&h, &games).unwrap();
        all.extend(games);
    }
    let stale = tmp_path(&kage_data::part_path(&d.path().join("games"), 3));
    std::fs::write(&stale, b"half a batch").unwrap();
    let parts = PartDir::open(d.path().join("games")).unwrap();
    assert!(!stale.exists());
    assert_eq!(parts.next_index(), 3);
    let names: Vec<PathBuf> = parts.paths();
    assert!(names[0].ends_with("part-000000.kdata"));
    let mut back = Vec::new();
    for p in names {
        back.extend(read_all::<GameRecord>(&p).unwrap().1);
    }
    assert_eq!(back, all);
}

#[test]
fn undecodable_chunk_with_valid_checksum_is_skipped() {
    let d = dir();
    let p = d.path().join("undecodable.kdata");
    let (recs, chunks, mut bytes) = file_to_damage(&p, 3000, 10, 4096);
    let start = chunks[2].0 as usize;
    let len = u32::from_le_bytes(bytes[start + 4..start + 8].try_into().unwrap());
    let count = u32::from_le_bytes(bytes[start + 8..start + 12].try_into().unwrap());
    // Result byte of the first record (after the 55-byte position and the i16 score).
    bytes[start + 16 + 57] = 5;
    let mut h = crc32fast::Hasher::new();
    h.update(&len.to_le_bytes());
    h.update(&count.to_le_bytes());
    h.update(&bytes[start + 16..start + 16 + len as usize]);
    bytes[start + 12..start + 16].copy_from_slice(&h.finalize().to_le_bytes());
    // And junk after the end marker.
    bytes.extend_from_slice(b"junk");
    std::fs::write(&p, &bytes).unwrap();
    let (back, damage, _) = damaged_read(&p);
    assert_eq!(damage.len(), 2, "{damage:?}");
    assert_eq!(damage[0].offset, chunks[2].0);
    assert!(damage[0].reason.contains("do not decode"), "{}", damage[0].reason);
    assert_eq!(damage[1].reason, "bytes after the end marker");
    assert_eq!(damage[1].length, 4);
    assert_eq!(back, without_chunks(&recs, &chunks[..chunks.len() - 1], &[2]));
}
