//! FSF `.bin` records: hand-derived bytes, round trips on random-playout positions of every
//! built-in variant, and damaged input (a short trailing record, a bad piece code).

use kage_data::fsf_bin::{
    BinError, BinReader, BinWriter, Converter, FsfPosition, FsfRecord, RECORD_BYTES, RecordError,
    read_bin_file,
};
use kage_data::synth::Synth;
use kage_data::{PositionFlags, PositionRecord};
use kage_engine::nnue::fsf::layout::FsfLayout;
use kage_engine::{Color, Game, Position, Variant, VariantId};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// minishogi `rbsgk/4p/5/P4/KGSBR[-] w 0 1`, packed by hand from FSF-NNUE.md §8.2 (types
/// B R S D P G H K, codes 2·ordinal+1 least significant bit first, then the colour bit):
/// stm 0 | K a1 = 0000000 | k e5 = 24 = 0001100 | a5 r 11000 1 | b5 b 10000 1 | c5 s 10100 1 |
/// d5 g 11010 1 | e5 skipped | a4-d4 0000 | e4 p 10010 1 | rank 3 00000 | a2 P 10010 0 |
/// b2-e2 0000 | a1 skipped | b1 G 11010 0 | c1 S 10100 0 | d1 B 10000 0 | e1 R 11000 0 |
/// hands 16 × 00000 | castling 0000 | ep 0 | rule50 000000 | fullmove 1 (16 bits) | 0.
const MINISHOGI_START: [u8; 25] = [
    0x00, 0x98, 0x31, 0x2c, 0x57, 0x48, 0x41, 0x02, 0x4b, 0x11, 0x0c, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00,
];

fn conv(name: &str) -> Converter {
    Converter::new(Variant::by_name(name).expect("variant")).expect("layout")
}

#[test]
fn minishogi_start_position_packs_to_the_hand_derived_bytes() {
    let c = conv("minishogi");
    let (fsf, clamped) = c.pack_position(&Position::startpos(c.variant()));
    assert!(!clamped);
    let packed = fsf.pack(c.geometry()).expect("packs");
    assert_eq!(&packed[..25], &MINISHOGI_START);
    assert!(packed[25..].iter().all(|&b| b == 0));
    let back = c.unpack_position(&FsfPosition::unpack(&packed, c.geometry()).expect("unpacks"));
    assert_eq!(back.expect("valid").to_fen(), Position::startpos(c.variant()).to_fen());
}

#[test]
fn every_start_position_round_trips() {
    for id in VariantId::ALL {
        let c = Converter::new(Variant::builtin(id)).expect("layout");
        let start = Position::startpos(c.variant());
        let packed = c.pack_position(&start).0.pack(c.geometry()).expect("packs");
        let fsf = FsfPosition::unpack(&packed, c.geometry()).expect("unpacks");
        assert_eq!(c.unpack_position(&fsf).expect("valid").to_fen(), start.to_fen(), "{id:?}");
    }
}

/// Positions of random playouts (legal moves only), the last position of each game too.
fn playout(v: &'static Variant, games: usize, seed: u64) -> Vec<Position> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut out = Vec::new();
    for _ in 0..games {
        let mut game = Game::startpos(v);
        for _ in 0..rng.random_range(20..160) {
            let moves = game.position().legal_moves();
            if game.outcome().is_some() || moves.is_empty() {
                break;
            }
            out.push(game.position().clone());
            game.play(moves.as_slice()[rng.random_range(0..moves.len())]);
        }
        out.push(game.position().clone());
    }
    out
}

/// What a position reads back as: a promoted piece whose FSF type is an unpromoted kind's
/// becomes that kind (the format does not say "promoted"), the clock at most 127.
fn expected_fen(c: &Converter, layout: &FsfLayout, pos: &Position) -> String {
    let v = c.variant();
    let mut setup = kage_engine::position::Setup::default();
    for sq in 0..v.num_squares {
        setup.board[usize::from(sq)] = pos.piece_on(sq).map(|p| kage_engine::Piece {
            color: p.color,
            kind: c.kind_of(layout.piece_ordinal(p.kind)).expect("kind"),
        });
    }
    for col in Color::ALL {
        for &k in &v.hand_kinds {
            setup.hands[col as usize][k.index()] = pos.hand(col, k);
        }
    }
    setup.side_to_move = pos.side_to_move();
    setup.castling = pos.castling_rights();
    setup.ep = pos.ep_square();
    setup.halfmove = pos.halfmove_clock().min(127);
    setup.fullmove = pos.fullmove_number();
    Position::from_setup(v, &setup).expect("normalised position is valid").to_fen()
}

#[derive(Default, Debug)]
struct Seen {
    positions: usize,
    hands: usize,
    promoted: usize,
    black: usize,
    king_moved: usize,
    exact: usize,
}

