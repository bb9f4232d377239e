//! End-to-end behaviour of self-play runs: thread independence, resume after kill -9 and
//! Ctrl-C, shards, config refusal, adjudication in real games.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use kage_data::Termination;
use kage_data::{GameRecord, PositionRecord, read_all};
use kage_selfplay::run::{RunStatus, generate};
use kage_selfplay::{Budget, GenConfig, RunOptions, Shard, factory_for};

const BIN: &str = env!("CARGO_BIN_EXE_kage-selfplay");

fn cfg(variant: &str, games: u64, nodes: u64, batch: u64) -> GenConfig {
    let mut c = GenConfig::new(variant, games, 42, Budget::Nodes(nodes));
    c.batch_size = batch;
    c.hash_mb = 1;
    c.validated().unwrap()
}

fn run(c: &GenConfig, out: &Path, shard: Shard, threads: usize) -> kage_selfplay::RunReport {
    let stop = AtomicBool::new(false);
    let opts = RunOptions {
        out: out.to_path_buf(),
        shard,
        threads,
        progress: false,
        progress_every: std::time::Duration::from_secs(30),
        stop: &stop,
        factory: factory_for(c).unwrap(),
        allow_rebuild: false,
    };
    generate(c, &opts).unwrap()
}

fn bytes(p: PathBuf) -> Vec<u8> {
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn games(dir: &Path) -> Vec<GameRecord> {
    read_all::<GameRecord>(dir.join("games.kdata")).unwrap().1
}

#[test]
fn output_does_not_depend_on_thread_count() {
    let t = tempfile::tempdir().unwrap();
    let c = cfg("minishogi", 6, 300, 2);
    let r1 = run(&c, &t.path().join("one"), Shard::WHOLE, 1);
    let r2 = run(&c, &t.path().join("two"), Shard::WHOLE, 2);
    assert_eq!(r1.status, RunStatus::Complete);
    assert_eq!(r1.stats, r2.stats);
    for f in ["games.kdata", "positions.kdata"] {
        assert_eq!(bytes(r1.dir.join(f)), bytes(r2.dir.join(f)), "{f} differs");
    }
    let g = games(&r1.dir);
    assert_eq!(g.iter().map(|g| g.game_index).collect::<Vec<_>>(), (0..6).collect::<Vec<_>>());
    let (_, pos, _) = read_all::<PositionRecord>(r1.dir.join("positions.kdata")).unwrap();
    assert_eq!(pos.len() as u64, r1.stats.positions);
    assert!(pos.len() >= g.iter().map(|g| g.moves.len()).sum::<usize>());
    // Parts are gone once joined; a rerun finds the run complete and changes nothing.
    assert!(!r1.dir.join("parts").exists());
    let again = run(&c, &t.path().join("one"), Shard::WHOLE, 2);
    assert_eq!(again.status, RunStatus::AlreadyComplete);
    assert_eq!(again.stats, r1.stats);
}

#[test]
fn shards_are_disjoint_and_cover_the_run() {
    let t = tempfile::tempdir().unwrap();
    let c = cfg("gorogoroplus", 7, 200, 2);
    let whole = run(&c, t.path(), Shard::WHOLE, 2);
    let mut all: Vec<GameRecord> = Vec::new();
    for i in 0..3 {
        let r = run(&c, t.path(), Shard::new(i, 3).unwrap(), 2);
        assert!(r.dir.ends_with(format!("gorogoroplus/shard-{i:04}-of-0003")));
        let g = games(&r.dir);
        assert!(g.iter().all(|g| g.game_index % 3 == u64::from(i)));
        all.extend(g);
    }
    all.sort_by_key(|g| g.game_index);
    let n = all.len();
    all.dedup_by_key(|g| g.game_index);
    assert_eq!(all.len(), n, "shards overlap");
    assert_eq!(all, games(&whole.dir), "shards together are not the whole run");
    // Every shard file carries the same header config, so kage-data merge accepts them.
    let h0 = kage_data::FileHeader::read_file(&whole.dir.join("games.kdata")).unwrap();
    let h1 = kage_data::FileHeader::read_file(
        &t.path().join("gorogoroplus/shard-0001-of-0003/games.kdata"),
    )
    .unwrap();
    assert_eq!(h0, h1);
    assert!(h0.config().contains("gorogoroplus"));
    assert!(!h0.git_revision().is_empty());

    // Balance over the whole tree counts each game once (shards and whole run overlap).
    let (files, problems) = kage_selfplay::balance::game_files(&[t.path().to_path_buf()]).unwrap();
    assert_eq!((files.len(), problems.len()), (4, 0));
    let report = kage_selfplay::balance::collect(&files, Default::default());
    assert_eq!(report.duplicate_records, 7);
    assert_eq!(report.groups.len(), 1, "one run: one group");
    let g = &report.groups[0];
    assert_eq!(g.games, whole.stats.games);
    assert_eq!(g.lengths.mean, whole.stats.average_plies());
    assert_eq!(g.info.sides, ["Sente".to_owned(), "Gote".to_owned()]);
    let svg = kage_selfplay::balance::chart::score_chart(&report.groups);
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert!(kage_selfplay::balance::text::render(&report).contains("Sente wins"));
}

#[test]
fn another_config_in_the_same_directory_is_refused() {
    let t = tempfile::tempdir().unwrap();
    let args = |seed: &str| {
        let mut cmd = Command::new(BIN);
        cmd.args(["generate", "--variant", "minishogi", "--games", "1", "--nodes", "50"])
            .args(["--threads", "1", "--quiet", "--seed", seed, "--out"])
            .arg(t.path());
        cmd
    };
    assert!(args("1").status().unwrap().success());
    let out = args("2").output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("different config"), "{err}");
    assert!(err.contains("seed = 2") && err.contains("seed = 1"), "{err}");
}

