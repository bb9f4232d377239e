//! Attack tests (issue #11): training data that is damaged, empty after filtering, or
//! replaced between a run and its resume, and degenerate settings. Each must stop with an
//! error and write no network, never train silently on something else.
//!
//! Second round (issue #31): outputs over inputs, a run left unresumable by an interrupted
//! `--epochs` change, run directories of other tools, positions counted twice, user-variant
//! data, backtraces on user errors, and files read whole.

mod common;

use common::Playouts;

use kage_train::RunOptions;
use kage_train::training::checkpoint;
use kage_train::training::config::EpochsChange;
use kage_train::training::run::names;
use std::path::Path;
use std::process::{Command, Output};

const EXE: &str = env!("CARGO_BIN_EXE_kage-train");

fn kage_train(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(EXE).args(args).output().expect("kage-train runs")
}

/// `kage-train ARGS` under a 6 GB address-space limit, so that a file read whole fails (as
/// an allocation failure, never what the tests want) instead of taking the machine's memory.
fn kage_train_bounded(args: &[&std::ffi::OsStr]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 6000000; exec \"$0\" \"$@\"")
        .arg(EXE)
        .args(args)
        .output()
        .expect("sh runs")
}

/// The arguments as `OsStr`s, for [`kage_train`].
macro_rules! args {
    ($($a:expr),* $(,)?) => { &[$(std::ffi::OsStr::new($a)),*][..] };
}

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
}

