//! The feature space a run trains on: variant, feature-set id and feature count.

use crate::data::sample::SourceError;
use crate::error::TrainError;
use crate::training::config::{Arch, TrainConfig};
use kage_data::{PositionRecord, Reader};
use kage_engine::Variant;
use kage_engine::nnue::features;
use kage_engine::nnue::fsf::FsfLayout;
use kage_engine::nnue::fsf::arch::FEATURE_SET_HASH;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Feature-set id recorded for nets trained on synthetic data ("SYN1"): such nets can never
/// be loaded by the engine by mistake.
pub const SYNTHETIC_FEATURE_SET_ID: u32 = 0x5359_4e31;

/// Feature space of a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeatureSpace {
    /// Variant name.
    pub variant: String,
    /// Feature-set id.
    pub feature_set_id: u32,
    /// Number of features.
    pub num_features: usize,
    /// With the fsf architecture: the HalfKAv2_variants layout the features follow.
    pub fsf: Option<Arc<FsfLayout>>,
}

/// Resolves the feature space of a configuration: the variant its data files are of.
pub fn resolve(cfg: &TrainConfig) -> Result<FeatureSpace, TrainError> {
    if cfg.arch == Arch::Fsf {
        return fsf_space(cfg);
    }
    if let Some(s) = &cfg.synthetic {
        return Ok(FeatureSpace {
            variant: cfg.variant.clone(),
            feature_set_id: SYNTHETIC_FEATURE_SET_ID,
            num_features: s.num_features,
            fsf: None,
        });
    }
    Ok(space_of(rules(cfg)?))
}

/// Feature space of a built-in variant, from the engine's feature encoder.
pub fn feature_space(name: &str) -> Result<FeatureSpace, TrainError> {
    Ok(space_of(Variant::by_name(name).map_err(SourceError::from)?))
}

/// Feature space of a variant, from the engine's feature encoder.
pub fn space_of(v: &Variant) -> FeatureSpace {
    FeatureSpace {
        variant: v.name.clone(),
        feature_set_id: features::FEATURE_SET_ID,
        num_features: features::num_features(v),
        fsf: None,
    }
}

/// The HalfKAv2_variants layout of a variant (its spec's `[fsf_nnue]` table).
pub fn fsf_layout(v: &Variant) -> Result<FsfLayout, TrainError> {
    FsfLayout::for_variant(v).map_err(TrainError::FsfLayout)
}

/// The feature space of the fsf architecture: FSF's feature-set hash and the variant's
/// `nnueDimensions`; synthetic data must have exactly that many features.
fn fsf_space(cfg: &TrainConfig) -> Result<FeatureSpace, TrainError> {
    let layout = fsf_layout(rules(cfg)?)?;
    if let Some(s) = &cfg.synthetic
        && s.num_features != layout.dims()
    {
        return Err(TrainError::SyntheticFeatures {
            variant: cfg.variant.clone(),
            dims: layout.dims(),
            found: s.num_features,
        });
    }
    Ok(FeatureSpace {
        variant: layout.variant_name().to_string(),
        feature_set_id: FEATURE_SET_HASH,
        num_features: layout.dims(),
        fsf: Some(Arc::new(layout)),
    })
}

/// The rules a configuration trains on: those of its data files (built in, or the user
/// variant their headers carry), or the named built-in for synthetic data.
pub fn rules(cfg: &TrainConfig) -> Result<&'static Variant, SourceError> {
    if cfg.synthetic.is_some() {
        return Ok(Variant::by_name(&cfg.variant)?);
    }
    let files: Vec<PathBuf> = cfg.data.iter().chain(&cfg.val_data).cloned().collect();
    variant_of_files(&cfg.variant, &files)
}

/// The variant of one file: from its header, or for FSF `.bin` data (no header) the
/// built-in named `name` (`--variant`).
fn variant_of_file(name: &str, path: &Path) -> Result<&'static Variant, SourceError> {
    if crate::data::decode::is_fsf_bin(path) {
        return Variant::by_name(name)
            .map_err(|e| SourceError::BinVariant { path: path.to_path_buf(), cause: Box::new(e) });
    }
    let reader = Reader::<PositionRecord>::open(path).map_err(SourceError::File)?;
    kage_data::variant::of_header(reader.header())
        .map_err(|e| SourceError::Header { path: path.to_path_buf(), cause: Box::new(e) })
}

/// The variant every one of `files` holds, which must be `name`: resolved from each file's
/// header ([`kage_data::variant::of_header`]), so user-variant data reads like built-in data.
/// Files of another variant, or of other rules under the same name, are refused.
pub fn variant_of_files(name: &str, files: &[PathBuf]) -> Result<&'static Variant, SourceError> {
    let mut found: Option<(&'static Variant, &PathBuf)> = None;
    for path in files {
        let v = variant_of_file(name, path)?;
        if v.name != name {
            return Err(SourceError::WrongVariant {
                path: path.clone(),
                found: v.name.clone(),
                want: name.to_string(),
            });
        }
        match found {
            Some((first, first_path)) if !std::ptr::eq(first, v) => {
                return Err(SourceError::RulesDiffer {
                    name: name.to_string(),
                    first: first_path.clone(),
                    second: path.clone(),
                });
            }
            Some(_) => {}
            None => found = Some((v, path)),
        }
    }
    match found {
        Some((v, _)) => Ok(v),
        None => Ok(Variant::by_name(name)?),
    }
}
