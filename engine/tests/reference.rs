//! One driver for every Fairy-Stockfish reference file in `engine/tests/reference/`:
//! perft counts and legal move lists, game outcomes, start-position perft, FEN round trips.
//! Set `KAGE_REFERENCE_DIR` to read them from elsewhere.

use kage_engine::perft::perft;
use kage_engine::protocol::rules::game_from;
use kage_engine::{Color, Position, Variant, VariantId};
use serde_json::Value;
use std::path::PathBuf;

fn reference_dir() -> PathBuf {
    if let Ok(d) = std::env::var("KAGE_REFERENCE_DIR") {
        return PathBuf::from(d);
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/reference")
}

fn records(name: &str) -> Vec<Value> {
    let path = reference_dir().join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reference file {} missing: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Fails listing `failures`, if any, of the `records` checked.
fn assert_none_fail(failures: &[String], records: usize) {
    assert!(
        failures.is_empty(),
        "{} of {records} records fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A record's array of strings (its moves).
fn strings(v: &Value) -> Vec<String> {
    v.as_array().unwrap().iter().map(|m| m.as_str().unwrap().to_string()).collect()
}

/// FENs equal, hands compared as multisets.
fn same_fen(a: &str, b: &str) -> bool {
    fn norm(f: &str) -> String {
        let mut parts: Vec<String> = f.split_whitespace().map(String::from).collect();
        if let Some((board, hand)) = parts[0].clone().split_once('[') {
            let mut h: Vec<char> = hand.trim_end_matches(']').replace('-', "").chars().collect();
            h.sort();
            parts[0] = format!("{board}[{}]", h.into_iter().collect::<String>());
        }
        parts.join(" ")
    }
    norm(a) == norm(b)
}

fn check_perft_file(id: VariantId) {
    let v = Variant::builtin(id);
    let recs = records(&format!("perft_{}.jsonl", id.name()));
    assert!(recs.len() > 100, "too few records for {id}");
    let mut failures = Vec::new();
    for r in &recs {
        let fen = r["fen"].as_str().unwrap();
        let pos = match Position::from_fen(v, fen) {
            Ok(p) => p,
            Err(e) => {
                failures.push(format!("{fen}: parse error {e}"));
                continue;
            }
        };
        // Byte for byte, hand order included (FSF orders hand letters its own way).
        if pos.to_fen() != fen {
            failures.push(format!("{fen}: FEN round trip gives {}", pos.to_fen()));
        }
        let mut legal: Vec<String> =
            pos.legal_moves().as_slice().iter().map(|&m| pos.move_to_uci(m)).collect();
        legal.sort();
        let want = strings(&r["moves"]);
        if legal != want {
            let extra: Vec<_> = legal.iter().filter(|m| !want.contains(m)).collect();
            let missing: Vec<_> = want.iter().filter(|m| !legal.contains(m)).collect();
            failures.push(format!("{fen}: moves differ, extra {extra:?} missing {missing:?}"));
            continue;
        }
        for (d, n) in r["perft"].as_object().unwrap() {
            let d: u32 = d.parse().unwrap();
            let got = perft(&pos, d);
            if got != n.as_u64().unwrap() {
                failures.push(format!("{fen}: perft({d}) = {got}, FSF {n}"));
                break;
            }
        }
    }
    assert_none_fail(&failures, recs.len());
}

fn check_outcome_file(id: VariantId) {
    let v = Variant::builtin(id);
    let recs = records(&format!("outcomes_{}.jsonl", id.name()));
    let mut failures = Vec::new();
    for r in &recs {
        let fen = r["fen"].as_str().unwrap();
        let moves = strings(&r["moves"]);
        let game = match game_from(v, Some(fen), &moves) {
            Ok(g) => g,
            Err(e) => {
                failures.push(format!("{fen} {moves:?}: {e}"));
                continue;
            }
        };
        let pos = game.position();
        let want_winner = r["winner"].as_str();
        let got = game.outcome().map(|o| o.winner_name());
        let label = r["reason"].as_str().unwrap_or("?");
        if got != want_winner {
            failures.push(format!(
                "[{label}] {fen} moves {}: kage {got:?}, FSF {want_winner:?}",
                moves.join(" ")
            ));
        }
        if pos.to_fen() != r["final_fen"].as_str().unwrap() {
            failures.push(format!(
                "[{label}] final FEN {} != FSF {}",
                pos.to_fen(),
                r["final_fen"]
            ));
        }
        if pos.has_legal_move() != (r["legal_moves"].as_u64() != Some(0)) {
            failures
                .push(format!("[{label}] has_legal_move disagrees with FSF's legal move count"));
        }
        if pos.count_legal() != r["legal_moves"].as_u64().unwrap() {
            failures.push(format!(
                "[{label}] {} legal moves, FSF {}",
                pos.count_legal(),
                r["legal_moves"]
            ));
        }
        if pos.in_check() != r["in_check"].as_bool().unwrap() {
            failures.push(format!("[{label}] in_check differs at {}", pos.to_fen()));
        }
        // The winner must also agree with FSF's raw values (side to move's point of view).
        let stm_white = pos.side_to_move() == Color::White;
        let value = if r["immediate"][0].as_bool().unwrap() {
            r["immediate"][1].as_i64()
        } else if r["optional"][0].as_bool().unwrap() {
            r["optional"][1].as_i64()
        } else {
            r["game_result"].as_i64()
        };
        if let Some(val) = value {
            let raw = if val == 0 {
                "draw"
            } else if (val > 0) == stm_white {
                "white"
            } else {
                "black"
            };
            if got != Some(raw) {
                failures.push(format!("[{label}] value {val} means {raw}, kage {got:?}"));
            }
        }
    }
    assert_none_fail(&failures, recs.len());
}

#[test]
fn perft_shinobiplus() {
    check_perft_file(VariantId::SHINOBIPLUS);
}
#[test]
fn perft_shinobi() {
    check_perft_file(VariantId::SHINOBI);
}
#[test]
fn perft_gorogoroplus() {
    check_perft_file(VariantId::GOROGOROPLUS);
}
#[test]
fn perft_minishogi() {
    check_perft_file(VariantId::MINISHOGI);
}
#[test]
fn outcomes_shinobiplus() {
    check_outcome_file(VariantId::SHINOBIPLUS);
}
#[test]
fn outcomes_shinobi() {
    check_outcome_file(VariantId::SHINOBI);
}
#[test]
fn outcomes_gorogoroplus() {
    check_outcome_file(VariantId::GOROGOROPLUS);
}
#[test]
fn outcomes_minishogi() {
    check_outcome_file(VariantId::MINISHOGI);
}

/// Start-position perft at every depth FSF needed under a second for (ours is faster).
#[test]
fn startpos_perft() {
    let path = reference_dir().join("startpos_perft.json");
    let all: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    for id in VariantId::ALL {
        let r = &all[id.name()];
        let v = Variant::builtin(id);
        let pos = Position::from_fen(v, r["fen"].as_str().unwrap()).unwrap();
        assert!(same_fen(&pos.to_fen(), r["fen"].as_str().unwrap()));
        assert!(
            same_fen(&Position::startpos(v).to_fen(), r["fen"].as_str().unwrap()),
            "{id} start FEN"
        );
        for p in r["perft"].as_array().unwrap() {
            if p["seconds"].as_f64().unwrap() > 1.2 {
                continue;
            }
            let d = p["depth"].as_u64().unwrap() as u32;
            assert_eq!(perft(&pos, d), p["nodes"].as_u64().unwrap(), "{id} perft({d})");
        }
    }
}
