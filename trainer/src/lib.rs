//! NNUE trainer (placeholder until the trainer crate lands).
