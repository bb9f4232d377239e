//! Property tests over random playouts in all four variants: the incremental key equals the
//! key computed from scratch, make/undo restores the position, FEN round-trips, legal move
//! generation equals a slow reference (pseudo-legal moves filtered by playing them), and
//! `gives_check` agrees with playing the move.

use kage_engine::position::CASTLE_BK;
use kage_engine::types::bits;
use kage_engine::{Color, Game, Move, MoveKind, PieceKind, Position, Variant, VariantId};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Every move the rules allow, found the slow way: each piece to each square it attacks (or
/// pushes to), each drop to each empty square, then kept only if the own king is safe after.
fn reference_moves(pos: &Position) -> Vec<String> {
    let v = pos.variant();
    if pos.flag_reached() {
        return Vec::new();
    }
    let us = pos.side_to_move();
    let them = !us;
    let occ = pos.occupied();
    let own = pos.pieces_of(us);
    let mut cands: Vec<Move> = Vec::new();
    for from in bits(own) {
        let k = pos.piece_on(from).unwrap().kind;
        let info = v.kind(k);
        let mut t = v.leap_both(us, k, from) & !own;
        t |= v.slide_attacks(info.slides[us], from, occ) & !own;
        t |= v.leap_capture(us, k, from) & pos.pieces_of(them);
        t |= v.leap_quiet(us, k, from) & !occ;
        if let Some(ds) = v.double_step(us, k, from)
            && occ & (1 << ((from + ds) / 2) | 1 << ds) == 0
        {
            t |= 1 << ds;
        }
        for to in bits(t) {
            let in_zone = v.promotion_zone[us] & (1 << from | 1 << to) != 0;
            let immobile = v.immobility_illegal && v.immobile(us, k) & (1 << to) != 0;
            if info.promotes_to.is_some() && in_zone {
                cands.push(Move::new(from, to, MoveKind::Promotion));
                if !v.mandatory_promotion && !immobile {
                    cands.push(Move::new(from, to, MoveKind::Normal));
                }
            } else if !immobile {
                cands.push(Move::new(from, to, MoveKind::Normal));
            }
        }
    }
    if let Some(ep) = pos.ep_square() {
        for from in bits(own) {
            let k = pos.piece_on(from).unwrap().kind;
            if v.kind(k).pawn && v.leap_capture(us, k, from) & (1 << ep) != 0 {
                cands.push(Move::new(from, ep, MoveKind::EnPassant));
            }
        }
    }
    for (i, _) in v.kinds.iter().enumerate() {
        let k = PieceKind(i as u8);
        if pos.hand(us, k) == 0 {
            continue;
        }
        for to in bits(!occ & v.board & v.drop_zone[us]) {
            if v.immobility_illegal && v.immobile(us, k) & (1 << to) != 0 {
                continue;
            }
            if v.kind(k).nifu && pos.pieces(us, k) & v.file_masks[(to % v.width) as usize] != 0 {
                continue;
            }
            cands.push(Move::drop(k, to));
        }
    }
    // Castling: king two squares toward a rook in its corner, nothing between, no square of
    // its path attacked, not in check.
    if v.castling && !pos.in_check() {
        let geo = v.castling_geometry[us];
        let base = if us == Color::White { 1 } else { CASTLE_BK };
        for side in 0..2 {
            if pos.castling_rights() & (base << side) == 0 {
                continue;
            }
            let rook_ok =
                pos.piece_on(geo.rook_from[side]).is_some_and(|p| v.kind(p.kind).castling_rook);
            let clear = v.between(geo.king_from, geo.rook_from[side]) & occ == 0;
            let path = v.between(geo.king_from, geo.king_to[side]) | 1 << geo.king_to[side];
            if rook_ok && clear && bits(path).all(|s| !pos.is_attacked(s, them, occ)) {
                cands.push(Move::new(geo.king_from, geo.king_to[side], MoveKind::Castling));
            }
        }
    }
    let mut out: Vec<String> = cands
        .into_iter()
        .filter(|&m| {
            let mut p = pos.clone();
            p.play(m);
            !p.is_attacked(p.king_square(us), them, p.occupied())
        })
        .map(|m| pos.move_to_uci(m))
        .collect();
    out.sort();
    out.dedup();
    out
}

fn check_playout(id: VariantId, seed: u64, plies: usize) -> Result<(), TestCaseError> {
    let v = Variant::builtin(id);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut game = Game::startpos(v);
    for _ in 0..plies {
        let pos = game.position().clone();
        prop_assert_eq!(pos.key(), pos.compute_key(), "incremental key at {}", pos.to_fen());
        let reparsed = Position::from_fen(v, &pos.to_fen()).unwrap();
        prop_assert_eq!(reparsed.to_fen(), pos.to_fen());
        prop_assert_eq!(reparsed.key(), pos.key());
        let rebuilt = Position::from_setup(v, &pos.to_setup()).unwrap();
        prop_assert!(rebuilt == pos, "setup round trip at {}", pos.to_fen());
        let mut legal: Vec<String> =
            pos.legal_moves().as_slice().iter().map(|&m| pos.move_to_uci(m)).collect();
        legal.sort();
        prop_assert_eq!(&legal, &reference_moves(&pos), "legal moves at {}", pos.to_fen());
        prop_assert_eq!(pos.count_legal() as usize, legal.len());
        prop_assert_eq!(pos.has_legal_move(), !legal.is_empty());
        let discoverers = pos.discoverers();
        for &m in pos.legal_moves().as_slice() {
            let mut child = pos.clone();
            child.play(m);
            prop_assert_eq!(
                pos.gives_check(m, discoverers),
                child.in_check(),
                "gives_check of {} at {}",
                pos.move_to_uci(m),
                pos.to_fen()
            );
        }
        if legal.is_empty() || game.outcome().is_some() {
            break;
        }
        let moves = pos.legal_moves();
        // Favour captures, drops and promotions so that rare rules come up.
        let m = *(0..4)
            .map(|_| moves.as_slice()[rng.random_range(0..moves.len())])
            .find(|&m| pos.captured(m).is_some() || m.is_drop() || m.is_promotion())
            .as_ref()
            .unwrap_or(&moves.as_slice()[rng.random_range(0..moves.len())]);
        game.play(m);
        prop_assert_eq!(game.position().key(), game.position().compute_key());
        game.undo();
        prop_assert!(game.position() == &pos, "undo restores the position");
        game.play(m);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn playouts_shinobiplus(seed in any::<u64>()) { check_playout(VariantId::SHINOBIPLUS, seed, 160)?; }
    #[test]
    fn playouts_shinobi(seed in any::<u64>()) { check_playout(VariantId::SHINOBI, seed, 160)?; }
    #[test]
    fn playouts_gorogoroplus(seed in any::<u64>()) { check_playout(VariantId::GOROGOROPLUS, seed, 160)?; }
    #[test]
    fn playouts_minishogi(seed in any::<u64>()) { check_playout(VariantId::MINISHOGI, seed, 160)?; }
}
