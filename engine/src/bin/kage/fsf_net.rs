//! `kage fsf-net`: Fairy-Stockfish-format nets (random, inspect, eval).

use anyhow::{Context, Result, bail};
use clap::Subcommand;
use kage_engine::eval::Evaluator;
use kage_engine::nnue::fsf::{self, FsfLayout, FsfNet, FsfNetwork};
use kage_engine::protocol::rules;
use kage_engine::util::read::{cap, read_capped};
use kage_engine::{Variant, VariantId};
use std::path::{Path, PathBuf};

#[derive(Subcommand)]
pub enum FsfNetCommand {
    /// Write the seeded random net of a variant into DIR (named `<variant>-<sha256>.nnue`,
    /// as FSF requires) and print its path.
    Random {
        #[arg(long, help = format!("{}, or the name in --variant-file", VariantId::names()))]
        variant: Option<String>,
        /// The seed (the same seed gives the same net on every build).
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// The directory to write into (created if missing).
        #[arg(long)]
        out: PathBuf,
    },
    /// Check a net (version, hashes, exact size for the variant) and summarise it.
    Inspect {
        file: PathBuf,
        /// The variant (default: --variant-file's, else the built-in variant the size fits).
        #[arg(long)]
        variant: Option<String>,
    },
    /// FSF's `eval` output for the NNUE parts: the "NNUE network contributions" table and
    /// the "NNUE evaluation" line, computed by kage's reference evaluator.
    Eval {
        file: PathBuf,
        /// The variant (default: --variant-file's, else the built-in variant the size fits).
        #[arg(long)]
        variant: Option<String>,
        /// The position (default: the start position).
        #[arg(long)]
        fen: Option<String>,
        /// Moves in UCI notation, played from the FEN.
        #[arg(long, num_args = 0..)]
        moves: Vec<String>,
    },
}

impl FsfNetCommand {
    /// The variant the command names (`--variant`).
    pub fn variant_name(&self) -> Option<&str> {
        match self {
            FsfNetCommand::Random { variant, .. }
            | FsfNetCommand::Inspect { variant, .. }
            | FsfNetCommand::Eval { variant, .. } => variant.as_deref(),
        }
    }
}

/// The variant named, else the custom one, else the built-in variant `bytes` fit by size.
fn variant_for(
    name: Option<&str>,
    custom: Option<&'static Variant>,
    bytes: &[u8],
) -> Result<&'static Variant> {
    if name.is_some() || custom.is_some() {
        return Ok(Variant::resolve(name, custom, VariantId::SHINOBIPLUS)?);
    }
    match fsf::guess_variant(bytes)? {
        Some(id) => Ok(Variant::builtin(id)),
        None => bail!("the net's size fits no built-in variant; name one with --variant"),
    }
}

fn load(
    file: &Path,
    name: Option<&str>,
    custom: Option<&'static Variant>,
) -> Result<(Vec<u8>, &'static Variant, FsfLayout, FsfNet)> {
    let bytes = read_capped(file, cap::NET, "network file")?;
    let v = variant_for(name, custom, &bytes)?;
    let layout = FsfLayout::for_variant(v)?;
    let net = FsfNet::from_bytes(&bytes, &layout).with_context(|| file.display().to_string())?;
    Ok((bytes, v, layout, net))
}

pub fn run(cmd: FsfNetCommand, custom: Option<&'static Variant>) -> Result<()> {
    match cmd {
        FsfNetCommand::Random { variant, seed, out } => {
            let v = Variant::resolve(variant.as_deref(), custom, VariantId::SHINOBIPLUS)?;
            let layout = FsfLayout::for_variant(v)?;
            let path = fsf::write_net(&out, &layout, &fsf::random_net(&layout, seed))?;
            println!("{}", path.display());
        }
        FsfNetCommand::Inspect { file, variant } => {
            let (bytes, v, layout, net) = load(&file, variant.as_deref(), custom)?;
            let start = kage_engine::Position::startpos(v);
            print!("{}", fsf::report::inspect(&net, &bytes, &layout, &start));
        }
        FsfNetCommand::Eval { file, variant, fen, moves } => {
            let (_, v, layout, net) = load(&file, variant.as_deref(), custom)?;
            let game = rules::game_from(v, fen.as_deref(), &moves)?;
            print!("{}", fsf::report::eval_text(&net, &layout, game.position()));
        }
    }
    Ok(())
}

/// The evaluator `kage bench --net` runs for an FSF-format net: for `only`, else for the
/// built-in variant its size fits.
pub fn bench_evaluator(bytes: &[u8], only: Option<&str>) -> Result<Evaluator> {
    let v = match only {
        Some(name) => Variant::by_name(name)?,
        None => variant_for(None, None, bytes)?,
    };
    Ok(Evaluator::Fsf(std::sync::Arc::new(FsfNetwork::load(bytes, v)?)))
}
