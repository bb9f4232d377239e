//! FSF's net file, byte by byte (FSF-NNUE.md §3): reading with every check FSF makes
//! (`src/nnue/evaluate_nnue.cpp:94-127`) plus the size check FSF lacks (§6), and writing.

use super::arch::{
    BUCKETS, FT_HASH, L1, L1_IN, L2, L2_PADDED, L3, NETWORK_HASH, STACK_HASH, VERSION,
};
use super::{FsfError, FsfLayout, FsfNet, FsfStack};
use crate::variant::{Variant, VariantId};

/// Whether `bytes` starts with FSF's version word (how `EvalFile` tells the formats apart).
pub fn is_fsf_net(bytes: &[u8]) -> bool {
    bytes.get(..4) == Some(&VERSION.to_le_bytes()[..])
}

/// A little-endian cursor over bytes whose total length was checked first.
struct Cursor<'a>(&'a [u8]);

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> &'a [u8] {
        let (head, tail) = self.0.split_at(n);
        self.0 = tail;
        head
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.take(4).try_into().expect("4 bytes"))
    }
    fn i32s(&mut self, n: usize) -> Vec<i32> {
        self.take(4 * n)
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }
    fn i16s(&mut self, n: usize) -> Vec<i16> {
        self.take(2 * n).chunks_exact(2).map(|c| i16::from_le_bytes([c[0], c[1]])).collect()
    }
    fn i8s(&mut self, n: usize) -> Vec<i8> {
        self.take(n).iter().map(|&b| b as i8).collect()
    }
    fn hash(&mut self, what: &str, expected: u32) -> Result<(), FsfError> {
        let found = self.u32();
        if found == expected {
            Ok(())
        } else {
            Err(FsfError::Hash { what: what.to_string(), found, expected })
        }
    }
}

/// The built-in variant (if any) whose net, with a `desc`-byte description, is `len` bytes.
fn size_match(len: usize, desc: usize) -> Option<VariantId> {
    VariantId::ALL.into_iter().find(|&id| {
        FsfLayout::for_variant(Variant::builtin(id)).is_ok_and(|l| l.file_size(desc) == len)
    })
}

/// The header's description length, after the version and network-hash checks.
fn read_header(bytes: &[u8]) -> Result<usize, FsfError> {
    if bytes.len() < 12 {
        return Err(FsfError::Truncated { len: bytes.len(), needed: 12 });
    }
    let mut c = Cursor(bytes);
    let found = c.u32();
    if found != VERSION {
        return Err(FsfError::Version { found, expected: VERSION });
    }
    c.hash("network", NETWORK_HASH)?;
    Ok(c.u32() as usize)
}

/// Which built-in variant a net of these bytes fits by its size, if one.
pub fn guess_variant(bytes: &[u8]) -> Result<Option<VariantId>, FsfError> {
    let desc = read_header(bytes)?;
    Ok(size_match(bytes.len(), desc))
}

impl FsfNet {
    /// Parses and checks a net for `layout`'s variant: version, hashes, exactly the
    /// variant's size (a wrong size names the variant it fits, if any), nothing after it.
    pub fn from_bytes(bytes: &[u8], layout: &FsfLayout) -> Result<FsfNet, FsfError> {
        let desc = read_header(bytes)?;
        let expected = layout.file_size(desc);
        if bytes.len() != expected {
            let matches = match size_match(bytes.len(), desc) {
                Some(id) => format!(" (the size of a {id} net)"),
                None => String::new(),
            };
            return Err(FsfError::Size {
                variant: layout.variant_name().to_string(),
                expected,
                dims: layout.dims(),
                desc,
                found: bytes.len(),
                matches,
            });
        }
        let mut c = Cursor(&bytes[12..]);
        let description = c.take(desc).to_vec();
        c.hash("feature transformer", FT_HASH)?;
        let dims = layout.dims();
        let ft_bias = c.i16s(L1);
        let ft_weights = c.i16s(dims * L1);
        let psqt = c.i32s(dims * BUCKETS);
        let mut stacks = Vec::with_capacity(BUCKETS);
        for b in 0..BUCKETS {
            c.hash(&format!("layer stack {b}"), STACK_HASH)?;
            stacks.push(read_stack(&mut c));
        }
        debug_assert!(c.0.is_empty(), "the size check leaves nothing after stack 7");
        Ok(FsfNet { description, ft_bias, ft_weights, psqt, stacks })
    }

    /// The file's bytes (FSF-NNUE.md §10): the caller's tensors, checked for shape first.
    pub fn to_bytes(&self) -> Result<Vec<u8>, FsfError> {
        self.check_shape(self.dims())?;
        let desc = u32::try_from(self.description.len()).map_err(|_| FsfError::Shape {
            what: "description",
            found: self.description.len(),
            expected: u32::MAX as usize,
        })?;
        let mut out = Vec::with_capacity(super::arch::file_size(self.dims(), desc as usize));
        for w in [VERSION, NETWORK_HASH, desc] {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out.extend_from_slice(&self.description);
        out.extend_from_slice(&FT_HASH.to_le_bytes());
        self.ft_bias
            .iter()
            .chain(&self.ft_weights)
            .for_each(|v| out.extend_from_slice(&v.to_le_bytes()));
        self.psqt.iter().for_each(|v| out.extend_from_slice(&v.to_le_bytes()));
        self.stacks.iter().for_each(|s| write_stack(s, &mut out));
        Ok(out)
    }
}

fn read_stack(c: &mut Cursor<'_>) -> FsfStack {
    let l1_bias = c.i32s(L2);
    let l1_weights = c.i8s(L2 * L1_IN);
    let l2_bias = c.i32s(L3);
    let padded = c.i8s(L3 * L2_PADDED);
    let l2_weights = padded.chunks_exact(L2_PADDED).flat_map(|row| row[..L2].to_vec()).collect();
    let out_bias = c.i32s(1)[0];
    let out_weights = c.i8s(L3);
    FsfStack { l1_bias, l1_weights, l2_bias, l2_weights, out_bias, out_weights }
}

fn write_stack(s: &FsfStack, out: &mut Vec<u8>) {
    let i32s = |v: &[i32], out: &mut Vec<u8>| {
        v.iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes()))
    };
    let i8s = |v: &[i8], out: &mut Vec<u8>| out.extend(v.iter().map(|&x| x as u8));
    out.extend_from_slice(&STACK_HASH.to_le_bytes());
    i32s(&s.l1_bias, out);
    i8s(&s.l1_weights, out);
    i32s(&s.l2_bias, out);
    for row in s.l2_weights.chunks_exact(L2) {
        i8s(row, out);
        out.extend(std::iter::repeat_n(0u8, L2_PADDED - L2));
    }
    i32s(&[s.out_bias], out);
    i8s(&s.out_weights, out);
}
