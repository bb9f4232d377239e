//! The variant spec as written in a TOML file (serde, unknown keys rejected).

use super::SpecError;
use serde::Deserialize;

/// One variant, as a user writes it. See `engine/variants/*.toml` for examples.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VariantSpec {
    /// Name.
    pub name: String,
    /// Files (1 to 8).
    pub width: u8,
    /// Ranks (1 to 8).
    pub height: u8,
    /// Start position (FEN).
    pub start_fen: String,
    /// Letters of the hand pieces in the order FEN output lists them (FSF's order).
    #[serde(default)]
    pub hand_order: String,
    /// Captured pieces go to the capturer's hand, demoted.
    #[serde(default)]
    pub captures_to_hand: bool,
    /// Chess castling for sides whose FEN rights allow it.
    #[serde(default)]
    pub castling: bool,
    /// En passant captures after a double step (an en-passant capture never promotes).
    #[serde(default)]
    pub en_passant: bool,
    /// Promotion is taken whenever possible (else optional unless the piece would be immobile).
    #[serde(default)]
    pub mandatory_promotion: bool,
    /// Pieces may not be dropped or moved (unpromoted) where they could never move again.
    #[serde(default = "yes")]
    pub immobility_illegal: bool,
    /// "loss" (the stalemated side loses) or "draw".
    #[serde(default = "loss")]
    pub stalemate: String,
    /// The n-move rule in moves (50 = 100 plies); 0 = none.
    #[serde(default)]
    pub move_rule: u16,
    /// The side that checked with every move of a repetition cycle loses.
    #[serde(default)]
    pub perpetual_check_loses: bool,
    /// When a repetition ends the game, and how.
    pub repetition: RepetitionSpec,
    /// Promotion, drop and flag zones.
    pub zones: ZoneSpec,
    /// The piece kinds (`[[piece]]` tables).
    #[serde(rename = "piece")]
    pub pieces: Vec<PieceSpec>,
    /// What the variant calls White (who moves first) and Black, for reports
    /// (default `["White", "Black"]`).
    #[serde(default = "default_sides")]
    pub sides: [String; 2],
    /// How Fairy-Stockfish's NNUE nets (HalfKAv2_variants) see the piece kinds, if they can.
    #[serde(default)]
    pub fsf_nnue: Option<FsfNnueSpec>,
}

/// The `[fsf_nnue]` table: Fairy-Stockfish's piece types in its NNUE order and the type each
/// kage kind is seen as (../shared/design/FSF-NNUE.md §5.2).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FsfNnueSpec {
    /// FSF's piece-type letters in its PieceType enum order, the king last, separated by
    /// spaces (`"B R S D P G H K"`).
    pub types: String,
    /// Every kage kind's symbol (`P`, `+P`) to the FSF type letter the net sees it as (a
    /// promoted kind is its promoted type: `"+P" = "G"`).
    pub kinds: std::collections::BTreeMap<String, String>,
}

fn default_sides() -> [String; 2] {
    ["White".to_owned(), "Black".to_owned()]
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RepetitionSpec {
    /// The occurrence that ends the game (3 or 4).
    pub count: u8,
    /// "draw" or "white_loses".
    pub verdict: String,
}

/// Rank lists are 1-based, as on the board.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct ZoneSpec {
    #[serde(default)]
    pub promotion_white: Vec<u8>,
    #[serde(default)]
    pub promotion_black: Vec<u8>,
    #[serde(default)]
    pub drop_white: Vec<u8>,
    #[serde(default)]
    pub drop_black: Vec<u8>,
    /// Campmate: a royal king arriving here wins at once.
    #[serde(default)]
    pub flag_white: Vec<u8>,
    #[serde(default)]
    pub flag_black: Vec<u8>,
    /// Campmate squares besides whole ranks (`["d4", "e4", "d5", "e5"]`: king of the hill).
    #[serde(default)]
    pub flag_squares_white: Vec<String>,
    #[serde(default)]
    pub flag_squares_black: Vec<String>,
}

/// One piece kind, as a user writes it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PieceSpec {
    /// `P`, or `+P` for the promoted form of `P`.
    pub letter: String,
    /// Full name.
    pub name: String,
    /// Movement in Betza notation (W F N K R B Q D A atoms; f b l r v s m c i n modifiers).
    pub betza: String,
    /// The king (exactly one kind).
    #[serde(default)]
    pub royal: bool,
    /// Chess pawn: its moves reset the move-rule counter; it may capture en passant.
    #[serde(default)]
    pub pawn: bool,
    /// Letter of the promoted kind (`+P`).
    #[serde(default)]
    pub promotes_to: Option<String>,
    /// Chess-style promotion instead: the unpromoted kinds (`["Q", "R", "B", "N"]`) the piece
    /// chooses among on promotion (at most 12; the first is the one quiescence tries). A
    /// promotion move names the choice in UCI (`a7a8q`).
    #[serde(default)]
    pub promotion_choices: Vec<String>,
    /// No drop on a file holding an own unpromoted piece of this kind (nifu).
    #[serde(default)]
    pub nifu: bool,
    /// A drop of this kind that checkmates loses for the dropper (shogi pawn-drop mate).
    #[serde(default)]
    pub drop_mate_loses: bool,
    /// Rook for castling.
    #[serde(default)]
    pub castling_rook: bool,
    /// Material value on the board (centipawns), for the hand-crafted evaluation.
    #[serde(default)]
    pub value: Option<i32>,
    /// Material value in hand (centipawns).
    #[serde(default)]
    pub hand_value: Option<i32>,
}

fn yes() -> bool {
    true
}

fn loss() -> String {
    "loss".to_string()
}

impl VariantSpec {
    /// Parses TOML text; unknown keys and wrong types are errors naming the key.
    pub fn parse(text: &str) -> Result<VariantSpec, SpecError> {
        toml::from_str(text).map_err(|e| SpecError::Syntax(e.to_string().trim().replace('\n', " ")))
    }
}
