//! Training: the configuration, the trainer and its optimiser, checkpoints, and a whole run
//! (run directory, epochs, reports, export).

pub mod checkpoint;
pub mod config;
pub mod data_identity;
pub mod fsf_step;
pub mod init;
pub mod optim;
pub mod progress;
pub mod run;
pub mod train;
