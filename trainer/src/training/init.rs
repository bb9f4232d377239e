//! Starting a run from an existing quantised network (`--init-net`).

use crate::data::space::FeatureSpace;
use crate::error::TrainError;
use crate::export::dequantise;
use crate::model::NetParams;
use crate::training::config::TrainConfig;
use kage_engine::nnue::{Activation, Network};
use kage_engine::util::read::{cap, read_capped};
use std::path::Path;

/// Reads the network at `path`, checks that it fits the run (variant, feature set, FT and
/// head sizes, activation, output scale) and returns its dequantised weights.
pub fn load_init_net(
    path: &Path,
    cfg: &TrainConfig,
    space: &FeatureSpace,
) -> Result<NetParams, TrainError> {
    let bytes =
        read_capped(path, cap::NET, "network file").map_err(|e| bad(path, e.to_string()))?;
    let net = Network::load(&bytes).map_err(|e| bad(path, e.to_string()))?;
    net.check_compatible(&space.variant, space.feature_set_id, space.num_features)
        .map_err(|e| bad(path, e.to_string()))?;
    let h = net.header();
    if (h.ft_size as usize, h.head_size as usize) != (cfg.ft_size, cfg.head_size) {
        return Err(bad(
            path,
            format!(
                "its sizes are ft {} head {}, the configuration asks for ft {} head {} \
                 (pass --ft-size {} --head-size {})",
                h.ft_size, h.head_size, cfg.ft_size, cfg.head_size, h.ft_size, h.head_size
            ),
        ));
    }
    if h.activation != Activation::ClippedRelu {
        return Err(bad(path, format!("activation {:?} is not trainable here", h.activation)));
    }
    let scale = cfg.scale.round().clamp(1.0, f64::from(u32::MAX)) as u32;
    if h.output_scale != scale {
        return Err(bad(
            path,
            format!(
                "it was trained with scale {} and this run uses {scale} (pass --scale {})",
                h.output_scale, h.output_scale
            ),
        ));
    }
    Ok(dequantise(&net))
}

fn bad(path: &Path, why: String) -> TrainError {
    TrainError::InitNet(format!("--init-net {}: {why}", path.display()))
}
