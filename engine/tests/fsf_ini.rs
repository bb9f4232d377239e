//! Fairy-Stockfish `variants.ini` files through the engine's one variant-file loader: FSF's own
//! sections of the four variants play as kage's specs (perft on the reference positions), the
//! loader's section choice and refusals, the check-evasion regression found with `1d-chess`, and
//! the CLI (`perft`, `check`, `uci`) with an `.ini` file.

use kage_engine::perft::perft;
use kage_engine::protocol::rules::game_from;
use kage_engine::variant::{FsfIniFile, SpecError, read_user_variant};
use kage_engine::{Position, Variant, VariantId};
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

/// FSF's sections of Shinobi, Gorogoro+, Shinobi+ and 1d-chess.
fn fsf_file() -> PathBuf {
    fixture("fsf_variants.ini")
}

fn reference(variant: &str) -> Vec<Value> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join(format!("tests/reference/perft_{variant}.jsonl"));
    let text = std::fs::read_to_string(&path).expect("reference file");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// A scratch file holding `text`, its name ending in `name`; removed when dropped.
fn temp_file(name: &str, text: &str) -> tempfile::NamedTempFile {
    let file =
        tempfile::Builder::new().prefix("kage-fsf-ini-").suffix(&format!("-{name}")).tempfile();
    let file = file.expect("scratch file");
    std::fs::write(file.path(), text).unwrap();
    file
}

/// Each variant as FSF's file states it (its translated spec compiled on its own, not the
/// built-in the loader maps it to) against kage's spec: perft depths 1-2 and the FEN on every
/// reference position.
#[test]
fn fsf_sections_of_the_four_variants_play_as_kage_specs() {
    let file = FsfIniFile::read(&fsf_file()).expect("fixture reads");
    for id in VariantId::ALL {
        let fsf = file.variant(id.name()).unwrap_or_else(|e| panic!("{id}: {e}"));
        let kage = Variant::builtin(id);
        assert!(!std::ptr::eq(fsf, kage));
        let records = reference(id.name());
        assert!(records.len() >= 20, "{id}: reference positions");
        for r in records {
            let fen = r["fen"].as_str().unwrap();
            let a = Position::from_fen(fsf, fen).unwrap_or_else(|e| panic!("{id} {fen}: {e}"));
            let b = Position::from_fen(kage, fen).unwrap();
            assert_eq!(a.to_fen(), b.to_fen(), "{id}: FEN {fen}");
            for d in 1..=2 {
                assert_eq!(perft(&a, d), perft(&b, d), "{id}: perft {d} of {fen}");
            }
        }
    }
}

#[test]
fn built_in_named_sections_load_as_the_built_in_variants() {
    for id in VariantId::ALL {
        let u = read_user_variant(&fsf_file(), Some(id.name())).unwrap();
        assert!(std::ptr::eq(u.variant, Variant::builtin(id)), "{id}");
        assert!(u.spec_text.is_none());
    }
    let text = std::fs::read_to_string(fsf_file()).unwrap();
    let changed =
        text.replace("flagRegionWhite = *8\nflagRegionBlack = *1\n\n[gorogoro", "[gorogoro");
    let path = temp_file("changed.ini", &changed);
    let e = read_user_variant(path.path(), Some("shinobi")).unwrap_err();
    assert!(matches!(e, SpecError::BuiltinDiffers { .. }), "{e}");
    assert!(e.to_string().contains("[shinobi]"), "{e}");
}

#[test]
fn the_section_is_chosen_by_name() {
    let e = read_user_variant(&fsf_file(), None).unwrap_err().to_string();
    assert!(e.contains("defines 4 variants") && e.contains("1d-chess, shinobiplus"), "{e}");
    let e = read_user_variant(&fsf_file(), Some("nope")).unwrap_err().to_string();
    assert!(e.contains("no variant 'nope'") && e.contains("shinobi, gorogoroplus"), "{e}");
    let v = Variant::from_user_file(&fsf_file(), Some("1d-chess")).unwrap();
    assert_eq!((v.name.as_str(), v.width, v.height), ("1d-chess", 8, 1));
    let one = temp_file("one.ini", "[tiny:1d-chess]\nstartFen = KNR1rnk1 w\n");
    let extends_unknown = Variant::from_user_spec_file(one.path()).unwrap_err().to_string();
    assert!(extends_unknown.contains("'1d-chess'"), "{extends_unknown}");
    // Content detection: an FSF file without the .ini extension.
    let one =
        temp_file("one.txt", "# x\n[tiny:minishogi]\nstartFen = rbsgk/4p/5/P4/KGSBR[-] w 0 1\n");
    assert_eq!(Variant::from_user_spec_file(one.path()).unwrap().name, "tiny");
}

#[test]
fn an_unsupported_key_is_an_error_naming_it_and_its_section() {
    let cases = [
        ("mustCapture = true", "mustCapture"),
        ("extinctionValue = loss", "extinctionValue"),
        ("maxFile = j", "maxFile"),
        ("noSuchOption = 3", "noSuchOption"),
    ];
    for (line, key) in cases {
        let path = temp_file("bad.ini", &format!("[odd:minishogi]\n{line}\n"));
        let e = Variant::from_user_file(path.path(), Some("odd")).unwrap_err();
        let SpecError::FsfIni(f) = &e else { panic!("{line}: {e}") };
        assert_eq!(f.key(), Some(key), "{line}: {e}");
        let msg = e.to_string();
        assert!(msg.contains(key) && msg.contains("[odd]") && !msg.contains('\n'), "{msg}");
    }
}

