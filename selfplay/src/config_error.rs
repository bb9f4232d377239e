//! [`ConfigError`]: why a setting of a run, match or search is refused, one case each.

use std::path::PathBuf;

/// An invalid setting (what `SelfplayError::Config` carries).
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A count that must be positive is 0 (`games`, `nodes`, `depth`).
    #[error("{0} must be at least 1")]
    Zero(&'static str),
    /// A number above what its setting allows (TOML integers, which the file headers are,
    /// stop at `i64::MAX`).
    #[error("{setting} {value} is above {max}")]
    Above {
        /// The setting.
        setting: &'static str,
        /// Its value.
        value: u64,
        /// The most it may be.
        max: u64,
    },
    /// A number outside its range.
    #[error("{setting} {value} is outside {min}..={max}")]
    Outside {
        /// The setting.
        setting: &'static str,
        /// Its value.
        value: i64,
        /// The least it may be.
        min: i64,
        /// The most it may be.
        max: i64,
    },
    /// A bound that must not be negative.
    #[error("{setting} {value} must not be negative")]
    Negative {
        /// The setting.
        setting: &'static str,
        /// Its value.
        value: i32,
    },
    /// A resignation score at or below 0.
    #[error("resign score {0} must be positive (at or below 0 every game is a resignation)")]
    ResignScore(i32),
    /// Node jitter with a depth budget.
    #[error("node jitter needs a node budget")]
    JitterNeedsNodes,
    /// A built-in variant name that is not one.
    #[error("{0}")]
    UnknownVariant(kage_engine::variant::SpecError),
    /// A user variant's spec that does not compile.
    #[error("variant spec: {0}")]
    Spec(kage_data::variant::VariantError),
    /// A user variant's spec named otherwise than asked.
    #[error("the variant spec is named {spec:?}, not {asked:?}")]
    SpecName {
        /// The name in the spec.
        spec: String,
        /// The name asked for.
        asked: String,
    },
    /// A user variant with a built-in variant's name.
    #[error("a user variant may not take the built-in name {0:?}; rename it")]
    BuiltinName(String),
    /// A variant name that is not a plain name (it names a directory).
    #[error(
        "variant name {0:?} is not a plain name (1 to 64 letters, digits, '_', '-' or '+'; \
         no '/', '..' or path)"
    )]
    NotAName(String),
    /// A shard outside its count.
    #[error("shard {index} of {count} is invalid (need 0 <= shard < shards)")]
    Shard {
        /// The shard.
        index: u32,
        /// The number of shards.
        count: u32,
    },
    /// An output directory another process holds.
    #[error(
        "{} is in use by another kage-selfplay run or match; wait for it or use another --out",
        .0.display()
    )]
    InUse(PathBuf),
    /// A run begun by another build, resumed without `--allow-rebuild`.
    #[error(
        "{} was begun by another build of kage-selfplay ({what}); resuming would pool games \
         of two builds: finish it with the build that began it, use another --out, or pass \
         --allow-rebuild",
        dir.display()
    )]
    OtherBuild {
        /// The run directory.
        dir: PathBuf,
        /// How the builds differ.
        what: String,
    },
    /// A report output that names a data file.
    #[error(
        "{flag} {} names a kage data file; a report goes to a file of its own (was the path \
         meant as an input?)",
        path.display()
    )]
    ReportOverData {
        /// The option.
        flag: String,
        /// The path given.
        path: PathBuf,
    },
    /// A transposition table this machine would not give in full.
    #[error(
        "cannot allocate {asked} MiB of hash for a worker thread (this machine gave {got} \
         MiB); use a smaller --hash or fewer --threads"
    )]
    Hash {
        /// The size asked for.
        asked: usize,
        /// The size allocated.
        got: usize,
    },
    /// A network given to the greedy player.
    #[error("the greedy player uses no network")]
    GreedyNet,
    /// A file given as an audit report that is not one.
    #[error("not an audit report (kage-selfplay audit --json)")]
    NotAnAudit,
    /// A ladder whose report is asked for before its steps are done.
    #[error("the ladder is not complete: {0}")]
    LadderIncomplete(String),
    /// A refusal of a rebalance search or a ladder (their own checks; boxed, as some of
    /// them are large).
    #[error(transparent)]
    Study(Box<crate::study_error::StudyError>),
}
