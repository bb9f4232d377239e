//! A resumable self-play run of one variant (or one shard of it) into a run directory.
//!
//! Layout of `<out>/<variant>[/shard-IIII-of-NNNN]/`:
//!
//! * `run.toml`: the generator config and shard; a rerun with another config is refused.
//! * `parts/games/part-NNNNNN.kdata`, `parts/positions/part-NNNNNN.kdata`: batch `N` of
//!   the shard's games (its games `N*batch_size ..`), each file complete and written
//!   atomically (temp file + rename); a batch counts once both exist.
//! * when every batch is there: `games.kdata` and `positions.kdata` (the parts joined in
//!   batch order, so byte-identical whatever was interrupted and resumed), `summary.json`;
//!   the parts are then removed.

use std::collections::{BTreeMap, HashSet};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use kage_data::{
    FileHeader, GameRecord, PartDir, PositionRecord, Reader, Record, RecordKind, Writer, part_path,
};
use kage_engine::Variant;
use serde::{Deserialize, Serialize};

use crate::config::{GenConfig, Shard};
use crate::driver::{PlayerFactory, Slot, play_games};
use crate::error::{Result, SelfplayError};
use crate::play::GameOutput;
use crate::progress::LogLines;
use kage_data::stats::GameStats;

pub use kage_data::GIT_REVISION;

/// `created-by` of the files this crate writes.
pub fn created_by() -> String {
    format!("kage-selfplay {}", env!("CARGO_PKG_VERSION"))
}

/// How to run (nothing here changes the output).
pub struct RunOptions<'a> {
    /// Output root; the run goes to [`run_dir`].
    pub out: PathBuf,
    /// Which part of the run.
    pub shard: Shard,
    /// Worker threads.
    pub threads: usize,
    /// Show progress: a bar when stderr is a terminal, else a plain line every
    /// `progress_every` (done/total, rate, ETA, running results by side).
    pub progress: bool,
    /// How often a plain progress line is printed when stderr is not a terminal.
    pub progress_every: Duration,
    /// Set to stop after the batches in flight (Ctrl-C).
    pub stop: &'a AtomicBool,
    /// Makes a player per thread.
    pub factory: PlayerFactory,
    /// Resume a run begun by another build of this program (its games then pool two
    /// builds; said in the report's repairs). Off: such a resume is refused.
    pub allow_rebuild: bool,
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// Everything was generated and joined now.
    Complete,
    /// The directory already held the finished output; nothing was done.
    AlreadyComplete,
    /// Stopped early: complete batches are kept; rerun the same command to resume.
    Interrupted,
}

/// What a run did.
#[derive(Clone, Debug)]
pub struct RunReport {
    /// Run directory.
    pub dir: PathBuf,
    /// Outcome.
    pub status: RunStatus,
    /// Statistics of the final output (when complete) or of the games played now.
    pub stats: GameStats,
    /// Batches complete / total.
    pub batches_done: u64,
    /// Total batches of this shard.
    pub batches_total: u64,
    /// Games played by this invocation.
    pub games_played: u64,
    /// Training positions made by this invocation.
    pub positions_played: u64,
    /// Time inside the player, summed over threads.
    pub search_time: Duration,
    /// Time inside games, summed over threads.
    pub game_time: Duration,
    /// Wall-clock time of this invocation.
    pub wall: Duration,
    /// Damaged batch files found and removed (their batches were played again), and other
    /// repairs made to the directory.
    pub repairs: Vec<String>,
}

/// The directory of a run: `<out>/<variant>` or `<out>/<variant>/shard-IIII-of-NNNN`.
pub fn run_dir(out: &Path, variant: &str, shard: Shard) -> PathBuf {
    let d = out.join(variant);
    match shard.dir_name() {
        Some(s) => d.join(s),
        None => d,
    }
}

#[derive(Serialize, Deserialize, PartialEq)]
struct RunFile {
    shard: Shard,
    config: GenConfig,
}

