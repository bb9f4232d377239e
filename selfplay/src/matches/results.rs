//! Committed match results (`kage-selfplay results`): a folder of result folders, each
//! holding a match's `summary.json` and `match.json` (copied from its match directory) and
//! optionally `about.toml` (`label = "..."`: what the row says the match is), rendered as
//! one Markdown table, one row per folder in name order; and the marked block of a document
//! (`<!-- results:DIR begin -->` ... `<!-- results:DIR end -->`) checked against that table or
//! rewritten with it, so a document's figures cannot drift from the files.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use kage_engine::util::read::{ReadError, read_text_capped};
use serde::Deserialize;

use super::engine::{EngineKind, EngineSpec};
use super::game::LimitSpec;
use super::openings::OpeningSpec;
use super::runner::MatchStatus;
use super::stats::{self, Counts};

/// A match's summary, as a result folder holds it.
pub const SUMMARY: &str = "summary.json";
/// A match's identity, as a result folder holds it.
pub const IDENTITY: &str = "match.json";
/// A result folder's optional label file.
pub const ABOUT: &str = "about.toml";

/// The largest file a result folder may hold (bytes): these files are small.
const CAP: u64 = 1 << 20;

/// Why results cannot be read, rendered, checked or written.
#[derive(Debug, thiserror::Error)]
pub enum ResultsError {
    /// The results folder cannot be listed.
    #[error("cannot list {}: {cause}", dir.display())]
    List {
        /// The folder.
        dir: PathBuf,
        /// The operating system's error.
        cause: std::io::Error,
    },
    /// A results folder without a single result folder.
    #[error("{}: no result folders (each a folder holding {SUMMARY} and {IDENTITY})", .0.display())]
    Empty(PathBuf),
    /// A file that cannot be read (missing, too large, not UTF-8): its message names it.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// A JSON file that does not parse as what a match writes.
    #[error("{}: damaged: {cause}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// The parse error.
        cause: serde_json::Error,
    },
    /// An `about.toml` that does not parse (or has keys other than `label`).
    #[error("{} line {line}: {message}", path.display())]
    About {
        /// The file.
        path: PathBuf,
        /// The line of the trouble (from 1).
        line: usize,
        /// The parser's message.
        message: String,
    },
    /// A label that is empty or more than one line.
    #[error("{}: label must be one non-empty line", .0.display())]
    Label(PathBuf),
    /// `summary.json` and `match.json` of two different matches.
    #[error(
        "{}: {what} is {summary:?} in {SUMMARY} but {identity:?} in {IDENTITY}: the files are \
         of two matches",
        folder.display()
    )]
    Mismatch {
        /// The result folder.
        folder: PathBuf,
        /// What differs (`variant`, `first engine`, `second engine`).
        what: &'static str,
        /// Its value in `summary.json`.
        summary: String,
        /// Its value in `match.json`.
        identity: String,
    },
    /// Figures of `summary.json` that disagree with each other (an edited or damaged file).
    #[error("{}: damaged: {what}", path.display())]
    Figures {
        /// The file.
        path: PathBuf,
        /// What disagrees.
        what: String,
    },
    /// A document without the block asked for, or with a broken one.
    #[error("{}: {problem} (<!-- results:{key} begin --> ... <!-- results:{key} end -->)", doc.display())]
    Block {
        /// The document.
        doc: PathBuf,
        /// The block's key (the results folder as given).
        key: String,
        /// What is wrong: no block, two of them, no end.
        problem: &'static str,
    },
    /// A block that differs from the table.
    #[error(
        "{}: line {line}: the block results:{key} differs from `kage-selfplay results {key}`; \
         rewrite it with `kage-selfplay results {key} --write {}`",
        doc.display(),
        doc.display()
    )]
    Drift {
        /// The document.
        doc: PathBuf,
        /// The block's key.
        key: String,
        /// The document's first line that differs (from 1).
        line: usize,
    },
    /// A document that cannot be written.
    #[error("cannot write {}: {cause}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        cause: std::io::Error,
    },
}

