//! On-disk format of quantised networks (all integers little-endian).
//!
//! ```text
//! offset 0   magic          8 bytes  "KAGENNUE"
//! offset 8   format version u32
//! offset 12  body length    u64      bytes after the 28-byte preamble
//! offset 20  checksum       u64      FNV-1a 64 of the body
//! offset 28  body:
//!   variant        u16 length + UTF-8
//!   feature_set_id u32, num_features u32, ft_size u32, head_size u32
//!   activation     u8
//!   output_scale   u32, qa u32, qb u32, qo u32   (quantisation scales, checked)
//!   run_id         u16 length + UTF-8
//!   git_revision   u16 length + UTF-8
//!   config         u32 length + UTF-8 (resolved training config, TOML)
//!   ft_weights     i16 x num_features*ft_size   (row per feature)
//!   ft_bias        i16 x ft_size
//!   l1_weights     i8  x head_size*2*ft_size    (row per hidden neuron, stm half first)
//!   l1_bias        i32 x head_size
//!   out_weights    i16 x head_size
//!   out_bias       i32
//! ```
//! Nothing may follow the body.

use super::error::NetError;
use super::network::{Activation, NetHeader, NetWeights, Network, QA, QB, QO, check_dims};
use crate::util::bytes::{ByteReader, SEALED_PREAMBLE as PREAMBLE, seal};
use crate::util::hash::fnv1a64;

/// File magic.
pub const MAGIC: [u8; 8] = *b"KAGENNUE";
/// Format version written and read by this build.
pub const FORMAT_VERSION: u32 = 1;
const MAX_CONFIG_LEN: u32 = 1 << 20;

/// Largest body the format allows: the strings, the config and the weights of a network of
/// the largest dimensions [`check_dims`] accepts.
const MAX_BODY: u64 = {
    use super::network::{MAX_FEATURES, MAX_FT_SIZE, MAX_HEAD_SIZE};
    let (f, h, k) = (MAX_FEATURES as u64, MAX_FT_SIZE as u64, MAX_HEAD_SIZE as u64);
    let strings = 3 * (2 + u16::MAX as u64) + 4 + MAX_CONFIG_LEN as u64 + 64;
    strings + 2 * f * h + 2 * h + k * 2 * h + 4 * k + 2 * k + 4
};

/// Reads a network file, never more than its preamble declares (and the format allows): a
/// file that is not a network (`/dev/zero`, say) is refused after its first bytes.
pub fn read_file(path: &std::path::Path) -> Result<Vec<u8>, NetError> {
    use std::io::Read;
    // The caller names the file.
    let io = |e: std::io::Error| NetError::Io(e.to_string());
    let mut file = std::fs::File::open(path).map_err(io)?;
    let mut bytes = Vec::with_capacity(PREAMBLE);
    (&mut file).take(PREAMBLE as u64).read_to_end(&mut bytes).map_err(io)?;
    if super::fsf::is_fsf_net(&bytes) {
        // A Fairy-Stockfish-format net: its size is checked against the variant when loaded.
        let cap = crate::util::read::cap::NET;
        file.take(cap + 1 - bytes.len() as u64).read_to_end(&mut bytes).map_err(io)?;
        if bytes.len() as u64 > cap {
            return Err(NetError::Corrupt(format!("Fairy-Stockfish net larger than {cap} bytes")));
        }
        return Ok(bytes);
    }
    let head = &bytes[..bytes.len().min(8)];
    if head != &MAGIC[..head.len()] {
        return Err(NetError::BadMagic { found: head.to_vec() });
    }
    if bytes.len() < PREAMBLE {
        return decode(&bytes).map(|_| bytes); // reports what is truncated
    }
    let body_len = u64::from_le_bytes(bytes[12..20].try_into().expect("8 bytes"));
    if body_len > MAX_BODY {
        return Err(NetError::Corrupt(format!(
            "declared body of {body_len} bytes exceeds the largest network ({MAX_BODY} bytes)"
        )));
    }
    // One byte more than declared, so that trailing bytes are reported by `decode`.
    file.take(body_len + 1).read_to_end(&mut bytes).map_err(io)?;
    Ok(bytes)
}

