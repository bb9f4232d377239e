//! FSF-NNUE.md §1 (sizes) and §5.6 (the start positions' features, from the reference
//! implementation that matches FSF).

use super::*;
use crate::variant::VariantId;

fn layout(id: VariantId) -> (FsfLayout, Position) {
    let v = Variant::builtin(id);
    (FsfLayout::for_variant(v).expect("built-in layout"), Position::startpos(v))
}

fn sorted(l: &FsfLayout, pos: &Position, c: Color) -> Vec<u32> {
    let mut f = Vec::new();
    l.active_features(pos, c, &mut f);
    f.sort_unstable();
    f
}

#[test]
fn dims_sizes_and_max_pieces_are_fsfs() {
    let table = [
        (VariantId::MINISHOGI, 8, 515, 12_875, 13_738_160, 12),
        (VariantId::GOROGOROPLUS, 10, 750, 22_500, 23_902_160, 20),
        (VariantId::SHINOBI, 12, 1_824, 116_736, 123_415_376, 36),
        (VariantId::SHINOBIPLUS, 13, 1_984, 126_976, 134_228_816, 32),
    ];
    for (id, n, b, dims, bytes, max) in table {
        let (l, _) = layout(id);
        assert_eq!(l.num_types(), n, "{id}");
        assert_eq!(l.per_king(), b, "{id}");
        assert_eq!(l.dims(), dims, "{id}");
        assert_eq!(l.file_size(0), bytes, "{id}");
        assert_eq!(l.file_size(80), bytes + 80, "{id}");
        assert_eq!(l.max_pieces(), max, "{id}");
    }
}

#[test]
fn minishogi_start_features() {
    let (l, pos) = layout(VariantId::MINISHOGI);
    let white = [3, 46, 54, 95, 102, 147, 205, 244, 251, 298, 350, 374];
    let black = [2061, 2108, 2110, 2159, 2162, 2207, 2269, 2300, 2313, 2356, 2414, 2430];
    assert_eq!(sorted(&l, &pos, Color::White), white);
    assert_eq!(sorted(&l, &pos, Color::Black), black);
    assert_eq!(white.iter().sum::<u32>(), 2_169);
    assert_eq!(black.iter().sum::<u32>(), 26_889);
    assert_eq!(l.bucket(&pos), 7);
}

#[test]
fn gorogoroplus_start_features() {
    let (l, pos) = layout(VariantId::GOROGOROPLUS);
    let both = [
        1620, 1624, 1675, 1679, 1751, 1752, 1753, 1786, 1787, 1788, 1921, 1923, 1976, 1978, 2042,
        2067, 2170, 2180, 2190, 2200,
    ];
    assert_eq!(sorted(&l, &pos, Color::White), both);
    assert_eq!(sorted(&l, &pos, Color::Black), both);
    assert_eq!(both.iter().sum::<u32>(), 37_862);
    assert_eq!(l.bucket(&pos), 6);
}

#[test]
fn shinobi_pair_start_features() {
    for (id, count, white, black, smallest) in [
        (VariantId::SHINOBI, 36, 285_226, 285_082, 7304),
        (VariantId::SHINOBIPLUS, 32, 274_008, 273_280, 7944),
    ] {
        let (l, pos) = layout(id);
        let (w, b) = (sorted(&l, &pos, Color::White), sorted(&l, &pos, Color::Black));
        assert_eq!((w.len(), b.len()), (count, count), "{id}");
        assert_eq!(w.iter().sum::<u32>(), white, "{id}");
        assert_eq!(b.iter().sum::<u32>(), black, "{id}");
        assert_eq!(w.iter().chain(&b).min(), Some(&smallest), "{id}");
        assert_eq!(l.bucket(&pos), 6, "{id}");
    }
}

#[test]
fn promoted_kinds_are_their_promoted_type() {
    let v = Variant::builtin(VariantId::MINISHOGI);
    let l = FsfLayout::for_variant(v).expect("layout");
    let ord = |sym: char, promoted| l.piece_ordinal(v.kind_by_symbol(sym, promoted).expect("kind"));
    assert_eq!((ord('P', true), ord('S', true), ord('G', false)), (5, 5, 5));
    assert_eq!((ord('B', true), ord('R', true), ord('K', false)), (6, 3, 7));
    let v = Variant::builtin(VariantId::SHINOBI);
    let l = FsfLayout::for_variant(v).expect("layout");
    let ord = |sym: char, promoted| l.piece_ordinal(v.kind_by_symbol(sym, promoted).expect("kind"));
    assert_eq!((ord('P', true), ord('M', true), ord('H', true), ord('L', true)), (10, 2, 1, 3));
}

#[test]
fn every_feature_is_below_dims_and_features_are_distinct() {
    for id in VariantId::ALL {
        let (l, pos) = layout(id);
        for c in Color::ALL {
            let f = sorted(&l, &pos, c);
            assert!(f.iter().all(|&x| (x as usize) < l.dims()), "{id}");
            assert!(f.windows(2).all(|w| w[0] < w[1]), "{id}");
        }
    }
}
