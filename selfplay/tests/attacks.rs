//! Attack tests (issue #11): self-play given numbers it cannot store, too much hash, a run
//! directory in use, and finished or half-finished runs whose files were lost or damaged.
//! Each ends in a clear error or a correct rerun, never an abort or a silent "complete".

use std::path::Path;
use std::process::Command;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use kage_data::{GameRecord, PositionRecord, read_all};
use kage_selfplay::run::{RunStatus, generate};
use kage_selfplay::{Budget, GenConfig, PlayerKind, RunOptions, RunReport, Shard, factory_for};

const BIN: &str = env!("CARGO_BIN_EXE_kage-selfplay");

fn cfg(games: u64, batch: u64) -> GenConfig {
    let mut c = GenConfig::new("minishogi", games, 5, Budget::Nodes(50));
    c.batch_size = batch;
    c.hash_mb = 1;
    c.player = PlayerKind::Greedy;
    c.validated().expect("valid config")
}

fn run_with(c: &GenConfig, out: &Path, stop: bool) -> kage_selfplay::Result<RunReport> {
    let stop = AtomicBool::new(stop);
    let opts = RunOptions {
        out: out.to_path_buf(),
        shard: Shard::WHOLE,
        threads: 2,
        progress: false,
        progress_every: std::time::Duration::from_secs(30),
        stop: &stop,
        factory: factory_for(c).expect("factory"),
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
