//! `kage-selfplay match`: engine against engine in game pairs with swapped sides, refereed
//! by kage's rules, with fishtest's statistics and GSPRT, PGN, a JSON summary, resume and
//! fault handling for outside engines.
//!
//! * [`engine`]: players (built-in search in this process, or an outside UCI engine).
//! * [`uci`]: the outside-engine process and protocol.
//! * [`game`]: one refereed game; [`openings`]: where games start.
//! * [`stats`], [`sprt`]: Elo, intervals, LOS, pentanomial counts, GSPRT.
//! * [`pgn`], [`log`]: outputs and the resumable pair log; [`runner`]: the match itself;
//!   [`error`]: why a match cannot run or has to stop.
//! * [`results`]: committed match results (`summary.json`, `match.json`) as a Markdown
//!   table, and a document's marked block checked against it (`kage-selfplay results`).

pub mod engine;
pub mod error;
pub mod game;
pub mod log;
pub mod openings;
pub mod pgn;
pub mod results;
pub mod runner;
pub mod sprt;
pub mod stats;
pub mod uci;

use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;

pub use engine::{EngineKind, EngineSpec};
pub use error::MatchError;
pub use game::{LimitError, LimitSpec};
pub use openings::{OpeningSpec, Order};
pub use runner::{MatchReport, MatchStatus, run};
pub use sprt::{Model, Sprt};
pub use stats::Counts;
pub use uci::UciSpec;

/// Everything a match needs.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// The variant (its name as engines know it).
    pub variant: String,
    /// The spec text of a user variant (`--variant-file`); `None` for a built-in.
    pub variant_spec: Option<String>,
    /// The first and the second engine (results are the first one's).
    pub engines: [EngineSpec; 2],
    /// Search limit per move.
    pub limit: LimitSpec,
    /// Where openings come from.
    pub openings: OpeningSpec,
    /// Seeds openings and node jitter.
    pub seed: u64,
    /// A game still running after this many plies is a draw.
    pub max_plies: u32,
    /// Resignation and draw adjudication on the engines' scores (its `max_plies` unused).
    pub adjudication: crate::config::Adjudication,
    /// Games to play at most (rounded up to whole pairs).
    pub games: u64,
    /// Games at once.
    pub threads: usize,
    /// Stop at a GSPRT bound.
    pub sprt: Option<Sprt>,
    /// The match directory.
    pub out: PathBuf,
    /// Score and time comments in the PGN.
    pub pgn_scores: bool,
    /// How much longer than asked a move may take before the engine counts as hanging.
    pub hang: Duration,
    /// Engine faults in a row (without a finished pair between them) that stop the match.
    pub max_failures: u32,
    /// Progress: a line every so many games...
    pub progress_games: u64,
    /// ...or seconds, whichever comes first (on a terminal: a line rewritten every pair).
    pub progress_secs: f64,
    /// No progress at all.
    pub quiet: bool,
    /// Play random openings (`OpeningSpec::Random`) even though an engine is an outside one
    /// (without it such a match is refused: it needs a balanced book, `--openings FILE`).
    pub random_openings: bool,
    /// Resume a match whose engines' builds changed (a rebuilt program, another `id name`):
    /// said on stderr, its games then pool two builds. Off: such a resume is refused.
    pub allow_rebuilt: bool,
    /// The command line that started the match, recorded in `summary.json` (not part of the
    /// match's identity); empty from library callers.
    pub command: Vec<String>,
}

/// What makes a match the same match on resume (threads, game count, outputs, SPRT bounds
/// may change).
#[derive(Serialize)]
struct Identity<'a> {
    variant: &'a str,
    /// A user variant's spec text (absent for built-ins: earlier identities unchanged).
    #[serde(skip_serializing_if = "Option::is_none")]
    variant_spec: Option<&'a str>,
    engines: &'a [EngineSpec; 2],
    limit: &'a LimitSpec,
    openings: &'a OpeningSpec,
    seed: u64,
    max_plies: u32,
    adjudication: &'a crate::config::Adjudication,
    /// Hashes of the built-in players' network files (a changed file is another match).
    nets: [Option<String>; 2],
}

impl MatchConfig {
    /// The identity recorded in `match.json`.
    pub fn identity(&self) -> serde_json::Value {
        serde_json::to_value(Identity {
            variant: &self.variant,
            variant_spec: self.variant_spec.as_deref(),
            engines: &self.engines,
            limit: &self.limit,
            openings: &self.openings,
            seed: self.seed,
            max_plies: self.max_plies,
            adjudication: &self.adjudication,
            nets: [0, 1].map(|i| match &self.engines[i].kind {
                EngineKind::Builtin { net: Some(p), .. }
                | EngineKind::Builtin { params: Some(p), .. } => {
                    kage_engine::util::read::read_capped(
                        p,
                        kage_engine::util::read::cap::NET,
                        "file",
                    )
                    .ok()
                    .map(|b| crate::player::file_hash(&b))
                }
                _ => None,
            }),
        })
        .unwrap_or(serde_json::Value::Null)
    }

