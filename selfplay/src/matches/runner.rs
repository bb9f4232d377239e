//! The match: setup checks (everything that can be wrong with the input fails here, before
//! the match directory is touched), worker threads playing game pairs, and the main thread
//! logging pairs, counting, testing the GSPRT and reporting.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use kage_data::Termination;
use kage_engine::eval::Evaluator;
use serde::{Deserialize, Serialize};

use super::MatchConfig;
use super::engine::{self, EngineKind};
pub use super::error::MatchError;
use super::game::{self, GameEnd, GameSettings};
use super::log::{PairLine, PairLog, claim, write_atomic};
use super::openings::Book;
use super::pgn;
use super::sprt::Verdict;
use super::stats::{self, Counts, Elo, SprtState};
use super::uci::UciError;
use crate::arena::player::Player;
use crate::arena::schedule::{self, Control, Event, Plan, StopMode, Work};
use crate::play::game_rng;

/// How a match ended (`status` of its `summary.json`; the pipeline's gate reads it back).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchStatus {
    /// All games played.
    Complete,
    /// The GSPRT reached a bound.
    SprtAccepted,
    /// The GSPRT accepted H0 (elo0).
    SprtRejected,
    /// Stopped from outside (Ctrl-C); rerun to resume.
    Interrupted,
}

/// The figures of a match.
#[derive(Clone, Debug, Serialize)]
pub struct MatchReport {
    /// How the match ended.
    pub status: MatchStatus,
    /// The variant played.
    pub variant: String,
    /// Player names, first engine first.
    pub engines: [String; 2],
    /// Counts from the first engine's point of view.
    pub counts: Counts,
    /// Elo figures (none before the first game).
    pub elo: Option<Elo>,
    /// The GSPRT state, with `--sprt`.
    pub sprt: Option<SprtState>,
    /// Pairs in the log (this run and earlier ones).
    pub pairs: u64,
    /// Games asked for by the run that wrote this summary (`--games`, rounded up to whole
    /// pairs; a resume may ask for more).
    pub games_planned: u64,
    /// Distinct openings those pairs played (positions after the opening moves).
    pub distinct_openings: u64,
    /// Lines of the opening file (`None`: random openings).
    pub book_lines: Option<u64>,
    /// Pairs played by this run.
    pub pairs_played: u64,
    /// Engine faults (crash, hang) this run; illegal moves and time forfeits (all pairs).
    pub faults: u64,
    /// Illegal moves (each lost its game), all pairs.
    pub illegal_moves: u64,
    /// Games lost on time, all pairs.
    pub time_forfeits: u64,
    /// Wall time of this run (s).
    pub wall_s: f64,
    /// Time inside engine searches (from `go` to the move, s), and the workers' lifetimes
    /// (s); the runner's overhead is 1 - think / worker.
    pub think_s: f64,
    /// The worker threads' lifetimes (s).
    pub worker_s: f64,
    /// The runner's overhead: 1 - think / worker.
    pub overhead: f64,
    /// The match directory.
    pub dir: PathBuf,
    /// The command line of the run that wrote this summary (`kage-selfplay match ...`);
    /// empty, and left out of `summary.json`, when a library caller (the ladder) ran it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub command: Vec<String>,
}

/// A played pair, for the main thread.
struct PairDone {
    line: Box<PairLine>,
    think: Duration,
    notes: Vec<String>,
}

/// A worker's trouble: a fault of engine `engine` (a pair to replay), or, as a failure, its
/// restart after one.
struct Trouble {
    engine: usize,
    cause: UciError,
}

struct Shared<'a> {
    cfg: &'a MatchConfig,
    book: Book,
    settings: GameSettings,
    pending: Vec<u64>,
}

type Pairing = [Box<dyn Player>; 2];

/// Starts one pairing (both engines), with a clear message on failure.
fn start_pairing(cfg: &MatchConfig, evals: &[Evaluator; 2]) -> Result<Pairing, MatchError> {
    let one = |i: usize| {
        let spec = &cfg.engines[i];
        engine::start(spec, &cfg.variant, &evals[i])
            .map_err(|cause| MatchError::Start { name: spec.name.clone(), cause })
    };
    Ok([one(0)?, one(1)?])
}

/// One worker's state: its pairing and its opening helper.
struct Seat {
    engines: Pairing,
    helper: Option<crate::arena::player::Builtin>,
}

