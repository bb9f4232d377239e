//! `kage-selfplay`: generate self-play games and training positions, report balance,
//! benchmark.

mod book_cli;
mod cli;
mod interrupt;
mod ladder_cli;
mod match_cli;
mod pipeline_cli;
mod rebalance_cli;
mod results_cli;

use std::process::ExitCode;
use std::sync::atomic::Ordering;

use anyhow::{Context, Result, bail};
use clap::{CommandFactory, FromArgMatches};
use kage_selfplay::run::{RunStatus, generate};
use kage_selfplay::{RunOptions, balance, bench};

use cli::{Cli, Cmd};

fn main() -> ExitCode {
    let matches = Cli::command().get_matches();
    let mut cli = match Cli::from_arg_matches(&matches) {
        Ok(c) => c,
        Err(e) => e.exit(),
    };
    // `--engine` groups its values by occurrence: one engine each.
    let engines = |name: &str| -> Vec<Vec<String>> {
        matches
            .subcommand_matches(name)
            .and_then(|m| m.get_occurrences::<String>("engine"))
            .map(|occ| occ.map(|o| o.cloned().collect()).collect())
            .unwrap_or_default()
    };
    match &mut cli.cmd {
        Cmd::Match(args) => args.engines = engines("match"),
        Cmd::Book(args) => args.engines = engines("book"),
        _ => {}
    }
    let res = match cli.cmd {
        Cmd::Generate(args) => run_generate(&args),
        Cmd::Balance(args) => run_balance(&args),
        Cmd::Audit(args) => run_audit(&args),
        Cmd::Bench(args) => run_bench(&args),
        Cmd::Match(args) => run_match(&args),
        Cmd::Book(args) => book_cli::run(&args).map(|_| ExitCode::SUCCESS),
        Cmd::Rebalance(args) => rebalance_cli::run(&args),
        Cmd::Ladder(args) => ladder_cli::run(&args),
        Cmd::Pipeline(args) => pipeline_cli::run(&args),
        Cmd::Stats(args) => match_cli::run_stats(&args).map(|_| ExitCode::SUCCESS),
        Cmd::Results(args) => results_cli::run(&args),
        Cmd::Uci => run_uci().map(|_| ExitCode::SUCCESS),
    };
    kage_data::exit::exit_code("kage-selfplay", res)
}