/// What the table reads of `summary.json` (other fields are ignored).
#[derive(Deserialize)]
struct Summary {
    status: MatchStatus,
    variant: String,
    engines: [String; 2],
    counts: Counts,
    elo: Option<EloFigures>,
    pairs: u64,
    #[serde(default)]
    distinct_openings: Option<u64>,
    #[serde(default)]
    book_lines: Option<u64>,
    #[serde(default)]
    games_planned: Option<u64>,
}

/// The Elo figures the table shows.
#[derive(Deserialize)]
struct EloFigures {
    elo: f64,
    elo95: f64,
}

/// What the table reads of `match.json` (other fields are ignored).
#[derive(Deserialize)]
struct Identity {
    variant: String,
    engines: [EngineSpec; 2],
    limit: LimitSpec,
    openings: OpeningSpec,
    seed: u64,
}

/// `about.toml`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct About {
    label: String,
}

/// One row of the table: its cells, as printed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// The result folder's name (rows are in its order).
    pub name: String,
    /// What the match is: `about.toml`'s label, or `first vs second`.
    pub what: String,
    /// The variant.
    pub variant: String,
    /// The search limit: `1 s + 0.1 s`, `20000 nodes`, `50 ms/move`, `depth 8`.
    pub limit: String,
    /// The seed.
    pub seed: u64,
    /// Games played, with how the match ended when not complete (`312 (SPRT: H1)`).
    pub games: String,
    /// Wins, draws, losses of the first engine: `283-0-117`.
    pub wdl: String,
    /// Elo with its 95% interval: `+153 +/- 36`.
    pub elo: String,
    /// Distinct openings played / book lines (and the book's file name), or random openings.
    pub openings: String,
}

/// The table's header and alignment lines.
const HEADER: &str = "| what | variant | limit | seed | games | W-D-L | Elo (95%) | openings \
                      (distinct / book lines) |\n|---|---|---|---:|---:|---|---:|---|\n";

/// Reads every result folder of `dir` (its subfolders, hidden ones and files aside), in name
/// order.
pub fn read_dir(dir: &Path) -> Result<Vec<Row>, ResultsError> {
    let list = |cause| ResultsError::List { dir: dir.to_path_buf(), cause };
    let mut folders = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(list)? {
        let entry = entry.map_err(list)?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.starts_with('.') && entry.path().is_dir() {
            folders.push((name, entry.path()));
        }
    }
    if folders.is_empty() {
        return Err(ResultsError::Empty(dir.to_path_buf()));
    }
    folders.sort();
    folders.into_iter().map(|(name, path)| read_one(&path, name)).collect()
}

fn parse_json<T: serde::de::DeserializeOwned>(
    path: &Path,
    what: &'static str,
) -> Result<T, ResultsError> {
    let text = read_text_capped(path, CAP, what)?;
    serde_json::from_str(&text)
        .map_err(|cause| ResultsError::Json { path: path.to_path_buf(), cause })
}

/// The label of `about.toml` in `folder`, `None` when there is none.
fn read_label(folder: &Path) -> Result<Option<String>, ResultsError> {
    let path = folder.join(ABOUT);
    if !path.exists() {
        return Ok(None);
    }
    let text = read_text_capped(&path, CAP, "result label file")?;
    let about: About = toml::from_str(&text).map_err(|e| ResultsError::About {
        path: path.clone(),
        line: e.span().map_or(1, |s| 1 + text[..s.start.min(text.len())].matches('\n').count()),
        message: e.message().trim().to_owned(),
    })?;
    let label = about.label.trim();
    if label.is_empty() || label.contains(['\n', '\r']) {
        return Err(ResultsError::Label(path));
    }
    Ok(Some(label.to_owned()))
}

