//! The search with an NNUE evaluator: a small random network (`nnue::random_network`), loaded
//! through `Evaluator::load_nnue` and UCI `EvalFile`.

use kage_engine::eval::Evaluator;
use kage_engine::eval::nnue_eval::NnueEval;
use kage_engine::nnue::random_network;
use kage_engine::protocol::uci::Uci;
use kage_engine::search::{Limits, Searcher};
use kage_engine::{Game, Variant, VariantId};
use rand::{Rng, SeedableRng};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

#[test]
fn nnue_search_is_legal_and_repeatable() {
    for id in VariantId::ALL {
        let v = Variant::builtin(id);
        let bytes = random_network(v, 3).to_bytes();
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
        let other = Variant::builtin(if id == VariantId::Minishogi {
            VariantId::GorogoroPlus
        } else {
            VariantId::Minishogi
        });
        assert!(Evaluator::load_nnue(&bytes, other).is_err());
    }
}

#[test]
fn uci_eval_file_loads_or_reports() {
    let v = Variant::builtin(VariantId::Minishogi);
    let dir = std::env::temp_dir().join(format!("kage-search-nnue-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let good = dir.join("net.nnue");
    std::fs::write(&good, random_network(v, 5).to_bytes()).expect("write");
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

/// Incremental accumulator updates (down and back up) agree with a full refresh.
#[test]
fn incremental_accumulators_match_full_refresh() {
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(11);
    for id in VariantId::ALL {
        let v = Variant::builtin(id);
        let mut e = NnueEval::new(Arc::new(random_network(v, 9)));
        for _ in 0..4 {
            let mut game = Game::startpos(v);
            e.refresh(game.position());
            let mut path = vec![game.position().clone()];
            for _ in 0..80 {
                let ms = game.position().legal_moves();
                if ms.is_empty() {
                    break;
                }
                let m = ms.as_slice()[rng.random_range(0..ms.len())];
                let parent = game.position().clone();
                game.play(m);
                e.apply(&parent, game.position());
                path.push(game.position().clone());
                let pos = game.position();
                assert_eq!(e.evaluate_current(pos.side_to_move()), e.evaluate(pos), "{id}");
            }
            // Unwind to the start: back where we began.
            for w in path.windows(2).rev() {
                e.apply(&w[1], &w[0]);
            }
            let start = &path[0];
            assert_eq!(e.evaluate_current(start.side_to_move()), e.evaluate(start), "{id}");
        }
    }
}