/// Plays pending pair `i` (both games, the same opening).
fn play_pair(sh: &Shared, seat: &mut Seat, i: usize, halt: &AtomicBool) -> Work<PairDone, Trouble> {
    let pair = sh.pending[i];
    let opening = sh.book.opening(pair, seat.helper.as_mut());
    let mut games = Vec::with_capacity(2);
    let (mut think, mut notes) = (Duration::ZERO, Vec::new());
    for g in 0..2u64 {
        let mut rng = game_rng(sh.cfg.seed, "nodes-jitter", 2 * pair + g);
        match game::play(&mut seat.engines, g == 0, &opening, &sh.settings, &mut rng, halt) {
            GameEnd::Done { record, think: t, notes: n } => {
                games.push(record);
                think += t;
                notes.extend(n);
            }
            GameEnd::Aborted => return Work::Stopped,
            GameEnd::Fault { .. } if halt.load(Ordering::Relaxed) => return Work::Stopped,
            GameEnd::Fault { first, error } => {
                return Work::Fault(Trouble { engine: usize::from(!first), cause: error });
            }
        }
    }
    match <[_; 2]>::try_from(games) {
        Ok([a, b]) => {
            Work::Done(PairDone { line: Box::new(PairLine { pair, games: [a, b] }), think, notes })
        }
        Err(_) => Work::Stopped,
    }
}

/// After a fault: the engine that failed, started afresh.
fn restart(seat: &mut Seat, t: &Trouble) -> Result<(), Trouble> {
    let k = t.engine;
    seat.engines[k].restart().map_err(|cause| Trouble { engine: k, cause })
}

struct Progress {
    tty: bool,
    start: Instant,
    start_games: u64,
    total: u64,
    quiet: bool,
    last_games: u64,
    last_time: Instant,
    every_games: u64,
    every: Duration,
}

impl Progress {
    fn show(&mut self, line: &str, games: u64, force: bool) {
        if self.quiet {
            return;
        }
        if self.tty {
            eprint!("\r{line}\x1b[K");
            if force {
                eprintln!();
            }
            return;
        }
        if (force && games != self.last_games)
            || games >= self.last_games + self.every_games
            || self.last_time.elapsed() >= self.every
        {
            let new = games.saturating_sub(self.start_games);
            let rate =
                crate::progress::status(games, self.total, new, self.start.elapsed(), "games");
            eprintln!("{line}  [{rate}]");
            self.last_games = games;
            self.last_time = Instant::now();
        }
    }
}

fn progress_line(c: &Counts, sprt: Option<&SprtState>, total: u64) -> String {
    let mut s = format!("games {}/{total}  +{} ={} -{}", c.games(), c.wins, c.draws, c.losses);
    if let Some(e) = stats::elo(&c.penta) {
        s += &format!("  score {:.1}%  Elo {:.1} +/- {:.1}", 100.0 * e.score, e.elo, e.elo95);
    }
    if let Some(st) = sprt {
        s += &format!("  LLR {:.2} ({:.2}, {:.2})", st.llr, st.lower, st.upper);
    }
    s
}

