//! `kage-selfplay results`: result folders (one from a real tiny match, one written by hand
//! in the match files' serde form) as a Markdown table, `--check` / `--write` of a document's
//! marked block, damaged files named in one line; and BENCHMARKS.md's marked blocks equal to
//! the tables of their folders.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use kage_selfplay::matches::results;
use kage_selfplay::matches::stats;

const BIN: &str = env!("CARGO_BIN_EXE_kage-selfplay");

fn kage_selfplay(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn path(p: &Path) -> String {
    p.display().to_string()
}

/// A tiny real match (4 games, 60 nodes, hand-crafted evaluation on both sides), its files
/// copied into `results/<name>/` with a label.
fn real_result(t: &Path, results: &Path, name: &str) -> serde_json::Value {
    let out = t.join("m");
    #[rustfmt::skip]
    let o = kage_selfplay(&[
        "match", "--variant", "minishogi", "--nodes", "60", "--games", "4", "--seed", "7",
        "--opening-plies", "4", "--opening-mode", "uniform", "--max-plies", "60", "--quiet",
        "--engine", "builtin", "eval=hce", "hash=2", "name=a",
        "--engine", "builtin", "eval=hce", "hash=2", "name=b",
        "--out", &path(&out),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let dir = results.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    for f in ["summary.json", "match.json"] {
        std::fs::copy(out.join(f), dir.join(f)).unwrap();
    }
    std::fs::write(dir.join("about.toml"), "label = \"kage HCE | vs itself\"\n").unwrap();
    serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap()
}

/// A result folder written by hand: an SPRT-stopped clock match of two outside engines on a
/// book (no about.toml).
fn hand_result(results: &Path, name: &str) {
    let dir = results.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let penta = [13u64, 0, 91, 0, 96];
    let e = stats::elo(&penta).unwrap();
    let summary = serde_json::json!({
        "status": "sprt_accepted",
        "variant": "minishogi",
        "engines": ["fsf-net", "fsf-classical"],
        "counts": {"wins": 283, "draws": 0, "losses": 117, "penta": penta},
        "elo": e,
        "sprt": null,
        "pairs": 200,
        "games_planned": 1000,
        "distinct_openings": 198,
        "book_lines": 200,
        "wall_s": 1.0,
    });
    let uci = |name: &str| {
        serde_json::json!({"name": name, "kind": {"Uci": {
            "cmd": "fsf", "args": [], "dir": null, "options": [["Use NNUE", "false"]]}}})
    };
    let identity = serde_json::json!({
        "variant": "minishogi",
        "engines": [uci("fsf-net"), uci("fsf-classical")],
        "limit": {"Clock": {"time_ms": 1000, "inc_ms": 100, "margin_ms": 50}},
        "openings": {"File": {
            "path": "selfplay/books/minishogi-fsf.epd", "hash": "0123", "order": "random"}},
        "seed": 2901,
        "max_plies": 400,
    });
    for (f, v) in [("summary.json", summary), ("match.json", identity)] {
        std::fs::write(dir.join(f), serde_json::to_string_pretty(&v).unwrap()).unwrap();
    }
}

fn results_cmd(dir: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["results".to_owned(), path(dir)];
    args.extend(extra.iter().map(|s| s.to_string()));
    kage_selfplay(&args.iter().map(String::as_str).collect::<Vec<_>>())
}

/// The one-line error of a failed command.
fn error_line(o: &Output) -> String {
    assert!(!o.status.success());
    let err = text(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("kage-selfplay: error: "), "{err}");
    err
}

#[test]
fn table_check_and_write() {
    let t = tempfile::tempdir().unwrap();
    let res = t.path().join("results");
    let summary = real_result(t.path(), &res, "b-real");
    hand_result(&res, "a-hand");
    // What a match writes now: the games asked for and its command line.
    assert_eq!(summary["games_planned"], 4);
    let cmd: Vec<&str> =
        summary["command"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert_eq!(&cmd[..4], ["kage-selfplay", "match", "--variant", "minishogi"]);

    let o = results_cmd(&res, &[]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let table = text(&o.stdout);
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 4, "{table}");
    assert_eq!(
        lines[0],
        "| what | variant | limit | seed | games | W-D-L | Elo (95%) | openings (distinct / book \
         lines) |"
    );
    assert_eq!(lines[1], "|---|---|---|---:|---:|---|---:|---|");
    // Rows in folder-name order: the hand-written one first.
    let hand = stats::elo(&[13, 0, 91, 0, 96]).unwrap();
    assert_eq!(results::elo_text(hand.elo, hand.elo95), "+153 +/- 36");
    assert_eq!(
        lines[2],
        format!(
            "| fsf-net vs fsf-classical | minishogi | 1 s + 0.1 s | 2901 | 400 (SPRT: H1) | \
             283-0-117 | {} | 198 / 200 (minishogi-fsf.epd) |",
            results::elo_text(hand.elo, hand.elo95)
        )
    );
    let c = &summary["counts"];
    let n = |k: &str| c[k].as_u64().unwrap();
    let elo = results::elo_text(
        summary["elo"]["elo"].as_f64().unwrap(),
        summary["elo"]["elo95"].as_f64().unwrap(),
    );
    assert_eq!(
        lines[3],
        format!(
            "| kage HCE \\| vs itself | minishogi | 60 nodes | 7 | 4 | {}-{}-{} | {elo} | {} \
             (random: 4 plies, uniform) |",
            n("wins"),
            n("draws"),
            n("losses"),
            summary["distinct_openings"]
        )
    );
    // The library gives the same table.
    assert_eq!(results::table(&results::read_dir(&res).unwrap()), table);

    // --write fills a document's block; --check then passes; the rest stays as it was.
    let key = path(&res);
    let doc = t.path().join("DOC.md");
    let before = format!(
        "# Doc\n\ntext\n<!-- results:{key} begin -->\nold\n<!-- results:{key} end -->\nafter\n"
    );
    std::fs::write(&doc, &before).unwrap();
    let o = results_cmd(&res, &["--check", &path(&doc)]);
    let err = error_line(&o);
    assert!(err.contains("DOC.md: line 5: the block results:") && err.contains("--write"), "{err}");
    let o = results_cmd(&res, &["--write", &path(&doc)]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let written = std::fs::read_to_string(&doc).unwrap();
    assert_eq!(
        written,
        format!(
            "# Doc\n\ntext\n<!-- results:{key} begin -->\n\n{table}\n<!-- results:{key} end -->\nafter\n"
        )
    );
    let o = results_cmd(&res, &["--check", &path(&doc)]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(o.stdout.is_empty());
    // A drifted figure fails the check, naming the line.
    let drifted = written.replace("283-0-117", "284-0-116");
    std::fs::write(&doc, &drifted).unwrap();
    let err = error_line(&results_cmd(&res, &["--check", &path(&doc)]));
    assert!(err.contains("DOC.md: line 8: the block results:"), "{err}");
    // A row more (a new result folder) is drift too.
    std::fs::write(&doc, &written).unwrap();
    hand_result(&res, "c-hand");
    error_line(&results_cmd(&res, &["--check", &path(&doc)]));
    // A document without the block.
    std::fs::write(&doc, "nothing here\n").unwrap();
    let err = error_line(&results_cmd(&res, &["--write", &path(&doc)]));
    assert!(err.contains("DOC.md: no such block (<!-- results:"), "{err}");
    assert_eq!(std::fs::read_to_string(&doc).unwrap(), "nothing here\n");
    // The key is the folder as given, without ./ or a trailing /.
    assert_eq!(results::block_key(Path::new("./docs/results/")), "docs/results");
}

#[test]
fn bad_files_are_named_in_one_line() {
    let t = tempfile::tempdir().unwrap();
    let res = t.path().join("results");
    hand_result(&res, "a");
    hand_result(&res, "b");
    let summary = res.join("b").join("summary.json");
    let good = std::fs::read_to_string(&summary).unwrap();
    // A damaged summary.json.
    std::fs::write(&summary, &good[..good.len() / 2]).unwrap();
    let err = error_line(&results_cmd(&res, &[]));
    assert!(err.contains(&format!("{}: damaged:", summary.display())), "{err}");
    // Figures that disagree with the counts.
    std::fs::write(&summary, good.replace("\"wins\": 283", "\"wins\": 284")).unwrap();
    let err = error_line(&results_cmd(&res, &[]));
    assert!(err.contains(&format!("{}: damaged: counts 284-0-117", summary.display())), "{err}");
    std::fs::write(&summary, &good).unwrap();
    // A missing match.json.
    let identity = res.join("b").join("match.json");
    let id = std::fs::read_to_string(&identity).unwrap();
    std::fs::remove_file(&identity).unwrap();
    let err = error_line(&results_cmd(&res, &[]));
    assert!(err.contains(&path(&identity)), "{err}");
    // Files of two matches.
    std::fs::write(&identity, id.replace("\"variant\": \"minishogi\"", "\"variant\": \"shinobi\""))
        .unwrap();
    let err = error_line(&results_cmd(&res, &[]));
    assert!(err.contains("variant is \"minishogi\" in summary.json but \"shinobi\""), "{err}");
    std::fs::write(&identity, &id).unwrap();
    // An about.toml with a key other than label.
    let about = res.join("a").join("about.toml");
    std::fs::write(&about, "label = \"x\"\nlabels = \"y\"\n").unwrap();
    let err = error_line(&results_cmd(&res, &[]));
    assert!(err.contains(&format!("{} line 2: unknown field", about.display())), "{err}");
    std::fs::write(&about, "label = \"\"\n").unwrap();
    let err = error_line(&results_cmd(&res, &[]));
    assert!(err.contains("label must be one non-empty line"), "{err}");
    std::fs::remove_file(&about).unwrap();
    // Files beside the result folders are ignored; a folder without results is an error.
    std::fs::write(res.join("README.md"), "about these results\n").unwrap();
    assert!(results_cmd(&res, &[]).status.success());
    let err = error_line(&results_cmd(&t.path().join("nothing"), &[]));
    assert!(err.contains("cannot list"), "{err}");
    let empty = t.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let err = error_line(&results_cmd(&empty, &[]));
    assert!(err.contains("no result folders"), "{err}");
}

/// Every `<!-- results:DIR begin -->` block of BENCHMARKS.md holds the table of DIR (relative
/// to the repository root): the document cannot drift from the committed result files.
#[test]
fn benchmarks_blocks_match_their_result_folders() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let doc = root.join("BENCHMARKS.md");
    let text = std::fs::read_to_string(&doc).unwrap();
    if let Err(e) = results::check_all(&doc, &text, &root) {
        panic!("{e}");
    }
}
