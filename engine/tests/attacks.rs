//! Attack tests (issue #11): input a careless or hostile user gives the engine. Each must
//! end in a clear answer, never a crash, a hang or a silently wrong result. Each is fast.

use kage_engine::nnue::random_network;
use kage_engine::protocol::uci::Uci;
use kage_engine::search::{Limits, Searcher};
use kage_engine::{Game, Position, Variant, VariantId};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::AtomicBool;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A running `kage` whose output lines arrive on a channel.
struct Engine {
    child: Child,
    lines: mpsc::Receiver<String>,
    seen: Vec<String>,
}

impl Engine {
    fn start(args: &[&str]) -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_kage"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("kage runs");
        let out = child.stdout.take().expect("stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for l in BufReader::new(out).lines() {
                let Ok(l) = l else { break };
                if tx.send(l).is_err() {
                    break;
                }
            }
        });
        Engine { child, lines, seen: Vec::new() }
    }

    fn send(&mut self, bytes: &[u8]) {
        let stdin = self.child.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write");
        stdin.flush().expect("flush");
    }

    /// Waits (at most `secs`) for a line starting with `prefix`; panics with what was seen.
    fn expect(&mut self, prefix: &str, secs: u64) -> String {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) => {
                    self.seen.push(l.clone());
                    if l.starts_with(prefix) {
                        return l;
                    }
                }
                Err(_) => {
                    let _ = self.child.kill();
                    panic!("no '{prefix}' within {secs} s; got:\n{}", self.seen.join("\n"));
                }
            }
        }
    }

    /// Closes stdin and waits (at most `secs`) for the process to end; returns the exit code.
    fn close(mut self, secs: u64) -> (Option<i32>, Vec<String>) {
        drop(self.child.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                while let Ok(l) = self.lines.recv_timeout(Duration::from_millis(200)) {
                    self.seen.push(l);
                }
                return (status.code(), self.seen);
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("kage still running {secs} s after stdin closed:\n{}", self.seen.join("\n"));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// [`Engine::close`], checking that the process ends with exit code 0.
    fn close_ok(self, secs: u64) {
        let (code, seen) = self.close(secs);
        assert_eq!(code, Some(0), "kage exited with {code:?}; it said:\n{}", seen.join("\n"));
    }
}

#[test]
fn stdin_closing_during_a_finite_search_stops_it() {
    let mut e = Engine::start(&[]);
    e.send(b"setoption name UCI_Variant value minishogi\nposition startpos\ngo depth 60\n");
    e.expect("info depth 1 ", 10);
    let t = Instant::now();
    let (code, seen) = e.close(10);
    assert!(t.elapsed() < Duration::from_secs(3), "took {:?}", t.elapsed());
    assert_eq!(code, Some(0));
    assert!(seen.iter().any(|l| l.starts_with("bestmove ")), "{seen:?}");
}

#[test]
fn go_perft_is_stopped_by_stop_and_quit() {
    let mut e = Engine::start(&[]);
    e.send(b"position startpos\ngo perft 12\n");
    std::thread::sleep(Duration::from_millis(100));
    let t = Instant::now();
    e.send(b"stop\nisready\n");
    e.expect("info string perft stopped", 5);
    e.expect("readyok", 5);
    assert!(t.elapsed() < Duration::from_secs(3), "stop took {:?}", t.elapsed());
    // A finished perft still prints its counts; `quit` ends a running one.
    e.send(b"setoption name UCI_Variant value minishogi\ngo perft 3\n");
    assert_eq!(e.expect("Nodes searched", 10), "Nodes searched: 2512");
    e.send(b"go perft 12\n");
    std::thread::sleep(Duration::from_millis(50));
    e.send(b"quit\n");
    e.close_ok(5);
}

#[test]
fn a_line_that_is_not_utf8_is_reported_and_the_loop_goes_on() {
    let mut e = Engine::start(&[]);
    e.send(b"uci\n\xff\xfe\nisready\n");
    let err = e.expect("info string error", 5);
    assert!(err.contains("not UTF-8"), "{err}");
    e.expect("readyok", 5);
    e.close_ok(5);
}

#[test]
fn the_largest_hash_never_aborts_nor_blocks() {
    let mut e = Engine::start(&[]);
    let t = Instant::now();
    e.send(b"setoption name Hash value 65536\nisready\n");
    e.expect("readyok", 20);
    assert!(t.elapsed() < Duration::from_secs(10), "Hash took {:?}", t.elapsed());
    e.send(b"setoption name UCI_Variant value minishogi\nposition startpos\ngo depth 3\n");
    e.expect("bestmove ", 20);
    e.send(b"ucinewgame\nsetoption name Hash value 1\nisready\n");
    e.expect("readyok", 20);
    e.close_ok(10);
}

#[test]
fn hash_tables_fall_back_to_what_can_be_had() {
    use kage_engine::search::tt::Tt;
    let (t, got) = Tt::allocate(4);
    assert_eq!((got, t.size_mb()), (4, 4));
    // Far beyond any machine: cut to what the system has, never an abort.
    let (t, got) = Tt::allocate(usize::MAX / 2);
    assert!((1..usize::MAX / 2).contains(&got) && t.size_mb() == got, "{got}");
    drop(t);
    let mut s = Searcher::new(1);
    assert_eq!(s.resize(2), 2);
    assert_eq!(s.hash_mb(), 2);
}

/// `position fen <bad>` must not leave `go` searching the previous position.
#[test]
fn go_after_a_refused_position_refuses_to_search() {
    let mut uci = Uci::new(Variant::builtin(VariantId::MINISHOGI), None);
    let mut out = Vec::new();
    for l in
        ["position startpos moves a2a3", "position fen rbsgk/4p/5/X4/KGSBR[-] w 0 1", "go depth 2"]
    {
        uci.handle(l, &mut out).expect("io");
    }
    uci.wait();
    let text = String::from_utf8_lossy(&out).into_owned();
    assert!(text.contains("info string error bad FEN"), "{text}");
    assert!(text.contains("no position to search"), "{text}");
    assert!(text.contains("bestmove (none)"), "{text}");
    // A good position afterwards searches again.
    let mut out = Vec::new();
    uci.handle("position startpos", &mut out).expect("io");
    uci.handle("go depth 1", &mut out).expect("io");
    uci.wait();
    assert!(!String::from_utf8_lossy(&out).contains("error"));
}

/// A fresh scratch directory, removed when dropped.
fn temp_dir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new().prefix(&format!("kage-attack-{name}-")).tempdir().expect("temp dir")
}

