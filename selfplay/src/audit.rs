//! Adjudication audit: a sample of the games that adjudication ended (resignations and
//! adjudicated draws) is played on from the adjudication point to its real end, with the same
//! player and budget and adjudication off, and the report says how often the adjudicated
//! result was wrong, with a 95% interval.

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

use kage_data::stats::{Share, wilson};
use kage_data::{GameRecord, Reader, Termination};
use kage_engine::{Game, Move, Position, Variant};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::Serialize;

use crate::arena::game::{self as arena, GameEnd, Seats, Start};
use crate::arena::player::Player;
use crate::arena::schedule::{self, Control, Event, Plan, StopMode, Work};
use crate::balance::group::{self, GroupInfo, GroupKey};
use crate::config::{Adjudication, GenConfig};
use crate::error::{Result, SelfplayError};
use crate::progress::LogLines;

/// How to audit.
#[derive(Clone, Copy, Debug)]
pub struct AuditOptions {
    /// Adjudicated games played on per group (all of them when fewer).
    pub sample: usize,
    /// Seed of the sample.
    pub seed: u64,
    /// Worker threads.
    pub threads: usize,
    /// A progress line on stderr this often (games played on, rate, ETA); `None`: quiet.
    pub progress_every: Option<std::time::Duration>,
}

/// One adjudicated game played on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Case {
    /// Config hash of its run (hex).
    pub run: String,
    /// Game index in its run.
    pub game_index: u64,
    /// `resign` or `adjudicated_draw`.
    pub adjudication: String,
    /// Plies played when it was adjudicated.
    pub adjudicated_at: usize,
    /// The adjudicated result (`1-0`, `0-1`, `1/2-1/2`).
    pub adjudicated_result: String,
    /// The result of playing on.
    pub real_result: String,
    /// How the game really ended (a rule, or `ply_limit`).
    pub real_end: String,
    /// Plies of the game played to its end.
    pub real_plies: usize,
    /// Whether the adjudicated result was wrong.
    pub wrong: bool,
}

/// Wrong adjudications out of those sampled, with a 95% Wilson interval.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ErrorRate {
    /// Sampled.
    pub sampled: u64,
    /// Wrong, as a share of the sampled ones.
    pub wrong: Share,
}

impl ErrorRate {
    fn of<'a>(cases: impl Iterator<Item = &'a Case>) -> Self {
        let (mut n, mut k) = (0, 0);
        for c in cases {
            n += 1;
            k += u64::from(c.wrong);
        }
        let (ci_low, ci_high) = wilson(k, n);
        let fraction = if n == 0 { 0.0 } else { k as f64 / n as f64 };
        ErrorRate { sampled: n, wrong: Share { count: k, fraction, ci_low, ci_high } }
    }
}

/// The audit of one group (variant and settings, as in the balance report).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GroupAudit {
    /// What made the games.
    pub info: GroupInfo,
    /// Games read.
    pub games: u64,
    /// Games that adjudication ended.
    pub adjudicated: u64,
    /// All sampled adjudications.
    pub all: ErrorRate,
    /// Resignations.
    pub resign: ErrorRate,
    /// Adjudicated draws.
    pub draw: ErrorRate,
    /// Sampled games whose play-on reached the ply cap (a draw by the cap, not by a rule).
    pub reached_ply_cap: u64,
    /// Every game played on.
    pub cases: Vec<Case>,
}

/// The audit report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AuditReport {
    /// Sample size asked per group, and its seed.
    pub sample: usize,
    /// Seed of the sample.
    pub seed: u64,
    /// Files or chunks that could not be read, skipped.
    pub problems: Vec<String>,
    /// The groups.
    pub groups: Vec<GroupAudit>,
}

struct Pending {
    info: GroupInfo,
    cfg: GenConfig,
    games: u64,
    found: u64,
    adjudicated: Vec<(u64, GameRecord)>,
}

