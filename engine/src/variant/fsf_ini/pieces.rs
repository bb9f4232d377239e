//! Fairy-Stockfish's piece types: their ids (the order of FSF's `PieceType` enum, which orders
//! hands in FEN and NNUE piece types), their option names and their movements in Betza.

/// An FSF piece type: its `PieceType` enum value.
pub type TypeId = u8;

/// The chess pawn.
pub const PAWN: TypeId = 1;
/// The rook.
pub const ROOK: TypeId = 4;
/// The shogi pawn (the type `shogiPawnDropMateIllegal` is about).
pub const SHOGI_PAWN: TypeId = 19;
/// The first custom piece (`customPiece1`).
pub const CUSTOM_FIRST: TypeId = 37;
/// Number of custom pieces (`customPiece1` to `customPiece25`).
pub const CUSTOM_COUNT: u8 = 25;
/// The king (`king = k`, or `king = k:Betza` for a custom royal piece).
pub const KING: TypeId = 63;

/// The built-in piece types: id, option name, movement (FSF's `piece.cpp`).
const BUILTIN: &[(TypeId, &str, &str)] = &[
    (1, "pawn", "fmWfceF"),
    (2, "knight", "N"),
    (3, "bishop", "B"),
    (4, "rook", "R"),
    (5, "queen", "Q"),
    (6, "fers", "F"),
    (7, "alfil", "A"),
    (8, "fersAlfil", "FA"),
    (9, "silver", "FfW"),
    (10, "aiwok", "RNF"),
    (11, "bers", "RF"),
    (12, "archbishop", "BN"),
    (13, "chancellor", "RN"),
    (14, "amazon", "QN"),
    (15, "knibis", "mNcB"),
    (16, "biskni", "mBcN"),
    (17, "kniroo", "mNcR"),
    (18, "rookni", "mRcN"),
    (19, "shogiPawn", "fW"),
    (20, "lance", "fR"),
    (21, "shogiKnight", "fN"),
    (22, "gold", "WfF"),
    (23, "dragonHorse", "BW"),
    (24, "clobber", "cW"),
    (25, "breakthrough", "fmWfF"),
    (26, "immobile", ""),
    (27, "cannon", "mRcpR"),
    (28, "janggiCannon", "pR"),
    (29, "soldier", "fsW"),
    (30, "horse", "nN"),
    (31, "elephant", "nA"),
    (32, "janggiElephant", "nZ"),
    (33, "banner", "RcpRnN"),
    (34, "wazir", "W"),
    (35, "commoner", "K"),
    (36, "centaur", "KN"),
    (63, "king", "K"),
];

/// The option name of type `t` (`shogiKnight`, `customPiece3`).
pub fn name(t: TypeId) -> String {
    if is_custom(t) {
        return format!("customPiece{}", t - CUSTOM_FIRST + 1);
    }
    BUILTIN.iter().find(|b| b.0 == t).map_or_else(|| format!("type{t}"), |b| b.1.to_string())
}

/// The type an option key names (`commoner`, `customPiece2`, `king`), if it names one.
pub fn by_key(key: &str) -> Option<TypeId> {
    if let Some(n) = key.strip_prefix("customPiece") {
        let n: u8 = n.parse().ok()?;
        return (1..=CUSTOM_COUNT).contains(&n).then(|| CUSTOM_FIRST + n - 1);
    }
    BUILTIN.iter().find(|b| b.1 == key).map(|b| b.0)
}

/// A custom piece type (its movement comes from the file).
pub fn is_custom(t: TypeId) -> bool {
    (CUSTOM_FIRST..CUSTOM_FIRST + CUSTOM_COUNT).contains(&t)
}

/// The built-in movement of a non-custom type.
pub fn builtin_betza(t: TypeId) -> Option<&'static str> {
    BUILTIN.iter().find(|b| b.0 == t).map(|b| b.2)
}

/// Every option key that names a piece type, with `mobilityRegion{White,Black}<Name>`.
pub fn is_piece_key(key: &str) -> bool {
    by_key(key).is_some()
}

/// `mobilityRegionWhiteKing` and the like: (color, type).
pub fn mobility_key(key: &str) -> Option<TypeId> {
    let rest = key.strip_prefix("mobilityRegion")?;
    let rest = rest.strip_prefix("White").or_else(|| rest.strip_prefix("Black"))?;
    let mut name: Vec<char> = rest.chars().collect();
    let first = name.first_mut()?;
    *first = first.to_ascii_lowercase();
    by_key(&name.into_iter().collect::<String>())
}
