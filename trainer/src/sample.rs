//! Training samples and the source trait the loader reads from.

use thiserror::Error;

/// Bit flags stored with a training position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SampleFlags(pub u8);

impl SampleFlags {
    /// The side to move is in check.
    pub const IN_CHECK: u8 = 1;
    /// The best move found by search is a capture.
    pub const BEST_CAPTURE: u8 = 2;
    /// The best move found by search promotes.
    pub const BEST_PROMOTION: u8 = 4;

    /// Whether the side to move is in check.
    pub fn in_check(self) -> bool {
        self.0 & Self::IN_CHECK != 0
    }

    /// Whether the best move is noisy (capture or promotion).
    pub fn noisy(self) -> bool {
        self.0 & (Self::BEST_CAPTURE | Self::BEST_PROMOTION) != 0
    }
}

/// One training position, already encoded as active feature indices.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// Active features from the side to move's perspective.
    pub stm_features: Vec<u32>,
    /// Active features from the other side's perspective.
    pub nstm_features: Vec<u32>,
    /// Search score in centipawns, side to move's point of view.
    pub score_cp: i16,
    /// Game result from the side to move: 1 win, 0.5 draw, 0 loss.
    pub result: f32,
    /// Ply of the position in its game.
    pub ply: u16,
    /// Flags.
    pub flags: SampleFlags,
}

/// Errors from reading training data.
#[derive(Debug, Error)]
pub enum DataError {
    /// I/O failure.
    #[error("reading {path}: {source}")]
    Io {
        /// File being read.
        path: String,
        /// Cause.
        source: std::io::Error,
    },
    /// A record could not be decoded.
    #[error("bad training record in {path} at record {index}: {reason}")]
    BadRecord {
        /// File being read.
        path: String,
        /// Record index.
        index: u64,
        /// Why.
        reason: String,
    },
    /// A sample is inconsistent with the feature space.
    #[error("sample has feature {feature} but the feature space has {num_features} features")]
    FeatureOutOfRange {
        /// Offending index.
        feature: u32,
        /// Feature count.
        num_features: usize,
    },
    /// Anything else.
    #[error("{0}")]
    Other(String),
}

/// A stream of samples: one pass over a data set.
pub trait PositionSource: Send {
    /// The next sample, or `None` at the end of the pass.
    fn next_sample(&mut self) -> Result<Option<Sample>, DataError>;
}

/// A data set that can be streamed repeatedly (once per epoch), always in the same order.
pub trait Dataset: Send + Sync {
    /// Opens a fresh pass from the beginning.
    fn open(&self) -> Result<Box<dyn PositionSource>, DataError>;
    /// Short human-readable description (recorded in logs).
    fn describe(&self) -> String;
}
