//! Training-position files of the `data` crate as a [`Dataset`].
//!
//! Each record's compact position is decoded to a `kage_engine::Position` (validated by the
//! engine's FEN parser) and both perspectives are encoded with
//! `kage_engine::nnue::features::active_features`. Records are read one chunk at a time and a
//! chunk is decoded in parallel (rayon, order preserved), so the stream order is the file
//! order whatever the thread count.

use crate::error::TrainError;
use crate::sample::{
    BlockList, DataError, Dataset, PositionSource, Sample, SampleBlock, SampleFlags, SampleMeta,
};
use crate::space::FeatureSpace;
use kage_data::compact::NO_PIECE;
use kage_data::{CompactPosition, PositionParts, PositionRecord, Reader};
use kage_engine::nnue::features;
use kage_engine::types::MAX_KINDS;
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
    let mut stm_features = Vec::with_capacity(96);
    let (stm_len, meta) = record_features(v, rec, mode, &mut stm_features)?;
    let nstm_features = stm_features.split_off(stm_len);
    Ok(Sample {
        stm_features,
        nstm_features,
        score_cp: meta.score_cp,
        result: meta.result,
        ply: meta.ply,
        flags: meta.flags,
    })
}

/// Decodes one record and appends it to `block` (nothing is appended on error).
pub fn record_into_block(
    v: &'static Variant,
    rec: &PositionRecord,
    mode: DecodeMode,
    block: &mut SampleBlock,
) -> Result<(), String> {
    match record_features(v, rec, mode, block.features_mut()) {
        Ok((stm_len, meta)) => {
            block.commit(stm_len, meta);
            Ok(())
        }
        Err(e) => {
            block.rollback();
            Err(e)
        }
    }
}

/// Appends the side to move's then the other side's features of `rec` to `out`; returns
/// the side-to-move count and the scalar fields.
fn record_features(
    v: &'static Variant,
    rec: &PositionRecord,
    mode: DecodeMode,
    out: &mut Vec<u32>,
) -> Result<(usize, SampleMeta), String> {
    let start = out.len();
    let stm_len = match mode {
        DecodeMode::Position => {
            let pos = rec.pos.to_position(v).map_err(|e| e.to_string())?;
            let stm = pos.side_to_move();
            features::active_features(&pos, stm, out);
            let stm_len = out.len() - start;
            features::active_features(&pos, !stm, out);
            stm_len
        }
        DecodeMode::Fast => {
            if let Some(stm_len) = compact_features(v, &rec.pos, out) {
                return Ok((stm_len, record_meta(rec)));
            }
            // Something is off: the checked path below reports what.
            let parts = rec.pos.to_parts().map_err(|e| e.to_string())?;
            let stm = match parts.stm {
                0 => Color::White,
                1 => Color::Black,
                s => return Err(format!("invalid side to move {s}")),
            };
            features_from_parts(v, &parts, stm, out)?;
            let stm_len = out.len() - start;
            features_from_parts(v, &parts, !stm, out)?;
            stm_len
        }
    };
    Ok((stm_len, record_meta(rec)))
}

fn record_meta(rec: &PositionRecord) -> SampleMeta {
    let mut flags = 0u8;
    if rec.flags.in_check() {
        flags |= SampleFlags::IN_CHECK;
    }
    if rec.flags.best_noisy() {
        flags |= SampleFlags::BEST_CAPTURE;
    }
    SampleMeta {
        score_cp: rec.score,
        result: rec.result.as_f32(),
        ply: rec.ply,
        flags: SampleFlags(flags),
    }
}

