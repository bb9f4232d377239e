//! The binary: train on synthetic data, inspect the result, reject a corrupt file.

mod common;

use std::process::Command;

#[test]
fn train_inspect_and_reject_corrupt() {
    let dir = common::temp_dir("cli");
    let out = dir.join("run");
    let exe = env!("CARGO_BIN_EXE_kage-train");
    let status = Command::new(exe)
        .args(["--variant", "gorogoroplus", "--synthetic", "3000", "--synthetic-features", "200"])
        .args([
            "--ft-size",
            "8",
            "--head-size",
            "4",
            "--epochs",
            "2",
            "--batch-size",
            "256",
            "--quiet",
        ])
        .arg("--out")
        .arg(&out)
        .status()
        .expect("runs");
    assert!(status.success());
    let net = out.join("net.nnue");
    let o = Command::new(exe).arg("inspect").arg(&net).output().expect("inspect runs");
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("variant        : gorogoroplus"), "{text}");
    assert!(text.contains("ft_weights (i16)") && text.contains("saturated"), "{text}");

    let mut bytes = std::fs::read(&net).expect("net");
    let n = bytes.len();
    bytes[n - 5] ^= 0xff;
    let bad = dir.join("bad.nnue");
    std::fs::write(&bad, &bytes).expect("write");
    let o = Command::new(exe).arg("inspect").arg(&bad).output().expect("inspect runs");
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("checksum mismatch"));

    let o = Command::new(exe)
        .args(["--variant", "minishogi", "--synthetic", "10", "--lambda", "3"])
        .arg("--out")
        .arg(dir.join("x"))
        .output()
        .expect("runs");
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("lambda"));
}

#[test]
fn config_file_and_resume_from_the_command_line() {
    let dir = common::temp_dir("cli-config");
    let cfg = dir.join("train.toml");
    std::fs::write(
        &cfg,
        "variant = \"shinobi\"\nft_size = 8\nhead_size = 4\nepochs = 2\nbatch_size = 128\n\
         lr_schedule = \"step\"\n[synthetic]\npositions = 2000\nnum_features = 120\n",
    )
    .expect("write config");
    let out = dir.join("run");
    let exe = env!("CARGO_BIN_EXE_kage-train");
    let st =
        Command::new(exe).arg("--config").arg(&cfg).arg("--out").arg(&out).arg("--quiet").status();
    assert!(st.expect("runs").success());
    let resolved = std::fs::read_to_string(out.join("config.toml")).expect("resolved config");
    assert!(
        resolved.contains("lr_schedule = \"step\"") && resolved.contains("variant = \"shinobi\"")
    );
    let st =
        Command::new(exe).arg("--resume").arg(&out).args(["--epochs", "3", "--quiet"]).status();
    assert!(st.expect("runs").success());
    let csv = std::fs::read_to_string(out.join("metrics.csv")).expect("metrics");
    assert_eq!(csv.lines().count(), 4, "{csv}");
}

/// Same seed and settings with 1 and with 2 threads: byte-identical network (run id and
/// recorded settings included) and the same losses in the metrics. (Checkpoints differ only in
/// the positions/s timings of the epoch history they carry.)
#[test]
fn results_do_not_depend_on_the_thread_count() {
    let dir = common::temp_dir("cli-threads");
    let exe = env!("CARGO_BIN_EXE_kage-train");
    let run = |threads: &str| {
        let out = dir.join(format!("run{threads}"));
        let status = Command::new(exe)
            .args(["--variant", "minishogi", "--synthetic", "6000", "--synthetic-features", "300"])
            .args(["--ft-size", "16", "--head-size", "8", "--epochs", "2"])
            .args(["--batch-size", "512", "--min-ply", "0", "--keep-noisy", "--quiet"])
            .args(["--threads", threads])
            .arg("--out")
            .arg(&out)
            .status()
            .expect("runs");
        assert!(status.success());
        let net = std::fs::read(out.join("net.nnue")).expect("net");
        let metrics = std::fs::read_to_string(out.join("metrics.csv")).expect("metrics");
        // epoch, train loss, validation loss (positions/s is a timing).
        let losses: Vec<String> =
            metrics.lines().map(|l| l.split(',').take(3).collect::<Vec<_>>().join(",")).collect();
        (net, losses)
    };
    let (net1, losses1) = run("1");
    let (net2, losses2) = run("2");
    assert_eq!(losses1.len(), 3, "header and two epochs: {losses1:?}");
    assert_eq!(losses1, losses2);
    assert!(net1 == net2, "net.nnue differs between 1 and 2 threads");
}

