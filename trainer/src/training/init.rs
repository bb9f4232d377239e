//! Starting a run from an existing quantised network (`--init-net`): a kage net for the
//! small architecture, an FSF-format net (one kage exported or one Fairy-Stockfish
//! publishes) for the fsf architecture.

use crate::data::space::FeatureSpace;
use crate::error::TrainError;
use crate::export::dequantise;
use crate::export::fsf::RoundTripError;
use crate::model::NetParams;
use crate::model::fsf::FsfHead;
use crate::training::config::TrainConfig;
use kage_engine::nnue::fsf::{FsfError, FsfNet, is_fsf_net};
use kage_engine::nnue::{Activation, NetError, Network};
use kage_engine::util::read::{ReadError, cap, read_capped};
use std::path::Path;

/// Why a network cannot start a run.
#[derive(Debug, thiserror::Error)]
pub enum InitNetError {
    /// The file cannot be read.
    #[error("{0}")]
    Read(ReadError),
    /// Not a kage net of the run's variant, feature set and feature count.
    #[error("{0}")]
    Net(NetError),
    /// Not an FSF-format net of the run's variant.
    #[error("{0}")]
    Fsf(FsfError),
    /// An FSF-format net given to the small architecture.
    #[error("it is a Fairy-Stockfish net: train it with --arch fsf")]
    FsfNet,
    /// A kage net given to the fsf architecture.
    #[error("it is a kage net: train it without --arch fsf")]
    KageNet,
    /// The fsf loader was asked for a run of the small architecture.
    #[error("the run is not of the fsf architecture")]
    NotFsfRun,
    /// Other FT or head sizes than the configuration's.
    #[error(
        "its sizes are ft {ft} head {head}, the configuration asks for ft {want_ft} head \
         {want_head} (pass --ft-size {ft} --head-size {head})"
    )]
    Sizes {
        /// The net's FT width.
        ft: u32,
        /// The net's head width.
        head: u32,
        /// The configuration's FT width.
        want_ft: usize,
        /// The configuration's head width.
        want_head: usize,
    },
    /// An activation the trainer does not train.
    #[error("activation {0:?} is not trainable here")]
    Activation(Activation),
    /// Another output scale than the configuration's.
    #[error("it was trained with scale {net} and this run uses {run} (pass --scale {net})")]
    Scale {
        /// The net's scale.
        net: u32,
        /// The run's.
        run: u32,
    },
    /// A value the float model cannot hold exactly.
    #[error("{0}")]
    RoundTrip(RoundTripError),
}

/// Reads the network at `path`, checks that it fits the run (variant, feature set, FT and
/// head sizes, activation, output scale) and returns its dequantised weights.
pub fn load_init_net(
    path: &Path,
    cfg: &TrainConfig,
    space: &FeatureSpace,
) -> Result<NetParams, TrainError> {
    let bad = |cause| TrainError::InitNet { path: path.to_path_buf(), cause };
    let bytes =
        read_capped(path, cap::NET, "network file").map_err(|e| bad(InitNetError::Read(e)))?;
    if is_fsf_net(&bytes) {
        return Err(bad(InitNetError::FsfNet));
    }
    let net = Network::load(&bytes).map_err(|e| bad(InitNetError::Net(e)))?;
    net.check_compatible(&space.variant, space.feature_set_id, space.num_features)
        .map_err(|e| bad(InitNetError::Net(e)))?;
    let h = net.header();
    if (h.ft_size as usize, h.head_size as usize) != (cfg.ft_size, cfg.head_size) {
        let (want_ft, want_head) = (cfg.ft_size, cfg.head_size);
        return Err(bad(InitNetError::Sizes {
            ft: h.ft_size,
            head: h.head_size,
            want_ft,
            want_head,
        }));
    }
    if h.activation != Activation::ClippedRelu {
        return Err(bad(InitNetError::Activation(h.activation)));
    }
    let scale = cfg.scale.round().clamp(1.0, f64::from(u32::MAX)) as u32;
    if h.output_scale != scale {
        return Err(bad(InitNetError::Scale { net: h.output_scale, run: scale }));
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
    let bad = |cause| TrainError::InitNet { path: path.to_path_buf(), cause };
    let Some(layout) = &space.fsf else {
        return Err(bad(InitNetError::NotFsfRun));
    };
    let bytes =
        read_capped(path, cap::NET, "network file").map_err(|e| bad(InitNetError::Read(e)))?;
    if !is_fsf_net(&bytes) && Network::load(&bytes).is_ok() {
        return Err(bad(InitNetError::KageNet));
    }
    let net = FsfNet::from_bytes(&bytes, layout).map_err(|e| bad(InitNetError::Fsf(e)))?;
    let (ft, head) = crate::export::fsf::dequantise(&net);
    crate::export::fsf::round_trip_error(&net, &ft, &head)
        .map_err(|e| bad(InitNetError::RoundTrip(e)))?;
    Ok((ft, head))
}
