//! `--net`: self-play with an NNUE network (a small random one built here).

use std::path::Path;
use std::process::{Command, Output};

use kage_engine::Variant;
use kage_engine::nnue::features::{FEATURE_SET_ID, num_features};
use kage_engine::nnue::{Activation, NetHeader, NetWeights, Network};
use rand::{Rng, SeedableRng};

const BIN: &str = env!("CARGO_BIN_EXE_kage-selfplay");

fn random_net(v: &Variant, seed: u64) -> Vec<u8> {
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
    let (f, h, k) = (num_features(v), 16usize, 8usize);
    let header = NetHeader {
        variant: v.name.clone(),
        feature_set_id: FEATURE_SET_ID,
        num_features: f as u32,
        ft_size: h as u32,
        head_size: k as u32,
        activation: Activation::ClippedRelu,
        output_scale: 400,
        run_id: "selfplay-test".into(),
        git_revision: "test".into(),
        config: String::new(),
    };
    let weights = NetWeights {
        ft_weights: (0..f * h).map(|_| rng.random_range(-20..20)).collect(),
        ft_bias: (0..h).map(|_| rng.random_range(0..40)).collect(),
        l1_weights: (0..k * 2 * h).map(|_| rng.random_range(-30..30)).collect(),
        l1_bias: (0..k).map(|_| rng.random_range(-500..500)).collect(),
        out_weights: (0..k).map(|_| rng.random_range(-60..60)).collect(),
        out_bias: 0,
    };
    Network::from_parts(header, weights).unwrap().to_bytes()
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

#[test]
fn network_is_used_recorded_and_checked() {
    let t = tempfile::tempdir().unwrap();
    let net = t.path().join("mini.nnue");
    std::fs::write(&net, random_net(Variant::by_name("minishogi").unwrap(), 1)).unwrap();

    let o = generate(&t.path().join("nnue"), "minishogi", Some(&net));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = generate(&t.path().join("hce"), "minishogi", None);
    assert!(o.status.success());
    let a = std::fs::read(t.path().join("nnue/minishogi/games.kdata")).unwrap();
    let b = std::fs::read(t.path().join("hce/minishogi/games.kdata")).unwrap();
    assert_ne!(a, b, "the network changes the games");
    let h = kage_data::FileHeader::read_file(&t.path().join("nnue/minishogi/games.kdata")).unwrap();
    assert!(h.config().contains("mini.nnue"), "{}", h.config());

    // A network for another variant is refused when that variant is asked for alone.
    let o = generate(&t.path().join("wrong"), "gorogoroplus", Some(&net));
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("is for variant \"minishogi\""), "{err}");

    // A changed network file is a changed config: resuming into the old run is refused.
    std::fs::write(&net, random_net(Variant::by_name("minishogi").unwrap(), 2)).unwrap();
    let o = generate(&t.path().join("nnue"), "minishogi", Some(&net));
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("different config"));
}

#[test]
fn a_match_with_a_network() {
    let t = tempfile::tempdir().unwrap();
    let net = t.path().join("mini.nnue");
    std::fs::write(&net, random_net(Variant::by_name("minishogi").unwrap(), 1)).unwrap();
    let out = t.path().join("m");
    let run = |variant: &str| {
        Command::new(BIN)
            .args(["match", "--variant", variant, "--nodes", "200", "--games", "2", "--quiet"])
            .args(["--max-plies", "60", "--out"])
            .arg(&out)
            .args(["--engine", "builtin", &format!("net={}", net.display())])
            .args(["--engine", "builtin", "hash=1"])
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
    std::fs::write(&net, random_net(Variant::by_name("minishogi").unwrap(), 2)).unwrap();
    let o = run("minishogi");
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("holds another match"));
}
