//! Self-play (placeholder until the selfplay crate lands).
