//! `kage-selfplay results`: committed match results as a Markdown table; with `--check` or
//! `--write`, a document's marked block compared with it or rewritten.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use kage_selfplay::matches::results;

#[derive(Args)]
pub struct ResultsArgs {
    /// The results folder: one folder per match holding its summary.json and match.json
    /// (copied from its match directory) and optionally about.toml (`label = "..."`).
    pub dir: PathBuf,
    /// Fail (one line, exit 1) when FILE's block `<!-- results:DIR begin -->` ...
    /// `<!-- results:DIR end -->` does not hold the table (DIR as given here).
    #[arg(long, value_name = "FILE", conflicts_with = "write")]
    pub check: Option<PathBuf>,
    /// Replace that block of FILE with the table (an atomic write).
    #[arg(long, value_name = "FILE")]
    pub write: Option<PathBuf>,
}

/// Prints the table, or checks or rewrites a document's block.
pub fn run(args: &ResultsArgs) -> Result<ExitCode> {
    let table = results::table(&results::read_dir(&args.dir)?);
    let key = results::block_key(&args.dir);
    if let Some(doc) = &args.check {
        let cap = kage_engine::util::read::cap::TEXT;
        let text = kage_engine::util::read::read_text_capped(doc, cap, "document")?;
        results::check(doc, &text, &key, &table)?;
        eprintln!("{}: results:{key} is up to date", doc.display());
    } else if let Some(doc) = &args.write {
        let what = if results::write(doc, &key, &table)? { "rewritten" } else { "up to date" };
        eprintln!("{}: results:{key} {what}", doc.display());
    } else {
        print!("{table}");
    }
    Ok(ExitCode::SUCCESS)
}
