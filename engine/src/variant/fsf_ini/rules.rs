//! A variant's rules as Fairy-Stockfish holds them (the fields of its `Variant` struct that kage
//! can play), built layer by layer: FSF's defaults, then each ancestor section, then the
//! section itself, applying the keys in the order FSF's parser applies them.

use super::FsfIniError;
use super::ini::Section;
use super::keys;
use super::pieces::{self, KING, PAWN, ROOK, TypeId};
use super::region::Region;
use std::collections::{BTreeMap, BTreeSet};

/// A set of piece types (`0` in it: every piece, FSF's `*`).
pub type Types = BTreeSet<TypeId>;

/// A game value (`win`, `loss`, `draw`, `none`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value {
    /// The side (to move) wins.
    Win,
    /// It loses.
    Loss,
    /// A draw.
    Draw,
    /// No verdict.
    None,
}

/// The rules of one variant as FSF holds them.
#[derive(Clone, Debug)]
pub struct Rules {
    pub width: u8,
    pub height: u8,
    /// Piece types and their letters (lowercase).
    pub pieces: BTreeMap<TypeId, char>,
    /// Movements of custom pieces.
    pub custom: BTreeMap<TypeId, String>,
    /// A custom royal movement (`king = k:Betza`).
    pub king_betza: Option<String>,
    pub start_fen: String,
    pub promotion_region: [Region; 2],
    pub promotion_pawn_types: [Types; 2],
    pub promotion_piece_types: [Types; 2],
    pub promoted: BTreeMap<TypeId, TypeId>,
    pub mandatory_pawn_promotion: bool,
    pub mandatory_piece_promotion: bool,
    pub double_step: bool,
    pub double_step_region: [Region; 2],
    pub en_passant_region: [Region; 2],
    pub en_passant_types: [Types; 2],
    pub castling: bool,
    pub castling_rook_pieces: [Types; 2],
    pub piece_drops: bool,
    pub captures_to_hand: bool,
    pub drop_region: [Region; 2],
    pub first_rank_pawn_drops: bool,
    pub promotion_zone_pawn_drops: bool,
    pub drop_no_doubled: TypeId,
    pub drop_no_doubled_count: i64,
    pub immobility_illegal: bool,
    pub n_move_rule_types: [Types; 2],
    pub n_move_rule: i64,
    pub n_fold_rule: i64,
    pub n_fold_value: Value,
    pub n_fold_value_absolute: bool,
    pub perpetual_check_illegal: bool,
    pub stalemate_value: Value,
    pub checkmate_value: Value,
    pub shogi_pawn_drop_mate_illegal: bool,
    /// `0`: any piece.
    pub flag_piece: [TypeId; 2],
    pub flag_region: [Region; 2],
    /// Keys kage does not translate: value and the section that set it.
    pub other: BTreeMap<String, (String, String)>,
    /// The section that last set each translated key (for error messages).
    pub origin: BTreeMap<String, String>,
}

fn set(t: TypeId) -> Types {
    [t].into_iter().collect()
}

impl Rules {
    /// FSF's defaults for a section without a parent (`Variant()` with no pieces).
    pub fn fsf_default() -> Rules {
        Rules {
            width: 8,
            height: 8,
            pieces: BTreeMap::new(),
            custom: BTreeMap::new(),
            king_betza: None,
            start_fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into(),
            promotion_region: [Region::rank(7), Region::rank(0)],
            promotion_pawn_types: [set(PAWN), set(PAWN)],
            promotion_piece_types: [Types::new(), Types::new()],
            promoted: BTreeMap::new(),
            mandatory_pawn_promotion: true,
            mandatory_piece_promotion: false,
            double_step: true,
            double_step_region: [Region::rank(1), Region::rank(6)],
            en_passant_region: [Region::ALL, Region::ALL],
            en_passant_types: [set(PAWN), set(PAWN)],
            castling: true,
            castling_rook_pieces: [set(ROOK), set(ROOK)],
            piece_drops: false,
            captures_to_hand: false,
            drop_region: [Region::ALL, Region::ALL],
            first_rank_pawn_drops: false,
            promotion_zone_pawn_drops: false,
            drop_no_doubled: 0,
            drop_no_doubled_count: 1,
            immobility_illegal: false,
            n_move_rule_types: [set(PAWN), set(PAWN)],
            n_move_rule: 50,
            n_fold_rule: 3,
            n_fold_value: Value::Draw,
            n_fold_value_absolute: false,
            perpetual_check_illegal: false,
            stalemate_value: Value::Draw,
            checkmate_value: Value::Loss,
            shogi_pawn_drop_mate_illegal: false,
            flag_piece: [0, 0],
            flag_region: [Region(0), Region(0)],
            other: BTreeMap::new(),
            origin: BTreeMap::new(),
        }
    }

