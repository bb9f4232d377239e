//! The calibrated score (issue 29 item 7): UCI `score cp` normalised by the evaluator's fitted
//! WDL model (`engine/src/eval/wdl.rs`), `UCI_ShowWDL`, and the raw scale (said once) for nets
//! without a model.

use kage_engine::eval::Evaluator;
use kage_engine::eval::wdl::{self, WdlModel};
use kage_engine::nnue::fsf::{FsfLayout, random_net};
use kage_engine::nnue::random::random_network_shaped;
use kage_engine::protocol::uci::{DEFAULT_HASH_MB, ScoreView, Uci};
use kage_engine::search::{Limits, MATE, Searcher};
use kage_engine::{Color, Game, Position, Variant, VariantId};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

fn said(uci: &mut Uci, line: &str) -> String {
    let mut out = Vec::new();
    uci.handle(line, &mut out).expect("io");
    String::from_utf8_lossy(&out).into_owned()
}

/// What the loop says on `go depth D` from the start position, and the search's lines.
fn go(uci: &mut Uci, depth: u32) -> (String, Vec<String>) {
    said(uci, "position startpos");
    let sink = Arc::new(Mutex::new(Vec::<u8>::new()));
    uci.set_search_output(sink.clone());
    let loop_said = said(uci, &format!("go depth {depth}"));
    uci.wait();
    let text = String::from_utf8_lossy(&sink.lock().expect("lock")).into_owned();
    (loop_said, text.lines().map(str::to_owned).collect())
}

/// The number after `word` in an info line.
fn after(line: &str, word: &str) -> Option<i32> {
    let mut t = line.split_whitespace().skip_while(|w| *w != word);
    t.next()?;
    t.next()?.parse().ok()
}

/// The raw score of a fresh searcher's depth-`d` search of the start position.
fn raw_score(v: &'static Variant, ev: Evaluator, d: u32) -> i32 {
    let mut s = Searcher::new(DEFAULT_HASH_MB);
    s.set_evaluator(ev);
    s.search(&Game::startpos(v), &Limits::depth(d), &AtomicBool::new(false), &mut |_| {}).score
}

#[test]
fn every_builtin_evaluator_has_a_model_and_user_nets_have_none() {
    for id in VariantId::ALL {
        let v = Variant::builtin(id);
        assert!(Evaluator::Default.wdl_for(v).is_some(), "{}", v.name);
        assert!(Evaluator::HandCrafted.wdl_for(v).is_some(), "{}", v.name);
        assert_eq!(Evaluator::HandCrafted.wdl_for(v), wdl::hce_model(&v.name));
        let bytes = random_network_shaped(v, 3, 32, 8).to_bytes();
        let user = Evaluator::load_nnue(&bytes, v).expect("loads");
        assert!(user.wdl_for(v).is_none(), "{}", v.name);
        // The shipped net's own bytes loaded as a file (either format) keep its model.
        if let Some(bytes) = kage_engine::nnue::shipped::shipped_bytes(&v.name) {
            let same = Evaluator::load_nnue(bytes, v).expect("the shipped net loads");
            assert_eq!(same.wdl_for(v), Evaluator::Default.wdl_for(v), "{}", v.name);
        }
    }
    // An FSF-format net that is not the shipped one has none.
    let v = Variant::builtin(VariantId::MINISHOGI);
    let layout = FsfLayout::for_variant(v).expect("layout");
    let bytes = random_net(&layout, 5).to_bytes().expect("bytes");
    let other = Evaluator::load_nnue(&bytes, v).expect("loads");
    assert!(other.fsf_network_for(v).is_some() && other.wdl_for(v).is_none());
}

