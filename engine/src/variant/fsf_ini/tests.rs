//! Tests of the FSF variants.ini reader: the INI dialect, inheritance, regions, custom pieces,
//! refused keys, mangled input, and the four kage variants read from FSF's own sections.

use super::*;
use crate::perft::perft;
use crate::{Position, VariantId};

const FIXTURE: &str = include_str!("../../../tests/fixtures/fsf_sample.ini");

/// FSF's own sections of the three kage variants it ships (variants.ini, commit c19b5f6c).
const FSF_SECTIONS: &str = include_str!("../../../tests/fixtures/fsf_sections.ini");

fn fixture() -> FsfIniFile {
    FsfIniFile::parse(FIXTURE).expect("fixture parses")
}

#[test]
fn sections_parents_and_comments() {
    let f = fixture();
    assert_eq!(f.names(), ["tinyshogi", "tinyshogi-zones", "fairy5", "wrapped"]);
    let s = f.ini().section("tinyshogi").expect("section");
    assert_eq!(s.parent.as_deref(), Some("minishogi"));
    assert_eq!(s.get("lance").map(|e| e.value.as_str()), Some("l"));
    assert!(s.entries.iter().all(|e| !e.key.starts_with('#')));
}

#[test]
fn inheritance_from_a_builtin_and_from_the_file() {
    let f = fixture();
    let spec = f.spec("tinyshogi").expect("tinyshogi");
    // From minishogi: drops, nifu, pawn-drop mate; its own lance; nFoldValue overridden.
    assert!(spec.captures_to_hand);
    assert_eq!(spec.repetition.verdict, "draw");
    assert_eq!(spec.hand_order, "GLPSRB");
    let lance = spec.pieces.iter().find(|p| p.letter == "L").expect("lance");
    assert_eq!((lance.betza.as_str(), lance.promotes_to.as_deref()), ("fR", Some("+L")));
    let child = f.spec("tinyshogi-zones").expect("child");
    assert_eq!(child.zones.promotion_white, [4, 5]);
    assert_eq!(child.zones.promotion_black, [1, 2]);
    assert_eq!(child.hand_order, spec.hand_order);
}

#[test]
fn custom_pieces_become_kage_betza() {
    let f = fixture();
    let spec = f.spec("fairy5").expect("fairy5");
    let betza = |l: &str| spec.pieces.iter().find(|p| p.letter == l).map(|p| p.betza.clone());
    let v = f.variant("fairy5").expect("compiles");
    assert_eq!(v.width, 5);
    assert!(betza("A").is_some_and(|b| b.contains('D')));
    assert!(betza("W").is_some_and(|b| b.contains("mW") || b.contains("fmW")));
    assert!(f.variant("wrapped").is_ok(), "default-valued unsupported keys are accepted");
}

#[test]
fn regions() {
    use super::region::Region;
    let r = Region::parse("*7 *8").expect("ranks");
    assert_eq!(r.ranks(8, 8), Some(vec![7, 8]));
    let sq = Region::parse("a1 b1 c1 d1 e1").expect("squares");
    assert_eq!(sq.ranks(5, 5), Some(vec![1]));
    assert_eq!(sq.ranks(8, 8), None, "part of a rank");
    assert_eq!(Region::parse("a* -").expect("file").ranks(1, 3), Some(vec![1, 2, 3]));
    for bad in ["*0", "*11", "z1", "a", "**", "a99"] {
        assert!(Region::parse(bad).is_err(), "{bad}");
    }
}

#[test]
fn unsupported_keys_are_named() {
    for (text, key) in [
        ("[x:minishogi]\nmustCapture = true\n", "mustCapture"),
        ("[x:crazyhouse]\n", "promotionPieceTypes"),
        ("[x:chess]\npromotionPieceTypesBlack = q\n", "promotionPieceTypesWhite"),
        ("[x:chess]\npromotedPieceType = p:q\n", "promotedPieceType"),
        ("[x:chess]\ncustomPiece1 = p:KifmnD\npawnTypes = p\n", "nMoveRuleTypes"),
        ("[x:minishogi]\nextinctionValue = loss\n", "extinctionValue"),
        ("[x:minishogi]\nmaxFile = 9\n", "maxFile"),
        (
            "[x:minishogi]\ncustomPiece1 = a:pR\nstartFen = rbsgk/4p/5/P4/KGSBR[Aa] w 0 1\n",
            "customPiece1",
        ),
        ("[x:minishogi]\nnFoldValue = win\n", "nFoldValue"),
        ("[x:minishogi]\nflagPiece = s\nflagRegionWhite = *5\n", "flagPiece"),
        ("[x:minishogi]\npromotionRegionWhite = a5 b5\n", "promotionRegionWhite"),
    ] {
        let f = FsfIniFile::parse(text).expect("parses");
        let e = f.spec_text("x").expect_err(key);
        assert_eq!(e.key(), Some(key), "{text}: {e}");
        assert!(e.to_string().contains(key), "{e}");
    }
    let e = FsfIniFile::parse("[x:minishogi]\nnotAKey = 1\n").expect("parses").spec_text("x");
    assert!(matches!(e, Err(FsfIniError::UnknownKey { ref key, .. }) if key == "notAKey"));
}

