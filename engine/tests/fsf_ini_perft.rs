//! Chess-style promotion (a pawn chooses the piece it becomes) in variants read from
//! Fairy-Stockfish's variants.ini: perft of every record of `reference/fsf_ini_perft.jsonl`
//! (FSF's own counts, made by `reference/fsf_ini_perft_record.py`) on the sections of
//! `fixtures/fsf_chess_variants.ini` and FSF's built-ins chess, losalamos, gardner, nocastle,
//! amazon, almost, perfect and kingofthehill; the well-known chess perft positions; promotion
//! moves in UCI (`a7a8q`).

use kage_engine::perft::perft;
use kage_engine::variant::FsfIniFile;
use kage_engine::{Position, Variant};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::PathBuf;

fn dir(sub: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests").join(sub)
}

fn file() -> FsfIniFile {
    FsfIniFile::read(&dir("fixtures/fsf_chess_variants.ini")).expect("fixture reads")
}

fn variant(f: &FsfIniFile, name: &str) -> &'static Variant {
    f.variant(name).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn perft_equals_fairy_stockfish_on_every_reference_position() {
    let f = file();
    let text = std::fs::read_to_string(dir("reference/fsf_ini_perft.jsonl")).expect("reference");
    let mut variants = BTreeSet::new();
    let mut promotions = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let r: Value = serde_json::from_str(line).expect("json");
        let name = r["variant"].as_str().expect("variant");
        let fen = r["fen"].as_str().expect("fen");
        let depth = r["depth"].as_u64().expect("depth") as u32;
        let v = variant(&f, name);
        let pos = Position::from_fen(v, fen).unwrap_or_else(|e| panic!("{name} {fen}: {e}"));
        assert_eq!(perft(&pos, depth), r["nodes"].as_u64().unwrap(), "{name} {fen} depth {depth}");
        promotions += pos.legal_moves().as_slice().iter().filter(|m| m.is_promotion()).count();
        variants.insert(name.to_string());
    }
    assert!(variants.len() >= 23, "{variants:?}");
    assert!(promotions >= 100, "positions with promotions: {promotions} moves");
}

/// The Chess Programming Wiki's perft positions (initial, Kiwipete, 3, 4 and 5).
#[test]
fn chess_perft_positions() {
    let f = file();
    let chess = variant(&f, "chess");
    for (fen, depth, nodes) in [
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 4, 197_281),
        ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 3, 97_862),
        ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 4, 43_238),
        ("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 3, 9_467),
        ("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 3, 62_379),
    ] {
        let pos = Position::from_fen(chess, fen).expect("fen");
        assert_eq!(perft(&pos, depth), nodes, "{fen}");
    }
}

#[test]
fn a_promotion_names_the_chosen_piece() {
    let f = file();
    let chess = variant(&f, "chess");
    let pos = Position::from_fen(chess, "8/1P3k2/8/8/8/8/8/4K3 w - - 0 1").expect("fen");
    let mut promos: Vec<String> = pos
        .legal_moves()
        .as_slice()
        .iter()
        .filter(|m| m.is_promotion())
        .map(|&m| pos.move_to_uci(m))
        .collect();
    promos.sort();
    assert_eq!(promos, ["b7b8b", "b7b8n", "b7b8q", "b7b8r"]);
    assert!(!pos.legal_moves().as_slice().iter().any(|&m| pos.move_to_uci(m) == "b7b8"));
    for (text, letter) in [("b7b8q", 'q'), ("b7b8n", 'n'), ("b7b8r", 'r'), ("b7b8b", 'b')] {
        let m = pos.parse_move(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        let mut child = pos.clone();
        child.play(m);
        let fen = child.to_fen();
        let board = fen.split(['[', ' ']).next().unwrap_or("");
        assert!(board.starts_with(&format!("1{}", letter.to_ascii_uppercase())), "{fen}");
    }
    for bad in ["b7b8k", "b7b8p", "b7b8+", "b7b8x"] {
        assert!(pos.parse_move(bad).is_err(), "{bad}");
    }
}
