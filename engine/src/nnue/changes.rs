//! What one move changed between a parent and a child position, as both nets' incremental
//! accumulators read it (the kage net's [`crate::nnue::stack`] and Fairy-Stockfish's
//! [`crate::nnue::fsf::incremental`]): the squares whose piece changed and the hand counts that
//! changed, or "overflow" when a move changed more than the arrays hold (then only a refresh
//! is correct).

use crate::position::Position;
use crate::types::{Color, Piece, PieceKind, bits};
use crate::variant::Variant;

/// Most changed squares one record holds (a move changes at most four: castling).
const MAX_SQUARES: usize = 8;
/// Most changed hand counts one record holds.
const MAX_HANDS: usize = 4;

/// One square whose piece changed.
#[derive(Clone, Copy)]
pub(crate) struct SquareChange {
    pub sq: u8,
    pub old: Option<Piece>,
    pub new: Option<Piece>,
}

/// One hand count that changed.
#[derive(Clone, Copy)]
pub(crate) struct HandChange {
    pub owner: Color,
    pub kind: PieceKind,
    pub from: u8,
    pub to: u8,
}

/// The changes of one move.
#[derive(Clone, Copy)]
pub(crate) struct Changes {
    overflow: bool,
    n_squares: u8,
    squares: [SquareChange; MAX_SQUARES],
    n_hands: u8,
    hands: [HandChange; MAX_HANDS],
}

impl Changes {
    /// No change (the root of a path).
    pub const NONE: Changes = Changes {
        overflow: false,
        n_squares: 0,
        squares: [SquareChange { sq: 0, old: None, new: None }; MAX_SQUARES],
        n_hands: 0,
        hands: [HandChange { owner: Color::White, kind: PieceKind(0), from: 0, to: 0 }; MAX_HANDS],
    };

    /// What changed from `parent` to `child` (positions of variant `v`).
    pub fn between(v: &Variant, parent: &Position, child: &Position) -> Changes {
        let mut c = Changes::NONE;
        let mut changed = (parent.pieces_of(Color::White) ^ child.pieces_of(Color::White))
            | (parent.pieces_of(Color::Black) ^ child.pieces_of(Color::Black));
        for k in 0..v.num_kinds() {
            let k = PieceKind(k as u8);
            changed |= parent.pieces_of_kind(k) ^ child.pieces_of_kind(k);
        }
        for sq in bits(changed) {
            if c.n_squares as usize == MAX_SQUARES {
                c.overflow = true;
                break;
            }
            c.squares[c.n_squares as usize] =
                SquareChange { sq, old: parent.piece_on(sq), new: child.piece_on(sq) };
            c.n_squares += 1;
        }
        for owner in Color::ALL {
            for &kind in &v.hand_kinds {
                let (from, to) = (parent.hand(owner, kind), child.hand(owner, kind));
                if from == to {
                    continue;
                }
                if c.n_hands as usize == MAX_HANDS {
                    c.overflow = true;
                    continue;
                }
                c.hands[c.n_hands as usize] = HandChange { owner, kind, from, to };
                c.n_hands += 1;
            }
        }
        c
    }

    /// More changes than the record holds: only a refresh is correct.
    pub fn overflow(&self) -> bool {
        self.overflow
    }

    /// The changed squares.
    pub fn squares(&self) -> &[SquareChange] {
        &self.squares[..self.n_squares as usize]
    }

    /// The changed hand counts.
    pub fn hands(&self) -> &[HandChange] {
        &self.hands[..self.n_hands as usize]
    }

    /// Feature rows an incremental update adds or removes per perspective (an upper bound:
    /// one per piece removed or placed, one per hand slot).
    pub fn rows(&self) -> u32 {
        let squares: u32 = self
            .squares()
            .iter()
            .map(|s| u32::from(s.old.is_some()) + u32::from(s.new.is_some()))
            .sum();
        squares + self.hands().iter().map(|h| u32::from(h.from.abs_diff(h.to))).sum::<u32>()
    }
}
