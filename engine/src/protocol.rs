//! Text protocols: UCI and the JSON rules query.

pub mod rules;
pub mod uci;
