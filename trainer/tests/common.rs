//! Shared helpers for the trainer's integration tests.
#![allow(dead_code)]

use kage_data::{FileHeader, PositionRecord, RecordKind, Writer};
use kage_engine::nnue::fsf::FsfLayout;
use kage_engine::{Color, Position, Variant};
use kage_train::data::synthetic::SyntheticConfig;
use kage_train::training::config::{Arch, FSF_FT_SIZE, FilterConfig, LrSchedule, TrainConfig};
use std::path::{Path, PathBuf};

/// A fresh, empty temporary directory for one test, removed when the test ends (dropped).
/// It reads as the `Path` it holds.
pub struct TestDir(tempfile::TempDir);

impl std::ops::Deref for TestDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        self.0.path()
    }
}

impl AsRef<std::ffi::OsStr> for TestDir {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.0.path().as_os_str()
    }
}

/// A [`TestDir`] whose name starts `kage-train-test-NAME-`.
pub fn temp_dir(name: &str) -> TestDir {
    let dir = tempfile::Builder::new().prefix(&format!("kage-train-test-{name}-")).tempdir();
    TestDir(dir.expect("create temp dir"))
}

/// A tiny but learnable configuration (trains in well under a second).
pub fn tiny_config(epochs: u32) -> TrainConfig {
    TrainConfig {
        variant: "minishogi".into(),
        synthetic: Some(SyntheticConfig {
            positions: 6000,
            num_features: 160,
            min_active: 6,
            max_active: 14,
            seed: 7,
        }),
        ft_size: 16,
        head_size: 8,
        epochs,
        batch_size: 128,
        lr: 5e-3,
        lr_schedule: LrSchedule::Cosine,
        lr_min: 5e-4,
        shuffle_buffer: 2000,
        val_fraction: 0.1,
        val_max: 2000,
        filter: FilterConfig {
            min_ply: 0,
            skip_in_check: true,
            skip_noisy: false,
            max_abs_score: 3000,
        },
        ..TrainConfig::default()
    }
}

/// The HalfKAv2 layout of a built-in variant.
pub fn fsf_layout(name: &str) -> FsfLayout {
    FsfLayout::for_variant(Variant::by_name(name).expect("variant")).expect("layout")
}

/// [`tiny_config`] for the fsf architecture: synthetic minishogi HalfKAv2 features.
pub fn fsf_config(epochs: u32) -> TrainConfig {
    let dims = fsf_layout("minishogi").dims();
    let mut cfg = tiny_config(epochs);
    cfg.arch = Arch::Fsf;
    cfg.ft_size = FSF_FT_SIZE;
    cfg.lr = 1e-3;
    cfg.lr_schedule = LrSchedule::Constant;
    if let Some(s) = cfg.synthetic.as_mut() {
        *s = SyntheticConfig { positions: 2000, num_features: dims, ..s.clone() };
    }
    cfg
}

/// The one `.nnue` file in `dir` (an fsf run's net, named by FSF's rule).
pub fn fsf_net(dir: &Path) -> PathBuf {
    let mut nets: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("run dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "nnue"))
        .collect();
    assert_eq!(nets.len(), 1, "one net in {}", dir.display());
    nets.remove(0)
}

/// Random legal playouts written as a position file (moves drawn from an xorshift64 stream).
pub struct Playouts<'a> {
    /// Variant name.
    pub variant: &'a str,
    /// Games played.
    pub games: u64,
    /// Plies at most per game.
    pub plies: u16,
    /// Start of the xorshift64 stream (not 0).
    pub seed: u64,
    /// Chunk payload target in bytes (the writer's default if `None`).
    pub chunk_bytes: Option<usize>,
}

impl Playouts<'_> {
    /// Writes the playouts to `path` and returns the records; `label(game, position, state)`
    /// gives each position's score and winner (`state`: the stream value that chose its move).
    pub fn write(
        &self,
        path: &Path,
        label: impl FnMut(u64, &Position, u64) -> (i16, Option<Color>),
    ) -> Vec<PositionRecord> {
        let v = Variant::by_name(self.variant).expect("variant");
        self.write_rules(path, v, "test playouts", label)
    }

    /// [`Self::write`] for the rules `v` (a user variant too), the header's config `config`.
    pub fn write_rules(
        &self,
        path: &Path,
        v: &'static Variant,
        config: &str,
        mut label: impl FnMut(u64, &Position, u64) -> (i16, Option<Color>),
    ) -> Vec<PositionRecord> {
        let header =
            FileHeader::new(RecordKind::Position, &v.name, config, "test", "kage-train tests")
                .expect("header");
        let mut w = Writer::<PositionRecord>::create(path, header).expect("writer");
        if let Some(bytes) = self.chunk_bytes {
            w.set_chunk_target(bytes);
        }
        let mut all = Vec::new();
        let mut state = self.seed;
        for g in 0..self.games {
            let mut pos = Position::startpos(v);
            for ply in 0..self.plies {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let m = moves.as_slice()[(state % moves.len() as u64) as usize];
                let (score, winner) = label(g, &pos, state);
                let rec = PositionRecord::from_position(&pos, score, winner, ply, Some(m), None)
                    .expect("record");
                w.write(&rec).expect("write");
                all.push(rec);
                pos.play(m);
            }
        }
        w.finish().expect("finish");
        all
    }
}
