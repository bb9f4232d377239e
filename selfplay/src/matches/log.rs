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
use crate::SelfplayError;
use crate::build::Build;

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

/// An engine whose build changed since its match began.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rebuilt {
    /// The engine's name.
    pub engine: String,
    /// What changed, in words ([`Build::changes_from`]).
    pub changes: String,
}

impl std::fmt::Display for Rebuilt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "engine {:?} changed since the match began ({})", self.engine, self.changes)
    }
}

/// Claims `dir` for the match `identity` played by `builds` (the engines named `names`): a
/// new directory records both in `match.json`; an existing one must hold the same identity,
/// and the same builds unless `allow_rebuilt` (then the notes say what changed). A
/// `match.json` from before builds were recorded is taken as it is.
pub fn claim(
    dir: &Path,
    identity: &serde_json::Value,
    builds: &[Build; 2],
    names: [&str; 2],
    allow_rebuilt: bool,
) -> Result<Vec<String>, MatchError> {
    std::fs::create_dir_all(dir)
        .map_err(|cause| MatchError::CreateDir { dir: dir.to_path_buf(), cause })?;
    let path = dir.join("match.json");
    let Some(have) = read_claim(&path)? else {
        let mut want = identity.clone();
        want["builds"] = serde_json::to_value(builds).map_err(SelfplayError::Json)?;
        let text = serde_json::to_string_pretty(&want).map_err(SelfplayError::Json)? + "\n";
        write_atomic(&path, &text).map_err(|cause| MatchError::WriteClaim { path, cause })?;
        return Ok(Vec::new());
    };
    let mut have: serde_json::Value = serde_json::from_str(&have).unwrap_or_default();
    let recorded = have.as_object_mut().and_then(|o| o.remove("builds"));
    if &have != identity {
        return Err(MatchError::OtherMatch(dir.to_path_buf()));
    }
    let Some(recorded) = recorded else { return Ok(Vec::new()) };
    let then: [Build; 2] = serde_json::from_value(recorded)
        .map_err(|cause| MatchError::DamagedBuilds { path: path.clone(), cause })?;
    let changed: Vec<Rebuilt> = (0..2)
        .filter(|&i| then[i] != builds[i])
        .map(|i| Rebuilt { engine: names[i].into(), changes: builds[i].changes_from(&then[i]) })
        .collect();
    if changed.is_empty() || allow_rebuilt {
        return Ok(changed.iter().map(|c| format!("{c}; its games pool two builds")).collect());
    }
    Err(MatchError::Rebuilt(changed))
}

/// The text of `match.json`, `None` when there is none yet.
fn read_claim(path: &Path) -> Result<Option<String>, MatchError> {
    match kage_engine::util::read::read_text_capped(path, 1 << 24, "match.json") {
        Ok(text) => Ok(Some(text)),
        Err(kage_engine::util::read::ReadError::Io { cause, .. })
            if cause.kind() == std::io::ErrorKind::NotFound =>
        {
            Ok(None)
        }
        Err(e) => Err(MatchError::ReadClaim(e)),
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
        let path = dir.join("games.jsonl");
        let err = |cause| MatchError::Log { path: path.clone(), cause };
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
            let p: PairLine = serde_json::from_str(line).map_err(|cause| {
                MatchError::DamagedLog { path: path.clone(), line: i + 1, cause }
            })?;
            pairs.entry(p.pair).or_insert(p);
        }
        Ok((PairLog { path, file }, pairs))
    }

    /// Appends one pair and syncs it to disk.
    pub fn append(&mut self, p: &PairLine) -> Result<(), MatchError> {
        let mut line = serde_json::to_string(p).map_err(SelfplayError::Json)?;
        line.push('\n');
        self.file
            .write_all(line.as_bytes())
            .and_then(|_| self.file.sync_data())
            .map_err(|e| SelfplayError::io(&self.path, "append", e).into())
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
        let b = [crate::build::this_program(), crate::build::this_program()];
        let c = |id: &serde_json::Value| claim(dir.path(), id, &b, ["a", "b"], false);
        c(&id).unwrap();
        c(&id).unwrap();
        let e = c(&serde_json::json!({"variant": "shinobi"})).unwrap_err();
        assert!(matches!(&e, MatchError::OtherMatch(d) if d == dir.path()), "{e:?}");
        // The same match by another build: refused, or noted with `allow_rebuilt`.
        let mut other = b.clone();
        other[1].id_name = Some("other".into());
        let e = claim(dir.path(), &id, &other, ["a", "b"], false).unwrap_err();
        assert!(
            matches!(&e, MatchError::Rebuilt(r) if r.len() == 1 && r[0].engine == "b"),
            "{e:?}"
        );
        let notes = claim(dir.path(), &id, &other, ["a", "b"], true).unwrap();
        assert!(notes[0].starts_with("engine \"b\" changed") && notes[0].ends_with("two builds"));
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
