//! Attack tests (issue #11): data files cut, duplicated or damaged, and the `kage-data`
//! commands given them. Nothing may be lost without an error or an explicit
//! `--allow-damaged`, and no command may leave a temporary file behind.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use kage_data::{
    FileHeader, GameRecord, GameResult, PositionRecord, Reader, RecordKind, Termination, Writer,
    read_all,
};
use kage_engine::{Game, Variant, VariantId};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

fn bin(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kage-data")).args(args).output().expect("kage-data runs")
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// Random legal minishogi games and their positions.
fn games(n: u64) -> (Vec<GameRecord>, Vec<PositionRecord>) {
    games_of(Variant::builtin(VariantId::MINISHOGI), n)
}

/// Random legal games of `v` and their positions.
fn games_of(v: &'static Variant, n: u64) -> (Vec<GameRecord>, Vec<PositionRecord>) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let (mut gs, mut ps) = (Vec::new(), Vec::new());
    for gi in 0..n {
        let mut game = Game::startpos(v);
        let mut scores = Vec::new();
        while game.outcome().is_none() && game.ply() < 40 {
            let moves = game.position().legal_moves();
            let m = moves.as_slice()[rng.random_range(0..moves.len())];
            let rec = PositionRecord::from_position(
                game.position(),
                0,
                None,
                game.ply() as u16,
                Some(m),
                None,
            )
            .expect("packs");
            ps.push(rec);
            scores.push(0);
            game.play(m);
        }
        gs.push(GameRecord {
            variant: v.name.clone(),
            start_fen: v.start_fen.clone(),
            moves: game.moves().iter().map(|m| m.0).collect(),
            scores,
            result: GameResult::Draw,
            termination: Termination::PlyLimit,
            game_index: gi,
        });
    }
    (gs, ps)
}

fn write<R: kage_data::Record>(p: &Path, kind: RecordKind, recs: &[R]) {
    let h = FileHeader::new(kind, "minishogi", "a = 1", "rev", "attack-test").expect("header");
    let mut w = Writer::<R>::create(p, h).expect("create");
    w.set_chunk_target(1024);
    w.write_all(recs).expect("write");
    w.finish().expect("finish");
}

/// Byte ranges of the data chunks and of the end marker.
fn chunks(bytes: &[u8]) -> (Vec<std::ops::Range<usize>>, std::ops::Range<usize>) {
    let mut at = bytes.windows(4).position(|w| w == b"KCHK").expect("a chunk");
    let mut out = Vec::new();
    loop {
        let len = u32::from_le_bytes(bytes[at + 4..at + 8].try_into().expect("4 bytes")) as usize;
        let end = at + 16 + len;
        if &bytes[at..at + 4] == b"KEND" {
            return (out, at..end);
        }
        out.push(at..end);
        at = end;
    }
}

struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    positions: PathBuf,
    pos_recs: Vec<PositionRecord>,
    game_recs: Vec<GameRecord>,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().to_path_buf();
    let (game_recs, pos_recs) = games(12);
    let positions = root.join("positions.kdata");
    write(&positions, RecordKind::Position, &pos_recs);
    Fixture { _dir: dir, root, positions, pos_recs, game_recs }
}

fn edited(f: &Fixture, name: &str, edit: impl FnOnce(&mut Vec<u8>)) -> PathBuf {
    let mut bytes = std::fs::read(&f.positions).expect("read");
    edit(&mut bytes);
    let p = f.root.join(name);
    std::fs::write(&p, bytes).expect("write");
    p
}

fn damage_of(p: &Path) -> (u64, Vec<String>) {
    let mut r = Reader::<PositionRecord>::open(p).expect("opens");
    while r.next_chunk().expect("reads").is_some() {}
    (r.records_read(), r.damage().iter().map(|d| d.reason.clone()).collect())
}

