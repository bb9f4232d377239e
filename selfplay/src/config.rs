//! The generator config of one self-play run of one variant: everything that decides
//! which games come out. It is written (as TOML) into every data file header, into the
//! run directory, and compared on resume; thread count and progress display are not part
//! of it because they do not change the output.

use serde::{Deserialize, Serialize};

use crate::config_error::ConfigError;
use crate::error::SelfplayError;

/// Version of the self-play generation procedure. Bump it whenever a change makes the
/// same config produce different games (it is part of the config, hence of the hash).
pub const GENERATOR_VERSION: u32 = 1;

/// Largest integer a config holds (TOML integers are 64-bit signed).
pub const MAX_TOML_INT: u64 = i64::MAX as u64;

/// How much each search may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Budget {
    /// Fixed node count per move (deterministic).
    Nodes(u64),
    /// Fixed depth per move (deterministic).
    Depth(u32),
}

/// Who plays the moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum PlayerKind {
    /// The engine's search with the config's budget.
    Search,
    /// A 1-ply capture-greedy player (fast; for tests of the pipeline).
    Greedy,
}

/// How the random opening plies are chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum OpeningMode {
    /// Uniformly among all legal moves.
    Uniform,
    /// Uniformly among the MultiPV moves whose score is within `margin` of the best.
    Multipv,
}

/// Random opening plies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Openings {
    /// Number of random plies at the start of each game.
    pub random_plies: u32,
    /// How they are chosen.
    pub mode: OpeningMode,
    /// MultiPV width in `multipv` mode.
    pub multipv: u32,
    /// Margin in centipawns below the best line in `multipv` mode.
    pub margin_cp: i32,
}

impl Default for Openings {
    fn default() -> Self {
        Openings { random_plies: 8, mode: OpeningMode::Multipv, multipv: 4, margin_cp: 80 }
    }
}

/// Score-based adjudication, on top of the rules' own game ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Adjudication {
    /// Resign when the side-to-move-independent score stays beyond this bound (cp)...
    pub resign_cp: i32,
    /// ...for this many consecutive plies, both sides agreeing (0 disables).
    pub resign_plies: u32,
    /// Adjudicate a draw when |score| stays at or below this bound (cp)...
    pub draw_cp: i32,
    /// ...for this many consecutive plies (0 disables)...
    pub draw_plies: u32,
    /// ...once the game has at least this many plies.
    pub draw_min_ply: u32,
    /// Stop the game as a draw after this many plies (0: no cap).
    pub max_plies: u32,
}

impl Adjudication {
    /// Checks the settings (every command that adjudicates: generate, match, audit).
    pub fn validate(&self) -> Result<(), SelfplayError> {
        let bad = |e: ConfigError| Err(SelfplayError::Config(e));
        if self.resign_plies > 0 && self.resign_cp <= 0 {
            return bad(ConfigError::ResignScore(self.resign_cp));
        }
        if self.draw_plies > 0 && self.draw_cp < 0 {
            return bad(ConfigError::Negative { setting: "draw score bound", value: self.draw_cp });
        }
        if self.max_plies > u32::from(u16::MAX) {
            let (value, max) = (u64::from(self.max_plies), u64::from(u16::MAX));
            return bad(ConfigError::Above { setting: "ply cap", value, max });
        }
        Ok(())
    }
}

/// The variant `name`: the built-in one of that name, or the user variant of the spec text
/// `spec` (compiled once per text), whose name must be `name` and not a built-in's.
pub fn resolve_variant(
    name: &str,
    spec: Option<&str>,
) -> Result<&'static kage_engine::Variant, SelfplayError> {
    let Some(text) = spec else {
        return kage_engine::Variant::by_name(name)
            .map_err(|e| ConfigError::UnknownVariant(e).into());
    };
    let v = kage_data::variant::from_spec_cached(text).map_err(ConfigError::Spec)?;
    if v.name != name {
        return Err(ConfigError::SpecName { spec: v.name.clone(), asked: name.into() }.into());
    }
    if kage_engine::VariantId::from_name(&v.name).is_some() {
        return Err(ConfigError::BuiltinName(v.name.clone()).into());
    }
    Ok(v)
}

/// Checks a number of games to play (every command that plays games).
pub fn check_games(games: u64) -> Result<(), SelfplayError> {
    if games == 0 {
        return Err(ConfigError::Zero("games").into());
    }
    if games > MAX_TOML_INT {
        return Err(ConfigError::Above { setting: "games", value: games, max: MAX_TOML_INT }.into());
    }
    Ok(())
}

/// Checks that a variant name is a name, not a path: 1 to 64 ASCII letters, digits, `_`,
/// `-` or `+` (it names the run directory `<out>/<variant>`).
pub fn check_variant_name(name: &str) -> Result<(), SelfplayError> {
    let ok = (1..=64).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"_-+".contains(&b))
        && !name.starts_with(['-', '+']);
    if ok {
        return Ok(());
    }
    Err(ConfigError::NotAName(name.into()).into())
}

