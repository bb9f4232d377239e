//! The hand-crafted evaluation: material on board and in hand, piece-square terms
//! (advancement, centrality, king placement and campmate approach) and king safety.
//! Tables are built once per variant; evaluation is a loop over the occupied squares.

use super::hce_features::{self, DANGER_CELLS, Feature};
use super::params::EvalParams;
use crate::position::Position;
use crate::types::{Bitboard, Color, MAX_KINDS, MAX_SQUARES, bits};
use crate::variant::Variant;

/// Precomputed evaluation tables for one variant.
pub struct Hce {
    variant: &'static Variant,
    /// Material + piece-square value per (color, kind, square), White's point of view.
    psq: Vec<[i32; MAX_SQUARES]>,
    /// Hand value per (color, kind), White's point of view.
    hand: [[i32; MAX_KINDS]; 2],
    /// Squares within two king steps / one king step.
    zone: [Bitboard; MAX_SQUARES],
    ring: [Bitboard; MAX_SQUARES],
    /// Campmate approach bonus per (color, king square), before safety scaling.
    flag: [[i32; MAX_SQUARES]; 2],
    tempo: i32,
    attacker: i32,
    hand_danger: i32,
    defender: i32,
    divisor: i32,
    /// Attack-based terms ([`hce_features`]), by kind index; skipped when all are zero.
    extras: bool,
    mobility: [i32; MAX_KINDS],
    king_attack: [i32; MAX_KINDS],
    hanging_to_move: [i32; MAX_KINDS],
    hanging_waiting: [i32; MAX_KINDS],
    danger: [i32; DANGER_CELLS],
}

impl Hce {
    /// Tables for `variant` with its built-in parameters.
    pub fn new(variant: &'static Variant) -> Hce {
        Hce::with_params(variant, &EvalParams::for_variant(&variant.name))
    }

