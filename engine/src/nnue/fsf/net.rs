//! An FSF-format net as plain integer tensors: what the trainer fills in to export and what
//! the evaluators read. Shapes are FSF-NNUE.md §3; [`FsfNet::check_shape`] enforces them.

use super::FsfError;
use super::arch::{BUCKETS, L1, L1_IN, L2, L3};

/// One layer stack (used for one bucket): `1024 → 16 → 32 → 1`, weights row-major
/// `[output][input]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FsfStack {
    /// First hidden layer's biases, `L2` (16).
    pub l1_bias: Vec<i32>,
    /// First hidden layer's weights, `L2 × L1_IN` (16 × 1024).
    pub l1_weights: Vec<i8>,
    /// Second hidden layer's biases, `L3` (32).
    pub l2_bias: Vec<i32>,
    /// Second hidden layer's weights, `L3 × L2` (32 × 16, unpadded: the file pads each row
    /// to 32 with zeros).
    pub l2_weights: Vec<i8>,
    /// The output's bias.
    pub out_bias: i32,
    /// The output's weights, `L3` (32).
    pub out_weights: Vec<i8>,
}

/// A whole FSF-format net for a variant with `dims` input features.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FsfNet {
    /// The description stored in the header (FSF never interprets it; kage-train writes
    /// [`kage_description`] there).
    pub description: Vec<u8>,
    /// Feature-transformer biases, `L1` (512).
    pub ft_bias: Vec<i16>,
    /// Feature-transformer weights, feature-major: `dims × L1`.
    pub ft_weights: Vec<i16>,
    /// PSQT weights, feature-major: `dims × BUCKETS` (bucket 0 first).
    pub psqt: Vec<i32>,
    /// The layer stacks, `BUCKETS` (8), stack `b` for bucket `b`.
    pub stacks: Vec<FsfStack>,
}

/// The description kage-train writes into the nets it exports: its run id and git revision.
pub fn kage_description(run_id: &str, git_revision: &str) -> String {
    format!("kage-train run {run_id} (git {git_revision})")
}

impl FsfNet {
    /// The run id and git revision of a net kage-train exported (read back from its
    /// [`kage_description`]); `None` for any other description.
    pub fn kage_run(&self) -> Option<(String, String)> {
        let text = std::str::from_utf8(&self.description).ok()?;
        let (id, rest) = text.strip_prefix("kage-train run ")?.split_once(" (git ")?;
        Some((id.to_string(), rest.strip_suffix(')')?.to_string()))
    }
}

fn shape(what: &'static str, found: usize, expected: usize) -> Result<(), FsfError> {
    if found == expected { Ok(()) } else { Err(FsfError::Shape { what, found, expected }) }
}

impl FsfStack {
    /// Every tensor has its architecture length.
    pub fn check_shape(&self) -> Result<(), FsfError> {
        shape("l1_bias", self.l1_bias.len(), L2)?;
        shape("l1_weights", self.l1_weights.len(), L2 * L1_IN)?;
        shape("l2_bias", self.l2_bias.len(), L3)?;
        shape("l2_weights", self.l2_weights.len(), L3 * L2)?;
        shape("out_weights", self.out_weights.len(), L3)
    }
}

impl FsfNet {
    /// The number of input features (the FT weights' rows).
    pub fn dims(&self) -> usize {
        self.ft_weights.len() / L1
    }

    /// Every tensor has its architecture length for `dims` input features.
    pub fn check_shape(&self, dims: usize) -> Result<(), FsfError> {
        shape("ft_bias", self.ft_bias.len(), L1)?;
        shape("ft_weights", self.ft_weights.len(), dims * L1)?;
        shape("psqt", self.psqt.len(), dims * BUCKETS)?;
        shape("stacks", self.stacks.len(), BUCKETS)?;
        self.stacks.iter().try_for_each(FsfStack::check_shape)
    }

    /// The FT weight row of feature `f`.
    #[inline(always)]
    pub fn ft_row(&self, f: u32) -> &[i16] {
        let f = f as usize * L1;
        &self.ft_weights[f..f + L1]
    }

    /// The PSQT row of feature `f`.
    #[inline(always)]
    pub fn psqt_row(&self, f: u32) -> &[i32] {
        let f = f as usize * BUCKETS;
        &self.psqt[f..f + BUCKETS]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kage_run_reads_back_what_kage_description_writes() {
        let net = |d: &str| FsfNet {
            description: d.as_bytes().to_vec(),
            ft_bias: Vec::new(),
            ft_weights: Vec::new(),
            psqt: Vec::new(),
            stacks: Vec::new(),
        };
        let run = net(&kage_description("93bcdffa42e38dc0", "9840f711"));
        assert_eq!(run.kage_run(), Some(("93bcdffa42e38dc0".into(), "9840f711".into())));
        for other in ["Features=HalfKAv2(Friend)[41024->512x2]", "kage-train run x", ""] {
            assert_eq!(net(other).kage_run(), None, "{other}");
        }
    }
}
