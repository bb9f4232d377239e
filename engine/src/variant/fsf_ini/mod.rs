//! Fairy-Stockfish's `variants.ini` format read into kage variant specs.
//!
//! A file holds sections `[name]` or `[name:parent]`; a parent is an earlier section of the file
//! or one of the FSF built-in variants listed in `builtins` (chess, crazyhouse, minishogi,
//! gorogoro, judkins, euroshogi, ...). Each section's rules are FSF's defaults, then its
//! ancestors' keys, then its own (`rules`); they become kage spec TOML (`translate`), which
//! kage's [`VariantSpec::parse`] and [`Variant::compile`] check and compile like any spec.
//! Every rule kage can play is translated; any other key whose value is not FSF's default is an
//! [`FsfIniError::Unsupported`] naming the key and the section that set it.
//!
//! ```text
//! let file = FsfIniFile::parse(&std::fs::read_to_string("variants.ini")?)?;
//! let v = file.variant("shinobiplus")?;           // &'static Variant
//! let toml = file.spec_text("gorogoroplus")?;     // kage spec TOML
//! ```

mod betza;
mod builtins;
mod compare;
mod error;
mod ini;
mod keys;
mod pieces;
mod region;
mod rules;
#[cfg(test)]
mod tests;
mod translate;

pub use compare::rule_differences;
pub use error::FsfIniError;
pub use ini::{Entry, IniFile, MAX_FILE_BYTES, Section};

use crate::{Variant, VariantSpec};
use rules::Rules;

/// Deepest chain of parents followed.
const MAX_DEPTH: usize = 32;

/// A parsed `variants.ini` file.
#[derive(Debug, Clone)]
pub struct FsfIniFile {
    file: IniFile,
    builtins: IniFile,
}

impl FsfIniFile {
    /// Parses a file's text (syntax only: sections, and their parents, are resolved when asked
    /// for, so that one section with an unknown parent does not spoil the others).
    pub fn parse(text: &str) -> Result<FsfIniFile, FsfIniError> {
        let file = ini::parse(text)?;
        let builtins = ini::parse(builtins::BUILTINS_INI)?;
        Ok(FsfIniFile { file, builtins })
    }

    /// Reads and parses a file (at most [`MAX_FILE_BYTES`]).
    pub fn read(path: &std::path::Path) -> Result<FsfIniFile, FsfIniError> {
        use std::io::Read;
        let io = |e: std::io::Error| FsfIniError::Io(format!("{}: {e}", path.display()));
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .map_err(io)?
            .take(MAX_FILE_BYTES as u64 + 1)
            .read_to_end(&mut bytes)
            .map_err(io)?;
        if bytes.len() > MAX_FILE_BYTES {
            return Err(FsfIniError::Io(format!(
                "{}: larger than {MAX_FILE_BYTES} bytes",
                path.display()
            )));
        }
        let text = String::from_utf8(bytes)
            .map_err(|_| FsfIniError::Io(format!("{}: not UTF-8", path.display())))?;
        FsfIniFile::parse(&text)
    }

    /// The file's variants, in file order.
    pub fn names(&self) -> Vec<String> {
        self.file.sections.iter().map(|s| s.name.clone()).collect()
    }

    /// The parsed sections.
    pub fn ini(&self) -> &IniFile {
        &self.file
    }

    /// FSF's rules of `name`: a section of the file, else a built-in.
    fn rules(&self, name: &str) -> Result<Rules, FsfIniError> {
        let mut chain: Vec<&Section> = Vec::new();
        let mut next = Some((name.to_string(), usize::MAX));
        while let Some((n, before)) = next.take() {
            if chain.len() >= MAX_DEPTH {
                return Err(FsfIniError::Syntax {
                    line: chain[0].line,
                    why: "parents nested too deep".into(),
                });
            }
            let s = self
                .file
                .sections
                .iter()
                .find(|s| s.name == n && s.line < before)
                .or_else(|| self.builtins.section(&n))
                .ok_or_else(|| match chain.last() {
                    Some(child) => FsfIniError::UnknownParent {
                        section: child.name.clone(),
                        parent: n.clone(),
                        known: builtin_names().join(", "),
                    },
                    None => self.unknown(&n),
                })?;
            let from_file = self.file.sections.iter().any(|x| std::ptr::eq(x, s));
            next = s.parent.clone().map(|p| (p, if from_file { s.line } else { 0 }));
            if !from_file {
                // Built-ins only inherit from built-ins.
                next = next.map(|(p, _)| (p, 0));
            }
            chain.push(s);
        }
        let mut rules = Rules::fsf_default();
        for s in chain.iter().rev() {
            rules.apply(s)?;
        }
        Ok(rules)
    }

    fn unknown(&self, name: &str) -> FsfIniError {
        let mut known = self.names();
        known.extend(builtin_names());
        FsfIniError::UnknownVariant { name: name.to_string(), known: known.join(", ") }
    }

    /// kage spec TOML of variant `name`.
    pub fn spec_text(&self, name: &str) -> Result<String, FsfIniError> {
        let rules = self.rules(name)?;
        translate::spec_toml(name, &rules)
    }

    /// The kage spec of variant `name`, parsed.
    pub fn spec(&self, name: &str) -> Result<VariantSpec, FsfIniError> {
        let text = self.spec_text(name)?;
        VariantSpec::parse(&text)
            .map_err(|e| FsfIniError::Spec { section: name.into(), why: e.to_string() })
    }

    /// Variant `name` compiled, checked as any spec (start position, limits) and leaked, as
    /// [`Variant::from_spec_text`] does.
    pub fn variant(&self, name: &str) -> Result<&'static Variant, FsfIniError> {
        let text = self.spec_text(name)?;
        Variant::from_spec_text(&text)
            .map_err(|e| FsfIniError::Spec { section: name.into(), why: e.to_string() })
    }
}

/// The FSF built-in variants kage carries (parents, or variants asked for by name).
pub fn builtin_names() -> Vec<String> {
    builtins::names()
}
