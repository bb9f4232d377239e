//! `KAGE_NETS_DIR` at build time (engine/build.rs): a net trained here, put in that folder as
//! `<variant>.nnue`, becomes the variant's default in the `kage` built with it, and kage says
//! where its default net came from. Builds `kage` once more in its own target directory.

mod common;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// `kage`'s replies to `lines` (stdin), as text.
fn uci(kage: &Path, lines: &str) -> String {
    let mut child = Command::new(kage)
        .arg("uci")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("kage runs");
    child.stdin.take().expect("stdin").write_all(lines.as_bytes()).expect("write");
    let o = child.wait_with_output().expect("kage ends");
    assert!(o.status.success(), "kage failed");
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn a_net_in_kage_nets_dir_is_its_variants_default() {
    let dir = common::temp_dir("nets-dir");
    let (run, data) = (dir.join("run"), dir.join("positions.kdata"));
    let playouts = common::Playouts {
        variant: "minishogi",
        games: 20,
        plies: 40,
        seed: 11,
        chunk_bytes: None,
    };
    playouts.write(&data, |_, _, s| ((s % 400) as i16 - 200, None));
    let status = Command::new(env!("CARGO_BIN_EXE_kage-train"))
        .args(["--variant", "minishogi", "--ft-size", "8", "--head-size", "4", "--epochs", "1"])
        .arg("--quiet")
        .arg("--data")
        .arg(&data)
        .arg("--out")
        .arg(&run)
        .status()
        .expect("kage-train runs");
    assert!(status.success());
    let run_id = std::fs::read_to_string(run.join("run.toml")).expect("run.toml");
    let run_id = run_id
        .lines()
        .find_map(|l| l.strip_prefix("run_id = "))
        .map(|v| v.trim_matches('"').to_string())
        .expect("run.toml names its run");
    // A fixed folder (not the per-process temp dir), so that a rerun builds no more than needed.
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR")).join("kage-nets-dir-test");
    let nets = tmp.join("nets");
    std::fs::create_dir_all(&nets).expect("nets dir");
    std::fs::copy(run.join("net.nnue"), nets.join("minishogi.nnue")).expect("copy the net");
    // Shinobi's: a damaged file (a net cut short), which only Shinobi must suffer from.
    let mut damaged = std::fs::read(root().join("engine/nets/shinobi.nnue")).expect("net");
    damaged.truncate(damaged.len() / 2);
    std::fs::write(nets.join("shinobi.nnue"), damaged).expect("write");

    let kage = build_kage(&tmp.join("target"), &nets);
    let ask =
        "setoption name UCI_Variant value VARIANT\nsetoption name Use NNUE value true\nquit\n";
    let text = uci(&kage, &ask.replace("VARIANT", "minishogi"));
    let want = format!("the built-in (KAGE_NETS_DIR) network of minishogi (run {run_id})");
    assert!(text.contains(&want), "{want}\n{text}");
    let text = uci(&kage, &ask.replace("VARIANT", "shinobi"));
    let want = "hand-crafted (the built-in (KAGE_NETS_DIR) network of shinobi does not load";
    assert!(text.contains(want), "{want}\n{text}");
    // The other variants keep their shipped nets.
    let text = uci(&kage, &ask.replace("VARIANT", "gorogoroplus"));
    assert!(text.contains("the shipped network of gorogoroplus"), "{text}");
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("repository root")
}

/// Builds `kage` (debug) into `target` with `KAGE_NETS_DIR=nets`; returns the binary.
fn build_kage(target: &Path, nets: &Path) -> std::path::PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let o = Command::new(cargo)
        .current_dir(root())
        .args(["build", "-p", "kage-engine", "--bin", "kage"])
        .env("CARGO_TARGET_DIR", target)
        .env_remove("CARGO_BUILD_TARGET")
        .env("KAGE_NETS_DIR", nets)
        .output()
        .expect("cargo runs");
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "cargo build with KAGE_NETS_DIR: {stderr}");
    assert!(stderr.contains("minishogi: default net"), "build.rs says so: {stderr}");
    target.join("debug").join(format!("kage{}", std::env::consts::EXE_SUFFIX))
}
