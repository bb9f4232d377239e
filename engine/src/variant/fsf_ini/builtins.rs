//! The Fairy-Stockfish built-in variants kage carries as parents (and as variants of their own),
//! written in FSF's own INI options from FSF's `variant.cpp` (commit c19b5f6c; chess's
//! relatives nocastle, amazon, almost, chigorin and perfect with them). A name listed
//! here can be a section's parent (`[mygame:minishogi]`) or asked for directly.

/// Built-ins in FSF's INI options. `minishogi-base` is FSF's `minishogi_variant_base`, the
/// parent of its small shogi variants (not a variant FSF lists).
pub const BUILTINS_INI: &str = r#"
[chess]
pawn = p
knight = n
bishop = b
rook = r
queen = q
king = k
promotionPieceTypes = nbrq

[nocastle:chess]
startFen = rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1
castling = false

[amazon:chess]
queen = -
amazon = a
startFen = rnbakbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBAKBNR w KQkq - 0 1
promotionPieceTypes = arbn

[almost:chess]
queen = -
chancellor = c
startFen = rnbckbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBCKBNR w KQkq - 0 1
promotionPieceTypes = crbn

[chigorin:chess]
chancellor = c
startFen = rbbqkbbr/pppppppp/8/8/8/8/PPPPPPPP/RNNCKNNR w KQkq - 0 1
promotionPieceTypesWhite = crn
promotionPieceTypesBlack = qrb

[perfect:chess]
chancellor = c
archbishop = m
amazon = g
startFen = cmqgkbnr/pppppppp/8/8/8/8/PPPPPPPP/CMQGKBNR w KQkq - 0 1
promotionPieceTypes = gcmqrbn
castlingRookPieces = rc

[crazyhouse:chess]
startFen = rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1
pieceDrops = true
capturesToHand = true

[pocketknight:chess]
startFen = rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Nn] w KQkq - 0 1
pieceDrops = true
capturesToHand = false

[kingofthehill:chess]
flagPiece = k
flagRegion = d4 e4 d5 e5

[losalamos:chess]
maxRank = 6
maxFile = f
bishop = -
startFen = rnqknr/pppppp/6/6/PPPPPP/RNQKNR w - - 0 1
promotionRegionWhite = *6
promotionRegionBlack = *1
promotionPieceTypes = qrn
doubleStep = false
castling = false

[gardner:chess]
maxRank = 5
maxFile = e
startFen = rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1
promotionRegionWhite = *5
promotionRegionBlack = *1
doubleStep = false
castling = false

[minishogi-base]
maxRank = 5
maxFile = e
shogiPawn = p
silver = s
gold = g
bishop = b
dragonHorse = h
rook = r
bers = d
king = k
startFen = rbsgk/4p/5/P4/KGSBR[-] w 0 1
pieceDrops = true
capturesToHand = true
promotionRegionWhite = *5
promotionRegionBlack = *1
doubleStep = false
castling = false
promotedPieceType = p:g s:g b:h r:d
dropNoDoubled = p
immobilityIllegal = true
shogiPawnDropMateIllegal = true
stalemateValue = loss
nFoldRule = 4
nMoveRule = 0
perpetualCheckIllegal = true

[minishogi:minishogi-base]
pocketSize = 5
nFoldValue = loss
nFoldValueAbsolute = true

[mini:minishogi]

[kyotoshogi:minishogi-base]
lance = l
shogiKnight = n
startFen = p+nks+l/5/5/5/+LSK+NP[-] w 0 1
promotionRegionWhite = *1 *2 *3 *4 *5
promotionRegionBlack = *1 *2 *3 *4 *5
mandatoryPiecePromotion = true
pieceDemotion = true
dropPromoted = true
promotedPieceType = l:g s:b n:g p:r g:- b:- r:-
immobilityIllegal = false
shogiPawnDropMateIllegal = false
dropNoDoubled = -

[dobutsu:minishogi-base]
maxRank = 4
maxFile = c
shogiPawn = c
silver = -
gold = h
bishop = -
dragonHorse = -
rook = -
bers = -
fers = e
wazir = g
commoner = l
king = -
startFen = gle/1c1/1C1/ELG[-] w 0 1
promotionRegionWhite = *4
promotionRegionBlack = *1
mandatoryPiecePromotion = true
immobilityIllegal = false
shogiPawnDropMateIllegal = false
extinctionValue = loss
extinctionPieceTypes = l
flagPiece = l
flagRegionWhite = *4
flagRegionBlack = *1
flagPieceSafe = true
dropNoDoubled = -
nFoldValue = draw
perpetualCheckIllegal = false

[gorogoro:minishogi-base]
maxRank = 6
maxFile = e
startFen = sgkgs/5/1ppp1/1PPP1/5/SGKGS[-] w 0 1
promotionRegionWhite = *5 *6
promotionRegionBlack = *1 *2

[judkins:minishogi-base]
maxRank = 6
maxFile = f
shogiKnight = n
startFen = rbnsgk/5p/6/6/P5/KGSNBR[-] w 0 1
promotionRegionWhite = *5 *6
promotionRegionBlack = *1 *2
promotedPieceType = n:g

[euroshogi:minishogi-base]
maxRank = 8
maxFile = h
customPiece1 = n:fNsW
startFen = 1nbgkgn1/1r4b1/pppppppp/8/8/PPPPPPPP/1B4R1/1NGKGBN1[-] w 0 1
promotionRegionWhite = *6 *7 *8
promotionRegionBlack = *3 *2 *1
promotedPieceType = n:g
mandatoryPiecePromotion = true

[torishogi]
maxRank = 7
maxFile = g
shogiPawn = s
king = k
customPiece1 = f:FsfW
customPiece2 = c:FvW
customPiece3 = l:fRrbBlbF
customPiece4 = r:fRlbBrbF
customPiece5 = p:bFfD
customPiece6 = g:fAbD
customPiece7 = e:KbRfBbF2
startFen = rpckcpl/3f3/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR[-] w 0 1
pieceDrops = true
capturesToHand = true
promotionRegionWhite = *6 *7
promotionRegionBlack = *2 *1
doubleStep = false
castling = false
promotedPieceType = s:g f:e
mandatoryPiecePromotion = true
dropNoDoubled = s
dropNoDoubledCount = 2
immobilityIllegal = true
shogiPawnDropMateIllegal = true
stalemateValue = loss
nFoldValue = win
nFoldRule = 4
nMoveRule = 0
perpetualCheckIllegal = true

[shogi:minishogi-base]
maxRank = 9
maxFile = i
lance = l
shogiKnight = n
startFen = lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL[-] w 0 1
promotionRegionWhite = *7 *8 *9
promotionRegionBlack = *3 *2 *1
promotedPieceType = l:g n:g
"#;

/// Built-in names a user may ask for (not the internal `minishogi-base`).
pub fn names() -> Vec<String> {
    super::ini::parse(BUILTINS_INI)
        .map(|f| f.sections.into_iter().map(|s| s.name).filter(|n| n != "minishogi-base").collect())
        .unwrap_or_default()
}
