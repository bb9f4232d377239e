//! The compiled variant: attack tables, zones and rule flags. Move generation reads only this.

use super::betza::Step;
use super::{SpecError, VariantId, VariantSpec};
use crate::types::{Bitboard, ByColor, Color, MAX_KINDS, MAX_SQUARES, Move, PieceKind};
use kinds::{Symbols, compile_kinds, hand_kinds, the_king};

mod kinds;

/// Ray directions, clockwise from north (towards rank 8).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Towards the last rank.
    N = 0,
    /// North-east.
    NE,
    /// Towards the last file.
    E,
    /// South-east.
    SE,
    /// Towards the first rank.
    S,
    /// South-west.
    SW,
    /// Towards the first file.
    W,
    /// North-west.
    NW,
}

pub(crate) const DIRS: [(i8, i8); 8] =
    [(0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1)];

/// How a repetition that is not a perpetual check ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RepetitionVerdict {
    /// A draw.
    Draw,
    /// White loses (as in shogi variants where White is sente).
    WhiteLoses,
}

/// What the engine knows about one piece kind.
#[derive(Clone, Debug)]
pub struct KindInfo {
    /// Base letter, uppercase (`P` for both `P` and `+P`).
    pub letter: char,
    /// A promoted kind (`+P`).
    pub promoted: bool,
    /// Full name.
    pub name: String,
    /// The king: checkmate and check rules apply to it.
    pub royal: bool,
    /// A chess pawn (move-rule resets, en passant).
    pub pawn: bool,
    /// The kind it promotes to (with `promotion_choices`: the first choice).
    pub promotes_to: Option<PieceKind>,
    /// Chess-style promotion: the kinds it may choose among (a move's
    /// [`Move::promotion_choice`](crate::types::Move::promotion_choice) indexes this); empty
    /// for a promotion to `promotes_to` only.
    pub promotion_choices: Vec<PieceKind>,
    /// The kind a capture sends to hand (itself when unpromoted).
    pub demoted: PieceKind,
    /// Two unpromoted pieces of this kind may not share a file (shogi's nifu).
    pub nifu: bool,
    /// A drop of this kind that mates loses.
    pub drop_mate_loses: bool,
    /// The rook of castling.
    pub castling_rook: bool,
    /// Value on the board (centipawns, for the evaluation and SEE).
    pub value: i32,
    /// Value in hand.
    pub hand_value: i32,
    /// Slide directions per color (bit d = `Direction` d).
    pub slides: ByColor<u8>,
    /// Movement in Betza notation.
    pub betza: String,
}

impl KindInfo {
    /// `P` or `+P`.
    pub fn symbol(&self) -> String {
        if self.promoted { format!("+{}", self.letter) } else { self.letter.to_string() }
    }
}

/// Castling geometry of one side (chess: king e-file, rooks in the corners).
#[derive(Clone, Copy, Debug)]
pub struct CastlingGeometry {
    pub king_from: u8,
    /// [king side, queen side]
    pub king_to: [u8; 2],
    pub rook_from: [u8; 2],
    pub rook_to: [u8; 2],
}