fn said(uci: &mut Uci, line: &str) -> String {
    let mut out = Vec::new();
    uci.handle(line, &mut out).expect("io");
    String::from_utf8_lossy(&out).into_owned()
}

#[test]
fn eval_file_and_variant_in_either_order() {
    let dir = temp_dir("evalfile");
    let net = dir.path().join("minishogi.nnue");
    std::fs::write(&net, random_network(Variant::builtin(VariantId::MINISHOGI), 1).to_bytes())
        .expect("write");
    let set_net = format!("setoption name EvalFile value {}", net.display());

    // EvalFile first (the default variant is shinobiplus), then the variant: accepted.
    let mut uci = Uci::new(Variant::builtin(VariantId::SHINOBIPLUS), None);
    let t = said(&mut uci, &set_net);
    assert!(t.contains("NNUE minishogi") && !t.contains("error"), "{t}");
    said(&mut uci, "setoption name UCI_Variant value minishogi");
    let t = said(&mut uci, "isready");
    assert_eq!(t.trim(), "readyok");

    // A variant it does not fit: said on isready (once), the HCE is used.
    let mut uci = Uci::new(Variant::builtin(VariantId::SHINOBIPLUS), None);
    said(&mut uci, &set_net);
    said(&mut uci, "setoption name UCI_Variant value gorogoroplus");
    let t = said(&mut uci, "isready");
    assert!(t.contains("does not fit variant gorogoroplus") && t.contains("hand-crafted"), "{t}");
    assert_eq!(said(&mut uci, "isready").trim(), "readyok", "said once");
    said(&mut uci, "position startpos");
    let t = said(&mut uci, "go depth 1");
    assert!(!t.contains("error"), "{t}");
    uci.wait();

    // An empty value is the variant's default; a file of zeros is refused at once.
    let t = said(&mut uci, "setoption name EvalFile value ");
    assert!(t.contains("default") && !t.contains("error"), "{t}");
    assert_eq!(said(&mut uci, "isready").trim(), "readyok");
    #[cfg(target_os = "linux")]
    {
        let t0 = Instant::now();
        let t = said(&mut uci, "setoption name EvalFile value /dev/zero");
        assert!(t.contains("info string error") && t.contains("magic"), "{t}");
        assert!(t0.elapsed() < Duration::from_secs(2));
    }
}

