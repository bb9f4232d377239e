//! Attack tests (issue #11): self-play given numbers it cannot store, too much hash, a run
//! directory in use, and finished or half-finished runs whose files were lost or damaged.
//! Each ends in a clear error or a correct rerun, never an abort or a silent "complete".
//!
//! Issue #31 (below the first ones): reports over their inputs, tools in each other's
//! directories, two matches in one directory, settings one command checks and another did
//! not, outside engines' bytes, files read whole, variant names that are paths, and resumes
//! with another build of an engine.

use std::path::Path;
use std::process::Command;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use kage_data::{GameRecord, PositionRecord, read_all};
use kage_selfplay::run::{RunStatus, generate};
use kage_selfplay::{Budget, GenConfig, PlayerKind, RunOptions, RunReport, Shard, factory_for};

const BIN: &str = env!("CARGO_BIN_EXE_kage-selfplay");
/// A user variant's spec file: the engine's example, Shinobi+ with the Kingdom's pawns
/// promoting on rank 4.
const RANK4: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../engine/variants/examples/shinobiplus_rank4.toml");

fn cfg(games: u64, batch: u64) -> GenConfig {
    let mut c = GenConfig::new("minishogi", games, 5, Budget::Nodes(50));
    c.batch_size = batch;
    c.hash_mb = 1;
    c.player = PlayerKind::Greedy;
    c.validated().expect("valid config")
}

fn run_with(c: &GenConfig, out: &Path, stop: bool) -> kage_selfplay::Result<RunReport> {
    run_rebuilt(c, out, stop, false)
}

fn run_rebuilt(
    c: &GenConfig,
    out: &Path,
    stop: bool,
    allow_rebuild: bool,
) -> kage_selfplay::Result<RunReport> {
    let stop = AtomicBool::new(stop);
    let opts = RunOptions {
        out: out.to_path_buf(),
        shard: Shard::WHOLE,
        threads: 2,
        progress: false,
        progress_every: std::time::Duration::from_secs(30),
        stop: &stop,
        factory: factory_for(c).expect("factory"),
        allow_rebuild,
    };
    generate(c, &opts)
}

fn run(c: &GenConfig, out: &Path) -> kage_selfplay::Result<RunReport> {
    run_with(c, out, false)
}

#[test]
fn numbers_a_run_file_cannot_hold_are_refused_up_front() {
    let t = tempfile::tempdir().expect("temp dir");
    for (flag, value) in [("--seed", "18446744073709551615"), ("--games", "9223372036854775808")] {
        let out = t.path().join(flag.trim_start_matches('-'));
        let o = Command::new(BIN)
            .args(["generate", "--variant", "minishogi", "--nodes", "100", "--quiet", flag, value])
            .arg("--out")
            .arg(&out)
            .output()
            .expect("runs");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{flag}: {err}");
        assert!(err.contains("is above 9223372036854775807"), "{flag}: {err}");
        assert!(!out.exists(), "{flag}: left a directory");
    }
}

#[test]
fn a_huge_game_count_allocates_nothing_per_game() {
    let t = tempfile::tempdir().expect("temp dir");
    // Stopped before the first game: returns at once, having made slots for one window only.
    let start = Instant::now();
    let r = run_with(&cfg(10_000_000_000, 16), t.path(), true).expect("runs");
    assert_eq!(r.status, RunStatus::Interrupted);
    assert_eq!((r.batches_done, r.batches_total), (0, 625_000_000));
    assert!(start.elapsed() < Duration::from_secs(5), "took {:?}", start.elapsed());
}

#[test]
fn too_much_hash_is_an_error_or_works_never_an_abort() {
    let t = tempfile::tempdir().expect("temp dir");
    let o = Command::new(BIN)
        .args(["generate", "--variant", "minishogi", "--games", "1", "--nodes", "50"])
        .args(["--hash", "65536", "--threads", "1", "--max-plies", "4", "--quiet", "--out"])
        .arg(t.path())
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&o.stderr);
    match o.status.code() {
        Some(0) => {}
        Some(1) => assert!(err.contains("cannot allocate 65536 MiB of hash"), "{err}"),
        other => panic!("exit {other:?}: {err}"),
    }
}

