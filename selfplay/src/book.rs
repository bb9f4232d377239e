//! Balanced opening books (`kage-selfplay book`): openings reached from the real start
//! position by a few plies sampled like the matches' random openings (near-best MultiPV moves,
//! or uniform), kept only when every judge (kage's built-in search, and any engine given)
//! scores them within a margin of its own score of the start position. Candidate `k` depends
//! only on (seed, variant, k) and every judge search starts from a cleared engine, and the
//! book keeps the first `count` distinct accepted candidates in index order: the same seed
//! gives the same book whatever the thread count.

use std::collections::HashSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use kage_engine::eval::Evaluator;
use kage_engine::{Game, Variant};
use serde::Serialize;

use crate::arena::player::{Ask, Builtin, Player};
use crate::config::{OpeningMode, Openings};
use crate::matches::engine::{self, EngineKind, EngineSpec, EvalError, MoveLimit, Score};
use crate::matches::openings::Book as Sampler;
use crate::matches::uci::UciError;

/// Why a book cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum BookError {
    /// A variant or setting refused by the self-play library (its message as is).
    #[error(transparent)]
    Selfplay(#[from] crate::SelfplayError),
    /// `--count` outside `1..=1000000`.
    #[error("--count {0} is outside 1..=1000000")]
    Count(u64),
    /// `--plies` outside `1..=40`.
    #[error("--plies {0} is outside 1..=40")]
    Plies(u32),
    /// `--margin` outside `0..=10000`.
    #[error("--margin {0} is outside 0..=10000 cp")]
    Margin(i32),
    /// `--multipv` outside `1..=64`.
    #[error("--multipv {0} is outside 1..=64")]
    Multipv(u32),
    /// A negative `--sample-margin` or no `--sample-nodes`.
    #[error("--sample-margin must be >= 0 and --sample-nodes >= 1")]
    Sampling {
        /// The sampling margin (cp).
        margin_cp: i32,
        /// The sampling nodes.
        nodes: u64,
    },
    /// Fewer candidates allowed than openings asked for.
    #[error("--max-candidates {max} is below --count {count}")]
    MaxCandidates {
        /// `--max-candidates`.
        max: u64,
        /// `--count`.
        count: u64,
    },
    /// A judge node count outside `1..=MAX_TOML_INT`.
    #[error("judge nodes {0} is outside 1..={max}", max = crate::config::MAX_TOML_INT)]
    JudgeNodes(u64),
    /// A judge depth outside `1..=64`.
    #[error("judge depth {0} is outside 1..=64")]
    JudgeDepth(u32),
    /// A judge movetime outside `1..=MAX_MS`.
    #[error("judge movetime {0} ms is outside 1..={max} ms", max = crate::matches::game::MAX_MS)]
    JudgeMovetime(u64),
    /// Two judges whose scores would have one EPD opcode.
    #[error("two judges named {0:?}: give one name=")]
    JudgeTwice(String),
    /// A built-in judge's evaluation that cannot be loaded.
    #[error("judge {judge:?}: {cause}")]
    JudgeEval {
        /// The judge's name.
        judge: String,
        /// Why it cannot be loaded (boxed: it is large).
        cause: Box<EvalError>,
    },
    /// A judge that would not start.
    #[error("judge {judge:?}: {cause}")]
    JudgeStart {
        /// The judge's name.
        judge: String,
        /// Why it did not start.
        cause: UciError,
    },
    /// A judge that scores the start position as a mate.
    #[error("judge {judge:?} scores the start position as a mate ({score}): no balanced openings")]
    MateStart {
        /// The judge's name.
        judge: String,
        /// Its score (search units).
        score: i32,
    },
    /// A judge that failed and could not be restarted.
    #[error("judge {judge:?}: {cause}")]
    JudgeRestart {
        /// The judge's name.
        judge: String,
        /// Why the restart failed.
        cause: UciError,
    },
    /// A judge that failed twice in a row on one position.
    #[error("judge {judge:?} failed twice: {first}; then {then}")]
    JudgeFailedTwice {
        /// The judge's name.
        judge: String,
        /// The first failure.
        first: UciError,
        /// The second.
        then: UciError,
    },
    /// A judge that reported no score.
    #[error("judge {0:?} reported no score (info ... score cp N)")]
    NoScore(String),
    /// A worker thread panicked.
    #[error("a worker panicked")]
    WorkerPanicked,
    /// A worker thread stopped before its candidates were judged.
    #[error("a worker stopped early")]
    WorkerStopped,
    /// Not enough openings within the margin.
    #[error(
        "only {found} of {count} openings found within {margin_cp} cp after {candidates} \
         candidates ({beyond} beyond the margin, {ended} ended, {repeated} repeated); widen \
         --margin, raise --max-candidates or lower --count"
    )]
    Short {
        /// Openings found.
        found: usize,
        /// Openings asked for.
        count: u64,
        /// The margin (cp).
        margin_cp: i32,
        /// Candidates judged.
        candidates: u64,
        /// Of those, beyond the margin of a judge.
        beyond: u64,
        /// Of those, ended within the plies.
        ended: u64,
        /// Of those, repeating an earlier opening.
        repeated: u64,
    },
}

