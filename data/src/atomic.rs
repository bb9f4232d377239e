//! Atomic file writes for the whole workspace: a file is written under a temporary name
//! (`<name>.tmp` for a streamed file, one of its own for [`write_atomic`]), synced, then
//! renamed over `<name>` and the directory synced, so `<name>` only ever exists complete, even
//! across a crash.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The temporary name a file is written under: `<name>.tmp`.
pub fn tmp_path(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".tmp");
    PathBuf::from(s)
}

/// Writes `bytes` to `path` atomically (see the module documentation). The temporary name is
/// this write's own (`<name>.<pid>-<n>.tmp`), so that processes writing the same file at once
/// (batch jobs of one run) never rename each other's temporary away: the last rename wins.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    static COUNT: AtomicU64 = AtomicU64::new(0);
    let mut tmp = path.as_os_str().to_owned();
    let n = COUNT.fetch_add(1, Ordering::Relaxed);
    tmp.push(format!(".{}-{n}.tmp", std::process::id()));
    let tmp = PathBuf::from(tmp);
    let written = File::create(&tmp).and_then(|mut f| {
        f.write_all(bytes)?;
        f.sync_all()
    });
    match written.and_then(|()| rename_durably(&tmp, path)) {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(e)
        }
    }
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
        let names = std::fs::read_dir(dir.path()).expect("dir").count();
        assert_eq!(names, 1, "no temporary left beside the file");
        std::fs::write(tmp_path(&path), b"three").expect("tmp");
        persist(&tmp_path(&path), &path).expect("persist");
        assert_eq!(std::fs::read(&path).expect("read"), b"three");
        assert!(!tmp_path(&path).exists());
    }

    #[test]
    fn writers_of_one_file_at_once_all_succeed_and_leave_one_whole_file() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("state.json");
        let texts: Vec<Vec<u8>> = (0..8).map(|i| vec![b'a' + i; 4096]).collect();
        std::thread::scope(|s| {
            for t in &texts {
                let path = &path;
                s.spawn(move || {
                    for _ in 0..50 {
                        write_atomic(path, t).expect("a concurrent write succeeds");
                    }
                });
            }
        });
        let got = std::fs::read(&path).expect("read");
        assert!(texts.contains(&got), "one writer's whole text");
        assert_eq!(std::fs::read_dir(dir.path()).expect("dir").count(), 1);
    }
}
