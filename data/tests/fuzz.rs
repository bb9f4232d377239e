//! Fuzzing the data file parsers (issue #31): whatever the bytes, the header parser, the
//! chunk reader, the record decoder and the file identity never panic, never hang, and never
//! make an allocation out of proportion to their input.
//!
//! Each target runs for a time budget, `KAGE_FUZZ_SECS` seconds (default 3), in batches of
//! proptest cases with fixed seeds, so a plain `cargo test` runs it and a failure is
//! reproducible (proptest shrinks it and prints the input). Mutations keep chunk checksums
//! valid where they ask to, so that hostile lengths reach the record decoder instead of
//! stopping at the CRC.
//!
//! A counting global allocator records the largest single allocation made on the thread
//! under test ([`largest_allocation`]). The bound asserted, and why it holds:
//!
//! * decoding records from a byte slice ([`kage_data::decode_chunk`]): at most
//!   `4 * len + 4096` bytes. The record vector reserves at most `len / MIN_ENCODED_LEN`
//!   records (a `GameRecord` is 112 bytes in memory for at least 48 encoded, a ratio under
//!   2.5); a vector or string inside a record reserves at most 256 elements up front and
//!   grows only as elements arrive, so it ends within twice the bytes it consumed;
//! * reading a file: at most `max(1 MiB + 4096, 4 * len + 4096)` bytes: the reader's fixed
//!   1 MiB read buffer, plus payloads and header bodies no longer than the file (they are
//!   checked against the file's length, or grown as bytes arrive) and the records decoded
//!   from them (as above).
//!
//! Before these limits a record claiming 2^40 moves made the reader allocate 2^40 bytes and
//! abort.

// The counting allocator and the time budget, shared with the engine's fuzz run.
#[path = "../../engine/tests/fuzz_support/mod.rs"]
mod fuzz_support;

use std::path::Path;
use std::time::Instant;

use fuzz_support::{budget, largest_allocation};
use kage_data::synth::Synth;
use kage_data::{
    FileHeader, GameRecord, PositionRecord, Reader, Record, RecordKind, Writer, decode_chunk,
};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

/// Runs `test` on values of `strategy` in seeded batches until the budget is spent (at
/// least one batch); a failure panics with the shrunk input.
fn fuzz<S: Strategy>(name: &str, strategy: S, test: impl Fn(S::Value) -> Result<(), TestCaseError>)
where
    S::Value: std::fmt::Debug,
{
    let start = Instant::now();
    let mut cases = 0u64;
    for batch in 0u64.. {
        let mut seed = [0u8; 32];
        seed[..8].copy_from_slice(&batch.to_le_bytes());
        seed[8..8 + name.len().min(24)].copy_from_slice(&name.as_bytes()[..name.len().min(24)]);
        let config = Config { cases: 32, failure_persistence: None, ..Config::default() };
        let mut runner =
            TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &seed));
        if let Err(e) = runner.run(&strategy, &test) {
            panic!("{name}: batch {batch}: {e}");
        }
        cases += 32;
        if start.elapsed() >= budget() {
            break;
        }
    }
    eprintln!("{name}: {cases} cases in {:.1} s", start.elapsed().as_secs_f64());
}

fn file_bound(len: usize) -> usize {
    (4 * len + 4096).max((1 << 20) + 4096)
}

fn slice_bound(len: usize) -> usize {
    4 * len + 4096
}

/// Reads a file every way the tools do: records (of the kind it holds), then its identity.
fn read_every_way(path: &Path) {
    for kind in [RecordKind::Position, RecordKind::Game] {
        let _ = match kind {
            RecordKind::Position => drain::<PositionRecord>(path),
            RecordKind::Game => drain::<GameRecord>(path),
        };
    }
    let _ = kage_data::lineage::file_id(path);
    let _ = FileHeader::read_file(path).map(|h| kage_data::variant::of_header(&h).is_ok());
}

fn drain<R: Record>(path: &Path) -> kage_data::Result<u64> {
    let mut r = Reader::<R>::open(path)?;
    let mut n = 0;
    while let Some(chunk) = r.next_chunk()? {
        n += chunk.len() as u64;
    }
    Ok(n)
}

fn valid_file(kind: RecordKind) -> Vec<u8> {
    static FILES: std::sync::OnceLock<[Vec<u8>; 2]> = std::sync::OnceLock::new();
    let files = FILES
        .get_or_init(|| [make_valid_file(RecordKind::Position), make_valid_file(RecordKind::Game)]);
    files[usize::from(kind == RecordKind::Game)].clone()
}

