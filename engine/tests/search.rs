//! Search tests: mate puzzles (verified by an independent brute-force solver), legal best moves
//! from the reference positions, determinism, self-play to the end, time limits, UCI input.

use kage_engine::game::Outcome;
use kage_engine::protocol::uci::Uci;
use kage_engine::search::{Limits, MATE, SearchResult, Searcher};
use kage_engine::{Color, Game, Move, Position, Variant, VariantId};
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn search(s: &mut Searcher, game: &Game, limits: &Limits) -> SearchResult {
    let stop = AtomicBool::new(false);
    s.search(game, limits, &stop, &mut |_| {})
}

fn reference_dir() -> PathBuf {
    if let Ok(d) = std::env::var("KAGE_REFERENCE_DIR") {
        return PathBuf::from(d);
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/reference")
}

fn perft_fens(id: VariantId) -> Vec<String> {
    let path = reference_dir().join(format!("perft_{}.jsonl", id.name()));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reference file {} missing: {e}", path.display()));
    text.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|j| j["fen"].as_str().map(String::from))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Brute-force solver (plain minimax over legal moves with the Game rules; no search code).

/// Whether the side to move in `game` wins (by the rules' verdict) within `n` of its moves.
/// With `proof` the attacker tries only checks and king moves before the last move (enough to
/// prove the mates of the puzzle set); without, every move.
fn wins_within(game: &mut Game, n: u32, proof: bool) -> bool {
    let me = game.position().side_to_move();
    let moves: Vec<Move> = game.position().legal_moves().as_slice().to_vec();
    for m in moves {
        if n > 1 && proof && !restricted_ok(game.position(), m) {
            continue;
        }
        game.play(m);
        let ok = match game.outcome() {
            Some(o) => o.winner == Some(me),
            None => n > 1 && defender_loses(game, n - 1, proof, me),
        };
        game.undo();
        if ok {
            return true;
        }
    }
    false
}

fn restricted_ok(pos: &Position, m: Move) -> bool {
    let mut c = pos.clone();
    c.play(m);
    c.in_check()
        || pos.piece_on(m.from().0).is_some_and(|p| p.kind == pos.variant().king) && !m.is_drop()
}

fn defender_loses(game: &mut Game, n: u32, proof: bool, attacker: Color) -> bool {
    let replies: Vec<Move> = game.position().legal_moves().as_slice().to_vec();
    for r in replies {
        game.play(r);
        let lost = match game.outcome() {
            Some(o) => o.winner == Some(attacker),
            None => wins_within(game, n, proof),
        };
        game.undo();
        if !lost {
            return false;
        }
    }
    true
}

/// Shortest forced win in moves (1..=max) by full brute force, proof-restricted at depth 3.
fn shortest_win(game: &mut Game, max: u32) -> Option<u32> {
    for n in 1..=max {
        let proof = n >= 3;
        if wins_within(game, n, proof) {
            return Some(n);
        }
    }
    None
}

// ---------------------------------------------------------------------------------------------
// Mate puzzles.

/// `variant | FEN | mate in n (moves)`; mined from self-play games with the solver above.
const PUZZLES: &str = include_str!("search_puzzles.txt");

fn puzzles() -> Vec<(VariantId, String, u32)> {
    PUZZLES
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let parts: Vec<&str> = l.split('|').map(str::trim).collect();
            let id = VariantId::from_name(parts[0]).expect("puzzle variant");
            (id, parts[1].to_string(), parts[2].parse().expect("mate length"))
        })
        .collect()
}

#[test]
fn puzzle_set_is_correct_and_covers_every_variant() {
    let ps = puzzles();
    for id in VariantId::ALL {
        for n in 1..=3 {
            assert!(
                ps.iter().any(|(v, _, k)| *v == id && *k == n),
                "no mate-in-{n} puzzle for {id}"
            );
        }
    }
    for (id, fen, n) in &ps {
        let v = Variant::builtin(*id);
        let mut game = Game::new(Position::from_fen(v, fen).expect(fen));
        // The mate exists (restricted proof at 3) and no shorter one does (full search).
        assert!(wins_within(&mut game, *n, *n >= 3), "{id} {fen}: no win in {n}");
        if *n > 1 {
            assert!(!wins_within(&mut game, *n - 1, false), "{id} {fen}: shorter win than {n}");
        }
    }
}