#[test]
fn a_run_directory_in_use_is_refused() {
    let t = tempfile::tempdir().expect("temp dir");
    let c = cfg(4, 2);
    let dir = t.path().join("minishogi");
    std::fs::create_dir_all(&dir).expect("dir");
    // Another process holds the lock (as a running `generate` does).
    let held = std::fs::File::create(dir.join("lock")).expect("lock file");
    held.try_lock().expect("lock");
    let e = run(&c, t.path()).expect_err("in use");
    assert!(e.to_string().contains("in use by another kage-selfplay run"), "{e}");
    // Released (the system releases it however the holder ends, kill -9 included).
    drop(held);
    assert_eq!(run(&c, t.path()).expect("runs").status, RunStatus::Complete);
}

#[test]
fn a_finished_run_without_summary_or_with_damaged_files_is_not_complete_silently() {
    let t = tempfile::tempdir().expect("temp dir");
    let c = cfg(6, 2);
    let r = run(&c, t.path()).expect("runs");
    let summary = r.dir.join("summary.json");
    let want = std::fs::read_to_string(&summary).expect("summary");

    // Killed between the rename of games.kdata and the summary: the rerun writes it.
    std::fs::remove_file(&summary).expect("remove");
    std::fs::write(r.dir.join("summary.tmp"), "{").expect("stray");
    let again = run(&c, t.path()).expect("reruns");
    assert_eq!(again.status, RunStatus::AlreadyComplete);
    assert_eq!(again.stats, r.stats);
    assert!(again.repairs.iter().any(|x| x.contains("summary.json")), "{:?}", again.repairs);
    let rewritten = std::fs::read_to_string(&summary).expect("rewritten");
    let games =
        |s: &str| serde_json::from_str::<serde_json::Value>(s).expect("json")["stats"].clone();
    assert_eq!(games(&rewritten), games(&want));
    assert!(!r.dir.join("summary.tmp").exists());

    // games.kdata damaged: an error naming the fix, not "already complete, games 0".
    let g = r.dir.join("games.kdata");
    let mut bytes = std::fs::read(&g).expect("read");
    let at = bytes.windows(4).position(|w| w == b"KCHK").expect("chunk") + 20;
    bytes[at] ^= 0x77;
    std::fs::write(&g, bytes).expect("write");
    let e = run(&c, t.path()).expect_err("damaged");
    let msg = e.to_string();
    assert!(msg.contains("damaged") && msg.contains("delete games.kdata"), "{msg}");
}

