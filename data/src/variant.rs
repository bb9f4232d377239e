//! The variant a data file is for, resolved once from its header: a built-in by name, or the
//! user variant whose spec text the generator config carries (`variant_spec`, written by
//! `kage-selfplay generate --variant-file`). Every reader of positions (kage-data, kage-train)
//! goes through [`of_header`], so user-variant data is read like built-in data.

use std::collections::HashMap;
use std::sync::Mutex;

use kage_engine::Variant;

use crate::header::FileHeader;

/// Why a header's variant cannot be resolved.
#[derive(Debug, thiserror::Error)]
pub enum VariantError {
    /// Not a built-in and the config carries no spec.
    #[error(
        "variant {name:?} is not built in and the file's config carries no variant spec; \
         known: {known}"
    )]
    Unknown {
        /// The header's variant name.
        name: String,
        /// The built-in variants' names.
        known: String,
    },
    /// The config's spec does not compile.
    #[error("invalid variant spec: {0}")]
    BadSpec(kage_engine::SpecError),
    /// The spec names another variant than the header.
    #[error("the file is for variant {header:?} but the spec in its config is {spec:?}")]
    NameMismatch {
        /// The header's name.
        header: String,
        /// The spec's name.
        spec: String,
    },
}

/// The spec text a generator config carries, if any (top-level `variant_spec`).
pub fn spec_in_config(config: &str) -> Option<String> {
    let table: toml::Table = toml::from_str(config).ok()?;
    table.get("variant_spec")?.as_str().map(str::to_owned)
}

/// The compiled variant of a spec text, compiled once per distinct text.
pub fn from_spec_cached(text: &str) -> Result<&'static Variant, VariantError> {
    static CACHE: Mutex<Option<HashMap<String, &'static Variant>>> = Mutex::new(None);
    let mut guard = CACHE.lock().unwrap_or_else(|p| p.into_inner());
    let map = guard.get_or_insert_with(HashMap::new);
    if let Some(v) = map.get(text) {
        return Ok(v);
    }
    let v = Variant::from_spec_text(text).map_err(VariantError::BadSpec)?;
    map.insert(text.to_owned(), v);
    Ok(v)
}

/// The variant of a file: built in by its name, else the spec its config carries.
pub fn of_header(h: &FileHeader) -> Result<&'static Variant, VariantError> {
    if let Some(text) = spec_in_config(h.config()) {
        let v = from_spec_cached(&text)?;
        if v.name != h.variant() {
            return Err(VariantError::NameMismatch {
                header: h.variant().to_owned(),
                spec: v.name.clone(),
            });
        }
        return Ok(v);
    }
    match kage_engine::VariantId::from_name(h.variant()) {
        Some(id) => Ok(Variant::builtin(id)),
        None => Err(VariantError::Unknown {
            name: h.variant().to_owned(),
            known: kage_engine::VariantId::names(),
        }),
    }
}
