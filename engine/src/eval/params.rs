//! Evaluation parameters as data: one TOML file per built-in variant, its folder's
//! `engine/variants/<name>/hce.toml`, beside its spec; material values come from the spec itself
//! (`KindInfo::value`/`hand_value`).

use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};

/// Parameters of the hand-crafted evaluation for one variant (see
/// `engine/variants/shinobiplus/hce.toml`).
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct EvalParams {
    /// Bonus for the side to move.
    #[serde(default)]
    pub tempo: i32,
    /// Advancement bonus by relative rank, keyed by piece symbol (`P`, `+P`, ...).
    #[serde(default)]
    pub advance: HashMap<String, Vec<i32>>,
    /// Centrality bonus per step towards the centre, keyed by piece symbol.
    #[serde(default)]
    pub center: HashMap<String, i32>,
    /// Material on the board by piece symbol, overriding the spec's `value` for the
    /// evaluation only (search ordering and SEE keep the spec's values).
    #[serde(default)]
    pub material: BTreeMap<String, i32>,
    /// Material in hand by piece symbol, overriding the spec's `hand_value`.
    #[serde(default)]
    pub hand: BTreeMap<String, i32>,
    /// King placement terms.
    #[serde(default)]
    pub king: KingParams,
    /// King safety terms.
    #[serde(default)]
    pub king_safety: SafetyParams,
    /// Piece-square values by piece symbol, indexed `rank * width + file` on the board as
    /// the piece's own side sees it (Black's squares turned by 180 degrees); added to
    /// material, advancement and centrality.
    #[serde(default)]
    pub psq: HashMap<String, Vec<i32>>,
    /// Per attacked square not holding an own piece, by piece symbol
    /// ([`super::hce_features`]).
    #[serde(default)]
    pub mobility: BTreeMap<String, i32>,
    /// Per attacked square of the enemy king's ring, by piece symbol.
    #[serde(default)]
    pub king_attack: BTreeMap<String, i32>,
    /// An undefended piece the enemy attacks, its side to move, by piece symbol.
    #[serde(default)]
    pub hanging_to_move: BTreeMap<String, i32>,
    /// An undefended piece the enemy attacks, its side waiting, by piece symbol.
    #[serde(default)]
    pub hanging_waiting: BTreeMap<String, i32>,
    /// King danger for the king's own side, by cell
    /// [`super::hce_features::danger_cell`] (empty: none).
    #[serde(default)]
    pub king_danger: Vec<i32>,
}

/// Largest magnitude of an evaluation parameter (centipawns, or centipawns per unit).
pub const MAX_PARAM: i32 = 10_000;

/// Why evaluation parameters cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParamsError {
    /// Not TOML of the expected shape.
    #[error("evaluation parameters: {0}")]
    Syntax(String),
    /// A number out of range.
    #[error("evaluation parameters: {key} = {value} is outside -10000..=10000 (divisor: 1..)")]
    OutOfRange {
        /// The key (`psq.P`, `king_safety.divisor`, ...).
        key: String,
        /// The value given.
        value: i32,
    },
}

/// King placement terms of the evaluation.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct KingParams {
    /// King placement by relative rank.
    #[serde(default)]
    pub advance: Vec<i32>,
    /// Bonus by rank distance to the campmate ranks, scaled down by danger near the king.
    #[serde(default)]
    pub flag: Vec<i32>,
}

/// `danger = attacker * enemies within two squares + hand * enemy hand pieces
/// - defender * own pieces next to the king`; penalty `danger^2 / divisor`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SafetyParams {
    /// Weight of each enemy piece within two squares of the king.
    pub attacker: i32,
    /// Weight of each enemy piece in hand.
    pub hand: i32,
    /// Weight of each own piece next to the king.
    pub defender: i32,
    /// The penalty is `danger^2 / divisor`.
    pub divisor: i32,
}

impl Default for SafetyParams {
    fn default() -> Self {
        SafetyParams { attacker: 12, hand: 6, defender: 8, divisor: 40 }
    }
}

impl EvalParams {
    /// Parses parameter TOML text; every number must lie in `-MAX_PARAM..=MAX_PARAM` and the
    /// king-safety divisor be positive, so that the evaluation neither wraps nor reaches the
    /// mate scores.
    pub fn parse(text: &str) -> Result<EvalParams, ParamsError> {
        let p: EvalParams = toml::from_str(text)
            .map_err(|e| ParamsError::Syntax(e.to_string().trim().replace('\n', " ")))?;
        p.check()?;
        Ok(p)
    }

    fn check(&self) -> Result<(), ParamsError> {
        let s = &self.king_safety;
        if s.divisor < 1 {
            return Err(ParamsError::OutOfRange {
                key: "king_safety.divisor".into(),
                value: s.divisor,
            });
        }
        let mut all: Vec<(String, i32)> = vec![("tempo".into(), self.tempo)];
        let safety = [("attacker", s.attacker), ("hand", s.hand), ("defender", s.defender)];
        all.extend(safety.map(|(k, v)| (format!("king_safety.{k}"), v)));
        let lists = [("king.advance", &self.king.advance), ("king.flag", &self.king.flag)];
        for (key, list) in lists.into_iter().chain([("king_danger", &self.king_danger)]) {
            all.extend(list.iter().map(|&v| (key.to_string(), v)));
        }
        for (key, map) in [("advance", &self.advance), ("psq", &self.psq)] {
            for (sym, list) in map {
                all.extend(list.iter().map(|&v| (format!("{key}.{sym}"), v)));
            }
        }
        all.extend(self.center.iter().map(|(sym, &v)| (format!("center.{sym}"), v)));
        let maps = [
            ("material", &self.material),
            ("hand", &self.hand),
            ("mobility", &self.mobility),
            ("king_attack", &self.king_attack),
            ("hanging_to_move", &self.hanging_to_move),
            ("hanging_waiting", &self.hanging_waiting),
        ];
        for (key, map) in maps {
            all.extend(map.iter().map(|(sym, &v)| (format!("{key}.{sym}"), v)));
        }
        match all.into_iter().find(|(_, v)| !(-MAX_PARAM..=MAX_PARAM).contains(v)) {
            Some((key, value)) => Err(ParamsError::OutOfRange { key, value }),
            None => Ok(()),
        }
    }

    /// Built-in parameters by variant name (`engine/variants/<name>/hce.toml`); defaults for a
    /// variant that is not built in.
    pub fn for_variant(name: &str) -> EvalParams {
        match crate::VariantId::from_name(name) {
            Some(id) => {
                EvalParams::parse(id.folder().hce).expect("built-in evaluation parameters parse")
            }
            None => EvalParams::default(),
        }
    }
}