/// A compiled variant.
pub struct Variant {
    /// Which built-in variant this is, if one.
    pub id: Option<VariantId>,
    /// Name.
    pub name: String,
    /// What the variant calls White (who moves first) and Black (`Clan`/`Kingdom`,
    /// `Sente`/`Gote`); `White`/`Black` unless the spec names them.
    pub side_names: [String; 2],
    /// Files.
    pub width: u8,
    /// Ranks.
    pub height: u8,
    /// `width * height`.
    pub num_squares: u8,
    /// The board's squares.
    pub board: Bitboard,
    /// Piece kinds (promoted kinds are kinds of their own), indexed by [`PieceKind`].
    pub kinds: Vec<KindInfo>,
    /// Kinds that can be held in hand, in FEN output order.
    pub hand_kinds: Vec<PieceKind>,
    /// Per entry of `hand_kinds`: how many of that kind the start position holds in all
    /// (board and hands, both colors), at least 1: the most one hand can usually hold.
    pub hand_max: Vec<u8>,
    /// The royal kind.
    pub king: PieceKind,
    /// Start position.
    pub start_fen: String,
    /// Captured pieces go to the capturer's hand.
    pub captures_to_hand: bool,
    /// Chess castling.
    pub castling: bool,
    /// En-passant captures.
    pub en_passant: bool,
    /// Promotion is taken whenever possible.
    pub mandatory_promotion: bool,
    /// Moves and drops that leave a piece unable to move are illegal.
    pub immobility_illegal: bool,
    /// The stalemated side loses (else a draw).
    pub stalemate_loses: bool,
    /// Plies without an irreversible move that draw (0: no such rule).
    pub move_rule_plies: u16,
    /// Perpetual check loses for the checking side.
    pub perpetual_check_loses: bool,
    /// The occurrence of a position that ends the game.
    pub repetition_count: u8,
    /// How a repetition that is not a perpetual check ends.
    pub repetition_verdict: RepetitionVerdict,
    /// Where each side's pieces promote.
    pub promotion_zone: ByColor<Bitboard>,
    /// Where each side may drop.
    pub drop_zone: ByColor<Bitboard>,
    /// Where each side's king wins by arriving (campmate).
    pub flag_zone: ByColor<Bitboard>,
    /// Fairy-Stockfish's NNUE piece types, when the spec has an `[fsf_nnue]` table.
    pub fsf_nnue: Option<super::fsf::FsfPieceTypes>,
    /// Castling squares per side.
    pub castling_geometry: ByColor<CastlingGeometry>,
    /// Squares of each file.
    pub file_masks: [Bitboard; 8],
    /// Squares of each rank.
    pub rank_masks: [Bitboard; 8],
    pub(crate) ray: [[Bitboard; MAX_SQUARES]; 8],
    pub(crate) between: Vec<Bitboard>,
    pub(crate) line: Vec<Bitboard>,
    leap_both: Vec<Bitboard>,
    leap_capture: Vec<Bitboard>,
    leap_attacks: Vec<Bitboard>,
    leap_quiet: Vec<Bitboard>,
    double_to: Vec<u8>,
    immobile: Vec<Bitboard>,
    drop_targets: Vec<Bitboard>,
    /// Per color and direction: kinds (bit mask) that slide that way.
    pub(crate) slide_kinds: [[u32; 8]; 2],
    /// Kinds with any leaping (non-sliding) attack.
    pub(crate) leaper_kinds: u32,
    /// Kinds whose moves include a double step.
    pub(crate) double_step_kinds: u32,
}

impl std::fmt::Debug for Variant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Variant({})", self.name)
    }
}

#[inline(always)]
fn idx(c: Color, k: PieceKind, sq: u8) -> usize {
    ((c as usize * MAX_KINDS) + k.index()) * MAX_SQUARES + sq as usize
}

#[inline(always)]
fn ck(c: Color, k: PieceKind) -> usize {
    c as usize * MAX_KINDS + k.index()
}

impl Variant {
    /// Number of piece kinds.
    #[inline(always)]
    pub fn num_kinds(&self) -> usize {
        self.kinds.len()
    }

    /// What the variant says about kind `k`.
    #[inline(always)]
    pub fn kind(&self, k: PieceKind) -> &KindInfo {
        &self.kinds[k.index()]
    }

    /// The kind a piece of kind `k` becomes by the promotion `m` (its choice among the
    /// targets); `k` itself if it has no such target.
    #[inline(always)]
    pub fn promoted_kind(&self, k: PieceKind, m: Move) -> PieceKind {
        let info = self.kind(k);
        match m.promotion_choice() {
            0 => info.promotes_to.unwrap_or(k),
            i => info.promotion_choices.get(i).copied().unwrap_or(k),
        }
    }

