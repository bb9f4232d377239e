//! `--arch fsf`: Fairy-Stockfish's architecture trains, folds its factoriser exactly, exports
//! FSF's file that the engine reads for its variant only, agrees with the engine's exact
//! integer evaluation, resumes bit for bit, and `kage-train inspect` reads its net.

mod common;

use common::{Playouts, TestDir, fsf_config, fsf_net, temp_dir};
use kage_engine::nnue::fsf::{FsfLayout, arch, read_net, reference};
use kage_engine::{Position, Variant};
use kage_train::RunOptions;
use kage_train::model::fsf::{self, FsfHead, FsfShape, NNUE2SCORE};
use kage_train::training::checkpoint;
use kage_train::training::fsf_step::FsfState;
use kage_train::training::run::names;
use std::path::{Path, PathBuf};

fn layout(name: &str) -> FsfLayout {
    common::fsf_layout(name)
}

/// Random playouts of minishogi with a score that a net can partly learn (material-like:
/// the number of pieces in the side to move's hand).
fn playouts(path: &Path, seed: u64, games: u64) {
    let p = Playouts { variant: "minishogi", games, plies: 40, seed, chunk_bytes: None };
    p.write(path, |_, pos, state| {
        let v = pos.variant();
        let stm = pos.side_to_move();
        let hand: i16 = v.hand_kinds.iter().map(|&k| i16::from(pos.hand(stm, k))).sum();
        (hand * 150 + (state % 41) as i16 - 20, None)
    });
}

fn positions(seed: u64) -> Vec<Position> {
    let dir = temp_dir(&format!("fsf-positions-{seed}"));
    let file = dir.join("p.kdata");
    playouts(&file, seed, 8);
    let v = Variant::by_name("minishogi").expect("variant");
    let mut r = kage_data::Reader::<kage_data::PositionRecord>::open(&file).expect("open");
    let mut out = Vec::new();
    while let Some(rec) = r.next().transpose().expect("record") {
        out.push(rec.pos.to_position(v).expect("position"));
    }
    out
}

#[test]
fn synthetic_run_lowers_the_loss_and_exports_a_net_for_its_variant_only() {
    let dir = temp_dir("fsf-synthetic");
    let s = kage_train::run(fsf_config(3), &dir, RunOptions::default()).expect("run");
    let (first, last) = (&s.history[0], &s.history[2]);
    assert!(last.train_loss < first.train_loss, "{} -> {}", first.train_loss, last.train_loss);
    let name = s.net_path.file_name().and_then(|n| n.to_str()).expect("name").to_string();
    let hex = name.strip_prefix("minishogi-").and_then(|n| n.strip_suffix(".nnue"));
    assert!(hex.is_some_and(|h| h.len() == 12 && h.chars().all(|c| c.is_ascii_hexdigit())));
    let mini = layout("minishogi");
    let net = read_net(&s.net_path, &mini).expect("the engine reads it for minishogi");
    let size = std::fs::metadata(&s.net_path).expect("size").len() as usize;
    assert_eq!(size, 142_160 + net.description.len() + 1_056 * 12_875, "FSF-NNUE.md §1");
    assert_eq!(size, arch::file_size(mini.dims(), net.description.len()));
    let e = read_net(&s.net_path, &layout("gorogoroplus")).expect_err("not a gorogoroplus net");
    let msg = e.to_string();
    assert!(msg.contains("gorogoroplus") && msg.contains("minishogi"), "{msg}");
    assert!(!msg.contains('\n'));
    let info = std::fs::read_to_string(dir.join(names::RUN_INFO)).expect("run.toml");
    let config = std::fs::read_to_string(dir.join(names::CONFIG)).expect("config");
    assert!(info.contains("arch = \"fsf\"") && config.contains("arch = \"fsf\""));
}

#[test]
fn factoriser_fold_is_exact() {
    let v = Variant::by_name("minishogi").expect("variant");
    let shape = FsfShape::new(layout("minishogi"));
    let rows = shape.factoriser().train_features();
    let mut ft = fsf::init_ft(rows, 3);
    let mut head = FsfHead::init(rows, 3);
    head.init_psqt(&shape, v);
    // Non-zero virtual rows (FT and PSQT), so folding has work to do.
    let h = ft.ft_size;
    for (i, w) in ft.ft_w[shape.dims * h..].iter_mut().enumerate() {
        *w = ((i % 7) as f32 - 3.0) * 0.01;
    }
    for (i, w) in head.psqt[shape.dims * arch::BUCKETS..].iter_mut().enumerate() {
        *w = ((i % 5) as f32 - 2.0) * 0.05;
    }
    let state = FsfState::new(shape.clone(), head, None);
    let (fft, fhead) = state.folded(&ft);
    assert_eq!(fft.num_features, shape.dims);
    assert_eq!(fhead.psqt.len(), shape.dims * arch::BUCKETS);
    for pos in positions(11).iter().step_by(3) {
        let mut f = Vec::new();
        let n = fsf::position_features(&shape.layout, pos, &mut f);
        let (stm, nstm) = f.split_at(n);
        let bucket = shape.layout.bucket(pos);
        assert_eq!(shape.bucket(stm), bucket, "bucket from the features");
        let want = state.forward(&ft, stm, nstm);
        let got = fsf::forward(&fft, &fhead, stm, nstm, bucket);
        assert!((want - got).abs() < 1e-4, "{want} vs {got}");
    }
}

