//! The candidates file of a rebalance search: named rule changes, each an edit of the base
//! variant's spec table, validated once into [`Candidate`]s.
//!
//! ```toml
//! [[candidate]]
//! name = "gote-promotes-4"          # letters, digits, '-', '_'; unique
//! note = "Gote promotes on rank 4"  # optional
//! promotion_black = [1, 2, 3, 4]     # zones: promotion_white/black, drop_white/black
//!
//! [[candidate]]
//! name = "extra-pawn"
//! hand_add = "P"                     # FEN letters: upper case White's hand, lower Black's
//!
//! [[candidate]]
//! name = "no-bishop"
//! hand_remove = "b"
//!
//! [[candidate]]
//! name = "gote-first"
//! first = "black"                    # the start FEN's side to move
//!
//! [[candidate]]
//! name = "silver-wazir"
//! betza = { S = "WfF" }              # a piece's move, by letter
//!
//! [[candidate]]
//! name = "no-move-rule"
//! set = { "move_rule" = 0, "piece.P.value" = 120 }   # any spec key (dotted path)
//! ```
//!
//! A candidate may combine changes (applied in the order above); one without changes is the
//! base itself, a reference row. Unknown keys are refused with their names.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::SelfplayError;
use crate::study_error::StudyError;

/// Side that moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum First {
    /// White (`w` in the start FEN).
    White,
    /// Black (`b`).
    Black,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(default)]
    candidate: Vec<RawCandidate>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCandidate {
    name: String,
    note: Option<String>,
    promotion_white: Option<Vec<u8>>,
    promotion_black: Option<Vec<u8>>,
    drop_white: Option<Vec<u8>>,
    drop_black: Option<Vec<u8>>,
    hand_add: Option<String>,
    hand_remove: Option<String>,
    first: Option<First>,
    betza: Option<BTreeMap<String, String>>,
    set: Option<toml::Table>,
}

/// One declared change of the spec.
#[derive(Clone, Debug, PartialEq)]
pub enum Change {
    /// `zones.<key> = ranks`.
    Zone {
        /// `promotion_white`, `promotion_black`, `drop_white` or `drop_black`.
        key: &'static str,
        /// Ranks, 1-based.
        ranks: Vec<u8>,
    },
    /// A piece added to a start hand (FEN letter: upper case White's).
    HandAdd(char),
    /// A piece taken from a start hand.
    HandRemove(char),
    /// Who moves first.
    First(First),
    /// A piece's move (Betza).
    Betza {
        /// Piece letter (`S`, `+P`).
        letter: String,
        /// Betza string.
        betza: String,
    },
    /// Any spec key, by dotted path (`piece.<LETTER>.<key>` names a piece).
    Set {
        /// The path.
        path: String,
        /// The value.
        value: toml::Value,
    },
}

impl Change {
    /// The change in words (one line; it is part of the search's settings).
    pub fn describe(&self) -> String {
        match self {
            Change::Zone { key, ranks } => format!("zones.{key} = {ranks:?}"),
            Change::HandAdd(c) => format!("hand +{c}"),
            Change::HandRemove(c) => format!("hand -{c}"),
            Change::First(First::White) => "White moves first".into(),
            Change::First(First::Black) => "Black moves first".into(),
            Change::Betza { letter, betza } => format!("{letter} moves {betza}"),
            Change::Set { path, value } => format!("{path} = {value}"),
        }
    }
}

/// A named candidate change.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    /// Name (letters, digits, `-`, `_`).
    pub name: String,
    /// Free text.
    pub note: Option<String>,
    /// The changes, in the order applied.
    pub changes: Vec<Change>,
}

impl Candidate {
    /// All changes in words (`unchanged` for none).
    pub fn describe(&self) -> String {
        if self.changes.is_empty() {
            return "unchanged (reference)".into();
        }
        self.changes.iter().map(Change::describe).collect::<Vec<_>>().join("; ")
    }
}