/// The header of every data file of a run (the shard is not in it, so shards merge).
pub fn header(cfg: &GenConfig, kind: RecordKind) -> Result<FileHeader> {
    Ok(FileHeader::new(kind, &cfg.variant, &cfg.to_toml(), GIT_REVISION, &created_by())?)
}

fn write_atomic(path: &Path, text: &str) -> Result<()> {
    kage_data::atomic::write_atomic(path, text.as_bytes())
        .map_err(|e| SelfplayError::io(path, "write", e))
}

/// Writes the run directory's `run.toml`, or checks that an existing one holds the same
/// config.
fn record_config(dir: &Path, cfg: &GenConfig, shard: Shard) -> Result<()> {
    let path = dir.join("run.toml");
    let want = RunFile { shard, config: cfg.clone() };
    let text = toml::to_string(&want)
        .map_err(|cause| SelfplayError::TomlWrite { what: "the run file's config", cause })?;
    match std::fs::read_to_string(&path) {
        Ok(existing) => {
            let same = toml::from_str::<RunFile>(&existing).is_ok_and(|f| f == want);
            if !same {
                return Err(SelfplayError::ConfigMismatch {
                    dir: dir.to_path_buf(),
                    existing,
                    requested: text,
                });
            }
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => write_atomic(&path, &text),
        Err(e) => Err(SelfplayError::io(&path, "read", e)),
    }
}

fn remove_dir(dir: &Path) -> Result<()> {
    match std::fs::remove_dir_all(dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(SelfplayError::io(dir, "remove", e)),
    }
}

fn progress_bar(len: u64, done: u64, variant: &str, show: bool) -> ProgressBar {
    let pb = if show {
        ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr())
    } else {
        ProgressBar::hidden()
    };
    let style = ProgressStyle::with_template(
        "{prefix:>12} [{elapsed_precise}] {bar:30} {pos}/{len} games ({per_sec}, ETA {eta}) {msg}",
    )
    .expect("static template");
    pb.set_style(style.progress_chars("=> "));
    pb.set_prefix(variant.to_owned());
    pb.set_position(done);
    pb.reset_eta();
    pb
}

/// Games played per call of the driver: slots are made for this many at a time, so that
/// the memory of a run does not grow with its number of games.
const WINDOW_GAMES: usize = 1 << 16;

/// Holds a run or match directory's lock file (`lock`, an advisory lock the system drops
/// when the process ends, however it ends).
pub(crate) struct DirLock {
    _file: std::fs::File,
}

