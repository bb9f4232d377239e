//! Small networks of random weights, for tests of the crates that load networks (search,
//! UCI `EvalFile`, self-play `--net`, matches) without a trained file.

use super::features::{FEATURE_SET_ID, num_features};
use super::network::{Activation, NetHeader, NetWeights, Network};
use crate::util::hash::{GOLDEN_GAMMA, splitmix64};
use crate::variant::Variant;

/// Feature transformer width of [`random_network`].
pub const RANDOM_FT_SIZE: usize = 16;
/// Head width of [`random_network`].
pub const RANDOM_HEAD_SIZE: usize = 8;

/// A valid network for `variant` (feature transformer [`RANDOM_FT_SIZE`], head
/// [`RANDOM_HEAD_SIZE`]) whose weights are drawn from a SplitMix64 stream started at
/// `seed`: the same seed gives the same network on every build; different seeds give
/// different networks. Its evaluations are arbitrary but vary with the position.
pub fn random_network(variant: &Variant, seed: u64) -> Network {
    random_network_shaped(variant, seed, RANDOM_FT_SIZE, RANDOM_HEAD_SIZE)
}

/// As [`random_network`] with feature transformer width `ft_size` and head width
/// `head_size` (e.g. the trainer's default shape, for speed measurements).
pub fn random_network_shaped(
    variant: &Variant,
    seed: u64,
    ft_size: usize,
    head_size: usize,
) -> Network {
    let mut state = seed;
    // A value in `lo..hi` from the stream.
    let mut draw = |lo: i64, hi: i64| -> i64 {
        let r = splitmix64(state);
        state = state.wrapping_add(GOLDEN_GAMMA);
        lo + (r % (hi - lo) as u64) as i64
    };
    let (f, h, k) = (num_features(variant), ft_size, head_size);
    let header = NetHeader {
        variant: variant.name.clone(),
        feature_set_id: FEATURE_SET_ID,
        num_features: f as u32,
        ft_size: h as u32,
        head_size: k as u32,
        activation: Activation::ClippedRelu,
        output_scale: 400,
        run_id: format!("random-{seed}"),
        git_revision: "test".into(),
        config: String::new(),
    };
    let weights = NetWeights {
        ft_weights: (0..f * h).map(|_| draw(-20, 20) as i16).collect(),
        ft_bias: (0..h).map(|_| draw(0, 40) as i16).collect(),
        l1_weights: (0..k * 2 * h).map(|_| draw(-30, 30) as i8).collect(),
        l1_bias: (0..k).map(|_| draw(-500, 500) as i32).collect(),
        out_weights: (0..k).map(|_| draw(-60, 60) as i16).collect(),
        out_bias: 0,
    };
    // The sizes agree by construction, so this cannot fail.
    Network::from_parts(header, weights).expect("a consistent random network")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::nnue_eval::NnueEval;
    use crate::position::Position;
    use crate::variant::VariantId;
    use std::sync::Arc;

    #[test]
    fn seeded_valid_and_varied() {
        let v = Variant::builtin(VariantId::MINISHOGI);
        let a = random_network(v, 1);
        assert_eq!(a.to_bytes(), random_network(v, 1).to_bytes());
        assert_ne!(a.to_bytes(), random_network(v, 2).to_bytes());
        assert_eq!(Network::load_for_variant(&a.to_bytes(), v).expect("loads"), a);
        let mut eval = NnueEval::new(Arc::new(a), v);
        let start = Position::startpos(v);
        let first = eval.evaluate(&start);
        let varied = start.legal_moves().as_slice().iter().any(|&m| {
            let mut next = start.clone();
            next.play(m);
            eval.evaluate(&next) != first
        });
        assert!(varied, "the evaluation depends on the position");
    }
}
