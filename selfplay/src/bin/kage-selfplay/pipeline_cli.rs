//! `kage-selfplay pipeline`: a net recipe's job graph, run locally or as Slurm jobs.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use kage_selfplay::pipeline::slurm::{self, SlurmOptions};
use kage_selfplay::pipeline::{
    Action, MatchSummary, Options, Outcome, Plan, Recipe, Run, StepResult, decide, plan, reproduce,
};

#[derive(Args)]
pub struct PipelineArgs {
    #[command(subcommand)]
    pub cmd: PipelineCmd,
}

/// Where the binaries are and how many threads they use.
#[derive(Args, Clone)]
pub struct ExecArgs {
    /// Directory of kage-selfplay, kage-data and kage-train (default: this program's).
    #[arg(long, value_name = "DIR")]
    pub bin_dir: Option<PathBuf>,
    /// Threads per tool (default: all cores; the outputs do not depend on it).
    #[arg(long)]
    pub threads: Option<usize>,
    /// No progress lines.
    #[arg(long)]
    pub quiet: bool,
}

#[derive(Subcommand)]
pub enum PipelineCmd {
    /// Prints a recipe's job graph: each step's name, id, predecessors, seed and condition.
    Plan {
        /// The recipe (TOML).
        recipe: PathBuf,
    },
    /// Runs a recipe into a run directory, every step in order (resumable: rerun it).
    Run {
        /// The recipe (TOML).
        recipe: PathBuf,
        /// The run directory.
        #[arg(long)]
        out: PathBuf,
        /// Stops after this many steps have run (rerun to continue).
        #[arg(long, value_name = "N")]
        max_steps: Option<usize>,
        #[command(flatten)]
        exec: ExecArgs,
    },
    /// Runs one step of a run directory (what each Slurm job does).
    Step {
        /// The step's name (`gen-1/selfplay`).
        name: String,
        /// The run directory.
        #[arg(long)]
        out: PathBuf,
        /// Only this shard of a sharded self-play step.
        #[arg(long)]
        shard: Option<u32>,
        #[command(flatten)]
        exec: ExecArgs,
    },
    /// Writes a Slurm batch job per unfinished step into OUT/slurm/ and, with --submit,
    /// submits them with their dependencies (submit again after a failure: what finished
    /// is not run again).
    Slurm {
        /// The recipe (TOML).
        recipe: PathBuf,
        /// The run directory (on a file system the nodes share).
        #[arg(long)]
        out: PathBuf,
        /// Submit with sbatch (without it: only the scripts).
        #[arg(long)]
        submit: bool,
        /// The sbatch program.
        #[arg(long, default_value = "sbatch")]
        sbatch: String,
        /// More sbatch options for every job (repeatable: --sbatch-arg=--partition=cpu).
        #[arg(long = "sbatch-arg", value_name = "ARG", allow_hyphen_values = true)]
        sbatch_args: Vec<String>,
        #[command(flatten)]
        exec: ExecArgs,
    },
    /// Each step's state (done, skipped, waiting, runnable), its gate decision and the
    /// SHA-256 of its outputs; then the recipe's result.
    Status {
        /// The run directory.
        out: PathBuf,
    },
    /// Copies the result net (or --step's) to FILE and writes its lineage beside it, with
    /// the recipe: what `reproduce` reads.
    Install {
        /// The run directory.
        out: PathBuf,
        /// Where the net goes (`engine/nets/minishogi.nnue`).
        #[arg(long)]
        to: PathBuf,
        /// The net of this train step instead of the result (`gen-2/train`).
        #[arg(long)]
        step: Option<String>,
    },
    /// The gate decision on a match directory (the one rule of gates, polish, refinement,
    /// HCE tuning and installation): prints `accepted<TAB>why` or `rejected<TAB>why`; exit
    /// status 0 when accepted, 1 when rejected.
    Gate {
        /// A `kage-selfplay match` directory.
        dir: PathBuf,
    },
    /// Runs an installed net's recipe again from nothing and checks the net has the same hash.
    Reproduce {
        /// The lineage beside the net (`engine/nets/minishogi.lineage.toml`).
        lineage: PathBuf,
        /// A new run directory.
        #[arg(long)]
        out: PathBuf,
        #[command(flatten)]
        exec: ExecArgs,
    },
}

fn options(e: &ExecArgs) -> Result<Options> {
    let bin_dir = match &e.bin_dir {
        Some(d) => d.clone(),
        None => std::env::current_exe()
            .context("finding this program")?
            .parent()
            .map(Path::to_path_buf)
            .context("this program has no directory")?,
    };
    let bin_dir = bin_dir
        .canonicalize()
        .with_context(|| format!("binary directory {}", bin_dir.display()))?;
    Ok(Options { bin_dir, threads: crate::cli::threads(e.threads), quiet: e.quiet })
}

fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))
}

