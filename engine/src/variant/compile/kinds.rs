//! The piece kinds of a spec: symbols, movements, promotion targets and choices, the king and
//! the hand kinds, checked.

use super::super::betza::{self, BetzaError, Step};
use super::super::{SpecError, VariantSpec};
use super::{DIRS, KindInfo};
use crate::types::{ByColor, Color, MAX_PROMOTION_CHOICES, PieceKind};

/// The `(letter, promoted)` symbol of every piece of a spec, in spec order (kind order).
pub(super) struct Symbols(pub(super) Vec<(char, bool)>);

impl Symbols {
    pub(super) fn of(spec: &VariantSpec) -> Result<Symbols, SpecError> {
        let mut symbols: Vec<(char, bool)> = Vec::new();
        for p in &spec.pieces {
            let sym = parse_symbol(&p.letter)?;
            if symbols.contains(&sym) {
                return Err(SpecError::DuplicateLetter(p.letter.clone()));
            }
            symbols.push(sym);
        }
        Ok(Symbols(symbols))
    }

    /// The kind written `s`, which `piece` names in `field`.
    pub(super) fn find(&self, piece: &str, field: &str, s: &str) -> Result<PieceKind, SpecError> {
        let sym = parse_symbol(s)?;
        self.0.iter().position(|x| *x == sym).map(|i| PieceKind(i as u8)).ok_or_else(|| {
            SpecError::UnknownPiece {
                piece: piece.to_string(),
                field: field.to_string(),
                other: s.to_string(),
            }
        })
    }
}

/// Every piece kind of the spec with its parsed moves; promotion targets checked.
pub(super) fn compile_kinds(
    spec: &VariantSpec,
    symbols: &Symbols,
) -> Result<(Vec<KindInfo>, Vec<Vec<Step>>), SpecError> {
    let mut kinds = Vec::new();
    let mut steps_of: Vec<Vec<Step>> = Vec::new();
    for i in 0..spec.pieces.len() {
        let (kind, steps) = compile_kind(spec, symbols, i)?;
        kinds.push(kind);
        steps_of.push(steps);
    }
    // Check promotion targets are used only by their own base.
    for k in &kinds {
        if let Some(t) = k.promotes_to
            && k.promotion_choices.is_empty()
            && kinds[t.index()].letter != k.letter
        {
            return Err(SpecError::Inconsistent(format!(
                "'{}' promotes to '+{}': a promoted kind must carry its base letter",
                k.letter,
                kinds[t.index()].letter
            )));
        }
    }
    Ok((kinds, steps_of))
}

/// Piece `i` of the spec: its kind information and its parsed moves.
fn compile_kind(
    spec: &VariantSpec,
    symbols: &Symbols,
    i: usize,
) -> Result<(KindInfo, Vec<Step>), SpecError> {
    let p = &spec.pieces[i];
    let (letter, promoted) = symbols.0[i];
    let bad_betza = |why: BetzaError| SpecError::Betza {
        letter: p.letter.clone(),
        betza: p.betza.clone(),
        why,
    };
    let steps = betza::parse(&p.betza).map_err(bad_betza)?;
    let promotion_choices = promotion_choices(spec, symbols, i)?;
    let promotes_to = match promotion_choices.first() {
        Some(&first) => Some(first),
        None => p
            .promotes_to
            .as_deref()
            .map(|s| symbols.find(&p.letter, "promotes_to", s))
            .transpose()?,
    };
    if let Some(t) = promotes_to.filter(|_| promotion_choices.is_empty()) {
        if !symbols.0[t.index()].1 {
            return Err(SpecError::Inconsistent(format!(
                "piece '{}' promotes to '{}', which is not a promoted kind ('+X')",
                p.letter,
                spec.pieces[t.index()].letter
            )));
        }
        if promoted {
            return Err(SpecError::Inconsistent(format!(
                "promoted piece '{}' cannot promote again",
                p.letter
            )));
        }
    }
    let demoted = if promoted {
        symbols.find(&p.letter, "letter", &letter.to_string()).map_err(|_| {
            SpecError::Inconsistent(format!(
                "promoted piece '{}' has no unpromoted form '{letter}'",
                p.letter
            ))
        })?
    } else {
        PieceKind(i as u8)
    };
    let mut slides = ByColor::new(0u8, 0u8);
    for s in steps.iter().filter(|s| s.rider) {
        if !(s.can_move && s.can_capture) || s.initial_only {
            return Err(bad_betza(BetzaError::RestrictedRider));
        }
        for c in Color::ALL {
            let dy = if c == Color::White { s.dy } else { -s.dy };
            let d = DIRS.iter().position(|&x| x == (s.dx, dy)).expect("rider unit step");
            slides[c] |= 1 << d;
        }
    }
    let kind = KindInfo {
        letter,
        promoted,
        name: p.name.clone(),
        royal: p.royal,
        pawn: p.pawn,
        promotes_to,
        promotion_choices,
        demoted,
        nifu: p.nifu,
        drop_mate_loses: p.drop_mate_loses,
        castling_rook: p.castling_rook,
        value: p.value.unwrap_or(0),
        hand_value: p.hand_value.or(p.value).unwrap_or(0),
        slides,
        betza: p.betza.clone(),
    };
    Ok((kind, steps))
}

