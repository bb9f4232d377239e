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