/// How long each judge searches a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum JudgeLimit {
    /// Nodes per search (reproducible).
    Nodes(u64),
    /// Depth per search (reproducible).
    Depth(u32),
    /// Milliseconds per search (not reproducible: the machine's speed decides).
    Movetime(u64),
}

impl JudgeLimit {
    fn move_limit(self) -> MoveLimit {
        match self {
            JudgeLimit::Nodes(n) => MoveLimit::Nodes(n),
            JudgeLimit::Depth(d) => MoveLimit::Depth(d),
            JudgeLimit::Movetime(ms) => MoveLimit::Movetime(ms),
        }
    }

    fn validate(self) -> Result<(), BookError> {
        match self {
            JudgeLimit::Nodes(n) if n == 0 || n > crate::config::MAX_TOML_INT => {
                Err(BookError::JudgeNodes(n))
            }
            JudgeLimit::Depth(d) if !(1..=64).contains(&d) => Err(BookError::JudgeDepth(d)),
            JudgeLimit::Movetime(ms) if ms == 0 || ms > crate::matches::game::MAX_MS => {
                Err(BookError::JudgeMovetime(ms))
            }
            _ => Ok(()),
        }
    }
}

/// What makes a book (recorded in its header).
#[derive(Clone, Debug, Serialize)]
pub struct BookConfig {
    /// The variant's name.
    pub variant: String,
    /// A user variant's spec text (`None`: a built-in variant).
    #[serde(skip)]
    pub variant_spec: Option<String>,
    /// Openings to write.
    pub count: u64,
    /// Plies from the start position.
    pub plies: u32,
    /// Largest difference (cp) between an opening's score and the start position's, per judge.
    pub margin_cp: i32,
    /// How the plies are sampled: `mode`, `multipv` and the sampling margin (`margin_cp`).
    pub sampling: Openings,
    /// Nodes of the sampling MultiPV search.
    pub sample_nodes: u64,
    /// The judges' search limit.
    pub limit: JudgeLimit,
    /// The judges: kage's built-in search first, then the engines given.
    pub judges: Vec<EngineSpec>,
    /// Seed of the sampling.
    pub seed: u64,
    /// Candidates tried at most.
    pub max_candidates: u64,
    /// Worker threads (each with its own judges; the book does not depend on it).
    #[serde(skip)]
    pub threads: usize,
    /// A judge search that takes this much longer than asked is a fault.
    #[serde(skip)]
    pub hang: Duration,
    /// A progress line on stderr every so often (`None`: none).
    #[serde(skip)]
    pub progress: Option<Duration>,
}

/// The built-in judge: kage's search with the variant's default evaluation.
pub fn builtin_judge(hash_mb: usize) -> EngineSpec {
    EngineSpec {
        name: "kage".into(),
        kind: EngineKind::Builtin { net: None, hash_mb, params: None, hce: false, nodes: None },
    }
}

