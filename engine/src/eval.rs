//! Static evaluation: the hand-crafted evaluation ([`hce`]) with its per-variant parameters
//! ([`params`]), or an NNUE network ([`nnue_eval`]), behind the [`Evaluator`] a `Searcher`
//! uses.

pub mod hce;
pub mod hce_features;
pub mod hce_terms;
pub mod nnue_eval;
pub mod params;
pub mod wdl;

pub use hce::Hce;
pub use params::{EvalParams, MAX_PARAM, ParamsError};

use crate::nnue::fsf::{FsfNetwork, is_fsf_net};
use crate::nnue::{NetError, Network};
use crate::variant::Variant;
use std::sync::Arc;

/// Which evaluation a searcher uses.
#[derive(Clone, Debug, Default)]
pub enum Evaluator {
    /// The searched variant's default: its shipped network (`engine/nets/<variant>.nnue`, in
    /// kage's format or Fairy-Stockfish's) where it has one, else the hand-crafted evaluation
    /// with its built-in parameters.
    #[default]
    Default,
    /// The hand-crafted evaluation with the built-in parameters of the searched variant.
    HandCrafted,
    /// The hand-crafted evaluation with these parameters (e.g. `kage-train tune`'s output) for
    /// whatever variant is searched.
    HandCraftedWith(Arc<EvalParams>),
    /// An NNUE network (shared between searchers). Used for positions of the variant it was
    /// trained for; other variants fall back to the hand-crafted evaluation.
    Nnue(Arc<Network>),
    /// A Fairy-Stockfish-format net (shared between searchers), for the variant whose layout
    /// it was loaded for; other variants fall back to the hand-crafted evaluation.
    Fsf(Arc<FsfNetwork>),
}

impl Evaluator {
    /// Loads a network file's bytes for `variant` (checks variant and feature set): kage's
    /// own format, or Fairy-Stockfish's, told apart by the first word.
    pub fn load_nnue(bytes: &[u8], variant: &Variant) -> Result<Evaluator, NetError> {
        if is_fsf_net(bytes) {
            return Ok(Evaluator::Fsf(Arc::new(FsfNetwork::load(bytes, variant)?)));
        }
        Ok(Evaluator::Nnue(Arc::new(Network::load_for_variant(bytes, variant)?)))
    }

    /// The Fairy-Stockfish-format net, when it fits `variant`.
    pub fn fsf_network_for(&self, variant: &Variant) -> Option<&Arc<FsfNetwork>> {
        match self {
            Evaluator::Fsf(net) if net.fits(variant) => Some(net),
            Evaluator::Default => crate::nnue::shipped_fsf_net(variant),
            _ => None,
        }
    }

    /// The network, when it fits `variant`.
    pub fn network_for(&self, variant: &Variant) -> Option<&Arc<Network>> {
        match self {
            Evaluator::Nnue(net) if net.check_variant(variant).is_ok() => Some(net),
            Evaluator::Default => crate::nnue::shipped_net(variant),
            _ => None,
        }
    }

    /// The score scale of searching `variant` with this evaluator ([`wdl`]): fitted for the
    /// hand-crafted evaluation's built-in parameters and for each shipped net (also when the
    /// same net is loaded from a file); `None` (the raw scale) for parameters from a file and
    /// other nets.
    pub fn wdl_for(&self, variant: &Variant) -> Option<&'static wdl::WdlModel> {
        if let Some(net) = self.network_for(variant) {
            return wdl::net_model(&variant.name, &net.header().run_id);
        }
        if let Some(net) = self.fsf_network_for(variant) {
            return net.file_name().and_then(|f| wdl::fsf_net_model(&variant.name, f));
        }
        match self {
            Evaluator::HandCraftedWith(_) => None,
            // No net that fits: the hand-crafted evaluation with its built-in parameters.
            _ => wdl::hce_model(&variant.name),
        }
    }

    /// What searching `variant` with this evaluator uses, for `info string` lines.
    pub fn describe_for(&self, variant: &Variant) -> String {
        match (self, self.network_for(variant)) {
            (Evaluator::Default, Some(net)) => {
                let origin = crate::nnue::shipped::origin(&variant.name);
                format!("the {origin} network of {} (run {})", variant.name, net.header().run_id)
            }
            (Evaluator::Default, None) => match self.fsf_network_for(variant) {
                Some(net) => format!(
                    "the {} network of {}, {}: {}",
                    crate::nnue::shipped::origin(&variant.name),
                    variant.name,
                    net.file_name().unwrap_or("built in memory"),
                    net.describe()
                ),
                None => Self::no_default_net(variant),
            },
            (Evaluator::Nnue(_), None) => {
                format!("hand-crafted (the network does not fit {})", variant.name)
            }
            (Evaluator::Fsf(net), None) if !net.fits(variant) => {
                format!("hand-crafted (the network does not fit {})", variant.name)
            }
            _ => self.describe(),
        }
    }

    /// Why `variant` is searched with the hand-crafted evaluation by default.
    fn no_default_net(variant: &Variant) -> String {
        use crate::nnue::shipped::{load_error, origin, shipped_bytes};
        let name = &variant.name;
        if let Some(e) = load_error(name) {
            return format!(
                "hand-crafted (the {} network of {name} does not load: {e})",
                origin(name)
            );
        }
        if shipped_bytes(name).is_some() {
            return format!(
                "hand-crafted (the {} network of {name} does not fit {name}'s rules)",
                origin(name)
            );
        }
        format!("hand-crafted ({name} has no shipped network)")
    }

    /// A short description for `info string` lines.
    pub fn describe(&self) -> String {
        match self {
            Evaluator::Default => "the variant's default (its shipped network, if any)".to_string(),
            Evaluator::HandCrafted => "hand-crafted".to_string(),
            Evaluator::HandCraftedWith(_) => "hand-crafted (parameters from a file)".to_string(),
            Evaluator::Nnue(net) => {
                let h = net.header();
                format!(
                    "NNUE {} (features {}, ft {}, head {}, run {})",
                    h.variant, h.num_features, h.ft_size, h.head_size, h.run_id
                )
            }
            Evaluator::Fsf(net) => net.describe(),
        }
    }
}
