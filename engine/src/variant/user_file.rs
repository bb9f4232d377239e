//! The one loader of user variant files: kage's TOML specs and Fairy-Stockfish `variants.ini`
//! files (a `.ini` extension, or, for another extension, text that is not TOML and starts with a
//! `[section]` line). Every tool taking `--variant-file` reads it through here
//! ([`read_user_variant`], [`Variant::from_user_file`]).
//!
//! An FSF section is chosen by the variant name asked for (needed when the file defines several);
//! a section named like a built-in variant (`shinobi`, ...) is that built-in variant when it plays
//! the same game ([`rule_differences`] finds nothing: so the built-in's nets, evaluation
//! parameters and data files keep working), and is refused otherwise.

use super::fsf_ini::{FsfIniFile, rule_differences};
use super::{SpecError, Variant, VariantId, VariantSpec};
use std::path::Path;

/// A user variant file's variant.
#[derive(Debug, Clone)]
pub struct UserVariant {
    /// The compiled variant.
    pub variant: &'static Variant,
    /// The kage spec TOML it compiles from (translated, for an FSF section); `None` for a
    /// built-in variant (an FSF section playing a built-in's game).
    pub spec_text: Option<String>,
}

/// What a variant file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileFormat {
    /// A kage TOML spec.
    KageToml,
    /// A Fairy-Stockfish `variants.ini` file.
    FsfIni,
}

/// The format of the file at `path` with text `text`.
pub fn file_format(path: &Path, text: &str) -> FileFormat {
    match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
        Some("ini") => FileFormat::FsfIni,
        Some("toml") => FileFormat::KageToml,
        _ if toml::from_str::<toml::Table>(text).is_err() && first_line_is_section(text) => {
            FileFormat::FsfIni
        }
        _ => FileFormat::KageToml,
    }
}

fn first_line_is_section(text: &str) -> bool {
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with(';'))
        .is_some_and(|l| l.starts_with('['))
}

/// Reads the variant `name` (or the file's only variant) of a user variant file.
pub fn read_user_variant(path: &Path, name: Option<&str>) -> Result<UserVariant, SpecError> {
    let text = super::read_spec(path)?;
    match file_format(path, &text) {
        FileFormat::KageToml => {
            Ok(UserVariant { variant: Variant::from_user_spec_text(&text)?, spec_text: Some(text) })
        }
        FileFormat::FsfIni => {
            let file = FsfIniFile::parse(&text)?;
            let section = choose_section(&file, name)?;
            fsf_variant(&file, &section)
        }
    }
}

/// One variant of a file: its name, and the variant or why kage cannot play it.
pub type NamedVariant = (String, Result<UserVariant, SpecError>);

/// Every variant of a user variant file, in file order.
pub fn read_user_variants(path: &Path) -> Result<Vec<NamedVariant>, SpecError> {
    let text = super::read_spec(path)?;
    match file_format(path, &text) {
        FileFormat::KageToml => {
            let name = VariantSpec::parse(&text).map(|s| s.name).unwrap_or_default();
            Ok(vec![(name, read_user_variant(path, None))])
        }
        FileFormat::FsfIni => {
            let file = FsfIniFile::parse(&text)?;
            Ok(file.names().into_iter().map(|n| (n.clone(), fsf_variant(&file, &n))).collect())
        }
    }
}

/// The section `name` asks for: one of the file's, or an FSF built-in kage carries; without a
/// name, the file's only section.
fn choose_section(file: &FsfIniFile, name: Option<&str>) -> Result<String, SpecError> {
    let names = file.names();
    match name {
        Some(n)
            if names.iter().any(|s| s == n)
                || super::fsf_ini::builtin_names().iter().any(|s| s == n) =>
        {
            Ok(n.to_string())
        }
        Some(n) => Err(SpecError::NoSection { name: n.to_string(), sections: names.join(", ") }),
        None if names.len() == 1 => Ok(names[0].clone()),
        None => Err(SpecError::ChooseSection { count: names.len(), sections: names.join(", ") }),
    }
}

/// Section `name` of `file` as a variant: a built-in when it has a built-in's name and plays
/// its game.
fn fsf_variant(file: &FsfIniFile, name: &str) -> Result<UserVariant, SpecError> {
    let spec = file.spec(name)?;
    if let Some(id) = VariantId::from_name(&spec.name) {
        let builtin = VariantSpec::parse(id.spec_text())?;
        let diff = rule_differences(&spec, &builtin);
        if !diff.is_empty() {
            return Err(SpecError::BuiltinDiffers {
                name: spec.name,
                differences: diff.join("; "),
            });
        }
        return Ok(UserVariant { variant: Variant::builtin(id), spec_text: None });
    }
    Ok(UserVariant { variant: file.variant(name)?, spec_text: Some(file.spec_text(name)?) })
}
