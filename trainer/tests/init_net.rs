//! `--init-net`: a run starts from a quantised network's weights; per-epoch snapshots.

mod common;

use common::{temp_dir, tiny_config};
use kage_engine::nnue::Network;
use kage_train::data::batch::sigmoid;
use kage_train::data::space::SYNTHETIC_FEATURE_SET_ID;
use kage_train::data::synthetic::SyntheticDataset;
use kage_train::export::{ExportInfo, dequantise, quantise};
use kage_train::training::checkpoint;
use kage_train::training::run::names;
use kage_train::{RunOptions, Sample, TrainConfig, Trainer};
use std::path::Path;

fn probe(cfg: &TrainConfig) -> Vec<Sample> {
    let data = SyntheticDataset::new(cfg.synthetic.clone().expect("synthetic"));
    (0..1500).map(|i| data.sample(100_000 + i)).collect()
}

fn load(path: &Path) -> Network {
    let bytes = std::fs::read(path).expect("net file");
    Network::load_for(&bytes, "minishogi", SYNTHETIC_FEATURE_SET_ID, 160).expect("loads")
}

#[test]
fn dequantised_weights_quantise_back_to_the_same_net() {
    let dir = temp_dir("init-roundtrip");
    let summary = kage_train::run(tiny_config(2), &dir, RunOptions::default()).expect("trains");
    let net = load(&summary.net_path);
    let params = dequantise(&net);
    assert_eq!((params.num_features, params.ft_size, params.head_size), (160, 16, 8));
    let h = net.header();
    let info = ExportInfo {
        variant: h.variant.clone(),
        feature_set_id: h.feature_set_id,
        output_scale: h.output_scale,
        run_id: h.run_id.clone(),
        git_revision: h.git_revision.clone(),
        config: h.config.clone(),
    };
    let again = quantise(&params, &info).expect("quantises");
    assert_eq!(again.weights(), net.weights());
    assert_eq!(again.to_bytes(), std::fs::read(&summary.net_path).expect("bytes"));
}

#[test]
fn a_run_from_a_net_starts_at_that_nets_loss() {
    let dir = temp_dir("init-loss");
    let (src, next) = (dir.join("src"), dir.join("next"));
    let cfg = tiny_config(4);
    let probe = probe(&cfg);
    let a = kage_train::run(cfg.clone(), &src, RunOptions::default()).expect("first run");
    let net = load(&a.net_path);

    // The quantised net's own loss on the probe (integer evaluation, as the engine plays it).
    let blend = Trainer::new(cfg.clone(), 160).blend();
    let net_loss = probe
        .iter()
        .map(|s| {
            let cp = net.evaluate(&s.stm_features, &s.nstm_features) as f32;
            f64::from((sigmoid(cp / blend.scale) - blend.target(s)).powi(2))
        })
        .sum::<f64>()
        / probe.len() as f64;
    let fresh = Trainer::new(cfg.clone(), 160).loss_on(&probe);

    // A run that starts from the net, stopped before its first step: its weights are the net's.
    let from_net = TrainConfig { init_net: Some(a.net_path.clone()), epochs: 1, ..cfg.clone() };
    let stop = RunOptions { stop_after: Some(0), ..RunOptions::default() };
    kage_train::run(from_net.clone(), &next, stop).expect("starts");
    let space = kage_train::data::space::resolve(&from_net).expect("space");
    let params =
        kage_train::training::init::load_init_net(&a.net_path, &from_net, &space).expect("fits");
    assert_eq!(params, dequantise(&net));
    let start_loss =
        Trainer::from_state(from_net.clone(), params, None, 0, 0, Vec::new()).loss_on(&probe);
    assert!(
        (start_loss - net_loss).abs() < 2e-3 * net_loss.max(1e-3) + 1e-5,
        "start loss {start_loss} vs the net's {net_loss}"
    );
    eprintln!("probe loss: net {net_loss}, start {start_loss}, random weights {fresh}");
    assert!(start_loss < 0.8 * fresh, "start loss {start_loss} vs random weights {fresh}");

    // One epoch from the net: its training loss is near the first run's last epoch, well
    // below the first run's first epoch.
    let _ = std::fs::remove_dir_all(&next);
    let b = kage_train::run(from_net, &next, RunOptions::default()).expect("second run");
    let (first, last) = (a.history[0].train_loss, a.history[3].train_loss);
    let resumed = b.history[0].train_loss;
    eprintln!("train loss: first run {first} -> {last}, from the net {resumed}");
    assert!(
        resumed < last + 0.25 * (first - last),
        "epoch 1 from the net {resumed}; first run: {first} -> {last}"
    );
    let state = checkpoint::load(&next.join(names::CHECKPOINT)).expect("checkpoint");
    assert!(state.config_toml.contains("init_net"));
}

#[test]
fn a_net_that_does_not_fit_is_refused_with_the_reason() {
    let dir = temp_dir("init-refused");
    let a = kage_train::run(tiny_config(1), &dir.join("src"), RunOptions::default())
        .expect("first run");
    let with = |cfg: TrainConfig| TrainConfig { init_net: Some(a.net_path.clone()), ..cfg };
    let cases = [
        (with(TrainConfig { ft_size: 32, ..tiny_config(1) }), "ft 16 head 8"),
        (with(TrainConfig { head_size: 4, ..tiny_config(1) }), "--head-size 8"),
        (with(TrainConfig { scale: 300.0, ..tiny_config(1) }), "--scale 400"),
        (with(TrainConfig { variant: "shinobi".into(), ..tiny_config(1) }), "shinobi"),
    ];
    for (i, (cfg, want)) in cases.into_iter().enumerate() {
        let out = dir.join(format!("bad-{i}"));
        let err = kage_train::run(cfg, &out, RunOptions::default()).unwrap_err().to_string();
        assert!(err.contains("--init-net") && err.contains(want), "case {i}: {err}");
        assert!(!out.join(names::CHECKPOINT).exists());
    }
    let mut bytes = std::fs::read(&a.net_path).expect("net");
    let n = bytes.len();
    bytes.truncate(n - 5);
    let cut = dir.join("cut.nnue");
    std::fs::write(&cut, &bytes).expect("write");
    let cfg = TrainConfig { init_net: Some(cut), ..tiny_config(1) };
    let err = kage_train::run(cfg, &dir.join("cut"), RunOptions::default()).unwrap_err();
    assert!(err.to_string().contains("cut.nnue"), "{err}");
    let missing = TrainConfig { init_net: Some(dir.join("none.nnue")), ..tiny_config(1) };
    assert!(kage_train::run(missing, &dir.join("none"), RunOptions::default()).is_err());
}

#[test]
fn snapshots_are_written_per_epoch_without_changing_the_run() {
    let dir = temp_dir("snapshots");
    let (with, without) = (dir.join("with"), dir.join("without"));
    let a = kage_train::run(
        TrainConfig { snapshots: true, ..tiny_config(2) },
        &with,
        RunOptions::default(),
    )
    .expect("run with snapshots");
    let b = kage_train::run(tiny_config(2), &without, RunOptions::default()).expect("run");
    assert_eq!(a.run_id, b.run_id);
    let last = std::fs::read(with.join(names::snapshot(2))).expect("epoch-002.nnue");
    assert_eq!(last, std::fs::read(&a.net_path).expect("net"));
    assert_eq!(last, std::fs::read(&b.net_path).expect("net without snapshots"));
    let first = load(&with.join("epoch-001.nnue"));
    assert_ne!(first.weights(), load(&a.net_path).weights());
    assert!(!with.join(names::snapshot(3)).exists());
    assert!(!without.join(names::snapshot(1)).exists());
}
