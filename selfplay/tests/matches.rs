//! `kage-selfplay match` and `stats` end to end: the built-in engine against kage through
//! UCI (the hidden `uci` subcommand), resume, crashing / hanging / illegal-moving outside
//! engines (small shell scripts), and bad input.
#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use kage_engine::{Game, Position, Variant};
use kage_selfplay::matches::log::PairLine;

const BIN: &str = env!("CARGO_BIN_EXE_kage-selfplay");

fn kage_selfplay(args: &[&str]) -> Output {
    Command::new(BIN).args(args).env("KAGE", BIN).output().expect("runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// An executable script in `dir`.
fn script(dir: &Path, name: &str, body: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, format!("#!/bin/sh\n{body}")).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    p.display().to_string()
}

/// A stand-in UCI engine that plays Minishogi only: it answers `uci`, `isready` and `quit`,
/// and `cases` (more `pattern) commands;;` lines of a shell `case` on the input line) the rest.
fn minishogi_engine(dir: &Path, name: &str, cases: &str) -> String {
    let body = format!(
        r#"while read -r line; do case "$line" in
uci) echo "option name UCI_Variant type combo default minishogi var minishogi"; echo uciok;;
isready) echo readyok;;
quit) exit 0;;
{cases}
esac; done
"#
    );
    script(dir, name, &body)
}

