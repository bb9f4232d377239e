//! `kage-selfplay book` end to end: a tiny minishogi book (distinct lines, every judge's
//! score within the margin of its start score, the same bytes at 1 and 2 threads), a second
//! judge (a script with fixed scores) filtering lines, a match reading the book and reporting
//! its distinct openings, and an outside-engine match without a book refused.
#![cfg(unix)]

use std::collections::HashSet;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output};

use kage_engine::{Game, Variant};

const BIN: &str = env!("CARGO_BIN_EXE_kage-selfplay");

fn selfplay(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A small, fast minishogi book of `count` lines into `out`.
fn book(out: &Path, count: &str, threads: &str, extra: &[&str]) -> Output {
    let mut args = vec!["book", "--variant", "minishogi", "--count", count, "--plies", "4"];
    args.extend(["--nodes", "400", "--sample-nodes", "800", "--margin", "100"]);
    args.extend(["--threads", threads, "--quiet", "--out", out.to_str().expect("utf-8")]);
    args.extend(extra);
    selfplay(&args)
}

/// The `# book-json` header line.
fn header(text: &str) -> serde_json::Value {
    let line = text.lines().find_map(|l| l.strip_prefix("# book-json ")).expect("header");
    serde_json::from_str(line).expect("json")
}

/// A book line: FEN, moves, scores by opcode.
type Line = (String, Vec<String>, Vec<(String, i64)>);

/// The lines of a book.
fn lines(text: &str) -> Vec<Line> {
    let mut out = Vec::new();
    for l in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let mut parts = l.split(';').map(str::trim);
        let fen = parts.next().expect("fen").to_owned();
        let (mut moves, mut scores) = (Vec::new(), Vec::new());
        for op in parts.filter(|p| !p.is_empty()) {
            let (k, v) = op.split_once(' ').expect("op");
            if k == "moves" {
                moves = v.trim_matches('"').split_whitespace().map(str::to_owned).collect();
            } else {
                scores.push((k.to_owned(), v.parse().expect("score")));
            }
        }
        out.push((fen, moves, scores));
    }
    out
}

fn script(dir: &Path, name: &str, body: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, format!("#!/bin/sh\n{body}")).expect("script");
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    p.display().to_string()
}

/// A UCI engine that scores a position 0 cp or 900 cp by the parity of its `position` line's
/// CRC (`cksum`), 0 for the start position's.
const PARITY_ENGINE: &str = r#"pos=""
while read -r line; do
  case "$line" in
    uci) echo "id name parity"; echo "option name UCI_Variant type combo default minishogi var minishogi"; echo uciok ;;
    isready) echo readyok ;;
    position*) pos="$line" ;;
    go*) c=$(printf %s "$pos" | cksum | cut -d' ' -f1)
         if [ $(( c % 2 )) -eq 0 ]; then s=0; else s=900; fi
         echo "info depth 1 score cp $s"; echo "bestmove 0000" ;;
    quit) exit 0 ;;
  esac
done
"#;

