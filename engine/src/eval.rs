//! Static evaluation: the hand-crafted evaluation ([`hce`]) with its per-variant parameters
//! ([`params`]), or an NNUE network ([`nnue_eval`]), behind the [`Evaluator`] a `Searcher`
//! uses.

pub mod hce;
pub mod hce_terms;
pub mod nnue_eval;
pub mod params;

pub use hce::Hce;
pub use params::EvalParams;

use crate::nnue::{NetError, Network};
use crate::variant::Variant;
use std::sync::Arc;

/// Which evaluation a searcher uses.
#[derive(Clone, Debug, Default)]
pub enum Evaluator {
    /// The hand-crafted evaluation with the built-in parameters of the searched variant.
    #[default]
    HandCrafted,
    /// The hand-crafted evaluation with these parameters (e.g. `kage-train tune`'s output) for
    /// whatever variant is searched.
    HandCraftedWith(Arc<EvalParams>),
    /// An NNUE network (shared between searchers). Used for positions of the variant it was
    /// trained for; other variants fall back to the hand-crafted evaluation.
    Nnue(Arc<Network>),
}

impl Evaluator {
    /// Loads a network file's bytes for `variant` (checks variant and feature set).
    pub fn load_nnue(bytes: &[u8], variant: &Variant) -> Result<Evaluator, NetError> {
        Ok(Evaluator::Nnue(Arc::new(Network::load_for_variant(bytes, variant)?)))
    }

    /// The network, when it fits `variant`.
    pub fn network_for(&self, variant: &Variant) -> Option<&Arc<Network>> {
        match self {
            Evaluator::Nnue(net) if net.check_variant(variant).is_ok() => Some(net),
            _ => None,
        }
    }

    /// A short description for `info string` lines.
    pub fn describe(&self) -> String {
        match self {
            Evaluator::HandCrafted => "hand-crafted".to_string(),
            Evaluator::HandCraftedWith(_) => "hand-crafted (parameters from a file)".to_string(),
            Evaluator::Nnue(net) => {
                let h = net.header();
                format!(
                    "NNUE {} (features {}, ft {}, head {}, run {})",
                    h.variant, h.num_features, h.ft_size, h.head_size, h.run_id
                )
            }
        }
    }
}
