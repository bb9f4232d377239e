//! `kage-data export --format fsf-bin` and `kage-data import-bin`: a round trip through the
//! binaries, the sidecar and header they record, refused overwrites, a short trailing record.

use std::path::Path;
use std::process::{Command, Output};

use kage_data::fsf_bin::RECORD_BYTES;
use kage_data::{FileHeader, PositionRecord, RecordKind, StmResult, Writer, read_all};
use kage_engine::{Game, Variant};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

fn bin(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kage-data")).args(args).output().expect("runs")
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Positions of random games of `v` (legal moves only).
fn positions(v: &'static Variant, games: usize, seed: u64) -> Vec<PositionRecord> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut out = Vec::new();
    for _ in 0..games {
        let mut game = Game::startpos(v);
        for ply in 0..80u16 {
            let moves = game.position().legal_moves();
            if game.outcome().is_some() || moves.is_empty() {
                break;
            }
            let score = rng.random_range(-900..900);
            let winner = Some(game.position().side_to_move());
            out.push(
                PositionRecord::from_position(game.position(), score, winner, ply, None, None)
                    .expect("record"),
            );
            game.play(moves.as_slice()[rng.random_range(0..moves.len())]);
        }
    }
    out
}

#[test]
fn export_then_import_gives_the_positions_back() {
    let dir = tempfile::tempdir().expect("dir");
    let v = Variant::by_name("shinobiplus").expect("variant");
    let recs = positions(v, 6, 5);
    let kdata = dir.path().join("positions.kdata");
    let h = FileHeader::new(RecordKind::Position, "shinobiplus", "a = 1", "rev", "test")
        .expect("header");
    let mut w = Writer::<PositionRecord>::create(&kdata, h).expect("create");
    w.write_all(&recs).expect("write");
    w.finish().expect("finish");

    let out = dir.path().join("p.bin");
    let o = bin(&["export", "--format", "fsf-bin", "--out", s(&out), s(&kdata)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let bytes = std::fs::read(&out).expect("bin");
    assert_eq!(bytes.len(), recs.len() * RECORD_BYTES);
    let meta = std::fs::read_to_string(dir.path().join("p.bin.meta.toml")).expect("meta");
    assert!(meta.contains("variant = \"shinobiplus\"") && meta.contains("git_revision"), "{meta}");

    let back = dir.path().join("back.kdata");
    let o = bin(&["import-bin", "--variant", "shinobiplus", "--out", s(&back), s(&out)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (h, got, _) = read_all::<PositionRecord>(&back).expect("read");
    assert!(h.config().contains("format = \"fsf-bin\"") && h.config().contains("crc32"));
    assert_eq!(got.len(), recs.len());
    for (a, b) in recs.iter().zip(&got) {
        assert_eq!((a.score, a.result, a.ply), (b.score, b.result, b.ply));
        // shinobiplus' promoted pieces (+P, +L, +H, +M) read back as C, R, N, B.
        assert_eq!(
            a.pos.to_position(v).expect("valid").occupied(),
            b.pos.to_position(v).expect("valid").occupied()
        );
    }

    // Inputs are never overwritten; a short trailing record is refused, then allowed.
    let o = bin(&["import-bin", "--variant", "shinobiplus", "--out", s(&out), s(&out)]);
    assert!(!o.status.success());
    let mut short = bytes.clone();
    short.extend_from_slice(&[1, 2, 3]);
    let cut = dir.path().join("cut.bin");
    std::fs::write(&cut, &short).expect("write");
    let again = dir.path().join("again.kdata");
    let o = bin(&["import-bin", "--variant", "shinobiplus", "--out", s(&again), s(&cut)]);
    assert!(!o.status.success() && stderr(&o).contains("has 3 of its 72 bytes"), "{}", stderr(&o));
    assert!(!again.exists() && !kage_data::tmp_path(&again).exists());
    let o = bin(&[
        "import-bin",
        "--variant",
        "shinobiplus",
        "--allow-damaged",
        "--out",
        s(&again),
        s(&cut),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(read_all::<PositionRecord>(&again).expect("read").1.len(), recs.len());
    // The wrong variant: records that do not decode, one line, non-zero exit.
    let wrong = dir.path().join("wrong.kdata");
    let o = bin(&["import-bin", "--variant", "minishogi", "--out", s(&wrong), s(&out)]);
    assert!(!o.status.success() && stderr(&o).contains("record 0"), "{}", stderr(&o));
}

#[test]
fn fit_wdl_names_a_fairy_stockfish_format_net_by_content_and_refuses_another_variants() {
    use kage_engine::nnue::fsf::{FsfLayout, net_file_name, random_net};
    let dir = tempfile::tempdir().expect("dir");
    let v = Variant::by_name("minishogi").expect("variant");
    // Scores that predict the result: the side to move wins with probability sigmoid(s / 150).
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
    let mut recs = positions(v, 300, 8);
    for r in &mut recs {
        let p = 1.0 / (1.0 + (-f64::from(r.score) / 150.0).exp());
        r.result = if rng.random_bool(p) { StmResult::Win } else { StmResult::Loss };
    }
    let kdata = dir.path().join("positions.kdata");
    let h = FileHeader::new(RecordKind::Position, "minishogi", "a = 1", "rev", "test").unwrap();
    let mut w = Writer::<PositionRecord>::create(&kdata, h).expect("create");
    w.write_all(&recs).expect("write");
    w.finish().expect("finish");

    let layout = FsfLayout::for_variant(v).expect("layout");
    let bytes = random_net(&layout, 3).to_bytes().expect("bytes");
    let net = dir.path().join("net.nnue");
    std::fs::write(&net, &bytes).expect("write net");
    let o = bin(&["fit-wdl", "--net", s(&net), s(&kdata)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    let file = kage_engine::eval::wdl::WdlFile::parse(&text).expect("the engine reads it");
    assert_eq!((file.variant.as_str(), file.evaluator.as_str()), ("minishogi", "fsf-net"));
    let name = net_file_name("minishogi", &bytes);
    assert!(text.contains(&format!("net_file = \"{name}\"")), "{text}");

    // A Gorogoro+ net for Minishogi data: one line naming the file.
    let gl = FsfLayout::for_variant(Variant::by_name("gorogoroplus").unwrap()).unwrap();
    std::fs::write(&net, random_net(&gl, 3).to_bytes().unwrap()).expect("write net");
    let o = bin(&["fit-wdl", "--net", s(&net), s(&kdata)]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(err.contains("is not a net for the data's minishogi"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}
