//! The hand-crafted evaluation as a linear function of its tunable parameters, for
//! Texel-style tuning (`kage-train tune`): material on the board and in hand, advancement by
//! relative rank, centrality and tempo are linear; the king terms (campmate approach and
//! king safety) are held fixed and come out as one offset per position.
//!
//! For every position, `layout.terms(pos)` gives coefficients `x` and an offset `f` with
//! `white_eval = θ·x + f` exactly (integer parameters), where `θ` is
//! [`TermLayout::initial`] for the parameters the layout was built from.

use super::hce::Hce;
use super::hce_features::{self, DANGER_CELLS, Feature};
use super::params::EvalParams;
use crate::position::Position;
use crate::types::{Color, MAX_KINDS, bits};
use crate::variant::Variant;
use std::collections::HashMap;
use std::fmt::Write as _;

/// Index of the tunable parameters of one variant's hand-crafted evaluation.
pub struct TermLayout {
    variant: &'static Variant,
    base: EvalParams,
    hce: Hce,
    names: Vec<String>,
    initial: Vec<f64>,
    material: [Option<u32>; MAX_KINDS],
    hand: [Option<u32>; MAX_KINDS],
    /// First index of the per-rank advancement entries of each kind (royal kinds share).
    advance: [u32; MAX_KINDS],
    center: [u32; MAX_KINDS],
    tempo: u32,
    /// First index of each kind's piece-square table (`num_squares` entries).
    psq: [u32; MAX_KINDS],
    mobility: [u32; MAX_KINDS],
    king_attack: [u32; MAX_KINDS],
    hanging_to_move: [u32; MAX_KINDS],
    hanging_waiting: [u32; MAX_KINDS],
    /// First index of the king-danger table ([`DANGER_CELLS`] entries).
    danger: u32,
}

/// The linear coefficients of one position (White's point of view) and its fixed offset.
#[derive(Clone, Debug, Default)]
pub struct Terms {
    /// `(parameter index, coefficient)`, each index once, ascending.
    pub coefs: Vec<(u32, f32)>,
    /// The king terms, held fixed by the tuner, in centipawns.
    pub fixed: i32,
}

impl TermLayout {
    /// The layout of `variant`'s evaluation with parameters `base` (their values are the
    /// starting point, [`TermLayout::initial`]).
    pub fn new(variant: &'static Variant, base: &EvalParams) -> TermLayout {
        let mut names = Vec::new();
        let mut initial = Vec::new();
        let mut push = |name: String, value: i32| {
            names.push(name);
            initial.push(f64::from(value));
            (initial.len() - 1) as u32
        };
        let mut material = [None; MAX_KINDS];
        let mut hand = [None; MAX_KINDS];
        let mut advance = [0; MAX_KINDS];
        let mut center = [0; MAX_KINDS];
        let height = variant.height as usize;
        let empty = Vec::new();
        let mut king_advance = None;
        for (ki, info) in variant.kinds.iter().enumerate() {
            let sym = info.symbol();
            if !info.royal {
                let v = base.material.get(&sym).copied().unwrap_or(info.value);
                material[ki] = Some(push(format!("material.{sym}"), v));
            }
            if variant.hand_kinds.iter().any(|k| k.index() == ki) {
                let v = base.hand.get(&sym).copied().unwrap_or(info.hand_value);
                hand[ki] = Some(push(format!("hand.{sym}"), v));
            }
            advance[ki] = match (info.royal, king_advance) {
                (true, Some(first)) => first,
                _ => {
                    let (table, label) = if info.royal {
                        (&base.king.advance, "king.advance".to_string())
                    } else {
                        (base.advance.get(&sym).unwrap_or(&empty), format!("advance.{sym}"))
                    };
                    let mut first = 0;
                    for r in 0..height {
                        let i = push(format!("{label}[{r}]"), table.get(r).copied().unwrap_or(0));
                        if r == 0 {
                            first = i;
                        }
                    }
                    if info.royal {
                        king_advance = Some(first);
                    }
                    first
                }
            };
            let c = base.center.get(&sym).copied().unwrap_or(0);
            center[ki] = push(format!("center.{sym}"), c);
        }
        let tempo = push("tempo".to_string(), base.tempo);
        let n = variant.num_squares as usize;
        let (mut psq, mut mobility, mut king_attack) =
            ([0; MAX_KINDS], [0; MAX_KINDS], [0; MAX_KINDS]);
        let (mut hanging_to_move, mut hanging_waiting) = ([0; MAX_KINDS], [0; MAX_KINDS]);
        let get = |m: &std::collections::BTreeMap<String, i32>, sym: &str| {
            m.get(sym).copied().unwrap_or(0)
        };
        for (ki, info) in variant.kinds.iter().enumerate() {
            let sym = info.symbol();
            let table = base.psq.get(&sym);
            for sq in 0..n {
                let x = table.and_then(|t| t.get(sq)).copied().unwrap_or(0);
                let i = push(format!("psq.{sym}[{sq}]"), x);
                if sq == 0 {
                    psq[ki] = i;
                }
            }
            mobility[ki] = push(format!("mobility.{sym}"), get(&base.mobility, &sym));
            king_attack[ki] = push(format!("king_attack.{sym}"), get(&base.king_attack, &sym));
            if !info.royal {
                hanging_to_move[ki] =
                    push(format!("hanging_to_move.{sym}"), get(&base.hanging_to_move, &sym));
                hanging_waiting[ki] =
                    push(format!("hanging_waiting.{sym}"), get(&base.hanging_waiting, &sym));
            }
        }
        let mut danger = 0;
        for cell in 0..DANGER_CELLS {
            let i = push(
                format!("king_danger[{cell}]"),
                base.king_danger.get(cell).copied().unwrap_or(0),
            );
            if cell == 0 {
                danger = i;
            }
        }
        TermLayout {
            variant,
            base: base.clone(),
            hce: Hce::with_params(variant, base),
            names,
            initial,
            material,
            hand,
            advance,
            center,
            tempo,
            psq,
            mobility,
            king_attack,
            hanging_to_move,
            hanging_waiting,
            danger,
        }
    }

