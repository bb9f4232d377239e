//! Fitting the engine's win/draw/loss model ([`kage_engine::eval::wdl`]) to self-play
//! positions: maximum likelihood over (search score, game result) pairs, seen from White's
//! side so that the fitted offset says which side the evaluation favours.
//!
//! Positions are counted per score (White's view, clamped to `±MAX_FIT_SCORE`; mate scores are
//! left out), so a fit costs the same for a thousand positions or a billion.

use std::collections::BTreeMap;

use kage_engine::Color;
use kage_engine::eval::wdl::{WdlError, WdlModel};

use crate::{PositionRecord, StmResult};

/// Scores beyond this (White's view) are counted at it: the outcome is all but certain there.
pub const MAX_FIT_SCORE: i32 = 3000;
/// Scores at least this large are mates (the engine's `MATE_BOUND`), left out of the fit.
pub const MATE_SCORE: i32 = kage_engine::search::MATE_BOUND;
/// The fewest positions a fit needs.
pub const MIN_FIT_POSITIONS: u64 = 100;
/// Probabilities are floored here in the likelihood (one freak result cannot dominate).
const MIN_PROB: f64 = 1e-9;

/// Why a fit failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FitError {
    /// Too few positions to fit three parameters.
    #[error("{0} positions are too few for a WDL fit (at least {MIN_FIT_POSITIONS})")]
    TooFew(u64),
    /// Every game had one result: the model has no scale.
    #[error("every position has the same result; a WDL fit needs wins and losses")]
    OneResult,
    /// The optimum lies outside the model's ranges.
    #[error("the fit left the model's range: {0}")]
    Range(#[from] WdlError),
}

/// Results per White score: `[White lost, draw, White won]`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WdlCounts {
    bins: BTreeMap<i32, [u64; 3]>,
    positions: u64,
    mates: u64,
}

impl WdlCounts {
    /// Counts one position: score and result from the side to move `stm`.
    pub fn add(&mut self, score: i32, result: StmResult, stm: Color) {
        if score.abs() >= MATE_SCORE {
            self.mates += 1;
            return;
        }
        let (v, r) = if stm == Color::White { (score, result) } else { (-score, result.flip()) };
        let bin = self.bins.entry(v.clamp(-MAX_FIT_SCORE, MAX_FIT_SCORE)).or_default();
        bin[(r.as_i8() + 1) as usize] += 1;
        self.positions += 1;
    }

    /// Counts a data record.
    pub fn add_record(&mut self, r: &PositionRecord) {
        self.add(i32::from(r.score), r.result, r.side_to_move());
    }

    /// Positions counted (mates excluded).
    pub fn positions(&self) -> u64 {
        self.positions
    }

    /// Mate-scored positions left out.
    pub fn mates(&self) -> u64 {
        self.mates
    }

    /// `[White lost, draw, White won]` over all positions.
    pub fn totals(&self) -> [u64; 3] {
        self.bins.values().fold([0; 3], |t, b| [t[0] + b[0], t[1] + b[1], t[2] + b[2]])
    }

    /// Mean negative log-likelihood per position of `m`.
    pub fn log_loss(&self, m: &WdlModel) -> f64 {
        let mut sum = 0.0;
        for (&v, n) in &self.bins {
            let (w, d, l) = m.probabilities(f64::from(v) - m.offset());
            for (count, p) in n.iter().zip([l, d, w]) {
                if *count > 0 {
                    sum -= *count as f64 * p.max(MIN_PROB).ln();
                }
            }
        }
        sum / self.positions.max(1) as f64
    }

    /// The maximum-likelihood model.
    pub fn fit(&self) -> Result<WdlModel, FitError> {
        if self.positions < MIN_FIT_POSITIONS {
            return Err(FitError::TooFew(self.positions));
        }
        let t = self.totals();
        if t.iter().filter(|&&n| n > 0).count() < 2 || t[0] == 0 || t[2] == 0 {
            return Err(FitError::OneResult);
        }
        // theta = (ln a, ln b, offset / 100): every coordinate of order 1.
        let model = |th: &[f64; 3]| {
            WdlModel::new(th[0].exp().min(1e5), th[1].exp().clamp(1e-3, 1e5), 100.0 * th[2])
        };
        let cost = |th: &[f64; 3]| model(th).map_or(f64::INFINITY, |m| self.log_loss(&m));
        let start = [100f64.ln(), 100f64.ln(), 0.0];
        let best = nelder_mead(cost, start, [0.7, 0.7, 0.5]);
        let best = nelder_mead(cost, best, [0.1, 0.1, 0.05]);
        Ok(model(&best)?)
    }
}