/// Every file in `dir` with its contents.
fn snapshot(dir: &Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .expect("dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_file())
        .map(|p| {
            let bytes = std::fs::read(&p).expect("read");
            (p, bytes)
        })
        .collect();
    out.sort();
    out
}

#[test]
fn outputs_never_replace_inputs() {
    let dir = common::temp_dir("attack-overwrite");
    let data = dir.join("data.kdata");
    write_positions(&data, 80, 11);
    let before = std::fs::read(&data).expect("data");
    std::fs::create_dir(dir.join("sub")).expect("sub");
    let alias = dir.join("sub/../data.kdata");
    let tune = |out: &Path, more: &[&str]| {
        let mut c = Command::new(EXE);
        c.args(["tune", "--variant", "minishogi", "--iterations", "2", "--data"]).arg(&data);
        c.arg("--out").arg(out).args(more).output().expect("runs")
    };
    for out in [&data, &alias] {
        let o = tune(out, &[]);
        assert!(!o.status.success() && stderr(&o).contains("is also an input"), "{}", stderr(&o));
    }
    // The parameter file a tune starts from.
    let params = dir.join("params.toml");
    let o = tune(&params, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let p = params.to_str().expect("utf-8");
    let text = std::fs::read(&params).expect("params");
    let o = tune(&params, &["--params", p]);
    assert!(!o.status.success() && stderr(&o).contains("is also an input"), "{}", stderr(&o));
    assert_eq!(std::fs::read(&params).expect("params"), text);

    // Training: --out naming the data, and a --config inside --out under config.toml's name.
    let o = train(&data, &data, &[]);
    assert!(!o.status.success() && stderr(&o).contains("is also an input"), "{}", stderr(&o));
    let run = dir.join("run");
    std::fs::create_dir(&run).expect("run dir");
    let config = run.join("config.toml");
    std::fs::write(&config, "variant = \"minishogi\"\nft_size = 8\n").expect("config");
    let o = train(&data, &run, &["--config", config.to_str().expect("utf-8")]);
    assert!(!o.status.success() && stderr(&o).contains("is also an input"), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(&config).expect("config"),
        "variant = \"minishogi\"\nft_size = 8\n"
    );
    assert_eq!(std::fs::read(&data).expect("data"), before);
}

/// A kill in the first epoch after `--resume --epochs N` (simulated: the run stops before
/// that epoch) leaves a run that resumes, to the same network as the uninterrupted
/// extension; and so does one that stopped between writing the checkpoint and config.toml.
#[test]
fn an_interrupted_epoch_extension_leaves_the_run_resumable() {
    let dir = common::temp_dir("attack-extend");
    let cfg = common::tiny_config(2);
    let (whole, cut, window) = (dir.join("whole"), dir.join("cut"), dir.join("window"));
    for d in [&whole, &cut, &window] {
        kage_train::run(cfg.clone(), d, RunOptions::default()).expect("first two epochs");
    }
    let old_config = std::fs::read(cut.join(names::CONFIG)).expect("config");
    kage_train::resume(&whole, Some(4), RunOptions::default()).expect("extension");
    let stop = RunOptions { stop_after: Some(2), ..RunOptions::default() };
    for d in [&cut, &window] {
        kage_train::resume(d, Some(4), stop).expect("extension, stopped");
    }
    // The kill came after the checkpoint took the new settings and before config.toml did.
    std::fs::write(window.join(names::CONFIG), &old_config).expect("config");
    let want = std::fs::read(whole.join(names::NET)).expect("net");
    for d in [&cut, &window] {
        let r = kage_train::resume(d, None, RunOptions::default()).expect("resumes");
        assert_eq!(r.history.len(), 4);
        assert!(std::fs::read(d.join(names::NET)).expect("net") == want, "{}", d.display());
        kage_train::resume(d, None, RunOptions::default()).expect("and again");
    }
    // The extended run's configuration says how it was made: it trains the same network
    // afresh, under another id than a fresh four-epoch run (whose cosine schedule differs).
    let text = std::fs::read_to_string(whole.join(names::CONFIG)).expect("config");
    let extended = kage_train::TrainConfig::from_toml(&text).expect("config parses");
    assert_eq!(extended.epochs_changes, [EpochsChange { at: 2, epochs: 2 }]);
    let again = kage_train::run(extended, &dir.join("again"), RunOptions::default()).expect("run");
    assert!(std::fs::read(&again.net_path).expect("net") == want, "not reproduced");
    let fresh = kage_train::run(common::tiny_config(4), &dir.join("fresh"), RunOptions::default())
        .expect("fresh run");
    assert_ne!(fresh.run_id, again.run_id);
    assert!(std::fs::read(&fresh.net_path).expect("net") != want);
}

#[test]
fn epochs_at_or_below_those_done_are_refused() {
    let dir = common::temp_dir("attack-shorten");
    let data = dir.join("data.kdata");
    write_positions(&data, 10, 13);
    let out = dir.join("run");
    let o = train(&data, &out, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let resume = |epochs: &str| {
        kage_train(args!["--resume", out.as_os_str(), "--epochs", epochs, "--quiet"])
    };
    let o = resume("2");
    assert!(o.status.success(), "{}", stderr(&o));
    let before = snapshot(&out);
    let o = resume("1");
    let err = stderr(&o);
    assert!(!o.status.success() && err.contains("has done 2 of its 2 epochs"), "{err}");
    assert_eq!(snapshot(&out), before, "a refused resume changed the run");
    // The epochs it has: nothing to do, nothing changes.
    let o = resume("2");
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read(out.join(names::NET)).expect("net"), before_net(&before));
    // An interrupted run stopped where it stands.
    let part = dir.join("part");
    let mut cfg = common::tiny_config(4);
    cfg.epochs = 4;
    let stop = RunOptions { stop_after: Some(2), ..RunOptions::default() };
    kage_train::run(cfg, &part, stop).expect("two of four epochs");
    let e = kage_train::resume(&part, Some(2), RunOptions::default()).expect_err("refused");
    assert!(e.to_string().contains("has done 2 of its 4 epochs"), "{e}");
    assert!(!part.join(names::NET).exists());
}

fn before_net(files: &[(std::path::PathBuf, Vec<u8>)]) -> Vec<u8> {
    let net = files.iter().find(|(p, _)| p.ends_with(names::NET)).expect("a net");
    net.1.clone()
}

#[test]
fn a_selfplay_directory_is_not_a_training_run() {
    let dir = common::temp_dir("attack-foreign");
    let data = dir.join("data.kdata");
    write_positions(&data, 10, 17);
    // What `kage-selfplay generate` leaves.
    let selfplay = dir.join("selfplay");
    std::fs::create_dir(&selfplay).expect("dir");
    std::fs::write(selfplay.join("run.toml"), "variant = \"minishogi\"\n").expect("run.toml");
    std::fs::write(selfplay.join("summary.json"), "{}").expect("summary");
    std::fs::copy(&data, selfplay.join("games.kdata")).expect("games");
    let before = snapshot(&selfplay);
    let o = train(&data, &selfplay, &[]);
    let err = stderr(&o);
    assert!(!o.status.success() && err.contains("belongs to kage-selfplay generate"), "{err}");
    let o = kage_train(args![
        "tune",
        "--variant",
        "minishogi",
        "--data",
        data.as_os_str(),
        "--out",
        selfplay.join("run.toml").as_os_str()
    ]);
    let err = stderr(&o);
    assert!(!o.status.success() && err.contains("belongs to kage-selfplay generate"), "{err}");
    assert_eq!(snapshot(&selfplay), before);
    // A training run made before owner files existed still resumes.
    let out = dir.join("run");
    let o = train(&data, &out, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::remove_file(out.join(kage_data::guard::OWNER_FILE)).expect("owner file written");
    let o = kage_train(args!["--resume", out.as_os_str(), "--epochs", "2", "--quiet"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn positions_counted_twice_are_refused() {
    let dir = common::temp_dir("attack-twice");
    let (a, b) = (dir.join("a.kdata"), dir.join("b.kdata"));
    write_positions(&a, 10, 19);
    write_positions(&b, 10, 23);
    std::fs::create_dir(dir.join("sub")).expect("sub");
    let copy = dir.join("copy.kdata");
    std::fs::copy(&a, &copy).expect("copy");
    let s = |p: &Path| p.to_str().expect("utf-8").to_owned();
    let alias = s(&dir.join("sub/../a.kdata"));
    let cases: [(&[String], &str); 5] = [
        (&["--data".into(), s(&a)], "trained on twice"),
        (&["--data".into(), alias.clone()], "trained on twice"),
        (&["--data".into(), s(&copy)], "same contents"),
        (&["--val-data".into(), s(&a)], "validation would run on training positions"),
        (&["--val-data".into(), s(&b), s(&copy)], "validation would run on training positions"),
    ];
    for (i, (extra, want)) in cases.iter().enumerate() {
        let out = dir.join(format!("run{i}"));
        let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
        let o = train(&a, &out, &extra);
        let err = stderr(&o);
        assert!(!o.status.success() && err.contains(want), "{extra:?}: {err}");
        assert!(!out.exists(), "{extra:?} made {}", out.display());
    }
    // A file made from A (as `kage-data merge` makes one), with A.
    let merged = dir.join("merged.kdata");
    let source = kage_data::lineage::Lineage::of(&a).expect("lineage");
    let header = kage_data::FileHeader::new(
        kage_data::RecordKind::Position,
        "minishogi",
        "merged",
        "test",
        "kage-train tests",
    )
    .and_then(|h| h.with_sources(kage_data::lineage::sources_for(&[source])))
    .expect("header");
    let mut w = kage_data::Writer::<kage_data::PositionRecord>::create(&merged, header).expect("w");
    let mut r = kage_data::Reader::<kage_data::PositionRecord>::open(&a).expect("reader");
    while let Some(chunk) = r.next_chunk().expect("chunk") {
        chunk.iter().for_each(|rec| w.write(rec).expect("write"));
    }
    w.finish().expect("finish");
    let o = train(&a, &dir.join("merged-run"), &["--data", &s(&merged)]);
    assert!(!o.status.success() && stderr(&o).contains("was made from"), "{}", stderr(&o));
    // `--data A A` and the accepted case.
    let o = train(&a, &dir.join("twice"), &["--data", a.to_str().expect("utf-8"), &s(&b)]);
    assert!(!o.status.success() && stderr(&o).contains("same file"), "{}", stderr(&o));
    let o = train(&a, &dir.join("fine"), &["--val-data", &s(&b)]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn user_variant_data_trains_and_tunes() {
    use kage_engine::nnue::{Network, features};
    let dir = common::temp_dir("attack-user-variant");
    let spec_path =
        concat!(env!("CARGO_MANIFEST_DIR"), "/../engine/variants/examples/shinobiplus_rank4.toml");
    let spec = std::fs::read_to_string(spec_path).expect("example spec");
    let v = kage_engine::Variant::from_spec_text(&spec).expect("spec compiles");
    let config = format!("variant_spec = {}\n", toml::Value::String(spec.clone()));
    let data = dir.join("user.kdata");
    let playouts = Playouts { variant: &v.name, games: 60, plies: 40, seed: 29, chunk_bytes: None };
    playouts.write_rules(&data, v, &config, |g, pos, state| {
        let winner = if g % 3 == 0 { None } else { Some(pos.side_to_move()) };
        (((state >> 20) % 400) as i16 - 200, winner)
    });
    let out = dir.join("run");
    let o = Command::new(EXE)
        .args(["--variant", &v.name, "--ft-size", "8", "--head-size", "4", "--epochs", "1"])
        .args(["--batch-size", "256", "--min-ply", "0", "--quiet", "--factorise", "--data"])
        .arg(&data)
        .arg("--out")
        .arg(&out)
        .output()
        .expect("runs");
    assert!(o.status.success(), "{}", stderr(&o));
    let bytes = std::fs::read(out.join(names::NET)).expect("net");
    Network::load_for(&bytes, &v.name, features::FEATURE_SET_ID, features::num_features(v))
        .expect("the engine takes the net for the user variant");
    // The factoriser's group rows: it knew the variant's pieces.
    let ckpt = checkpoint::load(&out.join(names::CHECKPOINT)).expect("checkpoint");
    assert!(ckpt.params.num_features > features::num_features(v));
    // The file's variant is not --variant's.
    let o = train(&data, &dir.join("wrong"), &[]);
    let err = stderr(&o);
    assert!(!o.status.success() && err.contains("holds positions of variant"), "{err}");
    let o = kage_train(args![
        "tune",
        "--variant",
        &v.name,
        "--iterations",
        "2",
        "--min-ply",
        "0",
        "--data",
        data.as_os_str(),
        "--out",
        dir.join("params.toml").as_os_str()
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn user_errors_are_one_line_without_a_backtrace() {
    let dir = common::temp_dir("attack-backtrace");
    let o = Command::new(EXE)
        .env("RUST_BACKTRACE", "1")
        .args(["--variant", "minishogi", "--data"])
        .arg(dir.join("missing.kdata"))
        .arg("--out")
        .arg(dir.join("run"))
        .output()
        .expect("runs");
    let err = stderr(&o);
    assert!(!o.status.success(), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("missing.kdata") && !err.contains("stack backtrace"), "{err}");
}

#[test]
fn endless_or_huge_inputs_are_refused_without_reading_them_whole() {
    let dir = common::temp_dir("attack-endless");
    let data = dir.join("data.kdata");
    write_positions(&data, 10, 31);
    let zero = std::ffi::OsStr::new("/dev/zero");
    let d = data.as_os_str();
    let base =
        args!["--variant", "minishogi", "--epochs", "1", "--ft-size", "8", "--head-size", "4"];
    let out = dir.join("run");
    let o_ = out.as_os_str();
    let cases: Vec<Vec<&std::ffi::OsStr>> = vec![
        [base, args!["--data", zero, "--out", o_]].concat(),
        [base, args!["--data", d, "--val-data", zero, "--out", o_]].concat(),
        [base, args!["--data", d, "--init-net", zero, "--out", o_]].concat(),
        [base, args!["--config", zero, "--data", d, "--out", o_]].concat(),
        args!["tune", "--variant", "minishogi", "--data", d, "--params", zero, "--out", o_]
            .to_vec(),
    ];
    for args in &cases {
        let o = kage_train_bounded(args);
        let err = stderr(&o);
        assert!(!o.status.success(), "{args:?}: {err}");
        assert!(err.contains("/dev/zero") && err.lines().count() == 1, "{args:?}: {err}");
        assert!(!err.contains("memory"), "{args:?}: {err}");
    }
    // A huge file where the run's checkpoint should be.
    std::fs::create_dir_all(&out).expect("dir");
    let o = train(&data, &out, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let f = std::fs::File::create(out.join(names::CHECKPOINT)).expect("ckpt");
    f.set_len(20 << 30).expect("sparse 20 GB file");
    let o = kage_train_bounded(args!["--resume", o_, "--epochs", "2"]);
    let err = stderr(&o);
    assert!(!o.status.success() && err.contains("not a kage checkpoint"), "{err}");
}
