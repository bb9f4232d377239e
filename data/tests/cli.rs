//! End-to-end tests of the `kage-data` binary on real games.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use kage_data::{
    FileHeader, GameRecord, GameResult, PositionRecord, RecordKind, Termination, Writer, read_all,
};
use kage_engine::{Game, Variant, VariantId};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

fn bin(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kage-data")).args(args).output().unwrap()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Random legal games and the training positions of those games.
fn games(
    v: &'static Variant,
    n: u64,
    first_index: u64,
    seed: u64,
) -> (Vec<GameRecord>, Vec<PositionRecord>) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let (mut gs, mut ps) = (Vec::new(), Vec::new());
    for gi in 0..n {
        let mut game = Game::startpos(v);
        let mut scores = Vec::new();
        let mut outcome = None;
        for _ in 0..120 {
            if let Some(o) = game.outcome() {
                outcome = Some(o);
                break;
            }
            let moves = game.position().legal_moves();
            let m = moves.as_slice()[rng.random_range(0..moves.len())];
            scores.push(rng.random_range(-800..800));
            game.play(m);
        }
        let (result, termination, winner) = match outcome {
            Some(o) => (GameResult::from_winner(o.winner), Termination::from(o.reason), o.winner),
            None => (GameResult::Draw, Termination::PlyLimit, None),
        };
        let moves: Vec<u16> = game.moves().iter().map(|m| m.0).collect();
        let mut replay = Game::startpos(v);
        for (ply, &m) in game.moves().iter().enumerate() {
            let rec = PositionRecord::from_position(
                replay.position(),
                scores[ply],
                winner,
                ply as u16,
                Some(m),
                None,
            )
            .unwrap();
            ps.push(rec);
            replay.play(m);
        }
        gs.push(GameRecord {
            variant: v.name.clone(),
            start_fen: v.start_fen.clone(),
            moves,
            scores,
            result,
            termination,
            game_index: first_index + gi,
        });
    }
    (gs, ps)
}

fn header(kind: RecordKind, v: &str, config: &str) -> FileHeader {
    FileHeader::new(kind, v, config, "test-rev", "cli-test").unwrap()
}

fn write<R: kage_data::Record>(p: &Path, h: FileHeader, recs: &[R]) {
    let mut w = Writer::<R>::create(p, h).unwrap();
    w.set_chunk_target(4096);
    w.write_all(recs).unwrap();
    w.finish().unwrap();
}

struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    games: PathBuf,
    positions: PathBuf,
    game_recs: Vec<GameRecord>,
    pos_recs: Vec<PositionRecord>,
}

fn fixture(variant: VariantId) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    let v = Variant::builtin(variant);
    let (game_recs, pos_recs) = games(v, 30, 0, variant.index() as u64);
    let games = root.join("games.kdata");
    let positions = root.join("positions.kdata");
    write(&games, header(RecordKind::Game, &v.name, "a = 1"), &game_recs);
    write(&positions, header(RecordKind::Position, &v.name, "a = 1"), &pos_recs);
    Fixture { _dir: dir, root, games, positions, game_recs, pos_recs }
}

#[test]
fn stats_and_validate_real_games() {
    for id in VariantId::ALL {
        let f = fixture(id);
        let o = bin(&["stats", s(&f.games), s(&f.positions)]);
        assert!(o.status.success(), "{}", stderr(&o));
        let out = stdout(&o);
        assert!(out.contains(&format!("variant {}: 2 file(s)", id.name())), "{out}");
        assert!(out.contains(&format!("positions: {}", f.pos_recs.len())), "{out}");
        assert!(out.contains(&format!("games: {}", f.game_recs.len())), "{out}");
        assert!(out.contains("scores, side to move"), "{out}");

        let o = bin(&["validate", s(&f.games), s(&f.positions)]);
        assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
        assert!(
            stdout(&o).contains(&format!("OK {} records, 0 invalid", f.pos_recs.len())),
            "{}",
            stdout(&o)
        );
    }
}

