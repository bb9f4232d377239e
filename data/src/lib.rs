//! Record formats (placeholder until the data crate lands).