impl BookConfig {
    /// Checks every setting.
    pub fn validate(&self) -> Result<(), BookError> {
        crate::config::check_variant_name(&self.variant)?;
        if self.count == 0 || self.count > 1_000_000 {
            return Err(BookError::Count(self.count));
        }
        if !(1..=40).contains(&self.plies) {
            return Err(BookError::Plies(self.plies));
        }
        if !(0..=10_000).contains(&self.margin_cp) {
            return Err(BookError::Margin(self.margin_cp));
        }
        let s = self.sampling;
        if s.mode == OpeningMode::Multipv && !(1..=64).contains(&s.multipv) {
            return Err(BookError::Multipv(s.multipv));
        }
        if s.margin_cp < 0 || self.sample_nodes == 0 {
            return Err(BookError::Sampling { margin_cp: s.margin_cp, nodes: self.sample_nodes });
        }
        if self.max_candidates < self.count {
            return Err(BookError::MaxCandidates { max: self.max_candidates, count: self.count });
        }
        self.limit.validate()?;
        let mut names = HashSet::new();
        for j in &self.judges {
            if !names.insert(opcode(&j.name)) {
                return Err(BookError::JudgeTwice(j.name.clone()));
            }
        }
        Ok(())
    }
}

/// The EPD opcode of a judge's score: `score_` and its name, other characters as `_`.
pub fn opcode(name: &str) -> String {
    let clean: String =
        name.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    format!("score_{clean}")
}

/// One opening of the book.
#[derive(Clone, Debug, Serialize)]
pub struct Line {
    /// The candidate's index (its seeded stream).
    pub index: u64,
    /// The position reached.
    pub fen: String,
    /// The moves from the start position (UCI).
    pub moves: Vec<String>,
    /// Each judge's score of it (cp, for the side to move at the start position).
    pub scores: Vec<i32>,
}

/// A judge's verdict on the start position.
#[derive(Clone, Debug, Serialize)]
pub struct JudgeInfo {
    /// Its name.
    pub name: String,
    /// The EPD opcode of its scores.
    pub opcode: String,
    /// What it is.
    pub spec: EngineSpec,
    /// Its build (program hash, kage revision, `id name`).
    pub build: crate::build::Build,
    /// Its score of the start position (cp, for the side to move there).
    pub start_score: i32,
}

/// A finished book.
#[derive(Clone, Debug, Serialize)]
pub struct BookOutput {
    /// The settings.
    pub config: BookConfig,
    /// The judges and their start scores.
    pub judges: Vec<JudgeInfo>,
    /// The openings, in candidate order.
    pub lines: Vec<Line>,
    /// Candidates looked at up to the last opening kept.
    pub candidates: u64,
    /// Of those: rejected because a judge put them beyond the margin (per judge)...
    pub rejected_margin: Vec<u64>,
    /// ...because the game ended within the plies...
    pub rejected_ended: u64,
    /// ...because they repeat an earlier opening's position.
    pub duplicates: u64,
}

/// What happened to one candidate.
enum Verdict {
    Kept(Line),
    /// Judge `i` put it beyond the margin.
    Margin(usize),
    Ended,
}

/// One worker's judges and sampler helper.
struct Panel {
    judges: Vec<Box<dyn Player>>,
    helper: Option<Builtin>,
}

struct Ctx<'a> {
    cfg: &'a BookConfig,
    variant: &'static Variant,
    sampler: Sampler,
    evaluators: Vec<Evaluator>,
    start: Vec<i32>,
}

fn start_panel(ctx: &Ctx) -> Result<Panel, BookError> {
    let mut judges = Vec::new();
    for (spec, eval) in ctx.cfg.judges.iter().zip(&ctx.evaluators) {
        let e = engine::start(spec, &ctx.variant.name, eval)
            .map_err(|cause| BookError::JudgeStart { judge: spec.name.clone(), cause })?;
        judges.push(e);
    }
    Ok(Panel { judges, helper: ctx.sampler.helper() })
}

