use super::*;
use crate::nnue::Accumulator;

fn tiny_net() -> Network {
    let (f, h, k) = (6usize, 4usize, 3usize);
    let header = NetHeader {
        variant: "minishogi".into(),
        feature_set_id: 0xabc,
        num_features: f as u32,
        ft_size: h as u32,
        head_size: k as u32,
        activation: Activation::ClippedRelu,
        output_scale: 400,
        run_id: "test-run".into(),
        git_revision: "deadbeef".into(),
        config: "lr = 0.001\n".into(),
    };
    let weights = NetWeights {
        ft_weights: (0..f * h).map(|i| ((i as i16 * 37) % 90) - 30).collect(),
        ft_bias: vec![10, 60, -5, 127],
        l1_weights: (0..k * 2 * h).map(|i| ((i as i32 * 29) % 120 - 60) as i8).collect(),
        l1_bias: vec![500, -300, 8000],
        out_weights: vec![40, -70, 90],
        out_bias: -1234,
    };
    Network::from_parts(header, weights).expect("valid parts")
}

#[test]
fn roundtrip_is_identical() {
    let net = tiny_net();
    let bytes = net.to_bytes();
    assert_eq!(&bytes[..8], b"KAGENNUE");
    let back = Network::load(&bytes).expect("loads");
    assert_eq!(back, net);
    assert_eq!(back.to_bytes(), bytes);
}

#[test]
fn evaluate_matches_hand_computation() {
    let net = tiny_net();
    let stm = [0u32, 3];
    let nstm = [5u32];
    let w = net.weights();
    let acc = |feats: &[u32]| -> Vec<i32> {
        (0..4)
            .map(|i| {
                i32::from(w.ft_bias[i])
                    + feats
                        .iter()
                        .map(|&f| i32::from(w.ft_weights[f as usize * 4 + i]))
                        .sum::<i32>()
            })
            .collect()
    };
    let (a, b) = (acc(&stm), acc(&nstm));
    let mut out = w.out_bias;
    for j in 0..3 {
        let mut s = w.l1_bias[j];
        for i in 0..4 {
            s += a[i].clamp(0, 127) * i32::from(w.l1_weights[j * 8 + i]);
            s += b[i].clamp(0, 127) * i32::from(w.l1_weights[j * 8 + 4 + i]);
        }
        out += ((s + 32).div_euclid(64)).clamp(0, 127) * i32::from(w.out_weights[j]);
    }
    let cp = (i64::from(out) * 400 + 127 * 32).div_euclid(127 * 64) as i32;
    assert_eq!(net.evaluate(&stm, &nstm), cp);
}

#[test]
fn incremental_updates_match_refresh() {
    let net = tiny_net();
    let mut inc = Accumulator::new(&net);
    inc.refresh(&net, &[1, 2]);
    inc.add_feature(&net, 4);
    inc.remove_feature(&net, 1);
    inc.add_feature(&net, 0);
    let mut full = Accumulator::new(&net);
    full.refresh(&net, &[2, 4, 0]);
    assert_eq!(inc, full);
    let other = {
        let mut a = Accumulator::new(&net);
        a.refresh(&net, &[5]);
        a
    };
    assert_eq!(net.evaluate_accumulators(&inc, &other), net.evaluate(&[0, 2, 4], &[5]));
}

#[test]
fn rejects_bad_magic() {
    let mut bytes = tiny_net().to_bytes();
    bytes[0] = b'X';
    assert!(matches!(Network::load(&bytes), Err(NetError::BadMagic { .. })));
    assert!(matches!(Network::load(b"PK\x03\x04"), Err(NetError::BadMagic { .. })));
}

#[test]
fn rejects_unknown_version() {
    let mut bytes = tiny_net().to_bytes();
    bytes[8..12].copy_from_slice(&99u32.to_le_bytes());
    let err = Network::load(&bytes).unwrap_err();
    assert_eq!(err, NetError::UnsupportedVersion { found: 99, supported: FORMAT_VERSION });
    assert!(err.to_string().contains("version 99"));
}

#[test]
fn rejects_truncated_files() {
    let bytes = tiny_net().to_bytes();
    for cut in [3, 8, 20, 27, 40, bytes.len() - 1] {
        let err = Network::load(&bytes[..cut]).unwrap_err();
        assert!(matches!(err, NetError::Truncated { .. }), "cut at {cut}: {err:?}");
    }
}

#[test]
fn rejects_corrupt_body() {
    let mut bytes = tiny_net().to_bytes();
    let last = bytes.len() - 10;
    bytes[last] ^= 0x40;
    assert!(matches!(Network::load(&bytes), Err(NetError::ChecksumMismatch { .. })));
    let mut long = tiny_net().to_bytes();
    long.push(0);
    assert!(matches!(Network::load(&long), Err(NetError::Corrupt(_))));
}

#[test]
fn rejects_other_variant_and_feature_set() {
    let bytes = tiny_net().to_bytes();
    assert!(Network::load_for(&bytes, "minishogi", 0xabc, 6).is_ok());
    let err = Network::load_for(&bytes, "shinobi", 0xabc, 6).unwrap_err();
    assert!(matches!(err, NetError::WrongVariant { .. }));
    assert!(err.to_string().contains("minishogi"));
    let err = Network::load_for(&bytes, "minishogi", 0xabd, 6).unwrap_err();
    assert!(matches!(err, NetError::WrongFeatureSet { found_id: 0xabc, .. }));
    let err = Network::load_for(&bytes, "minishogi", 0xabc, 7).unwrap_err();
    assert!(matches!(err, NetError::WrongFeatureSet { .. }));
}

#[test]
fn from_parts_checks_sizes() {
    let net = tiny_net();
    let mut w = net.weights().clone();
    w.ft_bias.pop();
    let err = Network::from_parts(net.header().clone(), w).unwrap_err();
    assert!(matches!(err, NetError::Invalid(_)));
}

#[test]
fn load_for_variant_uses_the_engine_feature_set() {
    use crate::nnue::features;
    use crate::{Position, Variant, VariantId};
    let v = Variant::builtin(VariantId::from_name("minishogi").expect("minishogi is built in"));
    let mut net = tiny_net();
    let n = features::num_features(v);
    let mut header = net.header().clone();
    header.feature_set_id = features::FEATURE_SET_ID;
    header.num_features = n as u32;
    let mut w = net.weights().clone();
    w.ft_weights = (0..n * 4).map(|i| (i % 50) as i16 - 25).collect();
    net = Network::from_parts(header, w).expect("valid parts");
    let bytes = net.to_bytes();
    let loaded = Network::load_for_variant(&bytes, v).expect("loads for minishogi");
    let pos = Position::startpos(v);
    let (mut a, mut b) = (Vec::new(), Vec::new());
    features::active_features(&pos, pos.side_to_move(), &mut a);
    features::active_features(&pos, !pos.side_to_move(), &mut b);
    assert_eq!(loaded.evaluate(&a, &b), net.evaluate(&a, &b));
    assert!(crate::eval::Evaluator::load_nnue(&bytes, v).expect("loads").network_for(v).is_some());
    let other = Variant::builtin(VariantId::from_name("shinobi").expect("shinobi is built in"));
    assert!(matches!(Network::load_for_variant(&bytes, other), Err(NetError::WrongVariant { .. })));
}