#[test]
fn a_tiny_book_is_distinct_balanced_and_the_same_at_any_thread_count() {
    let t = tempfile::tempdir().expect("temp dir");
    let (a, b) = (t.path().join("a.epd"), t.path().join("b.epd"));
    let o = book(&a, "6", "1", &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = book(&b, "6", "2", &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&a).expect("book");
    assert_eq!(text, std::fs::read_to_string(&b).expect("book"), "1 and 2 threads differ");
    let h = header(&text);
    assert_eq!(h["config"]["seed"], 1);
    assert_eq!(h["config"]["variant"], "minishogi");
    assert_eq!(h["git_revision"], kage_data::GIT_REVISION);
    let start = h["judges"][0]["start_score"].as_i64().expect("start score");
    let v = Variant::by_name("minishogi").expect("variant");
    let ls = lines(&text);
    assert_eq!(ls.len(), 6);
    let fens: HashSet<&String> = ls.iter().map(|l| &l.0).collect();
    assert_eq!(fens.len(), 6, "distinct positions");
    for (fen, moves, scores) in &ls {
        assert_eq!(moves.len(), 4);
        let mut g = Game::startpos(v);
        for m in moves {
            g.play_uci(m).expect("legal");
        }
        assert_eq!(&g.position().to_fen(), fen);
        assert_eq!(scores.len(), 1);
        assert_eq!(scores[0].0, "score_kage");
        assert!((scores[0].1 - start).abs() <= 100, "{} vs start {start}", scores[0].1);
    }
    // Another seed, another book; an output over an input is refused.
    let c = t.path().join("c.epd");
    assert!(book(&c, "6", "2", &["--seed", "2"]).status.success());
    assert_ne!(text, std::fs::read_to_string(&c).expect("book"));
    let engine = script(t.path(), "parity.sh", PARITY_ENGINE);
    let cmd = format!("cmd={engine}");
    let o = book(Path::new(&engine), "2", "1", &["--engine", &cmd]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("--out"), "{}", stderr(&o));
}

#[test]
fn a_second_judge_filters_lines_by_its_own_start_score() {
    let t = tempfile::tempdir().expect("temp dir");
    let engine = script(t.path(), "parity.sh", PARITY_ENGINE);
    let cmd = format!("cmd={engine}");
    let out = t.path().join("two.epd");
    let o = book(&out, "5", "2", &["--engine", &cmd, "name=parity"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&out).expect("book");
    let h = header(&text);
    assert_eq!(h["judges"][1]["name"], "parity");
    assert_eq!(h["judges"][1]["build"]["id_name"], "parity");
    assert_eq!(h["judges"][1]["start_score"], 0);
    assert!(h["rejected_margin"][1].as_u64().expect("count") > 0, "{h}");
    for (_, _, scores) in lines(&text) {
        assert_eq!(scores[1], ("score_parity".to_owned(), 0));
    }
    // A judge that gives no score is an error, not an empty book.
    let mute = script(
        t.path(),
        "mute.sh",
        &PARITY_ENGINE.replace("echo \"info depth 1 score cp $s\"; ", ""),
    );
    let o = book(&t.path().join("mute.epd"), "2", "1", &["--engine", &format!("cmd={mute}")]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("reported no score"), "{}", stderr(&o));
    assert_eq!(stderr(&o).trim().lines().count(), 1);
}

#[test]
fn a_match_plays_the_book_and_reports_its_distinct_openings() {
    let t = tempfile::tempdir().expect("temp dir");
    let epd = t.path().join("book.epd");
    assert!(book(&epd, "3", "2", &[]).status.success());
    let m = t.path().join("m");
    let cmd = format!("cmd={BIN}");
    let mut args = vec!["match", "--variant", "minishogi", "--nodes", "60", "--games", "8"];
    args.extend(["--max-plies", "20", "--order", "sequential", "--quiet"]);
    args.extend(["--openings", epd.to_str().expect("utf-8"), "--out", m.to_str().expect("utf-8")]);
    args.extend(["--engine", "builtin", "hash=1", "--engine", &cmd, "arg=uci", "option.Hash=1"]);
    let o = selfplay(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("Openings    3 distinct played (book of 3 lines)"), "{stdout}");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(m.join("summary.json")).expect("summary"))
            .expect("json");
    assert_eq!(summary["distinct_openings"], 3);
    assert_eq!(summary["book_lines"], 3);
    // The games start at the real start position with the book's moves as their opening.
    let log = std::fs::read_to_string(m.join("games.jsonl")).expect("log");
    let book_moves: Vec<Vec<String>> =
        lines(&std::fs::read_to_string(&epd).expect("book")).into_iter().map(|l| l.1).collect();
    let start = kage_engine::Position::startpos(Variant::by_name("minishogi").expect("v")).to_fen();
    for l in log.lines() {
        let p: serde_json::Value = serde_json::from_str(l).expect("pair");
        let g = &p["games"][0];
        assert_eq!(g["start_fen"], start.as_str());
        assert_eq!(g["book"], 4);
        let moves: Vec<String> = g["moves"].as_array().expect("moves")[..4]
            .iter()
            .map(|m| m.as_str().expect("move").to_owned())
            .collect();
        let k = p["pair"].as_u64().expect("pair") as usize;
        assert_eq!(moves, book_moves[k % 3]);
    }
    // A line whose moves do not lead to its FEN is refused with its line number.
    let text = std::fs::read_to_string(&epd).expect("book");
    let first = text.lines().find(|l| !l.starts_with('#')).expect("line").to_owned();
    let (fen, _) = first.split_once(';').expect("ops");
    let bad = t.path().join("bad.epd");
    std::fs::write(&bad, format!("{fen}; moves \"a1a2\";\n")).expect("write");
    let m2 = t.path().join("m2");
    args.iter_mut().for_each(|a| {
        if *a == epd.to_str().expect("utf-8") {
            *a = bad.to_str().expect("utf-8");
        } else if *a == m.to_str().expect("utf-8") {
            *a = m2.to_str().expect("utf-8");
        }
    });
    let o = selfplay(&args);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("line 1"), "{}", stderr(&o));
    assert!(!m2.exists());
}

#[test]
fn an_outside_engine_match_without_a_book_is_refused() {
    let t = tempfile::tempdir().expect("temp dir");
    let m = t.path().join("m");
    let cmd = format!("cmd={BIN}");
    let mut args = vec!["match", "--variant", "minishogi", "--nodes", "60", "--games", "2"];
    args.extend(["--quiet", "--out", m.to_str().expect("utf-8")]);
    args.extend(["--engine", "builtin", "hash=1", "--engine", &cmd, "arg=uci"]);
    let o = selfplay(&args);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("needs a balanced opening book (--openings FILE"), "{err}");
    assert!(err.contains("--random-openings"), "{err}");
    assert!(!m.exists());
    // Two built-in players need no book.
    let mut args = vec!["match", "--variant", "minishogi", "--nodes", "60", "--games", "2"];
    args.extend(["--max-plies", "20", "--quiet", "--out", m.to_str().expect("utf-8")]);
    args.extend(["--engine", "builtin", "hash=1", "--engine", "builtin", "hash=1"]);
    let o = selfplay(&args);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn a_user_variant_has_a_book() {
    let t = tempfile::tempdir().expect("temp dir");
    let spec =
        concat!(env!("CARGO_MANIFEST_DIR"), "/../engine/variants/examples/shinobiplus_rank4.toml");
    let out = t.path().join("u.epd");
    let mut args = vec!["book", "--variant-file", spec, "--count", "2", "--plies", "2"];
    args.extend(["--nodes", "200", "--sample", "uniform", "--margin", "10000", "--quiet"]);
    args.extend(["--out", out.to_str().expect("utf-8")]);
    let o = selfplay(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&out).expect("book");
    assert_eq!(lines(&text).len(), 2);
    assert!(header(&text)["variant_spec_hash"].is_string());
    let o = selfplay(&["book", "--variant", "all", "--out", out.to_str().expect("utf-8")]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("one variant"), "{}", stderr(&o));
}