#[test]
fn a_chunk_cut_out_or_copied_in_is_damage() {
    let f = fixture();
    let (ranges, _) = chunks(&std::fs::read(&f.positions).expect("read"));
    assert!(ranges.len() >= 4, "{} chunks", ranges.len());
    let cut = ranges[1].clone();
    let cut_file = edited(&f, "cut.kdata", |b| {
        b.drain(cut);
    });
    let (n, damage) = damage_of(&cut_file);
    assert!(n < f.pos_recs.len() as u64);
    assert_eq!(damage.len(), 1, "{damage:?}");
    assert!(damage[0].contains("end marker counts") && damage[0].contains("missing"), "{damage:?}");
    let o = bin(&["validate", s(&cut_file)]);
    assert!(!o.status.success() && text(&o).contains("FAILED"), "{}", text(&o));

    let copy = ranges[2].clone();
    let dup_file = edited(&f, "dup.kdata", |b| {
        let chunk = b[copy.clone()].to_vec();
        b.splice(copy.end..copy.end, chunk);
    });
    let (n, damage) = damage_of(&dup_file);
    assert!(n > f.pos_recs.len() as u64);
    assert!(damage.len() == 1 && damage[0].contains("duplicated"), "{damage:?}");
    let o = bin(&["validate", s(&dup_file)]);
    assert!(!o.status.success(), "{}", text(&o));
    // The intact file still passes.
    let o = bin(&["validate", s(&f.positions)]);
    assert!(o.status.success(), "{}", text(&o));
}

#[test]
fn a_games_file_with_every_game_twice_is_flagged() {
    let f = fixture();
    let twice: Vec<GameRecord> = f.game_recs.iter().chain(&f.game_recs).cloned().collect();
    let p = f.root.join("twice.kdata");
    write(&p, RecordKind::Game, &twice);
    let o = bin(&["validate", s(&p)]);
    let t = text(&o);
    assert!(!o.status.success() && t.contains("repeats record"), "{t}");
    let o = bin(&["stats", s(&p)]);
    let t = text(&o);
    assert!(t.contains(&format!("duplicate games: {}", f.game_recs.len())), "{t}");
}

#[test]
fn damaged_input_stops_merge_shuffle_and_export_unless_allowed() {
    let f = fixture();
    let (ranges, _) = chunks(&std::fs::read(&f.positions).expect("read"));
    let hit = ranges[1].start + 20;
    let bad = edited(&f, "bad.kdata", |b| b[hit] ^= 0x55);
    let (kept, _) = damage_of(&bad);
    let out = f.root.join("out.kdata");
    let tmp = kage_data::tmp_path(&out);
    let runs: [Vec<&str>; 3] = [
        vec!["merge", "--out", s(&out), s(&bad)],
        vec!["shuffle", "--out", s(&out), s(&bad)],
        vec!["export", "--text", "--out", s(&out), s(&bad)],
    ];
    for args in &runs {
        let o = bin(args);
        let t = text(&o);
        assert!(!o.status.success(), "{args:?}: {t}");
        assert!(t.contains("records lost") && t.contains("--allow-damaged"), "{args:?}: {t}");
        assert!(!out.exists() && !tmp.exists(), "{args:?} left output behind");
        let mut allowed = args.clone();
        allowed.insert(1, "--allow-damaged");
        let o = bin(&allowed);
        let t = text(&o);
        assert!(o.status.success() && t.contains("records lost"), "{allowed:?}: {t}");
        if args[0] != "export" {
            let (_, recs, damage) = read_all::<PositionRecord>(&out).expect("valid output");
            assert_eq!((recs.len() as u64, damage.len()), (kept, 0));
        }
        std::fs::remove_file(&out).expect("output written");
    }
}

#[test]
fn outputs_and_inputs_are_checked_before_any_work() {
    let f = fixture();
    let o =
        bin(&["shuffle", "--out", s(&f.root.join("o.kdata")), s(&f.positions), s(&f.positions)]);
    assert!(!o.status.success() && text(&o).contains("given twice"), "{}", text(&o));
    let o = bin(&["merge", "--out", s(&f.positions), s(&f.positions)]);
    assert!(!o.status.success() && text(&o).contains("also an input"), "{}", text(&o));
    for args in [
        vec!["shuffle", "--out", s(&f.root), s(&f.positions)],
        vec!["merge", "--out", s(&f.root), s(&f.positions)],
        vec!["export", "--text", "--out", s(&f.root), s(&f.positions)],
    ] {
        let o = bin(&args);
        assert!(
            !o.status.success() && text(&o).contains("is a directory"),
            "{args:?}: {}",
            text(&o)
        );
        assert!(!kage_data::tmp_path(&f.root).exists());
    }
}

