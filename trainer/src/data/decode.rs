//! Training-position files of the `data` crate as a [`Dataset`].
//!
//! Each record's both perspectives are encoded with the engine's feature encoder: straight
//! from the compact form (`kage_engine::nnue::features::write_features`, [`DecodeMode::Fast`])
//! or through a validated `kage_engine::Position` ([`DecodeMode::Position`]). Records are
//! read one chunk at a time and a chunk is decoded in parallel (rayon, order preserved), so
//! the stream order is the file order whatever the thread count.

use crate::data::sample::{
    BlockList, Dataset, PositionSource, Sample, SampleBlock, SampleFlags, SampleMeta, SourceError,
};
use crate::data::space::FeatureSpace;
use crate::training::config::DecodeMode;
use kage_data::fsf_bin::{BinError, BinReader, Converter};
use kage_data::{CompactError, PositionRecord, Reader};
use kage_engine::Variant;
use kage_engine::nnue::features;
use kage_engine::nnue::fsf::FsfLayout;
use rayon::prelude::*;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Which features a record becomes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Encoding {
    /// The small net's features, decoded as the mode says.
    Small(DecodeMode),
    /// Fairy-Stockfish's HalfKAv2_variants features of the engine's layout (through a
    /// validated `Position`).
    Fsf(Arc<FsfLayout>),
}

impl From<DecodeMode> for Encoding {
    fn from(mode: DecodeMode) -> Encoding {
        Encoding::Small(mode)
    }
}

/// Decodes one record into a sample (the small net's features).
pub fn sample_from_record(
    v: &'static Variant,
    rec: &PositionRecord,
    mode: DecodeMode,
) -> Result<Sample, CompactError> {
    sample_with(v, rec, &Encoding::Small(mode))
}

/// Decodes one record into a sample with the features of `enc`.
pub fn sample_with(
    v: &'static Variant,
    rec: &PositionRecord,
    enc: &Encoding,
) -> Result<Sample, CompactError> {
    let mut stm_features = Vec::with_capacity(2 * features::MAX_ACTIVE);
    let (stm_len, meta) = record_features(v, rec, enc, &mut stm_features)?;
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
    enc: &Encoding,
    block: &mut SampleBlock,
) -> Result<(), CompactError> {
    match record_features(v, rec, enc, block.features_mut()) {
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
    enc: &Encoding,
    out: &mut Vec<u32>,
) -> Result<(usize, SampleMeta), CompactError> {
    let start = out.len();
    let mode = match enc {
        Encoding::Small(mode) => *mode,
        Encoding::Fsf(layout) => {
            let pos = rec.pos.to_position(v)?;
            let stm_len = crate::model::fsf::position_features(layout, &pos, out);
            return Ok((stm_len, record_meta(rec)));
        }
    };
    let stm_len = match mode {
        DecodeMode::Position => {
            let pos = rec.pos.to_position(v)?;
            let stm = pos.side_to_move();
            features::active_features(&pos, stm, out);
            let stm_len = out.len() - start;
            features::active_features(&pos, !stm, out);
            stm_len
        }
        DecodeMode::Fast => rec.pos.features_both_sides(v, out)?,
    };
    Ok((stm_len, record_meta(rec)))
}

fn record_meta(rec: &PositionRecord) -> SampleMeta {
    let mut flags = 0u8;
    if rec.flags.in_check() {
        flags |= SampleFlags::IN_CHECK;
    }
    if rec.flags.best_noisy() {
        flags |= SampleFlags::BEST_NOISY;
    }
    if rec.side_to_move() == kage_engine::Color::Black {
        flags |= SampleFlags::BLACK_TO_MOVE;
    }
    SampleMeta {
        score_cp: rec.score,
        result: rec.result.as_f32(),
        ply: rec.ply,
        flags: SampleFlags(flags),
    }
}

/// Records decoded per parallel task.
const PART: usize = 512;

/// Training-position files of one variant.
#[derive(Debug, Clone)]
pub struct FileDataset {
    variant_name: String,
    variant: &'static Variant,
    files: Vec<PathBuf>,
    mode: Encoding,
    allow_damaged: bool,
}

impl FileDataset {
    /// A data set over `files`, which must all hold positions of `variant` (resolved from
    /// their headers: a built-in or the user variant they carry).
    pub fn new(
        variant_name: &str,
        files: &[PathBuf],
        mode: DecodeMode,
    ) -> Result<FileDataset, SourceError> {
        Ok(FileDataset {
            variant_name: variant_name.to_string(),
            variant: crate::data::space::variant_of_files(variant_name, files)?,
            files: files.to_vec(),
            mode: Encoding::Small(mode),
            allow_damaged: false,
        })
    }

    /// With Fairy-Stockfish's features of `layout` (`None`: the small net's).
    pub fn fsf(mut self, layout: Option<Arc<FsfLayout>>) -> FileDataset {
        if let Some(l) = layout {
            self.mode = Encoding::Fsf(l);
        }
        self
    }

    /// Whether files with damaged chunks are read (what is left of them, with a warning on
    /// standard error) instead of being an error.
    pub fn allow_damaged(mut self, allow: bool) -> FileDataset {
        self.allow_damaged = allow;
        self
    }
}

/// What a file's damaged chunks lost.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{path}: {regions} damaged region(s), {skipped} bytes skipped ({}); first: {first}",
    self.lost()
)]
pub struct DamageReport {
    /// The file.
    pub path: String,
    /// Damaged regions.
    pub regions: usize,
    /// Bytes skipped.
    pub skipped: u64,
    /// Records read.
    pub read: u64,
    /// Records the file declares, if it does.
    pub declared: Option<u64>,
    /// Why the first region was rejected.
    pub first: String,
}

