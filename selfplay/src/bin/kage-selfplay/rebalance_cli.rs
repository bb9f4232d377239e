//! `kage-selfplay rebalance`: options, the search's settings, and Slurm job scripts.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::Args;
use kage_engine::util::read::{cap, read_text_capped};
use kage_selfplay::config::Budget;
use kage_selfplay::rebalance::{self, FineTune, Outcome, Search, Settings};

use crate::cli::{GameArgs, StepProgressArgs};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum FineTuneArg {
    /// The base net as it is (where it fits the candidate), else the hand-crafted evaluation.
    None,
    /// A short loop per candidate: self-play with the base player, then kage-train.
    Short,
}

#[derive(Args)]
pub struct RebalanceArgs {
    #[arg(
        long,
        conflicts_with = "variant_file",
        required_unless_present = "variant_file",
        help = format!("Built-in base variant: {}", kage_engine::VariantId::names())
    )]
    pub base: Option<String>,
    /// Base variant as a spec file (TOML, as `kage --variant-file`).
    #[arg(long, value_name = "SPEC")]
    pub variant_file: Option<PathBuf>,
    /// The candidate changes (TOML; see README-selfplay.md, "Rebalance search").
    #[arg(long, value_name = "FILE")]
    pub candidates: PathBuf,
    /// Output directory (resumable: rerun the same command to continue).
    #[arg(long)]
    pub out: PathBuf,
    /// Round 0 games per candidate and level; round k plays twice as many as round k-1.
    #[arg(long, default_value_t = 32)]
    pub games: u64,
    /// Rounds of successive halving at most.
    #[arg(long, default_value_t = 4)]
    pub rounds: u32,
    /// Games of all rounds together at most (round 0 is always played).
    #[arg(long, value_name = "GAMES")]
    pub budget: Option<u64>,
    /// Strength levels: node budgets per move, weakest first (the last one ranks).
    #[arg(long, value_delimiter = ',', default_value = "1000,4000")]
    pub levels: Vec<u64>,
    /// Adjudicated games audited per candidate and level (0: none).
    #[arg(long, default_value_t = 20)]
    pub audit_sample: usize,
    /// The players' fine-tune on each candidate's own self-play.
    #[arg(long, value_enum, default_value_t = FineTuneArg::None)]
    pub fine_tune: FineTuneArg,
    /// Self-play games of a fine-tune.
    #[arg(long, default_value_t = 400)]
    pub tune_games: u64,
    /// Training epochs of a fine-tune.
    #[arg(long, default_value_t = 10)]
    pub tune_epochs: u32,
    /// The kage-train program (default: next to this program).
    #[arg(long, value_name = "PATH")]
    pub kage_train: Option<PathBuf>,
    /// Games per batch file of every self-play step.
    #[arg(long, default_value_t = 8)]
    pub batch_size: u64,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Runs only this pending step (an id of state.json's `pending`; what batch jobs run).
    #[arg(long, value_name = "ID")]
    pub step: Option<String>,
    /// Stops after this many steps (rerun to continue).
    #[arg(long, value_name = "N")]
    pub max_steps: Option<usize>,
    /// Writes a Slurm job array of the steps pending now to FILE (nothing is submitted).
    #[arg(long, value_name = "FILE")]
    pub emit_slurm: Option<PathBuf>,
    #[command(flatten)]
    pub progress: StepProgressArgs,
    #[command(flatten)]
    pub game: GameArgs,
}

impl RebalanceArgs {
    fn search(&self) -> Result<Search> {
        if self.game.nodes.is_some() || self.game.depth.is_some() {
            bail!("rebalance plays at --levels (node budgets); --nodes and --depth do not apply");
        }
        if self.levels.is_empty() || self.levels.contains(&0) {
            bail!("--levels needs one or more node budgets of at least 1");
        }
        if self.rounds == 0 {
            bail!("--rounds must be at least 1");
        }
        if self.games == 0
            || self.games.checked_shl(self.rounds).is_none_or(|g| g >> self.rounds != self.games)
        {
            bail!("--games {} cannot be doubled {} times", self.games, self.rounds);
        }
        let (base, spec) = self.base_spec()?;
        let user = self.variant_file.is_some().then_some(spec.as_str());
        let mut template = self.game.config_for(&base, self.games, self.batch_size, user)?;
        let base_net = template.net.take();
        let candidates = rebalance::candidates::read(&self.candidates)?;
        let fine_tune = match self.fine_tune {
            FineTuneArg::None => FineTune::None,
            FineTuneArg::Short => {
                kage_selfplay::config::check_games(self.tune_games)?;
                FineTune::Short { games: self.tune_games, epochs: self.tune_epochs.max(1) }
            }
        };
        let settings = Settings {
            tool: kage_selfplay::run::created_by(),
            base,
            base_spec: spec,
            candidates: candidates.iter().map(|c| (c.name.clone(), c.describe())).collect(),
            template,
            levels: self.levels.iter().map(|&n| Budget::Nodes(n)).collect(),
            games: self.games,
            rounds: self.rounds,
            budget_games: self.budget,
            audit_sample: self.audit_sample,
            fine_tune,
            base_net,
        };
        Ok(Search { settings, candidates, out: self.out.clone(), kage_train: self.kage_train() })
    }