/// Reads the result folder `folder` as the row `name`.
pub fn read_one(folder: &Path, name: String) -> Result<Row, ResultsError> {
    let summary_path = folder.join(SUMMARY);
    let s: Summary = parse_json(&summary_path, "match summary")?;
    let id: Identity = parse_json(&folder.join(IDENTITY), "match identity")?;
    let mismatch = |what, summary: &str, identity: &str| {
        if summary == identity {
            return Ok(());
        }
        Err(ResultsError::Mismatch {
            folder: folder.to_path_buf(),
            what,
            summary: summary.to_owned(),
            identity: identity.to_owned(),
        })
    };
    mismatch("variant", &s.variant, &id.variant)?;
    mismatch("first engine", &s.engines[0], &id.engines[0].name)?;
    mismatch("second engine", &s.engines[1], &id.engines[1].name)?;
    check_figures(&summary_path, &s)?;
    let what = match read_label(folder)? {
        Some(label) => label,
        None => format!("{} vs {}", s.engines[0], s.engines[1]),
    };
    let c = &s.counts;
    Ok(Row {
        name,
        what,
        variant: s.variant.clone(),
        limit: limit_text(&id.limit, &id.engines),
        seed: id.seed,
        games: games_text(&s),
        wdl: format!("{}-{}-{}", c.wins, c.draws, c.losses),
        elo: s.elo.as_ref().map_or("no games".into(), |e| elo_text(e.elo, e.elo95)),
        openings: openings_text(&id.openings, s.distinct_openings, s.book_lines),
    })
}

/// The counts add up (W + D + L = twice the pairs = twice the pentanomial pairs) and the Elo
/// figures are those of the pentanomial counts (as the match computed them).
fn check_figures(path: &Path, s: &Summary) -> Result<(), ResultsError> {
    let c = &s.counts;
    let bad = |what: String| Err(ResultsError::Figures { path: path.to_path_buf(), what });
    let penta: u64 = c.penta.iter().sum();
    if c.games() != 2 * penta || penta != s.pairs {
        return bad(format!(
            "counts {}-{}-{} ({} games) do not match {} pentanomial pairs and {} pairs",
            c.wins,
            c.draws,
            c.losses,
            c.games(),
            penta,
            s.pairs
        ));
    }
    let near = |a: f64, b: f64| (a - b).abs() <= 1e-6 * a.abs().max(1.0);
    match (stats::elo(&c.penta), &s.elo) {
        (None, None) => Ok(()),
        (Some(want), Some(have)) if near(want.elo, have.elo) && near(want.elo95, have.elo95) => {
            Ok(())
        }
        (want, _) => bad(format!(
            "its Elo is not that of its pentanomial counts ({})",
            want.map_or("no games".into(), |e| elo_text(e.elo, e.elo95))
        )),
    }
}

/// `+153 +/- 36`: Elo and the half width of its 95% interval, rounded (as BENCHMARKS.md
/// writes them).
pub fn elo_text(elo: f64, elo95: f64) -> String {
    let r = elo.round();
    // -0.4 rounds to -0: written +0.
    let r = if r == 0.0 { 0.0 } else { r };
    format!("{r:+.0} +/- {:.0}", elo95.round())
}

