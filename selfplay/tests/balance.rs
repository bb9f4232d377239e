//! Balance reports from fixture game files written here with the data crate's writer:
//! statistics against values worked out by hand, grouping by settings, the JSON and HTML
//! reports of the command, and damaged files reported and skipped.

use std::path::{Path, PathBuf};
use std::process::Command;

use kage_data::{GameRecord, GameResult, RecordKind, Termination, Writer};
use kage_engine::Reason;
use kage_selfplay::balance::{self, Options};
use kage_selfplay::{Budget, GenConfig};

const BIN: &str = env!("CARGO_BIN_EXE_kage-selfplay");

fn cfg(nodes: u64, seed: u64) -> GenConfig {
    GenConfig::new("minishogi", 10, seed, Budget::Nodes(nodes)).validated().unwrap()
}

fn game(index: u64, moves: &[u16], result: GameResult, end: Termination) -> GameRecord {
    GameRecord {
        variant: "minishogi".into(),
        start_fen: "startpos".into(),
        moves: moves.to_vec(),
        scores: vec![],
        result,
        termination: end,
        game_index: index,
    }
}

/// Writes `games` of the run of `c` to `path`, one chunk per game when `small_chunks`.
fn write(path: &Path, c: &GenConfig, games: &[GameRecord], small_chunks: bool) -> PathBuf {
    let header = kage_selfplay::run::header(c, RecordKind::Game).unwrap();
    let mut w = Writer::<GameRecord>::create(path, header).unwrap();
    if small_chunks {
        w.set_chunk_target(1);
    }
    for g in games {
        w.write(g).unwrap();
    }
    w.finish().unwrap();
    path.to_path_buf()
}

const MATE: Termination = Termination::Rule(Reason::Checkmate);
const REP: Termination = Termination::Rule(Reason::Repetition);
use GameResult::{BlackWin as L, Draw as D, WhiteWin as W};

/// Group A: two runs of the same settings (seeds 1 and 2), 6 games, 5 distinct; group B:
/// other settings (200 nodes), with a damaged chunk and a file that is not a data file.
fn fixture(dir: &Path) {
    let a1 = [
        game(0, &[1, 2, 3, 4], W, MATE),
        game(1, &[1, 2, 3, 4], W, MATE), // the same game again: not distinct
        game(2, &[1, 2, 5, 6, 7, 8], D, REP),
        game(3, &[9, 2, 5], L, Termination::Resign),
        game(4, &[1, 3, 3, 3, 3, 3, 3, 3, 3, 3], W, Termination::Resign),
    ];
    write(&dir.join("a1.kdata"), &cfg(100, 1), &a1, false);
    // The same file again (a copy next to the original): counted once.
    write(&dir.join("a1-copy.kdata"), &cfg(100, 1), &a1[..2], false);
    write(
        &dir.join("a2.kdata"),
        &cfg(100, 2),
        &[game(0, &[7, 7], D, Termination::PlyLimit)],
        false,
    );
    let b1 = [game(0, &[1, 2], L, MATE), game(1, &[2, 2], L, MATE)];
    write(&dir.join("b1.kdata"), &cfg(200, 1), &b1, false);
    let b2 = [game(5, &[4, 4], W, MATE), game(6, &[5, 5], L, MATE)];
    let p = write(&dir.join("b2.kdata"), &cfg(200, 1), &b2, true);
    // Damage the first chunk's payload: game 5 is lost, game 6 still counts.
    let mut bytes = std::fs::read(&p).unwrap();
    let at = bytes.windows(4).position(|w| w == b"KCHK").unwrap();
    bytes[at + 20] ^= 0xff;
    std::fs::write(&p, bytes).unwrap();
    std::fs::write(dir.join("junk.kdata"), b"this is not a kage data file").unwrap();
}

