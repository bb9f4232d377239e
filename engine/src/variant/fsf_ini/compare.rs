//! Whether two kage specs play the same game: every rule, every piece's movement and
//! promotion, ignoring names, side names, kind order, values and the NNUE table. A variant read
//! from an FSF file under a built-in's name can stand for the built-in when this finds nothing.

use crate::VariantSpec;
use crate::variant::PieceSpec;

/// The rule differences between `a` and `b` (empty: the same game).
pub fn rule_differences(a: &VariantSpec, b: &VariantSpec) -> Vec<String> {
    let mut d = Vec::new();
    let mut cmp = |what: &str, x: String, y: String| {
        if x != y {
            d.push(format!("{what}: {x} vs {y}"));
        }
    };
    cmp("board", format!("{}x{}", a.width, a.height), format!("{}x{}", b.width, b.height));
    cmp("start_fen", a.start_fen.clone(), b.start_fen.clone());
    cmp("captures_to_hand", a.captures_to_hand.to_string(), b.captures_to_hand.to_string());
    cmp("castling", a.castling.to_string(), b.castling.to_string());
    cmp("en_passant", a.en_passant.to_string(), b.en_passant.to_string());
    cmp(
        "mandatory_promotion",
        a.mandatory_promotion.to_string(),
        b.mandatory_promotion.to_string(),
    );
    cmp("immobility_illegal", a.immobility_illegal.to_string(), b.immobility_illegal.to_string());
    cmp("stalemate", a.stalemate.clone(), b.stalemate.clone());
    cmp("move_rule", a.move_rule.to_string(), b.move_rule.to_string());
    cmp(
        "perpetual_check_loses",
        a.perpetual_check_loses.to_string(),
        b.perpetual_check_loses.to_string(),
    );
    cmp(
        "repetition",
        format!("{} {}", a.repetition.count, a.repetition.verdict),
        format!("{} {}", b.repetition.count, b.repetition.verdict),
    );
    let z = |s: &VariantSpec| {
        let z = &s.zones;
        let promotes = s.pieces.iter().any(|p| p.promotes_to.is_some());
        let p = if promotes {
            format!("{:?} {:?}", z.promotion_white, z.promotion_black)
        } else {
            "-".into()
        };
        // A side that can never hold a piece has no drop zone that matters.
        let hand = s
            .start_fen
            .split_whitespace()
            .next()
            .and_then(|p| p.split_once('['))
            .map_or("", |h| h.1);
        let holds = |upper: bool| {
            s.captures_to_hand
                || hand.chars().any(|c| c.is_ascii_alphabetic() && c.is_ascii_uppercase() == upper)
        };
        let zone = |holds: bool, z: &Vec<u8>| if holds { format!("{z:?}") } else { "-".into() };
        let drops = if s.hand_order.is_empty() {
            "-".into()
        } else {
            format!("{} {}", zone(holds(true), &z.drop_white), zone(holds(false), &z.drop_black))
        };
        format!("promotion {p}, drops {drops}, flags {:?} {:?}", z.flag_white, z.flag_black)
    };
    cmp("zones", z(a), z(b));
    let pieces = |s: &VariantSpec| {
        let mut v: Vec<String> = s.pieces.iter().map(piece_rules).collect();
        v.sort();
        v
    };
    let (pa, pb) = (pieces(a), pieces(b));
    for p in pa.iter().filter(|p| !pb.contains(p)) {
        d.push(format!("piece only in the first: {p}"));
    }
    for p in pb.iter().filter(|p| !pa.contains(p)) {
        d.push(format!("piece only in the second: {p}"));
    }
    d
}

/// A piece's rules as one comparable line (its movement as the set of moves it gives).
fn piece_rules(p: &PieceSpec) -> String {
    let moves = super::betza::fsf_steps(&p.betza).map(|s| format!("{s:?}")).unwrap_or_else(|e| e);
    format!(
        "{} moves {} royal {} pawn {} promotes {:?} nifu {} drop_mate_loses {} castling_rook {}",
        p.letter, moves, p.royal, p.pawn, p.promotes_to, p.nifu, p.drop_mate_loses, p.castling_rook
    )
}