#[test]
fn repair_salvages_a_damaged_end_marker_or_a_cut_tail() {
    let f = fixture();
    let bytes = std::fs::read(&f.positions).expect("read");
    let (ranges, end) = chunks(&bytes);
    let end_hit = end.start + 18;
    let no_end = edited(&f, "no-end.kdata", |b| b[end_hit] ^= 0xff);
    // Refused whole by the readers...
    let o = bin(&["shuffle", "--out", s(&f.root.join("x.kdata")), s(&no_end)]);
    assert!(!o.status.success(), "{}", text(&o));
    // ...salvaged by repair: every record, in order.
    let fixed = f.root.join("fixed.kdata");
    let o = bin(&["repair", "--out", s(&fixed), s(&no_end)]);
    assert!(o.status.success(), "{}", text(&o));
    let (_, recs, damage) = read_all::<PositionRecord>(&fixed).expect("valid");
    assert_eq!(recs, f.pos_recs);
    assert!(damage.is_empty());

    let last = ranges.last().expect("chunks").clone();
    let cut_at = last.start + (last.end - last.start) / 2;
    let cut = edited(&f, "cut-tail.kdata", |b| b.truncate(cut_at));
    let o = bin(&["repair", "--out", s(&fixed), s(&cut)]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("left out"), "{}", text(&o));
    let (_, recs, _) = read_all::<PositionRecord>(&fixed).expect("valid");
    assert!(!recs.is_empty() && recs.len() < f.pos_recs.len());
    assert_eq!(recs[..], f.pos_recs[..recs.len()]);
    assert!(!kage_data::tmp_path(&fixed).exists());
}

// Issue #31: the second round.

fn write_as<R: kage_data::Record>(p: &Path, h: FileHeader, recs: &[R]) {
    let mut w = Writer::<R>::create(p, h).expect("create");
    w.set_chunk_target(1024);
    w.write_all(recs).expect("write");
    w.finish().expect("finish");
}

/// Three position shards of the fixture's records, written as one run would.
fn shards(f: &Fixture) -> [PathBuf; 3] {
    let third = f.pos_recs.len() / 3;
    let mut out = Vec::new();
    for (i, recs) in f.pos_recs.chunks(third).take(3).enumerate() {
        let p = f.root.join(format!("part-{i}.kdata"));
        write(&p, RecordKind::Position, recs);
        out.push(p);
    }
    out.try_into().expect("three shards")
}

#[test]
fn positions_never_count_twice_through_a_merged_file() {
    use kage_data::lineage::{OverlapError, check_disjoint, file_id};
    let f = fixture();
    let [a, b, c] = shards(&f);
    let m = f.root.join("m.kdata");
    let o = bin(&["merge", "--out", s(&m), s(&a), s(&b)]);
    assert!(o.status.success(), "{}", text(&o));
    let h = FileHeader::read_file(&m).expect("header");
    let mut want = [file_id(&a).expect("id"), file_id(&b).expect("id")];
    want.sort();
    assert_eq!(h.sources(), &want[..]);
    assert_eq!(std::fs::read(&m).expect("read")[8], kage_data::SOURCES_FORMAT_VERSION as u8);
    // A shard file still records nothing and is version 1, as before.
    assert!(FileHeader::read_file(&a).expect("header").sources().is_empty());
    assert_eq!(std::fs::read(&a).expect("read")[8], 1);

    let out = f.root.join("out.kdata");
    let refused = |args: &[&str], why: &str| {
        let o = bin(args);
        let t = text(&o);
        assert!(!o.status.success() && t.contains(why), "{args:?}: {t}");
        assert!(!out.exists() && !kage_data::tmp_path(&out).exists(), "{args:?}");
    };
    // The merged file with one of its shards, by merge and by shuffle.
    refused(&["merge", "--out", s(&out), s(&m), s(&a)], "was made from");
    refused(&["shuffle", "--out", s(&out), s(&b), s(&m)], "was made from");
    // Transitively: a merge of the merge still knows its shards.
    let m2 = f.root.join("m2.kdata");
    assert!(bin(&["merge", "--out", s(&m2), s(&m), s(&c)]).status.success());
    refused(&["merge", "--out", s(&out), s(&m2), s(&b)], "was made from");
    // Two merges sharing a shard.
    let m3 = f.root.join("m3.kdata");
    assert!(bin(&["merge", "--out", s(&m3), s(&a), s(&c)]).status.success());
    refused(&["merge", "--out", s(&out), s(&m), s(&m3)], "both made from the same file");
    // A copy is the same data.
    let copy = f.root.join("copy.kdata");
    std::fs::copy(&a, &copy).expect("copy");
    refused(&["merge", "--out", s(&out), s(&a), s(&copy)], "hold the same data");
    // A shuffled or repaired file records its source too.
    let sh = f.root.join("sh.kdata");
    assert!(bin(&["shuffle", "--out", s(&sh), s(&a), s(&b)]).status.success());
    refused(&["merge", "--out", s(&out), s(&sh), s(&a)], "was made from");
    let rep = f.root.join("rep.kdata");
    assert!(bin(&["repair", "--out", s(&rep), s(&c)]).status.success());
    refused(&["merge", "--out", s(&out), s(&rep), s(&c)], "was made from");

    // The library check the trainer uses: cheap, typed.
    check_disjoint(&[a.clone(), b.clone(), c.clone()]).expect("disjoint shards");
    check_disjoint(&[m.clone(), c.clone()]).expect("disjoint");
    let e = check_disjoint(&[a.clone(), a.clone()]).expect_err("the same file twice");
    assert!(matches!(e, OverlapError::Same { .. }), "{e}");
    let e = check_disjoint(&[a.clone(), m.clone()]).expect_err("derived");
    assert!(matches!(&e, OverlapError::Derived { derived, from } if *derived == m && *from == a));
    let e = check_disjoint(&[m3.clone(), m.clone()]).expect_err("shared");
    assert!(matches!(e, OverlapError::SharedSource { .. }), "{e}");
    // Every merged record is still there, once.
    let (_, recs, damage) = read_all::<PositionRecord>(&m2).expect("valid");
    assert!(damage.is_empty());
    let third = f.pos_recs.len() / 3;
    assert_eq!(recs[..], f.pos_recs[..3 * third]);
}

