//! [`StudyError`]: why a rebalance search or a ladder refuses its input or stops, one case
//! each (what `ConfigError::Study` carries).

use std::path::PathBuf;
use std::process::ExitStatus;

use crate::SelfplayError;
use crate::matches::runner::MatchError;
use crate::rebalance::candidates::CandidateError;

/// A refusal of a rebalance search ([`crate::rebalance`]) or a ladder ([`crate::ladder`]).
#[derive(Debug, thiserror::Error)]
pub enum StudyError {
    /// A candidates file that does not parse (its TOML, or a key that is not a candidate's).
    #[error("{what}: {}", toml_text(.line, .cause))]
    CandidatesToml {
        /// The file, as named.
        what: String,
        /// The line of the error, where the parser knows it.
        line: Option<usize>,
        /// The parser's error.
        cause: toml::de::Error,
    },
    /// A candidates file without candidates.
    #[error("{what}: no [[candidate]] tables")]
    NoCandidates {
        /// The file, as named.
        what: String,
    },
    /// A candidate of the file that is refused.
    #[error("{what}: candidate {index}: {cause}")]
    Candidate {
        /// The file, as named.
        what: String,
        /// The candidate's place in the file (from 1).
        index: usize,
        /// Why it is refused.
        cause: CandidateError,
    },
    /// Two candidates of one name.
    #[error("{what}: two candidates are named {name:?}")]
    CandidateTwice {
        /// The file, as named.
        what: String,
        /// The name.
        name: String,
    },
    /// A step id the search does not have (`--step`).
    #[error("no step {0:?} in this search")]
    NoStep(String),
    /// A step asked for that is done or waits for earlier steps.
    #[error(
        "step {id} is not pending now (pending: {}); it is done or waits for earlier steps",
        pending_text(.pending)
    )]
    NotPending {
        /// The step asked for.
        id: String,
        /// The steps pending now.
        pending: Vec<String>,
    },
    /// A fine-tune without the `kage-train` program.
    #[error(
        "a fine-tune needs the kage-train program (next to kage-selfplay, or --kage-train PATH)"
    )]
    NoKageTrain,
    /// The `kage-train` program could not be run.
    #[error("running {}: {cause}", exe.display())]
    TrainStart {
        /// The program.
        exe: PathBuf,
        /// Why it did not run.
        cause: std::io::Error,
    },
    /// The `kage-train` program failed.
    #[error("{} failed ({status}) for {variant}", exe.display())]
    TrainFailed {
        /// The program.
        exe: PathBuf,
        /// How it ended.
        status: ExitStatus,
        /// The candidate's variant.
        variant: String,
    },
    /// The `kage-train` program ended well but wrote no network.
    #[error("{} wrote no {}", exe.display(), net.display())]
    TrainNoNet {
        /// The program.
        exe: PathBuf,
        /// The network it should have written.
        net: PathBuf,
    },
    /// A `--rung` item that is not `KEY=VALUE`.
    #[error("rung {rung:?}: {part:?} is not KEY=VALUE")]
    RungNotKeyValue {
        /// The rung as given.
        rung: String,
        /// The item.
        part: String,
    },
    /// A rung's node count that is not one.
    #[error("rung {rung:?}: nodes {value:?} is not a count in 1..={}", crate::config::MAX_TOML_INT)]
    RungNodes {
        /// The rung as given.
        rung: String,
        /// The value given.
        value: String,
    },
    /// A rung's network file that cannot be read.
    #[error("rung {rung:?}: cannot read net {path}: {cause}")]
    RungNet {
        /// The rung as given.
        rung: String,
        /// The network file.
        path: String,
        /// Why it cannot be read.
        cause: kage_engine::nnue::NetError,
    },
    /// A rung's setting that is not one.
    #[error(
        "rung {rung:?}: unknown setting {part:?} (expected nodes=N, net=FILE, eval=hce|default, \
         name=NAME)"
    )]
    RungSetting {
        /// The rung as given.
        rung: String,
        /// The item.
        part: String,
    },
    /// A rung without a node count.
    #[error("rung {0:?} needs nodes=N")]
    RungNoNodes(String),
    /// A ladder of fewer than two rungs.
    #[error("a ladder needs two --rung at least")]
    TooFewRungs,
    /// Two rungs of one name.
    #[error("two rungs are named {0:?}")]
    RungTwice(String),
    /// Two rungs that are the same player.
    #[error("rungs {0:?} and {1:?} are one player")]
    OnePlayer(String, String),
    /// A rung name that cannot name a directory and a PGN player.
    #[error("rung name {0:?}: letters, digits, - and _")]
    RungName(String),
    /// A ladder's match that is refused or fails (its own error: boxed, as a match's errors
    /// hold the library's).
    #[error("{0}")]
    Match(Box<MatchError>),
    /// A rung's audit report that does not parse.
    #[error("audit of rung {rung}: {cause}")]
    Audit {
        /// The rung (its index).
        rung: usize,
        /// The parse error.
        cause: serde_json::Error,
    },
}

impl From<StudyError> for crate::ConfigError {
    fn from(e: StudyError) -> Self {
        crate::ConfigError::Study(Box::new(e))
    }
}

impl From<StudyError> for SelfplayError {
    fn from(e: StudyError) -> Self {
        SelfplayError::Config(e.into())
    }
}

/// A TOML error on one line: `line N: message` (the message's own line breaks as spaces).
fn toml_text(line: &Option<usize>, e: &toml::de::Error) -> String {
    let msg = e.message().trim().replace('\n', " ");
    match line {
        Some(line) => format!("line {line}: {msg}"),
        None => msg,
    }
}

/// The steps pending, comma-separated (`none` for none).
fn pending_text(pending: &[String]) -> String {
    if pending.is_empty() { "none".into() } else { pending.join(", ") }
}