impl Default for Adjudication {
    fn default() -> Self {
        Adjudication {
            resign_cp: 1500,
            resign_plies: 4,
            draw_cp: 8,
            draw_plies: 12,
            draw_min_ply: 80,
            max_plies: 300,
        }
    }
}

/// The complete generator config of one variant's run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GenConfig {
    /// Producer and procedure version.
    pub generator: String,
    /// [`GENERATOR_VERSION`].
    pub generator_version: u32,
    /// Variant name.
    pub variant: String,
    /// Total games of the run (all shards together).
    pub games: u64,
    /// Run seed.
    pub seed: u64,
    /// Who plays.
    pub player: PlayerKind,
    /// Search budget per move.
    pub budget: Budget,
    /// Transposition table size per game thread, MiB.
    pub hash_mb: usize,
    /// Games per batch file (the unit of atomic writes and of resume).
    pub batch_size: u64,
    /// The spec text (TOML) of a user variant (`--variant-file`); absent for the built-in
    /// variants, so their configs (and hashes) are unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant_spec: Option<String>,
    /// Node jitter: each search's node budget is varied by up to this many percent either
    /// way, drawn from the game's random stream (variety without random moves). 0 (the
    /// default, then left out of the config text) for the fixed budget.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub nodes_jitter_pct: u32,
    /// Random openings.
    pub openings: Openings,
    /// Adjudication.
    pub adjudication: Adjudication,
    /// NNUE network file (as given) and its FNV-1a 64 hash, when one is used.
    pub net: Option<NetRef>,
}

fn is_zero(v: &u32) -> bool {
    *v == 0
}

/// The network a run evaluates with.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetRef {
    /// Path as given on the command line.
    pub path: String,
    /// FNV-1a 64 of the file contents, hex.
    pub hash: String,
}

impl GenConfig {
    /// A config with the defaults for everything but variant, games, seed and budget.
    pub fn new(variant: &str, games: u64, seed: u64, budget: Budget) -> Self {
        GenConfig {
            generator: format!("kage-selfplay {}", env!("CARGO_PKG_VERSION")),
            generator_version: GENERATOR_VERSION,
            variant: variant.to_owned(),
            games,
            seed,
            player: PlayerKind::Search,
            budget,
            hash_mb: 8,
            batch_size: 16,
            variant_spec: None,
            nodes_jitter_pct: 0,
            openings: Openings::default(),
            adjudication: Adjudication::default(),
            net: None,
        }
    }

    /// Checks every field; returns the config unchanged when valid.
    pub fn validated(self) -> Result<Self, SelfplayError> {
        let bad = |e: ConfigError| Err(SelfplayError::Config(e));
        let above = |setting, value, max| bad(ConfigError::Above { setting, value, max });
        let outside = |setting, value: u64, (min, max): (i64, i64)| {
            let value = i64::try_from(value).unwrap_or(i64::MAX);
            bad(ConfigError::Outside { setting, value, min, max })
        };
        check_variant_name(&self.variant)?;
        self.variant_def()?;
        check_games(self.games)?;
        // The run file and data file headers are TOML, whose integers are 64-bit signed.
        if self.seed > MAX_TOML_INT {
            return above("seed", self.seed, MAX_TOML_INT);
        }
        match self.budget {
            Budget::Nodes(0) => return bad(ConfigError::Zero("nodes")),
            Budget::Nodes(n) if n > MAX_TOML_INT => return above("nodes", n, MAX_TOML_INT),
            Budget::Depth(0) => return bad(ConfigError::Zero("depth")),
            Budget::Depth(d) if d > 64 => return above("depth", u64::from(d), 64),
            _ => {}
        }
        if !(1..=65536).contains(&self.hash_mb) {
            return outside("hash (MiB)", self.hash_mb as u64, (1, 65536));
        }
        if self.batch_size == 0 || self.batch_size > 1_000_000 {
            return outside("batch size", self.batch_size, (1, 1_000_000));
        }
        if self.nodes_jitter_pct > 90 {
            return above("node jitter (%)", u64::from(self.nodes_jitter_pct), 90);
        }
        if self.nodes_jitter_pct > 0 && !matches!(self.budget, Budget::Nodes(_)) {
            return bad(ConfigError::JitterNeedsNodes);
        }
        let o = &self.openings;
        if o.random_plies > 200 {
            return above("random opening plies", u64::from(o.random_plies), 200);
        }
        if o.mode == OpeningMode::Multipv && !(1..=64).contains(&o.multipv) {
            return outside("opening multipv", u64::from(o.multipv), (1, 64));
        }
        if o.margin_cp < 0 {
            return bad(ConfigError::Negative { setting: "opening margin", value: o.margin_cp });
        }
        self.adjudication.validate()?;
        Ok(self)
    }