/// Locks `dir` for this process: another kage-selfplay run or match in it is refused.
pub(crate) fn lock_dir(dir: &Path) -> Result<DirLock> {
    let path = dir.join("lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| SelfplayError::io(&path, "open", e))?;
    // A lock this process has just released can still look held for a moment: a child being
    // started from another thread shares the released descriptor until it executes its
    // program. So "in use" is said only when the lock stays held for a short while.
    for attempt in 0..LOCK_TRIES {
        match file.try_lock() {
            Ok(()) => return Ok(DirLock { _file: file }),
            Err(std::fs::TryLockError::WouldBlock) if attempt + 1 < LOCK_TRIES => {
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(std::fs::TryLockError::WouldBlock) => break,
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(SelfplayError::io(&path, "lock", e));
            }
        }
    }
    Err(crate::ConfigError::InUse(dir.to_path_buf()).into())
}

/// Tries to take a run directory's lock (20 ms apart) before saying it is in use.
const LOCK_TRIES: u32 = 25;

/// Generates (or resumes, or finds finished) the run of `cfg` for `opts.shard`.
pub fn generate(cfg: &GenConfig, opts: &RunOptions) -> Result<RunReport> {
    let started = Instant::now();
    // A name, not a path: checked before any directory is made from it.
    crate::config::check_variant_name(&cfg.variant)?;
    let variant: &'static Variant = cfg.variant_def()?;
    let dir = run_dir(&opts.out, &cfg.variant, opts.shard);
    crate::guard::claim_run_dir(&opts.out, &dir, crate::guard::GENERATE)?;
    let _lock = lock_dir(&dir)?;
    record_config(&dir, cfg, opts.shard)?;
    let parts = dir.join("parts");
    let shard_games = opts.shard.len(cfg.games);
    let bsize = cfg.batch_size;
    let batches_total = shard_games.div_ceil(bsize);
    let mut report = RunReport {
        dir: dir.clone(),
        status: RunStatus::Complete,
        stats: GameStats::default(),
        batches_done: 0,
        batches_total,
        games_played: 0,
        positions_played: 0,
        search_time: Duration::ZERO,
        game_time: Duration::ZERO,
        wall: Duration::ZERO,
        repairs: Vec::new(),
    };
    let game_header = header(cfg, RecordKind::Game)?;
    let pos_header = header(cfg, RecordKind::Position)?;
    if dir.join("games.kdata").exists() {
        return finished(&dir, &parts, cfg, opts, report, started);
    }
    report.repairs.extend(crate::build::check_run(&dir, opts.allow_rebuild)?);
    let mut gdir = PartDir::open(parts.join("games"))?;
    let mut pdir = PartDir::open(parts.join("positions"))?;
    report.repairs.extend(discard_damaged_parts(&parts, &mut gdir, &mut pdir)?);
    let have = |d: &PartDir| d.parts().iter().map(|(i, _)| *i).collect::<HashSet<_>>();
    let (gh, ph) = (have(&gdir), have(&pdir));
    let done: HashSet<u64> = gh.intersection(&ph).copied().filter(|&b| b < batches_total).collect();
    let games_done: u64 = done.iter().map(|&b| (shard_games - b * bsize).min(bsize)).sum();
    let tty = std::io::stderr().is_terminal();
    let pb = progress_bar(shard_games, games_done, &cfg.variant, opts.progress && tty);
    let mut log = (opts.progress && !tty)
        .then(|| LogLines::new(opts.progress_every, games_done, shard_games));
    let [side_a, side_b] = &variant.side_names;
    let mut done_now = games_done;
    let mut batches_done = done.len() as u64;
    let mut next_batch = 0u64;
    let res = loop {
        // The next window: whole batches not yet done, about WINDOW_GAMES games.
        let mut slots: Vec<Slot> = Vec::new();
        while next_batch < batches_total && slots.len() < WINDOW_GAMES {
            let b = next_batch;
            next_batch += 1;
            if done.contains(&b) {
                continue;
            }
            for k in b * bsize..((b + 1) * bsize).min(shard_games) {
                let game = u64::from(opts.shard.index) + k * u64::from(opts.shard.count);
                slots.push(Slot { game, group: b });
            }
        }
        if slots.is_empty() || stopped(opts.stop) {
            break Ok(());
        }
        let mut pending: BTreeMap<u64, Vec<Option<GameOutput>>> = BTreeMap::new();
        let mut on_game = |i: usize, out: GameOutput| -> Result<()> {
            let slot = slots[i];
            let first = slots.partition_point(|s| s.group < slot.group);
            let len = slots[first..].iter().take_while(|s| s.group == slot.group).count();
            report.games_played += 1;
            report.positions_played += out.positions.len() as u64;
            report.search_time += Duration::from_nanos(out.search_ns);
            report.game_time += Duration::from_nanos(out.total_ns);
            report.stats.add(&out.record, out.positions.len() as u64);
            pb.inc(1);
            pb.set_message(format!("{} positions", report.positions_played));
            done_now += 1;
            if let Some(l) = log.as_mut()
                && l.due()
            {
                let st = &report.stats;
                eprintln!(
                    "{}: {}; {side_a} {} / draws {} / {side_b} {}, {} positions",
                    cfg.variant,
                    l.status(done_now, "games"),
                    st.white_wins,
                    st.draws,
                    st.black_wins,
                    report.positions_played
                );
            }
            let entry = pending.entry(slot.group).or_insert_with(|| vec![None; len]);
            entry[i - first] = Some(out);
            if entry.iter().all(Option::is_some) {
                let outs: Vec<GameOutput> =
                    pending.remove(&slot.group).into_iter().flatten().flatten().collect();
                write_batch(&parts, slot.group, &game_header, &pos_header, &outs)?;
                batches_done += 1;
            }
            Ok(())
        };
        let r =
            play_games(cfg, variant, &slots, opts.threads, &opts.factory, opts.stop, &mut on_game);
        if r.is_err() {
            break r;
        }
    };
    pb.finish_and_clear();
    res?;
    report.batches_done = batches_done;
    report.wall = started.elapsed();
    if batches_done < batches_total {
        report.status = RunStatus::Interrupted;
        return Ok(report);
    }
    report.stats = match join_parts(&dir, &parts, batches_total, &game_header, &pos_header) {
        Ok(stats) => stats,
        Err(e) => {
            for name in ["positions.kdata", "games.kdata"] {
                let _ = std::fs::remove_file(kage_data::tmp_path(&dir.join(name)));
            }
            return Err(e);
        }
    };
    write_summary(&dir, cfg, opts, &report)?;
    remove_dir(&parts)?;
    report.wall = started.elapsed();
    Ok(report)
}

/// A run whose `games.kdata` exists: checks both final files, rewrites a missing
/// `summary.json` and removes what an interrupted finish left behind.
fn finished(
    dir: &Path,
    parts: &Path,
    cfg: &GenConfig,
    opts: &RunOptions,
    mut report: RunReport,
    started: Instant,
) -> Result<RunReport> {
    if !dir.join("positions.kdata").exists() {
        return Err(SelfplayError::MissingPositions { dir: dir.to_path_buf() });
    }
    report.stats = final_stats(dir).map_err(|e| SelfplayError::FinishedDamaged {
        dir: dir.to_path_buf(),
        cause: Box::new(e),
    })?;
    remove_dir(parts)?;
    report.status = RunStatus::AlreadyComplete;
    report.batches_done = report.batches_total;
    let summary = dir.join("summary.json");
    if !summary.exists() {
        write_summary(dir, cfg, opts, &report)?;
        report.repairs.push("summary.json was missing: written again".into());
    }
    let stray = summary.with_extension("tmp");
    if stray.exists() {
        std::fs::remove_file(&stray).map_err(|e| SelfplayError::io(&stray, "remove", e))?;
    }
    report.wall = started.elapsed();
    Ok(report)
}

/// Reads every part; a damaged one is removed with its twin so that the batch is played
/// again. Returns what was removed and why.
fn discard_damaged_parts(
    parts: &Path,
    gdir: &mut PartDir,
    pdir: &mut PartDir,
) -> Result<Vec<String>> {
    let mut bad = Vec::new();
    for (b, path) in gdir.parts() {
        if let Err(e) = check_part::<GameRecord>(path) {
            bad.push((*b, e.to_string()));
        }
    }
    for (b, path) in pdir.parts() {
        if let Err(e) = check_part::<PositionRecord>(path) {
            bad.push((*b, e.to_string()));
        }
    }
    let mut repairs = Vec::new();
    for (b, why) in bad {
        for kind in ["games", "positions"] {
            let p = part_path(&parts.join(kind), b);
            match std::fs::remove_file(&p) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(SelfplayError::io(&p, "remove", e)),
            }
        }
        repairs.push(format!("batch {b} was damaged ({why}): played again"));
    }
    if !repairs.is_empty() {
        *gdir = PartDir::open(parts.join("games"))?;
        *pdir = PartDir::open(parts.join("positions"))?;
    }
    Ok(repairs)
}