/// Audits the games of `files` (see the module documentation). Files that are not game files
/// of a kage-selfplay run, or cannot be read, are listed as problems and skipped.
pub fn audit(files: &[PathBuf], opts: AuditOptions) -> Result<AuditReport> {
    let mut groups: BTreeMap<GroupKey, Pending> = BTreeMap::new();
    let mut problems = Vec::new();
    let mut seen: HashSet<(u64, u64)> = HashSet::new();
    for f in files {
        let mut r = match Reader::<GameRecord>::open(f) {
            Ok(r) => r,
            Err(e) => {
                problems.push(format!("{}: skipped: {e}", f.display()));
                continue;
            }
        };
        let cfg = match GenConfig::from_toml(r.header().config()).map(GenConfig::validated) {
            Ok(Ok(cfg)) => cfg,
            // The same checks as `generate`: settings it refuses are not replayed here.
            Ok(Err(e)) => {
                problems.push(format!("{}: skipped: {e}", f.display()));
                continue;
            }
            Err(_) => {
                problems.push(format!("{}: skipped: not a kage-selfplay run", f.display()));
                continue;
            }
        };
        let run = r.header().config_hash();
        let (key, info) = group::describe(r.header().variant(), r.header().config());
        let g = groups.entry(key).or_insert_with(|| Pending {
            info,
            cfg,
            games: 0,
            found: 0,
            adjudicated: Vec::new(),
        });
        loop {
            match r.next_chunk() {
                Ok(Some(chunk)) => {
                    for rec in chunk {
                        if !seen.insert((run, rec.game_index)) {
                            continue;
                        }
                        g.games += 1;
                        if matches!(
                            rec.termination,
                            Termination::Resign | Termination::AdjudicatedDraw
                        ) {
                            g.adjudicated.push((run, rec));
                        }
                    }
                }
                Ok(None) => break,
                Err(e) => {
                    problems.push(format!("{}: rest of the file skipped: {e}", f.display()));
                    break;
                }
            }
        }
        for d in r.damage() {
            problems.push(format!("{}: damaged data skipped: {d}", f.display()));
        }
    }
    let mut sampled: Vec<Pending> = Vec::new();
    for (_, mut g) in groups {
        g.adjudicated.sort_by_key(|(run, rec)| (*run, rec.game_index));
        let found = g.adjudicated.len() as u64;
        g.adjudicated.shuffle(&mut Xoshiro256PlusPlus::seed_from_u64(opts.seed));
        g.adjudicated.truncate(opts.sample);
        g.found = found;
        sampled.push(g);
    }
    let total: u64 = sampled.iter().map(|g| g.adjudicated.len() as u64).sum();
    let mut progress = opts.progress_every.map(|every| LogLines::new(every, 0, total));
    let mut done = 0u64;
    let mut out = Vec::new();
    for g in sampled {
        let found = g.found;
        let setup = g.cfg.variant_def().and_then(|v| Ok((v, crate::player::factory_for(&g.cfg)?)));
        let (variant, factory) = match setup {
            Ok(x) => x,
            Err(e) => {
                problems.push(format!("{}: {}: not audited: {e}", g.info.variant, g.info.label));
                continue;
            }
        };
        let cfg = &g.cfg;
        let threads = opts.threads.clamp(1, g.adjudicated.len().max(1));
        let players = (0..threads).map(|_| factory()).collect::<Result<Vec<_>>>()?;
        let never = AtomicBool::new(false);
        let plan = Plan {
            slots: g.adjudicated.len(),
            group: &|i| i as u64,
            stop: &never,
            mode: StopMode::FinishGroups,
            name: "audit",
        };
        let work = |p: &mut Box<dyn Player>, i: usize, _: &AtomicBool| {
            let (run, rec) = &g.adjudicated[i];
            match play_on(cfg, variant, p.as_mut(), *run, rec) {
                Ok(c) => Work::Done(c),
                Err(e) => Work::Fail(e),
            }
        };
        let restart = |_: &mut Box<dyn Player>, e: &SelfplayError| {
            Err(SelfplayError::NoRestart(e.to_string()))
        };
        let (mut cases, mut failed) = (Vec::new(), None);
        schedule::run(&plan, players, &work, &restart, &mut |ev| match ev {
            Event::Done(_, case) => {
                cases.push(case);
                done += 1;
                if let Some(lines) = progress.as_mut()
                    && (lines.due() || done == total)
                {
                    eprintln!("audit: {}", lines.status(done, "games"));
                }
                Control::Go
            }
            Event::Fault(_, e) | Event::Failed(e) => {
                failed.get_or_insert(e);
                Control::Halt
            }
        });
        if let Some(e) = failed {
            return Err(e);
        }
        cases.sort_by(|a, b| (&a.run, a.game_index).cmp(&(&b.run, b.game_index)));
        let reached_ply_cap = cases.iter().filter(|c| c.real_end == "ply_limit").count() as u64;
        out.push(GroupAudit {
            info: g.info,
            games: g.games,
            adjudicated: found,
            all: ErrorRate::of(cases.iter()),
            resign: ErrorRate::of(cases.iter().filter(|c| c.adjudication == "resign")),
            draw: ErrorRate::of(cases.iter().filter(|c| c.adjudication != "resign")),
            reached_ply_cap,
            cases,
        });
    }
    // The balance report's order: variant, player, net, budget.
    out.sort_by_key(|g| {
        let i = &g.info;
        (i.variant.clone(), i.player.clone(), i.net.clone(), i.nodes.unwrap_or(u64::MAX))
    });
    Ok(AuditReport { sample: opts.sample, seed: opts.seed, problems, groups: out })
}