/// A piece that jumps exactly two squares (`D`) gives a check no piece can block: FSF's
/// `1d-chess` after `c1e1 g1e1 b1d1 e1c1` has only the king move (kage listed `d1b1` too).
#[test]
fn a_check_by_a_two_square_leaper_cannot_be_blocked() {
    let v = Variant::from_user_file(&fsf_file(), Some("1d-chess")).unwrap();
    let moves: Vec<String> = ["c1e1", "g1e1", "b1d1", "e1c1"].map(String::from).to_vec();
    let game = game_from(v, None, &moves).unwrap();
    let pos = game.position();
    assert!(pos.in_check());
    let legal: Vec<String> =
        pos.legal_moves().as_slice().iter().map(|&m| pos.move_to_uci(m)).collect();
    assert_eq!(legal, ["a1b1"]);
    assert_eq!(perft(pos, 1), 1);
}

/// A pinned piece that jumps two squares along the pin line cannot jump past its pinner: in
/// `1d-chess` after `c1f1` Black's knight on g1 (pinned by the rook) has no move, so Black is
/// stalemated (kage allowed `g1e1`); likewise `b1d1` over the rook in `KNr3nk`.
#[test]
fn a_pinned_leaper_cannot_jump_past_its_pinner() {
    let v = Variant::from_user_file(&fsf_file(), Some("1d-chess")).unwrap();
    for (fen, moves) in [(None, vec!["c1f1"]), (Some("KNr3nk w - - 0 3"), vec![])] {
        let moves: Vec<String> = moves.into_iter().map(String::from).collect();
        let game = game_from(v, fen, &moves).unwrap();
        assert_eq!(game.position().count_legal(), 0, "{fen:?} {moves:?}");
        let o = game.outcome().expect("stalemate");
        assert_eq!((o.reason.name(), o.winner_name()), ("stalemate", "draw"));
    }
}

fn kage(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kage")).args(args).output().expect("run kage")
}

fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn cli_perft_and_check_with_an_ini_file() {
    let f = fsf_file();
    let f = f.to_str().unwrap();
    let o = kage(&["--variant-file", f, "perft", "--variant", "gorogoroplus", "--depth", "2"]);
    assert!(o.status.success());
    assert!(text(&o).contains("Nodes searched: 1438"), "{}", text(&o));
    let o = kage(&["--variant-file", f, "perft", "--depth", "1"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("choose one with --variant") && err.lines().count() == 1, "{err}");

    let bad = temp_file("check.ini", "[ok:minishogi]\n[no:minishogi]\nmustCapture = true\n");
    let o = kage(&["check", bad.path().to_str().unwrap()]);
    assert!(o.status.success());
    let out = text(&o);
    assert!(out.contains("OK ok: ok (5x5)"), "{out}");
    assert!(out.contains("REFUSED no: key mustCapture:"), "{out}");
    assert!(out.contains("1 of 2 sections playable"), "{out}");
    let o = kage(&["check", bad.path().to_str().unwrap(), "--variant", "no"]);
    assert_eq!(o.status.code(), Some(2));
}

/// `kage --variant-file F.ini uci`: UCI_Variant offers the file's playable sections.
#[test]
fn uci_with_an_ini_file() {
    let f = fixture("fsf_sample.ini");
    let out = uci_session(&f, "uci\nposition startpos\ngo depth 1\nisready\nquit\n");
    let combo = out.lines().find(|l| l.contains("UCI_Variant")).expect("UCI_Variant");
    let first = &playable(&f)[0];
    assert!(combo.contains(&format!("default {first}")), "{combo}");
    assert!(out.contains("bestmove"), "{out}");
}

/// `kage --variant-file F uci` given `script` on standard input: what it printed.
fn uci_session(f: &Path, script: &str) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kage"))
        .args(["--variant-file", f.to_str().unwrap(), "uci"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(script.as_bytes()).unwrap();
    text(&child.wait_with_output().unwrap())
}

/// The names of the sections of `f` that kage plays, in the file's order.
fn playable(f: &Path) -> Vec<String> {
    kage_engine::variant::read_user_variants(f)
        .unwrap()
        .into_iter()
        .filter_map(|(n, v)| v.ok().map(|_| n))
        .collect()
}

#[test]
fn uci_offers_every_section_of_an_ini_file() {
    let f = fixture("fsf_variants.ini");
    let playable = playable(&f);
    assert!(playable.len() >= 2, "{playable:?}");
    // Another section than the default, preferably one no built-in variant is named after.
    let other =
        playable.iter().skip(1).find(|n| Variant::by_name(n).is_err()).unwrap_or(&playable[1]);
    let script = format!(
        "uci\nsetoption name UCI_Variant value {other}\nposition startpos\ngo depth 1\nisready\nquit\n"
    );
    let out = uci_session(&f, &script);
    let combo = out.lines().find(|l| l.contains("UCI_Variant")).expect("UCI_Variant");
    let vars: Vec<&str> = combo.split(" var ").skip(1).map(|v| v.trim()).collect();
    for name in &playable {
        assert!(vars.contains(&name.as_str()), "{name} not in {combo}");
    }
    assert!(combo.contains(&format!("default {}", playable[0])), "{combo}");
    assert!(!out.contains("info string error"), "{out}");
    let best = out
        .lines()
        .find_map(|l| l.strip_prefix("bestmove "))
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or_else(|| panic!("no bestmove: {out}"));
    let v = read_user_variant(&f, Some(other)).unwrap().variant;
    let pos = Position::startpos(v);
    let legal: Vec<String> =
        pos.legal_moves().as_slice().iter().map(|&m| pos.move_to_uci(m)).collect();
    assert!(legal.iter().any(|m| m == best), "{best} not legal in {other}: {legal:?}");
}
