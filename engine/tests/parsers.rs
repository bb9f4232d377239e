//! Property tests of the parsers of untrusted input with proptest: FENs, UCI moves, variant
//! specs and UCI command lines never panic; whatever parses round-trips, a fixed number of
//! cases each. (`fuzz.rs` runs them for a time budget with allocation and hang bounds;
//! `engine/fuzz/` holds cargo-fuzz targets.)

mod common;

use common::mutate;
use kage_engine::protocol::uci::Uci;
use kage_engine::{Position, Variant, VariantId, VariantSpec};
use proptest::prelude::*;

fn variant(i: usize) -> &'static Variant {
    Variant::builtin(VariantId::ALL[i % 4])
}

const ALPHABET: &[u8] = b"pnbrqkPNBRQKJDFCLHMSGjdfclhmsg+/[]-012345678910 wbKQkq@e3a";

fn edit() -> impl Strategy<Value = (usize, u8, u8)> {
    (any::<usize>(), any::<u8>(), prop::sample::select(ALPHABET.to_vec()))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

    #[test]
    fn fen_parser_never_panics(s in ".{0,80}", vi in 0usize..4) {
        let _ = Position::from_fen(variant(vi), &s);
    }

    #[test]
    fn mutated_fens_parse_or_fail_cleanly(vi in 0usize..4, edits in prop::collection::vec(edit(), 1..4)) {
        let v = variant(vi);
        let fen = mutate(&v.start_fen, &edits);
        if let Ok(p) = Position::from_fen(v, &fen) {
            let again = Position::from_fen(v, &p.to_fen()).expect("printed FEN parses");
            prop_assert_eq!(again.to_fen(), p.to_fen());
            let _ = p.legal_moves();
        }
    }

    #[test]
    fn move_parser_never_panics(s in "[a-zA-Z@+=0-9]{0,7}", vi in 0usize..4) {
        let pos = Position::startpos(variant(vi));
        if let Ok(m) = pos.parse_move(&s) {
            prop_assert!(pos.is_legal(m));
        }
    }

    #[test]
    fn uci_lines_never_panic(lines in prop::collection::vec("(position|setoption name|d|isready|uci|xyzzy)( [a-z0-9/\\[\\]+@ ]{0,30})?", 1..6)) {
        let mut uci = Uci::new(variant(0), None);
        let mut out = Vec::new();
        for l in &lines {
            uci.handle(l, &mut out).unwrap();
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn mutated_specs_are_accepted_or_rejected_cleanly(
        vi in 0usize..4,
        edits in prop::collection::vec((any::<usize>(), any::<u8>(), prop::sample::select(b"=\"[]0123456789abfKRWN+,\n".to_vec())), 1..4),
    ) {
        let text = include_str!("../variants/minishogi/rules.toml");
        let base = match vi { 0 => text, _ => include_str!("../variants/shinobiplus/rules.toml") };
        let spec_text = mutate(base, &edits);
        if let Ok(spec) = VariantSpec::parse(&spec_text) {
            let _ = Variant::compile(&spec);
        }
    }
}

#[test]
fn bad_fens_name_the_problem() {
    let v = Variant::builtin(VariantId::SHINOBIPLUS);
    let cases = [
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP[JDFCLHM] w kq - 0 1", "ranks"),
        ("rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/4K3[JDFCLHM] w kq - 0 1", "wide"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/4X3[JDFCLHM] w kq - 0 1", "unknown piece 'X'"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/4K3[JDFCLHMZ] w kq - 0 1", "bad hand"),
        ("rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/4K3[JDFCLHM] w - - 0 1", "kings"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/4K3[JDFCLHM] x kq - 0 1", "side to move"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/4K3[JDFCLHM] w kx - 0 1", "castling"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/4K3[JDFCLHM] w kq z9 0 1", "en-passant"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/4K3[JDFCLHM] w kq - x 1", "counter"),
    ];
    for (fen, what) in cases {
        let e = Position::from_fen(v, fen).expect_err(fen).to_string();
        assert!(e.contains(what), "{fen}: error '{e}' should mention '{what}'");
    }
}

#[test]
fn bad_specs_name_the_problem() {
    let base = include_str!("../variants/minishogi/rules.toml");
    // The spec with the line `extra` added after `line`.
    let add_after = |line: &str, extra: &str| base.replace(line, &format!("{line}\n{extra}"));
    let cases = [
        (add_after("name = \"minishogi\"", "colour = \"red\""), "unknown field"),
        (base.replace("betza = \"fW\"", "betza = \"fX\""), "bad movement"),
        (base.replace("promotes_to = \"+R\"", "promotes_to = \"+Z\""), "unknown piece"),
        (add_after("promotes_to = \"+R\"", "promotion_choices = [\"G\"]"), "exclude each other"),
        (base.replace("promotes_to = \"+R\"", "promotion_choices = [\"K\"]"), "non-royal"),
        (base.replace("promotes_to = \"+R\"", "promotion_choices = [\"+P\"]"), "unpromoted"),
        (base.replace("promotes_to = \"+R\"", "promotion_choices = [\"G\", \"G\"]"), "once"),
        (base.replace("promotes_to = \"+R\"", "promotion_choices = [\"Z\"]"), "unknown piece"),
        (base.replace("royal = true", "royal = false"), "royal"),
        (base.replace("width = 5", "width = 9"), "does not fit"),
        (
            base.replace("verdict = \"white_loses\"", "verdict = \"black_wins\""),
            "repetition verdict",
        ),
        (base.replace("promotion_white = [5]", "promotion_white = [7]"), "rank 7"),
        (add_after("promotion_white = [5]", "flag_squares_white = [\"f6\"]"), "not a square"),
        (base.replace("hand_order = \"GPSRB\"", "hand_order = \"GPSR\""), "hand_order"),
        (base.replace("rbsgk/4p/5/P4/KGSBR", "rbsgk/4p/5/P4/1GSBR"), "start position"),
    ];
    for (text, what) in cases {
        let e = Variant::from_spec_text(&text).expect_err(what).to_string();
        assert!(e.contains(what), "error '{e}' should mention '{what}'");
    }
}
