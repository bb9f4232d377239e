//! The record trait and the bincode configuration of chunk payloads.

use bincode::config::{Configuration, Fixint, LittleEndian, NoLimit};

use crate::header::RecordKind;

/// Bincode configuration of every chunk payload (fixed-width little-endian
/// integers: measured faster than varint for position records, see
/// BENCHMARKS-data.md). Changing it requires a new format version.
pub const BINCODE_CONFIG: Configuration<LittleEndian, Fixint, NoLimit> =
    bincode::config::standard().with_fixed_int_encoding();

/// A record type storable in a kage data file.
pub trait Record: bincode::Encode + bincode::Decode<()> + Sized + Send + 'static {
    /// The kind written in (and required from) the file header.
    const KIND: RecordKind;
}
