//! Tactical move generation for quiescence (captures and valuable promotions) and the
//! campmate-in-one test. Only for positions where the side to move is not in check; every
//! move produced is legal (the same pin and king-safety logic as the full generator).

use crate::position::Position;
use crate::types::{Bitboard, Color, Move, MoveKind, PieceKind, bits};
use crate::variant::Variant;

/// Promotions worth searching in quiescence even without a capture (value gain in cp).
const QUIET_PROMOTION_GAIN: i32 = 150;

/// The variant, the side to move and its opponent of a position not in check, or `None` when
/// a king already stands on its campmate squares (the game is over: no moves).
fn movers(pos: &Position) -> Option<(&Variant, Color, Color)> {
    debug_assert!(!pos.in_check());
    if pos.flag_reached() {
        return None;
    }
    let us = pos.side_to_move();
    Some((pos.variant(), us, !us))
}

/// Appends the legal captures (promoting where a promotion exists; the plain form only where
/// promotion is optional and the plain move is a legal one), en-passant captures and the
/// valuable quiet promotions. Requires `!pos.in_check()`.
pub fn tactical_moves(pos: &Position, out: &mut Vec<Move>) {
    let Some((v, us, them)) = movers(pos) else { return };
    let occ = pos.occupied();
    let own = pos.pieces_of(us);
    let theirs = pos.pieces_of(them);
    let ksq = pos.king_square(us);
    let king = v.king;

    let occ_nk = occ ^ (1u64 << ksq);
    for to in bits(v.leap_attacks(us, king, ksq) & theirs) {
        if !pos.is_attacked(to, them, occ_nk) {
            out.push(Move::new(ksq, to, MoveKind::Normal));
        }
    }
    let pinned = pos.pinned(us);
    for from in bits(own & !(1u64 << ksq)) {
        let Some(p) = pos.piece_on(from) else { continue };
        let k = p.kind;
        let info = v.kind(k);
        let mut caps = v.attacks(us, k, from, occ) & theirs;
        let mut quiet = 0;
        let promo_zone = match info.promotes_to {
            Some(pk) if v.kind(pk).value - info.value >= QUIET_PROMOTION_GAIN => {
                let zone = v.promotion_zone[us];
                let mut q = v.leap_both(us, k, from) | v.leap_quiet(us, k, from);
                if info.slides[us] != 0 {
                    q |= v.slide_attacks(info.slides[us], from, occ);
                }
                q &= !occ;
                quiet = if zone & (1u64 << from) != 0 { q } else { q & zone };
                zone
            }
            Some(_) => v.promotion_zone[us],
            None => 0,
        };
        if pinned & (1u64 << from) != 0 {
            let line = v.line(ksq, from);
            caps &= line;
            quiet &= line;
        }
        if caps | quiet == 0 {
            continue;
        }
        let immobile = if v.immobility_illegal { v.immobile(us, k) } else { 0 };
        for to in bits(caps) {
            push_move(out, from, to, promo_zone, immobile);
        }
        for to in bits(quiet) {
            out.push(Move::new(from, to, MoveKind::Promotion));
        }
    }
    pos.en_passant_moves(out);
}

#[inline(always)]
fn push_move(out: &mut Vec<Move>, from: u8, to: u8, zone: u64, immobile: u64) {
    let bit_to = 1u64 << to;
    let promotes = zone != 0 && (zone & ((1u64 << from) | bit_to)) != 0;
    if promotes {
        // Where promotion is optional the plain capture exists too, but the promoting one is
        // almost always at least as good: quiescence searches only that one.
        out.push(Move::new(from, to, MoveKind::Promotion));
    } else if immobile & bit_to == 0 {
        out.push(Move::new(from, to, MoveKind::Normal));
    }
}

/// Whether the side to move can step its king onto its campmate ranks (an immediate win).
#[inline]
pub fn campmate_in_one(pos: &Position) -> bool {
    let v = pos.variant();
    let us = pos.side_to_move();
    let flag = v.flag_zone[us];
    if flag == 0 {
        return false;
    }
    let ksq = pos.king_square(us);
    let targets = v.leap_attacks(us, v.king, ksq) & flag & !pos.pieces_of(us);
    if targets == 0 {
        return false;
    }
    let occ_nk = pos.occupied() ^ (1u64 << ksq);
    bits(targets).any(|to| !pos.is_attacked(to, !us, occ_nk))
}

