//! `kage check FILE`: a kage TOML spec's summary, or each section of a Fairy-Stockfish
//! `variants.ini` file: OK with its summary, or the key kage refuses.

use anyhow::{Context, Result, bail};
use kage_engine::variant::{FileFormat, SpecError, file_format, read_user_variants};
use kage_engine::{Position, Variant};
use std::path::Path;

pub fn run(file: &Path, only: Option<&str>) -> Result<()> {
    let context = || format!("variant file {}", file.display());
    let text = kage_engine::variant::read_spec(file).with_context(context)?;
    if file_format(file, &text) == FileFormat::KageToml {
        let v = Variant::from_spec_file(file).with_context(context)?;
        println!("ok: {}", summary(v).with_context(context)?);
        return Ok(());
    }
    let sections = read_user_variants(file).with_context(context)?;
    let chosen: Vec<_> =
        sections.into_iter().filter(|(n, _)| only.is_none_or(|o| o == n)).collect();
    if let (Some(o), true) = (only, chosen.is_empty()) {
        bail!("{}: no section [{o}]", context());
    }
    let total = chosen.len();
    let mut playable = 0;
    for (name, v) in chosen {
        match v.map_err(anyhow::Error::from).and_then(|u| summary(u.variant)) {
            Ok(s) => {
                playable += 1;
                println!("OK {name}: {s}");
            }
            Err(e) => println!("REFUSED {name}: {}{e}", refusing_key(&e)),
        }
    }
    println!("{playable} of {total} sections playable by kage");
    if only.is_some() && playable == 0 {
        bail!("{}: section [{}] is refused", context(), only.unwrap_or_default());
    }
    Ok(())
}

/// `key K: ` for an error about one FSF key.
fn refusing_key(e: &anyhow::Error) -> String {
    match e.downcast_ref::<SpecError>() {
        Some(SpecError::FsfIni(f)) => f.key().map(|k| format!("key {k}: ")).unwrap_or_default(),
        _ => String::new(),
    }
}

fn summary(v: &'static Variant) -> Result<String> {
    let start = Position::from_fen(v, &v.start_fen).context("start_fen")?;
    let kinds: Vec<String> = v.kinds.iter().map(|k| k.symbol()).collect();
    Ok(format!(
        "{} ({}x{}), pieces {}, {} legal moves from the start",
        v.name,
        v.width,
        v.height,
        kinds.join(" "),
        start.count_legal()
    ))
}