/// Why one candidate of a candidates file is refused.
#[derive(Debug, thiserror::Error)]
pub enum CandidateError {
    /// A name that cannot name a variant and a directory.
    #[error("name {0:?} must be 1 to 40 ASCII letters, digits, '-' or '_'")]
    Name(String),
    /// A hand change that is not piece letters.
    #[error("{name:?}: {key} {value:?} must be piece letters (upper case: White's hand)")]
    Letters {
        /// The candidate.
        name: String,
        /// `hand_add` or `hand_remove`.
        key: &'static str,
        /// The value given.
        value: String,
    },
    /// A `set` key that is not a spec key path.
    #[error("{name:?}: set: {path:?} is not a spec key path (nor `name`)")]
    SetPath {
        /// The candidate.
        name: String,
        /// The path given.
        path: String,
    },
}

/// The line of a TOML error in `text`, where the parser knows it.
fn toml_line(text: &str, e: &toml::de::Error) -> Option<usize> {
    e.span().map(|span| text[..span.start.min(text.len())].matches('\n').count() + 1)
}

/// Parses a candidates file's text (`what` names it in errors).
pub fn parse(text: &str, what: &str) -> Result<Vec<Candidate>, SelfplayError> {
    let raw: RawFile = toml::from_str(text).map_err(|cause| StudyError::CandidatesToml {
        what: what.into(),
        line: toml_line(text, &cause),
        cause,
    })?;
    if raw.candidate.is_empty() {
        return Err(StudyError::NoCandidates { what: what.into() }.into());
    }
    let mut out: Vec<Candidate> = Vec::new();
    for (i, r) in raw.candidate.into_iter().enumerate() {
        let c = candidate(r).map_err(|cause| StudyError::Candidate {
            what: what.into(),
            index: i + 1,
            cause,
        })?;
        if out.iter().any(|o| o.name == c.name) {
            return Err(StudyError::CandidateTwice { what: what.into(), name: c.name }.into());
        }
        out.push(c);
    }
    Ok(out)
}

/// Reads and parses a candidates file (size-capped).
pub fn read(path: &Path) -> Result<Vec<Candidate>, SelfplayError> {
    let text = kage_engine::util::read::read_text_capped(
        path,
        kage_engine::util::read::cap::TEXT,
        "candidates file",
    )?;
    parse(&text, &path.display().to_string())
}

fn letters(s: &str, key: &'static str, name: &str) -> Result<Vec<char>, CandidateError> {
    if s.is_empty() || !s.chars().all(|c| c.is_ascii_alphabetic()) {
        return Err(CandidateError::Letters { name: name.into(), key, value: s.into() });
    }
    Ok(s.chars().collect())
}

fn candidate(r: RawCandidate) -> Result<Candidate, CandidateError> {
    let name_ok = (1..=40).contains(&r.name.len())
        && r.name.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_".contains(&b));
    if !name_ok {
        return Err(CandidateError::Name(r.name));
    }
    let mut changes = Vec::new();
    let zones = [
        ("promotion_white", r.promotion_white),
        ("promotion_black", r.promotion_black),
        ("drop_white", r.drop_white),
        ("drop_black", r.drop_black),
    ];
    for (key, ranks) in zones {
        if let Some(ranks) = ranks {
            changes.push(Change::Zone { key, ranks });
        }
    }
    if let Some(s) = &r.hand_add {
        changes.extend(letters(s, "hand_add", &r.name)?.into_iter().map(Change::HandAdd));
    }
    if let Some(s) = &r.hand_remove {
        let ls = letters(s, "hand_remove", &r.name)?;
        changes.extend(ls.into_iter().map(Change::HandRemove));
    }
    if let Some(f) = r.first {
        changes.push(Change::First(f));
    }
    for (letter, betza) in r.betza.unwrap_or_default() {
        changes.push(Change::Betza { letter, betza });
    }
    for (path, value) in r.set.unwrap_or_default() {
        if path.is_empty() || path.split('.').any(str::is_empty) || path == "name" {
            return Err(CandidateError::SetPath { name: r.name, path });
        }
        changes.push(Change::Set { path, value });
    }
    Ok(Candidate { name: r.name, note: r.note, changes })
}