#[test]
fn merging_files_of_two_builds_needs_allow_mixed_builds() {
    let f = fixture();
    let half = f.pos_recs.len() / 2;
    let (a, b) = (f.root.join("a.kdata"), f.root.join("b.kdata"));
    let h = |rev: &str| FileHeader::new(RecordKind::Position, "minishogi", "a = 1", rev, "t");
    write_as(&a, h("rev-1").expect("header"), &f.pos_recs[..half]);
    write_as(&b, h("rev-2").expect("header"), &f.pos_recs[half..]);
    let out = f.root.join("out.kdata");
    for cmd in ["merge", "shuffle"] {
        let o = bin(&[cmd, "--out", s(&out), s(&a), s(&b)]);
        let t = text(&o);
        assert!(!o.status.success(), "{cmd}: {t}");
        assert!(t.contains("\"rev-2\"") && t.contains("--allow-mixed-builds"), "{cmd}: {t}");
        assert!(!out.exists() && !kage_data::tmp_path(&out).exists());
        let o = bin(&[cmd, "--allow-mixed-builds", "--out", s(&out), s(&a), s(&b)]);
        let t = text(&o);
        assert!(o.status.success() && t.contains("warning"), "{cmd}: {t}");
        let h = FileHeader::read_file(&out).expect("header");
        assert_eq!(h.git_revision(), "mixed: rev-1, rev-2");
        std::fs::remove_file(&out).expect("written");
    }
}

/// The CRC-32 of a chunk over its length, count and payload (data/src/chunk.rs).
fn chunk_crc(len: u32, count: u32, payload: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(&len.to_le_bytes());
    h.update(&count.to_le_bytes());
    h.update(payload);
    h.finalize()
}

/// `bytes` with the u64 at `at` of the first chunk's payload replaced by `value` and the
/// chunk's checksum made valid again.
fn lie_in_first_chunk(bytes: &mut [u8], at: usize, value: u64) {
    let (ranges, _) = chunks(bytes);
    let c = ranges[0].clone();
    bytes[c.start + 16 + at..c.start + 24 + at].copy_from_slice(&value.to_le_bytes());
    let len = u32::from_le_bytes(bytes[c.start + 4..c.start + 8].try_into().expect("4"));
    let count = u32::from_le_bytes(bytes[c.start + 8..c.start + 12].try_into().expect("4"));
    let crc = chunk_crc(len, count, &bytes[c.start + 16..c.end]);
    bytes[c.start + 12..c.start + 16].copy_from_slice(&crc.to_le_bytes());
}

