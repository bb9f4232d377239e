//! `--arch fsf --init-net`: a run starts from an FSF-format net (one kage exported, or one
//! of the form Fairy-Stockfish publishes): its float model quantises back to exactly the
//! net's integers, and a net of another variant or architecture is refused in one line.

mod common;

use common::{fsf_config, fsf_layout, fsf_net, temp_dir, tiny_config};
use kage_engine::nnue::fsf::{FsfNet, random_net};
use kage_train::training::config::TrainConfig;
use kage_train::training::init::load_fsf_init_net;
use kage_train::training::run::names;
use kage_train::{RunOptions, Trainer};
use std::path::{Path, PathBuf};
use std::process::Command;

fn with_init(cfg: TrainConfig, net: &Path) -> TrainConfig {
    TrainConfig { init_net: Some(net.to_path_buf()), ..cfg }
}

/// The net a run started from `net` would export before its first step, as bytes (with
/// `net`'s description, which a run replaces by its own).
fn exported_before_any_step(cfg: TrainConfig, net: &Path) -> Vec<u8> {
    let space = kage_train::data::space::resolve(&cfg).expect("space");
    let (ft, head) = load_fsf_init_net(net, &space).expect("the net fits");
    let trainer = Trainer::from_fsf_init(cfg, ft, head);
    let state = trainer.fsf.as_ref().expect("fsf state");
    let h = state.shape.dims * kage_engine::nnue::fsf::arch::BUCKETS;
    assert!(state.head.psqt[h..].iter().all(|&w| w == 0.0), "factoriser PSQT rows zero");
    let real = state.shape.dims * trainer.params.ft_size;
    assert!(trainer.params.ft_w[real..].iter().all(|&w| w == 0.0), "factoriser FT rows zero");
    let (ft, head) = state.folded(&trainer.params);
    let original =
        FsfNet::from_bytes(&std::fs::read(net).expect("net"), &state.shape.layout).expect("reads");
    let desc = String::from_utf8(original.description).expect("utf-8 description");
    kage_train::export::fsf::quantise(&ft, &head, &desc).to_bytes().expect("bytes")
}

fn random_net_file(dir: &Path, variant: &str, seed: u64) -> PathBuf {
    let net = random_net(&fsf_layout(variant), seed);
    let path = dir.join(format!("{variant}-random-{seed}.nnue"));
    std::fs::write(&path, net.to_bytes().expect("bytes")).expect("write");
    path
}

#[test]
fn a_run_from_a_kage_exported_net_starts_with_exactly_its_integers() {
    let dir = temp_dir("fsf-init-own");
    let first =
        kage_train::run(fsf_config(1), &dir.join("src"), RunOptions::default()).expect("first run");
    let net = fsf_net(&dir.join("src"));
    let bytes = std::fs::read(&net).expect("net");
    let cfg = with_init(fsf_config(1), &net);
    assert_eq!(exported_before_any_step(cfg.clone(), &net), bytes);

    // A whole run from it: one epoch continues from the first run's weights.
    let next = kage_train::run(cfg, &dir.join("next"), RunOptions::default()).expect("run");
    let (a, b) = (first.history[0].train_loss, next.history[0].train_loss);
    assert!(b < a, "epoch 1 from the net {b}, the first run's epoch 1 {a}");
    let config = std::fs::read_to_string(dir.join("next").join(names::CONFIG)).expect("config");
    assert!(config.contains("init_net = ") && config.contains("arch = \"fsf\""), "{config}");
}

#[test]
fn a_net_of_fairy_stockfishs_form_round_trips_exactly() {
    let dir = temp_dir("fsf-init-random");
    let net = random_net_file(&dir, "minishogi", 5);
    let bytes = std::fs::read(&net).expect("net");
    assert_eq!(exported_before_any_step(with_init(fsf_config(1), &net), &net), bytes);
}

fn refusal(cfg: TrainConfig, out: &Path) -> String {
    let err = kage_train::run(cfg, out, RunOptions::default()).expect_err("refused");
    assert!(!out.join(names::CHECKPOINT).exists(), "nothing trained");
    let msg = err.to_string();
    assert!(msg.contains("--init-net") && !msg.contains('\n'), "{msg}");
    msg
}

#[test]
fn nets_that_do_not_fit_are_refused_in_one_line() {
    let dir = temp_dir("fsf-init-refused");
    let mini = random_net_file(&dir, "minishogi", 1);

    let mut goro = fsf_config(1);
    goro.variant = "gorogoroplus".into();
    if let Some(s) = goro.synthetic.as_mut() {
        s.num_features = fsf_layout("gorogoroplus").dims();
    }
    let msg = refusal(with_init(goro, &mini), &dir.join("goro"));
    assert!(msg.contains("gorogoroplus") && msg.contains("minishogi net"), "{msg}");

    let small = kage_train::run(tiny_config(1), &dir.join("small"), RunOptions::default())
        .expect("small run");
    let msg = refusal(with_init(fsf_config(1), &small.net_path), &dir.join("a"));
    assert!(msg.contains("kage net") && msg.contains("without --arch fsf"), "{msg}");
    let msg = refusal(with_init(tiny_config(1), &mini), &dir.join("b"));
    assert!(msg.contains("Fairy-Stockfish net") && msg.contains("--arch fsf"), "{msg}");

    let mut net = random_net(&fsf_layout("minishogi"), 1);
    net.stacks[2].l1_weights[7] = -128;
    let odd = dir.join("odd.nnue");
    std::fs::write(&odd, net.to_bytes().expect("bytes")).expect("write");
    let msg = refusal(with_init(fsf_config(1), &odd), &dir.join("c"));
    assert!(msg.contains("stack 2 l1_weights[") && msg.contains("-128"), "{msg}");

    let mut bytes = std::fs::read(&mini).expect("net");
    bytes.truncate(bytes.len() - 3);
    let cut = dir.join("cut.nnue");
    std::fs::write(&cut, &bytes).expect("write");
    let msg = refusal(with_init(fsf_config(1), &cut), &dir.join("d"));
    assert!(msg.contains("cut.nnue") && msg.contains("bytes"), "{msg}");
}

#[test]
fn the_command_line_starts_from_an_fsf_net_and_refuses_it_with_resume() {
    let dir = temp_dir("fsf-init-cli");
    let net = random_net_file(&dir, "minishogi", 3);
    let exe = env!("CARGO_BIN_EXE_kage-train");
    let out = dir.join("run");
    let o = Command::new(exe)
        .args(["--variant", "minishogi", "--arch", "fsf", "--synthetic", "600", "--epochs", "1"])
        .args(["--quiet", "--init-net"])
        .arg(&net)
        .arg("--out")
        .arg(&out)
        .output()
        .expect("runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(fsf_net(&out).is_file());
    let o = Command::new(exe)
        .arg("--resume")
        .arg(&out)
        .arg("--init-net")
        .arg(&net)
        .output()
        .expect("runs");
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--init-net") && err.contains("cannot be used with"), "{err}");
}