impl DamageReport {
    fn lost(&self) -> String {
        match self.declared {
            Some(total) if total > self.read => {
                format!("{} of {total} records lost", total - self.read)
            }
            _ => format!("{} records read", self.read),
        }
    }
}

/// After a file was read to its end: its damage, as an error unless `allow` (then as a
/// warning on standard error).
fn check_damage(
    reader: &Reader<PositionRecord>,
    path: &str,
    allow: bool,
) -> Result<(), SourceError> {
    let damage = reader.damage();
    let Some(first) = damage.first() else { return Ok(()) };
    let report = DamageReport {
        path: path.to_string(),
        regions: damage.len(),
        skipped: reader.damaged_bytes(),
        read: reader.records_read(),
        declared: reader.declared_records(),
        first: first.reason.clone(),
    };
    if allow {
        eprintln!("kage-train: warning: {report}; training on the rest (--allow-damaged)");
        Ok(())
    } else {
        Err(SourceError::Damaged(report))
    }
}

/// Opens training-position files as a data set.
pub fn open_files(
    space: &FeatureSpace,
    files: &[PathBuf],
    mode: DecodeMode,
    allow_damaged: bool,
) -> Result<Arc<dyn Dataset>, SourceError> {
    let ds = FileDataset::new(&space.variant, files, mode)?.fsf(space.fsf.clone());
    Ok(Arc::new(ds.allow_damaged(allow_damaged)))
}

/// Whether `path` is Fairy-Stockfish `.bin` training data rather than a kage data file: not
/// starting with kage's magic and named `*.bin` (a `.bin` file has no header of its own).
pub fn is_fsf_bin(path: &Path) -> bool {
    let mut magic = [0u8; 8];
    let kage = std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut magic))
        .is_ok_and(|()| &magic == b"KAGEDATA");
    !kage && path.extension().is_some_and(|e| e.eq_ignore_ascii_case("bin"))
}

/// Records of FSF `.bin` files read per call (the chunk of a `.bin` stream).
const BIN_CHUNK: usize = 4096;

/// An open data file: a kage file, or FSF `.bin` data converted record by record
/// ([`kage_data::fsf_bin::Converter::from_fsf`], as `kage-data import-bin` converts it).
enum OpenFile {
    Kage(Box<Reader<PositionRecord>>),
    Bin(BinReader<std::io::BufReader<std::fs::File>>, Box<Converter>),
}

impl OpenFile {
    fn open(path: &Path, data: &FileDataset) -> Result<OpenFile, SourceError> {
        if is_fsf_bin(path) {
            let conv = Converter::new(data.variant).map_err(SourceError::BinLayout)?;
            let r = BinReader::open(path).map_err(SourceError::Bin)?;
            return Ok(OpenFile::Bin(r, Box::new(conv)));
        }
        // The data crate's errors name the file already.
        Reader::<PositionRecord>::open_variant(path, &data.variant_name)
            .map(|r| OpenFile::Kage(Box::new(r)))
            .map_err(SourceError::File)
    }

    /// The next chunk of records; `None` at the end (after checking for damage).
    fn next_chunk(
        &mut self,
        path: &str,
        allow_damaged: bool,
    ) -> Result<Option<Vec<PositionRecord>>, SourceError> {
        match self {
            OpenFile::Kage(reader) => {
                let chunk = Reader::next_chunk(reader).map_err(SourceError::File)?;
                if chunk.is_none() {
                    check_damage(reader, path, allow_damaged)?;
                }
                Ok(chunk)
            }
            OpenFile::Bin(reader, conv) => {
                let first = reader.records_read();
                let mut raw = Vec::with_capacity(BIN_CHUNK);
                match reader.read_many(BIN_CHUNK, &mut raw) {
                    Ok(_) => {}
                    Err(e @ BinError::Truncated { .. }) if allow_damaged => {
                        eprintln!("kage-train: warning: {e}; training on the whole records");
                    }
                    Err(e) => return Err(SourceError::Bin(e)),
                }
                if raw.is_empty() {
                    return Ok(None);
                }
                let converted: Vec<Result<PositionRecord, _>> =
                    raw.par_iter().with_min_len(64).map(|r| conv.from_fsf(r)).collect();
                let mut out = Vec::with_capacity(converted.len());
                for (i, c) in converted.into_iter().enumerate() {
                    let rec = c.map_err(|reason| {
                        SourceError::Bin(reader.record_error(first + i as u64, reason))
                    })?;
                    out.push(rec);
                }
                Ok(Some(out))
            }
        }
    }
}