    /// Checks every setting (the same checks whichever command builds the config): the
    /// variant, the limit, the game count, the adjudication, the ply cap.
    pub fn validated(self) -> Result<Self, MatchError> {
        crate::config::check_variant_name(&self.variant)?;
        self.limit.validate()?;
        crate::config::check_games(self.games)?;
        self.adjudication.validate()?;
        let outside = self.engines.iter().find(|e| matches!(e.kind, EngineKind::Uci(_)));
        if let (Some(e), OpeningSpec::Random { .. }) = (outside, &self.openings)
            && !self.random_openings
        {
            return Err(MatchError::OutsideNeedsBook(e.name.clone()));
        }
        for e in &self.engines {
            if let EngineKind::Builtin { nodes: Some(n), .. } = e.kind {
                if !matches!(self.limit, LimitSpec::Nodes { .. }) {
                    return Err(MatchError::NodesNeedNodeLimit(e.name.clone()));
                }
                LimitSpec::Nodes { nodes: n, jitter: 0.0 }
                    .validate()
                    .map_err(|cause| MatchError::EngineNodes { engine: e.name.clone(), cause })?;
            }
        }
        if self.max_plies == 0 || self.max_plies > u32::from(u16::MAX) {
            return Err(MatchError::PlyCap(self.max_plies));
        }
        Ok(self)
    }

    /// Each engine's own node budget, where it has one (first engine first).
    pub fn engine_nodes(&self) -> [Option<u64>; 2] {
        [0, 1].map(|i| match self.engines[i].kind {
            EngineKind::Builtin { nodes, .. } => nodes,
            EngineKind::Uci(_) => None,
        })
    }

    /// Pairs to play at most.
    pub fn pairs(&self) -> u64 {
        self.games.div_ceil(2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(out: &std::path::Path) -> MatchConfig {
        let builtin = |name: &str, net: Option<PathBuf>| EngineSpec {
            name: name.into(),
            kind: EngineKind::Builtin { net, hash_mb: 1, params: None, hce: false, nodes: None },
        };
        MatchConfig {
            variant: "minishogi".into(),
            variant_spec: None,
            engines: [builtin("a", None), builtin("b", None)],
            limit: LimitSpec::Nodes { nodes: 10, jitter: 0.0 },
            openings: OpeningSpec::Random { openings: Default::default(), nodes: 10 },
            seed: 1,
            max_plies: 100,
            adjudication: Default::default(),
            games: 2,
            threads: 1,
            sprt: None,
            out: out.to_path_buf(),
            pgn_scores: false,
            hang: Duration::from_secs(10),
            max_failures: 3,
            progress_games: 10,
            progress_secs: 10.0,
            quiet: true,
            random_openings: false,
            allow_rebuilt: false,
            command: Vec::new(),
        }
    }

    #[test]
    fn refusals_are_typed() {
        let dir = tempfile::tempdir().unwrap();
        let ok = || cfg(&dir.path().join("m"));
        assert!(ok().validated().is_ok());
        let e = MatchConfig { max_plies: 0, ..ok() }.validated().unwrap_err();
        assert!(matches!(e, MatchError::PlyCap(0)), "{e:?}");
        assert_eq!(e.to_string(), "ply cap 0 is outside 1..=65535");
        let e = MatchConfig { limit: LimitSpec::Depth(0), ..ok() }.validated().unwrap_err();
        assert!(matches!(e, MatchError::Limit(LimitError::Depth(0))), "{e:?}");
        let e = MatchConfig { games: 0, ..ok() }.validated().unwrap_err();
        assert!(matches!(e, MatchError::Selfplay(crate::SelfplayError::Config(_))), "{e:?}");
        let mut c = ok();
        c.engines[1].kind = EngineKind::Uci(UciSpec {
            cmd: "engine".into(),
            args: Vec::new(),
            dir: None,
            options: Vec::new(),
        });
        let e = c.validated().unwrap_err();
        assert!(matches!(&e, MatchError::OutsideNeedsBook(n) if n == "b"), "{e:?}");
        // A network that cannot be read is refused before the directory is touched.
        let mut c = ok();
        c.engines[0].kind = EngineKind::Builtin {
            net: Some(dir.path().join("missing.nnue")),
            hash_mb: 1,
            params: None,
            hce: false,
            nodes: None,
        };
        let e = run(&c, &std::sync::atomic::AtomicBool::new(false)).unwrap_err();
        let MatchError::Eval { engine, part, cause } = &e else { panic!("{e:?}") };
        assert_eq!((engine.as_str(), *part), ("a", "network"));
        assert!(matches!(**cause, engine::EvalError::ReadNet { .. }), "{e:?}");
        assert!(!dir.path().join("m").exists());
    }
}