#[test]
fn uci_prints_normalised_cp_and_wdl_lines() {
    for id in VariantId::ALL {
        let v = Variant::builtin(id);
        let model = Evaluator::Default.wdl_for(v).expect("a model");
        let mut uci = Uci::new(v, None);
        assert!(said(&mut uci, "uci").contains("option name UCI_ShowWDL type check default false"));
        assert!(said(&mut uci, "setoption name UCI_ShowWDL value maybe").contains("error"));
        said(&mut uci, "setoption name UCI_ShowWDL value true");
        let (loop_said, lines) = go(&mut uci, 3);
        assert!(!loop_said.contains("raw units"), "{loop_said}");
        let infos: Vec<&String> = lines.iter().filter(|l| l.contains(" score ")).collect();
        assert!(!infos.is_empty());
        for l in &infos {
            let wdl = l.split(" wdl ").nth(1).expect("a wdl");
            let nums: Vec<u32> =
                wdl.split_whitespace().take(3).map(|x| x.parse().expect("n")).collect();
            assert_eq!((nums.len(), nums.iter().sum::<u32>()), (3, 1000), "{l}");
        }
        let raw = raw_score(v, Evaluator::Default, 3);
        let last = infos.last().expect("a line");
        assert_eq!(after(last, "cp"), Some(model.to_cp(raw, Color::White)), "{}: {last}", v.name);
        // Without UCI_ShowWDL: no wdl.
        said(&mut uci, "setoption name UCI_ShowWDL value false");
        let (_, lines) = go(&mut uci, 2);
        assert!(lines.iter().all(|l| !l.contains(" wdl ")));
    }
}

#[test]
fn score_view_is_monotone_and_leaves_mates_alone() {
    let v = Variant::builtin(VariantId::SHINOBI);
    let pos = Position::startpos(v);
    let model = Evaluator::Default.wdl_for(v).expect("model");
    let view = ScoreView { model: Some(model), show_wdl: true };
    let (mut last_cp, mut last_w, mut last_l) = (i32::MIN, 0, 1000);
    for s in (-5000..=5000).step_by(25) {
        let t = view.text(s, &pos);
        let cp = after(&format!("x {t}"), "cp").expect("cp");
        let w = after(&format!("x {t}"), "wdl").expect("w") as u32;
        let [_, d, l] = model.wdl(s, pos.side_to_move());
        assert_eq!(w + d + l, 1000);
        assert!(cp >= last_cp && w >= last_w && l <= last_l, "{t}");
        (last_cp, last_w, last_l) = (cp, w, l);
    }
    assert_eq!(view.text(MATE - 3, &pos), "mate 2 wdl 1000 0 0");
    let raw = ScoreView { model: None, show_wdl: true };
    assert_eq!(raw.text(123, &pos), "cp 123");
}

#[test]
fn the_unit_maps_to_100_cp_and_a_to_100_where_draws_are_common() {
    let m = WdlModel::new(250.0, 50.0, 30.0).expect("model");
    assert_eq!(m.to_cp(250 + 30, Color::White), 100);
    assert_eq!(m.to_cp(250 - 30, Color::Black), 100);
    let m = WdlModel::new(0.0, 200.0, 0.0).expect("model");
    assert_eq!(m.to_cp(m.unit().round() as i32, Color::White), 100);
}

#[test]
fn nets_without_a_model_give_raw_cp_and_say_so_once() {
    let v = Variant::builtin(VariantId::MINISHOGI);
    let dir = std::env::temp_dir().join(format!("kage-uci-wdl-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let kage_net = dir.join("user.nnue");
    let bytes = random_network_shaped(v, 5, 32, 8).to_bytes();
    std::fs::write(&kage_net, &bytes).expect("write");
    let layout = FsfLayout::for_variant(v).expect("layout");
    let fsf_net = dir.join("fsf.nnue");
    let fsf_bytes = random_net(&layout, 9).to_bytes().expect("bytes");
    std::fs::write(&fsf_net, &fsf_bytes).expect("write");
    for (file, ev) in [
        (&kage_net, Evaluator::load_nnue(&bytes, v).expect("kage net")),
        (&fsf_net, Evaluator::load_nnue(&fsf_bytes, v).expect("fsf net")),
    ] {
        let mut uci = Uci::new(v, None);
        said(&mut uci, "setoption name UCI_ShowWDL value true");
        said(&mut uci, &format!("setoption name EvalFile value {}", file.display()));
        let (loop_said, lines) = go(&mut uci, 2);
        assert_eq!(
            loop_said.matches("info string score cp is in the raw units").count(),
            1,
            "{loop_said}"
        );
        let last = lines.iter().rfind(|l| l.contains(" score ")).expect("info");
        assert!(!last.contains(" wdl "), "{last}");
        assert_eq!(after(last, "cp"), Some(raw_score(v, ev, 2)), "{last}");
        let (again, _) = go(&mut uci, 1);
        assert!(!again.contains("raw units"), "said once: {again}");
        // Back to the default: normalised again, and the next raw net is said again.
        said(&mut uci, "setoption name EvalFile value ");
        assert!(!go(&mut uci, 1).0.contains("raw units"));
    }
    let _ = std::fs::remove_dir_all(&dir);
}