#[test]
fn init_net_snapshots_and_plain_progress_lines_from_the_command_line() {
    let dir = common::temp_dir("cli-init");
    let exe = env!("CARGO_BIN_EXE_kage-train");
    let base = ["--variant", "minishogi", "--synthetic", "3000", "--synthetic-features", "200"];
    let size = ["--ft-size", "8", "--head-size", "4", "--batch-size", "64"];
    let first = dir.join("first");
    let o = Command::new(exe)
        .args(base)
        .args(size)
        .args(["--epochs", "2", "--snapshots", "--progress-secs", "0.000001"])
        .arg("--out")
        .arg(&first)
        .output()
        .expect("runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(first.join("epoch-001.nnue").is_file() && first.join("epoch-002.nnue").is_file());
    // stderr is a pipe here: plain progress lines instead of a bar.
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("train epoch 2/2: ") && err.contains("pos/s, ETA epoch"), "{err}");
    assert!(err.contains(", loss 0."), "{err}");
    assert!(err.contains("epoch   2/2: train ") && err.contains(" positions), ETA 0s"), "{err}");
    // Each epoch line is followed by where the epoch's time went.
    assert_eq!(err.matches("\n  phases: ft forward ").count(), 2, "{err}");
    assert!(err.contains("s, updates ") && err.contains("s, waiting for data "), "{err}");

    let next = dir.join("next");
    let o = Command::new(exe)
        .args(base)
        .args(size)
        .args(["--epochs", "1", "--quiet", "--init-net"])
        .arg(first.join("net.nnue"))
        .arg("--out")
        .arg(&next)
        .output()
        .expect("runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(o.stderr.is_empty(), "--quiet printed {}", String::from_utf8_lossy(&o.stderr));
    let config = std::fs::read_to_string(next.join("config.toml")).expect("config");
    assert!(config.contains("init_net = "), "{config}");

    let o = Command::new(exe)
        .args(base)
        .args(["--ft-size", "16", "--head-size", "4", "--init-net"])
        .arg(first.join("net.nnue"))
        .arg("--out")
        .arg(dir.join("bad"))
        .output()
        .expect("runs");
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--init-net") && err.contains("--ft-size 8"), "{err}");
}

#[test]
fn a_bad_configuration_and_a_bad_data_list_are_one_line_errors() {
    let dir = common::temp_dir("cli-one-line");
    let exe = env!("CARGO_BIN_EXE_kage-train");
    let config = dir.join("bad.toml");
    std::fs::write(&config, "epochs = 3\nfoo = 1\n").expect("write");
    let o = Command::new(exe)
        .arg("--config")
        .arg(&config)
        .arg("--out")
        .arg(dir.join("none"))
        .output()
        .expect("runs");
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("parsing config TOML: TOML parse error at line 2") && err.contains("`foo`")
    );

    let run = dir.join("run");
    let args = ["--variant", "minishogi", "--synthetic", "600", "--synthetic-features", "100"];
    let o = Command::new(exe)
        .args(args)
        .args(["--ft-size", "8", "--head-size", "4", "--epochs", "1", "--quiet", "--out"])
        .arg(&run)
        .output()
        .expect("runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::write(run.join("data.toml"), "[[file]\n").expect("write");
    let o = Command::new(exe).arg("--resume").arg(&run).output().expect("runs");
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("cannot resume: ") && err.contains("data.toml: TOML parse error"),
        "{err}"
    );
}

#[test]
fn score_wdl_is_recorded_in_the_run_and_a_wrong_variant_is_a_one_line_error() {
    let dir = common::temp_dir("cli-score-wdl");
    let exe = env!("CARGO_BIN_EXE_kage-train");
    let wdl = dir.join("m.wdl.toml");
    std::fs::write(&wdl, "variant = \"minishogi\"\nevaluator = \"net\"\na = 1.0\nb = 90.0\n")
        .expect("write");
    let train = |variant: &str, out: &std::path::Path| {
        Command::new(exe)
            .args(["--variant", variant, "--synthetic", "600", "--synthetic-features", "100"])
            .args(["--ft-size", "8", "--head-size", "4", "--epochs", "1", "--quiet"])
            .arg("--score-wdl")
            .arg(&wdl)
            .arg("--out")
            .arg(out)
            .output()
            .expect("runs")
    };
    let o = train("gorogoroplus", &dir.join("wrong"));
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("is a WDL model of minishogi, not of gorogoroplus"), "{err}");

    let run = dir.join("run");
    let o = train("minishogi", &run);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let config = std::fs::read_to_string(run.join("config.toml")).expect("config");
    assert!(config.contains("[score_wdl.model]") && config.contains("b = 90.0"), "{config}");
}