/// A short run on real positions (in a scratch folder that lives as long as the first value);
/// the float model of its checkpoint, folded.
fn trained_on_playouts(name: &str) -> (TestDir, PathBuf, kage_train::NetParams, FsfHead) {
    let dir = temp_dir(name);
    let data = dir.join("train.kdata");
    playouts(&data, 99, 40);
    let mut cfg = fsf_config(2);
    cfg.synthetic = None;
    cfg.data = vec![data];
    let out = dir.join("run");
    kage_train::run(cfg, &out, RunOptions::default()).expect("run");
    let ck = checkpoint::load(&out.join(names::CHECKPOINT)).expect("checkpoint");
    let (head, moments) = ck.fsf.expect("fsf tensors in the checkpoint");
    let state = FsfState::new(FsfShape::new(layout("minishogi")), head, Some(moments));
    let (ft, head) = state.folded(&ck.params);
    (dir, out, ft, head)
}

#[test]
fn quantised_net_agrees_with_the_float_model_and_inspect_reads_it() {
    let (_dir, out, ft, head) = trained_on_playouts("fsf-agree");
    let l = layout("minishogi");
    let path = fsf_net(&out);
    let net = read_net(&path, &l).expect("net");
    let (mut worst, mut sum, mut n) = (0f32, 0f32, 0usize);
    for pos in &positions(5) {
        let mut f = Vec::new();
        let k = fsf::position_features(&l, pos, &mut f);
        let float = NNUE2SCORE * fsf::forward(&ft, &head, &f[..k], &f[k..], l.bucket(pos));
        let int = reference::evaluate(&net, &l, pos).value as f32;
        let err = (int - float).abs();
        // §4.1's scales with FSF's flooring shifts (`>> 6` per hidden layer): up to ~16 FSF
        // units (0.08 pawn) here, where the values reach thousands.
        assert!(err <= 24.0 + 0.01 * float.abs(), "integer {int} vs float {float}");
        worst = worst.max(err);
        sum += err;
        n += 1;
    }
    let mean = sum / n as f32;
    eprintln!("fsf quantisation: {n} positions, mean |int - float| {mean:.2}, worst {worst:.2}");
    assert!(n > 100 && mean <= 12.0, "mean error {mean} over {n} positions");
    let bin = env!("CARGO_BIN_EXE_kage-train");
    let o = std::process::Command::new(bin).arg("inspect").arg(&path).output().expect("inspect");
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for want in ["minishogi", "12875 input features", "psqt (i32)", "l1_weights (i8)", "file size"]
    {
        assert!(text.contains(want), "inspect lacks {want:?}:\n{text}");
    }
}

#[test]
fn resume_of_an_fsf_run_matches_the_uninterrupted_run() {
    let (full, part) = (temp_dir("fsf-resume-full"), temp_dir("fsf-resume-part"));
    let cfg = fsf_config(2);
    let a = kage_train::run(cfg.clone(), &full, RunOptions::default()).expect("full run");
    let stopped = RunOptions { stop_after: Some(1), ..RunOptions::default() };
    kage_train::run(cfg, &part, stopped).expect("first part");
    let b = kage_train::resume(&part, None, RunOptions::default()).expect("resume");
    let ca = checkpoint::load(&full.join(names::CHECKPOINT)).expect("ckpt a");
    let cb = checkpoint::load(&part.join(names::CHECKPOINT)).expect("ckpt b");
    assert!(ca.params == cb.params && ca.fsf == cb.fsf, "weights differ after resume");
    assert!(ca.moments == cb.moments && ca.step == cb.step, "optimiser state differs");
    let losses = |c: &checkpoint::CheckpointState| -> Vec<(f64, f64)> {
        c.history.iter().map(|m| (m.train_loss, m.val_loss)).collect()
    };
    assert_eq!(losses(&ca), losses(&cb));
    assert_eq!(a.net_path.file_name(), b.net_path.file_name(), "same net name (same hash)");
    assert_eq!(std::fs::read(&a.net_path).ok(), std::fs::read(&b.net_path).ok());
}
