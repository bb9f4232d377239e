//! kage self-play: deterministic, resumable, sharded game generation for NNUE training.
//!
//! * [`config`]: the generator config (what decides the games) and shards.
//! * [`play`]: one game (random openings, search, adjudication, records).
//! * [`arena`]: what self-play, matches and audits share: the one player trait.
//! * [`audit`]: plays adjudicated games on to their real end: how often adjudication erred.
//! * [`driver`]: many games on a rayon pool, one player per thread.
//! * [`guard`]: what a command may write: never over its inputs, never into another tool's
//!   directory.
//! * [`run`]: a run directory with atomic batch files, resume and final joined output.
//! * [`balance`]: balance reports grouped by variant and settings: text, JSON, SVG, HTML.
//! * [`progress`]: plain progress lines when stderr is not a terminal.
//! * [`build`]: what built a player (git revision, program hash, UCI id), checked on resume.
//! * [`book`]: balanced opening books, judged by kage's search and other engines.
//! * [`bench`](mod@bench): throughput, thread scaling and self-play overhead.
//! * [`ladder`]: balance against strength: a ladder of players, their Elo from matches.
//! * [`rebalance`]: which declared rule change balances a variant (successive halving).
//! * [`steps`]: what the ladder and the rebalance search share: controls, steps, settings.
//! * [`matches`](mod@matches): engine-against-engine matches with GSPRT, PGN and outside UCI engines.

#![warn(missing_docs)]

pub mod adjudicate;
pub mod arena;
pub mod audit;
pub mod balance;
pub mod bench;
pub mod book;
pub mod build;
pub mod config;
pub mod config_error;
pub mod driver;
mod error;
pub mod guard;
pub mod ladder;
pub mod matches;
/// The generation loop as a typed pipeline: recipe, planner, content ids, gate, lineage.
pub mod pipeline;
pub mod play;
pub mod player;
pub mod progress;
pub mod rebalance;
pub mod run;
pub mod steps;
pub mod study_error;

pub use adjudicate::Adjudicator;
pub use arena::player::{Answer, Ask, Builtin, GreedyPlayer, MoveLimit, Player};
pub use config::{Adjudication, Budget, GenConfig, OpeningMode, Openings, PlayerKind, Shard};
pub use config_error::ConfigError;
pub use driver::{PlayerFactory, Slot, play_games};
pub use error::{Result, SelfplayError};
pub use kage_data::stats::{GameStats, wilson};
pub use play::{GameOutput, game_rng, play_game};
pub use player::factory_for;
pub use run::{GIT_REVISION, RunOptions, RunReport, RunStatus, generate, run_dir};
pub use study_error::StudyError;
