//! `kage-selfplay ladder`: options and their translation into a [`Ladder`].

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Result, bail};
use clap::Args;
use kage_selfplay::config::PlayerKind;
use kage_selfplay::ladder::{self, Ladder, Outcome, Rung, Settings};
use kage_selfplay::matches::Order;

use crate::cli::{EvalChoice, GameArgs, StepProgressArgs, VariantArgs};

#[derive(Args)]
pub struct LadderArgs {
    #[command(flatten)]
    pub variant: VariantArgs,
    /// A player, weakest first (repeatable, two at least): `nodes=N[,net=FILE|,eval=hce]
    /// [,name=NAME]` (without net= or eval=hce: the variant's shipped network).
    #[arg(long = "rung", required = true, value_name = "SPEC")]
    pub rungs: Vec<String>,
    /// Self-play games per rung (the balance figure).
    #[arg(long, default_value_t = 200)]
    pub games: u64,
    /// Games of each match between adjacent rungs (whole pairs, sides swapped).
    #[arg(long, default_value_t = 200)]
    pub match_games: u64,
    /// Match openings from a book (`kage-selfplay book`) instead of the self-play openings
    /// (--opening-*, MultiPV within the margin).
    #[arg(long, value_name = "FILE")]
    pub openings: Option<PathBuf>,
    /// Adjudicated games audited per rung (0: none; only where adjudication is on).
    #[arg(long, default_value_t = 50)]
    pub audit_sample: usize,
    /// Output directory (resumable: rerun the same command to continue).
    #[arg(long)]
    pub out: PathBuf,
    /// Games per batch file of the self-play runs.
    #[arg(long, default_value_t = 8)]
    pub batch_size: u64,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Stops after this many steps (rerun to continue).
    #[arg(long, value_name = "N")]
    pub max_steps: Option<usize>,
    #[command(flatten)]
    pub progress: StepProgressArgs,
    #[command(flatten)]
    pub game: GameArgs,
}

impl LadderArgs {
    fn ladder(&self) -> Result<Ladder> {
        let g = &self.game;
        if g.nodes.is_some() || g.depth.is_some() || !g.net.is_empty() || g.eval == EvalChoice::Hce
        {
            bail!("the rungs name the players: give nodes=, net= and eval=hce in each --rung");
        }
        if g.player != PlayerKind::Search {
            bail!("a ladder's players search (--player search)");
        }
        let (variant, spec) = self.variant.one("a ladder plays one variant")?;
        let mut template = g.config_for(&variant, self.games, self.batch_size, spec.as_deref())?;
        template.net = None;
        let rungs = self.rungs.iter().map(|r| Rung::parse(r)).collect::<Result<Vec<_>, _>>()?;
        let match_openings = crate::match_cli::match_openings(
            self.openings.as_deref(),
            Order::Random,
            template.openings,
            ladder::OPENING_NODES,
        )?;
        let settings = Settings {
            tool: kage_selfplay::run::created_by(),
            rungs,
            template,
            match_games: self.match_games,
            match_openings,
            audit_sample: self.audit_sample,
        }
        .validated()?;
        Ok(Ladder { settings, out: self.out.clone() })
    }
}

/// Runs `kage-selfplay ladder`.
pub fn run(args: &LadderArgs) -> Result<ExitCode> {
    let ladder = args.ladder()?;
    let stop = crate::interrupt::install("finishing the work in flight")?;
    let ctl = args.progress.control(args.threads, args.max_steps, &stop)?;
    let out = args.out.display();
    match ladder.run(&ctl)? {
        Outcome::Done(rep) => {
            print!("{}", ladder::report::text(&rep));
            println!(
                "report: {out}/report.txt, {out}/report.json, {out}/report.html, {out}/elo.svg"
            );
            Ok(ExitCode::SUCCESS)
        }
        Outcome::Interrupted { pending } => Ok(crate::cli::stopped(&args.out, pending)),
    }
}