pub(crate) fn encode(net: &Network) -> Vec<u8> {
    let h = net.header();
    let w = net.weights();
    let mut body = Vec::with_capacity(64 + w.ft_weights.len() * 2 + w.l1_weights.len());
    put_str16(&mut body, &h.variant);
    for v in [h.feature_set_id, h.num_features, h.ft_size, h.head_size] {
        body.extend_from_slice(&v.to_le_bytes());
    }
    body.push(h.activation.code());
    for v in [h.output_scale, QA as u32, QB as u32, QO as u32] {
        body.extend_from_slice(&v.to_le_bytes());
    }
    put_str16(&mut body, &h.run_id);
    put_str16(&mut body, &h.git_revision);
    let config = truncate_utf8(&h.config, MAX_CONFIG_LEN as usize);
    body.extend_from_slice(&(config.len() as u32).to_le_bytes());
    body.extend_from_slice(config.as_bytes());
    w.ft_weights.iter().for_each(|v| body.extend_from_slice(&v.to_le_bytes()));
    w.ft_bias.iter().for_each(|v| body.extend_from_slice(&v.to_le_bytes()));
    w.l1_weights.iter().for_each(|v| body.extend_from_slice(&v.to_le_bytes()));
    w.l1_bias.iter().for_each(|v| body.extend_from_slice(&v.to_le_bytes()));
    w.out_weights.iter().for_each(|v| body.extend_from_slice(&v.to_le_bytes()));
    body.extend_from_slice(&w.out_bias.to_le_bytes());

    seal(&MAGIC, FORMAT_VERSION, &body)
}

pub(crate) fn decode(bytes: &[u8]) -> Result<Network, NetError> {
    let head = &bytes[..bytes.len().min(8)];
    if head != &MAGIC[..head.len()] {
        return Err(NetError::BadMagic { found: head.to_vec() });
    }
    let mut pre = ByteReader::new(bytes);
    pre.take(8, "magic")?;
    let version = pre.u32("format version")?;
    if version != FORMAT_VERSION {
        return Err(NetError::UnsupportedVersion { found: version, supported: FORMAT_VERSION });
    }
    let body_len = pre.u64("body length")?;
    let checksum = pre.u64("checksum")?;
    let available = (bytes.len() - PREAMBLE) as u64;
    if body_len > available {
        return Err(NetError::Truncated { section: "body", needed: body_len, available });
    }
    if body_len < available {
        return Err(NetError::Corrupt(format!(
            "{} trailing bytes after the declared body",
            available - body_len
        )));
    }
    let body = &bytes[PREAMBLE..];
    let actual = fnv1a64(body);
    if actual != checksum {
        return Err(NetError::ChecksumMismatch { expected: checksum, actual });
    }
    parse_body(body)
}

fn parse_body(body: &[u8]) -> Result<Network, NetError> {
    let mut r = ByteReader::new(body);
    let variant = str16(&mut r, "variant")?;
    let feature_set_id = r.u32("feature_set_id")?;
    let num_features = r.u32("num_features")?;
    let ft_size = r.u32("ft_size")?;
    let head_size = r.u32("head_size")?;
    let code = r.u8("activation")?;
    let activation = Activation::from_code(code)
        .ok_or_else(|| NetError::Corrupt(format!("unknown activation code {code}")))?;
    let output_scale = r.u32("output_scale")?;
    let scales = [r.u32("qa")?, r.u32("qb")?, r.u32("qo")?];
    if scales != [QA as u32, QB as u32, QO as u32] {
        return Err(NetError::Corrupt(format!(
            "quantisation scales {scales:?} differ from this build's {:?}",
            [QA, QB, QO]
        )));
    }
    let run_id = str16(&mut r, "run_id")?;
    let git_revision = str16(&mut r, "git_revision")?;
    let config_len = r.u32("config length")?;
    if config_len > MAX_CONFIG_LEN {
        return Err(NetError::Corrupt(format!("config length {config_len} too large")));
    }
    let config = r.utf8(config_len as usize, "config")?.to_owned();
    let header = NetHeader {
        variant,
        feature_set_id,
        num_features,
        ft_size,
        head_size,
        activation,
        output_scale,
        run_id,
        git_revision,
        config,
    };
    check_dims(&header).map_err(|e| NetError::Corrupt(e.to_string()))?;
    let (f, h, k) = (num_features as usize, ft_size as usize, head_size as usize);
    let ft_weights = r.i16s(f * h, "ft_weights")?;
    let ft_bias = r.i16s(h, "ft_bias")?;
    let l1_weights = r.take(k * 2 * h, "l1_weights")?.iter().map(|&b| b as i8).collect();
    let l1_bias = r.i32s(k, "l1_bias")?;
    let out_weights = r.i16s(k, "out_weights")?;
    let out_bias = r.i32s(1, "out_bias")?[0];
    if r.remaining() != 0 {
        return Err(NetError::Corrupt(format!(
            "{} unexpected bytes after the weights",
            r.remaining()
        )));
    }
    let weights = NetWeights { ft_weights, ft_bias, l1_weights, l1_bias, out_weights, out_bias };
    Network::from_parts(header, weights).map_err(|e| NetError::Corrupt(e.to_string()))
}

fn str16(r: &mut ByteReader<'_>, section: &'static str) -> Result<String, NetError> {
    let n = r.u16(section)?;
    Ok(r.utf8(usize::from(n), section)?.to_owned())
}

fn put_str16(out: &mut Vec<u8>, s: &str) {
    let s = truncate_utf8(s, u16::MAX as usize);
    out.extend_from_slice(&(s.len() as u16).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

fn truncate_utf8(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

#[cfg(test)]
mod tests;
