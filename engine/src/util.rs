//! Small helpers the whole workspace shares: hashing, CPU time, byte cursors, capped reads.

pub mod bytes;
pub mod cpu_time;
pub mod hash;
pub mod read;