#[test]
fn a_damaged_part_is_played_again_and_the_run_completes() {
    let t = tempfile::tempdir().expect("temp dir");
    let c = cfg(8, 2);
    let reference = run(&c, &t.path().join("reference")).expect("runs");
    let want = read_all::<GameRecord>(reference.dir.join("games.kdata")).expect("games").1;

    // An interrupted run (stopped before its first game: the directory is claimed) whose
    // batches are then on disk, one of them damaged.
    let out = t.path().join("damaged");
    let dir = out.join("minishogi");
    assert_eq!(run_with(&c, &out, true).expect("runs").status, RunStatus::Interrupted);
    let parts = dir.join("parts");
    let (_, pos, _) =
        read_all::<PositionRecord>(reference.dir.join("positions.kdata")).expect("positions");
    for b in 0..4u64 {
        let outs: Vec<GameRecord> = want[(b * 2) as usize..(b * 2 + 2) as usize].to_vec();
        let h = kage_selfplay::run::header(&c, kage_data::RecordKind::Game).expect("header");
        let mut w = kage_data::Writer::<GameRecord>::create(
            kage_data::part_path(&parts.join("games"), b),
            h,
        )
        .expect("writer");
        w.write_all(&outs).expect("write");
        w.finish().expect("finish");
        let h = kage_selfplay::run::header(&c, kage_data::RecordKind::Position).expect("header");
        let mut w = kage_data::Writer::<PositionRecord>::create(
            kage_data::part_path(&parts.join("positions"), b),
            h,
        )
        .expect("writer");
        // Any positions will do for the parts that stay; the damaged batch is replayed.
        w.write_all(&pos[..1]).expect("write");
        w.finish().expect("finish");
    }
    let victim = kage_data::part_path(&parts.join("games"), 2);
    let mut bytes = std::fs::read(&victim).expect("read");
    let at = bytes.windows(4).position(|w| w == b"KCHK").expect("chunk") + 20;
    bytes[at] ^= 0x33;
    std::fs::write(&victim, bytes).expect("write");

    let r = run(&c, &out).expect("the rerun completes");
    assert_eq!(r.status, RunStatus::Complete);
    assert_eq!(r.games_played, 2, "only the damaged batch is played again");
    assert!(r.repairs.iter().any(|x| x.contains("batch 2 was damaged")), "{:?}", r.repairs);
    let got = read_all::<GameRecord>(dir.join("games.kdata")).expect("games").1;
    assert_eq!(got, want);
    assert!(!kage_data::tmp_path(&dir.join("positions.kdata")).exists());
    assert!(!parts.exists());
}

// ---- issue #31 ----

fn selfplay(args: &[&str]) -> std::process::Output {
    Command::new(BIN).args(args).env("KAGE", BIN).output().expect("runs")
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A failure with one line naming `want`.
fn refused(o: &std::process::Output, want: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains(want), "wanted {want:?} in: {err}");
}

/// A finished greedy self-play run of 2 games under `out`; its games file.
fn games_file(out: &Path) -> std::path::PathBuf {
    run(&cfg(2, 2), out).expect("runs").dir.join("games.kdata")
}

/// A fast two-game match of the built-in player against itself into `out`.
fn quick_match(out: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["match", "--variant", "minishogi", "--nodes", "40"];
    if !extra.contains(&"--games") {
        args.extend(["--games", "2"]);
    }
    args.extend(["--max-plies", "16", "--opening-plies", "2", "--opening-mode", "uniform"]);
    args.extend(["--quiet", "--engine", "builtin", "hash=1", "--engine", "builtin", "hash=1"]);
    args.extend(extra);
    let out = out.to_str().expect("utf-8 path");
    args.extend(["--out", out]);
    selfplay(&args)
}

