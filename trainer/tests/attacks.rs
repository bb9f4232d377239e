//! Attack tests (issue #11): training data that is damaged, empty after filtering, or
//! replaced between a run and its resume, and degenerate settings. Each must stop with an
//! error and write no network, never train silently on something else.

mod common;

use common::Playouts;

use std::path::Path;
use std::process::{Command, Output};

/// Positions of random minishogi playouts, in small chunks.
fn write_positions(path: &Path, games: u64, seed: u64) {
    let playouts = Playouts {
        variant: "minishogi",
        games,
        plies: 30,
        seed: seed | 1,
        chunk_bytes: Some(2048),
    };
    playouts.write(path, |g, pos, state| {
        let winner = if g % 3 == 0 { None } else { Some(pos.side_to_move()) };
        (((state >> 20) % 400) as i16 - 200, winner)
    });
}

fn train(data: &Path, out: &Path, extra: &[&str]) -> Output {
    let min_ply: &[&str] = if extra.contains(&"--min-ply") { &[] } else { &["--min-ply", "0"] };
    Command::new(env!("CARGO_BIN_EXE_kage-train"))
        .args(["--variant", "minishogi", "--ft-size", "8", "--head-size", "4"])
        .args(["--epochs", "1", "--batch-size", "256", "--quiet"])
        .args(min_ply)
        .arg("--data")
        .arg(data)
        .arg("--out")
        .arg(out)
        .args(extra)
        .output()
        .expect("kage-train runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn a_damaged_chunk_is_refused_unless_allowed() {
    let dir = common::temp_dir("attack-damaged");
    let good = dir.join("good.kdata");
    write_positions(&good, 20, 3);
    let mut bytes = std::fs::read(&good).expect("read");
    let chunk = bytes.windows(4).skip(200).position(|w| w == b"KCHK").expect("a later chunk") + 200;
    bytes[chunk + 40] ^= 0x5a;
    let bad = dir.join("bad.kdata");
    std::fs::write(&bad, &bytes).expect("write");

    let out = dir.join("refused");
    let o = train(&bad, &out, &[]);
    let err = stderr(&o);
    assert!(!o.status.success(), "{err}");
    assert!(err.contains("damaged") && err.contains("records lost"), "{err}");
    assert!(err.contains("--allow-damaged"), "{err}");
    assert!(!out.join("net.nnue").exists());

    let out = dir.join("allowed");
    let o = train(&bad, &out, &["--allow-damaged"]);
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("warning") && err.contains("records lost"), "{err}");
    assert!(out.join("net.nnue").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn no_usable_positions_or_a_degenerate_scale_write_no_net() {
    let dir = common::temp_dir("attack-empty");
    let data = dir.join("data.kdata");
    write_positions(&data, 6, 5);
    let cases: [(&[&str], &str); 3] = [
        (&["--min-ply", "65000"], "no training positions"),
        (&["--val-fraction", "1.0"], "val_fraction"),
        (&["--scale", "1e-300"], "scale"),
    ];
    for (i, (args, want)) in cases.iter().enumerate() {
        let out = dir.join(format!("run{i}"));
        let o = train(&data, &out, args);
        let err = stderr(&o);
        assert!(!o.status.success(), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(!out.join("net.nnue").exists(), "{args:?} wrote a net");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn resume_after_the_data_changed_is_refused() {
    let dir = common::temp_dir("attack-resume");
    let data = dir.join("data.kdata");
    write_positions(&data, 10, 7);
    let out = dir.join("run");
    let o = train(&data, &out, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let resume = |epochs: &str| {
        Command::new(env!("CARGO_BIN_EXE_kage-train"))
            .arg("--resume")
            .arg(&out)
            .args(["--epochs", epochs, "--quiet"])
            .output()
            .expect("runs")
    };
    // Same data: resumes.
    let o = resume("2");
    assert!(o.status.success(), "{}", stderr(&o));
    // Other data under the same name: refused, the run left as it was.
    write_positions(&data, 10, 99);
    let net = std::fs::read(out.join("net.nnue")).expect("net");
    let o = resume("3");
    let err = stderr(&o);
    assert!(!o.status.success(), "{err}");
    assert!(err.contains("changed since the run started"), "{err}");
    assert_eq!(std::fs::read(out.join("net.nnue")).expect("net"), net);
    let _ = std::fs::remove_dir_all(&dir);
}
