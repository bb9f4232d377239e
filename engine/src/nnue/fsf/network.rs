//! An FSF-format net ready for the search: the checked tensors, the variant's layout and the
//! two hidden layers' weights prepared for the SIMD dot products.

use super::arch::{BUCKETS, L1_IN, L2, L3, PAWN_VALUE};
use super::{FsfError, FsfLayout, FsfNet};
use crate::nnue::simd::HeadWeights;
use crate::variant::Variant;

/// A loaded FSF-format net for one variant (shared between searchers).
#[derive(Debug)]
pub struct FsfNetwork {
    layout: FsfLayout,
    net: FsfNet,
    l1: Vec<HeadWeights>,
    l2: Vec<HeadWeights>,
    /// FSF's name for the file it was loaded from (`<variant>-<12 hex digits of sha256>.nnue`),
    /// when it was loaded from a file's bytes.
    file_name: Option<String>,
}

impl FsfNetwork {
    /// Wraps checked tensors for `layout`'s variant.
    pub fn new(layout: FsfLayout, net: FsfNet) -> Result<FsfNetwork, FsfError> {
        net.check_shape(layout.dims())?;
        let l1 = (0..BUCKETS)
            .map(|b| HeadWeights::new(net.stacks[b].l1_weights.clone(), L1_IN, L2))
            .collect();
        let l2 = (0..BUCKETS)
            .map(|b| HeadWeights::new(net.stacks[b].l2_weights.clone(), L2, L3))
            .collect();
        Ok(FsfNetwork { layout, net, l1, l2, file_name: None })
    }

    /// Parses a file's bytes for `variant` (every check of [`FsfNet::from_bytes`]).
    pub fn load(bytes: &[u8], variant: &Variant) -> Result<FsfNetwork, FsfError> {
        let layout = FsfLayout::for_variant(variant)?;
        let net = FsfNet::from_bytes(bytes, &layout)?;
        let file_name = Some(super::net_file_name(layout.variant_name(), bytes));
        Ok(FsfNetwork { file_name, ..FsfNetwork::new(layout, net)? })
    }

    /// FSF's name for the file the net was loaded from (`<variant>-<12 hex digits of its
    /// sha256>.nnue`, whatever the file was called): how a WDL file names the net it was fitted
    /// for. `None` for a net built in memory.
    pub fn file_name(&self) -> Option<&str> {
        self.file_name.as_deref()
    }

    /// The feature layout (its variant's).
    pub fn layout(&self) -> &FsfLayout {
        &self.layout
    }

    /// The tensors.
    pub fn net(&self) -> &FsfNet {
        &self.net
    }

    /// Stack `b`'s first layer, prepared for [`crate::nnue::simd::dots`].
    pub fn l1(&self, b: usize) -> &HeadWeights {
        &self.l1[b]
    }

    /// Stack `b`'s second layer, prepared for [`crate::nnue::simd::dots`].
    pub fn l2(&self, b: usize) -> &HeadWeights {
        &self.l2[b]
    }

    /// Whether the net's layout is `variant`'s (same name, pieces and board).
    pub fn fits(&self, variant: &Variant) -> bool {
        FsfLayout::for_variant(variant).is_ok_and(|l| l == self.layout)
    }

    /// A short description for `info string` lines.
    pub fn describe(&self) -> String {
        format!(
            "Fairy-Stockfish NNUE net for {} ({} features, HalfKAv2_variants 512x2-16-32-1)",
            self.layout.variant_name(),
            self.layout.dims()
        )
    }
}

/// FSF internal units (208 = a pawn) to kage's centipawns, truncating like FSF's UCI `cp`.
pub fn to_centipawns(v: i32) -> i32 {
    v * 100 / PAWN_VALUE
}