/// Plays (or resumes) the match `cfg`; `stop` (e.g. Ctrl-C) ends it early, resumable.
pub fn run(cfg: &MatchConfig, stop: &AtomicBool) -> Result<MatchReport, MatchError> {
    let t0 = Instant::now();
    let cfg = &cfg.clone().validated()?;
    let variant = crate::config::resolve_variant(&cfg.variant, cfg.variant_spec.as_deref())?;
    let book = Book::new(cfg.openings.clone(), variant, cfg.seed)?;
    let evals: Vec<Evaluator> = cfg
        .engines
        .iter()
        .map(|e| match &e.kind {
            EngineKind::Builtin { net, params, hce, .. } => {
                engine::load_evaluator(net.as_ref(), params.as_ref(), *hce, variant).map_err(
                    |cause| {
                        let part = if params.is_some() { "parameters" } else { "network" };
                        MatchError::Eval { engine: e.name.clone(), part, cause: Box::new(cause) }
                    },
                )
            }
            EngineKind::Uci(_) => Ok(Evaluator::HandCrafted),
        })
        .collect::<Result<_, _>>()?;
    let evals: [Evaluator; 2] = [evals[0].clone(), evals[1].clone()];
    let threads = cfg.threads.max(1).min(cfg.pairs().max(1) as usize);
    // Every engine starts (and knows the variant) before the directory is touched.
    let mut pairings = Vec::with_capacity(threads);
    for _ in 0..threads {
        pairings.push(start_pairing(cfg, &evals)?);
    }
    crate::guard::claim_run_dir(&cfg.out, &cfg.out, crate::guard::MATCH)?;
    let _lock = crate::run::lock_dir(&cfg.out)?;
    let builds = pairings[0].each_ref().map(|e| e.build());
    let names = [cfg.engines[0].name.as_str(), cfg.engines[1].name.as_str()];
    for note in claim(&cfg.out, &cfg.identity(), &builds, names, cfg.allow_rebuilt)? {
        eprintln!("kage-selfplay: warning: {note}");
    }
    let (mut log, mut pairs) = PairLog::open(&cfg.out)?;
    let mut counts = Counts::default();
    for p in pairs.values() {
        counts.add_pair([p.games[0].first_halves(), p.games[1].first_halves()]);
    }
    let sprt_state = |c: &Counts| cfg.sprt.map(|s| SprtState::of(s, &c.penta));
    let mut state = sprt_state(&counts);
    let decided = state.is_some_and(|s| s.verdict != Verdict::Continue);
    let pending: Vec<u64> = if decided {
        Vec::new()
    } else {
        (0..cfg.pairs()).filter(|k| !pairs.contains_key(k)).collect()
    };
    let settings = GameSettings {
        limit: cfg.limit,
        max_plies: cfg.max_plies,
        hang: cfg.hang,
        names: [cfg.engines[0].name.clone(), cfg.engines[1].name.clone()],
        nodes: cfg.engine_nodes(),
        adjudication: cfg.adjudication,
    };
    let sh = Shared { cfg, book, settings, pending };
    let total = 2 * cfg.pairs();
    let mut progress = Progress {
        tty: std::io::stderr().is_terminal(),
        start: Instant::now(),
        start_games: counts.games(),
        total,
        quiet: cfg.quiet,
        last_games: counts.games(),
        last_time: Instant::now(),
        every_games: cfg.progress_games.max(1),
        every: Duration::from_secs_f64(cfg.progress_secs.max(0.1)),
    };
    let mut think = Duration::ZERO;
    let (mut failures_in_row, mut faults, mut played) = (0u32, 0u64, 0u64);
    let mut fatal: Option<MatchError> = None;
    let mut log_error: Option<MatchError> = None;
    let seats: Vec<Seat> =
        pairings.into_iter().map(|engines| Seat { engines, helper: sh.book.helper() }).collect();
    let plan = Plan {
        slots: sh.pending.len(),
        group: &|i| i as u64,
        stop,
        mode: StopMode::Halt,
        name: "match",
    };
    let work = |seat: &mut Seat, i: usize, halt: &AtomicBool| play_pair(&sh, seat, i, halt);
    let renew = |seat: &mut Seat, t: &Trouble| restart(seat, t);
    let worker_time = schedule::run(&plan, seats, &work, &renew, &mut |ev| match ev {
        Event::Failed(t) => {
            let engine = cfg.engines[t.engine].name.clone();
            fatal.get_or_insert(MatchError::Restart { engine, cause: t.cause });
            Control::Halt
        }
        Event::Fault(i, t) => {
            let (pair, engine) = (sh.pending[i], cfg.engines[t.engine].name.clone());
            faults += 1;
            failures_in_row += 1;
            eprintln!(
                "kage-selfplay: engine {engine:?} failed in pair {pair}: {}; \
                 restarted, the pair will be replayed",
                t.cause
            );
            if failures_in_row >= cfg.max_failures.max(1) {
                let count = failures_in_row;
                fatal.get_or_insert(MatchError::Failures { count, engine, last: t.cause });
                return Control::Halt;
            }
            Control::Go
        }
        Event::Done(_, PairDone { line, think: t, notes }) => {
            failures_in_row = 0;
            for n in notes {
                eprintln!("kage-selfplay: {n}");
            }
            if let Err(e) = log.append(&line) {
                log_error.get_or_insert(e);
                return Control::Halt;
            }
            think += t;
            played += 1;
            counts.add_pair([line.games[0].first_halves(), line.games[1].first_halves()]);
            pairs.insert(line.pair, *line);
            state = sprt_state(&counts);
            let text = progress_line(&counts, state.as_ref(), total);
            progress.show(&text, counts.games(), false);
            if state.is_some_and(|s| s.verdict != Verdict::Continue) {
                return Control::Halt;
            }
            Control::Go
        }
    });
    let sh_book_lines = sh.book.file_lines().map(|n| n as u64);
    drop(sh);
    progress.show(&progress_line(&counts, state.as_ref(), total), counts.games(), true);
    if let Some(e) = log_error {
        return Err(e);
    }
    let status = match state.map(|s| s.verdict) {
        Some(Verdict::Accepted) => MatchStatus::SprtAccepted,
        Some(Verdict::Rejected) => MatchStatus::SprtRejected,
        _ if (0..cfg.pairs()).all(|k| pairs.contains_key(&k)) => MatchStatus::Complete,
        _ => MatchStatus::Interrupted,
    };
    let all_games = || pairs.values().flat_map(|p| p.games.iter());
    let book_lines = sh_book_lines;
    let report = MatchReport {
        status,
        variant: cfg.variant.clone(),
        engines: [cfg.engines[0].name.clone(), cfg.engines[1].name.clone()],
        counts,
        elo: stats::elo(&counts.penta),
        sprt: state,
        pairs: pairs.len() as u64,
        games_planned: 2 * cfg.pairs(),
        distinct_openings: distinct_openings(variant, &pairs),
        book_lines,
        pairs_played: played,
        faults,
        illegal_moves: all_games().filter(|g| g.end() == Some(Termination::IllegalMove)).count()
            as u64,
        time_forfeits: all_games().filter(|g| g.end() == Some(Termination::TimeForfeit)).count()
            as u64,
        wall_s: t0.elapsed().as_secs_f64(),
        think_s: think.as_secs_f64(),
        worker_s: worker_time.as_secs_f64(),
        overhead: if worker_time.is_zero() {
            0.0
        } else {
            1.0 - think.as_secs_f64() / worker_time.as_secs_f64()
        },
        dir: cfg.out.clone(),
        command: cfg.command.clone(),
    };
    write_outputs(cfg, &pairs, &report)?;
    write_game_data(cfg, variant, &pairs)?;
    if let Some(e) = fatal {
        return Err(e);
    }
    Ok(report)
}

