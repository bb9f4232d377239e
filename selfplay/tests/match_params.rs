//! `kage-selfplay match` with `builtin params=FILE`: the hand-crafted evaluation with
//! parameters from a file (what `kage-train tune` writes) plays, and a bad file is one clear
//! error line before anything is written.

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_kage-selfplay");

/// A fresh scratch directory, removed when dropped.
fn temp_dir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new().prefix(&format!("kage-match-params-{name}-")).tempdir().unwrap()
}

/// A two-game minishogi match at 300 nodes per move between `builtin params=PARAMS` and
/// the built-in evaluation, into `out`.
fn match_with_params(params: &std::path::Path, out: &std::path::Path) -> std::process::Output {
    let (p, o) = (format!("params={}", params.display()), out.display().to_string());
    let args = ["match", "--variant", "minishogi", "--games", "2", "--nodes", "300", "--quiet"];
    Command::new(BIN)
        .args(args)
        .args(["--engine", "builtin", &p, "--engine", "builtin", "--out", &o])
        .output()
        .expect("runs")
}

#[test]
fn a_parameter_file_plays_and_a_bad_one_is_refused() {
    let tmp = temp_dir("plays");
    let dir = tmp.path();
    let params = dir.join("heavy-pawns.toml");
    // A legal parameter file that values pawns at three times the spec's value.
    std::fs::write(&params, "tempo = 10\n[material]\n\"P\" = 300\n").unwrap();
    let out = dir.join("m");
    let r = match_with_params(&params, &out);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let summary = std::fs::read_to_string(out.join("summary.json")).unwrap();
    assert!(summary.contains("kage-heavy-pawns"), "{summary}");

    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "tempo = \"ten\"\n").unwrap();
    let out2 = dir.join("m2");
    let r = match_with_params(&bad, &out2);
    assert!(!r.status.success());
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.contains("bad.toml"), "{err}");
    assert!(!out2.join("games.jsonl").exists());
}
