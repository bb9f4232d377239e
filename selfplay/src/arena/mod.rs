//! The arena: what self-play, matches, audits and books share.
//!
//! * [`player`]: the one player trait, implemented by the built-in searcher, a greedy test
//!   player and an outside UCI engine.
//! * [`game`]: the one game function, returning a [`kage_data::GameRecord`].
//! * [`schedule`]: the one scheduler: ordered slots on worker threads, stop, restart after
//!   a fault.

pub mod game;
pub mod player;
pub mod schedule;