    /// Number of tunable parameters.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether there are no parameters (never, for a real variant).
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// Parameter names (`material.P`, `advance.+P[6]`, `king.advance[0]`, `tempo`, ...).
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The parameter values the layout was built from.
    pub fn initial(&self) -> &[f64] {
        &self.initial
    }

    /// The coefficients and fixed offset of `pos` (White's point of view); `dense` is scratch
    /// space the caller keeps between calls.
    pub fn terms(&self, pos: &Position, dense: &mut Vec<f32>) -> Terms {
        let v = self.variant;
        dense.clear();
        dense.resize(self.len(), 0.0);
        let (w, h) = (v.width as i32, v.height as i32);
        for sq in bits(pos.occupied()) {
            let Some(p) = pos.piece_on(sq) else { continue };
            let ki = p.kind.index();
            let sign = if p.color == Color::White { 1.0 } else { -1.0 };
            let (file, rank) = (sq as i32 % w, sq as i32 / w);
            let rel = if p.color == Color::White { rank } else { h - 1 - rank };
            let cen = file.min(w - 1 - file) + rank.min(h - 1 - rank);
            if let Some(m) = self.material[ki] {
                dense[m as usize] += sign;
            }
            dense[self.advance[ki] as usize + rel as usize] += sign;
            dense[self.center[ki] as usize] += sign * cen as f32;
            let rel_sq = if p.color == Color::White {
                sq as usize
            } else {
                (w * h) as usize - 1 - sq as usize
            };
            dense[self.psq[ki] as usize + rel_sq] += sign;
        }
        hce_features::visit(pos, self.hce.ring(), self.hce.in_hand(pos), |f, n| {
            let i = match f {
                Feature::Mobility(k) => self.mobility[k],
                Feature::KingAttack(k) => self.king_attack[k],
                Feature::Danger(c) => self.danger + c as u32,
                Feature::HangingToMove(k) => self.hanging_to_move[k],
                Feature::HangingWaiting(k) => self.hanging_waiting[k],
            };
            dense[i as usize] += n as f32;
        });
        for &k in &v.hand_kinds {
            let Some(idx) = self.hand[k.index()] else { continue };
            let diff = i32::from(pos.hand(Color::White, k)) - i32::from(pos.hand(Color::Black, k));
            dense[idx as usize] += diff as f32;
        }
        dense[self.tempo as usize] = if pos.side_to_move() == Color::White { 1.0 } else { -1.0 };
        let coefs = dense
            .iter()
            .enumerate()
            .filter(|(_, x)| **x != 0.0)
            .map(|(i, &x)| (i as u32, x))
            .collect();
        Terms { coefs, fixed: self.hce.king_term_white(pos) }
    }