/// Replays `rec` and plays it on with `player` until a rule ends it or the config's ply cap.
pub fn play_on(
    cfg: &GenConfig,
    variant: &'static Variant,
    player: &mut dyn Player,
    run: u64,
    rec: &GameRecord,
) -> Result<Case> {
    let bad = |reason: String| SelfplayError::BadGame { game: rec.game_index, reason };
    let start = Position::from_fen(variant, &rec.start_fen)
        .map_err(|e| bad(format!("start position: {e}")))?;
    let mut game = Game::new(start.clone());
    for &m in &rec.moves {
        if !game.position().is_legal(Move(m)) {
            return Err(bad(format!("illegal move {m} in {}", game.position().to_fen())));
        }
        game.play(Move(m));
    }
    // Jittered runs play on with jittered budgets too, from a stream of their own.
    let mut rng = crate::play::game_rng(cfg.seed ^ 0x6175_6469_7421, &cfg.variant, rec.game_index);
    // The config's budget and ply cap, adjudication off, no random plies, no positions.
    let mut rules = crate::play::rules(cfg);
    rules.adjudication = Adjudication { resign_plies: 0, draw_plies: 0, ..cfg.adjudication };
    rules.openings = None;
    rules.positions = false;
    let book: Vec<Move> = game.moves().to_vec();
    let at = Start { variant: &cfg.variant, position: &start, book: &book, index: rec.game_index };
    let p = match arena::play(Seats::One(player), &at, &rules, &mut rng, None)? {
        GameEnd::Done(p) => p,
        GameEnd::Fault { error, .. } => return Err(bad(format!("player failed: {error}"))),
        GameEnd::Aborted => return Err(SelfplayError::Interrupted),
    };
    if let Some(i) = &p.illegal {
        return Err(bad(format!("player returned an illegal move {:?} in {}", i.text, i.fen)));
    }
    let (result, end) = (p.record.result, p.record.termination);
    Ok(Case {
        run: format!("{run:016x}"),
        game_index: rec.game_index,
        adjudication: rec.termination.name().to_owned(),
        adjudicated_at: rec.moves.len(),
        adjudicated_result: rec.result.pgn().to_owned(),
        real_result: result.pgn().to_owned(),
        real_end: end.name().to_owned(),
        real_plies: p.record.moves.len(),
        wrong: result != rec.result,
    })
}

/// The audit as text.
pub fn text(r: &AuditReport) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let pct = |x: f64| format!("{:.1}%", 100.0 * x);
    for g in &r.groups {
        let _ = writeln!(s, "{}: {}", g.info.variant, g.info.label);
        let _ = writeln!(
            s,
            "  {} games, {} adjudicated, {} sampled (seed {})",
            g.games, g.adjudicated, g.all.sampled, r.seed
        );
        for (name, e) in [("all", &g.all), ("resign", &g.resign), ("draws", &g.draw)] {
            let w = &e.wrong;
            let _ = writeln!(
                s,
                "  {name:<7} {:>5} sampled, {:>4} wrong: {} (95% {} - {})",
                e.sampled,
                w.count,
                pct(w.fraction),
                pct(w.ci_low),
                pct(w.ci_high)
            );
        }
        if g.reached_ply_cap > 0 {
            let _ =
                writeln!(s, "  {} played on to the ply cap (a draw by the cap)", g.reached_ply_cap);
        }
        for c in g.cases.iter().filter(|c| c.wrong) {
            let _ = writeln!(
                s,
                "  wrong: run {} game {}: {} {} at ply {}, really {} by {} at ply {}",
                c.run,
                c.game_index,
                c.adjudication,
                c.adjudicated_result,
                c.adjudicated_at,
                c.real_result,
                c.real_end,
                c.real_plies
            );
        }
    }
    s
}
