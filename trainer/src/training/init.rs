//! Starting a run from an existing quantised network (`--init-net`): a kage net for the
//! small architecture, an FSF-format net (one kage exported or one Fairy-Stockfish
//! publishes) for the fsf architecture.

use crate::data::space::FeatureSpace;
use crate::error::TrainError;
use crate::export::dequantise;
use crate::model::NetParams;
use crate::model::fsf::FsfHead;
use crate::training::config::TrainConfig;
use kage_engine::nnue::fsf::{FsfNet, is_fsf_net};
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
    if is_fsf_net(&bytes) {
        return Err(bad(path, "it is a Fairy-Stockfish net: train it with --arch fsf".into()));
    }
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

/// Reads the FSF-format net at `path` for the run's variant (`space`'s layout; the engine's
/// reader checks version, hashes and size) and returns its float model with the net's rows
/// alone (the factoriser's rows are the caller's), after checking that it quantises back
/// to every integer of the net.
pub fn load_fsf_init_net(
    path: &Path,
    space: &FeatureSpace,
) -> Result<(NetParams, FsfHead), TrainError> {
    let Some(layout) = &space.fsf else {
        return Err(bad(path, "the run is not of the fsf architecture".into()));
    };
    let bytes =
        read_capped(path, cap::NET, "network file").map_err(|e| bad(path, e.to_string()))?;
    if !is_fsf_net(&bytes) && Network::load(&bytes).is_ok() {
        return Err(bad(path, "it is a kage net: train it without --arch fsf".into()));
    }
    let net = FsfNet::from_bytes(&bytes, layout).map_err(|e| bad(path, e.to_string()))?;
    let (ft, head) = crate::export::fsf::dequantise(&net);
    crate::export::fsf::round_trip_error(&net, &ft, &head).map_err(|e| bad(path, e.to_string()))?;
    Ok((ft, head))
}

fn bad(path: &Path, why: String) -> TrainError {
    TrainError::InitNet(format!("--init-net {}: {why}", path.display()))
}