/// [`features_from_parts`] for both perspectives (side to move's first) straight from the
/// compact bytes, without allocating: returns the side-to-move count, or `None` (appending
/// nothing) when the record is not plainly valid — a code `to_parts` would reject, a piece
/// or square outside the variant, a hand that is not sorted — so that the caller takes the
/// checked `to_parts` path, which reports the error. Same features in the same order.
fn compact_features(
    v: &'static Variant,
    cp: &CompactPosition,
    out: &mut Vec<u32>,
) -> Option<usize> {
    let stm = match cp.stm() {
        0 => Color::White,
        1 => Color::Black,
        _ => return None,
    };
    let occupancy = cp.occupancy();
    let bytes = cp.piece_bytes();
    let n = occupancy.count_ones() as usize;
    if n > bytes.len() {
        return None;
    }
    // `to_parts` accepts color bit 5 and kind below 24 only; the variant has fewer kinds.
    let piece = |code: u8| {
        let ok =
            code & 0xc0 == 0 && usize::from(code & 0x1f) < MAX_KINDS.min(24).min(v.num_kinds());
        ok.then(|| Piece::from_code(code)).flatten()
    };
    let (board, hand) = bytes.split_at(n);
    let mut counts = [[0u8; MAX_KINDS]; 2];
    let (mut previous, mut padding) = (0u8, false);
    for &code in hand {
        if code == NO_PIECE {
            padding = true;
            continue;
        }
        let p = piece(code)?;
        if padding || code < previous || !v.hand_kinds.contains(&p.kind) {
            return None;
        }
        previous = code;
        counts[p.color.index()][p.kind.index()] += 1;
    }
    let start = out.len();
    let mut stm_len = 0;
    for perspective in [stm, !stm] {
        let mut occ = occupancy;
        for &code in board {
            let sq = occ.trailing_zeros() as u8;
            occ &= occ.wrapping_sub(1);
            match piece(code) {
                Some(p) if sq < v.num_squares => {
                    out.push(features::piece_feature(v, perspective, p, sq));
                }
                _ => {
                    out.truncate(start);
                    return None;
                }
            }
        }
        for owner in [perspective, !perspective] {
            for &kind in &v.hand_kinds {
                for slot in 0..counts[owner.index()][kind.index()] {
                    if let Some(f) = features::hand_feature(v, perspective, owner, kind, slot) {
                        out.push(f);
                    }
                }
            }
        }
        if perspective == stm {
            stm_len = out.len() - start;
        }
    }
    Some(stm_len)
}

/// Records decoded per parallel task.
const PART: usize = 512;

/// Training-position files of one variant.
#[derive(Debug, Clone)]
pub struct FileDataset {
    variant_name: String,
    variant: &'static Variant,
    files: Vec<PathBuf>,
    mode: DecodeMode,
    allow_damaged: bool,
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
            allow_damaged: false,
        })
    }

    /// Whether files with damaged chunks are read (what is left of them, with a warning on
    /// standard error) instead of being an error.
    pub fn allow_damaged(mut self, allow: bool) -> FileDataset {
        self.allow_damaged = allow;
        self
    }
}

/// After a file was read to its end: its damage, as an error unless `allow` (then as a
/// warning on standard error).
fn check_damage(reader: &Reader<PositionRecord>, path: &str, allow: bool) -> Result<(), DataError> {
    let damage = reader.damage();
    let Some(first) = damage.first() else { return Ok(()) };
    let lost = match reader.declared_records() {
        Some(total) if total > reader.records_read() => {
            format!("{} of {total} records lost", total - reader.records_read())
        }
        _ => format!("{} records read", reader.records_read()),
    };
    let what = format!(
        "{path}: {} damaged region(s), {} bytes skipped ({lost}); first: {}",
        damage.len(),
        reader.damaged_bytes(),
        first.reason
    );
    if allow {
        eprintln!("kage-train: warning: {what}; training on the rest (--allow-damaged)");
        Ok(())
    } else {
        Err(DataError::Other(format!(
            "{what}; refusing to train on part of the data: pass --allow-damaged to accept the \
             loss, or salvage the file with `kage-data repair`"
        )))
    }
}

/// Opens training-position files as a data set.
pub fn open_files(
    space: &FeatureSpace,
    files: &[PathBuf],
    mode: DecodeMode,
    allow_damaged: bool,
) -> Result<Arc<dyn Dataset>, TrainError> {
    Ok(Arc::new(FileDataset::new(&space.variant, files, mode)?.allow_damaged(allow_damaged)))
}

struct FileSource {
    data: FileDataset,
    next_file: usize,
    reader: Option<(Reader<PositionRecord>, String, u64)>,
    pending: VecDeque<Sample>,
}

impl FileSource {
    /// The next chunk of records of the current file, opening the next file when one ends;
    /// `None` after the last file.
    fn next_records(&mut self) -> Result<Option<Vec<PositionRecord>>, DataError> {
        loop {
            if self.reader.is_none() {
                let Some(path) = self.data.files.get(self.next_file) else { return Ok(None) };
                self.next_file += 1;
                let shown = path.display().to_string();
                // The data crate's errors name the file already.
                let r = Reader::<PositionRecord>::open_variant(path, &self.data.variant_name)
                    .map_err(|e| DataError::Other(e.to_string()))?;
                self.reader = Some((r, shown, 0));
            }
            let Some((reader, path, _)) = self.reader.as_mut() else { continue };
            let chunk = reader.next_chunk().map_err(|e| DataError::Other(e.to_string()))?;
            match chunk {
                Some(records) if !records.is_empty() => return Ok(Some(records)),
                Some(_) => {}
                None => {
                    check_damage(reader, path, self.data.allow_damaged)?;
                    self.reader = None;
                }
            }
        }
    }