fn make_valid_file(kind: RecordKind) -> Vec<u8> {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("v.kdata");
    let config = "nodes = 100\nvariant_spec = \"name = 1\"\n";
    let h = FileHeader::new(kind, "minishogi", config, "rev", "fuzz").unwrap();
    let mut s = Synth::new(9);
    match kind {
        RecordKind::Position => {
            let mut w = Writer::<PositionRecord>::create(&p, h).unwrap();
            w.set_chunk_target(300);
            for _ in 0..60 {
                w.write(&s.position()).unwrap();
            }
            w.finish().unwrap();
        }
        RecordKind::Game => {
            let mut w = Writer::<GameRecord>::create(&p, h).unwrap();
            w.set_chunk_target(400);
            for i in 0..12 {
                w.write(&s.game("minishogi", i)).unwrap();
            }
            w.finish().unwrap();
        }
    }
    std::fs::read(&p).unwrap()
}

/// Makes the checksum of every chunk that can still be walked by its lengths valid again.
fn fix_crcs(v: &mut [u8]) {
    if v.len() < 18 {
        return;
    }
    let mut at = 18 + u32::from_le_bytes(v[10..14].try_into().unwrap()) as usize;
    while at + 16 <= v.len() && (&v[at..at + 4] == b"KCHK" || &v[at..at + 4] == b"KEND") {
        let len = u32::from_le_bytes(v[at + 4..at + 8].try_into().unwrap()) as usize;
        if at + 16 + len > v.len() {
            break;
        }
        let mut h = crc32fast::Hasher::new();
        h.update(&v[at + 4..at + 12]);
        h.update(&v[at + 16..at + 16 + len]);
        v[at + 12..at + 16].copy_from_slice(&h.finalize().to_le_bytes());
        at += 16 + len;
    }
}

/// A length a hostile file would put in a length field.
fn lie() -> impl Strategy<Value = u64> {
    prop_oneof![
        Just(1u64 << 40),
        Just(u64::MAX),
        Just(1 << 62),
        Just(30 << 20),
        Just(64 << 20),
        0u64..4096,
        any::<u64>(),
    ]
}

#[derive(Debug, Clone)]
struct Mutation {
    edits: Vec<(prop::sample::Index, u8)>,
    lies: Vec<(prop::sample::Index, u64, bool)>,
    fix: bool,
    cut: Option<prop::sample::Index>,
}

fn mutation() -> impl Strategy<Value = Mutation> {
    (
        proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..8),
        proptest::collection::vec((any::<prop::sample::Index>(), lie(), any::<bool>()), 0..4),
        any::<bool>(),
        proptest::option::weighted(0.2, any::<prop::sample::Index>()),
    )
        .prop_map(|(edits, lies, fix, cut)| Mutation { edits, lies, fix, cut })
}

fn mutate(mut v: Vec<u8>, m: &Mutation) -> Vec<u8> {
    for (i, b) in &m.edits {
        let i = i.index(v.len());
        v[i] = *b;
    }
    for (i, value, narrow) in &m.lies {
        let width = if *narrow { 4 } else { 8 };
        let i = i.index(v.len() - width);
        v[i..i + width].copy_from_slice(&value.to_le_bytes()[..width]);
    }
    if m.fix {
        fix_crcs(&mut v);
    }
    if let Some(c) = &m.cut {
        v.truncate(c.index(v.len()));
    }
    v
}

#[test]
fn mutated_files_are_read_within_bounds() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("m.kdata");
    let kinds = prop_oneof![Just(RecordKind::Position), Just(RecordKind::Game)];
    fuzz("mutated files", (kinds, mutation()), |(kind, m)| {
        let v = mutate(valid_file(kind), &m);
        std::fs::write(&p, &v).unwrap();
        let ((), largest) = largest_allocation(|| read_every_way(&p));
        prop_assert!(
            largest <= file_bound(v.len()),
            "{largest} bytes allocated at once for a {}-byte file",
            v.len()
        );
        Ok(())
    });
}

#[test]
fn random_bytes_behind_a_valid_header_are_read_within_bounds() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("r.kdata");
    let bytes = proptest::collection::vec(any::<u8>(), 0..3000);
    fuzz("random bytes", (bytes, any::<bool>()), |(bytes, behind_header)| {
        let mut v = Vec::new();
        if behind_header {
            v = valid_file(RecordKind::Game);
            v.truncate(18 + u32::from_le_bytes(v[10..14].try_into().unwrap()) as usize);
        }
        v.extend_from_slice(&bytes);
        fix_crcs(&mut v);
        std::fs::write(&p, &v).unwrap();
        let ((), largest) = largest_allocation(|| read_every_way(&p));
        prop_assert!(largest <= file_bound(v.len()), "{largest} for {} bytes", v.len());
        Ok(())
    });
}

