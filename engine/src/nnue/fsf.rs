//! Fairy-Stockfish's (FSF) own NNUE nets: the HalfKAv2_variants feature layout of a variant
//! ([`layout`]), the architecture's constants ([`arch`]), the net as integer tensors
//! ([`net`]) and its file ([`format`](mod@format), [`file`](mod@file)), seeded random nets ([`random`]) and the
//! typed errors ([`error`]).
//! Everything here is written from `../shared/design/FSF-NNUE.md` (FSF at commit c19b5f6c);
//! references `file:line` point into FSF's source tree.

pub mod arch;
pub mod error;
pub mod file;
pub mod format;
pub mod incremental;
pub mod layout;
pub mod net;
pub mod network;
pub mod random;
pub mod reference;
pub mod report;
pub mod trace;

pub use error::FsfError;
pub use file::{net_file_name, read_net, write_net};
pub use format::{guess_variant, is_fsf_net};
pub use incremental::FsfSearchEval;
pub use layout::FsfLayout;
pub use net::{FsfNet, FsfStack};
pub use network::FsfNetwork;
pub use random::random_net;
pub use reference::{Accumulation, FsfEval};