/// How many distinct openings the logged pairs played: the positions after their opening
/// moves (a line that does not replay counts by its text).
fn distinct_openings(
    variant: &'static kage_engine::Variant,
    pairs: &BTreeMap<u64, PairLine>,
) -> u64 {
    let key = |g: &game::GameRecord| {
        let moves = &g.moves[..g.book.min(g.moves.len())];
        let replay = || -> Option<String> {
            let mut game = kage_engine::Game::new(
                kage_engine::Position::from_fen(variant, &g.start_fen).ok()?,
            );
            for m in moves {
                game.play_uci(m).ok()?;
            }
            Some(game.position().to_fen())
        };
        replay().unwrap_or_else(|| format!("{} moves {}", g.start_fen, moves.join(" ")))
    };
    let set: std::collections::BTreeSet<String> =
        pairs.values().flat_map(|p| p.games.iter().map(key)).collect();
    set.len() as u64
}

/// `games.kdata`: every logged game (pair order; game `2 * pair + g`) as a
/// `kage_data::GameRecord`, like self-play's games (balance reports read it).
fn write_game_data(
    cfg: &MatchConfig,
    variant: &'static kage_engine::Variant,
    pairs: &BTreeMap<u64, PairLine>,
) -> Result<(), MatchError> {
    use kage_data::{FileHeader, RecordKind, Writer};
    let path = cfg.out.join("games.kdata");
    let err = |cause| MatchError::GameData { path: path.clone(), cause };
    let identity =
        serde_json::to_string_pretty(&cfg.identity()).map_err(crate::SelfplayError::Json)?;
    let by = crate::run::created_by();
    let header =
        FileHeader::new(RecordKind::Game, &cfg.variant, &identity, crate::GIT_REVISION, &by)
            .map_err(err)?;
    let mut w = Writer::<kage_data::GameRecord>::create(&path, header).map_err(err)?;
    for p in pairs.values() {
        for (g, rec) in p.games.iter().enumerate() {
            if let Some(r) = rec.to_data(variant, &cfg.variant, 2 * p.pair + g as u64) {
                w.write(&r).map_err(err)?;
            }
        }
    }
    w.finish().map(|_| ()).map_err(err)
}

/// `games.pgn` (every logged game, pair order) and `summary.json`.
fn write_outputs(
    cfg: &MatchConfig,
    pairs: &BTreeMap<u64, PairLine>,
    report: &MatchReport,
) -> Result<(), MatchError> {
    let date = pgn::today();
    let mut text = String::new();
    for p in pairs.values() {
        for (g, rec) in p.games.iter().enumerate() {
            let round = format!("{}.{}", p.pair + 1, g + 1);
            text += &pgn::game(rec, &cfg.variant, &round, &date, cfg.pgn_scores);
        }
    }
    let write = |path: PathBuf, text: &str| {
        write_atomic(&path, text).map_err(|cause| MatchError::Write { path, cause })
    };
    write(cfg.out.join("games.pgn"), &text)?;
    let json = serde_json::to_string_pretty(report).map_err(crate::SelfplayError::Json)? + "\n";
    write(cfg.out.join("summary.json"), &json)
}
