//! End-to-end runs: loss goes down, artefacts are written, resume is exact, the exported
//! net matches the float model and is rejected when it does not fit.

mod common;

use common::{temp_dir, tiny_config};
use kage_engine::nnue::{NetError, Network};
use kage_train::data::space::SYNTHETIC_FEATURE_SET_ID;
use kage_train::data::synthetic::SyntheticDataset;
use kage_train::training::checkpoint;
use kage_train::training::run::names;
use kage_train::{RunOptions, Trainer};

#[test]
fn tiny_run_lowers_losses_and_writes_artefacts() {
    let dir = temp_dir("lowers");
    let cfg = tiny_config(4);
    let data = SyntheticDataset::new(cfg.synthetic.clone().expect("synthetic"));
    let probe: Vec<_> = (0..1500).map(|i| data.sample(100_000 + i)).collect();
    let initial = Trainer::new(cfg.clone(), 160).loss_on(&probe);
    let summary = kage_train::run(cfg, &dir, RunOptions::default()).expect("training runs");
    let h = &summary.history;
    assert_eq!(h.len(), 4);
    let (first, last) = (&h[0], &h[3]);
    assert!(
        last.train_loss < first.train_loss,
        "train loss {} -> {}",
        first.train_loss,
        last.train_loss
    );
    assert!(last.val_loss < first.val_loss, "val loss {} -> {}", first.val_loss, last.val_loss);
    assert!(last.val_loss < 0.8 * initial, "val loss {} vs untrained {initial}", last.val_loss);
    assert!(last.positions > 4000 && last.pos_per_s > 0.0);

    for f in [
        names::CONFIG,
        names::RUN_INFO,
        names::METRICS,
        names::LOSS_SVG,
        names::CHECKPOINT,
        names::NET,
    ] {
        assert!(dir.join(f).is_file(), "{f} missing");
    }
    let csv = std::fs::read_to_string(dir.join(names::METRICS)).expect("metrics");
    assert!(csv.starts_with("epoch,train_loss,val_loss,pos_per_s,lr,positions\n"));
    assert_eq!(csv.lines().count(), 5);
    let last_row: Vec<&str> = csv.lines().last().expect("row").split(',').collect();
    assert_eq!(last_row[5], last.positions.to_string());
    let svg = std::fs::read_to_string(dir.join(names::LOSS_SVG)).expect("svg");
    assert!(svg.contains("<svg") && svg.contains("polyline"));
    let info = std::fs::read_to_string(dir.join(names::RUN_INFO)).expect("run info");
    let again = kage_train::run(tiny_config(1), &dir, RunOptions::default()).unwrap_err();
    assert!(again.to_string().contains("already holds a training run"), "{again}");
    assert!(info.contains("git_revision") && info.contains("net_format_version = 1"));
}

#[test]
fn resume_matches_uninterrupted_run() {
    let full = temp_dir("resume-full");
    let part = temp_dir("resume-part");
    let cfg = tiny_config(3);
    let a = kage_train::run(cfg.clone(), &full, RunOptions::default()).expect("full run");
    let stopped = RunOptions { stop_after: Some(1), ..RunOptions::default() };
    let b1 = kage_train::run(cfg, &part, stopped).expect("first part");
    assert_eq!(b1.history.len(), 1);
    assert!(!part.join(names::NET).exists());
    let b = kage_train::resume(&part, None, RunOptions::default()).expect("resume");
    let ca = checkpoint::load(&full.join(names::CHECKPOINT)).expect("ckpt a");
    let cb = checkpoint::load(&part.join(names::CHECKPOINT)).expect("ckpt b");
    assert_eq!(ca.params, cb.params, "weights differ after resume");
    assert_eq!(ca.moments, cb.moments);
    assert_eq!(ca.step, cb.step);
    for (x, y) in a.history.iter().zip(&b.history) {
        assert_eq!(
            (x.train_loss, x.val_loss, x.lr, x.positions),
            (y.train_loss, y.val_loss, y.lr, y.positions)
        );
    }
    let na = std::fs::read(&a.net_path).expect("net a");
    let nb = std::fs::read(&b.net_path).expect("net b");
    assert_eq!(na, nb, "exported nets differ");
}

#[test]
fn export_matches_float_model_and_is_validated() {
    let dir = temp_dir("export");
    let cfg = tiny_config(2);
    let scale = cfg.scale as f32;
    let data = SyntheticDataset::new(cfg.synthetic.clone().expect("synthetic"));
    let summary = kage_train::run(cfg, &dir, RunOptions::default()).expect("training runs");
    let state = checkpoint::load(&dir.join(names::CHECKPOINT)).expect("checkpoint");
    let bytes = std::fs::read(&summary.net_path).expect("net");
    let net = Network::load_for(&bytes, "minishogi", SYNTHETIC_FEATURE_SET_ID, 160).expect("loads");
    assert_eq!(net.header().run_id, summary.run_id);
    let (mut worst, mut total) = (0f32, 0f32);
    for i in 0..300 {
        let s = data.sample(50_000 + i);
        let float_cp = state.params.forward(&s.stm_features, &s.nstm_features) * scale;
        let int_cp = net.evaluate(&s.stm_features, &s.nstm_features) as f32;
        let err = (int_cp - float_cp).abs();
        worst = worst.max(err);
        total += err;
        assert!(err <= 20.0, "position {i}: float {float_cp} cp vs quantised {int_cp} cp");
    }
    let mean = total / 300.0;
    eprintln!("quantisation error: worst {worst} cp, mean {mean} cp");
    assert!(mean <= 4.0, "mean quantisation error {mean} cp");

    // Rejections with typed errors.
    let err = Network::load_for(&bytes, "shinobi", SYNTHETIC_FEATURE_SET_ID, 160).unwrap_err();
    assert!(matches!(err, NetError::WrongVariant { .. }), "{err}");
    let err = Network::load_for(&bytes, "minishogi", 0x1234, 160).unwrap_err();
    assert!(matches!(err, NetError::WrongFeatureSet { .. }), "{err}");
    let mut corrupt = bytes.clone();
    let n = corrupt.len();
    corrupt[n / 2] ^= 0x10;
    assert!(matches!(Network::load(&corrupt), Err(NetError::ChecksumMismatch { .. })));
    assert!(matches!(Network::load(&bytes[..n - 3]), Err(NetError::Truncated { .. })));
    let mut future = bytes.clone();
    future[8..12].copy_from_slice(&2u32.to_le_bytes());
    let err = Network::load(&future).unwrap_err();
    assert!(matches!(err, NetError::UnsupportedVersion { found: 2, .. }));
    assert!(err.to_string().contains("unsupported NNUE format version 2"));
}
