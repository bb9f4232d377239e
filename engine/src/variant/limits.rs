//! What the rest of kage can play: checks a spec must pass beyond being well formed, so that
//! `kage check` refuses what self-play, the search or the data files cannot handle.
//!
//! - the name is a name (it names files and directories), not a path;
//! - piece values are centipawns in `0..=MAX_PIECE_VALUE`, and the material all the pieces
//!   of the start position can ever make (on the board, promoted or in hand) stays at most
//!   [`MAX_MATERIAL`], far below the scores the search reads as mates ([`crate::search::MATE_BOUND`]);
//! - the start position holds at most [`MAX_PIECES`] pieces (board and hands), what a data
//!   record holds (`kage_data::compact::MAX_PIECES`);
//! - no side wins by reaching its flag (campmate) rank with its first move.

use super::{KindInfo, SpecError, Variant, VariantSpec};
use crate::position::Position;
use crate::types::{Color, Move, PieceKind, bits};

/// Longest variant name.
pub const MAX_NAME_LEN: usize = 64;
/// Largest piece value, on the board or in hand (centipawns).
pub const MAX_PIECE_VALUE: i32 = 10_000;
/// Largest material the start position's pieces can make together: the evaluation adds
/// positional terms to it and must stay below the mate scores (31,000 and up). The built-in
/// variants reach about 10,000.
pub const MAX_MATERIAL: i64 = 20_000;
/// Most pieces (board and hands, both sides, kings included) in the start position; no
/// move adds a piece, and kage's data records hold 40.
pub const MAX_PIECES: usize = 40;

/// Whether `name` is a valid variant name: 1 to [`MAX_NAME_LEN`] ASCII letters, digits, `-`
/// or `_` (names become file and directory names, and UCI_Variant values).
pub fn is_valid_name(name: &str) -> bool {
    (1..=MAX_NAME_LEN).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// The checks of the spec alone: the name and every piece value.
pub(super) fn check_spec(spec: &VariantSpec) -> Result<(), SpecError> {
    if !is_valid_name(&spec.name) {
        return Err(SpecError::BadName(spec.name.clone()));
    }
    for p in &spec.pieces {
        for (key, value) in [("value", p.value), ("hand_value", p.hand_value)] {
            if let Some(value) = value
                && !(0..=MAX_PIECE_VALUE).contains(&value)
            {
                return Err(SpecError::PieceValue { letter: p.letter.clone(), key, value });
            }
        }
    }
    Ok(())
}

/// The checks that need the compiled variant and its start position: the piece count, the
/// material bound and the flag ranks.
pub(super) fn check_start(v: &Variant, start: &Position) -> Result<(), SpecError> {
    let mut pieces: Vec<PieceKind> =
        bits(start.occupied()).filter_map(|sq| start.piece_on(sq)).map(|p| p.kind).collect();
    for c in Color::ALL {
        for &k in &v.hand_kinds {
            pieces.extend(std::iter::repeat_n(k, start.hand(c, k) as usize));
        }
    }
    if pieces.len() > MAX_PIECES {
        return Err(SpecError::TooManyPieces { count: pieces.len(), max: MAX_PIECES });
    }
    let material: i64 = pieces.iter().map(|&k| largest_value(v, k)).sum();
    if material > MAX_MATERIAL {
        return Err(SpecError::Material { material, max: MAX_MATERIAL });
    }
    check_flags(start)
}

/// The largest value a piece of kind `k` can have: as itself, demoted, promoted or in hand.
fn largest_value(v: &Variant, k: PieceKind) -> i64 {
    let info = v.kind(k);
    if info.royal {
        return 0;
    }
    let base = v.kind(info.demoted);
    let mut forms: Vec<&KindInfo> = vec![info, base];
    forms.extend(base.promotes_to.map(|p| v.kind(p)));
    forms.extend(base.promotion_choices.iter().map(|&p| v.kind(p)));
    let on_board = forms.iter().map(|f| i64::from(f.value)).max().unwrap_or(0);
    on_board.max(i64::from(base.hand_value))
}

/// No first move of either side reaches its flag rank.
fn check_flags(start: &Position) -> Result<(), SpecError> {
    let v = start.variant();
    if v.flag_zone[Color::White] == 0 && v.flag_zone[Color::Black] == 0 {
        return Ok(());
    }
    let first = start.side_to_move();
    for &m in start.legal_moves().as_slice() {
        let mut child = start.clone();
        child.play(m);
        if child.flag_reached() {
            return Err(flag_error(v, first, start.move_to_uci(m)));
        }
        if let Some(reply) = king_move_to_flag(&child) {
            let moves = format!("{} {}", start.move_to_uci(m), child.move_to_uci(reply));
            return Err(flag_error(v, !first, moves));
        }
    }
    Ok(())
}

/// A king move of the side to move of `pos` onto its flag rank, if it has one.
fn king_move_to_flag(pos: &Position) -> Option<Move> {
    if pos.variant().flag_zone[pos.side_to_move()] == 0 {
        return None;
    }
    let ksq = pos.king_square(pos.side_to_move());
    pos.legal_moves().as_slice().iter().copied().find(|&m| {
        !m.is_drop() && m.from().0 == ksq && {
            let mut child = pos.clone();
            child.play(m);
            child.flag_reached()
        }
    })
}

fn flag_error(v: &Variant, side: Color, moves: String) -> SpecError {
    let key = if side == Color::White { "zones.flag_white" } else { "zones.flag_black" };
    SpecError::FlagInOneMove { key, side: v.side_names[side as usize].clone(), moves }
}
