//! Training samples and the source trait the loader reads from.

use thiserror::Error;

/// Bit flags stored with a training position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SampleFlags(pub u8);

impl SampleFlags {
    /// The side to move is in check.
    pub const IN_CHECK: u8 = 1;
    /// The best move found by search is noisy: a capture or a promotion (the data files'
    /// `PositionFlags::BEST_NOISY`).
    pub const BEST_NOISY: u8 = 2;
    /// Black is to move (only data files set it; synthetic samples read as White to move).
    pub const BLACK_TO_MOVE: u8 = 4;

    /// Whether the side to move is in check.
    pub fn in_check(self) -> bool {
        self.0 & Self::IN_CHECK != 0
    }

    /// Whether the best move is noisy (capture or promotion).
    pub fn noisy(self) -> bool {
        self.0 & Self::BEST_NOISY != 0
    }

    /// Whether Black is to move.
    pub fn black_to_move(self) -> bool {
        self.0 & Self::BLACK_TO_MOVE != 0
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

/// Errors from a source of training samples (files or synthetic data).
#[derive(Debug, Error)]
pub enum SourceError {
    /// I/O failure.
    #[error("reading {path}: {cause}")]
    Io {
        /// File being read.
        path: String,
        /// Cause.
        cause: std::io::Error,
    },
    /// A record could not be decoded.
    #[error("bad training record in {path} at record {index}: {reason}")]
    BadRecord {
        /// File being read.
        path: String,
        /// Record index.
        index: u64,
        /// Why.
        reason: kage_data::CompactError,
    },
    /// The data set names a variant the engine does not know.
    #[error(transparent)]
    Variant(#[from] kage_engine::SpecError),
    /// A sample is inconsistent with the feature space.
    #[error("sample has feature {feature} but the feature space has {num_features} features")]
    FeatureOutOfRange {
        /// Offending index.
        feature: u32,
        /// Feature count.
        num_features: usize,
    },
    /// A data file cannot be opened or read (the data crate's error names the file).
    #[error("{0}")]
    File(kage_data::DataError),
    /// FSF `.bin` data cannot be read (the error names the file).
    #[error("{0}")]
    Bin(kage_data::fsf_bin::BinError),
    /// The variant has no FSF `.bin` layout to convert its records with.
    #[error("{0}")]
    BinLayout(kage_data::fsf_bin::LayoutError),
    /// FSF `.bin` data for a variant that is not built in.
    #[error(
        "{}: FSF .bin data has no header, so --variant must name a built-in variant: {cause}",
        path.display()
    )]
    BinVariant {
        /// The file.
        path: std::path::PathBuf,
        /// Why `--variant` names no built-in variant.
        cause: Box<kage_engine::SpecError>,
    },
    /// A file's header names rules that cannot be resolved.
    #[error("{}: {cause}", path.display())]
    Header {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        cause: Box<kage_data::variant::VariantError>,
    },
    /// A file of another variant than the run's.
    #[error(
        "{} holds positions of variant {found:?}, the run is for {want:?} (--variant)",
        path.display()
    )]
    WrongVariant {
        /// The file.
        path: std::path::PathBuf,
        /// Its variant.
        found: String,
        /// The run's.
        want: String,
    },
    /// Two files of the same variant name with different rules.
    #[error(
        "{} and {} are both {name:?} but with different rules (another variant spec); train \
         on one variant's data",
        first.display(),
        second.display()
    )]
    RulesDiffer {
        /// The variant name.
        name: String,
        /// The first file.
        first: std::path::PathBuf,
        /// The file with other rules.
        second: std::path::PathBuf,
    },
    /// A file with damaged chunks, without `--allow-damaged`.
    #[error(
        "{0}; refusing to train on part of the data: pass --allow-damaged to accept the loss, \
         or salvage the file with `kage-data repair`"
    )]
    Damaged(crate::data::decode::DamageReport),
}

/// The scalar fields of a training position (everything but its features).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SampleMeta {
    /// Search score in centipawns, side to move's point of view.
    pub score_cp: i16,
    /// Game result from the side to move: 1 win, 0.5 draw, 0 loss.
    pub result: f32,
    /// Ply of the position in its game.
    pub ply: u16,
    /// Flags.
    pub flags: SampleFlags,
}

impl Sample {
    /// The scalar fields.
    pub fn meta(&self) -> SampleMeta {
        SampleMeta {
            score_cp: self.score_cp,
            result: self.result,
            ply: self.ply,
            flags: self.flags,
        }
    }
}

/// Consecutive samples in flat storage: the features of all samples (side to move's, then
/// the other side's) in one buffer, so filling a block allocates nothing once its buffers
/// have grown. Blocks are cleared and refilled to reuse that memory.
#[derive(Debug, Clone, Default)]
pub struct SampleBlock {
    features: Vec<u32>,
    /// Per sample: end of its side-to-move features, end of its other-side features.
    ends: Vec<(usize, usize)>,
    meta: Vec<SampleMeta>,
}

impl SampleBlock {
    /// Removes all samples (keeps the memory).
    pub fn clear(&mut self) {
        self.features.clear();
        self.ends.clear();
        self.meta.clear();
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.meta.len()
    }

    /// Whether the block has no sample.
    pub fn is_empty(&self) -> bool {
        self.meta.is_empty()
    }

