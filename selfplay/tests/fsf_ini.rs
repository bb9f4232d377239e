//! Self-play from a Fairy-Stockfish `variants.ini` (issue 32 item 2): `--variant` names the
//! section, the engine translates it, and a section that plays a built-in's game is that
//! built-in.

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_kage-selfplay");
const INI: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../engine/tests/fixtures/fsf_variants.ini");

fn generate(variant: Option<&str>, out: &std::path::Path) -> std::process::Output {
    let mut args = vec!["generate", "--games", "2", "--player", "greedy", "--max-plies", "40"];
    args.extend(["--quiet", "--variant-file", INI]);
    if let Some(v) = variant {
        args.extend(["--variant", v]);
    }
    Command::new(BIN).args(args).arg("--out").arg(out).output().expect("runs")
}

#[test]
fn a_section_of_an_ini_file_is_self_played() {
    let t = tempfile::tempdir().expect("temp dir");
    let o = generate(Some("1d-chess"), &t.path().join("a"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let games = t.path().join("a/1d-chess/games.kdata");
    let (header, records, _) =
        kage_data::read_all::<kage_data::GameRecord>(&games).expect("games file");
    assert_eq!(records.len(), 2);
    // The translated spec travels in the file's config, so kage-data and kage-train read it.
    assert_eq!(kage_data::variant::of_header(&header).expect("variant").name, "1d-chess");
}

#[test]
fn a_section_playing_a_built_in_is_the_built_in_and_a_missing_one_is_named() {
    let t = tempfile::tempdir().expect("temp dir");
    let o = generate(Some("shinobi"), &t.path().join("b"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let run = std::fs::read_to_string(t.path().join("b/shinobi/run.toml")).expect("run.toml");
    assert!(!run.contains("variant_spec"), "the built-in, not a user variant:\n{run}");
    let o = generate(Some("nosuch"), &t.path().join("c"));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("1d-chess"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    let o = generate(None, &t.path().join("d"));
    assert!(!o.status.success(), "a file of several sections needs --variant");
}
