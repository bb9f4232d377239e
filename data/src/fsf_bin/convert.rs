//! kage's position records ⇄ FSF's records, for one variant (module documentation of
//! [`super`]: what maps to what, and what the format cannot hold).

use kage_engine::nnue::fsf::layout::FsfLayout;
use kage_engine::position::Setup;
use kage_engine::{Color, Piece, PieceKind, Position, Variant};

use super::packed::{FsfPiece, FsfPosition, Geometry, MAX_RULE50, MAX_TYPES};
use super::{FsfRecord, RecordError, cp_to_fsf, fsf_to_cp};
use crate::compact::{CompactError, CompactPosition};
use crate::position::{PositionFlags, PositionRecord, StmResult};

/// Converts records of one variant both ways.
#[derive(Clone, Debug)]
pub struct Converter {
    variant: &'static Variant,
    layout: FsfLayout,
    geometry: Geometry,
    /// The kage kind each FSF type ordinal reads as.
    kind_of: [Option<PieceKind>; MAX_TYPES],
}

/// A kage record written as an FSF record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exported {
    /// The FSF record.
    pub record: FsfRecord,
    /// The halfmove clock was above 127 and is written as 127.
    pub rule50_clamped: bool,
}

/// Why a variant has no `.bin` layout.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("variant {variant} cannot be read or written as FSF .bin data: {reason}")]
pub struct LayoutError {
    /// The variant.
    pub variant: String,
    /// Why.
    pub reason: String,
}

impl Converter {
    /// The converter of `v`, from the engine's FSF layout of it.
    pub fn new(v: &'static Variant) -> Result<Converter, LayoutError> {
        let err = |reason: String| LayoutError { variant: v.name.clone(), reason };
        let layout = FsfLayout::for_variant(v).map_err(|e| err(e.to_string()))?;
        let types = u8::try_from(layout.num_types()).unwrap_or(u8::MAX);
        let geometry = Geometry::new(v.width, v.height, types)
            .ok_or_else(|| err(format!("{types} piece types on {} squares", v.num_squares)))?;
        let mut kind_of = [None; MAX_TYPES];
        for k in (0..v.num_kinds()).map(|i| PieceKind(i as u8)) {
            let slot = &mut kind_of[usize::from(layout.piece_ordinal(k))];
            // An unpromoted kind wins: FSF's type says nothing about promotion.
            if slot.is_none_or(|s: PieceKind| v.kind(s).promoted && !v.kind(k).promoted) {
                *slot = Some(k);
            }
        }
        Ok(Converter { variant: v, layout, geometry, kind_of })
    }

    /// The variant.
    pub fn variant(&self) -> &'static Variant {
        self.variant
    }

    /// The packed-position geometry.
    pub fn geometry(&self) -> Geometry {
        self.geometry
    }

    /// The kage kind an FSF type ordinal reads as (`None`: no kind of the variant is it).
    pub fn kind_of(&self, ordinal: u8) -> Option<PieceKind> {
        self.kind_of.get(usize::from(ordinal)).copied().flatten()
    }

    /// The FSF packed position of a kage position, and whether its halfmove clock was
    /// clamped to 127.
    pub fn pack_position(&self, pos: &Position) -> (FsfPosition, bool) {
        let v = self.variant;
        let mut p = FsfPosition::empty();
        p.stm = pos.side_to_move() as u8;
        for c in Color::ALL {
            p.kings[c as usize] = Some(pos.king_square(c));
            for &k in &v.hand_kinds {
                let slot = &mut p.hands[c as usize][usize::from(self.layout.piece_ordinal(k))];
                *slot = slot.saturating_add(pos.hand(c, k));
            }
        }
        for sq in kage_engine::types::bits(pos.occupied()) {
            let Some(piece) = pos.piece_on(sq) else { continue };
            if piece.kind != v.king {
                let ordinal = self.layout.piece_ordinal(piece.kind);
                p.board[usize::from(sq)] = Some(FsfPiece { ordinal, color: piece.color as u8 });
            }
        }
        p.castling = pos.castling_rights() & 15;
        p.ep = pos.ep_square();
        let halfmove = pos.halfmove_clock();
        p.rule50 = halfmove.min(u16::from(MAX_RULE50)) as u8;
        p.fullmove = pos.fullmove_number();
        (p, halfmove > u16::from(MAX_RULE50))
    }

    /// A kage record as an FSF record: the position validated by the engine, the score in
    /// FSF units, the move 0.
    pub fn to_fsf(&self, rec: &PositionRecord) -> Result<Exported, RecordError> {
        let pos = rec.pos.to_position(self.variant)?;
        let (fsf, rule50_clamped) = self.pack_position(&pos);
        let record = FsfRecord {
            packed: fsf.pack(self.geometry)?,
            score: cp_to_fsf(rec.score),
            mv: 0,
            ply: rec.ply,
            result: rec.result.as_i8(),
            padding: 0,
        };
        Ok(Exported { record, rule50_clamped })
    }

    /// The kage position of an FSF packed position, validated by the engine as a FEN would
    /// be.
    pub fn unpack_position(&self, p: &FsfPosition) -> Result<Position, RecordError> {
        let v = self.variant;
        let mut setup = Setup::default();
        for c in Color::ALL {
            let sq = p.kings[c as usize].ok_or(RecordError::NoKing(c as usize))?;
            setup.board[usize::from(sq)] = Some(Piece { color: c, kind: v.king });
            for ordinal in 0..self.geometry.types() {
                let n = p.hands[c as usize][usize::from(ordinal)];
                if n > 0 {
                    setup.hands[c as usize][self.kind(ordinal)?.index()] = n;
                }
            }
        }
        for (sq, piece) in p.board.iter().enumerate().take(usize::from(self.geometry.squares())) {
            if let Some(fp) = piece {
                let color = if fp.color == 0 { Color::White } else { Color::Black };
                setup.board[sq] = Some(Piece { color, kind: self.kind(fp.ordinal)? });
            }
        }
        setup.side_to_move = if p.stm == 0 { Color::White } else { Color::Black };
        setup.castling = p.castling;
        setup.ep = p.ep;
        setup.halfmove = u16::from(p.rule50);
        setup.fullmove = p.fullmove;
        Position::from_setup(v, &setup).map_err(|e| {
            RecordError::Position(CompactError::Invalid {
                variant: v.name.clone(),
                reason: e.to_string(),
            })
        })
    }

    fn kind(&self, ordinal: u8) -> Result<PieceKind, RecordError> {
        if ordinal == self.geometry.king() {
            return Err(RecordError::KingInHand);
        }
        self.kind_of(ordinal).ok_or_else(|| RecordError::NoKind {
            ordinal,
            letter: self.layout.type_letters().get(usize::from(ordinal)).copied().unwrap_or('?'),
        })
    }

    /// An FSF record as a kage record: the position validated by the engine, the score in
    /// centipawns, no move, `IN_CHECK` from the position.
    pub fn from_fsf(&self, rec: &FsfRecord) -> Result<PositionRecord, RecordError> {
        let result = StmResult::from_i8(rec.result).ok_or(RecordError::Result(rec.result))?;
        let fsf = FsfPosition::unpack(&rec.packed, self.geometry)?;
        let pos = self.unpack_position(&fsf)?;
        let mut flags = PositionFlags::default();
        flags.set(PositionFlags::IN_CHECK, pos.in_check());
        Ok(PositionRecord {
            pos: CompactPosition::from_position(&pos)?,
            score: fsf_to_cp(rec.score),
            result,
            ply: rec.ply,
            mv: 0,
            flags,
        })
    }
}
