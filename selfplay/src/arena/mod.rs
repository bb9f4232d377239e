//! The arena: what self-play, matches, audits and books share.
//!
//! * [`player`]: the one player trait, implemented by the built-in searcher, a greedy test
//!   player and an outside UCI engine.

pub mod player;