/// The chess-style promotion choices of piece `i`: distinct unpromoted, non-royal kinds other
/// than the piece, at most [`MAX_PROMOTION_CHOICES`], and not with `promotes_to`.
fn promotion_choices(
    spec: &VariantSpec,
    symbols: &Symbols,
    i: usize,
) -> Result<Vec<PieceKind>, SpecError> {
    let p = &spec.pieces[i];
    let bad = |why: String| SpecError::Inconsistent(format!("piece '{}': {why}", p.letter));
    if p.promotion_choices.is_empty() {
        return Ok(Vec::new());
    }
    if p.promotes_to.is_some() {
        return Err(bad("promotes_to and promotion_choices exclude each other".into()));
    }
    if symbols.0[i].1 || p.royal {
        return Err(bad("a promoted or royal piece has no promotion_choices".into()));
    }
    if p.promotion_choices.len() > MAX_PROMOTION_CHOICES {
        return Err(bad(format!("at most {MAX_PROMOTION_CHOICES} promotion_choices")));
    }
    let mut out = Vec::new();
    for c in &p.promotion_choices {
        let k = symbols.find(&p.letter, "promotion_choices", c)?;
        let target = &spec.pieces[k.index()];
        if symbols.0[k.index()].1 || target.royal || k.index() == i || out.contains(&k) {
            return Err(bad(format!(
                "promotion choice '{c}' must be another unpromoted, non-royal piece, given once"
            )));
        }
        out.push(k);
    }
    Ok(out)
}

/// The one royal kind.
pub(super) fn the_king(kinds: &[KindInfo]) -> Result<PieceKind, SpecError> {
    let royals: Vec<usize> = (0..kinds.len()).filter(|&i| kinds[i].royal).collect();
    if royals.len() != 1 {
        return Err(SpecError::Inconsistent(format!(
            "exactly one royal piece kind is needed, found {}",
            royals.len()
        )));
    }
    Ok(PieceKind(royals[0] as u8))
}

/// The kinds that can be in hand, in `hand_order`; every captured kind among them when
/// captures go to hand.
pub(super) fn hand_kinds(
    spec: &VariantSpec,
    symbols: &Symbols,
    kinds: &[KindInfo],
) -> Result<Vec<PieceKind>, SpecError> {
    let mut hand_kinds = Vec::new();
    for ch in spec.hand_order.chars() {
        let k = symbols.find("hand_order", "hand_order", &ch.to_string())?;
        if kinds[k.index()].royal {
            return Err(SpecError::Inconsistent("the royal piece cannot be held in hand".into()));
        }
        if hand_kinds.contains(&k) {
            return Err(SpecError::Inconsistent(format!("'{ch}' twice in hand_order")));
        }
        hand_kinds.push(k);
    }
    if spec.captures_to_hand {
        for k in kinds {
            if !k.royal && !hand_kinds.contains(&k.demoted) {
                return Err(SpecError::Inconsistent(format!(
                    "captures go to hand but '{}' is missing from hand_order",
                    kinds[k.demoted.index()].letter
                )));
            }
        }
    }
    Ok(hand_kinds)
}

fn parse_symbol(s: &str) -> Result<(char, bool), SpecError> {
    let (promoted, rest) = match s.strip_prefix('+') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let mut it = rest.chars();
    match (it.next(), it.next()) {
        (Some(c), None) if c.is_ascii_alphabetic() => Ok((c.to_ascii_uppercase(), promoted)),
        _ => Err(SpecError::BadLetter(s.to_string())),
    }
}
