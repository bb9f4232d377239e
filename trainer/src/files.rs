//! Training-position files of the `data` crate as a [`Dataset`].
//!
//! Each record's compact position is decoded to a `kage_engine::Position` (validated by the
//! engine's FEN parser) and both perspectives are encoded with
//! `kage_engine::nnue::features::active_features`. Records are read one chunk at a time and a
//! chunk is decoded in parallel (rayon, order preserved), so the stream order is the file
//! order whatever the thread count.

use crate::error::TrainError;
use crate::sample::{DataError, Dataset, PositionSource, Sample, SampleFlags};
use crate::space::FeatureSpace;
use kage_data::{PositionParts, PositionRecord, Reader};
use kage_engine::nnue::features;
use kage_engine::{Color, Piece, Variant};
use rayon::prelude::*;
use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;

fn variant(name: &str) -> Result<&'static Variant, TrainError> {
    Variant::by_name(name)
        .map_err(|e| TrainError::Unsupported(format!("unknown variant '{name}': {e}")))
}

/// Feature space of a real variant, from the engine's feature encoder.
pub fn feature_space(name: &str) -> Result<FeatureSpace, TrainError> {
    let v = variant(name)?;
    Ok(FeatureSpace {
        variant: name.to_string(),
        feature_set_id: features::FEATURE_SET_ID,
        num_features: features::num_features(v),
    })
}

/// Active features straight from a record's compact fields, with the engine's
/// `piece_feature` / `hand_feature` in the same order as `features::active_features`
/// (board squares ascending, then own and their hand in the variant's hand order).
/// Piece codes are checked against the variant; full legality is not (see
/// [`DecodeMode::Position`]).
pub fn features_from_parts(
    v: &'static Variant,
    parts: &PositionParts,
    perspective: Color,
    out: &mut Vec<u32>,
) -> Result<(), String> {
    let mut occ = parts.occupancy;
    for &code in &parts.board {
        let sq = occ.trailing_zeros() as u8;
        occ &= occ.wrapping_sub(1);
        let piece = Piece::from_code(code)
            .filter(|p| p.kind.index() < v.num_kinds() && sq < v.num_squares)
            .ok_or_else(|| format!("invalid piece code {code:#04x} on square {sq}"))?;
        out.push(features::piece_feature(v, perspective, piece, sq));
    }
    for &(code, _) in &parts.hand {
        let ok = Piece::from_code(code).is_some_and(|p| v.hand_kinds.contains(&p.kind));
        if !ok {
            return Err(format!("invalid piece code {code:#04x} in hand"));
        }
    }
    for owner in [perspective, !perspective] {
        for &kind in &v.hand_kinds {
            let count = parts
                .hand
                .iter()
                .filter_map(|&(code, n)| Piece::from_code(code).map(|p| (p, n)))
                .find(|(p, _)| p.color == owner && p.kind == kind)
                .map_or(0, |(_, n)| n);
            for slot in 0..count {
                if let Some(f) = features::hand_feature(v, perspective, owner, kind, slot) {
                    out.push(f);
                }
            }
        }
    }
    Ok(())
}

/// How records are turned into features.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    serde::Serialize,
    serde::Deserialize,
    clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum DecodeMode {
    /// Features from the compact fields directly (fast; piece codes checked).
    #[default]
    Fast,
    /// Full `kage_engine::Position` through the engine's FEN parser, then
    /// `features::active_features` (validates legality; slower).
    Position,
}

