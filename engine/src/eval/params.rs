//! Evaluation parameters as data: one TOML file per built-in variant in `params/`, next to the
//! variant specs; material values come from the spec itself (`KindInfo::value`/`hand_value`).

use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};

/// Parameters of the hand-crafted evaluation for one variant (see `params/shinobiplus.toml`).
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
    /// Parses parameter TOML text.
    pub fn parse(text: &str) -> Result<EvalParams, toml::de::Error> {
        toml::from_str(text)
    }

    /// Built-in parameters by variant name; defaults for variants without a file.
    pub fn for_variant(name: &str) -> EvalParams {
        let text = match name {
            "shinobiplus" => include_str!("params/shinobiplus.toml"),
            "shinobi" => include_str!("params/shinobi.toml"),
            "gorogoroplus" => include_str!("params/gorogoroplus.toml"),
            "minishogi" => include_str!("params/minishogi.toml"),
            _ => return EvalParams::default(),
        };
        EvalParams::parse(text).expect("built-in evaluation parameters parse")
    }
}
