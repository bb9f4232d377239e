//! The feature space a run trains on: variant, feature-set id and feature count.

use crate::data::sample::SourceError;
use crate::error::TrainError;
use crate::training::config::TrainConfig;
use kage_engine::Variant;
use kage_engine::nnue::features;

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
}

/// Resolves the feature space of a configuration.
pub fn resolve(cfg: &TrainConfig) -> Result<FeatureSpace, TrainError> {
    if let Some(s) = &cfg.synthetic {
        return Ok(FeatureSpace {
            variant: cfg.variant.clone(),
            feature_set_id: SYNTHETIC_FEATURE_SET_ID,
            num_features: s.num_features,
        });
    }
    feature_space(&cfg.variant)
}

/// Feature space of a real variant, from the engine's feature encoder.
pub fn feature_space(name: &str) -> Result<FeatureSpace, TrainError> {
    let v = Variant::by_name(name).map_err(SourceError::from)?;
    Ok(FeatureSpace {
        variant: name.to_string(),
        feature_set_id: features::FEATURE_SET_ID,
        num_features: features::num_features(v),
    })
}
