//! Atomic file writes for the whole workspace: a file is written under `<name>.tmp`, synced,
//! then renamed over `<name>` and the directory synced, so `<name>` only ever exists
//! complete, even across a crash.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The temporary name a file is written under: `<name>.tmp`.
pub fn tmp_path(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".tmp");
    PathBuf::from(s)
}

/// Writes `bytes` to `path` atomically (see the module documentation).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = tmp_path(path);
    let mut f = File::create(&tmp)?;
    f.write_all(bytes)?;
    f.sync_all()?;
    drop(f);
    rename_durably(&tmp, path)
}

/// Moves a completely written temporary file `tmp` to `path`: syncs its data, renames it
/// and syncs the directory.
pub fn persist(tmp: &Path, path: &Path) -> std::io::Result<()> {
    File::open(tmp)?.sync_all()?;
    rename_durably(tmp, path)
}

fn rename_durably(tmp: &Path, path: &Path) -> std::io::Result<()> {
    std::fs::rename(tmp, path)?;
    if let Some(dir) = path.parent() {
        // Make the rename itself durable; not every platform can sync a directory, so a
        // failure here is not an error.
        let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_the_file_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("a.json");
        write_atomic(&path, b"one").expect("write");
        write_atomic(&path, b"two").expect("rewrite");
        assert_eq!(std::fs::read(&path).expect("read"), b"two");
        assert!(!tmp_path(&path).exists());
        std::fs::write(tmp_path(&path), b"three").expect("tmp");
        persist(&tmp_path(&path), &path).expect("persist");
        assert_eq!(std::fs::read(&path).expect("read"), b"three");
        assert!(!tmp_path(&path).exists());
    }
}
