//! The search with an NNUE evaluator: a small random network built in the test, loaded
//! through `Evaluator::load_nnue` and UCI `EvalFile`.

use kage_engine::eval::Evaluator;
use kage_engine::eval::nnue_eval::NnueEval;
use kage_engine::nnue::features::active_features;
use kage_engine::nnue::random::random_network_shaped;
use kage_engine::nnue::simd::Level;
use kage_engine::nnue::{Accumulator, Network};
use kage_engine::protocol::uci::Uci;
use kage_engine::search::{Limits, Searcher};
use kage_engine::{Color, Game, Position, Variant, VariantId};
use rand::{Rng, SeedableRng};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

fn random_net(v: &Variant, seed: u64) -> Network {
    random_network_shaped(v, seed, 32, 8)
}

#[test]
fn nnue_search_is_legal_and_repeatable() {
    for id in VariantId::ALL {
        let v = Variant::builtin(id);
        let bytes = random_net(v, 3).to_bytes();
        let ev = Evaluator::load_nnue(&bytes, v).expect("loads");
        let game = Game::startpos(v);
        let stop = AtomicBool::new(false);
        let mut a = Searcher::new(4);
        a.set_evaluator(ev.clone());
        let ra = a.search(&game, &Limits::depth(4), &stop, &mut |_| {});
        let mut b = Searcher::new(4);
        b.set_evaluator(ev);
        let rb = b.search(&game, &Limits::depth(4), &stop, &mut |_| {});
        assert_eq!(ra, rb);
        assert!(game.position().is_legal(ra.best_move));
        // A net for another variant is refused.
        let other = Variant::builtin(if id == VariantId::MINISHOGI {
            VariantId::GOROGOROPLUS
        } else {
            VariantId::MINISHOGI
        });
        assert!(Evaluator::load_nnue(&bytes, other).is_err());
    }
}