/// Minimises `f` from `x0` (initial simplex steps `step`) by Nelder-Mead.
fn nelder_mead(f: impl Fn(&[f64; 3]) -> f64, x0: [f64; 3], step: [f64; 3]) -> [f64; 3] {
    let mut pts: Vec<([f64; 3], f64)> = vec![(x0, f(&x0))];
    for i in 0..3 {
        let mut x = x0;
        x[i] += step[i];
        pts.push((x, f(&x)));
    }
    let lerp = |a: &[f64; 3], b: &[f64; 3], t: f64| -> [f64; 3] {
        [a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]), a[2] + t * (b[2] - a[2])]
    };
    for _ in 0..3000 {
        pts.sort_by(|a, b| a.1.total_cmp(&b.1));
        if (pts[3].1 - pts[0].1).abs() < 1e-12 {
            break;
        }
        let mut c = [0.0; 3];
        for p in &pts[..3] {
            (0..3).for_each(|i| c[i] += p.0[i] / 3.0);
        }
        let worst = pts[3];
        let refl = lerp(&c, &worst.0, -1.0);
        let fr = f(&refl);
        if fr < pts[0].1 {
            let exp = lerp(&c, &worst.0, -2.0);
            let fe = f(&exp);
            pts[3] = if fe < fr { (exp, fe) } else { (refl, fr) };
        } else if fr < pts[2].1 {
            pts[3] = (refl, fr);
        } else {
            let con = lerp(&c, &worst.0, 0.5);
            let fc = f(&con);
            if fc < worst.1 {
                pts[3] = (con, fc);
            } else {
                let best = pts[0].0;
                for p in pts.iter_mut().skip(1) {
                    p.0 = lerp(&best, &p.0, 0.5);
                    p.1 = f(&p.0);
                }
            }
        }
    }
    pts.sort_by(|a, b| a.1.total_cmp(&b.1));
    pts[0].0
}

/// What positions are grouped by for per-bucket fits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bucketing {
    /// Plies from the game's start, in groups of [`PLY_BUCKET`].
    Ply,
    /// Pieces on the board (captures go to the hand, so the total never changes: this is the
    /// drop variants' measure of how open the game is).
    Material,
}

/// Plies per bucket of [`Bucketing::Ply`].
pub const PLY_BUCKET: u32 = 20;

impl Bucketing {
    /// The bucket of a record: its lowest ply or piece count.
    pub fn bucket(self, r: &PositionRecord) -> u32 {
        match self {
            Bucketing::Ply => u32::from(r.ply) / PLY_BUCKET * PLY_BUCKET,
            Bucketing::Material => r.pos.occupancy().count_ones(),
        }
    }

    /// `ply` or `material`.
    pub fn name(self) -> &'static str {
        match self {
            Bucketing::Ply => "ply",
            Bucketing::Material => "material",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    /// Positions drawn from `m`: scores uniform in +/-`spread`, results by the model.
    fn synthetic(m: &WdlModel, n: usize, spread: i32, seed: u64) -> WdlCounts {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut c = WdlCounts::default();
        for _ in 0..n {
            let v: i32 = rng.random_range(-spread..=spread);
            let stm = if rng.random_bool(0.5) { Color::White } else { Color::Black };
            let (w, d, _) = m.probabilities(m.centred(v, stm));
            let u: f64 = rng.random();
            let r = if u < w {
                StmResult::Win
            } else if u < w + d {
                StmResult::Draw
            } else {
                StmResult::Loss
            };
            c.add(v, r, stm);
        }
        c
    }

    #[test]
    fn wdl_fit_recovers_known_parameters() {
        for (a, b, offset) in [(200.0, 80.0, 30.0), (350.0, 60.0, -120.0), (40.0, 150.0, 0.0)] {
            let truth = WdlModel::new(a, b, offset).expect("model");
            let fit = synthetic(&truth, 200_000, 1200, 7).fit().expect("fit");
            let close = |x: f64, y: f64, tol: f64| (x - y).abs() <= tol;
            assert!(close(fit.a(), a, 0.06 * a + 5.0), "a {} vs {a}", fit.a());
            assert!(close(fit.b(), b, 0.06 * b), "b {} vs {b}", fit.b());
            assert!(close(fit.offset(), offset, 8.0), "offset {} vs {offset}", fit.offset());
            assert!(close(fit.unit(), truth.unit(), 0.05 * truth.unit()));
        }
    }

    #[test]
    fn wdl_fit_without_draws_still_has_a_unit() {
        let truth = WdlModel::new(0.0, 120.0, 50.0).expect("model");
        let fit = synthetic(&truth, 100_000, 1000, 3).fit().expect("fit");
        assert!(fit.a() < 10.0, "{}", fit.a());
        assert!((fit.unit() - truth.unit()).abs() < 0.06 * truth.unit(), "{}", fit.unit());
        assert!((fit.offset() - 50.0).abs() < 10.0, "{}", fit.offset());
    }

    #[test]
    fn wdl_fit_refuses_too_little_or_one_sided_data() {
        let mut c = WdlCounts::default();
        c.add(10, StmResult::Win, Color::White);
        assert_eq!(c.fit(), Err(FitError::TooFew(1)));
        for v in 0..200 {
            c.add(v, StmResult::Win, Color::White);
        }
        assert_eq!(c.fit(), Err(FitError::OneResult));
        c.add(MATE_SCORE + 3, StmResult::Loss, Color::Black);
        assert_eq!(c.mates(), 1);
    }
}
