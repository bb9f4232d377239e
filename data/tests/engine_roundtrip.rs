//! Compact positions round-trip exactly on positions from random playouts in
//! every built-in variant.

use kage_data::{CompactPosition, PositionFlags, PositionRecord};
use kage_engine::{Color, Game, Position, Variant, VariantId};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Positions of random playouts (legal moves only), with the move played.
fn playout_positions(
    v: &'static Variant,
    games: usize,
    seed: u64,
) -> Vec<(Position, Option<kage_engine::Move>)> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut out = Vec::new();
    for _ in 0..games {
        let mut game = Game::startpos(v);
        for _ in 0..200 {
            if game.outcome().is_some() {
                break;
            }
            let moves = game.position().legal_moves();
            if moves.is_empty() {
                break;
            }
            let m = moves.as_slice()[rng.random_range(0..moves.len())];
            out.push((game.position().clone(), Some(m)));
            game.play(m);
        }
        out.push((game.position().clone(), None));
    }
    out
}

#[test]
fn compact_round_trip_all_variants() {
    for id in VariantId::ALL {
        let v = Variant::builtin(id);
        let positions = playout_positions(v, 20, id.index() as u64 + 11);
        let mut seen_hand = false;
        let mut seen_flags = 0u8;
        for (pos, played) in &positions {
            let c = CompactPosition::from_position(pos).unwrap();
            assert_eq!(c.to_fen(v).unwrap(), pos.to_fen(), "{}", v.name);
            let back = c.to_position(v).unwrap();
            assert_eq!(&back, pos, "{}: {}", v.name, pos.to_fen());
            // Through bincode too.
            let rec =
                PositionRecord::from_position(pos, 17, Some(Color::Black), 3, *played, *played)
                    .unwrap();
            let bytes = bincode::encode_to_vec(rec, kage_data::BINCODE_CONFIG).unwrap();
            let (rec2, _): (PositionRecord, usize) =
                bincode::decode_from_slice(&bytes, kage_data::BINCODE_CONFIG).unwrap();
            assert_eq!(rec2, rec);
            assert_eq!(rec2.pos.to_position(v).unwrap(), *pos);
            assert_eq!(rec2.played(), played.filter(|m| !m.is_null()));
            for persp in Color::ALL {
                let (mut a, mut b) = (Vec::new(), Vec::new());
                kage_engine::nnue::features::active_features(pos, persp, &mut a);
                c.active_features(v, persp, &mut b).unwrap();
                a.sort_unstable();
                b.sort_unstable();
                assert_eq!(a, b, "{}: features of {}", v.name, pos.to_fen());
            }
            assert_eq!(c.side_to_move(), pos.side_to_move());
            seen_flags |= rec.flags.bits();
            seen_hand |= Color::ALL.iter().any(|&c| !pos.hand_list(c).is_empty());
        }
        assert!(seen_hand, "{}: no position with a hand", v.name);
        assert!(seen_flags & PositionFlags::CAPTURE != 0, "{}: no capture", v.name);
        assert!(seen_flags & PositionFlags::DROP != 0, "{}: no drop", v.name);
    }
}

#[test]
fn record_result_is_from_side_to_move() {
    let v = Variant::by_name("minishogi").unwrap();
    let pos = Position::startpos(v);
    let r = PositionRecord::from_position(&pos, 50, Some(Color::White), 0, None, None).unwrap();
    assert_eq!(r.result, kage_data::StmResult::Win);
    assert_eq!(r.white_score(), 50);
    let mut p2 = pos.clone();
    p2.play(pos.legal_moves().as_slice()[0]);
    let r = PositionRecord::from_position(&p2, 50, Some(Color::White), 1, None, None).unwrap();
    assert_eq!(r.result, kage_data::StmResult::Loss);
    assert_eq!(r.white_result(), kage_data::StmResult::Win);
    assert_eq!(r.white_score(), -50);
    let e = Variant::by_name("chess").unwrap_err();
    assert_eq!(
        e.to_string(),
        "unknown variant \"chess\" (known: gorogoroplus, minishogi, shinobi, shinobiplus)"
    );
}

#[test]
fn invalid_compact_positions_are_rejected() {
    let v = Variant::by_name("minishogi").unwrap();
    let pos = Position::startpos(v);
    let c = CompactPosition::from_position(&pos).unwrap();
    // Gorogoro+ (5x6) has no bishop or rook to put in hand: refused.
    let mut parts = c.to_parts().unwrap();
    parts.hand = vec![(parts.board[0], 1)];
    let other = Variant::by_name("gorogoroplus").unwrap();
    let with_hand = CompactPosition::from_parts(&parts).unwrap();
    assert!(with_hand.to_position(v).is_ok() || with_hand.to_position(other).is_err());
    // Remove a king: the engine's FEN parser refuses it.
    let mut parts = c.to_parts().unwrap();
    let king_sq = pos.king_square(Color::White);
    let idx = (pos.occupied() & ((1u64 << king_sq) - 1)).count_ones() as usize;
    parts.occupancy &= !(1u64 << king_sq);
    parts.board.remove(idx);
    let broken = CompactPosition::from_parts(&parts).unwrap();
    let e = broken.to_position(v).unwrap_err();
    assert!(e.to_string().contains("king"), "{e}");
}