#[test]
fn kage_records_round_trip_through_bin_in_every_variant() {
    let mut synth = Synth::new(7);
    for id in VariantId::ALL {
        let c = Converter::new(Variant::builtin(id)).expect("layout");
        let v = c.variant();
        let layout = FsfLayout::for_variant(v).expect("layout");
        let start = Position::startpos(v);
        let mut seen = Seen::default();
        for pos in playout(v, 12, id.index() as u64 + 3) {
            let noise = synth.position();
            let mut rec = PositionRecord::from_position(&pos, 0, None, noise.ply, None, None)
                .expect("record");
            rec.score = noise.score;
            rec.result = noise.result;
            let exported = c.to_fsf(&rec).expect("exports");
            let bytes = exported.record.to_bytes();
            let back = c.from_fsf(&FsfRecord::from_bytes(&bytes)).expect("imports");
            assert_eq!(back.score, rec.score, "{id:?}: score");
            assert_eq!((back.result, back.ply, back.mv), (rec.result, rec.ply, 0));
            assert_eq!(back.flags.in_check(), pos.in_check());
            assert_eq!(back.flags.bits() & !PositionFlags::IN_CHECK, 0);
            let fen = back.pos.to_fen(v).expect("valid");
            assert_eq!(fen, expected_fen(&c, &layout, &pos), "{id:?}");
            seen.positions += 1;
            let ambiguous = (0..v.num_squares).any(|sq| {
                pos.piece_on(sq)
                    .is_some_and(|p| c.kind_of(layout.piece_ordinal(p.kind)) != Some(p.kind))
            });
            if !ambiguous && pos.halfmove_clock() <= 127 {
                assert_eq!(back.pos, rec.pos, "{id:?}: every field the format holds");
                seen.exact += 1;
            }
            seen.black += usize::from(pos.side_to_move() == Color::Black);
            seen.hands += usize::from(
                Color::ALL.iter().any(|&col| v.hand_kinds.iter().any(|&k| pos.hand(col, k) > 0)),
            );
            seen.promoted += usize::from(
                (0..v.num_squares)
                    .any(|sq| pos.piece_on(sq).is_some_and(|p| v.kind(p.kind).promoted)),
            );
            seen.king_moved += usize::from(
                Color::ALL.iter().any(|&col| pos.king_square(col) != start.king_square(col)),
            );
        }
        assert!(
            seen.hands > 0 && seen.promoted > 0 && seen.black > 0 && seen.king_moved > 0,
            "{id:?}: {seen:?}"
        );
        assert!(seen.exact > seen.positions / 4, "{id:?}: {seen:?}");
    }
}

fn start_record(c: &Converter) -> FsfRecord {
    let pos = Position::startpos(c.variant());
    let rec =
        PositionRecord::from_position(&pos, 37, Some(Color::White), 0, None, None).expect("record");
    c.to_fsf(&rec).expect("exports").record
}

#[test]
fn a_truncated_file_reports_its_partial_record() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("short.bin");
    let c = conv("gorogoroplus");
    let mut w = BinWriter::create(&path).expect("create");
    for _ in 0..3 {
        w.write(&start_record(&c)).expect("write");
    }
    assert_eq!(w.finish().expect("finish"), 3);
    let mut bytes = std::fs::read(&path).expect("read");
    assert_eq!(bytes.len(), 3 * RECORD_BYTES);
    bytes.extend_from_slice(&[0u8; 10]);
    std::fs::write(&path, &bytes).expect("write");
    let mut r = BinReader::open(&path).expect("open");
    for _ in 0..3 {
        let rec = r.next_record().expect("whole record").expect("present");
        assert_eq!(c.from_fsf(&rec).expect("valid").score, 37);
    }
    let e = r.next_record().expect_err("partial record");
    assert!(matches!(e, BinError::Truncated { index: 3, bytes: 10, .. }), "{e}");
    assert!(e.to_string().contains("record 3 has 10 of its 72 bytes"), "{e}");
    assert!(read_bin_file(&path, &c).is_err());
}

#[test]
fn a_corrupted_record_is_an_error_with_its_index() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("bad.bin");
    let c = conv("minishogi");
    let good = start_record(&c);
    // a5's rook is bits 15..20: code 11000 (ordinal 1, bits 16..19 = ordinal) and colour 1;
    // ordinal 7 (the king's, never on the board stream) is code 11110 = 15.
    let mut bad_piece = good;
    bad_piece.packed[2] |= 0b0000_0111;
    let mut bad_king = good;
    bad_king.packed[0] |= 0b1111_1110; // White's king square 127
    let mut bad_result = good;
    bad_result.result = 2;
    let mut w = BinWriter::create(&path).expect("create");
    for r in [good, good, bad_piece] {
        w.write(&r).expect("write");
    }
    w.finish().expect("finish");
    let e = read_bin_file(&path, &c).expect_err("bad piece");
    match &e {
        BinError::Record {
            index: 2,
            reason: RecordError::PieceCode { square: 20, code: 15 },
            ..
        } => {}
        other => panic!("unexpected {other}"),
    }
    assert!(e.to_string().contains("record 2 (byte 144)"), "{e}");
    let e = c.from_fsf(&bad_king).expect_err("bad king");
    assert!(matches!(e, RecordError::KingSquare { color: 0, value: 127 }), "{e}");
    assert_eq!(c.from_fsf(&bad_result).expect_err("bad result"), RecordError::Result(2));
    // Every byte pattern decodes to a record or an error, never a panic.
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    for _ in 0..2000 {
        let mut b = good.to_bytes();
        let i = rng.random_range(0..25);
        b[i] ^= 1 << rng.random_range(0..8);
        let _ = c.from_fsf(&FsfRecord::from_bytes(&b));
        let mut noise = [0u8; RECORD_BYTES];
        rng.fill(&mut noise[..]);
        let _ = c.from_fsf(&FsfRecord::from_bytes(&noise));
    }
}
