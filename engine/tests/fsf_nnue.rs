//! Fairy-Stockfish's own `eval` output for kage's seeded random FSF-format nets
//! (`tests/reference/fsf_nnue_<variant>.jsonl`, made by `tests/reference/fsf_nnue_record.py`
//! with FSF built outside the repository): the net of each record's seed is regenerated in
//! memory and kage's reference evaluator must print exactly FSF's lines. Also: the file
//! format round trip and its refusals. Set `KAGE_REFERENCE_DIR` to read the records from
//! elsewhere.

use kage_engine::nnue::fsf::{self, FsfError, FsfLayout, FsfNet, report};
use kage_engine::protocol::rules::game_from;
use kage_engine::{Variant, VariantId};
use serde_json::Value;
use std::collections::HashMap;
use std::path::PathBuf;

fn reference_dir() -> PathBuf {
    match std::env::var("KAGE_REFERENCE_DIR") {
        Ok(d) => PathBuf::from(d),
        Err(_) => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/reference"),
    }
}

fn layout(id: VariantId) -> FsfLayout {
    FsfLayout::for_variant(Variant::builtin(id)).expect("built-in layout")
}

fn replay(id: VariantId) {
    let path = reference_dir().join(format!("fsf_nnue_{id}.jsonl"));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reference file {} missing: {e}", path.display()));
    let v = Variant::builtin(id);
    let layout = layout(id);
    let mut nets: HashMap<u64, FsfNet> = HashMap::new();
    let mut count = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let r: Value = serde_json::from_str(line).expect("a JSON record");
        assert_eq!(r["variant"], id.name());
        let seed = r["seed"].as_u64().expect("seed");
        let fen = r["fen"].as_str().expect("fen");
        let want: Vec<&str> = r["lines"]
            .as_array()
            .expect("lines")
            .iter()
            .map(|l| l.as_str().expect("a line"))
            .collect();
        let net = nets.entry(seed).or_insert_with(|| fsf::random_net(&layout, seed));
        let game = game_from(v, Some(fen), &[]).expect("a reference FEN");
        let got = report::eval_lines(net, &layout, game.position());
        assert_eq!(got, want, "{id} seed {seed} {fen}");
        count += 1;
    }
    assert!(count >= 10, "{id}: only {count} records");
}

#[test]
fn minishogi_matches_fsf_eval() {
    replay(VariantId::MINISHOGI);
}

#[test]
fn gorogoroplus_matches_fsf_eval() {
    replay(VariantId::GOROGOROPLUS);
}

#[test]
fn shinobi_matches_fsf_eval() {
    replay(VariantId::SHINOBI);
}

#[test]
fn shinobiplus_matches_fsf_eval() {
    replay(VariantId::SHINOBIPLUS);
}

#[test]
fn files_round_trip_and_are_named_by_their_hash() {
    let l = layout(VariantId::MINISHOGI);
    let net = fsf::random_net(&l, 7);
    let bytes = net.to_bytes().expect("bytes");
    assert_eq!(bytes.len(), l.file_size(net.description.len()));
    assert!(fsf::is_fsf_net(&bytes));
    assert_eq!(FsfNet::from_bytes(&bytes, &l).expect("reads"), net);
    let dir = std::env::temp_dir().join(format!("kage-fsf-{}", std::process::id()));
    let path = fsf::write_net(&dir, &l, &net).expect("writes");
    let name = path.file_name().and_then(|n| n.to_str()).expect("a name");
    assert_eq!(name, fsf::net_file_name("minishogi", &bytes));
    assert!(name.starts_with("minishogi-") && name.ends_with(".nnue") && name.len() == 10 + 12 + 5);
    assert_eq!(fsf::read_net(&path, &l).expect("reads back"), net);
    std::fs::remove_dir_all(&dir).expect("cleans up");
}

#[test]
fn wrong_variant_size_hash_and_version_are_refused() {
    let (mini, goro) = (layout(VariantId::MINISHOGI), layout(VariantId::GOROGOROPLUS));
    let bytes = fsf::random_net(&mini, 1).to_bytes().expect("bytes");
    let err = FsfNet::from_bytes(&bytes, &goro).expect_err("wrong variant");
    assert!(matches!(err, FsfError::Size { .. }));
    let msg = err.to_string();
    assert!(msg.contains("gorogoroplus") && msg.contains("the size of a minishogi net"), "{msg}");
    assert!(!msg.contains('\n'));
    for (cut, extra) in [(1056, 0), (1, 0), (0, 1)] {
        let mut b = bytes[..bytes.len() - cut].to_vec();
        b.extend(std::iter::repeat_n(0, extra));
        let err = FsfNet::from_bytes(&b, &mini).expect_err("wrong size");
        assert!(matches!(err, FsfError::Size { .. }), "{err}");
    }
    let mut b = bytes.clone();
    b[0] ^= 1;
    assert!(matches!(FsfNet::from_bytes(&b, &mini), Err(FsfError::Version { .. })));
    let mut b = bytes.clone();
    b[4] ^= 1;
    assert!(matches!(FsfNet::from_bytes(&b, &mini), Err(FsfError::Hash { .. })));
    let mut b = bytes.clone();
    let stack7 = b.len() - 17_640;
    b[stack7] ^= 1;
    let err = FsfNet::from_bytes(&b, &mini).expect_err("stack hash");
    assert!(err.to_string().contains("layer stack 7"), "{err}");
    assert!(matches!(FsfNet::from_bytes(&bytes[..7], &mini), Err(FsfError::Truncated { .. })));
    assert_eq!(fsf::guess_variant(&bytes), Ok(Some(VariantId::MINISHOGI)));
}

#[test]
fn the_search_loads_and_uses_fsf_nets_told_apart_by_their_first_word() {
    use kage_engine::eval::Evaluator;
    use kage_engine::search::{Limits, Searcher};
    use kage_engine::{Game, Position};
    use std::sync::atomic::AtomicBool;
    let v = Variant::builtin(VariantId::MINISHOGI);
    let bytes = fsf::random_net(&layout(VariantId::MINISHOGI), 5).to_bytes().expect("bytes");
    let ev = Evaluator::load_nnue(&bytes, v).expect("loads");
    assert!(matches!(ev, Evaluator::Fsf(_)), "{}", ev.describe());
    assert!(ev.fsf_network_for(v).is_some());
    assert!(ev.fsf_network_for(Variant::builtin(VariantId::GOROGOROPLUS)).is_none());
    let err = Evaluator::load_nnue(&bytes, Variant::builtin(VariantId::SHINOBI))
        .expect_err("wrong variant")
        .to_string();
    assert!(err.contains("the size of a minishogi net"), "{err}");
    let mut s = Searcher::new(4);
    s.set_evaluator(ev);
    let game = Game::new(Position::startpos(v));
    let r = s.search(&game, &Limits::depth(4), &AtomicBool::new(false), &mut |_| {});
    assert!(r.nodes > 0 && game.position().is_legal(r.best_move));
}
