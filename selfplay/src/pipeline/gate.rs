//! The one gate decision: whether a match's first engine (the new net, or the tuned
//! parameters) is kept. Gate, polish, refinement, HCE tuning and installation all decide
//! with [`decide`].
//!
//! The rule is the one of the bash scripts this pipeline replaced (removed 2026-12-02), which
//! wrote it twice. `scripts/loop_report.py gate` (the loop's gate and
//! the polish gate, matches with `--sprt`):
//!
//! ```text
//! if s.get("status") == "interrupted": raise SystemExit(... "was interrupted; rerun it")
//! if verdict == "accepted": return "accepted", "GSPRT accepted H1 (LLR {llr:.2f} >= {upper:.2f})"
//! if verdict == "rejected": return "rejected", "GSPRT accepted H0 (LLR {llr:.2f} <= {lower:.2f})"
//! if elo is None: return "rejected", "no games"
//! lower = elo["elo"] - elo["elo95"]
//! if lower > 0: return "accepted", "no GSPRT decision; Elo lower bound {lower:.1f} > 0"
//! return "rejected", "no GSPRT decision; Elo lower bound {lower:.1f} <= 0"
//! ```
//!
//! and `net_verdict` in `scripts/loop_lib.sh` (installation after `make_net.sh` and
//! `refine_net.sh`, on matches without a GSPRT), like `scripts/tune_hce.sh`:
//!
//! ```text
//! python3 -c "... sys.exit(0 if float(sys.argv[1]) - float(sys.argv[2]) > 0 else 1)" "$elo" "$half"
//! ```
//!
//! Both are this one rule: an interrupted match has no verdict; a GSPRT that reached a bound
//! decides (H1: accepted, H0: rejected); otherwise the net is accepted exactly when the
//! lower end of the 95% Elo interval, `elo - elo95`, is strictly above 0 (a lower end of
//! exactly 0, or NaN, rejects). Without a GSPRT (anchor and refinement matches) only the
//! interval rule applies, as in `net_verdict`.

use std::fmt;
use std::path::Path;

use serde::{Deserialize, Serialize};

/// How a match ended: the match runner's own type, read back from `summary.json`.
pub use crate::matches::MatchStatus;

/// The Elo figures a decision reads (`elo` of `summary.json`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct EloFigures {
    /// Games played.
    pub games: u64,
    /// Logistic Elo of the first engine.
    pub elo: f64,
    /// Half width of its 95% interval.
    pub elo95: f64,
}

/// Where a GSPRT stands (`sprt.verdict`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SprtVerdict {
    /// Neither bound reached.
    Continue,
    /// H1 accepted.
    Accepted,
    /// H0 accepted.
    Rejected,
}

/// The GSPRT figures a decision reads (`sprt` of `summary.json`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SprtFigures {
    /// Log-likelihood ratio.
    pub llr: f64,
    /// H0 is accepted at or below it.
    pub lower: f64,
    /// H1 is accepted at or above it.
    pub upper: f64,
    /// The verdict.
    pub verdict: SprtVerdict,
}

/// What a decision reads of a match's `summary.json` (other fields are ignored).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchSummary {
    /// How the match ended.
    pub status: MatchStatus,
    /// Elo figures; `None` before the first game.
    pub elo: Option<EloFigures>,
    /// The GSPRT, for matches played with `--sprt`.
    #[serde(default)]
    pub sprt: Option<SprtFigures>,
}

impl MatchSummary {
    /// Parses the text of a `summary.json`.
    pub fn from_json(text: &str) -> Result<MatchSummary, GateError> {
        serde_json::from_str(text).map_err(|e| GateError::Summary(e.to_string()))
    }

    /// Reads a match directory's `summary.json`.
    pub fn read(match_dir: &Path) -> Result<MatchSummary, GateError> {
        let path = match_dir.join("summary.json");
        let text = std::fs::read_to_string(&path)
            .map_err(|e| GateError::Summary(format!("{}: {e}", path.display())))?;
        MatchSummary::from_json(&text)
    }
}

/// Why a match gives no decision.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GateError {
    /// The match was interrupted: rerun it.
    #[error("the match was interrupted; rerun it")]
    Interrupted,
    /// The summary could not be read or parsed.
    #[error("match summary: {0}")]
    Summary(String),
}

/// Why a net was accepted or rejected.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Reason {
    /// The GSPRT accepted H1.
    SprtH1 {
        /// Its LLR.
        llr: f64,
        /// Its upper bound.
        upper: f64,
    },
    /// The GSPRT accepted H0.
    SprtH0 {
        /// Its LLR.
        llr: f64,
        /// Its lower bound.
        lower: f64,
    },
    /// No game was played.
    NoGames,
    /// No GSPRT decision: the lower end of the 95% Elo interval decided.
    Interval {
        /// `elo - elo95`.
        lower: f64,
    },
}

impl fmt::Display for Reason {
    /// The words of `scripts/loop_report.py gate`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Reason::SprtH1 { llr, upper } => {
                write!(f, "GSPRT accepted H1 (LLR {llr:.2} >= {upper:.2})")
            }
            Reason::SprtH0 { llr, lower } => {
                write!(f, "GSPRT accepted H0 (LLR {llr:.2} <= {lower:.2})")
            }
            Reason::NoGames => write!(f, "no games"),
            Reason::Interval { lower } if lower > 0.0 => {
                write!(f, "no GSPRT decision; Elo lower bound {lower:.1} > 0")
            }
            Reason::Interval { lower } => {
                write!(f, "no GSPRT decision; Elo lower bound {lower:.1} <= 0")
            }
        }
    }
}

/// A gate's decision.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Decision {
    /// Whether the first engine is kept.
    pub accepted: bool,
    /// Why.
    pub reason: Reason,
}

impl Decision {
    /// The line `loop_report.py gate` prints and `gate.txt` holds: `accepted<TAB>why` or
    /// `rejected<TAB>why`.
    pub fn gate_line(&self) -> String {
        let word = if self.accepted { "accepted" } else { "rejected" };
        format!("{word}\t{}", self.reason)
    }
}

/// The gate decision on a match (the module documentation has the rule).
pub fn decide(summary: &MatchSummary) -> Result<Decision, GateError> {
    if summary.status == MatchStatus::Interrupted {
        return Err(GateError::Interrupted);
    }
    let decision = |accepted, reason| Ok(Decision { accepted, reason });
    match summary.sprt {
        Some(SprtFigures { verdict: SprtVerdict::Accepted, llr, upper, .. }) => {
            return decision(true, Reason::SprtH1 { llr, upper });
        }
        Some(SprtFigures { verdict: SprtVerdict::Rejected, llr, lower, .. }) => {
            return decision(false, Reason::SprtH0 { llr, lower });
        }
        _ => {}
    }
    let Some(elo) = summary.elo else {
        return decision(false, Reason::NoGames);
    };
    let lower = elo.elo - elo.elo95;
    decision(lower > 0.0, Reason::Interval { lower })
}