    /// The type written `letter` in this variant.
    pub fn type_of(&self, letter: char) -> Option<TypeId> {
        let l = letter.to_ascii_lowercase();
        self.pieces.iter().find(|(_, c)| **c == l).map(|(t, _)| *t)
    }

    /// The section that set `key` last, or `fallback`.
    pub fn origin_of(&self, key: &str, fallback: &str) -> String {
        self.origin.get(key).cloned().unwrap_or_else(|| fallback.to_string())
    }

    fn remove_piece(&mut self, t: TypeId) {
        self.pieces.remove(&t);
        for c in 0..2 {
            self.promotion_piece_types[c].remove(&t);
        }
    }

    fn add_piece(&mut self, t: TypeId, letter: char) {
        if let Some(old) = self.type_of(letter) {
            self.remove_piece(old);
        }
        self.pieces.insert(t, letter.to_ascii_lowercase());
    }

    /// Applies one section's keys on top of these rules.
    pub fn apply(&mut self, s: &Section) -> Result<(), FsfIniError> {
        let mut l = Layer { s, rules: self };
        l.apply()
    }
}

/// One section being applied.
struct Layer<'a> {
    s: &'a Section,
    rules: &'a mut Rules,
}

/// The keys FSF applies as typed settings, in its parser's order (after the board size and the
/// pieces). Each is handled by [`Layer::typed`].
const TYPED: &[&str] = &[
    "promotionRank",
    "whiteFlag",
    "blackFlag",
    "castlingRookPiece",
    "whiteDropRegion",
    "blackDropRegion",
    "pawnTypes",
    "startFen",
    "promotionRegionWhite",
    "promotionRegionBlack",
    "promotionPawnTypes",
    "promotionPawnTypesWhite",
    "promotionPawnTypesBlack",
    "promotionPieceTypes",
    "promotionPieceTypesWhite",
    "promotionPieceTypesBlack",
    "promotedPieceType",
    "mandatoryPawnPromotion",
    "mandatoryPiecePromotion",
    "doubleStep",
    "doubleStepRegionWhite",
    "doubleStepRegionBlack",
    "enPassantRegion",
    "enPassantRegionWhite",
    "enPassantRegionBlack",
    "enPassantTypes",
    "enPassantTypesWhite",
    "enPassantTypesBlack",
    "castling",
    "castlingRookPieces",
    "castlingRookPiecesWhite",
    "castlingRookPiecesBlack",
    "pieceDrops",
    "capturesToHand",
    "firstRankPawnDrops",
    "promotionZonePawnDrops",
    "dropRegionWhite",
    "dropRegionBlack",
    "dropNoDoubled",
    "dropNoDoubledCount",
    "immobilityIllegal",
    "nMoveRuleTypes",
    "nMoveRuleTypesWhite",
    "nMoveRuleTypesBlack",
    "nMoveRule",
    "nFoldRule",
    "nFoldValue",
    "nFoldValueAbsolute",
    "perpetualCheckIllegal",
    "stalemateValue",
    "checkmateValue",
    "shogiPawnDropMateIllegal",
    "flagPiece",
    "flagPieceWhite",
    "flagPieceBlack",
    "flagRegion",
    "flagRegionWhite",
    "flagRegionBlack",
];

