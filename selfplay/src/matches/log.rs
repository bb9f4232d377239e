//! The match directory: `match.json` (what the match is, checked on resume), `games.jsonl`
//! (one line per finished game pair, appended and synced, so an interrupted match resumes
//! where it stopped), and the files rewritten at the end (`games.pgn`, `summary.json`).

use super::runner::MatchError;
use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::game::GameRecord;

/// One finished game pair.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairLine {
    /// Pair index (opening index).
    pub pair: u64,
    /// The game with the first engine as White, then the one with it as Black.
    pub games: [GameRecord; 2],
}

/// Writes `text` to `path` through a synced temporary file of this process's own
/// (`<name>.<pid>.tmp`: two processes never share one) and a rename.
pub fn write_atomic(path: &Path, text: &str) -> std::io::Result<()> {
    let mut name = path.as_os_str().to_owned();
    name.push(format!(".{}.tmp", std::process::id()));
    let tmp = PathBuf::from(name);
    std::fs::write(&tmp, text)?;
    kage_data::atomic::persist(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

/// Claims `dir` for the match `identity`: a new directory records it; an existing one must
/// hold the same identity.
pub fn claim(dir: &Path, identity: &serde_json::Value) -> Result<(), MatchError> {
    claim_msg(dir, identity).map_err(MatchError::Output)
}

fn claim_msg(dir: &Path, identity: &serde_json::Value) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let path = dir.join("match.json");
    let want = serde_json::to_string_pretty(identity).map_err(|e| e.to_string())? + "\n";
    match std::fs::read_to_string(&path) {
        Ok(have) => {
            let same =
                serde_json::from_str::<serde_json::Value>(&have).ok().as_ref() == Some(identity);
            if same {
                Ok(())
            } else {
                Err(format!(
                    "{} holds another match (its match.json differs: other engines, limits, \
                     openings, seed or variant); use another --out",
                    dir.display()
                ))
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            write_atomic(&path, &want).map_err(|e| format!("cannot write {}: {e}", path.display()))
        }
        Err(e) => Err(format!("cannot read {}: {e}", path.display())),
    }
}

/// The append-only pair log.
pub struct PairLog {
    path: PathBuf,
    file: File,
}

impl PairLog {
    /// Opens (or creates) `dir/games.jsonl`, returns it with the pairs it holds. A torn last
    /// line (a crash mid-write) is cut off; a damaged line elsewhere is an error.
    pub fn open(dir: &Path) -> Result<(PairLog, BTreeMap<u64, PairLine>), MatchError> {
        PairLog::open_msg(dir).map_err(MatchError::Output)
    }

    fn open_msg(dir: &Path) -> Result<(PairLog, BTreeMap<u64, PairLine>), String> {
        let path = dir.join("games.jsonl");
        let err = |e: std::io::Error| format!("{}: {e}", path.display());
        let mut file =
            OpenOptions::new().read(true).append(true).create(true).open(&path).map_err(err)?;
        let mut text = String::new();
        file.read_to_string(&mut text).map_err(err)?;
        let complete = text.rfind('\n').map_or(0, |i| i + 1);
        if complete < text.len() {
            file.set_len(complete as u64).map_err(err)?;
            file.seek(SeekFrom::End(0)).map_err(err)?;
        }
        let mut pairs = BTreeMap::new();
        for (i, line) in text[..complete].lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let p: PairLine = serde_json::from_str(line)
                .map_err(|e| format!("{} line {}: damaged: {e}", path.display(), i + 1))?;
            pairs.entry(p.pair).or_insert(p);
        }
        Ok((PairLog { path, file }, pairs))
    }

    /// Appends one pair and syncs it to disk.
    pub fn append(&mut self, p: &PairLine) -> Result<(), MatchError> {
        let mut line = serde_json::to_string(p).map_err(|e| MatchError::Output(e.to_string()))?;
        line.push('\n');
        self.file
            .write_all(line.as_bytes())
            .and_then(|_| self.file.sync_data())
            .map_err(|e| MatchError::Output(format!("{}: {e}", self.path.display())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(result: &str) -> GameRecord {
        GameRecord {
            first_white: true,
            white: "a".into(),
            black: "b".into(),
            start_fen: "x".into(),
            book: 0,
            moves: vec![],
            scores: vec![],
            ms: vec![],
            result: result.into(),
            termination: "checkmate".into(),
        }
    }

    #[test]
    fn log_survives_a_torn_line_and_claims_check_identity() {
        let dir = tempfile::tempdir().unwrap();
        let id = serde_json::json!({"variant": "minishogi"});
        claim(dir.path(), &id).unwrap();
        claim(dir.path(), &id).unwrap();
        assert!(claim(dir.path(), &serde_json::json!({"variant": "shinobi"})).is_err());
        let (mut log, pairs) = PairLog::open(dir.path()).unwrap();
        assert!(pairs.is_empty());
        let p = PairLine { pair: 3, games: [rec("1-0"), rec("0-1")] };
        log.append(&p).unwrap();
        drop(log);
        // A crash mid-write leaves half a line.
        let path = dir.path().join("games.jsonl");
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"pair\": 4, \"gam").unwrap();
        drop(f);
        let (mut log, pairs) = PairLog::open(dir.path()).unwrap();
        assert_eq!(pairs.len(), 1);
        assert_eq!(pairs[&3], p);
        log.append(&PairLine { pair: 4, ..p.clone() }).unwrap();
        let (_, pairs) = PairLog::open(dir.path()).unwrap();
        assert_eq!(pairs.keys().copied().collect::<Vec<_>>(), vec![3, 4]);
    }
}