struct FileSource {
    data: FileDataset,
    next_file: usize,
    reader: Option<(OpenFile, String, u64)>,
    pending: VecDeque<Sample>,
}

impl FileSource {
    /// The next chunk of records of the current file, opening the next file when one ends;
    /// `None` after the last file.
    fn next_records(&mut self) -> Result<Option<Vec<PositionRecord>>, SourceError> {
        loop {
            if self.reader.is_none() {
                let Some(path) = self.data.files.get(self.next_file) else { return Ok(None) };
                self.next_file += 1;
                let shown = path.display().to_string();
                let r = OpenFile::open(path, &self.data)?;
                self.reader = Some((r, shown, 0));
            }
            let Some((reader, path, _)) = self.reader.as_mut() else { continue };
            match reader.next_chunk(path, self.data.allow_damaged)? {
                Some(records) if !records.is_empty() => return Ok(Some(records)),
                Some(_) => {}
                None => self.reader = None,
            }
        }
    }

    fn refill(&mut self) -> Result<bool, SourceError> {
        loop {
            let Some(records) = self.next_records()? else { return Ok(false) };
            let Some((_, path, index)) = self.reader.as_mut() else { return Ok(false) };
            let (v, mode) = (self.data.variant, &self.data.mode);
            let decoded: Vec<Result<Sample, CompactError>> =
                records.par_iter().with_min_len(64).map(|r| sample_with(v, r, mode)).collect();
            for (i, d) in decoded.into_iter().enumerate() {
                let s = d.map_err(|reason| SourceError::BadRecord {
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
    fn next_sample(&mut self) -> Result<Option<Sample>, SourceError> {
        if self.pending.is_empty() && !self.refill()? {
            return Ok(None);
        }
        Ok(self.pending.pop_front())
    }

    /// One chunk of records per call, decoded in parallel (tasks of `PART` records) straight
    /// into the blocks. A chunk with a bad record yields none of its samples, as with
    /// [`PositionSource::next_sample`].
    fn next_blocks(&mut self, out: &mut BlockList) -> Result<(), SourceError> {
        if !self.pending.is_empty() {
            let block = &mut out.extend(1)[0];
            for s in self.pending.drain(..) {
                block.push_sample(&s);
            }
            return Ok(());
        }
        let Some(records) = self.next_records()? else { return Ok(()) };
        let Some((_, path, index)) = self.reader.as_mut() else { return Ok(()) };
        let (v, mode) = (self.data.variant, &self.data.mode);
        let before = out.num_blocks();
        let blocks = out.extend(records.len().div_ceil(PART));
        let failures: Vec<Option<(usize, CompactError)>> = records
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
            return Err(SourceError::BadRecord {
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
    fn open(&self) -> Result<Box<dyn PositionSource>, SourceError> {
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
    use kage_data::PositionFlags;
    use kage_data::StmResult;
    use kage_data::compact::NO_PIECE;
    use kage_data::{CompactPosition, PositionParts};
    use kage_engine::Color;

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
            result: StmResult::Draw,
            ply: 0,
            mv: 0,
            flags: PositionFlags::default(),
        }
    }

    #[test]
    fn fast_path_matches_the_position_path_and_refuses_bad_codes() {
        let v = Variant::by_name("minishogi").expect("variant");
        let king = v.hand_kinds[0].index() as u8; // any hand kind, as a board piece too
        let good = record(vec![king, 0x20 | king], 0b1001, vec![(king, 2), (0x20 | king, 1)]);
        let fast = sample_from_record(v, &good, DecodeMode::Fast).expect("valid codes");
        let mut want = Vec::new();
        let parts = good.pos.to_parts().expect("parts");
        let codes = kage_engine::nnue::features::PieceCodes {
            occupancy: parts.occupancy,
            board: &parts.board,
            hands: good.pos.piece_codes(v).expect("codes").hands,
        };
        features::write_features(v, &codes, Color::White, &mut want).expect("ok");
        assert_eq!(fast.stm_features, want);
        assert_eq!(fast.stm_features.len(), 2 + 3, "two board pieces, three in hand");

        // A kind the variant does not have (valid for the file format).
        let bad_board = record(vec![23], 1, vec![]);
        let e = sample_from_record(v, &bad_board, DecodeMode::Fast).expect_err("bad piece");
        assert!(e.to_string().contains("invalid piece code"), "{e}");
        let mut block = SampleBlock::default();
        assert!(record_into_block(v, &bad_board, &DecodeMode::Fast.into(), &mut block).is_err());
        assert!(block.is_empty() && block.pending_features() == 0);

        // A piece kind that cannot be in hand.
        let not_hand = (0..v.num_kinds() as u8)
            .find(|k| !v.hand_kinds.iter().any(|h| h.index() == usize::from(*k)));
        if let Some(k) = not_hand {
            let bad_hand = record(vec![king], 1, vec![(k, 1)]);
            let e = sample_from_record(v, &bad_hand, DecodeMode::Fast).expect_err("bad hand");
            assert!(e.to_string().contains("in hand"), "{e}");
        }
    }
}