#[test]
fn reports_never_overwrite_their_inputs_or_each_other() {
    let t = tempfile::tempdir().expect("temp dir");
    let a = games_file(&t.path().join("A"));
    let b = games_file(&t.path().join("B"));
    let (a_bytes, b_bytes) = (std::fs::read(&a).expect("a"), std::fs::read(&b).expect("b"));
    let p = |x: &Path| x.to_str().expect("utf-8").to_owned();
    let (sa, sb) = (p(&a), p(&b));
    let dir_a = p(&t.path().join("A"));
    let report = p(&t.path().join("r.json"));
    let audit = t.path().join("audit.json");
    std::fs::write(&audit, "{\"groups\": []}\n").expect("audit");
    let sau = p(&audit);
    // The report named as its own input, by file and through a directory.
    for flag in ["--json", "--html", "--svg"] {
        refused(&selfplay(&["balance", &sa, flag, &sa]), "is also an input");
        refused(&selfplay(&["balance", &dir_a, flag, &sa]), "is also an input");
    }
    refused(&selfplay(&["audit", &sa, "--json", &sa, "--quiet"]), "is also an input");
    refused(&selfplay(&["balance", &sa, "--audit", &sau, "--json", &sau]), "is also an input");
    // The one-token slip: `--json A B` meant two inputs; A is a data file, not a report.
    refused(&selfplay(&["balance", "--json", &sa, &sb]), "names a kage data file");
    // Two outputs on one file.
    refused(&selfplay(&["balance", &sa, "--json", &report, "--html", &report]), "both name");
    assert_eq!(std::fs::read(&a).expect("a"), a_bytes);
    assert_eq!(std::fs::read(&b).expect("b"), b_bytes);
    assert_eq!(std::fs::read_to_string(&audit).expect("audit"), "{\"groups\": []}\n");
    assert!(!Path::new(&report).exists());
    // A plain report still works.
    let o = selfplay(&["balance", &sa, "--json", &report]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn tools_do_not_write_into_each_others_directories() {
    let t = tempfile::tempdir().expect("temp dir");
    let sp = t.path().join("sp");
    let run_dir = games_file(&sp).parent().expect("dir").to_path_buf();
    let summary = std::fs::read(run_dir.join("summary.json")).expect("summary");
    // A match pointed at a self-play run directory is refused; its files stay.
    refused(&quick_match(&run_dir, &[]), "belongs to kage-selfplay generate");
    assert_eq!(std::fs::read(run_dir.join("summary.json")).expect("summary"), summary);
    assert!(!run_dir.join("games.jsonl").exists() && !run_dir.join("match.json").exists());
    // Self-play into a match directory is refused and makes nothing there.
    let m = t.path().join("m");
    let o = quick_match(&m, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut args = vec!["generate", "--variant", "minishogi", "--games", "2", "--player"];
    args.extend(["greedy", "--quiet", "--out", m.to_str().expect("utf-8")]);
    refused(&selfplay(&args), "belongs to kage-selfplay match");
    assert!(!m.join("minishogi").exists());
    // A run directory written before owner files is still its own run's.
    std::fs::remove_file(run_dir.join(kage_data::guard::OWNER_FILE)).expect("owner file");
    assert_eq!(run(&cfg(2, 2), &sp).expect("reruns").status, RunStatus::AlreadyComplete);
}

#[test]
fn two_matches_in_one_directory_are_refused() {
    let t = tempfile::tempdir().expect("temp dir");
    let m = t.path().join("m");
    std::fs::create_dir_all(&m).expect("dir");
    // Another match holds the directory's lock (as a running one does).
    let held = std::fs::File::create(m.join("lock")).expect("lock file");
    held.try_lock().expect("lock");
    refused(&quick_match(&m, &[]), "in use by another kage-selfplay run or match");
    assert!(!m.join("games.jsonl").exists());
    drop(held);
    // Its temporary files are its own: another process's `summary.json.tmp` is not touched.
    let theirs = m.join("summary.json.tmp");
    std::fs::write(&theirs, "another match's").expect("tmp");
    let o = quick_match(&m, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&theirs).expect("tmp"), "another match's");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(m.join("summary.json")).expect("summary"))
            .expect("json");
    assert_eq!(summary["pairs"], 1);
}

#[test]
fn match_settings_are_checked_as_generate_checks_them() {
    let t = tempfile::tempdir().expect("temp dir");
    let m = t.path().join("m");
    for (extra, want) in [
        (&["--resign-cp=-5", "--resign-plies", "2"][..], "resign score -5 must be positive"),
        (&["--resign-cp", "0", "--resign-plies", "2"][..], "resign score 0 must be positive"),
        (&["--games", "0"][..], "games must be at least 1"),
        (&["--draw-cp=-1", "--draw-plies", "2"][..], "draw score bound -1"),
    ] {
        refused(&quick_match(&m, extra), want);
        assert!(!m.exists(), "{extra:?} made the directory");
    }
    // A clock too long to keep (1e19 s wrapped to a zero clock).
    let mut args = vec!["match", "--variant", "minishogi", "--tc", "1e19+0", "--games", "2"];
    args.extend(["--engine", "builtin", "--engine", "builtin", "--quiet", "--out"]);
    args.push(m.to_str().expect("utf-8"));
    refused(&selfplay(&args), "clock base time");
    args[4] = "10+1e19";
    refused(&selfplay(&args), "clock increment");
    assert!(!m.exists());
    // generate refuses the same resign score with the same words.
    let mut args = vec!["generate", "--variant", "minishogi", "--resign-cp=-5", "--quiet"];
    args.extend(["--out", m.to_str().expect("utf-8")]);
    refused(&selfplay(&args), "resign score -5 must be positive");
}

#[cfg(unix)]
fn script(dir: &Path, name: &str, body: &str) -> String {
    use std::os::unix::fs::PermissionsExt;
    let p = dir.join(name);
    std::fs::write(&p, format!("#!/bin/sh\n{body}")).expect("script");
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    p.display().to_string()
}

#[cfg(unix)]
#[test]
fn outside_engine_output_is_bytes_with_a_line_cap() {
    let t = tempfile::tempdir().expect("temp dir");
    // An old engine's Latin-1 `id author` before the real handshake: not "the engine exited".
    let latin1 =
        script(t.path(), "latin1.sh", "printf 'id author J\\366rg\\n'\nexec \"$KAGE\" uci\n");
    let cmd = format!("cmd={latin1}");
    let m = t.path().join("latin1");
    let mut args = vec!["match", "--variant", "minishogi", "--nodes", "40", "--games", "2"];
    args.extend(["--max-plies", "16", "--opening-plies", "2", "--opening-mode", "uniform"]);
    args.push("--random-openings");
    args.extend(["--quiet", "--engine", "builtin", "hash=1", "--engine", &cmd, "option.Hash=1"]);
    args.extend(["--out", m.to_str().expect("utf-8")]);
    let o = selfplay(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    // Output without newlines: a clear error at the cap, quickly, not gigabytes in memory.
    let endless = script(t.path(), "endless.sh", "exec cat /dev/zero\n");
    let cmd = format!("cmd={endless}");
    let m2 = t.path().join("endless");
    let n = args.len();
    args[n - 4] = &cmd;
    args[n - 1] = m2.to_str().expect("utf-8");
    let start = Instant::now();
    let o = selfplay(&args);
    refused(&o, "wrote a line longer than 65536 bytes");
    assert!(start.elapsed() < Duration::from_secs(8), "took {:?}", start.elapsed());
    assert!(!m2.exists());
}

#[test]
fn named_files_are_read_with_a_cap() {
    let t = tempfile::tempdir().expect("temp dir");
    let m = t.path().join("m");
    let zero = "/dev/zero";
    if !Path::new(zero).exists() {
        return;
    }
    let mut args = vec!["generate", "--variant-file", zero, "--quiet", "--out"];
    args.push(m.to_str().expect("utf-8"));
    refused(&selfplay(&args), "larger than");
    refused(&quick_match(&m, &["--openings", zero]), "larger than");
    let mut args = vec!["match", "--variant", "minishogi", "--nodes", "40", "--quiet"];
    args.extend(["--engine", "builtin", "params=/dev/zero", "--engine", "builtin", "--out"]);
    args.push(m.to_str().expect("utf-8"));
    refused(&selfplay(&args), "larger than");
    args[8] = "net=/dev/zero";
    assert_eq!(selfplay(&args).status.code(), Some(1));
    assert!(!m.exists());
    let games = games_file(&t.path().join("sp"));
    refused(
        &selfplay(&["balance", games.to_str().expect("utf-8"), "--audit", zero]),
        "larger than",
    );
}

#[test]
fn variant_names_are_names_not_paths() {
    let t = tempfile::tempdir().expect("temp dir");
    let spec = std::fs::read_to_string(RANK4).expect("spec");
    let out = t.path().join("out");
    let abs = t.path().join("abs");
    for name in ["../escape", "a/b", abs.to_str().expect("utf-8"), ".."] {
        let file = t.path().join("v.toml");
        let text = spec.replace("name = \"shinobiplus-rank4\"", &format!("name = {name:?}"));
        std::fs::write(&file, text).expect("spec");
        let mut args = vec!["generate", "--games", "2", "--player", "greedy", "--quiet"];
        args.extend(["--variant-file", file.to_str().expect("utf-8")]);
        args.extend(["--out", out.to_str().expect("utf-8")]);
        let o = selfplay(&args);
        assert_eq!(o.status.code(), Some(1), "{name}: {}", stderr(&o));
        assert!(!out.exists(), "{name}: made {}", out.display());
        assert!(!t.path().join("escape").exists() && !abs.exists(), "{name}");
    }
    // The library refuses it too, before making a directory.
    let mut c = cfg(2, 2);
    c.variant = "../escape".into();
    let e = run(&c, &out).expect_err("refused");
    assert!(e.to_string().contains("not a plain name"), "{e}");
    assert!(!out.exists() && !t.path().join("escape").exists());
}

#[test]
fn a_variant_file_and_another_variant_name_are_an_error() {
    let t = tempfile::tempdir().expect("temp dir");
    let out = t.path().join("out");
    for v in ["shinobiplus", "all"] {
        let mut args = vec!["generate", "--games", "2", "--player", "greedy", "--quiet"];
        args.extend(["--variant", v, "--variant-file", RANK4]);
        args.extend(["--out", out.to_str().expect("utf-8")]);
        refused(&selfplay(&args), "name different variants");
        assert!(!out.exists(), "{v}");
    }
}

#[cfg(unix)]
#[test]
fn a_match_resumed_with_a_rebuilt_engine_is_refused() {
    let t = tempfile::tempdir().expect("temp dir");
    let engine = script(t.path(), "engine.sh", "exec \"$KAGE\" uci\n");
    let cmd = format!("cmd={engine}");
    let m = t.path().join("m");
    let play = |games: &str, extra: &[&str]| {
        let mut args = vec!["match", "--variant", "minishogi", "--nodes", "40", "--games", games];
        args.extend(["--max-plies", "16", "--opening-plies", "2", "--opening-mode", "uniform"]);
        args.push("--random-openings");
        args.extend(["--quiet", "--engine", "builtin", "hash=1", "--engine", &cmd, "name=out"]);
        args.extend(["--out", m.to_str().expect("utf-8")]);
        args.extend(extra);
        selfplay(&args)
    };
    let o = play("2", &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let recorded: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(m.join("match.json")).expect("json"))
            .expect("json");
    assert_eq!(recorded["builds"][0]["git_revision"], kage_data::GIT_REVISION);
    assert_eq!(
        recorded["builds"][1]["id_name"].as_str().map(|s| s.starts_with("kage")),
        Some(true)
    );
    let log = std::fs::read(m.join("games.jsonl")).expect("log");
    // The outside engine's program is rebuilt: resuming is refused, the log untouched.
    std::fs::write(&engine, "#!/bin/sh\n# rebuilt\nexec \"$KAGE\" uci\n").expect("rebuild");
    refused(&play("4", &[]), "engine \"out\" changed since the match began (program hash");
    assert_eq!(std::fs::read(m.join("games.jsonl")).expect("log"), log);
    // Asked for: it goes on and says so.
    let o = play("4", &["--allow-rebuilt-engines"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("pool two builds"), "{}", stderr(&o));
}

#[test]
fn self_play_resumed_by_another_build_is_refused() {
    let t = tempfile::tempdir().expect("temp dir");
    let c = cfg(4, 2);
    let reference = run(&c, &t.path().join("reference")).expect("runs");
    let out = t.path().join("resumed");
    assert_eq!(run_with(&c, &out, true).expect("runs").status, RunStatus::Interrupted);
    let build = out.join("minishogi/build.json");
    let mut b: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&build).expect("build")).expect("json");
    assert_eq!(b["git_revision"], kage_data::GIT_REVISION);
    b["program_hash"] = "0123456789abcdef".into();
    std::fs::write(&build, b.to_string()).expect("another build");
    let e = run(&c, &out).expect_err("refused");
    assert!(
        e.to_string().contains("begun by another build")
            && e.to_string().contains("--allow-rebuild"),
        "{e}"
    );
    let r = run_rebuilt(&c, &out, false, true).expect("runs when asked");
    assert_eq!(r.status, RunStatus::Complete);
    assert!(r.repairs.iter().any(|x| x.contains("pool two builds")), "{:?}", r.repairs);
    // The build is recorded beside the data, not in it: the same config, the same bytes.
    for f in ["games.kdata", "positions.kdata"] {
        let want = std::fs::read(reference.dir.join(f)).expect("reference");
        assert_eq!(std::fs::read(r.dir.join(f)).expect("resumed"), want, "{f}");
    }
}

#[test]
fn a_depth_the_built_in_search_does_not_reach_is_a_hang() {
    let t = tempfile::tempdir().expect("temp dir");
    let m = t.path().join("m");
    let mut args = vec!["match", "--variant", "minishogi", "--depth", "64", "--games", "2"];
    args.extend(["--hang-ms", "300", "--max-failures", "1", "--opening-plies", "2"]);
    args.extend(["--quiet", "--engine", "builtin", "hash=1", "--engine", "builtin", "hash=1"]);
    args.extend(["--out", m.to_str().expect("utf-8")]);
    let start = Instant::now();
    let o = selfplay(&args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("did not reach depth 64 within 300 ms"), "{err}");
    assert!(start.elapsed() < Duration::from_secs(20), "took {:?}", start.elapsed());
}

#[test]
fn a_user_variant_can_be_matched() {
    let t = tempfile::tempdir().expect("temp dir");
    let m = t.path().join("m");
    let mut args = vec!["match", "--variant-file", RANK4, "--nodes", "40", "--games", "2"];
    args.extend(["--max-plies", "16", "--opening-plies", "2", "--opening-mode", "uniform"]);
    args.extend(["--quiet", "--engine", "builtin", "hash=1", "eval=hce", "--engine", "builtin"]);
    args.extend(["hash=1", "eval=hce", "--out", m.to_str().expect("utf-8")]);
    let o = selfplay(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let id: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(m.join("match.json")).expect("json"))
            .expect("json");
    assert_eq!(id["variant"], "shinobiplus-rank4");
    assert!(id["variant_spec"].as_str().is_some_and(|s| s.contains("shinobiplus-rank4")));
    let pgn = std::fs::read_to_string(m.join("games.pgn")).expect("pgn");
    assert_eq!(pgn.matches("[Variant \"shinobiplus-rank4\"]").count(), 2);
    // --variant naming another variant with it is refused, as in generate.
    args[1] = "--variant";
    args[2] = "shinobiplus";
    args.splice(3..3, ["--variant-file", RANK4]);
    let n = args.len();
    let m2 = t.path().join("m2");
    args[n - 1] = m2.to_str().expect("utf-8");
    refused(&selfplay(&args), "name different variants");
    assert!(!m2.exists());
}

#[test]
fn audit_refuses_settings_generate_refuses() {
    let t = tempfile::tempdir().expect("temp dir");
    let games = read_all::<GameRecord>(games_file(&t.path().join("sp"))).expect("games").1;
    // A games file whose config resigns at -5 cp (hand-made: generate refuses it).
    let mut bad = cfg(2, 2);
    bad.adjudication.resign_cp = -5;
    let path = t.path().join("bad.kdata");
    let h = kage_selfplay::run::header(&bad, kage_data::RecordKind::Game).expect("header");
    let mut w = kage_data::Writer::<GameRecord>::create(&path, h).expect("writer");
    w.write_all(&games).expect("write");
    w.finish().expect("finish");
    let opts =
        kage_selfplay::audit::AuditOptions { sample: 2, seed: 1, threads: 1, progress_every: None };
    let r = kage_selfplay::audit::audit(&[path], opts).expect("audit");
    assert!(r.groups.is_empty());
    assert!(
        r.problems.iter().any(|p| p.contains("resign score -5 must be positive")),
        "{:?}",
        r.problems
    );
}
