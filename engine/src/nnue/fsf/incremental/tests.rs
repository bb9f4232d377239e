//! The incremental, cached, SIMD evaluation equals the scalar reference from scratch.

use super::*;
use crate::nnue::fsf::{FsfLayout, random_net, reference};
use crate::util::hash::splitmix64;
use crate::variant::VariantId;

fn network(id: VariantId, seed: u64) -> Arc<FsfNetwork> {
    let layout = FsfLayout::for_variant(Variant::builtin(id)).expect("layout");
    let net = random_net(&layout, seed);
    Arc::new(FsfNetwork::new(layout, net).expect("shape"))
}

/// Both perspectives' accumulators of the current end of the path equal the reference's.
fn check_accumulators(e: &FsfSearchEval, pos: &Position) {
    for c in Color::ALL {
        let r = reference::accumulate(e.net.net(), e.net.layout(), pos, c);
        let at = (2 * e.top + c.index()) * L1;
        assert_eq!(&e.acc[at..at + L1], &r.acc[..], "{pos:?} {c:?}");
        assert_eq!(e.psqt[2 * e.top + c.index()], r.psqt, "{pos:?} {c:?}");
    }
}

/// Random walks down and back up a search-like path: every position evaluated equals the
/// reference, at every SIMD level this CPU has.
fn playouts(id: VariantId) {
    let v = Variant::builtin(id);
    let net = network(id, 11);
    for level in Level::available() {
        let mut e = FsfSearchEval::with_level(Arc::clone(&net), v, level);
        let mut rng = 0x5EED_u64 ^ id.index() as u64;
        let mut next = |n: usize| {
            rng = rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
            (splitmix64(rng) % n as u64) as usize
        };
        for _game in 0..4 {
            let mut path = vec![Position::startpos(v)];
            e.refresh(&path[0]);
            for _ply in 0..120 {
                let pos = path.last().expect("a position").clone();
                let moves = pos.legal_moves();
                if moves.as_slice().is_empty() || (path.len() > 3 && next(5) == 0) {
                    // back up a few plies, as a search does
                    for _ in 0..next(path.len().min(4)) {
                        if path.len() > 1 {
                            path.pop();
                            e.pop();
                        }
                    }
                    continue;
                }
                let m = moves.as_slice()[next(moves.as_slice().len())];
                let mut child = pos.clone();
                child.play(m);
                e.push(&pos, &child);
                path.push(child);
                let cur = path.last().expect("the child");
                if next(3) != 0 {
                    let want = reference::evaluate(net.net(), net.layout(), cur).value;
                    assert_eq!(e.evaluate_internal(cur), want, "{id} {level:?} {cur:?}");
                    check_accumulators(&e, cur);
                }
            }
        }
    }
}

#[test]
fn incremental_equals_reference_minishogi() {
    playouts(VariantId::MINISHOGI);
}

#[test]
fn incremental_equals_reference_gorogoroplus() {
    playouts(VariantId::GOROGOROPLUS);
}

#[test]
fn incremental_equals_reference_shinobi() {
    playouts(VariantId::SHINOBI);
}

#[test]
fn incremental_equals_reference_shinobiplus() {
    playouts(VariantId::SHINOBIPLUS);
}

#[test]
fn centipawns_are_fsf_units_scaled_to_a_pawn_of_100() {
    assert_eq!(to_centipawns(208), 100);
    assert_eq!(to_centipawns(-104), -50);
    assert_eq!(to_centipawns(207), 99);
}
