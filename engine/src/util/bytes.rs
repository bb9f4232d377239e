//! A little-endian byte cursor for the workspace's binary formats (network files, trainer
//! checkpoints, data-file headers): each read names the section it is reading, so a short or
//! damaged file is reported with where it ended.

/// Length of the preamble [`seal`] writes.
pub const SEALED_PREAMBLE: usize = 28;

/// The layout of the workspace's checksummed binary files (network files, trainer
/// checkpoints): `magic` (8 bytes), format `version` u32, body length u64, FNV-1a 64 of the
/// body u64, then the body.
pub fn seal(magic: &[u8; 8], version: u32, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(SEALED_PREAMBLE + body.len());
    out.extend_from_slice(magic);
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&(body.len() as u64).to_le_bytes());
    out.extend_from_slice(&crate::util::hash::fnv1a64(body).to_le_bytes());
    out.extend_from_slice(body);
    out
}

/// Why a [`ByteReader`] read failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ByteError {
    /// The bytes end before the section does.
    #[error("truncated: {section} needs {needed} bytes but only {available} remain")]
    Truncated {
        /// The section being read.
        section: &'static str,
        /// Bytes needed.
        needed: u64,
        /// Bytes left.
        available: u64,
    },
    /// A text section is not UTF-8.
    #[error("{section} is not valid UTF-8")]
    NotUtf8 {
        /// The section being read.
        section: &'static str,
    },
}

/// Reads little-endian values from the front of a byte slice.
#[derive(Debug, Clone)]
pub struct ByteReader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> ByteReader<'a> {
    /// A reader at the start of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        ByteReader { bytes, pos: 0 }
    }

    /// Bytes read so far.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    /// The next `n` bytes.
    pub fn take(&mut self, n: usize, section: &'static str) -> Result<&'a [u8], ByteError> {
        let available = self.remaining();
        if n > available {
            return Err(ByteError::Truncated {
                section,
                needed: n as u64,
                available: available as u64,
            });
        }
        let s = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    /// The next `N` bytes as an array.
    pub fn array<const N: usize>(&mut self, section: &'static str) -> Result<[u8; N], ByteError> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N, section)?);
        Ok(a)
    }

    /// A byte.
    pub fn u8(&mut self, section: &'static str) -> Result<u8, ByteError> {
        Ok(self.take(1, section)?[0])
    }

    /// A little-endian `u16`.
    pub fn u16(&mut self, section: &'static str) -> Result<u16, ByteError> {
        self.array(section).map(u16::from_le_bytes)
    }

    /// A little-endian `u32`.
    pub fn u32(&mut self, section: &'static str) -> Result<u32, ByteError> {
        self.array(section).map(u32::from_le_bytes)
    }

    /// A little-endian `u64`.
    pub fn u64(&mut self, section: &'static str) -> Result<u64, ByteError> {
        self.array(section).map(u64::from_le_bytes)
    }

    /// `n` bytes of UTF-8 text.
    pub fn utf8(&mut self, n: usize, section: &'static str) -> Result<&'a str, ByteError> {
        std::str::from_utf8(self.take(n, section)?).map_err(|_| ByteError::NotUtf8 { section })
    }

    /// `n` little-endian `i16`s.
    pub fn i16s(&mut self, n: usize, section: &'static str) -> Result<Vec<i16>, ByteError> {
        let b = self.take(n.saturating_mul(2), section)?;
        Ok(b.chunks_exact(2).map(|c| i16::from_le_bytes([c[0], c[1]])).collect())
    }

    /// `n` little-endian `i32`s.
    pub fn i32s(&mut self, n: usize, section: &'static str) -> Result<Vec<i32>, ByteError> {
        let b = self.take(n.saturating_mul(4), section)?;
        Ok(b.chunks_exact(4).map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
    }

    /// `n` little-endian `f32`s.
    pub fn f32s(&mut self, n: usize, section: &'static str) -> Result<Vec<f32>, ByteError> {
        let b = self.take(n.saturating_mul(4), section)?;
        Ok(b.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_little_endian_and_names_the_short_section() {
        let bytes = [1, 0, 2, 0, 0, 0, b'h', b'i', 0xff, 0xff, 7];
        let mut r = ByteReader::new(&bytes);
        assert_eq!(r.u16("a"), Ok(1));
        assert_eq!(r.u32("b"), Ok(2));
        assert_eq!(r.utf8(2, "c"), Ok("hi"));
        assert_eq!(r.i16s(1, "d"), Ok(vec![-1]));
        assert_eq!((r.position(), r.remaining()), (10, 1));
        assert_eq!(r.u32("e"), Err(ByteError::Truncated { section: "e", needed: 4, available: 1 }));
        assert_eq!(r.u8("f"), Ok(7));
        let mut r = ByteReader::new(&[0xc3, 0x28]);
        assert_eq!(r.utf8(2, "g"), Err(ByteError::NotUtf8 { section: "g" }));
    }
}
