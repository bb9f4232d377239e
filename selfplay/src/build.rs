//! What a player is built from: for the built-in player, this program (kage's git revision
//! and a hash of the running executable); for an outside engine, a hash of its program file
//! and the `id name` it gives. A self-play run directory records it in `build.json`, a match
//! in its `match.json`; a resume with another build is refused (or, when asked, said), so a
//! run never pools two builds silently. None of it is part of a run's config: the output
//! of a config stays the same bytes.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

/// The build of a player.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Build {
    /// The program: `kage-selfplay` (the built-in player) or the outside engine's command.
    pub program: String,
    /// FNV-1a 64 of the program file, hex; `None` when the file cannot be found or read.
    pub program_hash: Option<String>,
    /// kage's git revision (the built-in player).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_revision: Option<String>,
    /// The `id name` an outside engine gave.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id_name: Option<String>,
}

impl Build {
    /// What differs from `earlier`, for a message (empty when nothing does).
    pub fn changes_from(&self, earlier: &Build) -> String {
        let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "unknown".into());
        let mut parts = Vec::new();
        for (what, was, now) in [
            ("program hash", &earlier.program_hash, &self.program_hash),
            ("git revision", &earlier.git_revision, &self.git_revision),
            ("id name", &earlier.id_name, &self.id_name),
        ] {
            if was != now {
                parts.push(format!("{what} {} then, {} now", show(was), show(now)));
            }
        }
        if earlier.program != self.program {
            parts.push(format!("program {} then, {} now", earlier.program, self.program));
        }
        parts.join("; ")
    }
}

/// FNV-1a 64 of a file's bytes, hex (as [`crate::player::file_hash`]; the file is read
/// whole).
pub fn hash_file(path: &Path) -> std::io::Result<String> {
    Ok(crate::player::file_hash(&std::fs::read(path)?))
}

/// This program (the built-in player), computed once.
pub fn this_program() -> Build {
    static ME: OnceLock<Build> = OnceLock::new();
    ME.get_or_init(|| Build {
        program: "kage-selfplay".into(),
        program_hash: std::env::current_exe().ok().and_then(|p| hash_file(&p).ok()),
        git_revision: Some(kage_data::GIT_REVISION.into()),
        id_name: None,
    })
    .clone()
}

/// An outside engine started as `cmd` (in `dir`), which gave `id_name`.
pub fn outside(cmd: &str, dir: Option<&Path>, id_name: Option<String>) -> Build {
    Build {
        program: cmd.into(),
        program_hash: find_program(cmd, dir).and_then(|p| hash_file(&p).ok()),
        git_revision: None,
        id_name,
    }
}

/// The file a command runs: a path (relative to `dir` when given), else the first match on
/// `PATH`.
fn find_program(cmd: &str, dir: Option<&Path>) -> Option<PathBuf> {
    let p = Path::new(cmd);
    if p.components().count() > 1 || p.is_absolute() {
        return Some(dir.map_or_else(|| p.to_path_buf(), |d| d.join(p)));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join(cmd)).find(|c| c.is_file())
}

/// The file of a self-play run directory naming the build that plays its games.
pub const RUN_FILE: &str = "build.json";

/// Before games are played into the run directory `dir`: records this build in a new run,
/// and refuses a run begun by another build unless `allow_rebuild` (then the note says so).
pub fn check_run(dir: &Path, allow_rebuild: bool) -> crate::Result<Option<String>> {
    use crate::SelfplayError;
    let path = dir.join(RUN_FILE);
    let now = this_program();
    let text = match kage_engine::util::read::read_text_capped(&path, 1 << 20, "build file") {
        Ok(t) => t,
        Err(kage_engine::util::read::ReadError::Io { cause, .. })
            if cause.kind() == std::io::ErrorKind::NotFound =>
        {
            let json = serde_json::to_string_pretty(&now).expect("a build serialises") + "\n";
            kage_data::atomic::write_atomic(&path, json.as_bytes())
                .map_err(|e| SelfplayError::io(&path, "write", e))?;
            return Ok(None);
        }
        Err(e) => return Err(e.into()),
    };
    let then: Build = serde_json::from_str(&text)
        .map_err(|cause| SelfplayError::DamagedJson { path: path.clone(), cause })?;
    if then == now {
        return Ok(None);
    }
    let what = now.changes_from(&then);
    if allow_rebuild {
        return Ok(Some(format!(
            "resumed by another build of kage-selfplay ({what}); its games pool two builds \
             (--allow-rebuild)"
        )));
    }
    Err(crate::ConfigError::OtherBuild { dir: dir.to_path_buf(), what }.into())
}