#[test]
fn statistics_grouping_and_damage() {
    let t = tempfile::tempdir().unwrap();
    fixture(t.path());
    let (files, problems) = balance::game_files(&[t.path().to_path_buf()]).unwrap();
    assert_eq!(files.len(), 5, "{files:?}");
    assert_eq!(problems.len(), 1);
    assert!(problems[0].contains("junk.kdata"), "{problems:?}");
    let r = balance::collect(&files, Options::default());
    assert_eq!(r.duplicate_records, 2, "the copy's two games");
    assert_eq!(r.problems.len(), 1, "{:?}", r.problems);
    assert!(r.problems[0].contains("b2.kdata") && r.problems[0].contains("damaged"));
    assert_eq!(r.groups.len(), 2, "two settings, two groups");

    let a = &r.groups[0];
    assert_eq!(a.info.nodes, Some(100));
    assert_eq!(a.info.sides, ["Sente".to_owned(), "Gote".to_owned()]);
    assert_eq!((a.runs.len(), a.seeds.clone(), a.files), (2, vec![1, 2], 3));
    assert_eq!((a.games, a.distinct_games), (6, 5));
    // First 8 plies (the config's opening plies): five different openings.
    assert_eq!((a.opening_plies, a.distinct_openings), (8, 5));
    assert_eq!(
        (a.results.first_wins.count, a.results.draws.count, a.results.second_wins.count),
        (3, 2, 1)
    );
    // Distinct games: W 2, D 2, L 1: score 3/5 = 0.6; variance (2*0.16 + 2*0.01 + 0.36)/5
    // = 0.14, standard error sqrt(0.14/5) = 0.167332, half width 1.96 * that = 0.327966.
    let s = &a.first_player_score;
    assert_eq!(s.games, 5);
    assert!((s.score - 0.6).abs() < 1e-12);
    assert!((s.ci_low - 0.272_034).abs() < 1e-5 && (s.ci_high - 0.927_966).abs() < 1e-5);
    assert!((s.elo - 70.44).abs() < 0.01, "{}", s.elo); // -400 log10(1/0.6 - 1)
    assert_eq!(a.draw_rate.count, 2);
    assert!((a.draw_rate.fraction - 0.4).abs() < 1e-12);
    let ends: Vec<(&str, u64, u64, u64, u64)> = a
        .endings
        .iter()
        .map(|e| (e.ending.as_str(), e.games, e.first_wins, e.draws, e.second_wins))
        .collect();
    assert_eq!(
        ends,
        [
            ("checkmate", 2, 2, 0, 0),
            ("repetition", 1, 0, 1, 0),
            ("resign", 2, 1, 0, 1),
            ("ply_limit", 1, 0, 1, 0)
        ]
    );
    let l = &a.lengths;
    assert_eq!((l.min, l.max, l.median), (2, 10, 4.0));
    assert!((l.mean - 29.0 / 6.0).abs() < 1e-12);
    assert_eq!((l.bin_width, l.histogram.iter().sum::<u64>()), (1, 6));

    let b = &r.groups[1];
    assert_eq!(b.info.nodes, Some(200));
    assert_ne!(a.info.settings_hash, b.info.settings_hash);
    assert_eq!((b.games, b.distinct_games, b.results.second_wins.count), (3, 3, 3));
    assert_eq!((b.first_player_score.score, b.first_player_score.ci_high), (0.0, 0.0));

    // An explicit opening length: the first 2 plies give 4 openings in group A.
    let r2 = balance::collect(&files, Options { opening_plies: Some(2) });
    assert_eq!((r2.groups[0].opening_plies, r2.groups[0].distinct_openings), (2, 4));
}

