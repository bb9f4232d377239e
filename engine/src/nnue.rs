//! NNUE inference for kage: the quantised network file format, its typed loading errors,
//! exact integer evaluation and the incremental accumulator used by search.
//!
//! The network is a perspective net `(features -> H) x 2 -> head -> 1`:
//! one shared feature transformer (FT) produces an accumulator per perspective, the side to
//! move's accumulator comes first, both go through a clipped ReLU, then a small dense head.
//! All integer arithmetic is defined once, in [`network`], as a scalar reference. The search
//! evaluates with the same integers faster: i16 accumulators on a stack that follows the
//! searched path ([`stack`]) and SIMD loops with scalar twins ([`simd`], all of the `unsafe`).
//!
//! The trainer (`kage-train`) writes files with [`Network::from_parts`] and
//! [`Network::to_bytes`]; this module never depends on the trainer or on any ML framework.

pub mod accumulator;
mod changes;
pub mod error;
pub mod features;
pub mod format;
pub mod fsf;
pub mod network;
#[doc(hidden)]
pub mod random;
pub mod shipped;
pub mod simd;
pub mod stack;

pub use accumulator::Accumulator;
pub use error::NetError;
pub use format::{FORMAT_VERSION, MAGIC, read_file};
pub use network::{Activation, NetHeader, NetWeights, Network, QA, QB, QB_SHIFT, QO};
#[doc(hidden)]
pub use random::random_network;
pub use shipped::{shipped_fsf_net, shipped_net};
