//! Static evaluation: the hand-crafted evaluation ([`hce`]) with its per-variant parameters
//! ([`params`]), behind the [`Evaluator`] a `Searcher` uses.

pub mod hce;
pub mod params;

pub use hce::Hce;
pub use params::EvalParams;

/// Which evaluation a searcher uses.
#[derive(Clone, Debug, Default)]
pub enum Evaluator {
    /// The hand-crafted evaluation with the built-in parameters of the searched variant.
    #[default]
    HandCrafted,
}

impl Evaluator {
    /// A short description for `info string` lines.
    pub fn describe(&self) -> String {
        match self {
            Evaluator::HandCrafted => "hand-crafted".to_string(),
        }
    }
}
