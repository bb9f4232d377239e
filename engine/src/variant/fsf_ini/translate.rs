//! FSF rules to kage's spec TOML: every rule kage can express is translated; any other rule that
//! is not at FSF's default is an error naming its key and the section that set it.

use super::FsfIniError;
use super::betza;
use super::keys;
use super::pieces::{self, KING, PAWN, SHOGI_PAWN, TypeId};
use super::region::Region;
use super::rules::{Rules, Types, Value};
use std::collections::BTreeSet;
use std::fmt::Write as _;

mod values;

/// One kage piece kind made from an FSF type.
struct Kind {
    /// The FSF type (for a promoted kind: its base's type).
    base: TypeId,
    /// The type whose movement it has.
    moves_as: TypeId,
    promoted: bool,
    betza: String,
    pawn: bool,
    /// Material value for kage's evaluation ([`Translation::set_values`]).
    value: i32,
}

/// Translates `r` (the rules of variant `name`) into kage spec TOML.
pub fn spec_toml(name: &str, r: &Rules) -> Result<String, FsfIniError> {
    let t = Translation { name, r };
    t.run()
}

struct Translation<'a> {
    name: &'a str,
    r: &'a Rules,
}

impl Translation<'_> {
    fn unsupported(
        &self,
        key: &str,
        value: impl Into<String>,
        why: impl Into<String>,
    ) -> FsfIniError {
        FsfIniError::Unsupported {
            section: self.r.origin_of(key, self.name),
            key: key.to_string(),
            value: value.into(),
            why: why.into(),
        }
    }

    fn board(&self) -> Region {
        Region::board(self.r.width, self.r.height)
    }

    fn run(&self) -> Result<String, FsfIniError> {
        self.check_other_keys()?;
        let (w, h) = (self.r.width, self.r.height);
        if w > 8 {
            return Err(self.unsupported(
                "maxFile",
                w.to_string(),
                "kage boards have at most 8 files",
            ));
        }
        if h > 8 {
            return Err(self.unsupported(
                "maxRank",
                h.to_string(),
                "kage boards have at most 8 ranks",
            ));
        }
        let fen = Fen::read(&self.r.start_fen);
        let mut bases = self.base_types(&fen)?;
        let choice = self.choice_promotion(&bases)?;
        for &t in &choice.targets {
            if !bases.contains(&t) {
                bases.push(t);
            }
        }
        bases[1..].sort_unstable();
        let double_step = self.double_step()?;
        let mut kinds = Vec::new();
        for &t in &bases {
            kinds.push(self.kind(t, t, false, double_step)?);
        }
        let promotions = self.promotions(&bases, &choice.pawns)?;
        for &(b, to) in &promotions {
            kinds.push(self.kind(b, to, true, false)?);
        }
        self.pawn_flags(&mut kinds, double_step)?;
        self.set_values(&mut kinds, &choice, &fen);
        let hand = self.hand(&bases, &fen)?;
        let mut promoting: Vec<TypeId> = promotions.iter().map(|p| p.0).collect();
        promoting.extend(&choice.pawns);
        let mut out = String::new();
        self.header(&mut out, &hand, double_step, &promoting)?;
        self.zones(&mut out, !promoting.is_empty(), !hand.is_empty())?;
        self.piece_tables(&mut out, &kinds, &promotions, &choice)?;
        self.fsf_nnue(&mut out, &kinds, &fen);
        Ok(out)
    }

    /// Keys kage does not translate must keep FSF's default.
    fn check_other_keys(&self) -> Result<(), FsfIniError> {
        for (key, (value, section)) in &self.r.other {
            let Some(d) = keys::other(key) else { continue };
            if !keys::is_default(d, value) {
                return Err(FsfIniError::Unsupported {
                    section: section.clone(),
                    key: key.clone(),
                    value: value.clone(),
                    why: "kage does not play this rule (only its default value is accepted)".into(),
                });
            }
        }
        Ok(())
    }

    /// The types that are kinds of their own: those in the start position (board or hand,
    /// promoted or not), the king first, then in FSF's type order.
    fn base_types(&self, fen: &Fen) -> Result<Vec<TypeId>, FsfIniError> {
        let mut types = BTreeSet::new();
        for c in fen.letters() {
            let t = self.r.type_of(c).ok_or_else(|| FsfIniError::BadValue {
                section: self.r.origin_of("startFen", self.name),
                key: "startFen".into(),
                value: self.r.start_fen.clone(),
                why: format!("'{c}' is not a piece of the variant"),
            })?;
            types.insert(t);
        }
        if !self.r.pieces.contains_key(&KING) || !types.contains(&KING) {
            return Err(self.unsupported(
                "king",
                "-",
                "kage needs exactly one royal king per side (variants without a king, or won by \
                 extinction, are not in its rules)",
            ));
        }
        let mut out = vec![KING];
        out.extend(types.into_iter().filter(|&t| t != KING));
        Ok(out)
    }

    /// Whether pawns double-step (from their second rank, as kage's `i` does).
    fn double_step(&self) -> Result<bool, FsfIniError> {
        let r = self.r;
        let b = self.board();
        let (w, bl) = (r.double_step_region[0].and(b), r.double_step_region[1].and(b));
        if !r.double_step || (w.is_empty() && bl.is_empty()) {
            return Ok(false);
        }
        let h = r.height;
        let standard = h >= 4 && w == Region::rank(1).and(b) && bl == Region::rank(h - 2).and(b);
        if !standard {
            let key = if w != Region::rank(1).and(b) {
                "doubleStepRegionWhite"
            } else {
                "doubleStepRegionBlack"
            };
            return Err(self.unsupported(
                key,
                "",
                "kage's pawns double-step from their second rank only (FSF's default region is \
                 ranks 2 and 7 whatever the board: set doubleStep = false or the regions)",
            ));
        }
        Ok(true)
    }

    /// The FSF movement of type `t`.
    fn fsf_betza(&self, t: TypeId) -> String {
        if t == KING {
            return self.r.king_betza.clone().unwrap_or_else(|| "K".into());
        }
        if let Some(b) = self.r.custom.get(&t) {
            return b.clone();
        }
        pieces::builtin_betza(t).unwrap_or("").to_string()
    }

    fn kind(
        &self,
        base: TypeId,
        moves_as: TypeId,
        promoted: bool,
        ds: bool,
    ) -> Result<Kind, FsfIniError> {
        let fsf = self.fsf_betza(moves_as);
        let key = pieces::name(moves_as);
        let mut betza = if moves_as == PAWN {
            "fmWfcF".to_string()
        } else {
            betza::translate(&fsf).map_err(|why| self.unsupported(&key, fsf.clone(), why))?
        };
        if moves_as == PAWN && ds && !promoted {
            betza.push_str("ifmnD");
        }
        if betza.contains('i') && !ds {
            betza = betza.replace("ifmnD", "");
            if betza.is_empty() {
                return Err(self.unsupported(&key, fsf, "a piece that never moves"));
            }
        }
        Ok(Kind { base, moves_as, promoted, betza, pawn: false, value: 0 })
    }

    /// Chess-style promotion (`promotionPieceTypes`): the pawn types among `bases` that choose
    /// the type they become, and the types they choose among.
    fn choice_promotion(&self, bases: &[TypeId]) -> Result<Choice, FsfIniError> {
        let r = self.r;
        let b = self.board();
        let none = Choice { pawns: Vec::new(), targets: Vec::new() };
        let zone_on_board =
            !r.promotion_region[0].and(b).is_empty() || !r.promotion_region[1].and(b).is_empty();
        let present = |t: &&TypeId| r.pieces.contains_key(*t);
        let white: Types = r.promotion_piece_types[0].iter().filter(present).copied().collect();
        let black: Types = r.promotion_piece_types[1].iter().filter(present).copied().collect();
        let pawn_types: Types =
            r.promotion_pawn_types[0].union(&r.promotion_pawn_types[1]).copied().collect();
        let pawns: Vec<TypeId> = bases
            .iter()
            .copied()
            .filter(|&t| t != KING && (pawn_types.contains(&t) || pawn_types.contains(&0)))
            .collect();
        if !zone_on_board || pawns.is_empty() || (white.is_empty() && black.is_empty()) {
            return Ok(none);
        }
        let letters = |s: &Types| s.iter().filter_map(|t| r.pieces.get(t)).collect::<String>();
        if white != black {
            return Err(self.unsupported(
                "promotionPieceTypesWhite",
                letters(&white),
                format!(
                    "the two sides choose among different types (Black: '{}'); kage's promotion \
                     choices are the same for both",
                    letters(&black)
                ),
            ));
        }
        if r.captures_to_hand {
            return Err(self.unsupported(
                "promotionPieceTypes",
                letters(&white),
                "with capturesToHand FSF returns a captured promoted piece to hand as a pawn \
                 (Q~); kage's chess-style promotion makes the chosen piece itself",
            ));
        }
        if white.contains(&KING) {
            return Err(self.unsupported("promotionPieceTypes", letters(&white), "the king"));
        }
        if let Some(p) = pawns.iter().find(|t| r.promoted.get(t).is_some_and(|&to| to != 0)) {
            return Err(self.unsupported(
                "promotedPieceType",
                "",
                format!(
                    "{} both chooses its promotion (promotionPieceTypes) and promotes to one type",
                    pieces::name(*p)
                ),
            ));
        }
        Ok(Choice { pawns, targets: white.into_iter().collect() })
    }

    /// Shogi-style promotions of the base kinds but the `choosers` (chess-style pawns): (base,
    /// promoted type), checked against what kage can play.
    fn promotions(
        &self,
        bases: &[TypeId],
        choosers: &[TypeId],
    ) -> Result<Vec<(TypeId, TypeId)>, FsfIniError> {
        let r = self.r;
        let b = self.board();
        let zone_on_board =
            !r.promotion_region[0].and(b).is_empty() || !r.promotion_region[1].and(b).is_empty();
        let mut out = Vec::new();
        if !zone_on_board {
            return Ok(out);
        }
        let pawn_types: Types =
            r.promotion_pawn_types[0].union(&r.promotion_pawn_types[1]).copied().collect();
        let chess: Types = r.promotion_piece_types[0]
            .union(&r.promotion_piece_types[1])
            .copied()
            .filter(|t| r.pieces.contains_key(t))
            .collect();
        for &t in bases.iter().filter(|t| !choosers.contains(t)) {
            let to = r.promoted.get(&t).copied().unwrap_or(0);
            let is_pawn = pawn_types.contains(&t) || pawn_types.contains(&0);
            if is_pawn && t != KING && !chess.is_empty() {
                let letters: String = chess.iter().filter_map(|t| r.pieces.get(t)).collect();
                return Err(self.unsupported(
                    "promotionPieceTypes",
                    letters,
                    "chess-style promotion (the pawn chooses the piece it becomes) is not in \
                     kage's rules: a kage piece promotes to its one promoted form (+X)",
                ));
            }
            if to == 0 {
                if is_pawn && t != KING && r.mandatory_pawn_promotion {
                    return Err(self.unsupported(
                        "promotionPieceTypes",
                        "-",
                        "in FSF a pawn with nothing to promote to may not enter its promotion \
                         region; kage has no such rule",
                    ));
                }
                continue;
            }
            if t == KING || to == KING || !r.pieces.contains_key(&to) {
                return Err(self.unsupported("promotedPieceType", "", "the king cannot promote or be promoted to, and the promoted type must be a piece of the variant"));
            }
            if r.promoted.get(&to).is_some_and(|&x| x != 0) && !bases.contains(&to) {
                return Err(self.unsupported(
                    "promotedPieceType",
                    "",
                    "a promoted piece that promotes again",
                ));
            }
            out.push((t, to));
        }
        let mut promoting: Vec<TypeId> = out.iter().map(|p| p.0).collect();
        promoting.extend(choosers);
        self.mandatory(&promoting, &pawn_types)?;
        Ok(out)
    }

    /// FSF's promotion is mandatory for all promoting kinds, or for none (kage has one rule).
    fn mandatory(&self, promoting: &[TypeId], pawn_types: &Types) -> Result<(), FsfIniError> {
        let r = self.r;
        let m = |t: &TypeId| {
            r.mandatory_piece_promotion || (pawn_types.contains(t) && r.mandatory_pawn_promotion)
        };
        let all: BTreeSet<bool> = promoting.iter().map(m).collect();
        if all.len() > 1 {
            return Err(self.unsupported(
                "mandatoryPiecePromotion",
                r.mandatory_piece_promotion.to_string(),
                "promotion would be mandatory for pawns (mandatoryPawnPromotion) but optional for \
                 other pieces; kage has one rule for all",
            ));
        }
        Ok(())
    }

    /// Whether promotion is mandatory, for the `promoting` types (FSF's two rules agree on
    /// them: [`Self::mandatory`]).
    fn mandatory_promotion(&self, promoting: &[TypeId]) -> bool {
        let r = self.r;
        let pawns: Types =
            r.promotion_pawn_types[0].union(&r.promotion_pawn_types[1]).copied().collect();
        let pawn = |t: &TypeId| pawns.contains(t) || pawns.contains(&0);
        !promoting.is_empty()
            && (r.mandatory_piece_promotion
                || (r.mandatory_pawn_promotion && promoting.iter().any(pawn)))
    }

    /// kage's `pawn`: resets the move-rule counter and captures en passant. FSF has two lists;
    /// they must agree where both matter.
    fn pawn_flags(&self, kinds: &mut [Kind], ds: bool) -> Result<(), FsfIniError> {
        let r = self.r;
        let b = self.board();
        if r.en_passant_types[0] != r.en_passant_types[1]
            || r.n_move_rule_types[0] != r.n_move_rule_types[1]
        {
            return Err(self.unsupported("enPassantTypes", "", "per-color pawn types"));
        }
        if ds && (r.en_passant_region[0].and(b) != b || r.en_passant_region[1].and(b) != b) {
            return Err(self.unsupported(
                "enPassantRegion",
                "",
                "en passant captures everywhere or not at all",
            ));
        }
        for k in kinds.iter_mut().filter(|k| !k.promoted) {
            let ep = ds && r.en_passant_types[0].contains(&k.moves_as);
            let rule = r.n_move_rule > 0 && r.n_move_rule_types[0].contains(&k.moves_as);
            let ep_matters = ds && k.betza.contains('i');
            if ep_matters && r.n_move_rule > 0 && ep != rule {
                return Err(self.unsupported(
                    "nMoveRuleTypes",
                    "",
                    "kage's pawns both reset the move rule and capture en passant",
                ));
            }
            k.pawn = ep || rule;
            let steps = betza::fsf_steps(&k.betza).unwrap_or_default();
            if rule && steps.iter().any(|s| s.quiet && s.dy <= 0) {
                return Err(self.unsupported(
                    "nMoveRuleTypes",
                    pieces::name(k.moves_as),
                    "FSF restarts the move-rule count only on a move its piece cannot undo; a \
                     kage pawn restarts it on every move, so its pawns must move only forward",
                ));
            }
        }
        Ok(())
    }

    /// Hand kinds in FSF's FEN order (highest type first).
    fn hand(&self, bases: &[TypeId], fen: &Fen) -> Result<Vec<TypeId>, FsfIniError> {
        let r = self.r;
        if !r.piece_drops {
            if r.captures_to_hand {
                return Err(self.unsupported(
                    "capturesToHand",
                    "true",
                    "captured pieces in hand need pieceDrops = true",
                ));
            }
            if !fen.hand.is_empty() {
                return Err(self.unsupported(
                    "pieceDrops",
                    "false",
                    "pieces in hand without drops",
                ));
            }
            return Ok(Vec::new());
        }
        let mut hand: Vec<TypeId> = if r.captures_to_hand {
            bases.iter().copied().filter(|&t| t != KING).collect()
        } else {
            let mut v: Vec<TypeId> = fen.hand.iter().filter_map(|&c| r.type_of(c)).collect();
            v.sort_unstable();
            v.dedup();
            v
        };
        if hand.contains(&KING) {
            return Err(self.unsupported("startFen", r.start_fen.clone(), "a king in hand"));
        }
        hand.sort_unstable_by(|a, b| b.cmp(a));
        if hand.contains(&PAWN) {
            self.pawn_drops()?;
        }
        Ok(hand)
    }

    /// FSF keeps chess pawns from dropping on the first rank and in the promotion zone; kage
    /// has no per-piece drop zones.
    fn pawn_drops(&self) -> Result<(), FsfIniError> {
        let r = self.r;
        let b = self.board();
        for c in 0..2 {
            let drops = r.drop_region[c].and(b);
            let first = Region::rank(if c == 0 { 0 } else { r.height - 1 });
            if !r.first_rank_pawn_drops && !drops.and(first).is_empty() {
                return Err(self.unsupported(
                    "firstRankPawnDrops",
                    "false",
                    "kage has no per-piece drop zones (FSF forbids pawn drops on the first rank)",
                ));
            }
            if !r.promotion_zone_pawn_drops && !drops.and(r.promotion_region[c]).is_empty() {
                return Err(self.unsupported("promotionZonePawnDrops", "false", "kage has no per-piece drop zones (FSF forbids pawn drops in the promotion zone)"));
            }
        }
        Ok(())
    }

    fn ranks(&self, key: &str, region: Region) -> Result<Vec<u8>, FsfIniError> {
        region
            .ranks(self.r.width, self.r.height)
            .ok_or_else(|| self.unsupported(key, "", "kage's zones are whole ranks"))
    }

    fn header(
        &self,
        out: &mut String,
        hand: &[TypeId],
        ds: bool,
        promoting: &[TypeId],
    ) -> Result<(), FsfIniError> {
        let r = self.r;
        let letters: String =
            hand.iter().filter_map(|t| r.pieces.get(t)).map(|c| c.to_ascii_uppercase()).collect();
        let fen = Fen::read(&r.start_fen);
        let castling = r.castling && fen.castling_rights();
        let stalemate = match r.stalemate_value {
            Value::Loss => "loss",
            Value::Draw => "draw",
            _ => {
                return Err(self.unsupported(
                    "stalemateValue",
                    format!("{:?}", r.stalemate_value).to_lowercase(),
                    "kage's stalemate is a loss or a draw",
                ));
            }
        };
        if r.checkmate_value != Value::Loss {
            return Err(self.unsupported(
                "checkmateValue",
                format!("{:?}", r.checkmate_value).to_lowercase(),
                "kage's checkmate loses",
            ));
        }
        let verdict =
            match (r.n_fold_value, r.n_fold_value_absolute) {
                (Value::Draw, _) => "draw",
                (Value::Loss, true) => "white_loses",
                (v, a) => return Err(self.unsupported(
                    "nFoldValue",
                    format!("{v:?}").to_lowercase(),
                    format!(
                        "kage's repetition is a draw or a loss for White (nFoldValueAbsolute = {a})"
                    ),
                )),
            };
        if !(2..=255).contains(&r.n_fold_rule) {
            return Err(self.unsupported(
                "nFoldRule",
                r.n_fold_rule.to_string(),
                "kage's repetition count is 2 to 255",
            ));
        }
        let _ = writeln!(out, "name = {}", q(self.name));
        let _ = writeln!(out, "width = {}\nheight = {}", r.width, r.height);
        let _ = writeln!(out, "start_fen = {}", q(&values::as_fsf_reads(&r.start_fen)));
        let _ = writeln!(out, "hand_order = {}", q(&letters));
        let _ = writeln!(out, "captures_to_hand = {}", r.captures_to_hand);
        let _ = writeln!(out, "castling = {castling}\nen_passant = {ds}");
        let _ = writeln!(out, "mandatory_promotion = {}", self.mandatory_promotion(promoting));
        let _ = writeln!(out, "immobility_illegal = {}", r.immobility_illegal);
        let _ = writeln!(out, "stalemate = {}", q(stalemate));
        let _ = writeln!(out, "move_rule = {}", r.n_move_rule);
        let _ = writeln!(out, "perpetual_check_loses = {}", r.perpetual_check_illegal);
        let _ =
            writeln!(out, "\n[repetition]\ncount = {}\nverdict = {}", r.n_fold_rule, q(verdict));
        Ok(())
    }

    fn zones(&self, out: &mut String, promoting: bool, drops: bool) -> Result<(), FsfIniError> {
        let r = self.r;
        let _ = writeln!(out, "\n[zones]");
        if promoting {
            let w = self.ranks("promotionRegionWhite", r.promotion_region[0])?;
            let b = self.ranks("promotionRegionBlack", r.promotion_region[1])?;
            let _ = writeln!(out, "promotion_white = {w:?}\npromotion_black = {b:?}");
        }
        if drops {
            let w = self.ranks("dropRegionWhite", r.drop_region[0])?;
            let b = self.ranks("dropRegionBlack", r.drop_region[1])?;
            let _ = writeln!(out, "drop_white = {w:?}\ndrop_black = {b:?}");
        }
        for c in 0..2 {
            let region = r.flag_region[c].and(self.board());
            if region.is_empty() {
                continue;
            }
            if r.flag_piece[c] != KING {
                return Err(self.unsupported(
                    "flagPiece",
                    "",
                    "kage's flag (campmate) rule is for the king only",
                ));
            }
            let side = if c == 0 { "white" } else { "black" };
            match region.ranks(r.width, r.height) {
                Some(ranks) => {
                    let _ = writeln!(out, "flag_{side} = {ranks:?}");
                }
                None => {
                    let names: Vec<String> = region.squares(r.width).iter().map(|s| q(s)).collect();
                    let _ = writeln!(out, "flag_squares_{side} = [{}]", names.join(", "));
                }
            }
        }
        Ok(())
    }

    fn piece_tables(
        &self,
        out: &mut String,
        kinds: &[Kind],
        promos: &[(TypeId, TypeId)],
        choice: &Choice,
    ) -> Result<(), FsfIniError> {
        let r = self.r;
        let rooks: &Types = &r.castling_rook_pieces[0];
        let nifu = r.drop_no_doubled;
        if nifu != 0 && r.drop_no_doubled_count != 1 && r.piece_drops {
            return Err(self.unsupported(
                "dropNoDoubledCount",
                r.drop_no_doubled_count.to_string(),
                "kage's nifu allows one unpromoted piece per file",
            ));
        }
        for k in kinds {
            let letter = r.pieces.get(&k.base).map_or('?', |c| c.to_ascii_uppercase());
            let sym = if k.promoted { format!("+{letter}") } else { letter.to_string() };
            let name = if k.promoted {
                format!("promoted {} ({})", pieces::name(k.base), pieces::name(k.moves_as))
            } else {
                pieces::name(k.base)
            };
            let _ = writeln!(
                out,
                "\n[[piece]]\nletter = {}\nname = {}\nbetza = {}",
                q(&sym),
                q(&name),
                q(&k.betza)
            );
            if k.base == KING && !k.promoted {
                let _ = writeln!(out, "royal = true");
                continue;
            }
            if k.pawn {
                let _ = writeln!(out, "pawn = true");
            }
            if !k.promoted {
                if promos.iter().any(|(b, _)| *b == k.base) {
                    let _ = writeln!(out, "promotes_to = {}", q(&format!("+{letter}")));
                }
                if choice.pawns.contains(&k.base) {
                    let _ = writeln!(out, "promotion_choices = {}", self.choices(kinds, choice));
                }
                if nifu == k.base && r.piece_drops {
                    let _ = writeln!(out, "nifu = true");
                }
                if r.shogi_pawn_drop_mate_illegal && k.base == SHOGI_PAWN {
                    let _ = writeln!(out, "drop_mate_loses = true");
                }
                if rooks.contains(&k.base) && r.castling {
                    let _ = writeln!(out, "castling_rook = true");
                }
            }
            let _ = writeln!(out, "value = {}", k.value);
        }
        Ok(())
    }

    /// FSF's NNUE piece types (all the variant's types, in type order, the king last) and the
    /// type each kind is seen as.
    fn fsf_nnue(&self, out: &mut String, kinds: &[Kind], fen: &Fen) {
        let r = self.r;
        let kings = fen.board.iter().filter(|c| **c == 'k').count() == 1
            && fen.board.iter().filter(|c| **c == 'K').count() == 1;
        let letters: Vec<char> = r.pieces.values().map(|c| c.to_ascii_uppercase()).collect();
        if !kings || letters.len() > 32 {
            return;
        }
        let types: Vec<String> = letters.iter().map(|c| c.to_string()).collect();
        let mut map = Vec::new();
        for k in kinds {
            let (Some(b), Some(m)) = (r.pieces.get(&k.base), r.pieces.get(&k.moves_as)) else {
                return;
            };
            let sym = if k.promoted {
                format!("+{}", b.to_ascii_uppercase())
            } else {
                b.to_ascii_uppercase().to_string()
            };
            map.push(format!("{} = {}", q(&sym), q(&m.to_ascii_uppercase().to_string())));
        }
        let _ = writeln!(
            out,
            "\n[fsf_nnue]\ntypes = {}\nkinds = {{ {} }}",
            q(&types.join(" ")),
            map.join(", ")
        );
    }
}