    /// The variant: the built-in one of that name, or the user variant of `variant_spec`
    /// (whose name must be `variant`).
    pub fn variant_def(&self) -> Result<&'static kage_engine::Variant, SelfplayError> {
        resolve_variant(&self.variant, self.variant_spec.as_deref())
    }

    /// Canonical TOML text (what data file headers carry and the hash is taken of).
    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("the config always serialises")
    }

    /// Parses the TOML written by [`GenConfig::to_toml`].
    pub fn from_toml(text: &str) -> Result<Self, SelfplayError> {
        toml::from_str(text).map_err(SelfplayError::TomlRead)
    }

    /// FNV-1a 64 hash of [`GenConfig::to_toml`] (the data crate's `config_hash`).
    pub fn hash(&self) -> u64 {
        kage_data::config_hash(&self.to_toml())
    }

    /// Whether resignations or adjudicated draws can end games.
    pub fn adjudication_on(&self) -> bool {
        self.adjudication.resign_plies > 0 || self.adjudication.draw_plies > 0
    }

    /// Number of batches of the whole run.
    pub fn num_batches(&self) -> u64 {
        self.games.div_ceil(self.batch_size)
    }
}

/// A shard of a run: game indices `i` with `i % count == index`, so shards are disjoint and
/// together cover the run whatever the batch size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// This shard, `0..count`.
    pub index: u32,
    /// Number of shards.
    pub count: u32,
}

impl Shard {
    /// The whole run as one shard.
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// A validated shard.
    pub fn new(index: u32, count: u32) -> Result<Self, SelfplayError> {
        if count == 0 || index >= count {
            return Err(ConfigError::Shard { index, count }.into());
        }
        Ok(Shard { index, count })
    }

    /// The game indices of this shard in a run of `games` games, in order.
    pub fn games(self, games: u64) -> impl Iterator<Item = u64> + Clone {
        (u64::from(self.index)..games).step_by(self.count as usize)
    }

    /// Number of games of this shard.
    pub fn len(self, games: u64) -> u64 {
        games.saturating_sub(u64::from(self.index)).div_ceil(u64::from(self.count))
    }

    /// Whether this shard has no games.
    pub fn is_empty(self, games: u64) -> bool {
        self.len(games) == 0
    }

    /// Directory name of a shard's output (`None` for the whole run).
    pub fn dir_name(self) -> Option<String> {
        (self.count > 1).then(|| format!("shard-{:04}-of-{:04}", self.index, self.count))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toml_round_trip_and_validation() {
        let c = GenConfig::new("minishogi", 10, 3, Budget::Nodes(500)).validated().unwrap();
        assert_eq!(GenConfig::from_toml(&c.to_toml()).unwrap(), c);
        assert!(GenConfig::new("chess9", 10, 3, Budget::Nodes(5)).validated().is_err());
        assert!(GenConfig::new("minishogi", 0, 3, Budget::Nodes(5)).validated().is_err());
        assert!(GenConfig::new("minishogi", 1, 3, Budget::Depth(0)).validated().is_err());
        // Values TOML cannot hold are refused here, not found when the run file is written.
        let big = MAX_TOML_INT + 1;
        assert!(GenConfig::new("minishogi", 1, big, Budget::Nodes(5)).validated().is_err());
        assert!(GenConfig::new("minishogi", big, 3, Budget::Nodes(5)).validated().is_err());
        assert!(GenConfig::new("minishogi", 1, 3, Budget::Nodes(big)).validated().is_err());
        let edge = GenConfig::new("minishogi", MAX_TOML_INT, MAX_TOML_INT, Budget::Nodes(5));
        let edge = edge.validated().unwrap();
        assert_eq!(GenConfig::from_toml(&edge.to_toml()).unwrap(), edge);
    }

    #[test]
    fn node_jitter_is_optional_in_the_config_text() {
        let c = GenConfig::new("minishogi", 10, 3, Budget::Nodes(500)).validated().unwrap();
        // Left out when zero: the config texts (and hashes) of earlier runs do not change.
        assert!(!c.to_toml().contains("jitter"));
        let j = GenConfig { nodes_jitter_pct: 10, ..c.clone() }.validated().unwrap();
        assert!(j.to_toml().contains("nodes_jitter_pct = 10"));
        assert_eq!(GenConfig::from_toml(&j.to_toml()).unwrap(), j);
        assert_ne!(j.hash(), c.hash());
        assert!(GenConfig { nodes_jitter_pct: 91, ..c.clone() }.validated().is_err());
        let depth = GenConfig::new("minishogi", 10, 3, Budget::Depth(3));
        assert!(GenConfig { nodes_jitter_pct: 5, ..depth }.validated().is_err());
    }

    #[test]
    fn shards_partition_the_games() {
        let mut all: Vec<u64> = Vec::new();
        for i in 0..3 {
            let s = Shard::new(i, 3).unwrap();
            assert_eq!(s.games(10).count() as u64, s.len(10));
            all.extend(s.games(10));
        }
        all.sort();
        assert_eq!(all, (0..10).collect::<Vec<_>>());
        assert!(Shard::new(3, 3).is_err());
        assert_eq!(Shard::new(4, 5).unwrap().len(3), 0);
    }
}