/// A number without trailing zeros (at most 3 decimals): `1`, `0.1`, `2.5`.
fn short(x: f64) -> String {
    let s = format!("{x:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s.is_empty() || s == "-" { "0".into() } else { s.to_owned() }
}

/// The search limit in words, each engine's own node budget included.
fn limit_text(limit: &LimitSpec, engines: &[EngineSpec; 2]) -> String {
    match *limit {
        LimitSpec::Nodes { nodes, jitter } => {
            let own = |e: &EngineSpec| match e.kind {
                EngineKind::Builtin { nodes: Some(n), .. } => n,
                _ => nodes,
            };
            let (a, b) = (own(&engines[0]), own(&engines[1]));
            let mut s = if a == b { format!("{a} nodes") } else { format!("{a} / {b} nodes") };
            if jitter > 0.0 {
                let _ = write!(s, " +/- {} %", short(100.0 * jitter));
            }
            s
        }
        LimitSpec::Depth(d) => format!("depth {d}"),
        LimitSpec::Movetime(ms) => format!("{ms} ms/move"),
        LimitSpec::Clock { time_ms, inc_ms, .. } => {
            let secs = |ms: u64| short(ms as f64 / 1000.0);
            format!("{} s + {} s", secs(time_ms), secs(inc_ms))
        }
    }
}

/// Games played, and how the match ended when it did not play them all.
fn games_text(s: &Summary) -> String {
    let n = s.counts.games();
    match s.status {
        MatchStatus::Complete => n.to_string(),
        MatchStatus::SprtAccepted => format!("{n} (SPRT: H1)"),
        MatchStatus::SprtRejected => format!("{n} (SPRT: H0)"),
        MatchStatus::Interrupted => match s.games_planned {
            Some(p) => format!("{n} of {p} (interrupted)"),
            None => format!("{n} (interrupted)"),
        },
    }
}

/// `190 / 200 (book.epd)` or `190 (random: 4 plies, multipv)`.
fn openings_text(spec: &OpeningSpec, distinct: Option<u64>, lines: Option<u64>) -> String {
    let distinct = distinct.map_or("?".into(), |d| d.to_string());
    match spec {
        OpeningSpec::File { path, .. } => {
            let file = path.rsplit(['/', '\\']).next().unwrap_or(path);
            let lines = lines.map_or("?".into(), |l| l.to_string());
            format!("{distinct} / {lines} ({})", cell(file))
        }
        OpeningSpec::Random { openings, .. } => {
            let mode = serde_json::to_value(openings.mode)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default();
            format!("{distinct} (random: {} plies, {mode})", openings.random_plies)
        }
    }
}

/// Text made safe for a table cell (`|` escaped).
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

/// The Markdown table of `rows` (header included; ends with a newline).
pub fn table(rows: &[Row]) -> String {
    let mut s = HEADER.to_owned();
    for r in rows {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            cell(&r.what),
            cell(&r.variant),
            r.limit,
            r.seed,
            r.games,
            r.wdl,
            r.elo,
            r.openings
        );
    }
    s
}

/// The key of the block of a results folder given as `dir`: the path as given, `/`-separated,
/// without a leading `./` or a trailing `/` (`docs/results`).
pub fn block_key(dir: &Path) -> String {
    let s = dir.to_string_lossy().replace('\\', "/");
    let s = s.strip_prefix("./").unwrap_or(&s);
    let s = s.trim_end_matches('/');
    if s.is_empty() { ".".into() } else { s.to_owned() }
}

/// The byte range of the block `key`'s inside in `doc` (from the line after its begin marker
/// to the start of its end marker's line), or what is wrong with it.
fn locate(doc: &str, key: &str) -> Result<(usize, usize, usize), &'static str> {
    let (begin, end) =
        (format!("<!-- results:{key} begin -->"), format!("<!-- results:{key} end -->"));
    let (mut inside, mut range) = (None, None);
    let mut at = 0;
    let mut line_no = 0;
    for line in doc.split_inclusive('\n') {
        line_no += 1;
        let t = line.trim();
        if t == begin {
            if inside.is_some() || range.is_some() {
                return Err("the block is begun twice");
            }
            inside = Some((at + line.len(), line_no + 1));
        } else if t == end {
            match inside.take() {
                Some((from, first)) => range = Some((from, at, first)),
                None => return Err("the block ends before it begins"),
            }
        }
        at += line.len();
    }
    if inside.is_some() {
        return Err("the block does not end");
    }
    range.ok_or("no such block")
}

/// Checks that the block `key` of the document `doc` (its text `text`) holds `table`
/// (blank lines around it, trailing spaces and line endings aside).
pub fn check(doc: &Path, text: &str, key: &str, table: &str) -> Result<(), ResultsError> {
    let block = |problem| ResultsError::Block { doc: doc.to_path_buf(), key: key.into(), problem };
    let (from, to, first) = locate(text, key).map_err(block)?;
    let lines: Vec<&str> = text[from..to].lines().map(str::trim_end).collect();
    let lead = lines.iter().take_while(|l| l.is_empty()).count();
    let trail = lines[lead..].iter().rev().take_while(|l| l.is_empty()).count();
    let have = &lines[lead..lines.len() - trail];
    let want: Vec<&str> = table.lines().collect();
    if have == want.as_slice() {
        return Ok(());
    }
    let k = have.iter().zip(&want).take_while(|(a, b)| a == b).count();
    Err(ResultsError::Drift { doc: doc.to_path_buf(), key: key.into(), line: first + lead + k })
}