fn pairs(dir: &Path) -> Vec<PairLine> {
    std::fs::read_to_string(dir.join("games.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Every logged game replays legally from its FEN, and a game ended by a rule has the
/// result the rules give.
fn check_games(dir: &Path, variant: &str) {
    let v = Variant::by_name(variant).unwrap();
    for p in pairs(dir) {
        assert!(p.games[0].first_white && !p.games[1].first_white);
        for g in &p.games {
            let mut game = Game::new(Position::from_fen(v, &g.start_fen).unwrap());
            for m in &g.moves {
                game.play_uci(m).unwrap_or_else(|e| panic!("pair {}: {e}", p.pair));
            }
            assert_eq!(g.scores.len(), g.moves.len() - g.book);
            if let Some(o) = game.outcome() {
                let want = match o.winner {
                    Some(kage_engine::Color::White) => "1-0",
                    Some(kage_engine::Color::Black) => "0-1",
                    None => "1/2-1/2",
                };
                assert_eq!(g.result, want);
                assert_eq!(g.termination, o.reason.name().replace('_', " "));
            } else if !["illegal move", "adjudicated draw", "resign"]
                .contains(&g.termination.as_str())
            {
                assert_eq!(g.termination, "ply cap");
                assert_eq!(g.result, "1/2-1/2");
            }
        }
    }
}

fn base(out: &Path, games: &str) -> Vec<String> {
    [
        "match",
        "--variant",
        "minishogi",
        "--nodes",
        "150",
        "--nodes-jitter",
        "20",
        "--games",
        games,
        "--opening-plies",
        "4",
        "--opening-mode",
        "uniform",
        "--random-openings",
        "--max-plies",
        "80",
        "--quiet",
        "--out",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([out.display().to_string()])
    .collect()
}

fn run_match(out: &Path, games: &str, engines: &[&[&str]], extra: &[&str]) -> Output {
    let mut args = base(out, games);
    for e in engines {
        args.push("--engine".into());
        args.extend(e.iter().map(|s| s.to_string()));
    }
    args.extend(extra.iter().map(|s| s.to_string()));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    kage_selfplay(&refs)
}

#[test]
fn stats_command_reproduces_fishtest() {
    let o = kage_selfplay(&["stats", "--tri", "65804,56553,65388", "--elo0", "-3", "--elo1", "1"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains("LLR         2.0490"), "{out}");
    let o = kage_selfplay(&[
        "stats",
        "--penta",
        "10789,19328,33806,19402,10543",
        "--elo0",
        "-3",
        "--elo1",
        "1",
        "--model",
        "normalized",
    ]);
    let out = text(&o.stdout);
    assert!(out.contains("LLR         0.3009"), "{out}");
    assert!(out.contains("Ptnml(0-2)  10789, 19328, 33806, 19402, 10543"), "{out}");
    let o = kage_selfplay(&["stats", "--tri", "1,2"]);
    assert!(!o.status.success());
    assert_eq!(text(&o.stderr).trim().lines().count(), 1, "{}", text(&o.stderr));
}

#[test]
fn builtin_against_kage_over_uci_and_resume() {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("m");
    let cmd = format!("cmd={BIN}");
    let uci: &[&str] = &[&cmd, "arg=uci", "name=kage-uci", "option.Hash=2"];
    let engines: &[&[&str]] = &[&["builtin", "hash=2", "name=inproc"], uci];
    let o = run_match(&out, "4", engines, &["--pgn-scores"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let stdout = text(&o.stdout);
    assert!(stdout.contains("inproc vs kage-uci"), "{stdout}");
    assert!(stdout.contains("Ptnml(0-2)"), "{stdout}");
    assert!(stdout.contains("Overhead"), "{stdout}");
    assert_eq!(pairs(&out).len(), 2);
    check_games(&out, "minishogi");
    let pgn = std::fs::read_to_string(out.join("games.pgn")).unwrap();
    assert_eq!(pgn.matches("[Variant \"minishogi\"]").count(), 4);
    // The match games are data like self-play's: games.kdata, typed, in pair order.
    let (_, data, damage) =
        kage_data::read_all::<kage_data::GameRecord>(out.join("games.kdata")).unwrap();
    assert!(damage.is_empty());
    let log: Vec<_> = pairs(&out).into_iter().flat_map(|p| p.games).collect();
    assert_eq!(data.iter().map(|g| g.game_index).collect::<Vec<_>>(), [0, 1, 2, 3]);
    for (d, g) in data.iter().zip(&log) {
        assert_eq!((d.moves.len(), d.scores.len()), (g.moves.len(), g.moves.len()));
        assert_eq!(d.result.pgn(), g.result);
        assert_eq!(Some(d.termination), g.end());
    }
    assert_eq!(pgn.matches("[White \"inproc\"]").count(), 2);
    assert!(pgn.contains("{book}"));
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["status"], "complete");
    let c = &summary["counts"];
    let total: u64 = ["wins", "draws", "losses"].iter().map(|k| c[k].as_u64().unwrap()).sum();
    assert_eq!(total, 4);
    // Resume with a larger budget: only the missing pair is played; the first two stay.
    let before = pairs(&out);
    let o = run_match(&out, "6", engines, &["--pgn-scores"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let after = pairs(&out);
    assert_eq!(after.len(), 3);
    assert_eq!(&after[..2], &before[..]);
    // Another match in the same directory is refused, and the log is untouched.
    let o = run_match(&out, "6", &[&["builtin"], &["builtin", "hash=4"]], &[]);
    assert!(!o.status.success());
    assert!(text(&o.stderr).contains("holds another match"), "{}", text(&o.stderr));
    assert_eq!(pairs(&out), after);
}

#[test]
fn illegal_moves_lose_and_unknown_variants_are_refused() {
    let t = tempfile::tempdir().unwrap();
    let bad = minishogi_engine(
        t.path(),
        "illegal.sh",
        r#"go*) echo "info depth 1 score cp 5"; echo "bestmove a1a1";;"#,
    );
    let out = t.path().join("m");
    let cmd = format!("cmd={bad}");
    let o = run_match(&out, "2", &[&["builtin", "hash=1"], &[&cmd]], &[]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let p = pairs(&out);
    for g in &p[0].games {
        assert_eq!(g.termination, "illegal move");
        assert_eq!(g.first_halves(), 2, "the illegal mover loses");
    }
    assert!(text(&o.stderr).contains("illegal move \"a1a1\""), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("2 illegal moves"), "{}", text(&o.stdout));
    // The same engine does not play shinobi: one clear line, no directory.
    let out2 = t.path().join("m2");
    let mut args = base(&out2, "2");
    args[2] = "shinobi".into();
    args.extend(["--engine".into(), "builtin".into(), "--engine".into(), cmd.clone()]);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = kage_selfplay(&refs);
    let err = text(&o.stderr);
    assert!(!o.status.success());
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("does not know variant \"shinobi\""), "{err}");
    assert!(!out2.exists());
}

#[test]
fn crashing_and_hanging_engines() {
    let t = tempfile::tempdir().unwrap();
    // Crashes at its third `go` the first time it runs, then plays normally.
    let marker = t.path().join("crashed-once");
    let once = script(
        t.path(),
        "crash-once.sh",
        &format!(
            r#"if [ -e {m} ]; then exec "$KAGE" uci; fi
touch {m}
n=0
while IFS= read -r line; do
  case "$line" in go*) n=$((n+1)); if [ $n -ge 3 ]; then exit 3; fi;; esac
  printf '%s\n' "$line"
done | "$KAGE" uci
"#,
            m = marker.display()
        ),
    );
    let out = t.path().join("once");
    let cmd = format!("cmd={once}");
    let o = run_match(&out, "4", &[&["builtin", "hash=1"], &[&cmd]], &[]);
    let err = text(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("failed in pair") && err.contains("exited"), "{err}");
    assert_eq!(pairs(&out).len(), 2, "the crashed pair was replayed");
    check_games(&out, "minishogi");
    assert!(text(&o.stdout).contains("1 engine failures"), "{}", text(&o.stdout));

    // Always hangs at `go`: the match stops after --max-failures faults in a row.
    let hang = minishogi_engine(t.path(), "hang.sh", "");
    let out = t.path().join("hang");
    let cmd = format!("cmd={hang}");
    let o = run_match(
        &out,
        "4",
        &[&["builtin", "hash=1"], &[&cmd]],
        &["--hang-ms", "200", "--max-failures", "2"],
    );
    let err = text(&o.stderr);
    assert!(!o.status.success());
    assert_eq!(err.matches("failed in pair 0: no bestmove within 200 ms").count(), 2, "{err}");
    assert!(err.contains("stopping after 2 engine failures in a row"), "{err}");
    assert!(pairs(&out).is_empty());
}

#[test]
fn bad_input_is_one_line_and_loses_nothing() {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("m");
    let o = run_match(&out, "2", &[&["builtin", "hash=1"], &["builtin", "hash=1", "name=b"]], &[]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let log = std::fs::read(out.join("games.jsonl")).unwrap();
    let one_line = |o: &Output, want: &str| {
        let err = text(&o.stderr);
        assert!(!o.status.success());
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(err.starts_with("kage-selfplay: error:") && err.contains(want), "{err}");
    };
    // An engine that does not exist.
    let o = run_match(&out, "4", &[&["builtin", "hash=1"], &["cmd=/nonexistent/engine"]], &[]);
    one_line(&o, "cannot start \"/nonexistent/engine\"");
    // An opening file with an illegal FEN (line 2).
    let book: PathBuf = t.path().join("book.epd");
    let start = Position::startpos(Variant::by_name("minishogi").unwrap()).to_fen();
    std::fs::write(&book, format!("{start}\nrbsgk/4p/5/P4/KGSBX[-] w - - 0 1\n")).unwrap();
    let b = book.display().to_string();
    let o = run_match(
        &out,
        "4",
        &[&["builtin", "hash=1"], &["builtin", "hash=1", "name=b"]],
        &["--openings", &b],
    );
    one_line(&o, "line 2");
    // Bad engine settings.
    let o = run_match(&out, "4", &[&["builtin", "colour=blue"], &["builtin"]], &[]);
    one_line(&o, "unknown engine setting");
    assert_eq!(std::fs::read(out.join("games.jsonl")).unwrap(), log, "the log is untouched");
}

#[test]
fn file_openings_and_sprt_stop() {
    let t = tempfile::tempdir().unwrap();
    let book = t.path().join("book.fen");
    let v = Variant::by_name("minishogi").unwrap();
    let mut g = Game::startpos(v);
    let mut fens = vec![g.position().to_fen()];
    for _ in 0..2 {
        let m = g.position().legal_moves().as_slice()[0];
        g.play(m);
        fens.push(g.position().to_fen());
    }
    std::fs::write(&book, fens.join("\n") + "\n").unwrap();
    let out = t.path().join("m");
    let b = book.display().to_string();
    // Two equal engines tested for "at least +200 Elo": the GSPRT rejects that within a
    // few pairs and stops the match.
    let o = run_match(
        &out,
        "200",
        &[&["builtin", "hash=1", "name=a"], &[&format!("cmd={BIN}"), "arg=uci", "name=b"]],
        &["--openings", &b, "--order", "sequential", "--sprt", "--elo0", "200", "--elo1", "400"],
    );
    let err = text(&o.stderr);
    assert!(o.status.success(), "{err}");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["status"], "sprt_rejected");
    let played = pairs(&out);
    assert!(played.len() >= 3 && played.len() < 30, "{} pairs", played.len());
    let llr = summary["sprt"]["llr"].as_f64().unwrap();
    assert!(llr <= summary["sprt"]["lower"].as_f64().unwrap());
    assert!(text(&o.stdout).contains("H0 accepted"), "{}", text(&o.stdout));
    // Sequential file order: pair k starts from FEN k mod n (sent to the outside engine as
    // `position fen ...`: it never plays an illegal move).
    for p in &played {
        assert!(p.games.iter().all(|g| g.termination != "illegal move"));
        let want = &fens[(p.pair as usize) % fens.len()];
        assert_eq!(&p.games[0].start_fen, want);
        assert_eq!(&p.games[1].start_fen, want);
        assert_eq!(p.games[0].book, 0);
    }
}

#[test]
fn results_do_not_depend_on_threads() {
    let t = tempfile::tempdir().unwrap();
    let engines: &[&[&str]] = &[&["builtin", "hash=1", "name=a"], &["builtin", "hash=2", "name=b"]];
    let (one, two) = (t.path().join("one"), t.path().join("two"));
    let o = run_match(&one, "6", engines, &["--threads", "1"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let o = run_match(&two, "6", engines, &["--threads", "2"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let games = |d: &Path| {
        let mut p = pairs(d);
        p.sort_by_key(|p| p.pair);
        p.into_iter()
            .flat_map(|p| p.games)
            .map(|g| (g.start_fen, g.moves, g.result, g.termination))
            .collect::<Vec<_>>()
    };
    let a = games(&one);
    assert_eq!(a.len(), 6);
    assert_eq!(a, games(&two));
}

#[test]
fn a_flag_fall_loses() {
    let t = tempfile::tempdir().unwrap();
    // Answers every `go` (with an illegal move) only after 0.3 s: its 0.1 s clock falls first.
    let slow = minishogi_engine(t.path(), "slow.sh", r#"go*) sleep 0.7; echo "bestmove a1a1";;"#);
    let out = t.path().join("m");
    let mut args = base(&out, "2");
    let i = args.iter().position(|a| a == "--nodes").unwrap();
    args.drain(i..i + 4); // --nodes 150 --nodes-jitter 20
    let cmd = format!("cmd={slow}");
    for a in ["--tc", "0.5+0", "--margin", "10", "--engine", "builtin", "hash=1", "--engine"] {
        args.push(a.into());
    }
    args.push(cmd);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = kage_selfplay(&refs);
    assert!(o.status.success(), "{}", text(&o.stderr));
    for g in &pairs(&out)[0].games {
        assert_eq!(g.termination, "time forfeit");
        assert_eq!(g.first_halves(), 2);
    }
    assert!(text(&o.stdout).contains("2 time forfeits"), "{}", text(&o.stdout));
}

#[test]
fn interrupted_match_resumes() {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("m");
    let cmd = format!("cmd={BIN}");
    let mut args = base(&out, "400");
    args.extend(["--engine", "builtin", "hash=1", "--engine", &cmd, "arg=uci"].map(String::from));
    let mut child = Command::new(BIN).args(&args).env("KAGE", BIN).spawn().unwrap();
    // Wait for a few pairs, then Ctrl-C.
    let log = out.join("games.jsonl");
    let t0 = std::time::Instant::now();
    while std::fs::read_to_string(&log).map_or(0, |s| s.lines().count()) < 2 {
        assert!(t0.elapsed().as_secs() < 20, "no pairs logged");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let pid = child.id().to_string();
    assert!(Command::new("kill").args(["-INT", &pid]).status().unwrap().success());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["status"], "interrupted");
    let before = pairs(&out);
    assert!(before.len() >= 2 && before.len() < 200);
    // Resume with a smaller budget: only the missing pairs below it are played.
    let want = before.len() as u64 + 2;
    let i = args.iter().position(|a| a == "400").unwrap();
    args[i] = (2 * want).to_string();
    let o = Command::new(BIN).args(&args).env("KAGE", BIN).output().unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    let after = pairs(&out);
    assert_eq!(&after[..before.len()], &before[..]);
    let mut got: Vec<u64> = after.iter().map(|p| p.pair).collect();
    got.sort();
    // One thread plays pairs in order: pairs 0.. were logged, then the missing ones.
    assert_eq!(got, (0..want).collect::<Vec<_>>());
    check_games(&out, "minishogi");
}

#[test]
fn variant_path_rereads_the_variant_list() {
    let t = tempfile::tempdir().unwrap();
    // Like Fairy-Stockfish: minishogi only after a VariantPath has been loaded.
    let fsf = script(
        t.path(),
        "fsf.sh",
        r#"vp=0
while read -r line; do case "$line" in
uci) echo "id name fake-fsf"
  if [ $vp = 1 ]; then echo "option name UCI_Variant type combo default chess var chess var minishogi"
  else echo "option name UCI_Variant type combo default chess var chess"; fi
  echo "option name VariantPath type string default <empty>"; echo uciok;;
"setoption name VariantPath value "*) vp=1;;
isready) echo readyok;;
go*) echo "bestmove a1a1";;
quit) exit 0;;
esac; done
"#,
    );
    let cmd = format!("cmd={fsf}");
    let o = run_match(&t.path().join("a"), "2", &[&["builtin"], &[&cmd]], &[]);
    let err = text(&o.stderr);
    assert!(!o.status.success());
    assert!(
        err.contains("does not know variant \"minishogi\" (its UCI_Variant values: chess)"),
        "{err}"
    );
    let o = run_match(
        &t.path().join("b"),
        "2",
        &[&["builtin"], &[&cmd, "option.VariantPath=variants.ini"]],
        &[],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("kage vs fsf.sh"), "{}", text(&o.stdout));
}

#[test]
fn an_engine_that_ignores_its_net_is_refused() {
    let t = tempfile::tempdir().unwrap();
    // Like Fairy-Stockfish: a net is used only when its file name starts with the variant's
    // name; otherwise the search says so in one info line and plays its classical evaluation.
    let fsf = minishogi_engine(
        t.path(),
        "fsf.sh",
        r#""setoption name EvalFile value minishogi-"*) net=yes;;
go*) if [ "$net" = yes ]; then echo "info string NNUE evaluation using minishogi-0123.nnue enabled"
  else echo "info string classical evaluation enabled"; fi
  echo "info depth 1 score cp 5"; echo "bestmove b1b2";;"#,
    );
    let cmd = format!("cmd={fsf}");
    let o = run_match(
        &t.path().join("a"),
        "2",
        &[&["builtin"], &[&cmd, "option.EvalFile=net.nnue"]],
        &[],
    );
    let err = text(&o.stderr);
    assert!(!o.status.success());
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("ignores EvalFile \"net.nnue\""), "{err}");
    assert!(err.contains("classical evaluation enabled"), "{err}");
    assert!(!t.path().join("a").exists());
    // The variant's name first, or NNUE switched off on purpose: the match is played.
    for opts in [
        &["option.EvalFile=minishogi-0123.nnue"][..],
        &["option.EvalFile=net.nnue", "option.Use NNUE=false"],
    ] {
        let mut engine = vec![cmd.as_str()];
        engine.extend(opts);
        let o =
            run_match(&t.path().join(opts.len().to_string()), "2", &[&["builtin"], &engine], &[]);
        assert!(!text(&o.stderr).contains("ignores EvalFile"), "{}", text(&o.stderr));
        assert!(t.path().join(opts.len().to_string()).join("games.jsonl").exists());
    }
}

#[test]
fn score_adjudication() {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("m");
    // Any score counts as drawish: from ply 6 on, two drawish plies in a row end the game.
    let o = run_match(
        &out,
        "2",
        &[&["builtin", "hash=1"], &[&format!("cmd={BIN}"), "arg=uci"]],
        &["--draw-cp", "100000", "--draw-plies", "2", "--draw-min-ply", "6"],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    for g in &pairs(&out)[0].games {
        assert_eq!((g.termination.as_str(), g.result.as_str()), ("adjudicated draw", "1/2-1/2"));
        assert_eq!(g.moves.len(), 7, "{:?}", g.moves);
    }
    check_games(&out, "minishogi");
}