    /// Squares a piece attacks from `sq` by leaping (captures included).
    #[inline(always)]
    pub fn leap_attacks(&self, c: Color, k: PieceKind, sq: u8) -> Bitboard {
        self.leap_attacks[idx(c, k, sq)]
    }

    /// Leaps that both move and capture.
    #[inline(always)]
    pub fn leap_both(&self, c: Color, k: PieceKind, sq: u8) -> Bitboard {
        self.leap_both[idx(c, k, sq)]
    }

    /// Capture-only leaps (pawn captures).
    #[inline(always)]
    pub fn leap_capture(&self, c: Color, k: PieceKind, sq: u8) -> Bitboard {
        self.leap_capture[idx(c, k, sq)]
    }

    /// Move-only leaps (pawn pushes), excluding double steps.
    #[inline(always)]
    pub fn leap_quiet(&self, c: Color, k: PieceKind, sq: u8) -> Bitboard {
        self.leap_quiet[idx(c, k, sq)]
    }

    /// Target of a double step from `sq` (the square passed over must be empty), if any.
    #[inline(always)]
    pub fn double_step(&self, c: Color, k: PieceKind, sq: u8) -> Option<u8> {
        let t = self.double_to[idx(c, k, sq)];
        (t != 0xff).then_some(t)
    }

    /// Squares where a piece of this kind could never move again.
    #[inline(always)]
    pub fn immobile(&self, c: Color, k: PieceKind) -> Bitboard {
        self.immobile[ck(c, k)]
    }

    /// Squares a piece of this kind may be dropped on (before nifu and occupancy).
    #[inline(always)]
    pub fn drop_targets(&self, c: Color, k: PieceKind) -> Bitboard {
        self.drop_targets[ck(c, k)]
    }

    /// Attacks of the sliding directions `dirs` (bit mask) from `sq` given occupancy.
    #[inline(always)]
    pub fn slide_attacks(&self, dirs: u8, sq: u8, occ: Bitboard) -> Bitboard {
        let mut att = 0;
        let mut d = dirs;
        while d != 0 {
            let dir = d.trailing_zeros() as usize;
            d &= d - 1;
            att |= self.ray_attack(dir, sq, occ);
        }
        att
    }

    /// Attacks along one ray, up to and including the first blocker.
    #[inline(always)]
    pub fn ray_attack(&self, dir: usize, sq: u8, occ: Bitboard) -> Bitboard {
        let ray = self.ray[dir][sq as usize];
        let blockers = ray & occ;
        if blockers == 0 {
            return ray;
        }
        // N, NE, E, NW increase the square index; the nearest blocker is the lowest bit.
        let b = if matches!(dir, 0 | 1 | 2 | 7) {
            blockers.trailing_zeros()
        } else {
            63 - blockers.leading_zeros()
        };
        ray ^ self.ray[dir][b as usize]
    }

    /// Every square a piece attacks (captures included).
    #[inline(always)]
    pub fn attacks(&self, c: Color, k: PieceKind, sq: u8, occ: Bitboard) -> Bitboard {
        let slides = self.kinds[k.index()].slides[c];
        let mut a = self.leap_attacks[idx(c, k, sq)];
        if slides != 0 {
            a |= self.slide_attacks(slides, sq, occ);
        }
        a
    }

    /// Squares strictly between two aligned squares (empty when not aligned).
    #[inline(always)]
    pub fn between(&self, a: u8, b: u8) -> Bitboard {
        self.between[a as usize * MAX_SQUARES + b as usize]
    }

    /// The whole line through two aligned squares (empty when not aligned).
    #[inline(always)]
    pub fn line(&self, a: u8, b: u8) -> Bitboard {
        self.line[a as usize * MAX_SQUARES + b as usize]
    }

    /// The kind written `letter` (`+letter` when `promoted`).
    pub fn kind_by_symbol(&self, letter: char, promoted: bool) -> Option<PieceKind> {
        let up = letter.to_ascii_uppercase();
        self.kinds
            .iter()
            .position(|k| k.letter == up && k.promoted == promoted)
            .map(|i| PieceKind(i as u8))
    }