/// `text` with the block `key`'s inside replaced by `table` (a blank line each side).
pub fn replace(doc: &Path, text: &str, key: &str, table: &str) -> Result<String, ResultsError> {
    let block = |problem| ResultsError::Block { doc: doc.to_path_buf(), key: key.into(), problem };
    let (from, to, _) = locate(text, key).map_err(block)?;
    let mut out = String::with_capacity(text.len() + table.len());
    out.push_str(&text[..from]);
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out.push('\n');
    out.push_str(table);
    out.push('\n');
    out.push_str(&text[to..]);
    Ok(out)
}

/// Rewrites the block `key` of the document `doc` with `table` (atomically); `false` when it
/// already held it (the file is then left alone).
pub fn write(doc: &Path, key: &str, table: &str) -> Result<bool, ResultsError> {
    let text = read_text_capped(doc, kage_engine::util::read::cap::TEXT, "document")?;
    if check(doc, &text, key, table).is_ok() {
        return Ok(false);
    }
    let new = replace(doc, &text, key, table)?;
    kage_data::atomic::write_atomic(doc, new.as_bytes())
        .map_err(|cause| ResultsError::Write { path: doc.to_path_buf(), cause })?;
    Ok(true)
}

/// Checks every results block of the document `doc` (its text `text`), each key a folder
/// relative to `root`; returns the keys checked.
pub fn check_all(doc: &Path, text: &str, root: &Path) -> Result<Vec<String>, ResultsError> {
    let keys: Vec<String> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("<!-- results:")?.strip_suffix(" begin -->"))
        .map(str::to_owned)
        .collect();
    for key in &keys {
        check(doc, text, key, &table(&read_dir(&root.join(key))?))?;
    }
    Ok(keys)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_in_words() {
        assert_eq!(elo_text(152.6, 35.7), "+153 +/- 36");
        assert_eq!(elo_text(-121.2, 33.4), "-121 +/- 33");
        assert_eq!(elo_text(-0.4, 12.0), "+0 +/- 12");
        let b = |nodes| EngineSpec {
            name: "a".into(),
            kind: EngineKind::Builtin { net: None, hash_mb: 1, params: None, hce: false, nodes },
        };
        let clock = LimitSpec::Clock { time_ms: 1000, inc_ms: 100, margin_ms: 50 };
        assert_eq!(limit_text(&clock, &[b(None), b(None)]), "1 s + 0.1 s");
        let nodes = LimitSpec::Nodes { nodes: 20000, jitter: 0.05 };
        assert_eq!(limit_text(&nodes, &[b(None), b(None)]), "20000 nodes +/- 5 %");
        let nodes = LimitSpec::Nodes { nodes: 100, jitter: 0.0 };
        assert_eq!(limit_text(&nodes, &[b(None), b(Some(400))]), "100 / 400 nodes");
        assert_eq!(limit_text(&LimitSpec::Movetime(50), &[b(None), b(None)]), "50 ms/move");
        assert_eq!(block_key(Path::new("./docs/results/")), "docs/results");
    }

    #[test]
    fn blocks_are_found_checked_and_replaced() {
        let doc = Path::new("D.md");
        let table = "| a |\n|---|\n| 1 |\n";
        let text = "x\n<!-- results:r begin -->\n| a |\n|---|\n| 2 |\n<!-- results:r end -->\ny\n";
        let e = check(doc, text, "r", table).unwrap_err();
        assert!(matches!(e, ResultsError::Drift { line: 5, .. }), "{e}");
        let new = replace(doc, text, "r", table).unwrap();
        assert_eq!(
            new,
            "x\n<!-- results:r begin -->\n\n| a |\n|---|\n| 1 |\n\n<!-- results:r end -->\ny\n"
        );
        check(doc, &new, "r", table).unwrap();
        let e = check(doc, text, "other", table).unwrap_err();
        assert_eq!(
            e.to_string(),
            "D.md: no such block (<!-- results:other begin --> ... <!-- results:other end -->)"
        );
        let e = check(doc, "<!-- results:r begin -->\n", "r", table).unwrap_err();
        assert!(matches!(e, ResultsError::Block { problem: "the block does not end", .. }));
    }
}