    fn refill(&mut self) -> Result<bool, DataError> {
        loop {
            let Some(records) = self.next_records()? else { return Ok(false) };
            let Some((_, path, index)) = self.reader.as_mut() else { return Ok(false) };
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

    /// One chunk of records per call, decoded in parallel (tasks of `PART` records) straight
    /// into the blocks. A chunk with a bad record yields none of its samples, as with
    /// [`PositionSource::next_sample`].
    fn next_blocks(&mut self, out: &mut BlockList) -> Result<(), DataError> {
        if !self.pending.is_empty() {
            let block = &mut out.extend(1)[0];
            for s in self.pending.drain(..) {
                block.push_sample(&s);
            }
            return Ok(());
        }
        let Some(records) = self.next_records()? else { return Ok(()) };
        let Some((_, path, index)) = self.reader.as_mut() else { return Ok(()) };
        let (v, mode) = (self.data.variant, self.data.mode);
        let before = out.num_blocks();
        let blocks = out.extend(records.len().div_ceil(PART));
        let failures: Vec<Option<(usize, String)>> = records
            .par_chunks(PART)
            .zip(blocks.par_iter_mut())
            .map(|(recs, block)| {
                recs.iter().enumerate().find_map(|(i, r)| {
                    record_into_block(v, r, mode, block).err().map(|reason| (i, reason))
                })
            })
            .collect();
        if let Some((part, (i, reason))) =
            failures.into_iter().enumerate().find_map(|(p, f)| f.map(|f| (p, f)))
        {
            out.truncate(before);
            return Err(DataError::BadRecord {
                path: path.clone(),
                index: *index + (part * PART + i) as u64,
                reason,
            });
        }
        *index += records.len() as u64;
        Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;
    use kage_data::Outcome;
    use kage_data::PositionFlags;

    fn record(board: Vec<u8>, occupancy: u64, hand: Vec<(u8, u8)>) -> PositionRecord {
        let parts = PositionParts {
            occupancy,
            board,
            hand,
            stm: 0,
            castling: 0,
            ep: NO_PIECE,
            halfmove: 0,
            fullmove: 1,
        };
        PositionRecord {
            pos: CompactPosition::from_parts(&parts).expect("packs"),
            score: 0,
            result: Outcome::Draw,
            ply: 0,
            mv: 0,
            flags: PositionFlags::default(),
        }
    }

    #[test]
    fn compact_fast_path_matches_the_parts_path_and_falls_back_on_bad_codes() {
        let v = variant("minishogi").expect("variant");
        let king = v.hand_kinds[0].index() as u8; // any hand kind, as a board piece too
        let good = record(vec![king, 0x20 | king], 0b1001, vec![(king, 2), (0x20 | king, 1)]);
        let parts = good.pos.to_parts().expect("parts");
        let mut want = Vec::new();
        features_from_parts(v, &parts, Color::White, &mut want).expect("ok");
        let stm_len = want.len();
        features_from_parts(v, &parts, Color::Black, &mut want).expect("ok");
        let mut got = vec![7];
        assert_eq!(compact_features(v, &good.pos, &mut got), Some(stm_len));
        assert_eq!(&got[1..], &want[..]);

        // A kind the variant does not have (valid for the file format): not taken by the
        // fast path, and the checked path reports it.
        let bad_board = record(vec![23], 1, vec![]);
        let mut out = vec![7];
        assert_eq!(compact_features(v, &bad_board.pos, &mut out), None);
        assert_eq!(out, [7]);
        let e = sample_from_record(v, &bad_board, DecodeMode::Fast).expect_err("bad piece");
        assert!(e.contains("invalid piece code"), "{e}");
        let mut block = SampleBlock::default();
        assert!(record_into_block(v, &bad_board, DecodeMode::Fast, &mut block).is_err());
        assert!(block.is_empty() && block.pending_features() == 0);

        // A piece kind that cannot be in hand.
        let not_hand = (0..v.num_kinds() as u8)
            .find(|k| !v.hand_kinds.iter().any(|h| h.index() == usize::from(*k)));
        if let Some(k) = not_hand {
            let bad_hand = record(vec![king], 1, vec![(k, 1)]);
            assert_eq!(compact_features(v, &bad_hand.pos, &mut Vec::new()), None);
            let e = sample_from_record(v, &bad_hand, DecodeMode::Fast).expect_err("bad hand");
            assert!(e.contains("in hand"), "{e}");
        }
    }
}