#[test]
fn validate_catches_illegal_records() {
    let f = fixture(VariantId::MINISHOGI);
    let mut games = f.game_recs.clone();
    games[3].moves.swap(0, 1);
    let mut pos = f.pos_recs.clone();
    pos[5].mv = pos[6].mv ^ 0x0fff;
    pos[7].flags =
        kage_data::PositionFlags::from_bits(pos[7].flags.bits() ^ kage_data::PositionFlags::DROP)
            .unwrap();
    let bad_g = f.root.join("bad-games.kdata");
    let bad_p = f.root.join("bad-pos.kdata");
    write(&bad_g, header(RecordKind::Game, "minishogi", "a = 1"), &games);
    write(&bad_p, header(RecordKind::Position, "minishogi", "a = 1"), &pos);
    let o = bin(&["validate", s(&bad_g), s(&bad_p)]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(out.contains("record 3: game 3: move 0"), "{out}");
    assert!(out.contains("record 5: move"), "{out}");
    assert!(out.contains("record 7: flags"), "{out}");
    assert!(out.contains("FAILED"), "{out}");
}

#[test]
fn shuffle_is_a_seeded_permutation_with_buckets() {
    let f = fixture(VariantId::SHINOBIPLUS);
    // Enough synthetic positions for several 1 MiB buckets.
    let mut synth = kage_data::synth::Synth::new(5);
    let recs: Vec<PositionRecord> = (0..40_000).map(|_| synth.position()).collect();
    let a = f.root.join("a.kdata");
    let b = f.root.join("b.kdata");
    write(&a, header(RecordKind::Position, "shinobiplus", "a = 1"), &recs[..25_000]);
    write(&b, header(RecordKind::Position, "shinobiplus", "a = 1"), &recs[25_000..]);
    let out1 = f.root.join("s1.kdata");
    let out2 = f.root.join("s2.kdata");
    for out in [&out1, &out2] {
        let o = bin(&["shuffle", "--seed", "7", "--memory-mb", "1", "--out", s(out), s(&a), s(&b)]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(
            stderr(&o).contains("bucket(s)") && !stderr(&o).contains("(1 bucket"),
            "{}",
            stderr(&o)
        );
    }
    let (h, s1, _) = read_all::<PositionRecord>(&out1).unwrap();
    let (_, s2, _) = read_all::<PositionRecord>(&out2).unwrap();
    assert_eq!(s1, s2, "same seed, same order");
    assert_ne!(s1, recs);
    let key = |r: &PositionRecord| bincode::encode_to_vec(r, kage_data::BINCODE_CONFIG).unwrap();
    let mut x: Vec<_> = s1.iter().map(key).collect();
    let mut y: Vec<_> = recs.iter().map(key).collect();
    x.sort();
    y.sort();
    assert_eq!(x, y, "a permutation");
    assert_eq!(h.variant(), "shinobiplus");
    assert!(h.created_by().contains("shuffle"));
    assert!(!f.root.join("s1.kdata.shuffle-buckets").exists());
    // Games shuffle too (one bucket).
    let o = bin(&["shuffle", "--out", s(&f.root.join("g.kdata")), s(&f.games)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(read_all::<GameRecord>(f.root.join("g.kdata")).unwrap().1.len(), f.game_recs.len());
}

#[test]
fn merge_joins_shards_and_refuses_mismatches() {
    let v = Variant::builtin(VariantId::GOROGOROPLUS);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let (g1, _) = games(v, 10, 0, 1);
    let (g2, _) = games(v, 10, 10, 2);
    let (g3, _) = games(v, 10, 5, 3);
    let p = |n: &str| root.join(n);
    write(&p("1.kdata"), header(RecordKind::Game, "gorogoroplus", "c"), &g1);
    write(&p("2.kdata"), header(RecordKind::Game, "gorogoroplus", "c"), &g2);
    write(&p("3.kdata"), header(RecordKind::Game, "gorogoroplus", "c"), &g3);
    write(&p("other-config.kdata"), header(RecordKind::Game, "gorogoroplus", "d"), &g2);
    write(&p("other-variant.kdata"), header(RecordKind::Game, "minishogi", "c"), &g2);

    let o = bin(&["merge", "--out", s(&p("m.kdata")), s(&p("1.kdata")), s(&p("2.kdata"))]);
    assert!(o.status.success(), "{}", stderr(&o));
    let merged = read_all::<GameRecord>(p("m.kdata")).unwrap().1;
    assert_eq!(merged, [g1.clone(), g2.clone()].concat());

    let cases: [(&[&str], &str); 4] = [
        (&["1.kdata", "3.kdata"], "game index 5 appears in"),
        (&["1.kdata", "other-config.kdata"], "different generator configs"),
        (&["1.kdata", "other-variant.kdata"], "combine files of one variant only"),
        (&["1.kdata", "1.kdata"], "given twice"),
    ];
    for (inputs, msg) in cases {
        let out = p("bad.kdata");
        let mut args = vec!["merge", "--out", s(&out)];
        let paths: Vec<PathBuf> = inputs.iter().map(|n| p(n)).collect();
        args.extend(paths.iter().map(|x| s(x)));
        let o = bin(&args);
        assert_eq!(o.status.code(), Some(1), "{inputs:?}");
        let err = stderr(&o);
        assert!(err.contains(msg), "{inputs:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "one-line error: {err}");
        assert!(!out.exists() && !kage_data::tmp_path(&out).exists());
    }

    // Position shards: an identical copy is refused.
    let (_, ps) = games(v, 5, 0, 4);
    write(&p("p1.kdata"), header(RecordKind::Position, "gorogoroplus", "c"), &ps);
    std::fs::copy(p("p1.kdata"), p("p2.kdata")).unwrap();
    let o = bin(&["merge", "--out", s(&p("pm.kdata")), s(&p("p1.kdata")), s(&p("p2.kdata"))]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("hold the same data"), "{}", stderr(&o));
}

#[test]
fn export_text_and_pgn() {
    let f = fixture(VariantId::SHINOBI);
    let v = Variant::builtin(VariantId::SHINOBI);
    let txt = f.root.join("pos.txt");
    let o = bin(&["export", "--text", "--out", s(&txt), s(&f.positions)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&txt).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), f.pos_recs.len());
    for (line, rec) in lines.iter().zip(&f.pos_recs) {
        let parts: Vec<&str> = line.split(" | ").collect();
        assert_eq!(parts.len(), 3, "{line}");
        let pos = kage_engine::Position::from_fen(v, parts[0]).unwrap();
        assert_eq!(kage_data::CompactPosition::from_position(&pos).unwrap(), rec.pos);
        assert_eq!(parts[1], rec.white_score().to_string());
        assert!(["1.0", "0.5", "0.0"].contains(&parts[2]));
    }
    // Game files export the same lines.
    let txt2 = f.root.join("games.txt");
    let o = bin(&["export", "--text", "--out", s(&txt2), s(&f.games)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&txt2).unwrap(), text);

    let pgn = f.root.join("games.pgn");
    let o = bin(&["export", "--pgn", "--scores", "--out", s(&pgn), s(&f.games)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&pgn).unwrap();
    assert_eq!(text.matches("[Variant \"shinobi\"]").count(), f.game_recs.len());
    assert_eq!(text.matches("[SetUp \"1\"]").count(), f.game_recs.len());
    assert!(text.contains(&format!("[FEN \"{}\"]", v.start_fen)));
    assert!(text.contains("\n1. "), "{text}");
    let g0 = &f.game_recs[0];
    assert!(text.contains(&format!("[Result \"{}\"]", g0.result.pgn())));
    // PGN of position files is refused.
    let o = bin(&["export", "--pgn", "--out", s(&pgn), s(&f.positions)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("PGN export needs game files"));
}

#[test]
fn bad_input_gives_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk.kdata");
    std::fs::write(&junk, b"hello world, not a data file").unwrap();
    let missing = dir.path().join("missing.kdata");
    let out = dir.path().join("o");
    for args in [
        vec!["stats", s(&junk)],
        vec!["validate", s(&missing)],
        vec!["shuffle", "--out", s(&out), s(&junk)],
        vec!["merge", "--out", s(&out), s(&missing)],
        vec!["export", "--text", "--out", s(&out), s(&junk)],
    ] {
        let o = bin(&args);
        assert_ne!(o.status.code(), Some(0), "{args:?}");
        assert!(o.status.code().is_some(), "{args:?}: killed");
        let all = format!("{}{}", stdout(&o), stderr(&o));
        assert!(!all.contains("panicked"), "{args:?}: {all}");
        assert!(
            all.contains("not a kage data file") || all.contains("No such file"),
            "{args:?}: {all}"
        );
    }
}
