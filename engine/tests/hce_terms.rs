//! The tuner's linear view of the hand-crafted evaluation is exact: for every position of
//! random playouts in all four variants, `θ·x + fixed` equals the evaluation, and parameters
//! written back (`to_params`, then TOML) evaluate the same.

use kage_engine::eval::hce_terms::{TermLayout, params_toml};
use kage_engine::eval::{EvalParams, Hce};
use kage_engine::{Color, Position, Variant, VariantId};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

fn playout_positions(v: &'static Variant, seed: u64, games: usize) -> Vec<Position> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut out = Vec::new();
    for _ in 0..games {
        let mut pos = Position::startpos(v);
        for _ in 0..120 {
            let moves = pos.legal_moves();
            let list = moves.as_slice();
            if list.is_empty() || pos.flag_reached() {
                break;
            }
            let m = list[rng.random_range(0..list.len())];
            pos.play(m);
            out.push(pos.clone());
        }
    }
    out
}

fn white_eval(hce: &Hce, pos: &Position) -> i32 {
    let e = hce.evaluate(pos);
    if pos.side_to_move() == Color::White { e } else { -e }
}

#[test]
fn linear_terms_reproduce_the_evaluation() {
    let mut dense = Vec::new();
    for id in VariantId::ALL {
        let v = Variant::builtin(id);
        let params = EvalParams::for_variant(&v.name);
        let hce = Hce::with_params(v, &params);
        let layout = TermLayout::new(v, &params);
        let theta = layout.initial();
        let positions = playout_positions(v, 7 + id.index() as u64, 8);
        assert!(positions.len() > 200, "{id}: {} positions", positions.len());
        for pos in &positions {
            let t = layout.terms(pos, &mut dense);
            let lin: f64 = t.coefs.iter().map(|&(i, c)| theta[i as usize] * f64::from(c)).sum();
            assert_eq!(lin as i32 + t.fixed, white_eval(&hce, pos), "{id}: {}", pos.to_fen());
        }
    }
}

#[test]
fn parameters_written_back_evaluate_the_same() {
    for id in VariantId::ALL {
        let v = Variant::builtin(id);
        let params = EvalParams::for_variant(&v.name);
        let layout = TermLayout::new(v, &params);
        let text = params_toml(&layout.to_params(layout.initial()), "round trip");
        let back = EvalParams::parse(&text).expect("written parameters parse");
        let (a, b) = (Hce::with_params(v, &params), Hce::with_params(v, &back));
        for pos in playout_positions(v, 99, 4) {
            assert_eq!(a.evaluate(&pos), b.evaluate(&pos), "{id}: {}", pos.to_fen());
        }
        // A changed parameter changes the evaluation where the term is present.
        let mut theta = layout.initial().to_vec();
        let pawn = layout.names().iter().position(|n| n == "material.P").expect("pawn value");
        theta[pawn] += 37.0;
        let changed = Hce::with_params(v, &layout.to_params(&theta));
        let start = Position::startpos(v);
        let pawns =
            |c| start.pieces_of(c) & start.pieces_of_kind(v.kind_by_symbol('P', false).unwrap());
        let diff = (pawns(Color::White).count_ones() as i32
            - pawns(Color::Black).count_ones() as i32)
            * 37;
        assert_eq!(white_eval(&changed, &start) - white_eval(&a, &start), diff, "{id}");
    }
}

/// Every parameter set to a random value (so the attack-based terms, piece-square tables and
/// king-danger table are all in play): the linear view still reproduces the evaluation, and
/// the parameters survive the trip through TOML.
#[test]
fn linear_terms_reproduce_the_evaluation_with_every_term() {
    let mut dense = Vec::new();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    for id in VariantId::ALL {
        let v = Variant::builtin(id);
        let layout = TermLayout::new(v, &EvalParams::for_variant(&v.name));
        let theta: Vec<f64> = layout
            .initial()
            .iter()
            .map(|&x| x + f64::from(rng.random_range(-40i32..=40)))
            .collect();
        let params = layout.to_params(&theta);
        let text = params_toml(&params, "random");
        let params = EvalParams::parse(&text).expect("written parameters parse");
        assert!(!params.king_danger.is_empty() && !params.mobility.is_empty(), "{id}");
        let hce = Hce::with_params(v, &params);
        let layout = TermLayout::new(v, &params);
        assert_eq!(layout.initial(), &theta[..], "{id}: parameters changed on the way");
        let theta = layout.initial();
        let positions = playout_positions(v, 31 + id.index() as u64, 6);
        let mut hanging = 0;
        for pos in &positions {
            let t = layout.terms(pos, &mut dense);
            hanging += t
                .coefs
                .iter()
                .filter(|&&(i, _)| layout.names()[i as usize].starts_with("hanging"))
                .count();
            let lin: f64 = t.coefs.iter().map(|&(i, c)| theta[i as usize] * f64::from(c)).sum();
            assert_eq!(lin as i32 + t.fixed, white_eval(&hce, pos), "{id}: {}", pos.to_fen());
        }
        assert!(hanging > 0, "{id}: no hanging piece in {} positions", positions.len());
    }
}