#[test]
fn movetime_uses_the_whole_time() {
    let v = Variant::builtin(VariantId::SHINOBIPLUS);
    let game = Game::startpos(v);
    let mut s = Searcher::new(8);
    for ms in [60u64, 250] {
        let limits = Limits { movetime_ms: Some(ms), ..Limits::default() };
        let t = Instant::now();
        let r = s.search(&game, &limits, &AtomicBool::new(false), &mut |_| {});
        let took = t.elapsed().as_millis() as u64;
        assert!(!r.best_move.is_null());
        // At most a 5 ms margin; a loaded machine may answer late, never early.
        assert!(took >= ms - 5.min(ms / 50) - 1, "movetime {ms}: returned after {took} ms");
        assert!(took < ms + 1000, "movetime {ms}: returned after {took} ms");
    }
}

/// 23 droppable kinds on an 8x8 board: 23 * 62 drops and 3 king moves.
fn many_drops_spec() -> String {
    let letters: Vec<char> = ('A'..='X').filter(|&c| c != 'K').collect();
    let hand: String = letters.iter().collect();
    let mut s = format!(
        "name = \"manydrops\"\nwidth = 8\nheight = 8\n\
         start_fen = \"k7/8/8/8/8/8/8/7K[{hand}] w - - 0 1\"\nhand_order = \"{hand}\"\n\
         captures_to_hand = true\nstalemate = \"draw\"\nmove_rule = 50\n\
         [repetition]\ncount = 3\nverdict = \"draw\"\n\
         [zones]\ndrop_white = [1, 2, 3, 4, 5, 6, 7, 8]\ndrop_black = [1, 2, 3, 4, 5, 6, 7, 8]\n\
         [[piece]]\nletter = \"K\"\nname = \"king\"\nbetza = \"K\"\nroyal = true\n"
    );
    for c in letters {
        s += &format!("[[piece]]\nletter = \"{c}\"\nname = \"p{c}\"\nbetza = \"W\"\n");
    }
    s
}

#[test]
fn a_move_list_longer_than_1024_is_not_truncated() {
    let v = Variant::from_spec_text(&many_drops_spec()).expect("spec compiles");
    let pos = Position::from_fen(v, &v.start_fen).expect("start");
    assert_eq!(pos.count_legal(), 1429);
    let list = pos.legal_moves();
    assert_eq!(list.len(), 1429);
    let mut moves: Vec<_> = list.as_slice().to_vec();
    moves.sort();
    moves.dedup();
    assert_eq!(moves.len(), 1429, "every move once");
    assert!(moves.iter().all(|&m| pos.is_legal(m)));
    assert_eq!(kage_engine::perft::perft(&pos, 1), 1429);
    assert_eq!(kage_engine::perft::divide(&pos, 1).len(), 1429);
    // The list is reused by search frames: a shorter list after a long one is exact.
    let mut l = kage_engine::MoveList::new();
    pos.generate(&mut l);
    l.clear();
    Position::startpos(Variant::builtin(VariantId::MINISHOGI)).generate(&mut l);
    assert_eq!(l.len(), 14);
    // And the search copes (root list and node frames).
    let mut s = Searcher::new(1);
    let r = s.search(&Game::new(pos), &Limits::depth(2), &AtomicBool::new(false), &mut |_| {});
    assert!(!r.best_move.is_null());
}

