//! Content ids: a step is addressed by the SHA-256 of its kind, its configuration and its
//! predecessors' ids, and its seed is derived from that id.
//!
//! The hashed text is, byte for byte:
//!
//! ```text
//! kage-pipeline-step-v1\n
//! kind=<kind>\n
//! config=<the configuration as compact JSON (serde_json, fields in declaration order)>\n
//! pred=<64 hex digits>\n        one line per predecessor, in the step's order
//! ```
//!
//! Changing a setting of a step changes its id, hence the ids of every step that names it
//! as a predecessor, and so on down the graph; steps that do not descend from it keep theirs.
//! The `v1` tag is raised whenever the hashed form of any step changes.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use sha2::{Digest, Sha256};

/// The version tag at the start of every hashed step text.
const STEP_TAG: &str = "kage-pipeline-step-v1";

/// A SHA-256 content hash: of a step (its id) or of a file (an input).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ContentId([u8; 32]);

impl ContentId {
    /// The SHA-256 of `bytes` (a file's content, for inputs from outside the plan).
    pub fn of_bytes(bytes: &[u8]) -> Self {
        ContentId(Sha256::digest(bytes).into())
    }

    /// The id of a step of kind `kind` with configuration `config_json` (compact JSON) and
    /// the predecessors `preds`, as the module documentation describes.
    pub fn of_step(kind: &str, config_json: &str, preds: &[ContentId]) -> Self {
        let mut h = Sha256::new();
        h.update(format!("{STEP_TAG}\nkind={kind}\nconfig={config_json}\n"));
        for p in preds {
            h.update(format!("pred={p}\n"));
        }
        ContentId(h.finalize().into())
    }

    /// The seed of the step with this id: the first 8 bytes of SHA-256("seed\n" + hex id),
    /// little-endian, with the top bit cleared so that it fits a TOML integer (i64).
    pub fn seed(&self) -> u64 {
        let d = Sha256::digest(format!("seed\n{self}"));
        let mut b = [0u8; 8];
        b.copy_from_slice(&d[..8]);
        u64::from_le_bytes(b) & (i64::MAX as u64)
    }

    /// The first 12 hex digits: enough to name a step's directory.
    pub fn short(&self) -> String {
        self.to_string()[..12].to_string()
    }

    /// Parses 64 hex digits.
    pub fn from_hex(s: &str) -> Option<Self> {
        if s.len() != 64 || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let mut out = [0u8; 32];
        for (i, byte) in out.iter_mut().enumerate() {
            *byte = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).ok()?;
        }
        Some(ContentId(out))
    }
}

impl fmt::Display for ContentId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

impl fmt::Debug for ContentId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ContentId({})", self.short())
    }
}

impl Serialize for ContentId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl<'de> Deserialize<'de> for ContentId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        ContentId::from_hex(&s)
            .ok_or_else(|| serde::de::Error::custom(format!("not a 64-digit hex hash: {s:?}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_digest_and_hex_round_trip() {
        let id = ContentId::of_bytes(b"abc");
        assert_eq!(
            id.to_string(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(ContentId::from_hex(&id.to_string()), Some(id));
        assert_eq!(ContentId::from_hex("ab"), None);
        assert_eq!(id.short(), "ba7816bf8f01");
    }

    #[test]
    fn step_ids_depend_on_every_part() {
        let p = ContentId::of_bytes(b"p");
        let base = ContentId::of_step("train", "{}", &[p]);
        assert_ne!(base, ContentId::of_step("gate", "{}", &[p]));
        assert_ne!(base, ContentId::of_step("train", "{\"a\":1}", &[p]));
        assert_ne!(base, ContentId::of_step("train", "{}", &[]));
        assert_eq!(base, ContentId::of_step("train", "{}", &[p]));
        assert!(base.seed() <= i64::MAX as u64);
    }
}
