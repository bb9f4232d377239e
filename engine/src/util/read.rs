//! Reading a file the user names without trusting its size: every whole-file read in the
//! workspace goes through [`read_capped`], so `/dev/zero` or a wrong 10 GB file is a clear
//! error instead of exhausted memory.

use std::io::Read;
use std::path::Path;

/// Why [`read_capped`] failed.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The operating system's error.
    #[error("{}: {cause}", path.display())]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// The cause.
        cause: std::io::Error,
    },
    /// The file holds more than the cap.
    #[error("{}: larger than {max} bytes: not a {what}", path.display())]
    TooLarge {
        /// The file.
        path: std::path::PathBuf,
        /// The cap.
        max: u64,
        /// What the file should have been.
        what: &'static str,
    },
    /// A text file that is not UTF-8.
    #[error("{}: not UTF-8 text: not a {what}", path.display())]
    NotUtf8 {
        /// The file.
        path: std::path::PathBuf,
        /// What the file should have been.
        what: &'static str,
    },
}

/// Caps for the kinds of files users name.
pub mod cap {
    /// A text configuration, spec, parameter or opening file.
    pub const TEXT: u64 = 64 << 20;
    /// A network file.
    pub const NET: u64 = 512 << 20;
}

/// The whole file at `path`, refusing one of more than `max` bytes (`what` names what it
/// should be, for the message). Reads at most `max + 1` bytes whatever the file is.
pub fn read_capped(path: &Path, max: u64, what: &'static str) -> Result<Vec<u8>, ReadError> {
    let io = |cause| ReadError::Io { path: path.to_path_buf(), cause };
    let file = std::fs::File::open(path).map_err(io)?;
    let mut bytes = Vec::new();
    file.take(max.saturating_add(1)).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > max {
        return Err(ReadError::TooLarge { path: path.to_path_buf(), max, what });
    }
    Ok(bytes)
}

/// [`read_capped`] for text files.
pub fn read_text_capped(path: &Path, max: u64, what: &'static str) -> Result<String, ReadError> {
    String::from_utf8(read_capped(path, max, what)?)
        .map_err(|_| ReadError::NotUtf8 { path: path.to_path_buf(), what })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endless_file_is_refused_after_the_cap() {
        let e = read_capped(Path::new("/dev/zero"), 1000, "net").unwrap_err();
        assert!(matches!(e, ReadError::TooLarge { max: 1000, .. }), "{e}");
        let t = std::env::temp_dir().join(format!("kage-read-{}", std::process::id()));
        std::fs::write(&t, b"abc").unwrap();
        assert_eq!(read_capped(&t, 3, "x").unwrap(), b"abc");
        assert!(read_capped(&t, 2, "x").is_err());
        std::fs::write(&t, [0xff, 0xfe]).unwrap();
        assert!(matches!(read_text_capped(&t, 10, "x"), Err(ReadError::NotUtf8 { .. })));
        std::fs::remove_file(&t).unwrap();
    }
}
