//! The arena: what self-play, matches, audits and books share.
//!
//! * [`player`]: the one player trait, implemented by the built-in searcher, a greedy test
//!   player and an outside UCI engine.
//! * [`game`]: the one game function, returning a [`kage_data::GameRecord`].

pub mod game;
pub mod player;
