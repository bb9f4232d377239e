//! FSF's INI dialect: `[name]` or `[name:parent]` section headers, `key = value` lines, whole-line
//! comments starting with `#` or `;`, blank lines. Text before the first section may only be
//! comments. A key repeated in one section keeps its last value (as FSF does).

use super::FsfIniError;

/// Largest file read.
pub const MAX_FILE_BYTES: usize = 1 << 20;
/// Longest section name, key or value.
const MAX_TOKEN: usize = 4096;

/// One `key = value` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The key, trimmed.
    pub key: String,
    /// The value, trimmed.
    pub value: String,
    /// 1-based line.
    pub line: usize,
}

/// One section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// The variant's name.
    pub name: String,
    /// The variant it inherits from.
    pub parent: Option<String>,
    /// Line of the header.
    pub line: usize,
    /// Its lines, in order (a repeated key: the last one counts).
    pub entries: Vec<Entry>,
}

impl Section {
    /// The value of `key`, the last one given.
    pub fn get(&self, key: &str) -> Option<&Entry> {
        self.entries.iter().rev().find(|e| e.key == key)
    }

    /// Every key once, with its last value, in first-seen order.
    pub fn effective(&self) -> Vec<&Entry> {
        let mut out: Vec<&Entry> = Vec::new();
        for e in &self.entries {
            match out.iter_mut().find(|o| o.key == e.key) {
                Some(o) => *o = e,
                None => out.push(e),
            }
        }
        out
    }
}

/// A parsed file: its sections in order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct IniFile {
    /// The sections.
    pub sections: Vec<Section>,
}

impl IniFile {
    /// The section named `name`.
    pub fn section(&self, name: &str) -> Option<&Section> {
        self.sections.iter().find(|s| s.name == name)
    }
}

fn syntax(line: usize, why: impl Into<String>) -> FsfIniError {
    FsfIniError::Syntax { line, why: why.into() }
}

/// Parses the text of a variants.ini file.
pub fn parse(text: &str) -> Result<IniFile, FsfIniError> {
    if text.len() > MAX_FILE_BYTES {
        return Err(FsfIniError::Io(format!("larger than {MAX_FILE_BYTES} bytes")));
    }
    let mut file = IniFile::default();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let t = raw.trim();
        if t.is_empty() || t.starts_with('#') || t.starts_with(';') {
            continue;
        }
        if t.len() > MAX_TOKEN {
            return Err(syntax(line, "line too long"));
        }
        if t.starts_with('[') {
            let section = header(t, line)?;
            if file.section(&section.name).is_some() {
                return Err(FsfIniError::DuplicateSection { name: section.name, line });
            }
            file.sections.push(section);
            continue;
        }
        let entry = key_value(t, line)?;
        match file.sections.last_mut() {
            Some(s) => s.entries.push(entry),
            None => return Err(syntax(line, "a key before the first [section]")),
        }
    }
    Ok(file)
}

fn header(t: &str, line: usize) -> Result<Section, FsfIniError> {
    let inner = t.strip_prefix('[').and_then(|r| r.strip_suffix(']')).ok_or_else(|| {
        syntax(line, format!("section header {t:?} must be [name] or [name:parent]"))
    })?;
    let (name, parent) = match inner.split_once(':') {
        Some((n, p)) => (n.trim(), Some(p.trim())),
        None => (inner.trim(), None),
    };
    let bad = |s: &str| {
        s.is_empty() || s.contains(['[', ']', ':', '=']) || s.contains(char::is_whitespace)
    };
    if bad(name) || parent.is_some_and(bad) {
        return Err(syntax(line, format!("section header {t:?} must be [name] or [name:parent]")));
    }
    Ok(Section {
        name: name.to_string(),
        parent: parent.map(str::to_string),
        line,
        entries: Vec::new(),
    })
}

fn key_value(t: &str, line: usize) -> Result<Entry, FsfIniError> {
    let (k, v) =
        t.split_once('=').ok_or_else(|| syntax(line, format!("{t:?} is not 'key = value'")))?;
    let key = k.trim();
    if key.is_empty() || key.contains(char::is_whitespace) {
        return Err(syntax(line, format!("{t:?}: the key must be one word")));
    }
    Ok(Entry { key: key.to_string(), value: v.trim().to_string(), line })
}