    /// Squares on ranks (1-based) `ranks`.
    fn ranks_bb(&self, ranks: &[u8]) -> Result<Bitboard, SpecError> {
        let mut b = 0;
        for &r in ranks {
            if r == 0 || r > self.height {
                return Err(SpecError::BadRank(r));
            }
            b |= self.rank_masks[(r - 1) as usize];
        }
        Ok(b)
    }

    /// Checks a spec and compiles it: the board, the piece kinds, the hands, the rules, the
    /// zones, then the attack tables.
    pub fn compile(spec: &VariantSpec) -> Result<Variant, SpecError> {
        let (w, h) = (spec.width, spec.height);
        if !(1..=8).contains(&w) || !(1..=8).contains(&h) {
            return Err(SpecError::BoardSize { width: w, height: h });
        }
        if spec.pieces.len() > MAX_KINDS {
            return Err(SpecError::TooManyKinds(spec.pieces.len()));
        }
        super::limits::check_spec(spec)?;
        let [a, b] = &spec.sides;
        let bad_side = |n: &str| {
            n.is_empty() || n.len() > 24 || !n.chars().all(|c| c.is_alphanumeric() || c == '-')
        };
        if bad_side(a) || bad_side(b) || a == b {
            return Err(SpecError::Inconsistent(format!(
                "sides {a:?} and {b:?} must be two different words (letters, digits, '-'; at \
                 most 24 characters)"
            )));
        }
        // The halfmove clock counts plies in 16 bits.
        let move_rule_plies = spec.move_rule.checked_mul(2).ok_or_else(|| {
            SpecError::Inconsistent(format!(
                "move_rule {} is too large (at most {} moves)",
                spec.move_rule,
                u16::MAX / 2
            ))
        })?;
        let n = w * h;
        let board = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
        let mut file_masks = [0u64; 8];
        let mut rank_masks = [0u64; 8];
        for s in 0..n {
            file_masks[(s % w) as usize] |= 1 << s;
            rank_masks[(s / w) as usize] |= 1 << s;
        }
        let symbols = Symbols::of(spec)?;
        let (kinds, steps_of) = compile_kinds(spec, &symbols)?;
        let king = the_king(&kinds)?;
        let hand_kinds = hand_kinds(spec, &symbols, &kinds)?;
        let (repetition_verdict, stalemate_loses) = verdicts(spec)?;
        let fsf_nnue = super::fsf::compile(spec, &kinds)?;

        let mut v = Variant {
            id: None,
            name: spec.name.clone(),
            side_names: spec.sides.clone(),
            width: w,
            height: h,
            num_squares: n,
            board,
            kinds,
            hand_max: hand_kinds
                .iter()
                .map(|&k| count_letter(&spec.start_fen, symbols.0[k.index()].0))
                .collect(),
            hand_kinds,
            king,
            start_fen: spec.start_fen.clone(),
            captures_to_hand: spec.captures_to_hand,
            castling: spec.castling,
            en_passant: spec.en_passant,
            mandatory_promotion: spec.mandatory_promotion,
            immobility_illegal: spec.immobility_illegal,
            stalemate_loses,
            move_rule_plies,
            perpetual_check_loses: spec.perpetual_check_loses,
            repetition_count: spec.repetition.count,
            repetition_verdict,
            promotion_zone: ByColor::default(),
            drop_zone: ByColor::default(),
            flag_zone: ByColor::default(),
            fsf_nnue,
            castling_geometry: ByColor::new(castle_geo(0, w), castle_geo(h - 1, w)),
            file_masks,
            rank_masks,
            ray: [[0; MAX_SQUARES]; 8],
            between: vec![0; MAX_SQUARES * MAX_SQUARES],
            line: vec![0; MAX_SQUARES * MAX_SQUARES],
            leap_both: vec![0; 2 * MAX_KINDS * MAX_SQUARES],
            leap_capture: vec![0; 2 * MAX_KINDS * MAX_SQUARES],
            leap_attacks: vec![0; 2 * MAX_KINDS * MAX_SQUARES],
            leap_quiet: vec![0; 2 * MAX_KINDS * MAX_SQUARES],
            double_to: vec![0xff; 2 * MAX_KINDS * MAX_SQUARES],
            immobile: vec![0; 2 * MAX_KINDS],
            drop_targets: vec![0; 2 * MAX_KINDS],
            slide_kinds: [[0; 8]; 2],
            leaper_kinds: 0,
            double_step_kinds: 0,
        };
        v.set_zones(spec)?;
        v.check_rules_fit()?;
        v.build_rays();
        v.build_piece_tables(&steps_of);
        Ok(v)
    }

