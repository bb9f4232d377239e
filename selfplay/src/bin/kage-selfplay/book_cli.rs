//! Arguments of `kage-selfplay book` and the command itself.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;
use clap::Args;
use kage_selfplay::OpeningMode;
use kage_selfplay::book::{self, BookConfig, JudgeLimit};
use kage_selfplay::config::Openings;

#[derive(Args)]
pub struct BookArgs {
    #[command(flatten)]
    pub variant: crate::cli::VariantArgs,
    /// Openings to write (all distinct positions).
    #[arg(long, default_value_t = 100)]
    pub count: u64,
    /// The EPD file to write (atomically).
    #[arg(long)]
    pub out: PathBuf,
    /// Plies from the start position.
    #[arg(long, default_value_t = 6)]
    pub plies: u32,
    /// Keep an opening only when every judge scores it within this many cp of its own score
    /// of the start position.
    #[arg(long, default_value_t = 60)]
    pub margin: i32,
    /// How plies are sampled: `multipv` (among the built-in search's MultiPV moves within
    /// --sample-margin of the best) or `uniform` (among all legal moves).
    #[arg(long, default_value = "multipv", hide_possible_values = true)]
    pub sample: OpeningMode,
    /// MultiPV width of the sampling search.
    #[arg(long, default_value_t = 4)]
    pub multipv: u32,
    /// Sampling: moves within this many cp of the best.
    #[arg(long, default_value_t = 80)]
    pub sample_margin: i32,
    /// Nodes of the sampling search.
    #[arg(long, default_value_t = 2000)]
    pub sample_nodes: u64,
    /// The judges' nodes per position (default 20000 unless --depth or --movetime is given).
    #[arg(long, group = "judge_limit")]
    pub nodes: Option<u64>,
    /// The judges' depth per position.
    #[arg(long, group = "judge_limit")]
    pub depth: Option<u32>,
    /// The judges' milliseconds per position (the book then depends on the machine's speed).
    #[arg(long, group = "judge_limit")]
    pub movetime: Option<u64>,
    /// A second judge (repeatable): an outside UCI engine `cmd=PROGRAM [arg=A]... [dir=DIR]
    /// [name=N] [option.NAME=VALUE]...` or `builtin [net=FILE] [eval=hce] ...`, as in
    /// `match --engine`; each is compared with its own score of the start position.
    #[arg(long = "engine", num_args = 1.., value_name = "KEY=VALUE")]
    pub engine: Vec<String>,
    /// The `--engine` values by occurrence (filled in from the argument matches).
    #[arg(skip)]
    pub engines: Vec<Vec<String>>,
    /// Hash of the built-in judge (MiB).
    #[arg(long, default_value_t = 16)]
    pub hash: usize,
    /// Seed of the sampling.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Candidates tried at most (default: 50 per opening asked, at least 1000).
    #[arg(long)]
    pub max_candidates: Option<u64>,
    /// Worker threads, each with its own judges (default: all cores; the book is the same).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Milliseconds beyond the asked time after which a judge counts as hanging.
    #[arg(long, default_value_t = 10_000)]
    pub hang_ms: u64,
    /// A progress line on stderr every S seconds.
    #[arg(long, default_value_t = 10.0)]
    pub progress_secs: f64,
    /// No progress lines.
    #[arg(long)]
    pub quiet: bool,
}

impl BookArgs {
    /// The book's settings.
    pub fn config(&self) -> Result<BookConfig> {
        let (variant, variant_spec) =
            self.variant.one("a book is for one variant: give --variant NAME")?;
        let limit = match (self.nodes, self.depth, self.movetime) {
            (_, Some(d), _) => JudgeLimit::Depth(d),
            (_, _, Some(ms)) => JudgeLimit::Movetime(ms),
            (n, ..) => JudgeLimit::Nodes(n.unwrap_or(20_000)),
        };
        let mut judges = vec![book::builtin_judge(self.hash)];
        for tokens in &self.engines {
            judges.push(crate::match_cli::engine_spec(tokens, 16)?);
        }
        let progress = crate::cli::progress_interval(self.quiet, self.progress_secs)?;
        let cfg = BookConfig {
            variant,
            variant_spec,
            count: self.count,
            plies: self.plies,
            margin_cp: self.margin,
            sampling: Openings {
                random_plies: self.plies,
                mode: self.sample,
                multipv: self.multipv,
                margin_cp: self.sample_margin,
            },
            sample_nodes: self.sample_nodes,
            limit,
            judges,
            seed: self.seed,
            max_candidates: self
                .max_candidates
                .unwrap_or_else(|| self.count.saturating_mul(50).max(1000)),
            threads: crate::cli::threads(self.threads),
            hang: Duration::from_millis(self.hang_ms),
            progress,
        };
        cfg.validate()?;
        Ok(cfg)
    }
}

/// `kage-selfplay book`.
pub fn run(args: &BookArgs) -> Result<()> {
    let cfg = args.config()?;
    let mut inputs: Vec<&std::path::Path> =
        args.variant.variant_file.iter().map(|p| p.as_path()).collect();
    let cmds: Vec<PathBuf> = cfg
        .judges
        .iter()
        .filter_map(|j| match &j.kind {
            kage_selfplay::matches::EngineKind::Uci(u) => Some(PathBuf::from(&u.cmd)),
            kage_selfplay::matches::EngineKind::Builtin { net, params, .. } => {
                net.clone().or_else(|| params.clone())
            }
        })
        .collect();
    inputs.extend(cmds.iter().map(|p| p.as_path()));
    kage_data::guard::refuse_overwrite(&[("--out", args.out.as_path())], &inputs)?;
    let out = book::make(&cfg)?;
    crate::cli::write(&args.out, &book::render(&out))?;
    let margin: u64 = out.rejected_margin.iter().sum();
    println!(
        "{}: {} openings of {} ({} plies, within {} cp), {} candidates: {} beyond the margin, \
         {} ended, {} repeated",
        args.out.display(),
        out.lines.len(),
        cfg.variant,
        cfg.plies,
        cfg.margin_cp,
        out.candidates,
        margin,
        out.rejected_ended,
        out.duplicates
    );
    for (j, r) in out.judges.iter().zip(&out.rejected_margin) {
        println!("  judge {}: start score {:+} cp, {r} rejected", j.name, j.start_score);
    }
    Ok(())
}
