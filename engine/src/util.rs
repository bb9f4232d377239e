//! Small helpers the whole workspace shares: hashing, CPU time, byte cursors.

pub mod bytes;
pub mod cpu_time;
pub mod hash;
