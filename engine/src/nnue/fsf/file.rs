//! FSF-format net files on disk: read with a size cap, written under FSF's name rule
//! (`<variant>-<first 12 hex digits of the file's sha256>.nnue`, FSF-NNUE.md §7: FSF loads a
//! file only if its base name starts with the variant's name).

use super::{FsfError, FsfLayout, FsfNet};
use crate::util::read::{cap, read_capped};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// `<variant>-<first 12 hex digits of sha256(bytes)>.nnue`.
pub fn net_file_name(variant: &str, bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let hex: String = digest.iter().take(6).map(|b| format!("{b:02x}")).collect();
    format!("{variant}-{hex}.nnue")
}

/// Reads and checks the net at `path` for `layout`'s variant.
pub fn read_net(path: &Path, layout: &FsfLayout) -> Result<FsfNet, FsfError> {
    let bytes =
        read_capped(path, cap::NET, "network file").map_err(|e| FsfError::Io(e.to_string()))?;
    FsfNet::from_bytes(&bytes, layout)
}

/// Writes `net` into `dir` (created if missing) under [`net_file_name`]; returns the path.
/// The net must fit `layout`'s variant.
pub fn write_net(dir: &Path, layout: &FsfLayout, net: &FsfNet) -> Result<PathBuf, FsfError> {
    net.check_shape(layout.dims())?;
    let bytes = net.to_bytes()?;
    let io = |e: std::io::Error| FsfError::Io(format!("{}: {e}", dir.display()));
    std::fs::create_dir_all(dir).map_err(io)?;
    let path = dir.join(net_file_name(layout.variant_name(), &bytes));
    std::fs::write(&path, &bytes).map_err(io)?;
    Ok(path)
}