    /// The promotion, drop and flag zones of the spec.
    fn set_zones(&mut self, spec: &VariantSpec) -> Result<(), SpecError> {
        let z = &spec.zones;
        self.promotion_zone =
            ByColor::new(self.ranks_bb(&z.promotion_white)?, self.ranks_bb(&z.promotion_black)?);
        self.drop_zone = ByColor::new(self.ranks_bb(&z.drop_white)?, self.ranks_bb(&z.drop_black)?);
        self.flag_zone = ByColor::new(
            self.ranks_bb(&z.flag_white)?
                | self.squares_bb("flag_squares_white", &z.flag_squares_white)?,
            self.ranks_bb(&z.flag_black)?
                | self.squares_bb("flag_squares_black", &z.flag_squares_black)?,
        );
        Ok(())
    }

    /// The squares named (`d4`) in zone list `key`.
    fn squares_bb(&self, key: &str, squares: &[String]) -> Result<Bitboard, SpecError> {
        let mut b = 0;
        for s in squares {
            let sq = crate::types::Square::parse(s, self.width, self.height).ok_or_else(|| {
                SpecError::Inconsistent(format!("zones.{key}: '{s}' is not a square of the board"))
            })?;
            b |= sq.bb();
        }
        Ok(b)
    }

    /// Castling, promotion and drops have what they need (board, rook, zones).
    fn check_rules_fit(&self) -> Result<(), SpecError> {
        if self.castling && (self.width != 8 || !self.kinds.iter().any(|k| k.castling_rook)) {
            return Err(SpecError::Inconsistent(
                "castling needs an 8-file board and a piece with castling_rook = true".into(),
            ));
        }
        if self.kinds.iter().any(|k| k.promotes_to.is_some())
            && self.promotion_zone[Color::White] == 0
            && self.promotion_zone[Color::Black] == 0
        {
            return Err(SpecError::Inconsistent(
                "pieces promote but no promotion zone is set".into(),
            ));
        }
        if !self.hand_kinds.is_empty()
            && self.drop_zone[Color::White] == 0
            && self.drop_zone[Color::Black] == 0
        {
            return Err(SpecError::Inconsistent(
                "pieces can be in hand but no drop zone is set".into(),
            ));
        }
        Ok(())
    }

    fn on_board(&self, f: i16, r: i16) -> bool {
        f >= 0 && r >= 0 && f < self.width as i16 && r < self.height as i16
    }

    fn sq(&self, f: i16, r: i16) -> u8 {
        (r * self.width as i16 + f) as u8
    }

    fn build_rays(&mut self) {
        for s in 0..self.num_squares {
            let (f, r) = ((s % self.width) as i16, (s / self.width) as i16);
            for (d, &(dx, dy)) in DIRS.iter().enumerate() {
                let (mut x, mut y) = (f + dx as i16, r + dy as i16);
                let mut ray = 0u64;
                while self.on_board(x, y) {
                    ray |= 1 << self.sq(x, y);
                    x += dx as i16;
                    y += dy as i16;
                }
                self.ray[d][s as usize] = ray;
            }
        }
        for a in 0..self.num_squares {
            for d in 0..8 {
                for b in super::super::types::bits(self.ray[d][a as usize]) {
                    let i = a as usize * MAX_SQUARES + b as usize;
                    self.between[i] = self.ray[d][a as usize] & self.ray[(d + 4) % 8][b as usize];
                    self.line[i] =
                        self.ray[d][a as usize] | self.ray[(d + 4) % 8][a as usize] | 1 << a;
                }
            }
        }
    }

