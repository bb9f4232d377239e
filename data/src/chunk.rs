//! Chunk framing.
//!
//! After the header the file is a sequence of chunks:
//!
//! ```text
//! offset size
//! 0      4     chunk magic: "KCHK" (records) or "KEND" (end marker)
//! 4      4     payload length L (u32, at most MAX_CHUNK_PAYLOAD)
//! 8      4     record count (u32; 0 for the end marker)
//! 12     4     CRC-32 over bytes 4..12 and the payload
//! 16     L     payload: the records, bincode encoded back to back
//! ```
//!
//! A complete file ends with exactly one end marker whose 8-byte payload is
//! the total number of records written (u64). A file without it is truncated.

/// Magic of a data chunk.
pub const CHUNK_MAGIC: [u8; 4] = *b"KCHK";
/// Magic of the end marker.
pub const END_MAGIC: [u8; 4] = *b"KEND";
/// Size of the chunk header.
pub const CHUNK_HEADER_LEN: usize = 16;
/// Largest payload accepted; anything larger is treated as damage.
pub const MAX_CHUNK_PAYLOAD: u32 = 64 << 20;
/// Payload size at which the writer closes a chunk by default.
pub const DEFAULT_CHUNK_TARGET: usize = 1 << 20;

/// Kind of a chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ChunkType {
    Data,
    End,
}

/// A decoded chunk header.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ChunkHeader {
    pub ty: ChunkType,
    pub len: u32,
    pub count: u32,
    pub crc: u32,
}

impl ChunkHeader {
    /// Parses a chunk header; `Err` gives the reason it is not plausible.
    pub fn parse(b: &[u8; CHUNK_HEADER_LEN]) -> Result<Self, &'static str> {
        let ty = if b[..4] == CHUNK_MAGIC {
            ChunkType::Data
        } else if b[..4] == END_MAGIC {
            ChunkType::End
        } else {
            return Err("bad chunk magic");
        };
        let len = u32::from_le_bytes([b[4], b[5], b[6], b[7]]);
        let count = u32::from_le_bytes([b[8], b[9], b[10], b[11]]);
        let crc = u32::from_le_bytes([b[12], b[13], b[14], b[15]]);
        if len > MAX_CHUNK_PAYLOAD {
            return Err("implausible chunk length");
        }
        match ty {
            ChunkType::End if len != 8 || count != 0 => return Err("malformed end marker"),
            ChunkType::Data if count == 0 || count > len => return Err("implausible record count"),
            _ => {}
        }
        Ok(ChunkHeader { ty, len, count, crc })
    }

    /// Whether `payload` matches the stored checksum.
    pub fn check(&self, payload: &[u8]) -> bool {
        chunk_crc(self.len, self.count, payload) == self.crc
    }
}

/// Checksum of a chunk (covers length, count and payload).
pub(crate) fn chunk_crc(len: u32, count: u32, payload: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(&len.to_le_bytes());
    h.update(&count.to_le_bytes());
    h.update(payload);
    h.finalize()
}

/// Serialises a chunk header.
pub(crate) fn encode_header(magic: [u8; 4], count: u32, payload: &[u8]) -> [u8; CHUNK_HEADER_LEN] {
    let len = payload.len() as u32;
    let mut b = [0u8; CHUNK_HEADER_LEN];
    b[..4].copy_from_slice(&magic);
    b[4..8].copy_from_slice(&len.to_le_bytes());
    b[8..12].copy_from_slice(&count.to_le_bytes());
    b[12..16].copy_from_slice(&chunk_crc(len, count, payload).to_le_bytes());
    b
}