    fn base_spec(&self) -> Result<(String, String)> {
        if let Some(path) = &self.variant_file {
            let text = read_text_capped(path, cap::TEXT, "variant spec")
                .with_context(|| format!("reading variant file {}", path.display()))?;
            let ini = kage_engine::variant::FileFormat::FsfIni;
            if kage_engine::variant::file_format(path, &text) == ini {
                match crate::cli::ini_variant(self.base.as_deref(), path)? {
                    Some(base) => return Ok(base),
                    None => return self.builtin_base(),
                }
            }
            let v = kage_data::variant::from_spec_cached(&text)
                .with_context(|| format!("variant file {}", path.display()))?;
            return Ok((v.name.clone(), text));
        }
        self.builtin_base()
    }

    /// The built-in base variant `--base` names, with its spec text.
    fn builtin_base(&self) -> Result<(String, String)> {
        let name = self.base.as_deref().unwrap_or_default();
        match rebalance::builtin_spec(name) {
            Some(t) => Ok((name.to_owned(), t.to_owned())),
            None => bail!(
                "unknown base variant {name:?} (expected one of {}, or --variant-file SPEC)",
                kage_engine::VariantId::names()
            ),
        }
    }

    fn kage_train(&self) -> Option<PathBuf> {
        self.kage_train.clone().or_else(|| {
            let exe = std::env::current_exe().ok()?;
            let p = exe.with_file_name(format!("kage-train{}", std::env::consts::EXE_SUFFIX));
            p.exists().then_some(p)
        })
    }
}

/// Runs `kage-selfplay rebalance`.
pub fn run(args: &RebalanceArgs) -> Result<ExitCode> {
    let search = args.search()?;
    let stop = crate::interrupt::install("finishing the work in flight")?;
    let ctl = args.progress.control(args.threads, args.max_steps, &stop)?;
    let out = args.out.display();
    if let Some(file) = &args.emit_slurm {
        let state = search.state()?;
        let script = slurm_script(&state.pending)?;
        crate::cli::write(file, &script)?;
        println!(
            "{}: a job array of {} pending step(s) ({out}/state.json)",
            file.display(),
            state.pending.len()
        );
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(id) = &args.step {
        return Ok(if search.run_one(id, &ctl)? {
            println!("{out}: step {id} done");
            ExitCode::SUCCESS
        } else {
            println!("{out}: step {id} interrupted; rerun the same command to resume");
            ExitCode::from(130)
        });
    }
    match search.run(&ctl)? {
        Outcome::Done(rep) => {
            print!("{}", rebalance::report::text(&rep));
            println!("report: {out}/report.txt, {out}/report.json, {out}/report.html");
            Ok(ExitCode::SUCCESS)
        }
        Outcome::Interrupted { pending } => Ok(crate::cli::stopped(&args.out, pending)),
    }
}

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// A Slurm job array running each pending step with this very command plus `--step ID`.
fn slurm_script(pending: &[String]) -> Result<String> {
    let exe = std::env::current_exe().context("finding this program")?;
    let mut args: Vec<String> = Vec::new();
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        if a == "--emit-slurm" || a == "--step" || a == "--max-steps" {
            it.next();
        } else if !(a.starts_with("--emit-slurm=")
            || a.starts_with("--step=")
            || a.starts_with("--max-steps="))
        {
            args.push(quote(&a));
        }
    }
    let cmd = format!("{} {}", quote(&exe.display().to_string()), args.join(" "));
    let mut s = String::from("#!/bin/bash\n#SBATCH --job-name=kage-rebalance\n#SBATCH --requeue\n");
    if pending.is_empty() {
        s.push_str("# kage-selfplay rebalance: nothing is pending; this job writes the report.\n");
        s.push_str(&format!("set -euo pipefail\nexec {cmd}\n"));
        return Ok(s);
    }
    s.push_str(&format!("#SBATCH --array=0-{}\n", pending.len() - 1));
    s.push_str(
        "# kage-selfplay rebalance: one task per step pending now (a preempted task resumes).\n\
         # When the array is done, emit the next jobs with the same command and --emit-slurm\n\
         # (the next round, then the audits); the command alone, once nothing is pending,\n\
         # writes the report. The local run runs the same steps in this order.\n\
         set -euo pipefail\nSTEPS=(\n",
    );
    for id in pending {
        s.push_str(&format!("  {}\n", quote(id)));
    }
    s.push_str(&format!(")\nexec {cmd} --step \"${{STEPS[$SLURM_ARRAY_TASK_ID]}}\"\n"));
    Ok(s)
}
