//! The built-in variants, one folder each: `engine/variants/<name>/` holds `rules.toml` (the
//! spec), `hce.toml` and `hce.wdl.toml` (the hand-crafted evaluation's parameters and WDL model)
//! and `bench.toml` (`kage bench`'s positions and depths); `engine/nets/<name>.nnue` is the
//! shipped net, with its WDL model beside it. `build.rs` finds the folders, so adding a
//! built-in variant is adding a folder: every list of built-ins (names, help texts, benches)
//! is read from here.

use super::VariantId;
use std::sync::OnceLock;

/// One built-in variant's files, embedded at build time.
pub(crate) struct Folder {
    /// The folder's name: the variant's name.
    pub name: &'static str,
    /// `rules.toml`: the variant spec.
    pub rules: &'static str,
    /// `hce.toml`: the hand-crafted evaluation's parameters.
    pub hce: &'static str,
    /// `hce.wdl.toml`: the hand-crafted evaluation's WDL model.
    pub hce_wdl: &'static str,
    /// `bench.toml`: [`Bench`].
    pub bench: &'static str,
    /// `engine/nets/<name>.nnue`, when a net is shipped.
    pub net: Option<&'static [u8]>,
    /// `engine/nets/<name>.wdl.toml`, the shipped net's WDL model.
    pub net_wdl: Option<&'static str>,
    /// Whether `net` (and `net_wdl`) came from `KAGE_NETS_DIR` at build time instead of
    /// `engine/nets/` (`engine/build.rs`).
    pub net_local: bool,
}

include!(concat!(env!("OUT_DIR"), "/builtin_variants.rs"));

/// A built-in variant's `bench.toml`.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bench {
    /// `kage bench search`'s default depth.
    pub search_depth: u32,
    /// `kage bench perft`'s depth for the start position.
    pub perft_depth: u32,
    /// The positions searched: FENs, or `startpos`.
    pub positions: Vec<String>,
}

impl VariantId {
    pub(crate) fn folder(self) -> &'static Folder {
        &FOLDERS[usize::from(self.0)]
    }

    /// The position in [`VariantId::ALL`].
    pub fn index(self) -> usize {
        usize::from(self.0)
    }

    /// This variant's `bench.toml` (parsed once; a broken file is caught by a test).
    pub fn bench(self) -> &'static Bench {
        static PARSED: OnceLock<Vec<Bench>> = OnceLock::new();
        let all = PARSED.get_or_init(|| {
            FOLDERS
                .iter()
                .map(|f| {
                    toml::from_str(f.bench)
                        .unwrap_or_else(|e| panic!("engine/variants/{}/bench.toml: {e}", f.name))
                })
                .collect()
        });
        &all[self.index()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_folder_parses_and_is_named_as_its_spec() {
        for id in VariantId::ALL {
            let f = id.folder();
            let spec = crate::VariantSpec::parse(f.rules).expect("rules.toml parses");
            assert_eq!(spec.name, f.name, "engine/variants/{}/rules.toml names itself", f.name);
            let b = id.bench();
            assert_eq!(b.positions.first().map(String::as_str), Some("startpos"), "{}", f.name);
            assert!(b.search_depth > 0 && b.perft_depth > 0, "{}", f.name);
            // A shipped net has its WDL model; one from KAGE_NETS_DIR may have none.
            assert!(f.net_local || f.net.is_some() == f.net_wdl.is_some(), "{}", f.name);
        }
    }
}
