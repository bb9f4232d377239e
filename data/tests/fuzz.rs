//! The reader never panics, whatever the bytes.

use kage_data::synth::Synth;
use kage_data::{FileHeader, PositionRecord, Reader, RecordKind, Writer};
use proptest::prelude::*;

fn drain(path: &std::path::Path) {
    if let Ok(r) = Reader::<PositionRecord>::open(path) {
        for rec in r {
            if rec.is_err() {
                break;
            }
        }
    }
}

fn valid_file() -> Vec<u8> {
    static FILE: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    FILE.get_or_init(make_valid_file).clone()
}

fn make_valid_file() -> Vec<u8> {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("v.kdata");
    let h = FileHeader::new(RecordKind::Position, "minishogi", "", "", "").unwrap();
    let mut w = Writer::<PositionRecord>::create(&p, h).unwrap();
    w.set_chunk_target(300);
    let mut s = Synth::new(9);
    for _ in 0..60 {
        w.write(&s.position()).unwrap();
    }
    w.finish().unwrap();
    std::fs::read(&p).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2000)) {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("r.kdata");
        std::fs::write(&p, &bytes).unwrap();
        drain(&p);
        // Same bytes behind a valid header.
        let mut v = valid_file();
        let hl = 18 + u32::from_le_bytes(v[10..14].try_into().unwrap()) as usize;
        v.truncate(hl);
        v.extend_from_slice(&bytes);
        std::fs::write(&p, &v).unwrap();
        drain(&p);
    }

    #[test]
    fn mutated_files_never_panic(
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..20),
        cut in any::<prop::sample::Index>(),
        do_cut in any::<bool>(),
    ) {
        let mut v = valid_file();
        for (i, b) in edits {
            let i = i.index(v.len());
            v[i] = b;
        }
        if do_cut {
            v.truncate(cut.index(v.len()));
        }
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("m.kdata");
        std::fs::write(&p, &v).unwrap();
        drain(&p);
    }
}