    /// Appends a sample.
    pub fn push(&mut self, stm: &[u32], nstm: &[u32], meta: SampleMeta) {
        self.rollback();
        self.features.extend_from_slice(stm);
        self.features.extend_from_slice(nstm);
        self.commit(stm.len(), meta);
    }

    /// Appends a copy of `s`.
    pub fn push_sample(&mut self, s: &Sample) {
        self.push(&s.stm_features, &s.nstm_features, s.meta());
    }

    /// The feature buffer: append a new sample's side-to-move features, then the other
    /// side's, and finish with [`SampleBlock::commit`] (or drop them with
    /// [`SampleBlock::rollback`]).
    pub fn features_mut(&mut self) -> &mut Vec<u32> {
        &mut self.features
    }

    /// Number of features appended since the last committed sample.
    pub fn pending_features(&self) -> usize {
        self.features.len() - self.committed_end()
    }

    /// Ends the sample whose features were appended since the last one: the first `stm_len`
    /// of them are the side to move's.
    ///
    /// # Panics
    /// If fewer than `stm_len` features were appended (a bug in the caller).
    pub fn commit(&mut self, stm_len: usize, meta: SampleMeta) {
        let start = self.committed_end();
        assert!(start + stm_len <= self.features.len(), "commit: stm_len past the features");
        self.ends.push((start + stm_len, self.features.len()));
        self.meta.push(meta);
    }

    /// Drops the features appended since the last committed sample.
    pub fn rollback(&mut self) {
        let end = self.committed_end();
        self.features.truncate(end);
    }

    fn committed_end(&self) -> usize {
        self.ends.last().map_or(0, |e| e.1)
    }

    /// Side-to-move and other-side features of sample `i`.
    pub fn features(&self, i: usize) -> (&[u32], &[u32]) {
        let start = if i == 0 { 0 } else { self.ends[i - 1].1 };
        let (mid, end) = self.ends[i];
        (&self.features[start..mid], &self.features[mid..end])
    }

    /// Scalar fields of sample `i`.
    pub fn meta(&self, i: usize) -> SampleMeta {
        self.meta[i]
    }

    /// Sample `i` as an owned [`Sample`].
    pub fn to_sample(&self, i: usize) -> Sample {
        let (stm, nstm) = self.features(i);
        let m = self.meta[i];
        Sample {
            stm_features: stm.to_vec(),
            nstm_features: nstm.to_vec(),
            score_cp: m.score_cp,
            result: m.result,
            ply: m.ply,
            flags: m.flags,
        }
    }
}

/// A stretch of the stream as consecutive [`SampleBlock`]s (a source may fill them in
/// parallel, one block per task). Cleared and refilled to reuse the blocks' memory.
#[derive(Debug, Default)]
pub struct BlockList {
    blocks: Vec<SampleBlock>,
    used: usize,
}

impl BlockList {
    /// Removes all blocks (keeps their memory for reuse).
    pub fn clear(&mut self) {
        self.truncate(0);
    }

    /// Keeps the first `n` blocks.
    pub fn truncate(&mut self, n: usize) {
        for b in &mut self.blocks[n.min(self.used)..self.used] {
            b.clear();
        }
        self.used = self.used.min(n);
    }

    /// Appends `n` empty blocks after those in use and returns them, in stream order.
    pub fn extend(&mut self, n: usize) -> &mut [SampleBlock] {
        let start = self.used;
        if self.blocks.len() < start + n {
            self.blocks.resize_with(start + n, SampleBlock::default);
        }
        self.used += n;
        &mut self.blocks[start..start + n]
    }

    /// The blocks in use, in stream order.
    pub fn blocks(&self) -> &[SampleBlock] {
        &self.blocks[..self.used]
    }

    /// Number of blocks in use.
    pub fn num_blocks(&self) -> usize {
        self.used
    }

    /// Total number of samples.
    pub fn num_samples(&self) -> usize {
        self.blocks().iter().map(SampleBlock::len).sum()
    }
}

/// Samples a default [`PositionSource::next_blocks`] reads per call.
pub const DEFAULT_BLOCK_SAMPLES: usize = 4096;

/// A stream of samples: one pass over a data set.
pub trait PositionSource: Send {
    /// The next sample, or `None` at the end of the pass.
    fn next_sample(&mut self) -> Result<Option<Sample>, SourceError>;

    /// Appends the next stretch of the pass to `out` (whose blocks are empty on entry): at
    /// least one sample unless the pass has ended. On error, the samples already appended
    /// come before the error in the stream. The default reads
    /// [`DEFAULT_BLOCK_SAMPLES`] samples with [`PositionSource::next_sample`]; sources
    /// override it to decode in parallel without per-sample allocations.
    fn next_blocks(&mut self, out: &mut BlockList) -> Result<(), SourceError> {
        let block = &mut out.extend(1)[0];
        while block.len() < DEFAULT_BLOCK_SAMPLES {
            match self.next_sample()? {
                Some(s) => block.push_sample(&s),
                None => break,
            }
        }
        Ok(())
    }
}

/// A data set that can be streamed repeatedly (once per epoch), always in the same order.
pub trait Dataset: Send + Sync {
    /// Opens a fresh pass from the beginning.
    fn open(&self) -> Result<Box<dyn PositionSource>, SourceError>;
    /// Short human-readable description (recorded in logs).
    fn describe(&self) -> String;
}