#[test]
fn a_record_whose_lengths_lie_is_damage_not_an_abort() {
    let f = fixture();
    let g = &f.game_recs[0];
    let games = f.root.join("games.kdata");
    write(&games, RecordKind::Game, &f.game_recs);
    let good = std::fs::read(&games).expect("read");
    // Offsets inside the first record: the variant's length, the FEN's, the moves', the
    // scores'.
    let fen_at = 8 + g.variant.len();
    let moves_at = fen_at + 8 + g.start_fen.len();
    let scores_at = moves_at + 8 + 2 * g.moves.len();
    for (name, at, value) in [
        ("variant", 0, 1u64 << 40),
        ("fen", fen_at, u64::MAX),
        ("moves", moves_at, 1 << 40),
        ("moves-huge", moves_at, 1 << 62),
        ("scores", scores_at, 1 << 40),
        ("scores-in-limit", scores_at, 30 << 20),
    ] {
        let mut b = good.clone();
        lie_in_first_chunk(&mut b, at, value);
        let p = f.root.join(format!("lie-{name}.kdata"));
        std::fs::write(&p, &b).expect("write");
        // The library: the chunk is damage, the rest of the file is read.
        let (_, recs, damage) = read_all::<GameRecord>(&p).expect("reads");
        assert_eq!(damage.len(), 1, "{name}: {damage:?}");
        assert!(damage[0].reason.contains("do not decode"), "{name}: {damage:?}");
        assert!(!recs.is_empty() && recs.len() < f.game_recs.len(), "{name}");
        assert_eq!(recs.last(), f.game_recs.last(), "{name}");
        // The tool: a clear report and exit 1, not a signal (an abort is exit 134).
        for cmd in ["validate", "stats"] {
            let o = bin(&[cmd, s(&p)]);
            let t = text(&o);
            assert!(o.status.code().is_some(), "{name} {cmd} died: {t}");
            assert!(t.contains("do not decode"), "{name} {cmd}: {t}");
            if cmd == "validate" {
                assert!(t.contains("FAILED") && o.status.code() == Some(1), "{name}: {t}");
            }
        }
        let out = f.root.join("out.kdata");
        let o = bin(&["merge", "--out", s(&out), s(&p)]);
        assert_eq!(o.status.code(), Some(1), "{name}: {}", text(&o));
        assert!(!out.exists());
    }
}

#[test]
fn user_variant_files_validate_and_export_like_built_in_ones() {
    let f = fixture();
    let spec = include_str!("../../engine/variants/examples/shinobiplus_rank4.toml");
    let v = Variant::from_spec_text(spec).expect("the example spec compiles");
    let mut config = toml::Table::new();
    config.insert("nodes".into(), 100.into());
    config.insert("variant_spec".into(), spec.into());
    let config = toml::to_string(&config).expect("toml");
    let (gs, ps) = games_of(v, 4);
    let h = |kind| FileHeader::new(kind, &v.name, &config, "rev", "attack-test").expect("header");
    let (games, positions) = (f.root.join("user-games.kdata"), f.root.join("user-pos.kdata"));
    write_as(&games, h(RecordKind::Game), &gs);
    write_as(&positions, h(RecordKind::Position), &ps);
    let resolved = kage_data::variant::of_header(&h(RecordKind::Game)).expect("resolves");
    assert_eq!(resolved.name, v.name);

    for p in [&games, &positions] {
        let o = bin(&["validate", s(p)]);
        let t = text(&o);
        assert!(o.status.success() && t.contains(" OK ") && !t.contains("FAILED"), "{t}");
        let o = bin(&["stats", s(p)]);
        assert!(o.status.success() && text(&o).contains(&v.name), "{}", text(&o));
    }
    let txt = f.root.join("user.txt");
    let o = bin(&["export", "--text", "--out", s(&txt), s(&positions)]);
    assert!(o.status.success(), "{}", text(&o));
    let lines = std::fs::read_to_string(&txt).expect("written");
    assert_eq!(lines.lines().count(), ps.len());
    let fen = lines.lines().next().and_then(|l| l.split(" | ").next()).expect("a FEN");
    assert_eq!(fen, kage_engine::Position::from_fen(v, &v.start_fen).expect("fen").to_fen());
    let pgn = f.root.join("user.pgn");
    let o = bin(&["export", "--pgn", "--out", s(&pgn), s(&games)]);
    assert!(o.status.success(), "{}", text(&o));
    let pgn = std::fs::read_to_string(&pgn).expect("written");
    assert_eq!(pgn.matches("[Event ").count(), gs.len(), "{pgn}");

    // A header naming a built-in while its config carries another variant's spec is refused.
    let liar = f.root.join("liar.kdata");
    let lie = FileHeader::new(RecordKind::Game, "shinobiplus", &config, "rev", "t").expect("h");
    write_as(&liar, lie, &gs);
    let o = bin(&["validate", s(&liar)]);
    assert!(!o.status.success() && text(&o).contains("spec in its config"), "{}", text(&o));
}