/// The legal drops of `k` (in the side to move's hand) that check the enemy king on `ksq`:
/// the squares from which a piece of ours attacks the king are those that the same kind of
/// theirs on the king's square attacks.
#[inline]
fn checking_drops(pos: &Position, k: PieceKind, ksq: u8) -> Bitboard {
    let v = pos.variant();
    let occ = pos.occupied();
    pos.drop_squares(k, v.attacks(!pos.side_to_move(), k, ksq, occ) & v.board & !occ)
}

/// Whether the side to move (not in check) mates at once with a drop: a checking drop after
/// which the opponent has no legal move. Drops whose mate loses (pawn-drop mate) are skipped.
/// Quiescence searches no quiet move after its first ply, so this is how it sees a drop mate
/// one move past the horizon.
#[inline]
pub fn drop_mate_in_one(pos: &Position) -> bool {
    let v = pos.variant();
    if v.hand_kinds.is_empty() {
        return false;
    }
    let us = pos.side_to_move();
    let ksq = pos.king_square(!us);
    if ksq as usize >= crate::types::MAX_SQUARES {
        return false;
    }
    for &k in &v.hand_kinds {
        if pos.hand(us, k) == 0 || v.kind(k).drop_mate_loses {
            continue;
        }
        for to in bits(checking_drops(pos, k, ksq)) {
            let mut c = pos.clone();
            c.play(Move::drop(k, to));
            if c.in_check() && !c.has_legal_move() {
                return true;
            }
        }
    }
    false
}

/// Appends the legal quiet moves (no capture) that give direct check: drops onto the
/// checking squares and board moves (promotions and double steps included) of pieces other
/// than the king. Discovered checks are not looked for. Requires `!pos.in_check()`.
pub fn quiet_checks(pos: &Position, out: &mut Vec<Move>) {
    let Some((v, us, them)) = movers(pos) else { return };
    let ksq = pos.king_square(them);
    let our_ksq = pos.king_square(us);
    if ksq as usize >= crate::types::MAX_SQUARES || our_ksq as usize >= crate::types::MAX_SQUARES {
        return;
    }
    let occ = pos.occupied();
    let empty = v.board & !occ;
    for &k in &v.hand_kinds {
        if pos.hand(us, k) == 0 {
            continue;
        }
        for to in bits(checking_drops(pos, k, ksq)) {
            out.push(Move::drop(k, to));
        }
    }
    let pinned = pos.pinned(us);
    for from in bits(pos.pieces_of(us) & !(1u64 << our_ksq)) {
        let Some(p) = pos.piece_on(from) else { continue };
        let k = p.kind;
        let info = v.kind(k);
        let slides = info.slides[us];
        let mut t = v.leap_both(us, k, from) | v.leap_quiet(us, k, from);
        if slides != 0 {
            t |= v.slide_attacks(slides, from, occ);
        }
        t |= pos.double_step_target(k, from, occ);
        t &= empty;
        if pinned & (1u64 << from) != 0 {
            t &= v.line(our_ksq, from);
        }
        if t == 0 {
            continue;
        }
        let zone = if info.promotes_to.is_some() { v.promotion_zone[us] } else { 0 };
        let promo_t = if zone & (1u64 << from) != 0 { t } else { t & zone };
        let immobile = if v.immobility_illegal { v.immobile(us, k) } else { 0 };
        let mut plain = t;
        if promo_t != 0 && v.mandatory_promotion {
            plain &= !promo_t;
        }
        plain &= !immobile;
        let occ_after = occ ^ (1u64 << from);
        for to in bits(plain & v.attacks(them, k, ksq, occ_after)) {
            out.push(Move::new(from, to, MoveKind::Normal));
        }
        if let Some(pk) = info.promotes_to {
            for to in bits(promo_t & v.attacks(them, pk, ksq, occ_after)) {
                out.push(Move::new(from, to, MoveKind::Promotion));
            }
        }
    }
}