#[test]
fn mangled_files_are_errors_not_panics() {
    let base = FSF_SECTIONS;
    let mut cases: Vec<String> = vec![
        "key = value\n".into(),
        "[unclosed\n".into(),
        "[a]\n[a]\n".into(),
        "[a:nowhere]\n".into(),
        "[a:a]\n".into(),
        "[a]\nno equals sign\n".into(),
        "[a:minishogi]\nmaxRank = 0\n".into(),
        "[a:minishogi]\npromotedPieceType = p:\n".into(),
        "[a:minishogi]\npromotedPieceType = q:g\n".into(),
        "[a:minishogi]\nstartFen = \n".into(),
        "[a:minishogi]\nstartFen = xyz[\n".into(),
        "[a:minishogi]\ncustomPiece1 = z\n".into(),
        "[a:minishogi]\ncustomPiece1 = z:\u{e9}\u{e9}\n".into(),
        "[a:minishogi]\nking = -\n".into(),
        "[a:minishogi]\nshogiPawn = -\n".into(),
        "\u{0}[\u{0}]\n".into(),
    ];
    for cut in (0..base.len()).step_by(97) {
        if base.is_char_boundary(cut) {
            cases.push(base[..cut].to_string());
        }
    }
    for text in &cases {
        if let Ok(f) = FsfIniFile::parse(text) {
            for n in f.names().iter().chain(["a".to_string()].iter()) {
                let _ = f.variant(n);
            }
        }
    }
}

/// perft of every position (up to `max` positions, depths up to 2) of kage's reference file for
/// `id`, with the variant read from FSF's section `section`.
fn same_perft(section: &str, id: VariantId, max: usize) {
    let f = FsfIniFile::parse(FSF_SECTIONS).expect("FSF sections parse");
    let ours = f.variant(section).expect("FSF section compiles");
    let theirs = Variant::builtin(id);
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/reference/");
    let text =
        std::fs::read_to_string(format!("{path}perft_{}.jsonl", id.name())).expect("reference");
    for line in text.lines().filter(|l| !l.trim().is_empty()).take(max) {
        let fen = line.split("\"fen\": \"").nth(1).and_then(|r| r.split('"').next()).expect("fen");
        let a = Position::from_fen(ours, fen).expect("FEN in the FSF-read variant");
        let b = Position::from_fen(theirs, fen).expect("FEN in kage's variant");
        assert_eq!(a.to_fen(), fen, "FEN round trip");
        for d in 1..=2 {
            assert_eq!(perft(&a, d), perft(&b, d), "{section} {fen} depth {d}");
        }
    }
    let kage_spec = VariantSpec::parse(id_spec(id)).expect("kage spec");
    let d = rule_differences(&f.spec(section).expect("spec"), &kage_spec);
    assert!(d.is_empty(), "{section}: {d:?}");
}

fn id_spec(id: VariantId) -> &'static str {
    id.spec_text()
}

#[test]
fn shinobiplus_from_fsf_plays_as_kage() {
    same_perft("shinobiplus", VariantId::SHINOBIPLUS, 40);
}

#[test]
fn shinobi_from_fsf_plays_as_kage() {
    same_perft("shinobi", VariantId::SHINOBI, 40);
}

#[test]
fn gorogoroplus_from_fsf_plays_as_kage() {
    same_perft("gorogoroplus", VariantId::GOROGOROPLUS, 40);
}

#[test]
fn minishogi_builtin_plays_as_kage() {
    same_perft("minishogi2", VariantId::MINISHOGI, 40);
    let f = FsfIniFile::parse("").expect("empty file");
    assert!(f.variant("minishogi").is_ok(), "built-ins are asked for by name");
}

#[test]
fn chess_promotion_becomes_promotion_choices_strongest_first() {
    let f = FsfIniFile::parse("[x:losalamos]\n").expect("parses");
    let text = f.spec_text("x").expect("translates");
    assert!(text.contains("promotion_choices = [\"Q\", \"R\", \"N\"]"), "{text}");
    assert!(text.contains("mandatory_promotion = true"), "{text}");
    let v = f.variant("x").expect("compiles");
    let pawn = v.kinds.iter().find(|k| k.letter == 'P').expect("pawn");
    let letters: Vec<char> = pawn.promotion_choices.iter().map(|&k| v.kind(k).letter).collect();
    assert_eq!(letters, ['Q', 'R', 'N']);
    assert_eq!(pawn.promotes_to, pawn.promotion_choices.first().copied());
}

#[test]
fn values_are_scaled_down_when_the_material_would_exceed_kages_limit() {
    let weak =
        "[x:chess]\nstartFen = nnnnknnn/pppppppp/2p2p2/1pppppp1/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1\n";
    let v = FsfIniFile::parse(weak).expect("parses").variant("x").expect("compiles");
    let chess = FsfIniFile::parse("").expect("empty").variant("chess").expect("chess");
    let value =
        |v: &crate::Variant, l: char| v.kinds.iter().find(|k| k.letter == l).map(|k| k.value);
    assert_eq!(value(chess, 'P'), Some(100));
    let (p, q) = (value(v, 'P').expect("pawn"), value(v, 'Q').expect("queen"));
    assert!(p < 100 && q < value(chess, 'Q').expect("queen"), "{p} {q}");
}

#[test]
fn a_flag_region_of_single_squares_becomes_campmate_squares() {
    let f = FsfIniFile::parse("").expect("empty file");
    let text = f.spec_text("kingofthehill").expect("translates");
    assert!(text.contains(r#"flag_squares_white = ["d4", "e4", "d5", "e5"]"#), "{text}");
    let v = f.variant("kingofthehill").expect("compiles");
    let on_hill = crate::Position::from_fen(v, "4k3/8/8/8/3K4/8/8/8 b - - 0 1").expect("fen");
    assert!(on_hill.flag_reached() && on_hill.legal_moves().is_empty());
    let near = crate::Position::from_fen(v, "4k3/8/8/8/8/3K4/8/8 b - - 0 1").expect("fen");
    assert!(!near.flag_reached() && !near.legal_moves().is_empty());
}