fn run_generate(args: &cli::GenerateArgs) -> Result<ExitCode> {
    let shard = args.shard()?;
    let threads = cli::threads(args.threads);
    let stop = interrupt::install("finishing the batches in flight")?;
    for variant in args.variants()? {
        let cfg = args.config(&variant)?;
        let factory = cli::factory(&cfg)?;
        let opts = RunOptions {
            out: args.out.clone(),
            shard,
            threads,
            progress: !args.quiet,
            progress_every: cli::progress_every(args.progress_secs)?,
            stop: &stop,
            factory,
            allow_rebuild: args.allow_rebuild,
        };
        let report = generate(&cfg, &opts)
            .with_context(|| format!("self-play of {variant} into {}", args.out.display()))?;
        let dir = report.dir.display();
        for r in &report.repairs {
            eprintln!("{variant}: {dir}: {r}");
        }
        match report.status {
            RunStatus::Complete | RunStatus::AlreadyComplete => {
                let note = if report.status == RunStatus::AlreadyComplete {
                    " (already complete; nothing to do)"
                } else {
                    ""
                };
                let secs = report.wall.as_secs_f64().max(1e-9);
                println!("{variant}: {dir}{note}");
                print!("{}", report.stats.text());
                if report.games_played > 0 {
                    let outside = 1.0
                        - report.search_time.as_secs_f64()
                            / report.game_time.as_secs_f64().max(1e-9);
                    println!(
                        "  speed      {:.2} games/s, {:.0} positions/s on {threads} threads \
                         ({:.1}s, {:.1}% of game time outside search)",
                        report.games_played as f64 / secs,
                        report.positions_played as f64 / secs,
                        secs,
                        100.0 * outside
                    );
                }
            }
            RunStatus::Interrupted => {
                println!(
                    "{variant}: interrupted with {}/{} batches complete in {dir}; \
                     rerun the same command to resume",
                    report.batches_done, report.batches_total
                );
                return Ok(ExitCode::from(130));
            }
        }
        if stop.load(Ordering::SeqCst) {
            println!("interrupted between variants; rerun the same command to resume");
            return Ok(ExitCode::from(130));
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn run_balance(args: &cli::BalanceArgs) -> Result<ExitCode> {
    let (files, mut problems) = balance::game_files(&args.paths)?;
    let inputs: Vec<_> = files.iter().chain(&args.audit).cloned().collect();
    kage_selfplay::guard::check_reports(
        &[
            ("--svg", args.svg.as_deref()),
            ("--json", args.json.as_deref()),
            ("--html", args.html.as_deref()),
        ],
        &inputs,
    )?;
    let opts = balance::Options { opening_plies: args.opening_plies };
    let mut report = balance::collect(&files, opts);
    problems.append(&mut report.problems);
    report.problems = problems;
    for p in &report.problems {
        eprintln!("kage-selfplay: warning: {p}");
    }
    if report.groups.is_empty() {
        bail!("no games found under the given paths");
    }
    for a in &args.audit {
        let text = kage_engine::util::read::read_text_capped(
            a,
            kage_engine::util::read::cap::TEXT,
            "audit report",
        )?;
        let v: serde_json::Value =
            serde_json::from_str(&text).with_context(|| format!("reading {}", a.display()))?;
        let n = balance::attach_audits(&mut report, &v)
            .with_context(|| format!("reading {}", a.display()))?;
        if n == 0 {
            eprintln!("kage-selfplay: warning: {}: no group of these settings", a.display());
        }
    }
    print!("{}", balance::text::render(&report));
    if let Some(p) = &args.svg {
        cli::write(p, &balance::chart::score_chart(&report.groups))?;
        println!("chart: {}", p.display());
    }
    if let Some(p) = &args.json {
        cli::write_json(p, &report)?;
        println!("json: {}", p.display());
    }
    if let Some(p) = &args.html {
        cli::write(p, &balance::html::render(&report, &args.title))?;
        println!("html: {}", p.display());
    }
    Ok(ExitCode::SUCCESS)
}

fn run_audit(args: &cli::AuditArgs) -> Result<ExitCode> {
    let (files, problems) = balance::game_files(&args.paths)?;
    kage_selfplay::guard::check_reports(&[("--json", args.json.as_deref())], &files)?;
    let opts = kage_selfplay::audit::AuditOptions {
        sample: args.sample,
        seed: args.seed,
        threads: cli::threads(args.threads),
        progress_every: cli::progress_interval(args.quiet, args.progress_secs)?,
    };
    let mut report = kage_selfplay::audit::audit(&files, opts)?;
    report.problems.splice(0..0, problems);
    for p in &report.problems {
        eprintln!("kage-selfplay: warning: {p}");
    }
    if report.groups.is_empty() {
        bail!("no games of a kage-selfplay run found under the given paths");
    }
    print!("{}", kage_selfplay::audit::text(&report));
    if let Some(p) = &args.json {
        cli::write_json(p, &report)?;
        println!("json: {}", p.display());
    }
    Ok(ExitCode::SUCCESS)
}

fn run_bench(args: &cli::BenchArgs) -> Result<ExitCode> {
    kage_selfplay::guard::check_reports(&[("--json", args.json.as_deref())], &[])?;
    let mut rows = Vec::new();
    for variant in cli::variant_list(&args.variant)? {
        let cfg = args.config(&variant)?;
        let factory = cli::factory(&cfg)?;
        let r = bench::bench_variant(&cfg, &args.threads, &factory)
            .with_context(|| format!("benchmark of {variant}"))?;
        for row in &r {
            eprintln!(
                "{:>12} {} thread(s): {:.2} games/s, {:.0} positions/s ({:.0}/CPU-s), \
                 {:.2}% outside search",
                row.variant,
                row.threads,
                row.games_per_s,
                row.positions_per_s,
                row.positions_per_cpu_s,
                100.0 * row.overhead
            );
        }
        rows.extend(r);
    }
    print!("{}", bench::table(&rows));
    if let Some(p) = &args.json {
        cli::write_json(p, &rows)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn run_match(args: &match_cli::MatchArgs) -> Result<ExitCode> {
    use kage_selfplay::matches::{MatchStatus, run, stats};
    let mut cfg = args.config()?;
    // The command as typed (the program named `kage-selfplay`), for `summary.json`.
    cfg.command = std::iter::once("kage-selfplay".to_owned())
        .chain(std::env::args_os().skip(1).map(|a| a.to_string_lossy().into_owned()))
        .collect();
    let stop = interrupt::install("stopping the match after the current moves")?;
    let r = run(&cfg, &stop)?;
    println!("{} vs {} ({}), {}", r.engines[0], r.engines[1], r.variant, r.dir.display());
    let c = &r.counts;
    println!("W/D/L       {}, {}, {} (first engine)", c.wins, c.draws, c.losses);
    print!("{}", stats::report(&c.penta, cfg.sprt));
    match r.book_lines {
        Some(n) => {
            println!("Openings    {} distinct played (book of {n} lines)", r.distinct_openings)
        }
        None => println!("Openings    {} distinct played (random)", r.distinct_openings),
    }
    if r.faults + r.illegal_moves + r.time_forfeits > 0 {
        println!(
            "Faults      {} engine failures (replayed), {} illegal moves, {} time forfeits",
            r.faults, r.illegal_moves, r.time_forfeits
        );
    }
    println!(
        "Overhead    {:.2}% of worker time outside engine searches ({:.1}s thinking, {:.1}s wall)",
        100.0 * r.overhead,
        r.think_s,
        r.wall_s
    );
    Ok(match r.status {
        MatchStatus::Interrupted => {
            println!("interrupted; rerun the same command to resume");
            ExitCode::from(130)
        }
        _ => ExitCode::SUCCESS,
    })
}

/// kage's UCI loop on stdin/stdout (the hidden `uci` subcommand: an outside engine for tests
/// and benchmarks).
fn run_uci() -> Result<()> {
    let default = kage_engine::Variant::by_name("shinobiplus")?;
    Ok(kage_engine::protocol::uci::run_stdio(default, None)?)
}
