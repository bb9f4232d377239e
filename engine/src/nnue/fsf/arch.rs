//! The fixed shape of FSF's NNUE architecture (FSF-NNUE.md §2, §3.3): only the number of
//! input features depends on the variant.

/// The file's first word (`src/nnue/nnue_common.h:51`).
pub const VERSION: u32 = 0x7AF3_2F20;
/// The header's network hash: feature-transformer hash XOR stack hash
/// (`src/nnue/evaluate_nnue.h:91-92`).
pub const NETWORK_HASH: u32 = FT_HASH ^ STACK_HASH;
/// The HalfKAv2_variants feature set's hash (`features/half_ka_v2_variants.h:55`).
pub const FEATURE_SET_HASH: u32 = 0x5F23_4CB8;
/// The feature transformer's hash: feature-set hash XOR 2·L1
/// (`nnue_feature_transformer.h:193-195`).
pub const FT_HASH: u32 = FEATURE_SET_HASH ^ (2 * L1 as u32);
/// Each layer stack's hash (input slice, affine 16, ClippedReLU, affine 32, ClippedReLU,
/// affine 1: FSF-NNUE.md §3.3).
pub const STACK_HASH: u32 = stack_hash();

/// Feature-transformer outputs per perspective.
pub const L1: usize = 512;
/// First hidden layer's outputs.
pub const L2: usize = 16;
/// Second hidden layer's outputs.
pub const L3: usize = 32;
/// Inputs of the first hidden layer (both perspectives).
pub const L1_IN: usize = 2 * L1;
/// Rows of the second hidden layer are padded to this many inputs in the file.
pub const L2_PADDED: usize = 32;
/// PSQT buckets and layer stacks.
pub const BUCKETS: usize = 8;
/// The stack output and PSQT are divided by this (`nnue_common.h:54`).
pub const OUTPUT_SCALE: i32 = 16;
/// Hidden layers shift their sums right by this (`nnue_common.h:55`).
pub const WEIGHT_SCALE_BITS: u32 = 6;
/// Activations are clamped to 0..=this.
pub const CLAMP_MAX: i32 = 127;
/// FSF's internal units per pawn (PawnValueEg; UCI cp = v·100/208, `src/uci.cpp:444-445`).
pub const PAWN_VALUE: i32 = 208;

/// Bytes of one layer stack in the file (FSF-NNUE.md §3.2).
pub const STACK_BYTES: usize = 4 + 4 * L2 + L2 * L1_IN + 4 * L3 + L3 * L2_PADDED + 4 + L3;
/// Bytes of a file with an empty description and no features: 142,160 (FSF-NNUE.md §3.2).
pub const FIXED_BYTES: usize = 12 + 4 + 2 * L1 + BUCKETS * STACK_BYTES;
/// Bytes per input feature: an i16 row of L1 and an i32 PSQT row of BUCKETS.
pub const BYTES_PER_FEATURE: usize = 2 * L1 + 4 * BUCKETS;

/// The size of a net file with `dims` input features and a `desc_len`-byte description.
pub const fn file_size(dims: usize, desc_len: usize) -> usize {
    FIXED_BYTES + desc_len + BYTES_PER_FEATURE * dims
}

const fn affine_hash(prev: u32, out: u32) -> u32 {
    0xCC03_DAE4u32.wrapping_add(out) ^ (prev >> 1) ^ (prev << 31)
}

const fn clipped_relu_hash(prev: u32) -> u32 {
    prev.wrapping_add(0x538D_24C7)
}

const fn stack_hash() -> u32 {
    let input_slice = 0xEC42_E90D ^ (L1_IN as u32);
    let h1 = clipped_relu_hash(affine_hash(input_slice, L2 as u32));
    let h2 = clipped_relu_hash(affine_hash(h1, L3 as u32));
    affine_hash(h2, 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_and_sizes_are_the_documented_ones() {
        assert_eq!(FT_HASH, 0x5F23_48B8);
        assert_eq!(STACK_HASH, 0x6333_76CA);
        assert_eq!(NETWORK_HASH, 0x3C10_3E72);
        assert_eq!(STACK_BYTES, 17_640);
        assert_eq!(FIXED_BYTES, 142_160);
        assert_eq!(file_size(12_875, 0), 13_738_160);
        assert_eq!(file_size(126_976, 80), 134_228_896);
    }
}