impl Layer<'_> {
    fn name(&self) -> String {
        self.s.name.clone()
    }

    fn bad(&self, key: &str, value: &str, why: impl Into<String>) -> FsfIniError {
        FsfIniError::BadValue {
            section: self.name(),
            key: key.into(),
            value: value.into(),
            why: why.into(),
        }
    }

    fn apply(&mut self) -> Result<(), FsfIniError> {
        let entries = self.s.effective();
        for e in &entries {
            let known = TYPED.contains(&e.key.as_str())
                || pieces::is_piece_key(&e.key)
                || keys::other(&e.key).is_some()
                || e.key == "maxRank"
                || e.key == "maxFile";
            if !known {
                return Err(FsfIniError::UnknownKey { section: self.name(), key: e.key.clone() });
            }
        }
        self.board()?;
        self.pieces()?;
        for key in TYPED {
            if let Some(e) = self.s.get(key) {
                self.typed(key, &e.value)?;
                self.rules.origin.insert((*key).to_string(), self.name());
            }
        }
        for e in entries {
            if keys::other(&e.key).is_some() {
                self.rules.other.insert(e.key.clone(), (e.value.clone(), self.name()));
            }
        }
        Ok(())
    }

    fn board(&mut self) -> Result<(), FsfIniError> {
        if let Some(e) = self.s.get("maxRank") {
            let r: u8 =
                e.value.parse().map_err(|_| self.bad("maxRank", &e.value, "a rank 1..10"))?;
            if !(1..=10).contains(&r) {
                return Err(self.bad("maxRank", &e.value, "a rank 1..10"));
            }
            self.rules.height = r;
        }
        if let Some(e) = self.s.get("maxFile") {
            let f = keys::file_number(&e.value)
                .filter(|f| (1..=12).contains(f))
                .ok_or_else(|| self.bad("maxFile", &e.value, "a file a..l or 1..12"))?;
            self.rules.width = f;
        }
        Ok(())
    }

    /// Piece keys, in FSF's type order: a letter adds the type (replacing any type with that
    /// letter), `-` removes it; custom pieces and a custom king carry `letter:Betza`.
    fn pieces(&mut self) -> Result<(), FsfIniError> {
        let mut found: Vec<(TypeId, &str, &str)> = self
            .s
            .effective()
            .into_iter()
            .filter_map(|e| pieces::by_key(&e.key).map(|t| (t, e.key.as_str(), e.value.as_str())))
            .collect();
        found.sort_by_key(|f| f.0);
        for (t, key, value) in found {
            let Some(first) = value.chars().next() else {
                continue;
            };
            if !first.is_ascii_alphabetic() {
                if first != '-' {
                    return Err(self.bad(key, value, "a piece letter, or '-' to remove the piece"));
                }
                self.rules.remove_piece(t);
                continue;
            }
            self.rules.add_piece(t, first);
            let betza = value.get(2..).unwrap_or("");
            if pieces::is_custom(t) {
                if value.len() < 3 || value.as_bytes().get(1) != Some(&b':') {
                    return Err(self.bad(key, value, "'letter:Betza' for a custom piece"));
                }
                if betza.contains('e') {
                    for c in 0..2 {
                        self.rules.en_passant_types[c].insert(t);
                    }
                }
                self.rules.custom.insert(t, betza.to_string());
            } else if t == KING {
                self.rules.king_betza = (value.len() > 1).then(|| betza.to_string());
            }
            self.rules.origin.insert(key.to_string(), self.name());
        }
        Ok(())
    }

    fn region(&self, key: &str, v: &str) -> Result<Region, FsfIniError> {
        Region::parse(v).map_err(|why| self.bad(key, v, why))
    }

    fn boolean(&self, key: &str, v: &str) -> Result<bool, FsfIniError> {
        match v {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(self.bad(key, v, "true or false")),
        }
    }

    fn int(&self, key: &str, v: &str) -> Result<i64, FsfIniError> {
        v.parse::<i64>()
            .ok()
            .filter(|n| (0..=10_000).contains(n))
            .ok_or_else(|| self.bad(key, v, "a number 0..10000"))
    }

    fn value(&self, key: &str, v: &str) -> Result<Value, FsfIniError> {
        match v {
            "win" => Ok(Value::Win),
            "loss" => Ok(Value::Loss),
            "draw" => Ok(Value::Draw),
            "none" => Ok(Value::None),
            _ => Err(self.bad(key, v, "win, loss, draw or none")),
        }
    }

    /// Piece letters (FSF reads one letter per character, spaces ignored; `*` = every piece,
    /// `-` = none).
    fn types(&self, key: &str, v: &str) -> Result<Types, FsfIniError> {
        let mut out = Types::new();
        for c in v.chars().filter(|c| !c.is_whitespace()) {
            match c {
                '-' => break,
                '*' => {
                    out.insert(0);
                }
                _ => {
                    let t = self.rules.type_of(c).ok_or_else(|| {
                        self.bad(key, v, format!("'{c}' is not a piece of the variant"))
                    })?;
                    out.insert(t);
                }
            }
        }
        Ok(out)
    }

    /// One piece type (the last letter given; `-` or nothing = none, `*` = any).
    fn one_type(&self, key: &str, v: &str) -> Result<TypeId, FsfIniError> {
        let mut last = 0;
        for c in v.chars().filter(|c| !c.is_whitespace()) {
            if c == '-' {
                break;
            }
            last = if c == '*' {
                0
            } else {
                *self.types(key, &c.to_string())?.iter().next().unwrap_or(&0)
            };
        }
        Ok(last)
    }

    /// `p:g s:g`: each base letter to its promoted letter (`-`: no promotion); entries not
    /// named keep their inherited value.
    fn promoted(&mut self, key: &str, v: &str) -> Result<(), FsfIniError> {
        for pair in v.split_whitespace() {
            let (a, b) = pair.split_once(':').ok_or_else(|| self.bad(key, v, "pairs 'x:y'"))?;
            let (Some(a), Some(b)) = (single(a), single(b)) else {
                return Err(self.bad(key, v, "pairs of one letter each, 'x:y'"));
            };
            let from = self.one_type(key, &a.to_string())?;
            let to = if b == '-' { 0 } else { self.one_type(key, &b.to_string())? };
            if from == 0 {
                return Err(self.bad(key, v, format!("'{a}' is not a piece of the variant")));
            }
            self.rules.promoted.insert(from, to);
        }
        Ok(())
    }

    fn typed(&mut self, key: &str, v: &str) -> Result<(), FsfIniError> {
        let both = |r: &mut [Region; 2], x: Region| *r = [x, x];
        match key {
            "promotionRank" => {
                let r = self.int(key, v)?.min(10) as u8;
                let h = self.rules.height;
                let (mut w, mut b) = (Region(0), Region(0));
                for rank in r.max(1)..=h {
                    w.0 |= Region::rank(rank - 1).0;
                    b.0 |= Region::rank(h - rank).0;
                }
                self.rules.promotion_region = [w, b];
            }
            "whiteFlag" | "flagRegionWhite" => self.rules.flag_region[0] = self.region(key, v)?,
            "blackFlag" | "flagRegionBlack" => self.rules.flag_region[1] = self.region(key, v)?,
            "flagRegion" => {
                let x = self.region(key, v)?;
                both(&mut self.rules.flag_region, x)
            }
            "castlingRookPiece" | "castlingRookPieces" => {
                let t = self.types(key, v)?;
                self.rules.castling_rook_pieces = [t.clone(), t];
            }
            "castlingRookPiecesWhite" => self.rules.castling_rook_pieces[0] = self.types(key, v)?,
            "castlingRookPiecesBlack" => self.rules.castling_rook_pieces[1] = self.types(key, v)?,
            "whiteDropRegion" | "dropRegionWhite" => {
                self.rules.drop_region[0] = self.region(key, v)?
            }
            "blackDropRegion" | "dropRegionBlack" => {
                self.rules.drop_region[1] = self.region(key, v)?
            }
            "pawnTypes" => {
                let t = self.types(key, v)?;
                self.rules.promotion_pawn_types = [t.clone(), t.clone()];
                self.rules.en_passant_types = [t.clone(), t.clone()];
                self.rules.n_move_rule_types = [t.clone(), t];
            }
            "startFen" => self.rules.start_fen = v.to_string(),
            "promotionRegionWhite" => self.rules.promotion_region[0] = self.region(key, v)?,
            "promotionRegionBlack" => self.rules.promotion_region[1] = self.region(key, v)?,
            "promotionPawnTypes" => {
                let t = self.types(key, v)?;
                self.rules.promotion_pawn_types = [t.clone(), t];
            }
            "promotionPawnTypesWhite" => self.rules.promotion_pawn_types[0] = self.types(key, v)?,
            "promotionPawnTypesBlack" => self.rules.promotion_pawn_types[1] = self.types(key, v)?,
            "promotionPieceTypes" => {
                let t = self.types(key, v)?;
                self.rules.promotion_piece_types = [t.clone(), t];
            }
            "promotionPieceTypesWhite" => {
                self.rules.promotion_piece_types[0] = self.types(key, v)?
            }
            "promotionPieceTypesBlack" => {
                self.rules.promotion_piece_types[1] = self.types(key, v)?
            }
            "promotedPieceType" => self.promoted(key, v)?,
            "mandatoryPawnPromotion" => {
                self.rules.mandatory_pawn_promotion = self.boolean(key, v)?
            }
            "mandatoryPiecePromotion" => {
                self.rules.mandatory_piece_promotion = self.boolean(key, v)?
            }
            "doubleStep" => self.rules.double_step = self.boolean(key, v)?,
            "doubleStepRegionWhite" => self.rules.double_step_region[0] = self.region(key, v)?,
            "doubleStepRegionBlack" => self.rules.double_step_region[1] = self.region(key, v)?,
            "enPassantRegion" => {
                let x = self.region(key, v)?;
                both(&mut self.rules.en_passant_region, x)
            }
            "enPassantRegionWhite" => self.rules.en_passant_region[0] = self.region(key, v)?,
            "enPassantRegionBlack" => self.rules.en_passant_region[1] = self.region(key, v)?,
            "enPassantTypes" => {
                let t = self.types(key, v)?;
                self.rules.en_passant_types = [t.clone(), t];
            }
            "enPassantTypesWhite" => self.rules.en_passant_types[0] = self.types(key, v)?,
            "enPassantTypesBlack" => self.rules.en_passant_types[1] = self.types(key, v)?,
            "castling" => self.rules.castling = self.boolean(key, v)?,
            "pieceDrops" => self.rules.piece_drops = self.boolean(key, v)?,
            "capturesToHand" => self.rules.captures_to_hand = self.boolean(key, v)?,
            "firstRankPawnDrops" => self.rules.first_rank_pawn_drops = self.boolean(key, v)?,
            "promotionZonePawnDrops" => {
                self.rules.promotion_zone_pawn_drops = self.boolean(key, v)?
            }
            "dropNoDoubled" => self.rules.drop_no_doubled = self.one_type(key, v)?,
            "dropNoDoubledCount" => self.rules.drop_no_doubled_count = self.int(key, v)?,
            "immobilityIllegal" => self.rules.immobility_illegal = self.boolean(key, v)?,
            "nMoveRuleTypes" => {
                let t = self.types(key, v)?;
                self.rules.n_move_rule_types = [t.clone(), t];
            }
            "nMoveRuleTypesWhite" => self.rules.n_move_rule_types[0] = self.types(key, v)?,
            "nMoveRuleTypesBlack" => self.rules.n_move_rule_types[1] = self.types(key, v)?,
            "nMoveRule" => self.rules.n_move_rule = self.int(key, v)?,
            "nFoldRule" => self.rules.n_fold_rule = self.int(key, v)?,
            "nFoldValue" => self.rules.n_fold_value = self.value(key, v)?,
            "nFoldValueAbsolute" => self.rules.n_fold_value_absolute = self.boolean(key, v)?,
            "perpetualCheckIllegal" => self.rules.perpetual_check_illegal = self.boolean(key, v)?,
            "stalemateValue" => self.rules.stalemate_value = self.value(key, v)?,
            "checkmateValue" => self.rules.checkmate_value = self.value(key, v)?,
            "shogiPawnDropMateIllegal" => {
                self.rules.shogi_pawn_drop_mate_illegal = self.boolean(key, v)?
            }
            "flagPiece" => {
                let t = self.one_type(key, v)?;
                self.rules.flag_piece = [t, t];
            }
            "flagPieceWhite" => self.rules.flag_piece[0] = self.one_type(key, v)?,
            "flagPieceBlack" => self.rules.flag_piece[1] = self.one_type(key, v)?,
            other => return Err(self.bad(other, v, "internal: a typed key without a handler")),
        }
        Ok(())
    }
}

fn single(s: &str) -> Option<char> {
    let mut c = s.chars();
    match (c.next(), c.next()) {
        (Some(x), None) => Some(x),
        _ => None,
    }
}