/// Encoded real records, to mutate.
fn record_bytes(kind: RecordKind) -> Vec<u8> {
    let mut s = Synth::new(4);
    let cfg = kage_data::BINCODE_CONFIG;
    let mut out = Vec::new();
    for i in 0..4 {
        let rec = match kind {
            RecordKind::Game => bincode::encode_to_vec(s.game("shinobi", i), cfg),
            RecordKind::Position => bincode::encode_to_vec(s.position(), cfg),
        };
        out.extend(rec.unwrap());
    }
    out
}

#[test]
fn raw_records_decode_within_bounds() {
    let kinds = prop_oneof![Just(RecordKind::Position), Just(RecordKind::Game)];
    fuzz("raw records", (kinds, mutation(), 1u32..8), |(kind, m, count)| {
        let bytes = mutate(record_bytes(kind), &Mutation { fix: false, ..m });
        let (n, largest) = largest_allocation(|| match kind {
            RecordKind::Game => decode_chunk::<GameRecord>(&bytes, count).map(|r| r.len()),
            RecordKind::Position => {
                decode_chunk::<PositionRecord>(&bytes, count).map(|recs| {
                    // Decoded positions go to the engine, which validates them.
                    for r in &recs {
                        let _ = r.pos.to_position(kage_engine::Variant::builtin(
                            kage_engine::VariantId::MINISHOGI,
                        ));
                    }
                    recs.len()
                })
            }
        });
        if let Ok(n) = n {
            prop_assert_eq!(n, count as usize);
        }
        prop_assert!(largest <= slice_bound(bytes.len()), "{largest} for {} bytes", bytes.len());
        Ok(())
    });
}

#[test]
fn headers_parse_within_bounds() {
    let header = FileHeader::new(RecordKind::Game, "minishogi", "a = 1", "rev", "fuzz")
        .unwrap()
        .with_sources([kage_data::FileId(7), kage_data::FileId(9)])
        .unwrap()
        .to_bytes();
    fuzz("headers", mutation(), |m| {
        let fix = m.fix;
        let mut v = mutate(header.clone(), &Mutation { fix: false, ..m });
        // Half the time, a valid body checksum, so that the body parser sees the lies.
        if v.len() >= 18 && fix {
            let crc = crc32fast::hash(&v[18..]);
            v[14..18].copy_from_slice(&crc.to_le_bytes());
        }
        let (res, largest) = largest_allocation(|| {
            FileHeader::read_from(&mut &v[..], Path::new("h")).map(|(h, _)| h)
        });
        if let Ok(h) = res {
            prop_assert_eq!(
                FileHeader::read_from(&mut &h.to_bytes()[..], Path::new("h")).unwrap().0,
                h
            );
        }
        prop_assert!(largest <= slice_bound(v.len()), "{largest} for {} bytes", v.len());
        Ok(())
    });
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Arbitrary record bytes either fail to decode or decode to a position
    /// that the engine accepts or rejects with an error, in every variant.
    #[test]
    fn arbitrary_compact_positions_never_panic(bytes in proptest::collection::vec(any::<u8>(), 63)) {
        if let Ok((rec, _)) = bincode::decode_from_slice::<PositionRecord, _>(&bytes, kage_data::BINCODE_CONFIG) {
            for id in kage_engine::VariantId::ALL {
                let v = kage_engine::Variant::builtin(id);
                if let Ok(pos) = rec.pos.to_position(v) {
                    let back = kage_data::CompactPosition::from_position(&pos).unwrap();
                    prop_assert_eq!(back.to_position(v).unwrap(), pos);
                }
            }
        }
    }

    /// Plausible boards (a few real piece codes on random squares, two kings).
    #[test]
    fn random_boards_never_panic(squares in proptest::collection::vec((0u8..64, 0u8..12, any::<bool>()), 0..40), stm in 0u8..2) {
        for id in kage_engine::VariantId::ALL {
            let v = kage_engine::Variant::builtin(id);
            let mut board = std::collections::BTreeMap::new();
            for &(sq, kind, black) in &squares {
                if sq < v.num_squares && (kind as usize) < v.num_kinds() {
                    board.insert(sq, (u8::from(black) << 5) | kind);
                }
            }
            let occupancy = board.keys().fold(0u64, |o, &s| o | (1 << s));
            let parts = kage_data::PositionParts {
                occupancy,
                board: board.values().copied().collect(),
                hand: vec![],
                stm,
                castling: 0,
                ep: kage_data::compact::NO_PIECE,
                halfmove: 0,
                fullmove: 1,
            };
            let c = kage_data::CompactPosition::from_parts(&parts).unwrap();
            if let Ok(pos) = c.to_position(v) {
                prop_assert_eq!(kage_data::CompactPosition::from_position(&pos).unwrap(), c);
            }
        }
    }
}