    fn build_piece_tables(&mut self, steps_of: &[Vec<Step>]) {
        for (ki, steps) in steps_of.iter().enumerate() {
            let k = PieceKind(ki as u8);
            for c in Color::ALL {
                let sign: i16 = if c == Color::White { 1 } else { -1 };
                for s in 0..self.num_squares {
                    let (f, r) = ((s % self.width) as i16, (s / self.width) as i16);
                    let rel_rank = if c == Color::White { r } else { self.height as i16 - 1 - r };
                    let mut any_move = false;
                    for st in steps {
                        let (x, y) = (f + st.dx as i16, r + sign * st.dy as i16);
                        if !self.on_board(x, y) {
                            continue;
                        }
                        let t = self.sq(x, y);
                        if st.rider {
                            any_move = true;
                            continue;
                        }
                        if st.initial_only {
                            if rel_rank == 1 && st.can_move && !st.can_capture {
                                self.double_to[idx(c, k, s)] = t;
                                self.double_step_kinds |= 1 << ki;
                            }
                            continue;
                        }
                        any_move = true;
                        if st.can_capture {
                            self.leap_attacks[idx(c, k, s)] |= 1 << t;
                            self.leaper_kinds |= 1 << ki;
                            if st.can_move {
                                self.leap_both[idx(c, k, s)] |= 1 << t;
                            } else {
                                self.leap_capture[idx(c, k, s)] |= 1 << t;
                            }
                        } else {
                            self.leap_quiet[idx(c, k, s)] |= 1 << t;
                        }
                    }
                    if !any_move {
                        self.immobile[ck(c, k)] |= 1 << s;
                    }
                }
                for d in 0..8 {
                    if self.kinds[ki].slides[c] & (1 << d) != 0 {
                        self.slide_kinds[c as usize][d] |= 1 << ki;
                    }
                }
                let mut drops = self.drop_zone[c];
                if self.immobility_illegal {
                    drops &= !self.immobile[ck(c, k)];
                }
                self.drop_targets[ck(c, k)] = drops;
            }
        }
    }
}

/// How a repetition ends and whether stalemate loses.
fn verdicts(spec: &VariantSpec) -> Result<(RepetitionVerdict, bool), SpecError> {
    let repetition_verdict = match spec.repetition.verdict.as_str() {
        "draw" => RepetitionVerdict::Draw,
        "white_loses" => RepetitionVerdict::WhiteLoses,
        other => {
            return Err(SpecError::Inconsistent(format!(
                "repetition verdict '{other}' (expected draw or white_loses)"
            )));
        }
    };
    if spec.repetition.count < 2 {
        return Err(SpecError::Inconsistent("repetition count must be at least 2".into()));
    }
    let stalemate_loses = match spec.stalemate.as_str() {
        "loss" => true,
        "draw" => false,
        other => {
            return Err(SpecError::Inconsistent(format!(
                "stalemate '{other}' (expected loss or draw)"
            )));
        }
    };
    Ok((repetition_verdict, stalemate_loses))
}

fn castle_geo(rank: u8, w: u8) -> CastlingGeometry {
    let s = |f: u8| rank * w + f;
    CastlingGeometry {
        king_from: s(4),
        king_to: [s(6), s(2)],
        rook_from: [s(w.saturating_sub(1)), s(0)],
        rook_to: [s(5), s(3)],
    }
}

/// Pieces of `letter` (either color, promoted or not) in a FEN's placement field, at least 1.
fn count_letter(fen: &str, letter: char) -> u8 {
    let placement = fen.split_whitespace().next().unwrap_or("");
    let n = placement.chars().filter(|c| c.to_ascii_uppercase() == letter).count();
    n.clamp(1, 32) as u8
}