pub fn run(args: &PipelineArgs) -> Result<ExitCode> {
    match &args.cmd {
        PipelineCmd::Plan { recipe } => print_plan(recipe),
        PipelineCmd::Run { recipe, out, max_steps, exec } => {
            let run = Run::create(out, &read(recipe)?)?;
            let ran = run.run_all(&options(exec)?, *max_steps)?;
            let state = run.state()?;
            let left = run
                .plan()
                .steps
                .iter()
                .filter(|s| !matches!(state.action(s), Action::Finished(_)))
                .count();
            match left {
                0 => println!("pipeline: {ran} step(s) run; finished: {}", result_line(&run)?),
                n => println!("pipeline: {ran} step(s) run; {n} left: rerun to continue"),
            }
            Ok(ExitCode::SUCCESS)
        }
        PipelineCmd::Step { name, out, shard, exec } => {
            let run = Run::open(out)?;
            match run.run_step(name, &options(exec)?, *shard)? {
                StepResult::Already(_) => println!("pipeline: {name} had finished"),
                StepResult::Skipped(why) => println!("pipeline: {name} skipped: {why}"),
                StepResult::Ran { outcome: None, .. } => println!("pipeline: {name}: shard done"),
                StepResult::Ran { .. } => println!("pipeline: {name} done"),
            }
            Ok(ExitCode::SUCCESS)
        }
        PipelineCmd::Slurm { recipe, out, submit, sbatch, sbatch_args, exec } => {
            let run = Run::create(out, &read(recipe)?)?;
            let root = std::fs::canonicalize(out)?;
            let o = options(exec)?;
            let opts = SlurmOptions {
                bin_dir: o.bin_dir,
                root,
                threads: o.threads,
                sbatch_args: sbatch_args.clone(),
            };
            let jobs = slurm::submit(&run, &opts, submit.then_some(sbatch.as_str()))?;
            for (job, id) in &jobs {
                let after = if job.after.is_empty() {
                    String::new()
                } else {
                    format!(" after {}", job.after.join(", "))
                };
                let id = if id.is_empty() { "not submitted".into() } else { format!("job {id}") };
                println!("{}\t{id}\tslurm/{}{after}", job.step, job.file);
            }
            println!(
                "pipeline: {} job(s){}",
                jobs.len(),
                if *submit { " submitted" } else { " written" }
            );
            Ok(ExitCode::SUCCESS)
        }
        PipelineCmd::Status { out } => status(&Run::open(out)?),
        PipelineCmd::Install { out, to, step } => {
            let (lineage, hash) = Run::open(out)?.install(to, step.as_deref())?;
            println!("installed {} (sha256 {hash}); lineage {}", to.display(), lineage.display());
            Ok(ExitCode::SUCCESS)
        }
        PipelineCmd::Gate { dir } => {
            let d = decide(&MatchSummary::read(dir)?)?;
            println!("{}", d.gate_line());
            Ok(if d.accepted { ExitCode::SUCCESS } else { ExitCode::FAILURE })
        }
        PipelineCmd::Reproduce { lineage, out, exec } => {
            let hash = reproduce(lineage, out, &options(exec)?)?;
            println!("reproduced: the net has the lineage's sha256 {hash}");
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn print_plan(recipe: &Path) -> Result<ExitCode> {
    let r = Recipe::load(recipe)?;
    // The hashes of the files it names, read as `run` reads them.
    let files = kage_selfplay::pipeline::exec::input_hashes(&r)?;
    let p: Plan = plan(&r, &files)?;
    let mut out = std::io::stdout().lock();
    for s in &p.steps {
        let preds: Vec<&str> =
            s.predecessors.iter().filter_map(|id| p.step(*id)).map(|x| x.name.as_str()).collect();
        writeln!(
            out,
            "{}\t{}\tseed {}\tafter [{}]\twhen {:?}",
            s.name,
            s.id.short(),
            s.seed,
            preds.join(", "),
            s.when
        )?;
    }
    let result = p.step(p.result).map_or("?", |s| s.name.as_str());
    writeln!(out, "result: the best player after {result}")?;
    Ok(ExitCode::SUCCESS)
}

fn result_line(run: &Run) -> Result<String> {
    Ok(match run.result_net()? {
        Some(net) => format!(
            "the net {} (sha256 {})",
            net.strip_prefix(run.root()).unwrap_or(&net).display(),
            kage_selfplay::pipeline::exec::hash_file(&net)?
        ),
        None => "no net beat generation 0: the result is the start player".into(),
    })
}

fn status(run: &Run) -> Result<ExitCode> {
    let state = run.state()?;
    let mut out = std::io::stdout().lock();
    let mut done = true;
    for s in &run.plan().steps {
        let (what, reason) = match state.action(s) {
            Action::Finished(Outcome::Skipped) => {
                ("skipped".to_string(), run.outcome_file(s)?.map(|f| f.reason))
            }
            Action::Finished(Outcome::Done { accepted }) => {
                let w = match accepted {
                    Some(true) => "accepted",
                    Some(false) => "rejected",
                    None => "done",
                };
                (w.to_string(), run.outcome_file(s)?.map(|f| f.reason))
            }
            Action::Run | Action::Skip(_) => ("runnable".to_string(), None),
            Action::Wait(_) => ("waiting".to_string(), None),
        };
        done &= what != "runnable" && what != "waiting";
        let outputs: Vec<String> = run
            .lineage(s)?
            .map(|l| l.outputs.iter().map(|o| format!("{}={}", o.role, o.sha256.short())).collect())
            .unwrap_or_default();
        let reason =
            reason.filter(|r| !r.is_empty()).map(|r| format!(" ({r})")).unwrap_or_default();
        writeln!(out, "{}\t{what}{reason}\t{}", s.name, outputs.join(" "))?;
    }
    if done {
        writeln!(out, "result: {}", result_line(run)?)?;
    } else {
        writeln!(out, "result: not yet (steps left)")?;
    }
    Ok(ExitCode::SUCCESS)
}