/// Judge `i`'s score of `game`'s position, for the side to move at the start position; a
/// fault restarts the judge and asks once more.
fn score(ctx: &Ctx, panel: &mut Panel, i: usize, game: &Game) -> Result<i32, BookError> {
    let name = &ctx.cfg.judges[i].name;
    let limit = ctx.cfg.limit.move_limit();
    let wait = match ctx.cfg.limit {
        JudgeLimit::Movetime(ms) => Duration::from_millis(ms) + ctx.cfg.hang,
        _ => ctx.cfg.hang,
    };
    let j = &mut panel.judges[i];
    let ask = Ask { limit, multipv: 1, wait: Some(wait) };
    let ask = |j: &mut Box<dyn Player>| j.new_game().and_then(|_| j.go(game, &ask));
    let reply = match ask(j) {
        Ok(r) => r,
        Err(first) => {
            j.restart().map_err(|cause| BookError::JudgeRestart { judge: name.clone(), cause })?;
            ask(j).map_err(|then| BookError::JudgeFailedTwice {
                judge: name.clone(),
                first,
                then,
            })?
        }
    };
    let s = reply.score.ok_or_else(|| BookError::NoScore(name.clone()))?;
    // Through `Score`, as the judges' scores always went (a mate as moves).
    let cp = Score::from_search(s).centipawns();
    let first = Game::startpos(ctx.variant).position().side_to_move();
    Ok(if game.position().side_to_move() == first { cp } else { -cp })
}

/// Candidate `k`: sampled, then judged (stopping at the first judge beyond the margin).
fn candidate(ctx: &Ctx, panel: &mut Panel, k: u64) -> Result<Verdict, BookError> {
    let opening = ctx.sampler.opening(k, panel.helper.as_mut());
    if opening.moves.len() < ctx.cfg.plies as usize {
        return Ok(Verdict::Ended);
    }
    let mut game = Game::new(opening.start.clone());
    let mut moves = Vec::new();
    for &m in &opening.moves {
        moves.push(game.position().move_to_uci(m));
        game.play(m);
    }
    if game.outcome().is_some() || game.position().legal_moves().is_empty() {
        return Ok(Verdict::Ended);
    }
    let mut scores = Vec::new();
    for i in 0..ctx.cfg.judges.len() {
        let s = score(ctx, panel, i, &game)?;
        if (i64::from(s) - i64::from(ctx.start[i])).abs() > i64::from(ctx.cfg.margin_cp) {
            return Ok(Verdict::Margin(i));
        }
        scores.push(s);
    }
    Ok(Verdict::Kept(Line { index: k, fen: game.position().to_fen(), moves, scores }))
}

/// Judges candidates `from..from + n` on the workers' paneles, in any order; results by index.
fn judge_batch(
    ctx: &Ctx,
    paneles: &mut [Panel],
    from: u64,
    n: usize,
) -> Result<Vec<Verdict>, BookError> {
    let next = AtomicUsize::new(0);
    let out: Mutex<Vec<Option<Result<Verdict, BookError>>>> =
        Mutex::new((0..n).map(|_| None).collect());
    std::thread::scope(|scope| {
        for panel in paneles.iter_mut() {
            let (next, out) = (&next, &out);
            scope.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= n {
                        break;
                    }
                    let v = candidate(ctx, panel, from + i as u64);
                    let failed = v.is_err();
                    if let Ok(mut o) = out.lock() {
                        o[i] = Some(v);
                    }
                    if failed {
                        next.store(n, Ordering::Relaxed);
                    }
                }
            });
        }
    });
    let results = out.into_inner().map_err(|_| BookError::WorkerPanicked)?;
    // The first error wins; candidates left out after it are not needed.
    let mut verdicts = Vec::with_capacity(n);
    for r in results.into_iter().flatten() {
        verdicts.push(r?);
    }
    if verdicts.len() < n {
        return Err(BookError::WorkerStopped);
    }
    Ok(verdicts)
}