/// The spec text of `cand` applied to `base` (a spec's TOML text), named `name`; an error
/// says why the change cannot be made (the text is compiled by the caller).
pub fn apply(base: &str, name: &str, cand: &Candidate) -> Result<String, String> {
    let mut t: toml::Table = toml::from_str(base).map_err(|e| format!("base spec: {e}"))?;
    t.insert("name".into(), toml::Value::String(name.into()));
    for c in &cand.changes {
        apply_one(&mut t, c).map_err(|m| format!("{}: {m}", c.describe()))?;
    }
    toml::to_string(&t).map_err(|e| format!("spec cannot be written: {e}"))
}

fn apply_one(t: &mut toml::Table, c: &Change) -> Result<(), String> {
    match c {
        Change::Zone { key, ranks } => {
            let ranks = ranks.iter().map(|&r| toml::Value::Integer(r.into())).collect();
            let zones = table_at(t, "zones")?;
            zones.insert((*key).into(), toml::Value::Array(ranks));
        }
        Change::HandAdd(l) => edit_fen(t, |board, _| {
            hand_edit(board, |h| h.push(*l));
            Ok(())
        })?,
        Change::HandRemove(l) => edit_fen(t, |board, _| {
            let mut found = false;
            hand_edit(board, |h| {
                if let Some(i) = h.find(*l) {
                    h.remove(i);
                    found = true;
                }
            });
            if found { Ok(()) } else { Err(format!("no {l} in the start hands")) }
        })?,
        Change::First(f) => edit_fen(t, |_, rest| {
            let side = rest.first_mut().ok_or("the start FEN has no side to move")?;
            *side = if *f == First::White { "w" } else { "b" }.into();
            Ok(())
        })?,
        Change::Betza { letter, betza } => {
            *piece(t, letter)?.entry("betza").or_insert(toml::Value::Boolean(false)) =
                toml::Value::String(betza.clone());
        }
        Change::Set { path, value } => set_path(t, path, value.clone())?,
    }
    if let Change::HandAdd(l) = c {
        // A hand piece must be in the hand order (FEN output lists hands in it).
        let up = l.to_ascii_uppercase();
        let order = t.get("hand_order").and_then(toml::Value::as_str).unwrap_or("");
        if !order.contains(up) {
            let order = format!("{order}{up}");
            t.insert("hand_order".into(), toml::Value::String(order));
        }
    }
    Ok(())
}

/// The sub-table `key` of `t` (made when missing).
fn table_at<'a>(t: &'a mut toml::Table, key: &str) -> Result<&'a mut toml::Table, String> {
    t.entry(key)
        .or_insert_with(|| toml::Value::Table(toml::Table::new()))
        .as_table_mut()
        .ok_or_else(|| format!("{key} is not a table"))
}

/// The `[[piece]]` table of `letter`.
fn piece<'a>(t: &'a mut toml::Table, letter: &str) -> Result<&'a mut toml::Table, String> {
    t.get_mut("piece")
        .and_then(toml::Value::as_array_mut)
        .and_then(|a| {
            a.iter_mut()
                .filter_map(toml::Value::as_table_mut)
                .find(|p| p.get("letter").and_then(toml::Value::as_str) == Some(letter))
        })
        .ok_or_else(|| format!("the base has no piece {letter:?}"))
}

fn set_path(t: &mut toml::Table, path: &str, value: toml::Value) -> Result<(), String> {
    let parts: Vec<&str> = path.split('.').collect();
    let (last, dirs) = parts.split_last().ok_or("empty path")?;
    let mut here = t;
    let mut i = 0;
    while i < dirs.len() {
        if dirs[i] == "piece" {
            let letter = dirs.get(i + 1).ok_or("piece.<LETTER>.<key>: no letter")?;
            here = piece(here, letter)?;
            i += 2;
        } else {
            here = table_at(here, dirs[i])?;
            i += 1;
        }
    }
    here.insert((*last).into(), value);
    Ok(())
}