    /// The evaluation parameters with the tunable ones set to `theta` (rounded to whole
    /// centipawns); the king's campmate and safety terms stay as in the base parameters.
    pub fn to_params(&self, theta: &[f64]) -> EvalParams {
        let v = self.variant;
        let round = |i: u32| theta[i as usize].round() as i32;
        let mut p = self.base.clone();
        p.tempo = round(self.tempo);
        p.material.clear();
        p.hand.clear();
        p.advance = HashMap::new();
        p.center = HashMap::new();
        p.psq = HashMap::new();
        p.mobility.clear();
        p.king_attack.clear();
        p.hanging_to_move.clear();
        p.hanging_waiting.clear();
        let height = v.height as usize;
        for (ki, info) in v.kinds.iter().enumerate() {
            let sym = info.symbol();
            if let Some(i) = self.material[ki] {
                p.material.insert(sym.clone(), round(i));
            }
            if let Some(i) = self.hand[ki] {
                p.hand.insert(sym.clone(), round(i));
            }
            let table: Vec<i32> = (0..height).map(|r| round(self.advance[ki] + r as u32)).collect();
            if info.royal {
                p.king.advance = table;
            } else if table.iter().any(|&x| x != 0) {
                p.advance.insert(sym.clone(), table);
            }
            let c = round(self.center[ki]);
            if c != 0 {
                p.center.insert(sym.clone(), c);
            }
            let n = v.num_squares as u32;
            let table: Vec<i32> = (0..n).map(|s| round(self.psq[ki] + s)).collect();
            if table.iter().any(|&x| x != 0) {
                p.psq.insert(sym.clone(), table);
            }
            let put = |m: &mut std::collections::BTreeMap<String, i32>, i: u32| {
                let x = round(i);
                if x != 0 {
                    m.insert(sym.clone(), x);
                }
            };
            put(&mut p.mobility, self.mobility[ki]);
            put(&mut p.king_attack, self.king_attack[ki]);
            if !info.royal {
                put(&mut p.hanging_to_move, self.hanging_to_move[ki]);
                put(&mut p.hanging_waiting, self.hanging_waiting[ki]);
            }
        }
        p.king_danger = (0..DANGER_CELLS as u32).map(|c| round(self.danger + c)).collect();
        if p.king_danger.iter().all(|&x| x == 0) {
            p.king_danger.clear();
        }
        p
    }
}

/// Writes evaluation parameters as the TOML of `engine/variants/<name>/hce.toml`, keys sorted,
/// with `header` as leading comment lines.
pub fn params_toml(p: &EvalParams, header: &str) -> String {
    let mut s = String::new();
    for line in header.lines() {
        let _ = writeln!(s, "# {line}");
    }
    let _ = writeln!(s, "# Bonus for the side to move (cp).\ntempo = {}", p.tempo);
    let list = |v: &[i32]| v.iter().map(i32::to_string).collect::<Vec<_>>().join(", ");
    if !p.king_danger.is_empty() {
        let _ = writeln!(
            s,
            "# King danger for the king's side by cell (attacked ring squares, of those defended\n\
             # by the king alone, enemy pieces in hand; see eval/hce_features.rs).\n\
             king_danger = [{}]",
            list(&p.king_danger)
        );
    }
    let mut table = |name: &str, about: &str, entries: Vec<(String, String)>| {
        let _ = writeln!(s, "\n# {about}\n[{name}]");
        for (k, v) in entries {
            let _ = writeln!(s, "{k:?} = {v}");
        }
    };
    let sorted = |m: &HashMap<String, Vec<i32>>| {
        let mut e: Vec<_> = m.iter().map(|(k, v)| (k.clone(), format!("[{}]", list(v)))).collect();
        e.sort();
        e
    };
    table(
        "material",
        "Material on the board by piece symbol (cp).",
        p.material.iter().map(|(k, v)| (k.clone(), v.to_string())).collect(),
    );
    table(
        "hand",
        "Material in hand by piece symbol (cp).",
        p.hand.iter().map(|(k, v)| (k.clone(), v.to_string())).collect(),
    );
    table(
        "advance",
        "Advancement bonus by relative rank (index 0 = the piece's own first rank).",
        sorted(&p.advance),
    );
    let mut center: Vec<_> = p.center.iter().map(|(k, v)| (k.clone(), v.to_string())).collect();
    center.sort();
    table("center", "Centrality bonus per step towards the centre.", center);
    let _ = writeln!(
        s,
        "\n[king]\nadvance = [{}]\nflag = [{}]",
        list(&p.king.advance),
        list(&p.king.flag)
    );
    let k = &p.king_safety;
    let _ = writeln!(
        s,
        "\n[king_safety]\nattacker = {}\nhand = {}\ndefender = {}\ndivisor = {}",
        k.attacker, k.hand, k.defender, k.divisor
    );
    let by_symbol = |m: &std::collections::BTreeMap<String, i32>| {
        m.iter().map(|(k, v)| (k.clone(), v.to_string())).collect::<Vec<_>>()
    };
    let mut table = |name: &str, about: &str, entries: Vec<(String, String)>| {
        if !entries.is_empty() {
            let _ = writeln!(s, "\n# {about}\n[{name}]");
            for (k, v) in entries {
                let _ = writeln!(s, "{k:?} = {v}");
            }
        }
    };
    table(
        "psq",
        "Piece-square values, index rank * width + file as the piece's side sees the board.",
        sorted(&p.psq),
    );
    table("mobility", "Per attacked square without an own piece.", by_symbol(&p.mobility));
    table(
        "king_attack",
        "Per attacked square of the enemy king's ring.",
        by_symbol(&p.king_attack),
    );
    table(
        "hanging_to_move",
        "An undefended piece the enemy attacks, its side to move.",
        by_symbol(&p.hanging_to_move),
    );
    table(
        "hanging_waiting",
        "An undefended piece the enemy attacks, its side waiting.",
        by_symbol(&p.hanging_waiting),
    );
    s
}