    /// The variant this evaluation is for.
    pub fn variant(&self) -> &'static Variant {
        self.variant
    }

    /// The evaluation of `variant` with parameters `p`.
    pub fn with_params(variant: &'static Variant, p: &EvalParams) -> Hce {
        let (w, h) = (variant.width as i32, variant.height as i32);
        let n = variant.num_squares as usize;
        let nk = variant.num_kinds();
        let mut psq = vec![[0; MAX_SQUARES]; 2 * nk];
        let mut hand = [[0; MAX_KINDS]; 2];
        let mut flag = [[0; MAX_SQUARES]; 2];
        for (ki, info) in variant.kinds.iter().enumerate() {
            let sym = info.symbol();
            let adv = if info.royal { Some(&p.king.advance) } else { p.advance.get(&sym) };
            let center = p.center.get(&sym).copied().unwrap_or(0);
            let material = p.material.get(&sym).copied().unwrap_or(info.value);
            let psq_table = p.psq.get(&sym);
            for c in Color::ALL {
                let sign = if c == Color::White { 1 } else { -1 };
                hand[c as usize][ki] = sign * p.hand.get(&sym).copied().unwrap_or(info.hand_value);
                let table = &mut psq[c as usize * nk + ki];
                for (sq, slot) in table.iter_mut().enumerate().take(n) {
                    let (file, rank) = (sq as i32 % w, sq as i32 / w);
                    let rel = if c == Color::White { rank } else { h - 1 - rank };
                    let adv_v = adv.and_then(|a| a.get(rel as usize)).copied().unwrap_or(0);
                    let cen = file.min(w - 1 - file) + rank.min(h - 1 - rank);
                    let val = if info.royal { 0 } else { material };
                    let rel_sq = if c == Color::White { sq } else { n - 1 - sq };
                    let psq_v = psq_table.and_then(|t| t.get(rel_sq)).copied().unwrap_or(0);
                    *slot = sign * (val + adv_v + center * cen + psq_v);
                }
            }
        }
        let mut zone = [0; MAX_SQUARES];
        let mut ring = [0; MAX_SQUARES];
        for s in 0..n {
            let (sf, sr) = (s as i32 % w, s as i32 / w);
            for t in 0..n {
                let (tf, tr) = (t as i32 % w, t as i32 / w);
                let d = (sf - tf).abs().max((sr - tr).abs());
                if (1..=2).contains(&d) {
                    zone[s] |= 1 << t;
                }
                if d == 1 {
                    ring[s] |= 1 << t;
                }
            }
        }
        for c in Color::ALL {
            let fz = variant.flag_zone[c];
            if fz == 0 {
                continue;
            }
            for (s, f) in flag[c as usize].iter_mut().enumerate().take(n) {
                let (r, file) = (s as i32 / w, s as i32 % w);
                // King steps to the nearest flag square (for flag ranks: the rank distance).
                let steps = |t: u8| (t as i32 / w - r).abs().max((t as i32 % w - file).abs());
                let dist = bits(fz).map(steps).min().unwrap_or(0);
                *f = p.king.flag.get(dist as usize).copied().unwrap_or(0);
            }
        }
        let by_kind = |m: &std::collections::BTreeMap<String, i32>| {
            let mut t = [0; MAX_KINDS];
            for (ki, info) in variant.kinds.iter().enumerate() {
                t[ki] = m.get(&info.symbol()).copied().unwrap_or(0);
            }
            t
        };
        let mobility = by_kind(&p.mobility);
        let king_attack = by_kind(&p.king_attack);
        let hanging_to_move = by_kind(&p.hanging_to_move);
        let hanging_waiting = by_kind(&p.hanging_waiting);
        let mut danger = [0; DANGER_CELLS];
        for (d, &x) in danger.iter_mut().zip(&p.king_danger) {
            *d = x;
        }
        let extras = [mobility, king_attack, hanging_to_move, hanging_waiting]
            .iter()
            .any(|t| t.iter().any(|&x| x != 0))
            || danger.iter().any(|&x| x != 0);
        Hce {
            variant,
            psq,
            hand,
            zone,
            ring,
            flag,
            tempo: p.tempo,
            attacker: p.king_safety.attacker,
            hand_danger: p.king_safety.hand,
            defender: p.king_safety.defender,
            divisor: p.king_safety.divisor.max(1),
            extras,
            mobility,
            king_attack,
            hanging_to_move,
            hanging_waiting,
            danger,
        }
    }

    /// Static evaluation in centipawns from the side to move's point of view.
    #[inline]
    pub fn evaluate(&self, pos: &Position) -> i32 {
        let v = self.variant;
        let nk = v.num_kinds();
        let mut score = 0;
        for sq in bits(pos.occupied()) {
            if let Some(p) = pos.piece_on(sq) {
                score += self.psq[p.color as usize * nk + p.kind.index()][sq as usize];
            }
        }
        let mut in_hand = [0i32; 2];
        for &k in &v.hand_kinds {
            for c in Color::ALL {
                let cnt = pos.hand(c, k) as i32;
                score += cnt * self.hand[c as usize][k.index()];
                in_hand[c as usize] += cnt;
            }
        }
        score += self.king_term(pos, in_hand);
        if self.extras {
            score += self.extra_terms(pos, in_hand);
        }
        let stm = pos.side_to_move();
        (if stm == Color::White { score } else { -score }) + self.tempo
    }

    /// The attack-based terms ([`hce_features`]) from White's point of view.
    #[inline]
    fn extra_terms(&self, pos: &Position, in_hand: [i32; 2]) -> i32 {
        let mut score = 0;
        hce_features::visit(pos, &self.ring, in_hand, |f, n| {
            score += n * match f {
                Feature::Mobility(k) => self.mobility[k],
                Feature::KingAttack(k) => self.king_attack[k],
                Feature::Danger(c) => self.danger[c],
                Feature::HangingToMove(k) => self.hanging_to_move[k],
                Feature::HangingWaiting(k) => self.hanging_waiting[k],
            }
        });
        score
    }

    /// King placement terms from White's point of view: the campmate approach bonus, scaled
    /// down by attackers near the king, minus the king-safety penalty. `in_hand` counts the
    /// pieces in each side's hand.
    #[inline]
    fn king_term(&self, pos: &Position, in_hand: [i32; 2]) -> i32 {
        let mut score = 0;
        for c in Color::ALL {
            let ksq = pos.king_square(c);
            if ksq as usize >= MAX_SQUARES {
                continue;
            }
            let them = !c;
            let attackers = (self.zone[ksq as usize] & pos.pieces_of(them)).count_ones() as i32;
            let defenders = (self.ring[ksq as usize] & pos.pieces_of(c)).count_ones() as i32;
            let danger = (self.attacker * attackers + self.hand_danger * in_hand[them as usize]
                - self.defender * defenders)
                .max(0);
            // In 64 bits: parameters and hands far from the built-in ones must not wrap.
            let penalty = (i64::from(danger).pow(2) / i64::from(self.divisor)).min(1 << 20) as i32;
            let flag = self.flag[c as usize][ksq as usize];
            let flag = if flag != 0 { flag * 4 / (4 + attackers) } else { 0 };
            let s = flag - penalty;
            score += if c == Color::White { s } else { -s };
        }
        score
    }

    /// `Hce::king_term` for a position, counting the hands itself: the part of the
    /// evaluation that the tuner holds fixed (see [`super::hce_terms`]).
    pub fn king_term_white(&self, pos: &Position) -> i32 {
        self.king_term(pos, self.in_hand(pos))
    }

    /// Pieces in each side's hand.
    pub(super) fn in_hand(&self, pos: &Position) -> [i32; 2] {
        let mut in_hand = [0i32; 2];
        for &k in &self.variant.hand_kinds {
            for c in Color::ALL {
                in_hand[c as usize] += pos.hand(c, k) as i32;
            }
        }
        in_hand
    }

    /// The eight neighbours of every square (the king's ring).
    pub(super) fn ring(&self) -> &[Bitboard; MAX_SQUARES] {
        &self.ring
    }
}