#[test]
fn finds_every_mate_in_the_puzzle_set() {
    let mut s = Searcher::new(16);
    for (id, fen, n) in puzzles() {
        let v = Variant::builtin(id);
        let mut game = Game::new(Position::from_fen(v, &fen).expect(&fen));
        s.clear();
        // Two plies beyond the mate plus margin: quiet wins (stalemate is a loss for the
        // stalemated side) can be pruned at the frontier and show up an iteration later.
        let r = search(&mut s, &game, &Limits::depth(2 * n + 5));
        assert_eq!(
            r.score,
            MATE - (2 * n as i32 - 1),
            "{id} {fen}: score {} (mate in {n})",
            r.score
        );
        assert!(game.position().is_legal(r.best_move));
        // The move keeps the forced win: after it, every reply still loses within n - 1.
        let me = game.position().side_to_move();
        game.play(r.best_move);
        let ok = match game.outcome() {
            Some(o) => o.winner == Some(me),
            None => n > 1 && defender_loses(&mut game, n - 1, false, me),
        };
        assert!(ok, "{id} {fen}: {:?} does not keep the mate", r.best_move);
    }
}

/// Mines puzzles from self-play games: `cargo test --release --test search -- --ignored mine`.
#[test]
#[ignore]
fn mine_puzzles() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(7);
    for id in VariantId::ALL {
        let v = Variant::builtin(id);
        let mut found = [0u32; 4];
        let mut s = Searcher::new(8);
        for _g in 0..200 {
            if found[1..].iter().all(|&c| c >= 4) {
                break;
            }
            let mut game = Game::startpos(v);
            for _ in 0..rng.random_range(2..8) {
                let ms = game.position().legal_moves();
                if ms.is_empty() {
                    break;
                }
                game.play(ms.as_slice()[rng.random_range(0..ms.len())]);
            }
            while game.outcome().is_none() && game.ply() < 300 {
                let mut fresh = Game::new(game.position().clone());
                if let Some(k) = shortest_win(&mut fresh, 3)
                    && found[k as usize] < 4
                {
                    found[k as usize] += 1;
                    println!("{} | {} | {k}", id.name(), game.position().to_fen());
                }
                let r = search(&mut s, &game, &Limits::depth(2));
                if r.best_move.is_null() {
                    break;
                }
                game.play(r.best_move);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Legality, determinism, self-play.

#[test]
fn best_move_is_legal_from_reference_positions() {
    let mut s = Searcher::new(4);
    for id in VariantId::ALL {
        let v = Variant::builtin(id);
        for fen in perft_fens(id).iter().step_by(3) {
            let pos = Position::from_fen(v, fen).expect(fen);
            let game = Game::new(pos.clone());
            let r = search(&mut s, &game, &Limits::depth(3));
            if pos.count_legal() == 0 {
                assert!(r.best_move.is_null(), "{fen}");
            } else {
                assert!(pos.is_legal(r.best_move), "{fen}: {:?}", r.best_move);
                assert_eq!(r.pv.first(), Some(&r.best_move));
            }
        }
    }
}

#[test]
fn fixed_node_and_depth_searches_repeat() {
    for id in VariantId::ALL {
        let v = Variant::builtin(id);
        let fens = perft_fens(id);
        let game = Game::new(Position::from_fen(v, &fens[fens.len() / 2]).expect("fen"));
        for limits in [Limits::nodes(30_000), Limits::depth(5)] {
            let mut a = Searcher::new(8);
            let ra = search(&mut a, &game, &limits);
            let rb = search(&mut a, &game, &limits);
            a.clear();
            let rc = search(&mut a, &game, &limits);
            let mut b = Searcher::new(8);
            let rd = search(&mut b, &game, &limits);
            assert_eq!(ra, rc, "{id}: same result after clear()");
            assert_eq!(ra, rd, "{id}: same result on a fresh searcher");
            assert!(game.position().is_legal(rb.best_move));
            if let Some(n) = limits.nodes {
                assert!(ra.nodes <= n + 8, "{id}: {} nodes > {n}", ra.nodes);
            }
        }
    }
}

#[test]
fn multipv_lines_are_distinct_and_sorted() {
    let v = Variant::builtin(VariantId::MINISHOGI);
    let game = Game::startpos(v);
    let mut s = Searcher::new(8);
    let r = search(&mut s, &game, &Limits { depth: Some(5), multipv: 3, ..Limits::default() });
    assert_eq!(r.lines.len(), 3);
    let firsts: Vec<Move> = r.lines.iter().map(|(_, pv)| pv[0]).collect();
    assert!(firsts[0] != firsts[1] && firsts[1] != firsts[2] && firsts[0] != firsts[2]);
    assert!(r.lines.windows(2).all(|w| w[0].0 >= w[1].0));
    assert_eq!(r.best_move, firsts[0]);
}

/// Low-depth self-play to the end; a reported forced win must come true.
#[test]
fn self_play_games_end_with_the_rules_verdict() {
    for id in VariantId::ALL {
        let v = Variant::builtin(id);
        let mut finished = 0;
        for g in 0..3 {
            let mut game = Game::startpos(v);
            let first = game.position().legal_moves();
            game.play(first.as_slice()[(g * 5) % first.len()]);
            let mut s = Searcher::new(4);
            let mut promised: Option<(Color, usize)> = None;
            let outcome: Option<Outcome> = loop {
                if let Some(o) = game.outcome() {
                    break Some(o);
                }
                if game.ply() > 1000 {
                    break None;
                }
                let r = search(&mut s, &game, &Limits::depth(3));
                assert!(!r.best_move.is_null(), "{id}: no move but no outcome");
                assert!(game.position().is_legal(r.best_move));
                if r.score >= MATE - 3 && promised.is_none() {
                    let stm = game.position().side_to_move();
                    promised = Some((stm, game.ply() + (MATE - r.score) as usize));
                }
                game.play(r.best_move);
            };
            if let Some(o) = outcome {
                finished += 1;
                if let Some((c, by)) = promised {
                    assert_eq!(o.winner, Some(c), "{id}: promised win for {c:?}, got {o:?}");
                    assert!(game.ply() <= by, "{id}: win came later than promised");
                }
                // At the end the searcher agrees: no move, or the rules ended it.
                let r = search(&mut s, &game, &Limits::depth(1));
                if game.position().count_legal() == 0 {
                    assert!(r.best_move.is_null());
                    let expected = o.score_for(game.position().side_to_move()).signum();
                    assert_eq!(r.score.signum(), expected, "{id}: {o:?}");
                }
            }
        }
        assert!(finished >= 2, "{id}: only {finished} of 3 games finished");
    }
}

#[test]
fn timed_search_respects_the_clock() {
    let v = Variant::builtin(VariantId::SHINOBIPLUS);
    let game = Game::startpos(v);
    let mut s = Searcher::new(8);
    let limits = Limits {
        wtime: Some(1000),
        btime: Some(1000),
        winc: Some(100),
        binc: Some(100),
        ..Limits::default()
    };
    let t = Instant::now();
    let r = search(&mut s, &game, &limits);
    assert!(t.elapsed() < Duration::from_millis(600), "took {:?}", t.elapsed());
    assert!(game.position().is_legal(r.best_move));
    let t = Instant::now();
    let r = search(&mut s, &game, &Limits { movetime_ms: Some(100), ..Limits::default() });
    // Generous: a loaded machine (CI, parallel builds) delays the thread's wake-ups.
    assert!(t.elapsed() < Duration::from_millis(400), "took {:?}", t.elapsed());
    assert!(game.position().is_legal(r.best_move));
}

// ---------------------------------------------------------------------------------------------
// UCI.

#[derive(Clone, Default)]
struct Buf(Arc<Mutex<Vec<u8>>>);

impl Write for Buf {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("lock").extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Buf {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().expect("lock")).into_owned()
    }
}

fn session() -> (Uci, Buf) {
    let mut uci = Uci::new(Variant::builtin(VariantId::SHINOBIPLUS), None);
    let buf = Buf::default();
    uci.set_search_output(Arc::new(Mutex::new(buf.clone())));
    (uci, buf)
}

fn bestmove(text: &str) -> Option<String> {
    text.lines()
        .rev()
        .find_map(|l| l.strip_prefix("bestmove "))
        .map(|s| s.split_whitespace().next().unwrap_or("").to_string())
}

#[test]
fn uci_go_before_position_and_bad_input_keep_the_engine_up() {
    let (mut uci, buf) = session();
    let mut out = Vec::new();
    uci.handle("go depth 2", &mut out).expect("io");
    uci.wait();
    let said = String::from_utf8_lossy(&out).into_owned();
    assert!(said.contains("info string error"), "{said}");
    let bm = bestmove(&buf.text()).expect("bestmove");
    let start = Position::startpos(Variant::builtin(VariantId::SHINOBIPLUS));
    assert!(start.parse_move(&bm).is_ok(), "{bm}");

    for bad in [
        "position fen not/a/fen",
        "position startpos moves e2e4 zz9",
        "position",
        "go depth x",
        "go sideways",
        "setoption name Hash value -3",
        "setoption name MultiPV value 0",
        "setoption name EvalFile value /nonexistent.nnue",
        "setoption name UCI_Variant value chess",
    ] {
        let mut out = Vec::new();
        assert!(uci.handle(bad, &mut out).expect("io"));
        assert!(String::from_utf8_lossy(&out).contains("info string error"), "{bad}");
    }
    let mut out = Vec::new();
    assert!(!uci.handle("frobnicate", &mut out).expect("io"));
    // Still up: a normal search after all that.
    let (mut uci, buf) = session();
    for l in [
        "setoption name UCI_Variant value minishogi",
        "position startpos moves a2a3",
        "go nodes 2000",
    ] {
        uci.handle(l, &mut Vec::new()).expect("io");
    }
    uci.wait();
    let bm = bestmove(&buf.text()).expect("bestmove");
    let mut g = Game::startpos(Variant::builtin(VariantId::MINISHOGI));
    g.play_uci("a2a3").expect("legal");
    assert!(g.position().parse_move(&bm).is_ok(), "{bm}");
    assert!(buf.text().contains("info depth"));
}

#[test]
fn uci_stop_answers_quickly_and_no_moves_gives_none() {
    let (mut uci, buf) = session();
    uci.handle("position startpos", &mut Vec::new()).expect("io");
    uci.handle("go infinite", &mut Vec::new()).expect("io");
    std::thread::sleep(Duration::from_millis(200));
    assert!(bestmove(&buf.text()).is_none(), "infinite search answered before stop");
    let t = Instant::now();
    uci.handle("stop", &mut Vec::new()).expect("io");
    let took = t.elapsed();
    assert!(took < Duration::from_millis(100), "stop took {took:?}");
    assert!(bestmove(&buf.text()).is_some());

    // Campmate reached: no legal move.
    let (mut uci, buf) = session();
    uci.handle("setoption name UCI_Variant value shinobi", &mut Vec::new()).expect("io");
    uci.handle("position fen 4K3/8/8/8/8/8/8/k7[] b - - 0 1", &mut Vec::new()).expect("io");
    uci.handle("go depth 3", &mut Vec::new()).expect("io");
    uci.wait();
    assert_eq!(bestmove(&buf.text()).as_deref(), Some("(none)"));
}

#[test]
fn uci_multipv_reports_lines() {
    let (mut uci, buf) = session();
    for l in [
        "setoption name UCI_Variant value gorogoroplus",
        "setoption name MultiPV value 2",
        "position startpos",
        "go depth 3",
    ] {
        uci.handle(l, &mut Vec::new()).expect("io");
    }
    uci.wait();
    let t = buf.text();
    assert!(t.contains("multipv 1") && t.contains("multipv 2"), "{t}");
    assert!(bestmove(&t).is_some());
}

/// The binary: a `go` while searching, `stop`, bad lines; every `go` gets one `bestmove`.
#[test]
fn uci_binary_answers_every_go() {
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_kage"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("kage runs");
    let mut stdin = child.stdin.take().expect("stdin");
    for l in ["go depth 2", "position startpos moves e2e4 xx", "frob", "go infinite"] {
        writeln!(stdin, "{l}").expect("write");
    }
    std::thread::sleep(Duration::from_millis(100));
    for l in ["go movetime 50", "position startpos", "go infinite"] {
        writeln!(stdin, "{l}").expect("write");
    }
    std::thread::sleep(Duration::from_millis(100));
    writeln!(stdin, "stop\nisready\nquit").expect("write");
    drop(stdin);
    let out = child.wait_with_output().expect("kage ends");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.lines().filter(|l| l.starts_with("bestmove ")).count(), 4, "{text}");
    assert!(text.contains("readyok") && text.contains("unknown command 'frob'"), "{text}");
}