/// Makes the book of `cfg`.
pub fn make(cfg: &BookConfig) -> Result<BookOutput, BookError> {
    cfg.validate()?;
    let variant = crate::config::resolve_variant(&cfg.variant, cfg.variant_spec.as_deref())?;
    let openings = Openings { random_plies: cfg.plies, ..cfg.sampling };
    let sampler = Sampler::new_random(openings, cfg.sample_nodes, variant, cfg.seed);
    let evaluators = cfg
        .judges
        .iter()
        .map(|j| match &j.kind {
            EngineKind::Builtin { net, params, hce, .. } => {
                engine::load_evaluator(net.as_ref(), params.as_ref(), *hce, variant)
                    .map_err(|e| BookError::JudgeEval { judge: j.name.clone(), cause: Box::new(e) })
            }
            EngineKind::Uci(_) => Ok(Evaluator::HandCrafted),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut ctx = Ctx { cfg, variant, sampler, evaluators, start: Vec::new() };
    let mut paneles =
        (0..cfg.threads.max(1)).map(|_| start_panel(&ctx)).collect::<Result<Vec<_>, _>>()?;
    let start_game = Game::startpos(variant);
    for i in 0..cfg.judges.len() {
        let s = score(&ctx, &mut paneles[0], i, &start_game)?;
        if s.abs() >= kage_engine::search::MATE_BOUND {
            return Err(BookError::MateStart { judge: cfg.judges[i].name.clone(), score: s });
        }
        ctx.start.push(s);
    }
    let judges = cfg
        .judges
        .iter()
        .zip(&paneles[0].judges)
        .zip(&ctx.start)
        .map(|((spec, e), &start_score)| JudgeInfo {
            name: spec.name.clone(),
            opcode: opcode(&spec.name),
            spec: spec.clone(),
            build: e.build(),
            start_score,
        })
        .collect();
    collect(&ctx, &mut paneles, judges)
}

/// Judges candidates in batches until `count` distinct openings are kept.
fn collect(
    ctx: &Ctx,
    paneles: &mut [Panel],
    judges: Vec<JudgeInfo>,
) -> Result<BookOutput, BookError> {
    let cfg = ctx.cfg;
    let mut out = BookOutput {
        config: cfg.clone(),
        judges,
        lines: Vec::new(),
        candidates: 0,
        rejected_margin: vec![0; cfg.judges.len()],
        rejected_ended: 0,
        duplicates: 0,
    };
    let mut seen = HashSet::new();
    let batch = (4 * paneles.len()).max(8) as u64;
    let (t0, mut last) = (Instant::now(), Instant::now());
    let mut k = 0u64;
    while (out.lines.len() as u64) < cfg.count && k < cfg.max_candidates {
        let n = batch.min(cfg.max_candidates - k) as usize;
        for v in judge_batch(ctx, paneles, k, n)? {
            if out.lines.len() as u64 == cfg.count {
                break;
            }
            out.candidates += 1;
            match v {
                Verdict::Kept(line) if seen.insert(line.fen.clone()) => out.lines.push(line),
                Verdict::Kept(_) => out.duplicates += 1,
                Verdict::Margin(i) => out.rejected_margin[i] += 1,
                Verdict::Ended => out.rejected_ended += 1,
            }
        }
        k += n as u64;
        if let Some(every) = cfg.progress
            && last.elapsed() >= every
        {
            last = Instant::now();
            let rate = crate::progress::status(
                out.lines.len() as u64,
                cfg.count,
                out.lines.len() as u64,
                t0.elapsed(),
                "openings",
            );
            eprintln!("book: {} candidates judged; {rate}", out.candidates);
        }
    }
    if (out.lines.len() as u64) < cfg.count {
        return Err(BookError::Short {
            found: out.lines.len(),
            count: cfg.count,
            margin_cp: cfg.margin_cp,
            candidates: out.candidates,
            beyond: out.rejected_margin.iter().sum(),
            ended: out.rejected_ended,
            repeated: out.duplicates,
        });
    }
    Ok(out)
}

/// The book as an EPD file: `#` header lines (the settings, judges, start scores, seed, git
/// revision, and one `# book-json {...}` line with all of it), then one line per opening:
/// `FEN; moves "M1 M2 ..."; score_NAME CP; ...` (scores for the side to move at the start
/// position, each judge's start score in the header).
pub fn render(b: &BookOutput) -> String {
    let c = &b.config;
    let mut s = format!(
        "# kage-selfplay book {}: {} balanced openings of {}\n",
        env!("CARGO_PKG_VERSION"),
        b.lines.len(),
        c.variant
    );
    s += &format!("# git revision {}\n", kage_data::GIT_REVISION);
    s += &format!(
        "# {} plies sampled {} (seed {}), kept within {} cp of each judge's start score ({} candidates)\n",
        c.plies,
        match c.sampling.mode {
            OpeningMode::Multipv => format!(
                "among the MultiPV-{} moves within {} cp of the best ({} nodes)",
                c.sampling.multipv, c.sampling.margin_cp, c.sample_nodes
            ),
            OpeningMode::Uniform => "uniformly among the legal moves".into(),
        },
        c.seed,
        c.margin_cp,
        b.candidates
    );
    for j in &b.judges {
        s += &format!("# judge {}: start score {:+} cp ({})\n", j.opcode, j.start_score, j.name);
    }
    s += "# scores: cp for the side to move at the start position\n";
    let json = serde_json::json!({
        "tool": format!("kage-selfplay book {}", env!("CARGO_PKG_VERSION")),
        "git_revision": kage_data::GIT_REVISION,
        "config": c,
        "variant_spec_hash": c.variant_spec.as_deref().map(|t| crate::player::file_hash(t.as_bytes())),
        "judges": b.judges,
        "candidates": b.candidates,
        "rejected_margin": b.rejected_margin,
        "rejected_ended": b.rejected_ended,
        "duplicates": b.duplicates,
    });
    s += &format!("# book-json {json}\n");
    for l in &b.lines {
        s += &format!("{}; moves \"{}\";", l.fen, l.moves.join(" "));
        for (j, sc) in b.judges.iter().zip(&l.scores) {
            s += &format!(" {} {sc};", j.opcode);
        }
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> BookConfig {
        BookConfig {
            variant: "minishogi".into(),
            variant_spec: None,
            count: 4,
            plies: 4,
            margin_cp: 100,
            sampling: Openings::default(),
            sample_nodes: 100,
            limit: JudgeLimit::Nodes(100),
            judges: vec![builtin_judge(1)],
            seed: 1,
            max_candidates: 100,
            threads: 1,
            hang: Duration::from_secs(10),
            progress: None,
        }
    }

    #[test]
    fn refusals_are_typed() {
        assert!(cfg().validate().is_ok());
        let e = BookConfig { count: 0, ..cfg() }.validate().unwrap_err();
        assert!(matches!(e, BookError::Count(0)), "{e:?}");
        assert_eq!(e.to_string(), "--count 0 is outside 1..=1000000");
        let e = BookConfig { limit: JudgeLimit::Depth(65), ..cfg() }.validate().unwrap_err();
        assert!(matches!(e, BookError::JudgeDepth(65)), "{e:?}");
        let e = BookConfig { max_candidates: 3, ..cfg() }.validate().unwrap_err();
        assert!(matches!(e, BookError::MaxCandidates { max: 3, count: 4 }), "{e:?}");
        let e = BookConfig { judges: vec![builtin_judge(1); 2], ..cfg() }.validate().unwrap_err();
        assert!(matches!(&e, BookError::JudgeTwice(n) if n == "kage"), "{e:?}");
        let e = BookConfig { variant: "a/b".into(), ..cfg() }.validate().unwrap_err();
        assert!(matches!(e, BookError::Selfplay(crate::SelfplayError::Config(_))), "{e:?}");
        // A judge's network that cannot be read: its own case, with the engine's error.
        let net = Some(std::path::PathBuf::from("missing.nnue"));
        let judge = EngineSpec {
            name: "net".into(),
            kind: EngineKind::Builtin { net, hash_mb: 1, params: None, hce: false, nodes: None },
        };
        let e = make(&BookConfig { judges: vec![judge], ..cfg() }).unwrap_err();
        let BookError::JudgeEval { judge, cause } = &e else { panic!("{e:?}") };
        assert_eq!(judge, "net");
        assert!(matches!(**cause, EvalError::ReadNet { .. }), "{e:?}");
        assert!(e.to_string().starts_with("judge \"net\": cannot read missing.nnue: "), "{e}");
    }
}