#[test]
fn uci_eval_file_loads_or_reports() {
    let v = Variant::builtin(VariantId::MINISHOGI);
    let dir = std::env::temp_dir().join(format!("kage-search-nnue-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let good = dir.join("net.nnue");
    std::fs::write(&good, random_net(v, 5).to_bytes()).expect("write");
    let bad = dir.join("bad.nnue");
    std::fs::write(&bad, b"not a network").expect("write");
    let mut uci = Uci::new(v, None);
    let mut out = Vec::new();
    uci.handle(&format!("setoption name EvalFile value {}", good.display()), &mut out).expect("io");
    let text = String::from_utf8_lossy(&out).into_owned();
    assert!(text.contains("NNUE minishogi") && !text.contains("error"), "{text}");
    let mut out = Vec::new();
    uci.handle(&format!("setoption name EvalFile value {}", bad.display()), &mut out).expect("io");
    assert!(String::from_utf8_lossy(&out).contains("info string error"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The reference accumulator of `pos` from `c` (i32, full refresh).
fn reference_acc(net: &Network, pos: &Position, c: Color) -> Vec<i32> {
    let mut f = Vec::new();
    active_features(pos, c, &mut f);
    let mut acc = Accumulator::new(net);
    acc.refresh(net, &f);
    acc.values().to_vec()
}

/// The reference evaluation of `pos` (i32 accumulators, scalar head).
fn reference_eval(net: &Network, pos: &Position) -> i32 {
    let stm = pos.side_to_move();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    active_features(pos, stm, &mut a);
    active_features(pos, !stm, &mut b);
    net.evaluate(&a, &b)
}

fn check(e: &mut NnueEval, net: &Network, pos: &Position, what: &str) {
    for c in Color::ALL {
        let got: Vec<i32> = e.accumulator(pos, c).iter().map(|&x| i32::from(x)).collect();
        assert_eq!(got, reference_acc(net, pos, c), "{what}: accumulator of {c:?}");
    }
    assert_eq!(e.evaluate_current(pos), reference_eval(net, pos), "{what}: evaluation");
}

/// The accumulator stack (pushes on the way down, lazy updates, refreshes, pops) equals a
/// full refresh after every move of random playouts, in all four variants, at every SIMD
/// level of this CPU, for FT widths that do and do not fit the vector widths.
#[test]
fn incremental_accumulators_match_full_refresh() {
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(11);
    for id in VariantId::ALL {
        let v = Variant::builtin(id);
        for (h, k) in [(128, 32), (24, 8)] {
            let net = Arc::new(random_network_shaped(v, 9, h, k));
            for level in Level::available() {
                let mut e = NnueEval::with_level(Arc::clone(&net), v, level);
                assert!(e.is_fast(), "a random net's weights are small");
                let what = format!("{id} {level:?} ft {h}");
                for _ in 0..3 {
                    let mut game = Game::startpos(v);
                    e.refresh(game.position());
                    let mut path = vec![game.position().clone()];
                    for ply in 0..60 {
                        let ms = game.position().legal_moves();
                        if ms.is_empty() {
                            break;
                        }
                        let m = ms.as_slice()[rng.random_range(0..ms.len())];
                        let parent = game.position().clone();
                        game.play(m);
                        e.push(&parent, game.position());
                        path.push(game.position().clone());
                        // Evaluate at most plies, not all: updates then span several moves,
                        // and from ply 20 to 31 none, so that ply 32 is refreshed instead.
                        if ply % 4 != 3 && !(20..32).contains(&ply) {
                            check(&mut e, &net, game.position(), &what);
                        }
                        // Now and then a sibling: down one move and back up.
                        if ply % 7 == 0 {
                            let pos = game.position().clone();
                            let ms = pos.legal_moves();
                            if let Some(&m) = ms.as_slice().first() {
                                let mut child = pos.clone();
                                child.play(m);
                                e.push(&pos, &child);
                                check(&mut e, &net, &child, &what);
                                e.pop();
                            }
                        }
                    }
                    // Back up the path: every ancestor's accumulators are still right.
                    while path.len() > 1 {
                        path.pop();
                        e.pop();
                        check(&mut e, &net, path.last().expect("root stays"), &what);
                    }
                }
            }
        }
    }
}

/// A network whose weights could carry an i16 accumulator out of range is evaluated with
/// the i32 reference, and still equals it.
#[test]
fn a_net_too_large_for_i16_accumulators_uses_the_reference() {
    let v = Variant::builtin(VariantId::MINISHOGI);
    let mut net = random_net(v, 5);
    let mut w = net.weights().clone();
    w.ft_weights.iter_mut().step_by(7).for_each(|x| *x = 30_000);
    net = Network::from_parts(net.header().clone(), w).expect("same shape");
    let mut e = NnueEval::new(Arc::new(net.clone()), v);
    assert!(!e.is_fast());
    let mut game = Game::startpos(v);
    e.refresh(game.position());
    for _ in 0..20 {
        let ms = game.position().legal_moves();
        let Some(&m) = ms.as_slice().last() else { break };
        let parent = game.position().clone();
        game.play(m);
        e.push(&parent, game.position());
        let pos = game.position();
        assert_eq!(e.evaluate_current(pos), reference_eval(&net, pos));
    }
}

/// `kage bench --net FILE` runs the searches with the net beside the HCE's (whose signature
/// it does not change; without --net, the shipped nets); a file that is not a net is one
/// error line and exit code 2.
#[test]
fn bench_with_a_net_prints_both_speeds() {
    let v = Variant::builtin(VariantId::MINISHOGI);
    let path = std::env::temp_dir().join(format!("kage-bench-net-{}.nnue", std::process::id()));
    std::fs::write(&path, random_net(v, 4).to_bytes()).expect("write temp net");
    let kage = |extra: &[&str]| {
        let mut args = vec!["bench", "--depth", "4", "--variant", "minishogi"];
        args.extend_from_slice(extra);
        std::process::Command::new(env!("CARGO_BIN_EXE_kage")).args(&args).output().expect("run")
    };
    let line = |text: &str, prefix: &str| -> Option<u64> {
        text.lines().find_map(|l| l.strip_prefix(prefix)).map(|n| n.trim().parse().expect("n"))
    };
    let plain = kage(&[]);
    let with = kage(&["--net", path.to_str().expect("utf-8 temp path")]);
    let bad = kage(&["--net", env!("CARGO_MANIFEST_DIR")]);
    std::fs::remove_file(&path).ok();
    let (plain, with) =
        (String::from_utf8_lossy(&plain.stdout), String::from_utf8_lossy(&with.stdout));
    let hce = line(&plain, "signature ").expect("HCE signature");
    assert_eq!(line(&with, "signature "), Some(hce), "{with}");
    // Without --net, the shipped net (when the variant has one) runs beside the HCE.
    let shipped = kage_engine::nnue::shipped::shipped(v).is_some();
    assert_eq!(line(&plain, "nnue signature ").is_some(), shipped, "{plain}");
    assert!(line(&with, "nnue signature ").is_some_and(|n| n > 0), "{with}");
    assert!(with.lines().any(|l| l.starts_with("minishogi") && l.ends_with('%')), "{with}");
    assert_eq!(bad.status.code(), Some(2));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: ") && err.contains("network"), "{err}");
}

/// The i16 bound counts one piece per square and every hand slot: uniform FT weights `x` are
/// on the fast path exactly while `terms * x` fits i16 (the bias is zero here).
#[test]
fn the_i16_bound_counts_one_piece_per_square_and_every_hand_slot() {
    for id in VariantId::ALL {
        let v = Variant::builtin(id);
        let terms =
            v.num_squares as i32 + 2 * v.hand_max.iter().map(|&m| i32::from(m)).sum::<i32>();
        let x = i32::from(i16::MAX) / terms;
        for (weight, fast) in [(x, true), (x + 1, false), (-x, true), (-x - 1, false)] {
            let net = random_net(v, 2);
            let mut w = net.weights().clone();
            w.ft_weights.iter_mut().for_each(|f| *f = weight as i16);
            w.ft_bias.iter_mut().for_each(|b| *b = 0);
            let net = Arc::new(Network::from_parts(net.header().clone(), w).expect("same shape"));
            let mut e = NnueEval::new(Arc::clone(&net), v);
            assert_eq!(e.is_fast(), fast, "{id} weight {weight}");
            let pos = Game::startpos(v).position().clone();
            e.refresh(&pos);
            assert_eq!(e.evaluate_current(&pos), reference_eval(&net, &pos), "{id}");
        }
    }
}

fn said(uci: &mut Uci, line: &str) -> String {
    let mut out = Vec::new();
    uci.handle(line, &mut out).expect("io");
    String::from_utf8_lossy(&out).into_owned()
}

/// The score of a depth-1 search (`info ... score cp N`) in a UCI session.
fn depth1_score(uci: &mut Uci) -> String {
    let mut out = Vec::new();
    uci.handle("position startpos", &mut out).expect("io");
    let sink = Arc::new(std::sync::Mutex::new(Vec::<u8>::new()));
    uci.set_search_output(sink.clone());
    uci.handle("go depth 1", &mut out).expect("io");
    uci.wait();
    let text = String::from_utf8_lossy(&sink.lock().expect("lock")).into_owned();
    let line = text.lines().find(|l| l.contains(" score ")).expect("an info line").to_string();
    line.split(" score ").nth(1).expect("score").split(" nodes").next().expect("").to_string()
}

#[test]
fn use_nnue_and_the_shipped_default() {
    for id in VariantId::ALL {
        let v = Variant::builtin(id);
        let shipped = kage_engine::nnue::shipped::shipped(v).is_some();
        // The default evaluator is the shipped network exactly when the variant has one, in
        // whichever format it is shipped.
        let default = Evaluator::default();
        let has = default.network_for(v).is_some() || default.fsf_network_for(v).is_some();
        assert_eq!(has, shipped, "{}", v.name);
        assert!(Evaluator::HandCrafted.network_for(v).is_none());

        let mut uci = Uci::new(v, None);
        assert!(said(&mut uci, "uci").contains("option name Use NNUE type check default true"));
        let t = said(&mut uci, "setoption name Use NNUE value maybe");
        assert!(t.contains("error") && t.contains("true or false"), "{t}");
        let default_score = depth1_score(&mut uci);
        let t = said(&mut uci, "setoption name Use NNUE value false");
        assert!(t.contains("hand-crafted") && !t.contains("error"), "{t}");
        let hce_score = depth1_score(&mut uci);
        // An EvalFile does not turn the network back on while Use NNUE is false.
        let dir = std::env::temp_dir().join(format!("kage-use-nnue-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let file = dir.join(format!("{}.nnue", v.name));
        std::fs::write(&file, random_net(v, 5).to_bytes()).expect("write");
        said(&mut uci, &format!("setoption name EvalFile value {}", file.display()));
        assert_eq!(depth1_score(&mut uci), hce_score, "{}", v.name);
        let t = said(&mut uci, "setoption name Use NNUE value true");
        assert!(t.contains("NNUE") || t.contains("network"), "{t}");
        assert!(!depth1_score(&mut uci).is_empty());
        // An empty EvalFile is the variant's default again.
        said(&mut uci, "setoption name EvalFile value ");
        assert_eq!(depth1_score(&mut uci), default_score, "{}", v.name);
        if !shipped {
            assert_eq!(default_score, hce_score, "{}: no shipped net, default = HCE", v.name);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
