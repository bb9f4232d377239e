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
use crate::matches::engine::{self, EngineKind, EngineSpec, MoveLimit, Score};
use crate::matches::openings::{Book as Sampler, OpeningSpec};

/// Why a book cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum BookError {
    /// A setting that cannot be used.
    #[error("{0}")]
    Config(String),
    /// A judge failed (twice in a row on one position) or reported no score.
    #[error("{0}")]
    Judge(String),
    /// Not enough openings within the margin.
    #[error("{0}")]
    Short(String),
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

    fn validate(self) -> Result<(), String> {
        match self {
            JudgeLimit::Nodes(n) if n == 0 || n > crate::config::MAX_TOML_INT => {
                Err(format!("judge nodes {n} is outside 1..={}", crate::config::MAX_TOML_INT))
            }
            JudgeLimit::Depth(d) if !(1..=64).contains(&d) => {
                Err(format!("judge depth {d} is outside 1..=64"))
            }
            JudgeLimit::Movetime(ms) if ms == 0 || ms > crate::matches::game::MAX_MS => {
                Err(format!(
                    "judge movetime {ms} ms is outside 1..={} ms",
                    crate::matches::game::MAX_MS
                ))
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
        let bad = |m: String| Err(BookError::Config(m));
        crate::config::check_variant_name(&self.variant)
            .map_err(|e| BookError::Config(e.to_string()))?;
        if self.count == 0 || self.count > 1_000_000 {
            return bad(format!("--count {} is outside 1..=1000000", self.count));
        }
        if !(1..=40).contains(&self.plies) {
            return bad(format!("--plies {} is outside 1..=40", self.plies));
        }
        if !(0..=10_000).contains(&self.margin_cp) {
            return bad(format!("--margin {} is outside 0..=10000 cp", self.margin_cp));
        }
        let s = self.sampling;
        if s.mode == OpeningMode::Multipv && !(1..=64).contains(&s.multipv) {
            return bad(format!("--multipv {} is outside 1..=64", s.multipv));
        }
        if s.margin_cp < 0 || self.sample_nodes == 0 {
            return bad("--sample-margin must be >= 0 and --sample-nodes >= 1".into());
        }
        if self.max_candidates < self.count {
            return bad(format!(
                "--max-candidates {} is below --count {}",
                self.max_candidates, self.count
            ));
        }
        self.limit.validate().map_err(BookError::Config)?;
        let mut names = HashSet::new();
        for j in &self.judges {
            if !names.insert(opcode(&j.name)) {
                return bad(format!("two judges named {:?}: give one name=", j.name));
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
            .map_err(|e| BookError::Config(format!("judge {:?}: {e}", spec.name)))?;
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
            j.restart().map_err(|e| BookError::Judge(format!("judge {name:?}: {e}")))?;
            ask(j).map_err(|e| {
                BookError::Judge(format!("judge {name:?} failed twice: {first}; then {e}"))
            })?
        }
    };
    let s = reply.score.ok_or_else(|| {
        BookError::Judge(format!("judge {name:?} reported no score (info ... score cp N)"))
    })?;
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
    let results = out.into_inner().map_err(|_| BookError::Judge("a worker panicked".into()))?;
    // The first error wins; candidates left out after it are not needed.
    let mut verdicts = Vec::with_capacity(n);
    for r in results.into_iter().flatten() {
        verdicts.push(r?);
    }
    if verdicts.len() < n {
        return Err(BookError::Judge("a worker stopped early".into()));
    }
    Ok(verdicts)
}

/// Makes the book of `cfg`.
pub fn make(cfg: &BookConfig) -> Result<BookOutput, BookError> {
    cfg.validate()?;
    let variant = crate::config::resolve_variant(&cfg.variant, cfg.variant_spec.as_deref())
        .map_err(|e| BookError::Config(e.to_string()))?;
    let spec = OpeningSpec::Random {
        openings: Openings { random_plies: cfg.plies, ..cfg.sampling },
        nodes: cfg.sample_nodes,
    };
    let sampler =
        Sampler::new(spec, variant, cfg.seed).map_err(|e| BookError::Config(e.to_string()))?;
    let evaluators = cfg
        .judges
        .iter()
        .map(|j| match &j.kind {
            EngineKind::Builtin { net, params, hce, .. } => {
                engine::load_evaluator(net.as_ref(), params.as_ref(), *hce, variant)
                    .map_err(|e| BookError::Config(format!("judge {:?}: {e}", j.name)))
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
            return Err(BookError::Config(format!(
                "judge {:?} scores the start position as a mate ({s}): no balanced openings",
                cfg.judges[i].name
            )));
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
        return Err(BookError::Short(format!(
            "only {} of {} openings found within {} cp after {} candidates ({} beyond the \
             margin, {} ended, {} repeated); widen --margin, raise --max-candidates or lower --count",
            out.lines.len(),
            cfg.count,
            cfg.margin_cp,
            out.candidates,
            out.rejected_margin.iter().sum::<u64>(),
            out.rejected_ended,
            out.duplicates
        )));
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