#[test]
fn command_writes_text_json_and_html_and_reports_damage() {
    let t = tempfile::tempdir().unwrap();
    let data = t.path().join("data");
    std::fs::create_dir(&data).unwrap();
    fixture(&data);
    let (json, html) = (t.path().join("r.json"), t.path().join("r.html"));
    let out = Command::new(BIN)
        .arg("balance")
        .arg(&data)
        .arg("--json")
        .arg(&json)
        .arg("--html")
        .arg(&html)
        .output()
        .unwrap();
    let (stdout, stderr) =
        (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("junk.kdata") && stderr.contains("b2.kdata"), "{stderr}");
    assert!(stdout.contains("Sente wins") && stdout.contains("Gote wins"), "{stdout}");
    assert!(stdout.contains("0.600 (0.272-0.928)"), "{stdout}");

    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let groups = v["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 2);
    let g = &groups[0];
    assert_eq!(g["info"]["variant"], "minishogi");
    assert_eq!(g["info"]["sides"][0], "Sente");
    assert_eq!(g["info"]["budget"], "nodes 100");
    assert_eq!(g["info"]["net"], "hce");
    assert!(g["info"]["openings"].as_str().unwrap().contains("MultiPV"));
    assert_eq!(g["games"], 6);
    assert_eq!(g["distinct_games"], 5);
    assert_eq!(g["distinct_openings"], 5);
    assert_eq!(g["results"]["first_wins"]["count"], 3);
    assert_eq!(g["first_player_score"]["games"], 5);
    assert_eq!(g["endings"][2]["ending"], "resign");
    assert_eq!(g["endings"][2]["second_wins"], 1);
    assert_eq!(g["lengths"]["median"], 4.0);
    assert_eq!(v["problems"].as_array().unwrap().len(), 2);
    assert_eq!(v["duplicate_records"], 2);

    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>") && page.trim_end().ends_with("</html>"));
    // Score, score by budget (the two groups differ only in it: one line of two points),
    // endings, two histograms.
    assert_eq!(page.matches("<svg").count(), 5);
    assert!(page.contains("By node budget") && page.matches("<polyline").count() == 1);
    assert!(!page.contains("<script") && !page.contains("https://"));
    assert!(page.contains("Sente wins") && page.contains("junk.kdata"));

    // Nothing readable: an error, not an empty report.
    let empty = t.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let out = Command::new(BIN).arg("balance").arg(&empty).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no games"));
}

#[test]
fn a_user_variant_is_a_group_of_its_own() {
    let t = tempfile::tempdir().unwrap();
    let spec =
        concat!(env!("CARGO_MANIFEST_DIR"), "/../engine/variants/examples/shinobiplus_rank4.toml");
    let play = |extra: &[&str]| {
        Command::new(BIN)
            .args(["generate", "--games", "2", "--player", "greedy", "--threads", "1", "--quiet"])
            .args(["--max-plies", "40", "--out"])
            .arg(t.path())
            .args(extra)
            .output()
            .unwrap()
    };
    let out = play(&["--variant-file", spec]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(play(&["--variant", "shinobiplus"]).status.success());
    // A name that does not match, or a built-in name, is refused.
    let bad = play(&["--variant", "shinobi", "--variant-file", spec]);
    assert!(!bad.status.success());
    let renamed = t.path().join("builtin-name.toml");
    let text = std::fs::read_to_string(spec).unwrap();
    std::fs::write(
        &renamed,
        text.replace("name = \"shinobiplus-rank4\"", "name = \"shinobiplus\""),
    )
    .unwrap();
    let bad = play(&["--variant-file", renamed.to_str().unwrap()]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("built-in"));

    let (files, _) = balance::game_files(&[t.path().to_path_buf()]).unwrap();
    let r = balance::collect(&files, Options::default());
    let names: Vec<(&str, bool)> =
        r.groups.iter().map(|g| (g.info.variant.as_str(), g.info.user_variant)).collect();
    assert_eq!(names, [("shinobiplus", false), ("shinobiplus-rank4", true)]);
    for g in &r.groups {
        assert_eq!(g.info.sides, ["Clan".to_owned(), "Kingdom".to_owned()]);
        assert_eq!(g.games, 2);
    }
}

#[test]
fn audit_plays_adjudicated_games_on() {
    let t = tempfile::tempdir().unwrap();
    let mut c = cfg(100, 1);
    c.player = kage_selfplay::PlayerKind::Greedy;
    c.adjudication.max_plies = 6;
    let start = kage_engine::Variant::by_name("minishogi").unwrap().start_fen.clone();
    let at_start = |index, result, end| GameRecord {
        start_fen: start.clone(),
        ..game(index, &[], result, end)
    };
    // The greedy player does not mate in 6 plies from the start: playing on gives a draw by
    // the ply cap. So the resignation (a Gote win) was wrong and the adjudicated draw right;
    // the checkmate is no adjudication and is not played on.
    let games = [
        at_start(0, L, Termination::Resign),
        at_start(1, D, Termination::AdjudicatedDraw),
        game(2, &[1, 2], W, MATE),
    ];
    write(&t.path().join("g.kdata"), &c, &games, false);
    let files = vec![t.path().join("g.kdata")];
    let opts = kage_selfplay::audit::AuditOptions {
        sample: 10,
        seed: 3,
        threads: 2,
        progress_every: None,
    };
    let r = kage_selfplay::audit::audit(&files, opts).unwrap();
    assert_eq!(r.groups.len(), 1);
    let g = &r.groups[0];
    assert_eq!((g.games, g.adjudicated, g.all.sampled, g.reached_ply_cap), (3, 2, 2, 2));
    assert_eq!((g.resign.sampled, g.resign.wrong.count), (1, 1));
    assert_eq!((g.draw.sampled, g.draw.wrong.count), (1, 0));
    assert_eq!(g.all.wrong.fraction, 0.5);
    let wrong: Vec<_> = g.cases.iter().filter(|c| c.wrong).collect();
    assert_eq!(wrong.len(), 1);
    assert_eq!((wrong[0].game_index, wrong[0].real_result.as_str()), (0, "1/2-1/2"));
    assert_eq!((wrong[0].real_end.as_str(), wrong[0].real_plies), ("ply_limit", 6));
    // A run whose net cannot be loaded is not audited, and says why; the others still are.
    let mut lost = c.clone();
    lost.budget = Budget::Nodes(50);
    lost.player = kage_selfplay::PlayerKind::Search;
    let missing = t.path().join("missing.nnue").display().to_string();
    lost.net = Some(kage_selfplay::config::NetRef { path: missing, hash: "0".into() });
    write(&t.path().join("lost.kdata"), &lost, &games[..1], false);
    let both = vec![files[0].clone(), t.path().join("lost.kdata")];
    let r = kage_selfplay::audit::audit(&both, opts).unwrap();
    assert_eq!(r.groups.len(), 1);
    assert_eq!(r.problems.len(), 1);
    assert!(r.problems[0].contains("not audited") && r.problems[0].contains("missing.nnue"));
    // A sample of one.
    let one = kage_selfplay::audit::audit(
        &files,
        kage_selfplay::audit::AuditOptions { sample: 1, ..opts },
    );
    assert_eq!(one.unwrap().groups[0].all.sampled, 1);

    // The command, and the balance report that states the audited error.
    let (aj, bj) = (t.path().join("audit.json"), t.path().join("balance.json"));
    let out = Command::new(BIN)
        .arg("audit")
        .arg(&files[0])
        .args(["--progress-secs", "0", "--json"])
        .arg(&aj)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("audit: 2/2 games (100.0%)"), "{err}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("1 wrong: 50.0%"));
    let out = Command::new(BIN)
        .arg("balance")
        .arg(&files[0])
        .arg("--audit")
        .arg(&aj)
        .arg("--json")
        .arg(&bj)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("1 of 2 adjudicated games"));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&bj).unwrap()).unwrap();
    assert_eq!(v["groups"][0]["audit"]["sampled"], 2);
    assert_eq!(v["groups"][0]["audit"]["wrong"], 1);
    // Not an audit file: a clear error.
    let out = Command::new(BIN).arg("balance").arg(&files[0]).arg("--audit").arg(&bj).output();
    let out = out.unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not an audit report"));
}