#[test]
fn adjudication_fires_as_configured() {
    let t = tempfile::tempdir().unwrap();
    // Resign as soon as two consecutive searches agree on a 1 cp edge.
    let mut c = cfg("minishogi", 4, 200, 4);
    c.openings.random_plies = 2;
    c.adjudication.resign_cp = 1;
    c.adjudication.resign_plies = 2;
    let r = run(&c, &t.path().join("resign"), Shard::WHOLE, 2);
    let resigned = r.stats.terminations.get(&Termination::Resign).copied().unwrap_or(0);
    assert!(resigned >= 3, "{:?}", r.stats.terminations);
    // The adjudicated position is recorded (searched, no move), the game is short.
    assert!(r.stats.positions > r.stats.plies);
    // A ply cap of 6 with adjudication off: every game stops by ply 6.
    let mut c = cfg("shinobi", 3, 100, 3);
    c.adjudication = kage_selfplay::Adjudication {
        resign_plies: 0,
        draw_plies: 0,
        max_plies: 6,
        ..c.adjudication
    };
    let r = run(&c, &t.path().join("cap"), Shard::WHOLE, 2);
    assert_eq!(r.stats.terminations.get(&Termination::PlyLimit), Some(&3));
    assert_eq!(r.stats.draws, 3);
    assert_eq!(r.stats.max_plies, 6);
}

fn gen_cmd(out: &Path, threads: &str) -> Command {
    let mut cmd = Command::new(BIN);
    cmd.args(["generate", "--variant", "minishogi", "--games", "40", "--nodes", "400"])
        .args(["--batch-size", "2", "--seed", "9", "--quiet", "--threads", threads, "--out"])
        .arg(out)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    cmd
}

fn count_parts(dir: &Path) -> usize {
    std::fs::read_dir(dir.join("minishogi/parts/games"))
        .map(|d| {
            d.filter(|e| {
                e.as_ref().is_ok_and(|e| e.path().extension().is_some_and(|x| x == "kdata"))
            })
            .count()
        })
        .unwrap_or(0)
}

