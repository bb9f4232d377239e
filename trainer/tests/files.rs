//! Training on real data-crate files: positions from random legal playouts.

mod common;

use common::Playouts;

use kage_data::PositionRecord;
use kage_engine::nnue::{Network, features};
use kage_engine::{Position, Variant};
use kage_train::data::decode::{FileDataset, sample_from_record};
use kage_train::training::config::DecodeMode;
use kage_train::training::config::FilterConfig;
use kage_train::{BlockList, Dataset, RunOptions, TrainConfig};
use std::path::Path;

fn write_playouts(path: &Path, variant: &str, games: u64, seed: u64) -> Vec<PositionRecord> {
    let playouts = Playouts { variant, games, plies: 40, seed, chunk_bytes: None };
    playouts.write(path, |g, pos, state| {
        let score = ((state >> 20) % 600) as i16 - 300;
        let winner = if g % 3 == 0 { None } else { Some(pos.side_to_move()) };
        (score, winner)
    })
}

#[test]
fn trains_on_position_files_with_engine_features() {
    let dir = common::temp_dir("files");
    let file = dir.join("minishogi.kdat");
    let records = write_playouts(&file, "minishogi", 30, 0x2545_f491_4f6c_dd1d);
    // Validation on other playouts of the same kind (a file both trains and validates is
    // refused: its positions would be counted twice).
    let val_file = dir.join("minishogi-val.kdat");
    write_playouts(&val_file, "minishogi", 30, 0x9e37_79b9_7f4a_7c15);
    let v = Variant::by_name("minishogi").expect("variant");

    // The source decodes every record, in file order, with the engine's features.
    let ds = FileDataset::new("minishogi", std::slice::from_ref(&file), DecodeMode::Fast)
        .expect("dataset");
    let mut src = ds.open().expect("open");
    let mut n = 0;
    while let Some(s) = src.next_sample().expect("sample") {
        let pos = records[n].pos.to_position(v).expect("decodes");
        let mut want = Vec::new();
        features::active_features(&pos, pos.side_to_move(), &mut want);
        assert_eq!(s.stm_features, want);
        assert_eq!(s, sample_from_record(v, &records[n], DecodeMode::Position).expect("decodes"));
        n += 1;
    }
    assert_eq!(n, records.len());

    // The parallel block path gives the same samples in the same order.
    let mut src = ds.open().expect("open");
    let mut blocks = BlockList::default();
    let mut m = 0;
    loop {
        blocks.clear();
        src.next_blocks(&mut blocks).expect("blocks");
        if blocks.num_samples() == 0 {
            break;
        }
        for b in blocks.blocks() {
            for i in 0..b.len() {
                let want = sample_from_record(v, &records[m], DecodeMode::Fast).expect("decodes");
                assert_eq!(b.to_sample(i), want);
                m += 1;
            }
        }
    }
    assert_eq!(m, records.len());

    let cfg = TrainConfig {
        variant: "minishogi".into(),
        data: vec![file.clone()],
        val_data: vec![val_file.clone()],
        ft_size: 16,
        head_size: 8,
        epochs: 2,
        batch_size: 64,
        shuffle_buffer: 256,
        filter: FilterConfig { min_ply: 2, ..FilterConfig::default() },
        ..TrainConfig::default()
    };
    let summary = kage_train::run(cfg, &dir.join("run"), RunOptions::default()).expect("trains");
    assert!(summary.history[1].positions > 500);
    // With --val-data nothing is held out of training and validation runs on its file.
    assert!(summary.history.iter().all(|m| m.val_loss.is_finite()));
    let diff = (summary.history[1].val_loss - summary.history[1].train_loss).abs();
    assert!(
        diff < 0.05,
        "val {} vs train {}",
        summary.history[1].val_loss,
        summary.history[1].train_loss
    );
    let bytes = std::fs::read(&summary.net_path).expect("net");
    let net =
        Network::load_for(&bytes, "minishogi", features::FEATURE_SET_ID, features::num_features(v))
            .expect("the engine accepts the net");
    let start = Position::startpos(v);
    let (mut a, mut b) = (Vec::new(), Vec::new());
    features::active_features(&start, start.side_to_move(), &mut a);
    features::active_features(&start, !start.side_to_move(), &mut b);
    let cp = net.evaluate(&a, &b);
    assert!(cp.abs() < 2000, "start position eval {cp}");
}

#[test]
fn score_wdl_targets_are_the_models_expected_result_for_the_side_to_move() {
    use kage_engine::Color;
    use kage_engine::eval::wdl::WdlModel;
    use kage_train::TargetBlend;
    use kage_train::data::score_wdl::ScoreWdlConfig;
    use std::sync::Arc;

    let dir = common::temp_dir("score-wdl");
    let file = dir.join("minishogi.kdat");
    let records = write_playouts(&file, "minishogi", 6, 0x1234_5678_9abc_def1);
    let wdl = dir.join("m.wdl.toml");
    let text = "variant = \"minishogi\"\nevaluator = \"net\"\na = 10.0\nb = 150.0\noffset = 50.0\n\
                [[bucket]]\nby = \"ply\"\nfrom = 20\na = 0.0\nb = 100.0\noffset = -120.0\n";
    std::fs::write(&wdl, text).expect("write");
    let cfg = ScoreWdlConfig::read(&wdl, "minishogi").expect("read");
    let blend = TargetBlend::new(1.0, 400.0).with_wdl(Some(Arc::new(cfg.models().expect("ok"))));

    let ds = FileDataset::new("minishogi", std::slice::from_ref(&file), DecodeMode::Fast)
        .expect("dataset");
    let mut src = ds.open().expect("open");
    let (early, late) = (
        WdlModel::new(10.0, 150.0, 50.0).expect("model"),
        WdlModel::new(0.0, 100.0, -120.0).expect("model"),
    );
    let mut blacks = 0;
    for rec in &records {
        let s = src.next_sample().expect("sample").expect("one per record");
        let stm = rec.side_to_move();
        assert_eq!(s.flags.black_to_move(), stm == Color::Black);
        blacks += usize::from(stm == Color::Black);
        let m = if rec.ply < 20 { &early } else { &late };
        let want = m.expected(m.centred(i32::from(rec.score), stm)) as f32;
        assert!((blend.target(&s) - want).abs() < 1e-6, "ply {} score {}", rec.ply, rec.score);
    }
    assert!(blacks > 0 && blacks < records.len());
}
