//! `--net`: self-play with an NNUE network (a small random one, `nnue::random_network`, or a
//! random Fairy-Stockfish-format one).

use std::path::Path;
use std::process::{Command, Output};

use kage_engine::Variant;
use kage_engine::nnue::random_network;

const BIN: &str = env!("CARGO_BIN_EXE_kage-selfplay");

/// Writes a random Minishogi network made from `seed` to `path`.
fn write_net(path: &Path, seed: u64) {
    let net = random_network(Variant::by_name("minishogi").unwrap(), seed);
    std::fs::write(path, net.to_bytes()).unwrap();
}

fn generate(out: &Path, variant: &str, net: Option<&Path>) -> Output {
    let mut cmd = Command::new(BIN);
    cmd.args(["generate", "--variant", variant, "--games", "2", "--nodes", "200"])
        .args(["--threads", "2", "--quiet", "--out"])
        .arg(out);
    if let Some(n) = net {
        cmd.arg("--net").arg(n);
    }
    cmd.output().unwrap()
}

/// Minishogi self-play with `net` (into `dir/run`) differs from the hand-crafted evaluation's,
/// and the run's header names the net's file.
fn plays_and_is_recorded(dir: &Path, net: &Path, run: &str) {
    let games = |r: &str| dir.join(r).join("minishogi/games.kdata");
    let o = generate(&dir.join(run), "minishogi", Some(net));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = generate(&dir.join("hce"), "minishogi", None);
    assert!(o.status.success());
    let (a, b) = (std::fs::read(games(run)).unwrap(), std::fs::read(games("hce")).unwrap());
    assert_ne!(a, b, "the network changes the games");
    let h = kage_data::FileHeader::read_file(&games(run)).unwrap();
    let name = net.file_name().unwrap().to_str().unwrap();
    assert!(h.config().contains(name), "{}", h.config());
}

#[test]
fn network_is_used_recorded_and_checked() {
    let t = tempfile::tempdir().unwrap();
    let net = t.path().join("mini.nnue");
    write_net(&net, 1);

    plays_and_is_recorded(t.path(), &net, "nnue");

    // A network for another variant is refused when that variant is asked for alone.
    let o = generate(&t.path().join("wrong"), "gorogoroplus", Some(&net));
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("is for variant \"minishogi\""), "{err}");

    // A changed network file is a changed config: resuming into the old run is refused.
    write_net(&net, 2);
    let o = generate(&t.path().join("nnue"), "minishogi", Some(&net));
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("different config"));
}

#[test]
fn a_fairy_stockfish_format_network_plays_self_play() {
    use kage_engine::nnue::fsf::{FsfLayout, random_net};
    let t = tempfile::tempdir().unwrap();
    let net = t.path().join("fsf.nnue");
    let layout = FsfLayout::for_variant(Variant::by_name("minishogi").unwrap()).unwrap();
    std::fs::write(&net, random_net(&layout, 1).to_bytes().unwrap()).unwrap();

    plays_and_is_recorded(t.path(), &net, "fsf");

    // The net's size is another variant's: one line naming the size it has.
    let o = generate(&t.path().join("wrong"), "gorogoroplus", Some(&net));
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("(the size of a minishogi net)"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}

#[test]
fn a_match_with_a_network() {
    let t = tempfile::tempdir().unwrap();
    let net = t.path().join("mini.nnue");
    write_net(&net, 1);
    let out = t.path().join("m");
    let run = |variant: &str| {
        Command::new(BIN)
            .args(["match", "--variant", variant, "--nodes", "200", "--games", "2", "--quiet"])
            .args(["--max-plies", "60", "--out"])
            .arg(&out)
            .args(["--engine", "builtin", &format!("net={}", net.display())])
            .args(["--engine", "builtin", "eval=hce", "hash=1"])
            .output()
            .unwrap()
    };
    let o = run("minishogi");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("kage-mini vs kage-hce (minishogi)"), "{stdout}");
    // A network for another variant: one line.
    let o = run("gorogoroplus");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("engine \"kage-mini\": network"), "{err}");
    // A changed network is another match: resuming into the directory is refused.
    write_net(&net, 2);
    let o = run("minishogi");
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("holds another match"));
}