/// Starts a run, waits until `parts` batches are on disk, then sends `signal`.
fn interrupt(out: &Path, parts: usize, signal: &str) -> std::process::ExitStatus {
    let mut child = gen_cmd(out, "1").spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while count_parts(out) < parts {
        assert!(Instant::now() < deadline, "no batches appeared");
        if let Some(status) = child.try_wait().unwrap() {
            panic!("run finished ({status}) before it could be interrupted");
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let ok = Command::new("kill").args([signal, &child.id().to_string()]).status().unwrap();
    assert!(ok.success());
    child.wait().unwrap()
}

#[test]
fn interrupted_runs_resume_to_identical_output() {
    let t = tempfile::tempdir().unwrap();
    let reference = t.path().join("reference");
    assert!(gen_cmd(&reference, "2").status().unwrap().success());
    let want_g = bytes(reference.join("minishogi/games.kdata"));
    let want_p = bytes(reference.join("minishogi/positions.kdata"));

    // kill -9 mid-run: complete batches survive, nothing final exists yet.
    let killed = t.path().join("killed");
    let status = interrupt(&killed, 2, "-KILL");
    assert!(!status.success());
    assert!(!killed.join("minishogi/games.kdata").exists());
    let kept = count_parts(&killed);
    assert!((2..20).contains(&kept), "{kept} batches");
    assert!(gen_cmd(&killed, "2").status().unwrap().success());
    assert_eq!(bytes(killed.join("minishogi/games.kdata")), want_g);
    assert_eq!(bytes(killed.join("minishogi/positions.kdata")), want_p);

    // Ctrl-C: the batches in flight are finished and kept, the process exits with 130.
    let stopped = t.path().join("stopped");
    let status = interrupt(&stopped, 1, "-INT");
    assert_eq!(status.code(), Some(130));
    let parts = std::fs::read_dir(stopped.join("minishogi/parts/games")).unwrap();
    assert!(parts.filter_map(|e| e.ok()).all(|e| !e.path().to_string_lossy().ends_with(".tmp")));
    // SIGTERM (Slurm preemption) stops the same way.
    assert_eq!(interrupt(&stopped, count_parts(&stopped) + 1, "-TERM").code(), Some(130));
    assert!(gen_cmd(&stopped, "1").status().unwrap().success());
    assert_eq!(bytes(stopped.join("minishogi/games.kdata")), want_g);
    assert_eq!(bytes(stopped.join("minishogi/positions.kdata")), want_p);
}

#[test]
fn progress_lines_when_stderr_is_not_a_terminal() {
    let t = tempfile::tempdir().unwrap();
    let out = Command::new(BIN)
        .args(["generate", "--variant", "minishogi", "--games", "4", "--player", "greedy"])
        .args(["--threads", "1", "--progress-secs", "0", "--out"])
        .arg(t.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("minishogi: ")).collect();
    assert_eq!(lines.len(), 4, "one line per game with --progress-secs 0: {err}");
    assert!(lines[0].contains("1/4 games (25.0%)") && lines[0].contains("games/s, ETA"));
    assert!(lines[3].contains("4/4 games (100.0%)"), "{}", lines[3]);
    assert!(lines[3].contains("Sente ") && lines[3].contains(" / draws "), "{}", lines[3]);
    // --quiet: none.
    let out = Command::new(BIN)
        .args(["generate", "--variant", "minishogi", "--games", "2", "--player", "greedy"])
        .args(["--threads", "1", "--progress-secs", "0", "--quiet", "--out"])
        .arg(t.path().join("q"))
        .output()
        .unwrap();
    assert!(out.status.success() && out.stderr.is_empty());
    let bad = Command::new(BIN)
        .args(["generate", "--variant", "minishogi", "--progress-secs", "-1"])
        .output()
        .unwrap();
    assert!(!bad.status.success());
}