/// The value of the piece a move captures (0 for none), and the kind it leaves behind.
#[inline]
pub fn victim_value(pos: &Position, m: Move) -> i32 {
    match pos.captured(m) {
        Some(p) => pos.variant().kind(p.kind).value,
        None => 0,
    }
}

/// The kind that moves (the dropped kind for drops).
#[inline]
pub fn mover(pos: &Position, m: Move) -> PieceKind {
    if m.is_drop() {
        m.drop_kind()
    } else {
        pos.piece_on(m.from().0).map_or(pos.variant().king, |p| p.kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variant::{Variant, VariantId};

    /// Every tactical move is legal, and every legal capture (en passant included) is produced,
    /// in its promoting form where promotion is optional.
    #[test]
    fn tactical_moves_are_legal_captures() {
        let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/reference");
        let (mut checked, mut en_passant, mut drop_mates, mut quiet_checks_seen) = (0, 0, 0, 0);
        for id in VariantId::ALL {
            let v = Variant::builtin(id);
            let path = dir.join(format!("perft_{}.jsonl", id.name()));
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("reference file {} missing: {e}", path.display()));
            for line in text.lines().take(150) {
                let Ok(j) = serde_json::from_str::<serde_json::Value>(line) else { continue };
                let Some(fen) = j["fen"].as_str() else { continue };
                let Ok(pos) = Position::from_fen(v, fen) else { continue };
                if pos.in_check() {
                    continue;
                }
                let legal = pos.legal_moves();
                let mut t = Vec::new();
                tactical_moves(&pos, &mut t);
                for &m in &t {
                    assert!(legal.contains(m), "{fen}: {} not legal", pos.move_to_uci(m));
                }
                for &m in legal.as_slice() {
                    en_passant += usize::from(m.kind() == MoveKind::EnPassant);
                    if matches!(m.kind(), MoveKind::Normal | MoveKind::EnPassant)
                        && pos.captured(m).is_some()
                    {
                        let promo = Move::new(m.from().0, m.to().0, MoveKind::Promotion);
                        assert!(
                            t.contains(&m) || t.contains(&promo),
                            "{fen}: capture {} missing",
                            pos.move_to_uci(m)
                        );
                    }
                }
                let camp = legal.as_slice().iter().any(|&m| {
                    let mut c = pos.clone();
                    c.play(m);
                    c.flag_reached()
                });
                assert_eq!(camp, campmate_in_one(&pos), "{fen}");
                let drop_mate = legal.as_slice().iter().any(|&m| {
                    let mut c = pos.clone();
                    c.play(m);
                    m.is_drop()
                        && !v.kind(m.drop_kind()).drop_mate_loses
                        && c.in_check()
                        && c.count_legal() == 0
                });
                drop_mates += usize::from(drop_mate);
                assert_eq!(drop_mate, drop_mate_in_one(&pos), "{fen}");
                let mut direct: Vec<Move> = legal
                    .as_slice()
                    .iter()
                    .copied()
                    .filter(|&m| {
                        matches!(m.kind(), MoveKind::Normal | MoveKind::Promotion | MoveKind::Drop)
                            && pos.captured(m).is_none()
                            && (m.is_drop()
                                || pos.piece_on(m.from().0).map(|p| p.kind) != Some(v.king))
                            && pos.gives_check(m, 0)
                    })
                    .collect();
                let mut qc = Vec::new();
                quiet_checks(&pos, &mut qc);
                direct.sort_by_key(|m| m.0);
                qc.sort_by_key(|m| m.0);
                quiet_checks_seen += direct.len();
                assert_eq!(direct, qc, "{fen}: quiet checks");
                checked += 1;
            }
        }
        assert!(checked > 100);
        assert!(en_passant > 0, "no en-passant capture among the positions checked");
        assert!(drop_mates > 0, "no drop mate among the positions checked");
        assert!(quiet_checks_seen > 100, "too few quiet checks among the positions checked");
    }
}
