//! The record trait and the bincode configuration of chunk payloads.

use bincode::config::{Configuration, Fixint, Limit, LittleEndian, NoLimit};
use bincode::de::{Decoder, read::Reader};
use bincode::error::DecodeError;

use crate::chunk::MAX_CHUNK_PAYLOAD;
use crate::header::RecordKind;

/// Bincode configuration of every chunk payload (fixed-width little-endian
/// integers: measured faster than varint for position records, see
/// BENCHMARKS-data.md). Changing it requires a new format version.
pub const BINCODE_CONFIG: Configuration<LittleEndian, Fixint, NoLimit> =
    bincode::config::standard().with_fixed_int_encoding();

/// [`BINCODE_CONFIG`] with a byte limit, for decoding what a file holds: a record never
/// claims more than a chunk's payload may hold, so a length field that lies (a CRC-valid
/// chunk whose record says its moves number 2^40) is a decode error, never an allocation
/// that aborts the process. The bytes are the same as [`BINCODE_CONFIG`]'s.
pub const DECODE_CONFIG: Configuration<
    LittleEndian,
    Fixint,
    Limit<{ MAX_CHUNK_PAYLOAD as usize }>,
> = BINCODE_CONFIG.with_limit();

/// A record type storable in a kage data file.
pub trait Record: bincode::Encode + bincode::Decode<()> + Sized + Send + 'static {
    /// The kind written in (and required from) the file header.
    const KIND: RecordKind;
    /// The fewest bytes one encoded record takes (bounds what a chunk's record count may
    /// make a reader allocate before decoding).
    const MIN_ENCODED_LEN: usize = 1;
}

/// Elements allocated up front for a decoded sequence; beyond that it grows as elements
/// arrive, so its memory stays within twice the bytes it was decoded from.
const PREALLOC: usize = 256;

/// A `Vec<T>` in bincode's layout (u64 length, then the elements) that allocates no more
/// than the elements actually present need: a lying length runs out of input (or past the
/// decoder's limit) instead of reserving memory for it.
pub(crate) fn decode_vec<T, C, D>(d: &mut D) -> Result<Vec<T>, DecodeError>
where
    T: bincode::Decode<C>,
    D: Decoder<Context = C>,
{
    let len = decode_len(d)?;
    d.claim_container_read::<T>(len)?;
    let mut v = Vec::with_capacity(len.min(PREALLOC));
    for _ in 0..len {
        // Each element claims its own bytes again (as bincode's own Vec decoding does).
        d.unclaim_bytes_read(std::mem::size_of::<T>());
        v.push(T::decode(d)?);
    }
    Ok(v)
}

/// A `String` in bincode's layout (u64 length, then UTF-8 bytes), read in blocks so that a
/// lying length allocates no more than the bytes present.
pub(crate) fn decode_string<D: Decoder>(d: &mut D) -> Result<String, DecodeError> {
    let len = decode_len(d)?;
    d.claim_bytes_read(len)?;
    let mut bytes = Vec::with_capacity(len.min(PREALLOC));
    let mut block = [0u8; 256];
    let mut left = len;
    while left > 0 {
        let n = left.min(block.len());
        d.reader().read(&mut block[..n])?;
        bytes.extend_from_slice(&block[..n]);
        left -= n;
    }
    String::from_utf8(bytes).map_err(|e| DecodeError::Utf8 { inner: e.utf8_error() })
}

fn decode_len<D: Decoder>(d: &mut D) -> Result<usize, DecodeError> {
    let len = <u64 as bincode::Decode<D::Context>>::decode(d)?;
    usize::try_from(len).map_err(|_| DecodeError::OutsideUsizeRange(len))
}