/// Decodes one record into a sample.
pub fn sample_from_record(
    v: &'static Variant,
    rec: &PositionRecord,
    mode: DecodeMode,
) -> Result<Sample, String> {
    let mut stm_features = Vec::with_capacity(48);
    let mut nstm_features = Vec::with_capacity(48);
    match mode {
        DecodeMode::Position => {
            let pos = rec.pos.to_position(v).map_err(|e| e.to_string())?;
            let stm = pos.side_to_move();
            features::active_features(&pos, stm, &mut stm_features);
            features::active_features(&pos, !stm, &mut nstm_features);
        }
        DecodeMode::Fast => {
            let parts = rec.pos.to_parts().map_err(|e| e.to_string())?;
            let stm = match parts.stm {
                0 => Color::White,
                1 => Color::Black,
                s => return Err(format!("invalid side to move {s}")),
            };
            features_from_parts(v, &parts, stm, &mut stm_features)?;
            features_from_parts(v, &parts, !stm, &mut nstm_features)?;
        }
    }
    let mut flags = 0u8;
    if rec.flags.in_check() {
        flags |= SampleFlags::IN_CHECK;
    }
    if rec.flags.best_noisy() {
        flags |= SampleFlags::BEST_CAPTURE;
    }
    Ok(Sample {
        stm_features,
        nstm_features,
        score_cp: rec.score,
        result: rec.result.as_f32(),
        ply: rec.ply,
        flags: SampleFlags(flags),
    })
}

/// Training-position files of one variant.
#[derive(Debug, Clone)]
pub struct FileDataset {
    variant_name: String,
    variant: &'static Variant,
    files: Vec<PathBuf>,
    mode: DecodeMode,
}

impl FileDataset {
    /// A data set over `files`, which must all hold positions of `variant`.
    pub fn new(
        variant_name: &str,
        files: &[PathBuf],
        mode: DecodeMode,
    ) -> Result<FileDataset, TrainError> {
        Ok(FileDataset {
            variant_name: variant_name.to_string(),
            variant: variant(variant_name)?,
            files: files.to_vec(),
            mode,
        })
    }
}

/// Opens training-position files as a data set.
pub fn open_files(
    space: &FeatureSpace,
    files: &[PathBuf],
    mode: DecodeMode,
) -> Result<Arc<dyn Dataset>, TrainError> {
    Ok(Arc::new(FileDataset::new(&space.variant, files, mode)?))
}

struct FileSource {
    data: FileDataset,
    next_file: usize,
    reader: Option<(Reader<PositionRecord>, String, u64)>,
    pending: VecDeque<Sample>,
}

impl FileSource {
    fn refill(&mut self) -> Result<bool, DataError> {
        loop {
            if self.reader.is_none() {
                let Some(path) = self.data.files.get(self.next_file) else { return Ok(false) };
                self.next_file += 1;
                let shown = path.display().to_string();
                let r = Reader::<PositionRecord>::open_variant(path, &self.data.variant_name)
                    .map_err(|e| DataError::Other(format!("{shown}: {e}")))?;
                self.reader = Some((r, shown, 0));
            }
            let Some((reader, path, index)) = self.reader.as_mut() else { continue };
            let chunk =
                reader.next_chunk().map_err(|e| DataError::Other(format!("{path}: {e}")))?;
            let Some(records) = chunk else {
                self.reader = None;
                continue;
            };
            let (v, mode) = (self.data.variant, self.data.mode);
            let decoded: Vec<Result<Sample, String>> = records
                .par_iter()
                .with_min_len(64)
                .map(|r| sample_from_record(v, r, mode))
                .collect();
            for (i, d) in decoded.into_iter().enumerate() {
                let s = d.map_err(|reason| DataError::BadRecord {
                    path: path.clone(),
                    index: *index + i as u64,
                    reason,
                })?;
                self.pending.push_back(s);
            }
            *index += records.len() as u64;
            if !self.pending.is_empty() {
                return Ok(true);
            }
        }
    }
}

impl PositionSource for FileSource {
    fn next_sample(&mut self) -> Result<Option<Sample>, DataError> {
        if self.pending.is_empty() && !self.refill()? {
            return Ok(None);
        }
        Ok(self.pending.pop_front())
    }
}

impl Dataset for FileDataset {
    fn open(&self) -> Result<Box<dyn PositionSource>, DataError> {
        Ok(Box::new(FileSource {
            data: self.clone(),
            next_file: 0,
            reader: None,
            pending: VecDeque::new(),
        }))
    }

    fn describe(&self) -> String {
        format!("{} file(s) of {} positions", self.files.len(), self.variant_name)
    }
}
