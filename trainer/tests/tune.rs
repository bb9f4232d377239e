//! Texel tuning recovers a known evaluation: positions of random playouts are scored by the
//! hand-crafted evaluation with a changed pawn value, and the tuner, started from the built-in
//! parameters, moves the pawn value towards it and lowers the held-out error; the same data
//! and seed give the same parameters with 1 and 2 threads.

mod common;

use common::{Playouts, temp_dir};
use kage_engine::eval::{EvalParams, Hce};
use kage_engine::{Position, Variant};
use kage_train::tune::{TuneConfig, TuneError, tune};
use std::path::Path;

/// Random playouts of minishogi, each position scored (side to move's view) by `hce`.
fn write_scored(path: &Path, hce: &Hce, games: u64) {
    let playouts = Playouts {
        variant: "minishogi",
        games,
        plies: 60,
        seed: 0x9e37_79b9_7f4a_7c15,
        chunk_bytes: None,
    };
    playouts.write(path, |_, pos, state| {
        let score = hce.evaluate(pos).clamp(-3000, 3000) as i16;
        // The side the evaluation favours wins, but for one game in eight.
        let favoured = if score >= 0 { pos.side_to_move() } else { !pos.side_to_move() };
        (score, Some(if state.is_multiple_of(8) { !favoured } else { favoured }))
    });
}

#[test]
fn tuning_recovers_a_changed_piece_value() {
    let dir = temp_dir("tune-recovers");
    let path = dir.join("scored.kdata");
    let v = Variant::by_name("minishogi").expect("variant");
    let base = EvalParams::for_variant("minishogi");
    // The truth: pawns on the board worth 120 cp more than the built-in value.
    let start = base
        .material
        .get("P")
        .copied()
        .unwrap_or(v.kind_by_symbol('P', false).map_or(100, |k| v.kind(k).value));
    let mut truth = base.clone();
    truth.material.insert("P".into(), start + 120);
    write_scored(&path, &Hce::with_params(v, &truth), 400);
    let cfg = TuneConfig {
        data: vec![path.clone()],
        iterations: 400,
        lr: 8.0,
        val_fraction: 0.2,
        ..TuneConfig::default()
    };
    let r = tune(v, &base, &cfg, |_, _| {}).expect("tuning runs");
    assert!(r.val_mse.1 < 0.5 * r.val_mse.0, "held-out error {:?}", r.val_mse);
    // A pawn's value is spread over several terms (material, advancement, its square's
    // table entry, mobility; the split between them is free), so the test looks at what the
    // evaluation says: the start position against the same without White's pawn.
    assert!(r.params.iter().any(|p| p.0 == "material.P" && p.1 == f64::from(start)));
    let with = Position::startpos(v);
    let without = Position::from_fen(v, "rbsgk/4p/5/5/KGSBR[-] w 0 1").expect("fen");
    let pawn = |params: &EvalParams| {
        let h = Hce::with_params(v, params);
        h.evaluate(&with) - h.evaluate(&without)
    };
    let (before, after) = (pawn(&base), pawn(&r.tuned));
    assert_eq!(pawn(&truth) - before, 120);
    assert!(after > before + 90, "pawn on its start square: {before} -> {after} (truth +120)");

    // Same data and seed, other thread count: the same parameters.
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("pool");
    let one = pool.install(|| tune(v, &base, &cfg, |_, _| {})).expect("tuning runs");
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().expect("pool");
    let two = pool.install(|| tune(v, &base, &cfg, |_, _| {})).expect("tuning runs");
    assert_eq!(one.params, two.params);
}

#[test]
fn tuning_refuses_too_little_data_and_bad_settings() {
    let dir = temp_dir("tune-refuses");
    let path = dir.join("small.kdata");
    let v = Variant::by_name("minishogi").expect("variant");
    write_scored(&path, &Hce::new(v), 2);
    let base = EvalParams::for_variant("minishogi");
    let cfg = TuneConfig { data: vec![path.clone()], ..TuneConfig::default() };
    assert!(matches!(tune(v, &base, &cfg, |_, _| {}), Err(TuneError::TooFewPositions(_))));
    let bad = TuneConfig { lambda: 2.0, ..cfg };
    assert!(matches!(tune(v, &base, &bad, |_, _| {}), Err(TuneError::Setting(_))));
}