#[test]
fn counters_and_move_rules_that_do_not_fit_are_refused_or_saturate() {
    let base = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/variants/examples/shinobiplus_rank4.toml"
    ))
    .expect("example spec");
    let rule = |n: u32| {
        let mut out = String::new();
        for l in base.lines() {
            if l.starts_with("move_rule") {
                out += &format!("move_rule = {n}\n");
            } else {
                out += l;
                out.push('\n');
            }
        }
        assert!(out.contains(&format!("move_rule = {n}")));
        out
    };
    let e = Variant::from_spec_text(&rule(40000)).expect_err("wraps in 16 bits");
    assert!(e.to_string().contains("move_rule 40000 is too large"), "{e}");
    assert!(Variant::from_spec_text(&rule(70000)).is_err(), "above u16");
    let v = Variant::from_spec_text(&rule(32767)).expect("fits");
    assert_eq!(v.move_rule_plies, 65534);

    // A halfmove clock at its maximum does not wrap to 0 (nor panic) on the next move.
    let v = Variant::builtin(VariantId::MINISHOGI);
    let mut pos = Position::from_fen(v, "rbsgk/4p/5/P4/KGSBR[-] w 65535 65535").expect("fen");
    let m = pos.parse_move("b1c2").expect("legal");
    pos.play(m);
    assert_eq!(pos.halfmove_clock(), 65535);
    let m = pos.parse_move("e4e3").expect("legal");
    pos.play(m);
    assert_eq!((pos.halfmove_clock(), pos.fullmove_number()), (65535, 65535));
    pos.play_null();
    assert_eq!(pos.halfmove_clock(), 65535);
}

fn kage(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_kage")).args(args).output().expect("run kage")
}

/// `kage check` on `text`, written to `dir/NAME.toml`: exit 2 and one line of stderr holding
/// `want`.
fn kage_check_refuses(dir: &std::path::Path, name: &str, text: &str, want: &str) {
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, text).expect("write");
    let o = kage(&["check", path.to_str().expect("utf-8 path")]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{name}: {err}");
    assert!(err.contains(want) && err.trim_end().lines().count() == 1, "{name}: {err}");
}

#[test]
fn kage_check_refuses_bad_specs_with_one_line() {
    let dir = temp_dir("check");
    let spec = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/variants/minishogi/rules.toml"
    ))
    .expect("spec");
    let cases = [
        ("empty-name", spec.replace("name = \"minishogi\"", "name = \"\""), "name"),
        ("spaced-name", spec.replace("name = \"minishogi\"", "name = \"mini shogi\""), "name"),
        // Black's king starts on its own campmate rank: the game is over before move 1.
        (
            "over",
            spec.replace(
                "drop_black = [1, 2, 3, 4, 5]",
                "drop_black = [1, 2, 3, 4, 5]\nflag_black = [5]",
            ),
            "over before the first move",
        ),
    ];
    for (name, text, want) in cases {
        kage_check_refuses(dir.path(), name, &text, want);
    }
    // A big file is not read whole.
    #[cfg(target_os = "linux")]
    {
        let t = Instant::now();
        let o = kage(&["check", "/dev/zero"]);
        assert_eq!(o.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&o.stderr).contains("larger than"));
        assert!(t.elapsed() < Duration::from_secs(5));
    }
}

