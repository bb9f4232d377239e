//! Fairy-Stockfish's options that kage does not translate: those that only matter to FSF's own
//! evaluation or GUI (accepted and ignored), and rules kage does not play (accepted only while
//! their value is FSF's default, so that the rules are unchanged; otherwise an error naming the
//! key).

/// What a key's default is, for a rule kage does not play.
#[derive(Clone, Copy, Debug)]
pub enum Default {
    /// Ignored whatever its value: display, GUI or evaluation settings of FSF.
    Ignored,
    /// A boolean with this default.
    Bool(bool),
    /// A piece set, piece type, region or list whose default is empty (`-` or nothing).
    Empty,
    /// A word (`none`), compared case-insensitively.
    Word(&'static str),
    /// A number.
    Int(i64),
    /// A file (`g` or `7`), 1-based.
    File(u8),
}

/// Keys read by FSF but not by kage, with their default.
pub const OTHER_KEYS: &[(&str, Default)] = &[
    ("variantTemplate", Default::Ignored),
    ("pieceToCharTable", Default::Ignored),
    ("pocketSize", Default::Ignored),
    ("pieceValueMg", Default::Ignored),
    ("pieceValueEg", Default::Ignored),
    ("chess960", Default::Bool(false)),
    ("twoBoards", Default::Bool(false)),
    ("sittuyinPromotion", Default::Bool(false)),
    ("promotionLimit", Default::Empty),
    ("piecePromotionOnCapture", Default::Bool(false)),
    ("pieceDemotion", Default::Bool(false)),
    ("blastOnCapture", Default::Bool(false)),
    ("blastImmuneTypes", Default::Empty),
    ("mutuallyImmuneTypes", Default::Empty),
    ("petrifyOnCaptureTypes", Default::Empty),
    ("petrifyBlastPieces", Default::Bool(false)),
    ("tripleStepRegionWhite", Default::Empty),
    ("tripleStepRegionBlack", Default::Empty),
    ("castlingDroppedPiece", Default::Bool(false)),
    ("castlingKingsideFile", Default::File(7)),
    ("castlingQueensideFile", Default::File(3)),
    ("castlingRank", Default::Int(1)),
    ("castlingKingFile", Default::File(5)),
    ("castlingKingPiece", Default::Word("k")),
    ("castlingKingPieceWhite", Default::Word("k")),
    ("castlingKingPieceBlack", Default::Word("k")),
    ("castlingRookQueensideFile", Default::File(1)),
    ("oppositeCastling", Default::Bool(false)),
    ("checking", Default::Bool(true)),
    ("dropChecks", Default::Bool(true)),
    ("mustCapture", Default::Bool(false)),
    ("mustDrop", Default::Bool(false)),
    ("mustDropType", Default::Word("*")),
    ("dropLoop", Default::Bool(false)),
    ("enclosingDrop", Default::Word("none")),
    ("enclosingDropStart", Default::Empty),
    ("sittuyinRookDrop", Default::Bool(false)),
    ("dropOppositeColoredBishop", Default::Bool(false)),
    ("dropPromoted", Default::Bool(false)),
    ("gating", Default::Bool(false)),
    ("wallingRule", Default::Word("none")),
    ("wallOrMove", Default::Bool(false)),
    ("seirawanGating", Default::Bool(false)),
    ("cambodianMoves", Default::Bool(false)),
    ("diagonalLines", Default::Empty),
    ("pass", Default::Bool(false)),
    ("passWhite", Default::Bool(false)),
    ("passBlack", Default::Bool(false)),
    ("passOnStalemate", Default::Bool(false)),
    ("passOnStalemateWhite", Default::Bool(false)),
    ("passOnStalemateBlack", Default::Bool(false)),
    ("makpongRule", Default::Bool(false)),
    ("flyingGeneral", Default::Bool(false)),
    ("soldierPromotionRank", Default::Int(1)),
    ("flipEnclosedPieces", Default::Word("none")),
    ("moveRepetitionIllegal", Default::Bool(false)),
    ("chasingRule", Default::Word("none")),
    ("stalematePieceCount", Default::Bool(false)),
    ("shatarMateRule", Default::Bool(false)),
    ("bikjangRule", Default::Bool(false)),
    ("extinctionValue", Default::Word("none")),
    ("extinctionClaim", Default::Bool(false)),
    ("extinctionPseudoRoyal", Default::Bool(false)),
    ("dupleCheck", Default::Bool(false)),
    ("extinctionPieceTypes", Default::Empty),
    ("extinctionPieceCount", Default::Int(0)),
    ("extinctionOpponentPieceCount", Default::Int(0)),
    ("flagPieceCount", Default::Int(1)),
    ("flagPieceBlockedWin", Default::Bool(false)),
    ("flagMove", Default::Bool(false)),
    ("flagPieceSafe", Default::Bool(false)),
    ("checkCounting", Default::Bool(false)),
    ("connectN", Default::Int(0)),
    ("connectPieceTypes", Default::Ignored),
    ("connectHorizontal", Default::Ignored),
    ("connectVertical", Default::Ignored),
    ("connectDiagonal", Default::Ignored),
    ("connectRegion1White", Default::Empty),
    ("connectRegion2White", Default::Empty),
    ("connectRegion1Black", Default::Empty),
    ("connectRegion2Black", Default::Empty),
    ("connectNxN", Default::Int(0)),
    ("collinearN", Default::Int(0)),
    ("connectValue", Default::Ignored),
    ("materialCounting", Default::Word("none")),
    ("adjudicateFullBoard", Default::Bool(false)),
    ("countingRule", Default::Word("none")),
    ("castlingWins", Default::Empty),
    ("doubleStepRank", Default::Int(2)),
    ("doubleStepRankMin", Default::Int(2)),
    ("dropOnTop", Default::Bool(false)),
    ("wallingRegion", Default::Ignored),
    ("wallingRegionWhite", Default::Ignored),
    ("wallingRegionBlack", Default::Ignored),
    ("castlingRookKingsideFile", Default::Ignored),
];

/// The entry of `key`, if FSF reads it and kage does not translate it.
pub fn other(key: &str) -> Option<Default> {
    if super::pieces::mobility_key(key).is_some() {
        return Some(Default::Empty);
    }
    OTHER_KEYS.iter().find(|k| k.0 == key).map(|k| k.1)
}

/// Whether `value` is the default `d` (`Ignored`: always).
pub fn is_default(d: Default, value: &str) -> bool {
    let v = value.trim();
    match d {
        Default::Ignored => true,
        Default::Bool(b) => v == if b { "true" } else { "false" },
        Default::Empty => v.is_empty() || v == "-" || v.eq_ignore_ascii_case("none"),
        Default::Word(w) => v.eq_ignore_ascii_case(w),
        Default::Int(n) => v.parse::<i64>().is_ok_and(|x| x == n),
        Default::File(f) => file_number(v) == Some(f),
    }
}

/// A file as FSF reads it: a letter (`g`) or a 1-based number.
pub fn file_number(v: &str) -> Option<u8> {
    if let Ok(n) = v.parse::<u8>() {
        return Some(n);
    }
    let mut c = v.chars();
    match (c.next(), c.next()) {
        (Some(ch), None) if ch.is_ascii_lowercase() => Some(ch as u8 - b'a' + 1),
        _ => None,
    }
}
