//! `kage-data fit-wdl`: fits the engine's WDL model ([`kage_data::wdl`]) to position files and
//! writes it as the TOML the engine reads (`engine/src/eval/wdl.rs`), with the data's identity.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use kage_data::wdl::{Bucketing, WdlCounts};
use kage_data::{GIT_REVISION, PositionRecord, RecordKind};
use kage_engine::eval::wdl::WdlModel;

use crate::common::{check_damage, check_output, distinct_inputs, headers, open, variant_of};

/// Buckets with fewer positions are not fitted.
const MIN_BUCKET: u64 = 2000;

/// What the data was made with: the hand-crafted evaluation, or a net (a kage net's run id,
/// a Fairy-Stockfish-format net's file name by content).
pub enum Fitted {
    /// `--hce`.
    Hce,
    /// `--net FILE`.
    Net(PathBuf),
}

/// Fits, prints the parameter file and writes it to `out` when given.
pub fn run(
    files: &[PathBuf],
    by: Option<Bucketing>,
    what: &Fitted,
    out: Option<&Path>,
    allow_damaged: bool,
) -> Result<ExitCode> {
    distinct_inputs(files)?;
    if let Some(o) = out {
        check_output(o, files)?;
    }
    let variant = common_variant(files)?;
    let identity = match what {
        Fitted::Hce => "evaluator = \"hce\"\n".to_owned(),
        Fitted::Net(p) => net_identity(p, &variant, files)?,
    };
    let (all, buckets) = count(files, by, allow_damaged)?;
    let model = all.fit().context("fit-wdl")?;
    let mut text = header(&variant, &identity, &model, &all);
    sources(&mut text, files)?;
    if let Some(b) = by {
        bucket_fits(&mut text, b, &buckets);
    }
    print!("{text}");
    if let Some(o) = out {
        kage_data::atomic::write_atomic(o, text.as_bytes())
            .with_context(|| format!("cannot write {}", o.display()))?;
        eprintln!("kage-data: wrote {}", o.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// The one variant of position files.
fn common_variant(files: &[PathBuf]) -> Result<String> {
    let hs = headers(files)?;
    for (h, f) in hs.iter().zip(files) {
        if h.kind() != RecordKind::Position {
            bail!("{} holds {} records; fit-wdl needs position files", f.display(), h.kind());
        }
        if h.variant() != hs[0].variant() {
            bail!(
                "{} is for variant {:?}, {} for {:?}",
                f.display(),
                h.variant(),
                files[0].display(),
                hs[0].variant()
            );
        }
    }
    Ok(hs[0].variant().to_owned())
}

/// `evaluator = "net"` and the net's run id, checked to be a net of `variant`; for a
/// Fairy-Stockfish-format net (no run id), `evaluator = "fsf-net"` and its file name by content
/// (`<variant>-<12 hex digits of sha256>.nnue`), checked to load for the data's variant.
fn net_identity(path: &Path, variant: &str, files: &[PathBuf]) -> Result<String> {
    use kage_engine::nnue::fsf;
    let bytes = kage_engine::nnue::read_file(path)
        .with_context(|| format!("cannot read net {}", path.display()))?;
    if fsf::is_fsf_net(&bytes) {
        let v = variant_of(&headers(&files[..1])?[0])?;
        fsf::FsfNetwork::load(&bytes, v)
            .with_context(|| format!("{} is not a net for the data's {variant}", path.display()))?;
        let name = fsf::net_file_name(variant, &bytes);
        return Ok(format!("evaluator = \"fsf-net\"\nnet_file = {name:?}\n"));
    }
    let net = kage_engine::nnue::Network::load(&bytes)
        .with_context(|| format!("{} is not a kage net", path.display()))?;
    let h = net.header();
    if h.variant != variant {
        bail!("{} is a net for {}, the data is {variant}", path.display(), h.variant);
    }
    Ok(format!("evaluator = \"net\"\nnet_run_id = {:?}\n", h.run_id))
}

type Buckets = BTreeMap<u32, WdlCounts>;

fn count(
    files: &[PathBuf],
    by: Option<Bucketing>,
    allow_damaged: bool,
) -> Result<(WdlCounts, Buckets)> {
    let (mut all, mut buckets) = (WdlCounts::default(), Buckets::new());
    for f in files {
        let mut r = open::<PositionRecord>(f)?;
        while let Some(chunk) = r.next_chunk()? {
            for rec in &chunk {
                all.add_record(rec);
                if let Some(b) = by {
                    buckets.entry(b.bucket(rec)).or_default().add_record(rec);
                }
            }
        }
        check_damage(&r, allow_damaged)?;
    }
    Ok((all, buckets))
}

fn header(variant: &str, identity: &str, m: &WdlModel, all: &WdlCounts) -> String {
    let cmd: Vec<String> = std::env::args().collect();
    let [l, d, w] = all.totals();
    let mut t = String::new();
    t += "# The WDL model of one evaluator (engine/src/eval/wdl.rs: P(win) = 1/(1+exp((a-x)/b)),\n";
    t += "# x = score - offset from White's side; UCI cp = 100 x / unit). Made by:\n";
    let _ = writeln!(t, "#   {}", cmd.join(" "));
    let _ = writeln!(t, "variant = {variant:?}");
    t += identity;
    let _ = writeln!(t, "a = {:.3}\nb = {:.3}\noffset = {:.3}", m.a(), m.b(), m.offset());
    let _ = writeln!(t, "# derived: the internal value shown as +100 cp (expected score 0.75)");
    let _ = writeln!(t, "unit = {:.3}", m.unit());
    let _ = writeln!(t, "positions = {}\nmates_left_out = {}", all.positions(), all.mates());
    let _ = writeln!(t, "white_results = {{ win = {w}, draw = {d}, loss = {l} }}");
    let _ = writeln!(t, "log_loss = {:.6}", all.log_loss(m));
    let _ = writeln!(t, "git_revision = {GIT_REVISION:?}");
    t
}

/// One `[[source]]` per input: its name, config hash and the revision that wrote it.
fn sources(t: &mut String, files: &[PathBuf]) -> Result<()> {
    for (h, f) in headers(files)?.iter().zip(files) {
        let name = f.display().to_string();
        let _ = writeln!(
            t,
            "\n[[source]]\nfile = {name:?}\nconfig_hash = \"{:016x}\"\ngit_revision = {:?}",
            h.config_hash(),
            h.git_revision()
        );
    }
    Ok(())
}

/// One `[[bucket]]` per group with enough positions (information: the engine uses the global fit).
fn bucket_fits(t: &mut String, by: Bucketing, buckets: &Buckets) {
    for (k, c) in buckets.iter().filter(|(_, c)| c.positions() >= MIN_BUCKET) {
        match c.fit() {
            Ok(m) => {
                let _ = writeln!(
                    t,
                    "\n[[bucket]]\nby = {:?}\nfrom = {k}\npositions = {}\na = {:.3}\nb = {:.3}\noffset = {:.3}\nunit = {:.3}",
                    by.name(),
                    c.positions(),
                    m.a(),
                    m.b(),
                    m.offset(),
                    m.unit()
                );
            }
            Err(e) => eprintln!("kage-data: {} bucket {k}: {e}", by.name()),
        }
    }
}
