//! The packed position's bit stream: bit `i` is bit `i % 8` of byte `i / 8` (least
//! significant bit of byte 0 first), and an `n`-bit value is written least significant bit
//! first (FSF-NNUE.md §8.2).

use super::PACKED_BYTES;

/// Bits in a packed position.
pub const PACKED_BITS: usize = 8 * PACKED_BYTES;

/// The stream would run past the 512 bits of a packed position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Overflow;

/// Writes bits into a zeroed 64-byte buffer.
pub struct BitWriter {
    data: [u8; PACKED_BYTES],
    cursor: usize,
}

impl BitWriter {
    /// An empty stream.
    pub fn new() -> Self {
        BitWriter { data: [0; PACKED_BYTES], cursor: 0 }
    }

    /// Appends the low `n` bits of `value`, least significant first.
    pub fn write(&mut self, value: u32, n: u32) -> Result<(), Overflow> {
        if self.cursor + n as usize > PACKED_BITS {
            return Err(Overflow);
        }
        for i in 0..n {
            if value >> i & 1 != 0 {
                self.data[self.cursor / 8] |= 1 << (self.cursor % 8);
            }
            self.cursor += 1;
        }
        Ok(())
    }

    /// The packed bytes.
    pub fn finish(self) -> [u8; PACKED_BYTES] {
        self.data
    }
}

/// Reads bits from a packed position.
pub struct BitReader<'a> {
    data: &'a [u8; PACKED_BYTES],
    cursor: usize,
}

impl<'a> BitReader<'a> {
    /// A stream at the first bit of `data`.
    pub fn new(data: &'a [u8; PACKED_BYTES]) -> Self {
        BitReader { data, cursor: 0 }
    }

    /// The next `n` bits (at most 32) as a value, least significant first.
    pub fn read(&mut self, n: u32) -> Result<u32, Overflow> {
        if self.cursor + n as usize > PACKED_BITS {
            return Err(Overflow);
        }
        let mut value = 0u32;
        for i in 0..n {
            let bit = self.data[self.cursor / 8] >> (self.cursor % 8) & 1;
            value |= u32::from(bit) << i;
            self.cursor += 1;
        }
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_go_least_significant_bit_first() {
        let mut w = BitWriter::new();
        w.write(1, 1).unwrap();
        w.write(0b1011, 4).unwrap();
        w.write(0x1ff, 9).unwrap();
        let bytes = w.finish();
        assert_eq!(bytes[0], 0b1111_0111);
        assert_eq!(bytes[1], 0b0011_1111);
        let mut r = BitReader::new(&bytes);
        assert_eq!(r.read(1), Ok(1));
        assert_eq!(r.read(4), Ok(0b1011));
        assert_eq!(r.read(9), Ok(0x1ff));
        assert_eq!(r.read(PACKED_BITS as u32), Err(Overflow));
    }

    #[test]
    fn the_stream_holds_exactly_512_bits() {
        let mut w = BitWriter::new();
        for _ in 0..16 {
            w.write(u32::MAX, 32).unwrap();
        }
        assert_eq!(w.write(0, 1), Err(Overflow));
        assert_eq!(w.finish(), [0xff; PACKED_BYTES]);
    }
}