/// Edits the start FEN: `f(board_with_hand, [side, rest...])`.
fn edit_fen(
    t: &mut toml::Table,
    f: impl FnOnce(&mut String, &mut Vec<String>) -> Result<(), String>,
) -> Result<(), String> {
    let fen = t.get("start_fen").and_then(toml::Value::as_str).ok_or("no start_fen")?;
    let mut fields = fen.split_whitespace().map(str::to_owned);
    let mut board = fields.next().ok_or("empty start_fen")?;
    let mut rest: Vec<String> = fields.collect();
    f(&mut board, &mut rest)?;
    let fen = std::iter::once(board).chain(rest).collect::<Vec<_>>().join(" ");
    t.insert("start_fen".into(), toml::Value::String(fen));
    Ok(())
}

/// Edits the `[...]` hands of a FEN's board field (`-` is an empty hand).
fn hand_edit(board: &mut String, f: impl FnOnce(&mut String)) {
    let (placement, mut hand) = match board.find('[') {
        Some(i) => (board[..i].to_owned(), board[i + 1..].trim_end_matches(']').to_owned()),
        None => (board.clone(), String::new()),
    };
    if hand == "-" {
        hand.clear();
    }
    f(&mut hand);
    if hand.is_empty() {
        hand.push('-');
    }
    *board = format!("{placement}[{hand}]");
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "name = \"m\"\nstart_fen = \"k4/5/5/5/4K[-] w 0 1\"\nhand_order = \"G\"\n\
                        [zones]\npromotion_white = [5]\n[[piece]]\nletter = \"K\"\nbetza = \"K\"\n";

    #[test]
    fn edits() {
        let file = "[[candidate]]\nname = \"a\"\nhand_add = \"Pg\"\nfirst = \"black\"\n\
                    promotion_white = [4, 5]\nbetza = { K = \"WF\" }\nset = { \"piece.K.value\" = 3, \"zones.flag_white\" = [5] }\n";
        let c = &parse(file, "f").unwrap()[0];
        let t: toml::Table = toml::from_str(&apply(BASE, "m-a", c).unwrap()).unwrap();
        assert_eq!(t["name"].as_str(), Some("m-a"));
        assert_eq!(t["start_fen"].as_str(), Some("k4/5/5/5/4K[Pg] b 0 1"));
        assert_eq!(t["hand_order"].as_str(), Some("GP"));
        assert_eq!(t["zones"]["promotion_white"].as_array().unwrap().len(), 2);
        assert_eq!(t["zones"]["flag_white"].as_array().unwrap().len(), 1);
        assert_eq!(t["piece"][0]["betza"].as_str(), Some("WF"));
        assert_eq!(t["piece"][0]["value"].as_integer(), Some(3));
        let rm = &parse("[[candidate]]\nname = \"b\"\nhand_remove = \"P\"\n", "f").unwrap()[0];
        assert!(apply(BASE, "m-b", rm).unwrap_err().contains("no P"));
    }

    #[test]
    fn refusals_name_the_key() {
        let e = parse("[[candidate]]\nname = \"a\"\nhand_ad = \"P\"\n", "f").unwrap_err();
        assert!(e.to_string().contains("hand_ad"), "{e}");
        assert!(!e.to_string().contains('\n'), "{e}");
        let e = parse("[[candidates]]\nname = \"a\"\n", "f").unwrap_err();
        assert!(e.to_string().contains("candidates"), "{e}");
        assert!(parse("[[candidate]]\nname = \"a/b\"\n", "f").is_err());
        assert!(parse("[[candidate]]\nname = \"a\"\n[[candidate]]\nname = \"a\"\n", "f").is_err());
        assert!(parse("[[candidate]]\nname = \"a\"\nfirst = \"gote\"\n", "f").is_err());
    }
}
