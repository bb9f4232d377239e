//! Training straight from Fairy-Stockfish `.bin` data: the same positions as a kage file
//! made from it (as `kage-data import-bin` makes it) train the same net.

mod common;

use common::Playouts;

use kage_data::fsf_bin::{BinWriter, Converter};
use kage_data::{FileHeader, PositionRecord, RecordKind, Writer};
use kage_engine::Variant;
use kage_engine::nnue::{Network, features};
use kage_train::data::decode::{FileDataset, is_fsf_bin};
use kage_train::training::config::{DecodeMode, FilterConfig};
use kage_train::{Dataset, RunOptions, TrainConfig};
use std::path::Path;

fn config(data: &Path) -> TrainConfig {
    TrainConfig {
        variant: "minishogi".into(),
        data: vec![data.to_path_buf()],
        ft_size: 16,
        head_size: 8,
        epochs: 1,
        batch_size: 64,
        shuffle_buffer: 256,
        filter: FilterConfig { min_ply: 2, ..FilterConfig::default() },
        ..TrainConfig::default()
    }
}

#[test]
fn bin_data_trains_the_same_net_as_its_imported_kage_file() {
    let dir = common::temp_dir("fsf-bin");
    let v = Variant::by_name("minishogi").expect("variant");
    let conv = Converter::new(v).expect("layout");
    let playouts =
        Playouts { variant: "minishogi", games: 30, plies: 40, seed: 77, chunk_bytes: None };
    let records = playouts.write(&dir.join("self.kdata"), |g, pos, state| {
        let score = ((state >> 20) % 600) as i16 - 300;
        (score, if g % 3 == 0 { None } else { Some(pos.side_to_move()) })
    });

    // kage -> .bin, then .bin -> kage as import-bin converts it.
    let bin = dir.join("data.bin");
    let mut w = BinWriter::create(&bin).expect("create");
    for r in &records {
        w.write(&conv.to_fsf(r).expect("exports").record).expect("write");
    }
    w.finish().expect("finish");
    let imported = dir.join("imported.kdata");
    let header = FileHeader::new(RecordKind::Position, "minishogi", "[import]", "t", "test")
        .expect("header");
    let mut w = Writer::<PositionRecord>::create(&imported, header).expect("writer");
    let back = kage_data::fsf_bin::read_bin_file(&bin, &conv).expect("reads");
    w.write_all(&back).expect("write");
    w.finish().expect("finish");
    assert!(is_fsf_bin(&bin) && !is_fsf_bin(&imported));

    // The .bin source yields the imported file's samples, in order.
    let samples = |p: &Path| {
        let ds = FileDataset::new("minishogi", &[p.to_path_buf()], DecodeMode::Fast).expect("ds");
        let mut src = ds.open().expect("open");
        let mut out = Vec::new();
        while let Some(s) = src.next_sample().expect("sample") {
            out.push(s);
        }
        out
    };
    let from_bin = samples(&bin);
    assert_eq!(from_bin.len(), records.len());
    assert_eq!(from_bin, samples(&imported));

    let a = kage_train::run(config(&bin), &dir.join("run-bin"), RunOptions::default())
        .expect("trains on .bin");
    let b = kage_train::run(config(&imported), &dir.join("run-kdata"), RunOptions::default())
        .expect("trains on .kdata");
    assert_eq!(a.history.len(), 1);
    assert_eq!(a.history[0].positions, b.history[0].positions);
    assert_eq!(a.history[0].train_loss.to_bits(), b.history[0].train_loss.to_bits());
    // The nets differ only in the config they record (the data path): same weights, so the
    // same evaluation of every position.
    let load = |p: &Path| {
        let bytes = std::fs::read(p).expect("net");
        Network::load_for(&bytes, "minishogi", features::FEATURE_SET_ID, features::num_features(v))
            .expect("the engine loads the net")
    };
    let (na, nb) = (load(&a.net_path), load(&b.net_path));
    for s in &from_bin {
        let (x, y) = (
            na.evaluate(&s.stm_features, &s.nstm_features),
            nb.evaluate(&s.stm_features, &s.nstm_features),
        );
        assert_eq!(x, y);
    }

    // A .bin file needs a built-in --variant.
    let mut bad = config(&bin);
    bad.variant = "nosuchvariant".into();
    assert!(kage_train::run(bad, &dir.join("run-bad"), RunOptions::default()).is_err());
}