#[test]
fn error_texts_do_not_repeat_themselves() {
    let o = kage(&["rules", "--variant", "minishogi", "--fen", "rbsgk/4p/5/X4/KGSBR[-] w 0 1"]);
    let err = String::from_utf8_lossy(&o.stderr).trim_end().to_string();
    assert_eq!(o.status.code(), Some(2));
    let reason = err.rsplit(": ").next().expect("a reason");
    assert_eq!(err.matches(reason).count(), 1, "{err}");
    assert!(err.starts_with("error: bad FEN: "), "{err}");
    let o = kage(&["--variant-file", "/nonexistent/x.toml", "check", "/nonexistent/x.toml"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.matches("/nonexistent/x.toml").count(), 1, "{err}");
    let mut buf = String::new();
    let _ = (&o.stdout[..]).read_to_string(&mut buf);
    assert!(buf.is_empty());
}

// Issue 31: specs that `kage check` accepted but the engine cannot play, names that are
// paths, `--variant` against `--variant-file`, unbounded quiescence and `bench --net`.

const MINISHOGI: &str = include_str!("../variants/minishogi/rules.toml");
const RANK4: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/variants/examples/shinobiplus_rank4.toml");
const CAPTURE_DENSE: &str = include_str!("fixtures/capturedense.toml");

/// Minishogi renamed (a user variant), with `from` replaced by `to`.
fn user_minishogi(from: &str, to: &str) -> String {
    let renamed = MINISHOGI.replace("name = \"minishogi\"", "name = \"mini2\"");
    assert!(!from.is_empty() && renamed.contains(from), "{from}");
    renamed.replace(from, to)
}

/// `kage check` on `text`: exit 2 and one line of stderr holding `want`; the library agrees.
fn check_refuses(name: &str, text: &str, want: &str) {
    let e = Variant::from_spec_text(text).expect_err(name).to_string();
    assert!(e.contains(want), "{name}: {e}");
    kage_check_refuses(temp_dir("check31").path(), name, text, want);
}

/// The rook's values in the Minishogi spec.
const R700: &str = "value = 700\nhand_value = 800";

#[test]
fn piece_values_that_reach_the_mate_scores_or_wrap_are_refused() {
    let cases = [
        // One value above the range (and one that would wrap the material sum).
        ("big", user_minishogi(R700, "value = 40000\nhand_value = 800"), "'R': value = 40000"),
        (
            "wrap",
            user_minishogi(R700, "value = 2147483647\nhand_value = 800"),
            "value = 2147483647",
        ),
        ("negative", user_minishogi("hand_value = 800", "hand_value = -5"), "hand_value = -5"),
        // Each value in range, but promoted rooks and bishops of 10,000 make 43,160 in all.
        (
            "material",
            user_minishogi("value = 950", "value = 10000")
                .replace("betza = \"BW\"\nvalue = 800", "betza = \"BW\"\nvalue = 10000"),
            "43160 centipawns of material",
        ),
    ];
    for (name, text, want) in cases {
        check_refuses(name, &text, want);
    }
    // At the bound the spec is accepted, and a search sees no mate after a plain capture.
    let text = user_minishogi("value = 950", "value = 5000");
    let v = Variant::from_spec_text(&text).expect("within the bound");
    let game = Game::new(Position::from_fen(v, "rbsgk/4p/5/P4/KGSBR[-] w 0 1").expect("fen"));
    let r = Searcher::new(1).search(&game, &Limits::depth(4), &AtomicBool::new(false), &mut |_| {});
    assert!(r.score.abs() < kage_engine::search::MATE_BOUND, "{}", r.score);
}

/// A start position of `extra` more pieces than the fixture's 34.
fn crowded(rank7: &str, rank2: &str) -> String {
    CAPTURE_DENSE.replace(
        "k7/8/CcCcCcCc/cCcCcCcC/CcCcCcCc/cCcCcCcC/8/K7",
        &format!("k7/{rank7}/CcCcCcCc/cCcCcCcC/CcCcCcCc/cCcCcCcC/{rank2}/K7"),
    )
}

#[test]
fn more_pieces_than_kage_can_record_are_refused() {
    // 40 pieces fit (what a kage_data record holds), 41 do not.
    let v = Variant::from_spec_text(&crowded("8", "2CcCcCc")).expect("40 pieces fit");
    assert_eq!(Position::startpos(v).occupied().count_ones(), 40);
    check_refuses("crowded", &crowded("7c", "2CcCcCc"), "41 pieces on the board and in hand");
    // Hands count too.
    let text = many_drops_spec().replace("7K[", "7K[ABCDEFGHIJLMNOPQ");
    check_refuses("hands", &text, "41 pieces");
}

#[test]
fn a_flag_rank_won_with_the_first_move_is_refused() {
    // White's king (a1) steps to b2; Black's (e5) to d4 after any White move.
    let white = user_minishogi(
        "drop_black = [1, 2, 3, 4, 5]",
        "drop_black = [1, 2, 3, 4, 5]\nflag_white = [2]",
    );
    check_refuses("flag-white", &white, "zones.flag_white: Sente reaches its flag rank");
    let black = user_minishogi(
        "drop_black = [1, 2, 3, 4, 5]",
        "drop_black = [1, 2, 3, 4, 5]\nflag_black = [4]",
    );
    check_refuses("flag-black", &black, "zones.flag_black: Gote reaches its flag rank");
    // Two moves away is a game.
    let far = user_minishogi(
        "drop_black = [1, 2, 3, 4, 5]",
        "drop_black = [1, 2, 3, 4, 5]\nflag_white = [3]",
    );
    assert!(Variant::from_spec_text(&far).is_ok());
}

#[test]
fn variant_names_are_names_not_paths() {
    let long = "x".repeat(65);
    for name in ["a/b", "../escape", "/tmp/abs", "..", "a.b", "tab\tname", "é", long.as_str()] {
        let text = user_minishogi("name = \"mini2\"", &format!("name = {name:?}"));
        let e = Variant::from_spec_text(&text).expect_err(name).to_string();
        assert!(e.contains("a variant name is 1 to 64 ASCII letters"), "{name}: {e}");
    }
    check_refuses("slash", &user_minishogi("name = \"mini2\"", "name = \"a/b\""), "name \"a/b\"");
    for name in ["mini-2", "Mini_2", &"x".repeat(64)] {
        let text = user_minishogi("name = \"mini2\"", &format!("name = {name:?}"));
        assert!(Variant::from_spec_text(&text).is_ok(), "{name}");
    }
}

#[test]
fn variant_and_variant_file_must_name_the_same_variant() {
    let run = |args: &[&str]| {
        let o = kage(args);
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    // A built-in name beside a spec of another name is an error, not the spec.
    let (code, out, err) = run(&["--variant-file", RANK4, "rules", "--variant", "shinobiplus"]);
    assert_eq!(code, Some(2), "{out}");
    assert!(
        err.contains("--variant shinobiplus names another variant")
            && err.contains("shinobiplus-rank4"),
        "{err}"
    );
    let (code, _, err) =
        run(&["--variant-file", RANK4, "perft", "--variant", "minishogi", "--depth", "1"]);
    assert!(code == Some(2) && err.contains("names another variant"), "{err}");
    // Without --variant, or with the spec's name, the spec is played: the Kingdom's pawn
    // promotes on rank 4 there.
    let e5 = "rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/4K3[JDFCLHM] b kq - 0 1";
    for extra in [&[][..], &["--variant", "shinobiplus-rank4"]] {
        let mut args = vec!["--variant-file", RANK4, "rules", "--fen", e5];
        args.extend(extra);
        let (code, out, err) = run(&args);
        assert_eq!(code, Some(0), "{err}");
        assert!(out.contains("\"e5e4+\"") && !out.contains("\"e5e4\""), "{out}");
    }
    // A spec named like a built-in variant is refused as a user variant.
    let dir = temp_dir("builtin-name");
    let path = dir.path().join("minishogi-copy.toml");
    std::fs::write(&path, MINISHOGI).expect("write");
    let (code, _, err) = run(&["--variant-file", path.to_str().expect("utf-8"), "rules"]);
    assert!(code == Some(2) && err.contains("built-in variant's name"), "{err}");
    // The library's rule, for every tool.
    let user = Variant::from_spec_text(&user_minishogi("mini2", "mini2")).expect("user");
    let mini = VariantId::MINISHOGI;
    assert!(std::ptr::eq(Variant::resolve(None, Some(user), mini).expect("user"), user));
    assert!(std::ptr::eq(Variant::resolve(Some("mini2"), Some(user), mini).expect("user"), user));
    assert!(Variant::resolve(Some("minishogi"), Some(user), mini).is_err());
    assert_eq!(Variant::resolve(None, None, mini).expect("default").id, Some(mini));
    assert!(Variant::from_user_spec_text(MINISHOGI).is_err());
}

#[test]
fn go_depth_1_returns_in_a_capture_dense_variant() {
    let v = Variant::from_spec_text(CAPTURE_DENSE).expect("kage check accepts it");
    let (tx, rx) = mpsc::channel();
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let stop2 = std::sync::Arc::clone(&stop);
    std::thread::spawn(move || {
        let mut s = Searcher::new(16);
        let r = s.search(&Game::startpos(v), &Limits::depth(1), &stop2, &mut |_| {});
        let _ = tx.send(r);
    });
    let r = rx.recv_timeout(Duration::from_secs(60));
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let r = r.expect("depth 1 returned");
    assert!(!r.best_move.is_null());
    // Bounded by the quiescence budget: 75 root moves of at most QS_NODE_BUDGET nodes each.
    assert!(r.nodes < 75 * 8300, "{} nodes", r.nodes);
    // And through UCI.
    let mut e = Engine::start(&[
        "--variant-file",
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/capturedense.toml"),
    ]);
    e.send(b"position startpos\ngo depth 1\n");
    e.expect("bestmove ", 60);
    e.close_ok(10);
}

#[test]
fn bench_refuses_a_net_of_a_variant_it_does_not_run() {
    let net = concat!(env!("CARGO_MANIFEST_DIR"), "/nets/shinobi.nnue");
    let o = kage(&["bench", "--variant", "minishogi", "--depth", "1", "--net", net]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(
            "is for variant \"shinobi\", which this bench does not run (it runs minishogi)"
        ),
        "{err}"
    );
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    // A net with the variant's name that does not fit it.
    use kage_engine::search::bench;
    let other = random_network(Variant::builtin(VariantId::SHINOBI), 1);
    assert!(bench::net_variant(Some("shinobi"), &other).is_ok());
    assert!(bench::net_variant(None, &other).is_ok());
    let e = bench::net_variant(Some("minishogi"), &other).expect_err("not benched").to_string();
    assert!(e.contains("does not run"), "{e}");
    #[cfg(target_os = "linux")]
    {
        let o = kage(&["bench", "--variant", "minishogi", "--depth", "1", "--net", "/dev/zero"]);
        assert_eq!(o.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&o.stderr).contains("magic"));
    }
}

#[test]
fn evaluation_parameters_cannot_wrap_nor_read_as_a_mate() {
    use kage_engine::eval::{EvalParams, Evaluator};
    for (text, key) in [
        ("[material]\nR = 2147483647\n", "material.R = 2147483647"),
        ("[psq]\nP = [0, -20000]\n", "psq.P = -20000"),
        ("[king_safety]\nattacker = 1\nhand = 1\ndefender = 1\ndivisor = 0\n", "divisor = 0"),
    ] {
        let e = EvalParams::parse(text).expect_err(key).to_string();
        assert!(e.contains(key) && !e.contains('\n'), "{e}");
    }
    // Parameters in range can still add up to more than the mate scores (every piece worth
    // 10,000): the search never reports a capture as a mate.
    let params = EvalParams::parse("[material]\nP = 10000\n\"+P\" = 10000\n").expect("in range");
    let v = Variant::builtin(VariantId::MINISHOGI);
    // Five pawns up, 50,000 by these values, and no mate in sight.
    let game = Game::new(Position::from_fen(v, "4k/5/5/PPPPP/K4[-] w - - 0 1").expect("fen"));
    let mut s = Searcher::new(1);
    s.set_evaluator(Evaluator::HandCraftedWith(std::sync::Arc::new(params)));
    let r = s.search(&game, &Limits::depth(2), &AtomicBool::new(false), &mut |_| {});
    assert!(r.score.abs() < kage_engine::search::MATE_BOUND, "score {}", r.score);
}