/// Chess-style promotion: the pawn types that choose, and the types they choose among.
struct Choice {
    pawns: Vec<TypeId>,
    targets: Vec<TypeId>,
}

impl Translation<'_> {
    /// The TOML list of `choice`'s targets, strongest first (the one kage's quiescence tries).
    fn choices(&self, kinds: &[Kind], choice: &Choice) -> String {
        let mut targets: Vec<(i32, String)> = choice
            .targets
            .iter()
            .map(|&t| {
                let v = kinds.iter().find(|k| !k.promoted && k.base == t).map_or(0, |k| k.value);
                let letter = self.r.pieces.get(&t).map_or('?', |c| c.to_ascii_uppercase());
                (-v, letter.to_string())
            })
            .collect();
        targets.sort();
        let letters: Vec<String> = targets.into_iter().map(|(_, l)| q(&l)).collect();
        format!("[{}]", letters.join(", "))
    }
}

/// A TOML string.
fn q(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// The letters of a start FEN.
struct Fen {
    board: Vec<char>,
    hand: Vec<char>,
    castling: String,
}

impl Fen {
    fn read(fen: &str) -> Fen {
        let mut fields = fen.split_whitespace();
        let placement = fields.next().unwrap_or("");
        let (board, hand) = match placement.split_once('[') {
            Some((b, h)) => (b, h.trim_end_matches(']')),
            None => (placement, ""),
        };
        let _side = fields.next();
        let castling = fields.next().unwrap_or("-").to_string();
        Fen {
            board: board.chars().filter(char::is_ascii_alphabetic).collect(),
            hand: hand.chars().filter(char::is_ascii_alphabetic).collect(),
            castling,
        }
    }

    fn letters(&self) -> impl Iterator<Item = char> + '_ {
        self.board.iter().chain(&self.hand).copied()
    }

    fn castling_rights(&self) -> bool {
        !self.castling.is_empty()
            && self.castling.chars().all(|c| "KQkqABCDEFGHabcdefgh".contains(c))
    }
}