fn write_batch(
    parts: &Path,
    batch: u64,
    game_header: &FileHeader,
    pos_header: &FileHeader,
    outs: &[GameOutput],
) -> Result<()> {
    // Positions first: a batch counts only once its games file exists too.
    let mut w = Writer::<PositionRecord>::create(
        part_path(&parts.join("positions"), batch),
        pos_header.clone(),
    )?;
    for o in outs {
        w.write_all(&o.positions)?;
    }
    w.finish()?;
    let mut w =
        Writer::<GameRecord>::create(part_path(&parts.join("games"), batch), game_header.clone())?;
    w.write_all(outs.iter().map(|o| &o.record))?;
    w.finish()?;
    Ok(())
}

/// Reads a part file whole; damage is an error (parts are ours).
fn check_part<R: Record>(path: &Path) -> Result<()> {
    let mut r = Reader::<R>::open(path)?;
    while r.next_chunk()?.is_some() {}
    match r.damage().first() {
        Some(d) => Err(SelfplayError::Damaged(d.clone())),
        None => Ok(()),
    }
}

/// Appends the records of the part file `path` to `w`, showing each to `each`; damage is
/// an error here (parts are ours).
fn append_part<R: Record>(
    w: &mut Writer<R>,
    path: &Path,
    each: impl FnMut(&R) -> Result<()>,
) -> Result<u64> {
    let mut r = Reader::<R>::open(path)?;
    let n = w.append_from(&mut r, each)?;
    if let Some(d) = r.damage().first() {
        return Err(SelfplayError::Damaged(d.clone()));
    }
    Ok(n)
}

