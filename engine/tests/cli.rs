//! The `kage` binary: perft/rules output forms, user variant files, and bad input giving a
//! one-line error with exit code 2 (never a panic).

use std::process::{Command, Output};

fn kage(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kage")).args(args).output().expect("run kage")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

const RANK4: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/variants/examples/shinobiplus_rank4.toml");
const E5: &str = "rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/4K3[JDFCLHM] b kq - 0 1";

#[test]
fn perft_output_form() {
    let o = kage(&["perft", "--variant", "minishogi", "--depth", "2"]);
    assert!(o.status.success());
    let text = stdout(&o);
    let lines: Vec<&str> = text.lines().filter(|l| !l.is_empty()).collect();
    assert_eq!(lines.len(), 15, "14 root moves and the total");
    assert!(lines.iter().take(14).all(|l| l.split_once(": ").is_some()));
    assert_eq!(*lines.last().unwrap(), "Nodes searched: 181");
}

#[test]
fn rules_output_form() {
    let o = kage(&["rules", "--variant", "minishogi", "--moves", "a2a3"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    // A shogi pawn move does not reset the halfmove clock (FSF counts only chess pawns).
    assert_eq!(v["fen"], "rbsgk/4p/P4/5/KGSBR[] b - - 1 1");
    let legal: Vec<&str> =
        v["legal"].as_array().unwrap().iter().map(|m| m.as_str().unwrap()).collect();
    let mut sorted = legal.clone();
    sorted.sort();
    assert_eq!(legal, sorted);
    assert_eq!(v["in_check"], false);
    assert!(v["outcome"].is_null());
}

#[test]
fn user_variant_file_changes_rules_as_expected() {
    let o = kage(&["check", RANK4]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(stdout(&o).starts_with("ok: shinobiplus-rank4"));

    let legal = |extra: &[&str]| -> Vec<String> {
        let mut args = extra.to_vec();
        args.extend(["rules", "--variant", "shinobiplus-rank4", "--fen", E5]);
        let o = kage(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
        v["legal"].as_array().unwrap().iter().map(|m| m.as_str().unwrap().to_string()).collect()
    };
    let standard = {
        let o = kage(&["rules", "--variant", "shinobiplus", "--fen", E5]);
        let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
        v["legal"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    let custom = legal(&["--variant-file", RANK4]);
    // The only difference: the pawn arriving on rank 4 now must promote.
    let expected: Vec<String> = standard
        .iter()
        .map(|m| if m == "e5e4" { "e5e4+".to_string() } else { m.clone() })
        .collect();
    let mut expected_sorted = expected.clone();
    expected_sorted.sort();
    assert!(standard.contains(&"e5e4".to_string()));
    assert_eq!(custom, expected_sorted);

    // A captain has more moves than a pawn: perft after e5e4(+) grows.
    let total = |args: &[&str]| -> u64 {
        let o = kage(args);
        let t = stdout(&o);
        t.lines().last().unwrap().trim_start_matches("Nodes searched: ").parse().unwrap()
    };
    let std3 = total(&[
        "perft",
        "--variant",
        "shinobiplus",
        "--fen",
        E5,
        "--moves",
        "e5e4",
        "--depth",
        "2",
    ]);
    let cus3 = total(&[
        "--variant-file",
        RANK4,
        "perft",
        "--variant",
        "shinobiplus-rank4",
        "--fen",
        E5,
        "--moves",
        "e5e4+",
        "--depth",
        "2",
    ]);
    assert!(cus3 > std3, "captain on e4 gives more replies-and-answers: {cus3} vs {std3}");
}

#[test]
fn bad_input_exits_2_with_one_line() {
    let cases: Vec<Vec<&str>> = vec![
        vec!["perft", "--variant", "chess", "--depth", "1"],
        vec!["perft", "--variant", "minishogi", "--fen", "rbsgk/4p/5/P4[] w 0 1", "--depth", "1"],
        vec!["rules", "--variant", "minishogi", "--moves", "a2a5"],
        vec!["rules", "--variant", "minishogi", "--moves", "zz"],
        vec!["check", "/nonexistent/spec.toml"],
        vec!["--variant-file", "/nonexistent/spec.toml", "uci"],
        vec!["bench", "nothing"],
    ];
    for args in cases {
        let o = kage(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.starts_with("error: "), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(!err.contains("panicked"));
    }
}

#[test]
fn uci_session_reports_errors_and_stays_up() {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_kage"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let input = "uci\nsetoption name UCI_Variant value gorogoroplus\nposition startpos moves b3b4\n\
                 frobnicate\nposition fen 5/5 w\nposition startpos moves a1a6\nsetoption name UCI_Variant value chess\n\
                 position startpos moves b3b4\nd\ngo perft 2\n";
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).unwrap();
    stdin.flush().unwrap();
    // `go perft` runs beside the input loop: wait for its total before `isready`.
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut text = String::new();
    while !text.contains("Nodes searched:") {
        let mut line = String::new();
        if std::io::BufRead::read_line(&mut stdout, &mut line).unwrap() == 0 {
            break;
        }
        text += &line;
    }
    stdin.write_all(b"isready\nquit\n").unwrap();
    drop(stdin);
    std::io::Read::read_to_string(&mut stdout, &mut text).unwrap();
    child.wait().unwrap();
    assert!(text.contains("option name UCI_Variant type combo"));
    assert!(text.contains("var shinobiplus") && text.contains("var minishogi"));
    assert!(text.contains("uciok"));
    assert_eq!(text.matches("info string error").count(), 4, "{text}");
    assert!(text.contains("Fen: sgkgs/5/1Ppp1/2PP1/5/SGKGS[NLPnl] b - - 0 1"), "{text}");
    assert!(text.contains("Nodes searched:"));
    assert!(text.trim_end().ends_with("readyok"));
}

#[test]
fn fsf_net_random_inspect_eval_and_refusals() {
    let dir = std::env::temp_dir().join(format!("kage-cli-fsf-{}", std::process::id()));
    let d = dir.to_str().expect("utf-8 temp dir");
    let o = kage(&["fsf-net", "random", "--variant", "minishogi", "--seed", "3", "--out", d]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let path = stdout(&o).trim().to_string();
    assert!(path.contains("minishogi-") && path.ends_with(".nnue"), "{path}");
    let o = kage(&["fsf-net", "inspect", &path]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(stdout(&o).starts_with("Fairy-Stockfish NNUE net for minishogi: 13738192 bytes"));
    let o = kage(&["fsf-net", "eval", &path, "--moves", "a2a3"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = stdout(&o);
    assert!(text.starts_with(" NNUE network contributions (Black to move)"), "{text}");
    assert!(text.lines().last().is_some_and(|l| l.starts_with("NNUE evaluation ")));
    for args in [
        vec!["fsf-net", "inspect", &path, "--variant", "shinobi"],
        vec!["fsf-net", "inspect", RANK4],
        vec!["fsf-net", "eval", "/nonexistent.nnue"],
    ] {
        let o = kage(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
    }
    std::fs::remove_dir_all(&dir).expect("clean up");
}