#[test]
fn no_command_writes_over_an_input_through_its_temporary_name() {
    let f = fixture();
    // An interrupted writer's file, salvaged or exported to its final name.
    let tmp_input = f.root.join("games.kdata.tmp");
    std::fs::copy(&f.positions, &tmp_input).expect("copy");
    let before = std::fs::read(&tmp_input).expect("read");
    let out = f.root.join("games.kdata");
    for args in [
        vec!["repair", "--out", s(&out), s(&tmp_input)],
        vec!["merge", "--out", s(&out), s(&tmp_input)],
        vec!["shuffle", "--out", s(&out), s(&tmp_input)],
        vec!["export", "--text", "--out", s(&out), s(&tmp_input)],
    ] {
        let o = bin(&args);
        let t = text(&o);
        assert!(!o.status.success() && t.contains("which is an input"), "{args:?}: {t}");
        assert_eq!(std::fs::read(&tmp_input).expect("still there"), before, "{args:?}");
        assert!(!out.exists(), "{args:?}");
    }
    // The plain rule, one for every command that writes.
    for args in [
        vec!["repair", "--out", s(&f.positions), s(&f.positions)],
        vec!["export", "--text", "--out", s(&f.positions), s(&f.positions)],
        vec!["export", "--pgn", "--out", s(&f.positions), s(&f.positions)],
        vec!["shuffle", "--out", s(&f.positions), s(&f.positions)],
    ] {
        let o = bin(&args);
        assert!(!o.status.success() && text(&o).contains("is also an input"), "{args:?}");
    }
    assert_eq!(read_all::<PositionRecord>(&f.positions).expect("intact").1, f.pos_recs);
}

#[test]
fn shuffle_never_removes_a_directory_it_did_not_make() {
    let f = fixture();
    let mut g = kage_data::synth::Synth::new(1);
    let recs: Vec<PositionRecord> = (0..12_000).map(|_| g.position()).collect();
    let big = f.root.join("big.kdata");
    write(&big, RecordKind::Position, &recs);
    let out = f.root.join("sh.kdata");
    let buckets = f.root.join("sh.kdata.shuffle-buckets");
    std::fs::create_dir(&buckets).expect("mkdir");
    std::fs::write(buckets.join("notes.txt"), b"mine").expect("write");
    let o = bin(&["shuffle", "--memory-mb", "1", "--out", s(&out), s(&big)]);
    assert!(!o.status.success() && text(&o).contains("not a shuffle bucket"), "{}", text(&o));
    assert_eq!(std::fs::read(buckets.join("notes.txt")).expect("kept"), b"mine");
    // An input inside it is refused too.
    let inside = buckets.join("bucket-0000.kdata");
    std::fs::remove_file(buckets.join("notes.txt")).expect("rm");
    std::fs::rename(&big, &inside).expect("mv");
    let o = bin(&["shuffle", "--memory-mb", "1", "--out", s(&out), s(&inside)]);
    assert!(!o.status.success() && text(&o).contains("is inside"), "{}", text(&o));
    assert_eq!(read_all::<PositionRecord>(&inside).expect("intact").1, recs);
    // A leftover of an interrupted shuffle is taken over.
    std::fs::rename(&inside, &big).expect("mv");
    std::fs::write(buckets.join("bucket-0001.kdata.tmp"), b"half").expect("write");
    let o = bin(&["shuffle", "--memory-mb", "1", "--out", s(&out), s(&big)]);
    assert!(o.status.success() && text(&o).contains("bucket(s)"), "{}", text(&o));
    assert!(!buckets.exists());
}

#[cfg(unix)]
#[test]
fn a_directory_owner_file_is_read_capped() {
    let f = fixture();
    let d = f.root.join("run");
    std::fs::create_dir(&d).expect("mkdir");
    std::os::unix::fs::symlink("/dev/zero", d.join(kage_data::guard::OWNER_FILE)).expect("link");
    // Read at most 256 bytes of it (it used to be read whole: endless).
    let owner = kage_data::guard::owner_of(&d).expect("reads");
    assert!(owner.is_some_and(|o| o.len() <= 256));
}