fn join_parts(
    dir: &Path,
    parts: &Path,
    batches: u64,
    game_header: &FileHeader,
    pos_header: &FileHeader,
) -> Result<GameStats> {
    let mut positions = 0u64;
    let mut w = Writer::<PositionRecord>::create(dir.join("positions.kdata"), pos_header.clone())?;
    for b in 0..batches {
        positions += append_part(&mut w, &part_path(&parts.join("positions"), b), |_| Ok(()))?;
    }
    w.finish()?;
    let mut stats = GameStats::default();
    let mut w = Writer::<GameRecord>::create(dir.join("games.kdata"), game_header.clone())?;
    for b in 0..batches {
        append_part(&mut w, &part_path(&parts.join("games"), b), |g| {
            stats.add(g, 0);
            Ok(())
        })?;
    }
    w.finish()?;
    stats.positions = positions;
    Ok(stats)
}

/// Statistics of a finished run directory, read from its files; a damaged file is an error.
pub fn final_stats(dir: &Path) -> Result<GameStats> {
    let mut stats = GameStats::default();
    let mut r = Reader::<GameRecord>::open(dir.join("games.kdata"))?;
    while let Some(chunk) = r.next_chunk()? {
        for g in &chunk {
            stats.add(g, 0);
        }
    }
    if let Some(d) = r.damage().first() {
        return Err(SelfplayError::Damaged(d.clone()));
    }
    let mut r = Reader::<PositionRecord>::open(dir.join("positions.kdata"))?;
    while let Some(chunk) = r.next_chunk()? {
        stats.positions += chunk.len() as u64;
    }
    if let Some(d) = r.damage().first() {
        return Err(SelfplayError::Damaged(d.clone()));
    }
    Ok(stats)
}

fn write_summary(dir: &Path, cfg: &GenConfig, opts: &RunOptions, r: &RunReport) -> Result<()> {
    let secs = r.wall.as_secs_f64().max(1e-9);
    let game_s = r.game_time.as_secs_f64();
    let json = serde_json::json!({
        "tool": created_by(),
        "format_version": kage_data::FORMAT_VERSION,
        "git_revision": GIT_REVISION,
        "variant": cfg.variant,
        "seed": cfg.seed,
        "shard": { "index": opts.shard.index, "count": opts.shard.count },
        "config_hash": format!("{:016x}", cfg.hash()),
        "config": cfg,
        "files": { "games": "games.kdata", "positions": "positions.kdata" },
        "stats": r.stats.report(),
        "last_invocation": {
            "threads": opts.threads,
            "games_played": r.games_played,
            "positions_played": r.positions_played,
            "wall_s": secs,
            "games_per_s": r.games_played as f64 / secs,
            "positions_per_s": r.positions_played as f64 / secs,
            "outside_search_fraction": if game_s > 0.0 {
                1.0 - r.search_time.as_secs_f64() / game_s
            } else {
                0.0
            },
        },
    });
    let text = serde_json::to_string_pretty(&json).expect("summary serialises") + "\n";
    write_atomic(&dir.join("summary.json"), &text)
}

/// Whether a stop was requested.
pub fn stopped(flag: &AtomicBool) -> bool {
    flag.load(Ordering::SeqCst)
}
