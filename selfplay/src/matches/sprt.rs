//! The generalized sequential probability ratio test (GSPRT) as fishtest computes it: the
//! log-likelihood ratio of the maximum-likelihood distributions of the observed results
//! under the constraint "expected score = s0" against "= s1" (logistic model), or
//! "t-value = t0" against "= t1" (normalized model).
//!
//! Results are trinomial counts `[L, D, W]` or pentanomial counts of game pairs
//! `[LL, LD, DD+WL, WD, WW]`; zero counts are replaced by 1e-3 as fishtest does.

use super::runner::MatchError;
use serde::Serialize;

/// Normalized Elo per unit of t-value: 800 / ln 10.
pub const NELO_PER_T: f64 = 800.0 / std::f64::consts::LN_10;

/// How Elo bounds are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Model {
    /// Logistic Elo: bounds on the expected score.
    Logistic,
    /// Normalized Elo: bounds on the t-value (score excess over its standard deviation).
    Normalized,
}

impl Model {
    /// `logistic` or `normalized`.
    pub fn name(self) -> &'static str {
        match self {
            Model::Logistic => "logistic",
            Model::Normalized => "normalized",
        }
    }
}

/// Counts with zeros replaced by 1e-3 (fishtest's regularisation).
pub fn regularize(results: &[u64]) -> Vec<f64> {
    results.iter().map(|&r| if r == 0 { 1e-3 } else { r as f64 }).collect()
}

/// (N, pdf): the regularised counts as a distribution over the scores i / (len - 1).
fn results_to_pdf(results: &[u64]) -> (f64, Vec<(f64, f64)>) {
    let r = regularize(results);
    let n: f64 = r.iter().sum();
    let last = (r.len() - 1) as f64;
    (n, r.iter().enumerate().map(|(i, &c)| (i as f64 / last, c / n)).collect())
}

/// Mean and variance of a distribution.
fn mean_var(pdf: &[(f64, f64)]) -> (f64, f64) {
    let s: f64 = pdf.iter().map(|&(a, p)| a * p).sum();
    let var = pdf.iter().map(|&(a, p)| p * (a - s) * (a - s)).sum();
    (s, var)
}

/// The root of sum_i p_i a_i / (1 + x a_i) = 0 between -1/max(a) and -1/min(a) (the
/// function decreases there, so bisection to the last bit finds it); `None` when the a_i
/// do not take both signs.
fn secular(pdf: &[(f64, f64)]) -> Option<f64> {
    let v = pdf.iter().map(|p| p.0).fold(f64::INFINITY, f64::min);
    let w = pdf.iter().map(|p| p.0).fold(f64::NEG_INFINITY, f64::max);
    if v * w >= 0.0 || !v.is_finite() || !w.is_finite() {
        return None;
    }
    let eps = 1e-9;
    let (mut lo, mut hi) = (-1.0 / w + eps, -1.0 / v - eps);
    let f = |x: f64| pdf.iter().map(|&(a, p)| p * a / (1.0 + x * a)).sum::<f64>();
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(0.5 * (lo + hi))
}

/// The MLE of a distribution on the same support as `pdf` with expectation `s`.
fn mle_expected(pdf: &[(f64, f64)], s: f64) -> Option<Vec<(f64, f64)>> {
    let shifted: Vec<(f64, f64)> = pdf.iter().map(|&(a, p)| (a - s, p)).collect();
    let x = secular(&shifted)?;
    Some(pdf.iter().map(|&(a, p)| (a, p / (1.0 + x * (a - s)))).collect())
}

/// The MLE of a distribution on the same support as `pdf` with t-value
/// (mean - reference) / sigma = `t` (fishtest's fixed-point iteration, at most 10 steps).
fn mle_t_value(pdf: &[(f64, f64)], reference: f64, t: f64) -> Option<Vec<(f64, f64)>> {
    let n = pdf.len() as f64;
    let mut mle: Vec<(f64, f64)> = pdf.iter().map(|&(a, _)| (a, 1.0 / n)).collect();
    for _ in 0..10 {
        let prev = mle.clone();
        let (mu, var) = mean_var(&mle);
        let sigma = var.sqrt();
        let shifted: Vec<(f64, f64)> = pdf
            .iter()
            .map(|&(a, p)| {
                let z = (mu - a) / sigma;
                (a - reference - t * sigma * (1.0 + z * z) / 2.0, p)
            })
            .collect();
        let x = secular(&shifted)?;
        mle = pdf.iter().zip(&shifted).map(|(&(a, p), &(b, _))| (a, p / (1.0 + x * b))).collect();
        let change = prev.iter().zip(&mle).map(|(a, b)| (a.1 - b.1).abs()).fold(0.0, f64::max);
        if change < 1e-9 {
            break;
        }
    }
    Some(mle)
}

/// sum_i p_i (ln p1_i - ln p0_i): the LLR per sample.
fn llr_per_sample(pdf: &[(f64, f64)], p0: &[(f64, f64)], p1: &[(f64, f64)]) -> f64 {
    pdf.iter().zip(p0.iter().zip(p1)).map(|(&(_, p), (a, b))| p * (b.1.ln() - a.1.ln())).sum()
}

/// Expected score of a logistic Elo difference.
pub fn score_of_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The LLR of `results` (3 or 5 counts) for H1: elo = `elo1` against H0: elo = `elo0`.
/// NaN when the results cannot decide (e.g. no games at all).
pub fn llr(results: &[u64], elo0: f64, elo1: f64, model: Model) -> f64 {
    if !(results.len() == 3 || results.len() == 5) || results.iter().sum::<u64>() == 0 {
        return f64::NAN;
    }
    let (n, pdf) = results_to_pdf(results);
    let pair = if results.len() == 5 { std::f64::consts::SQRT_2 } else { 1.0 };
    let mles = match model {
        Model::Logistic => {
            let (s0, s1) = (score_of_elo(elo0), score_of_elo(elo1));
            mle_expected(&pdf, s0).zip(mle_expected(&pdf, s1))
        }
        Model::Normalized => {
            let (t0, t1) = (elo0 / NELO_PER_T * pair, elo1 / NELO_PER_T * pair);
            mle_t_value(&pdf, 0.5, t0).zip(mle_t_value(&pdf, 0.5, t1))
        }
    };
    match mles {
        Some((p0, p1)) => n * llr_per_sample(&pdf, &p0, &p1),
        None => f64::NAN,
    }
}

/// A GSPRT's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct Sprt {
    /// H0 bound (Elo in `model`).
    pub elo0: f64,
    /// H1 bound.
    pub elo1: f64,
    /// Type I error bound.
    pub alpha: f64,
    /// Type II error bound.
    pub beta: f64,
    /// How the bounds are read.
    pub model: Model,
}

/// Where a GSPRT stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Neither bound reached.
    Continue,
    /// LLR at or above the upper bound: H1 (elo >= elo1) accepted.
    Accepted,
    /// LLR at or below the lower bound: H0 accepted.
    Rejected,
}

impl Sprt {
    /// Checks the parameters.
    pub fn new(
        elo0: f64,
        elo1: f64,
        alpha: f64,
        beta: f64,
        model: Model,
    ) -> Result<Self, MatchError> {
        if !(elo0.is_finite() && elo1.is_finite() && elo0 < elo1) {
            return Err(MatchError::SprtBounds { elo0, elo1 });
        }
        for (n, x) in [("alpha", alpha), ("beta", beta)] {
            if !(x > 0.0 && x < 0.5) {
                return Err(MatchError::SprtRate { name: n, value: x });
            }
        }
        Ok(Sprt { elo0, elo1, alpha, beta, model })
    }

    /// ln(beta / (1 - alpha)).
    pub fn lower_bound(&self) -> f64 {
        (self.beta / (1.0 - self.alpha)).ln()
    }

    /// ln((1 - beta) / alpha).
    pub fn upper_bound(&self) -> f64 {
        ((1.0 - self.beta) / self.alpha).ln()
    }

    /// The LLR of `results`.
    pub fn llr(&self, results: &[u64]) -> f64 {
        llr(results, self.elo0, self.elo1, self.model)
    }

    /// The verdict for an LLR.
    pub fn verdict(&self, llr: f64) -> Verdict {
        if llr >= self.upper_bound() {
            Verdict::Accepted
        } else if llr <= self.lower_bound() {
            Verdict::Rejected
        } else {
            Verdict::Continue
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) {
        assert!((a - b).abs() < 1e-4, "{a} != {b}");
    }

    #[test]
    fn fishtest_reference_values() {
        // Inputs L,D,W and LL,LD,DD+WL,WD,WW; figures of fishtest's stat_util / LLRcalc.
        close(llr(&[65804, 56553, 65388], -3.0, 1.0, Model::Logistic), 2.049043);
        let penta = [10789, 19328, 33806, 19402, 10543];
        close(llr(&penta, -3.0, 1.0, Model::Logistic), 2.131068);
        close(llr(&penta, -3.0, 1.0, Model::Normalized), 0.300870);
        close(llr(&[3, 10, 30, 9, 2], 0.0, 5.0, Model::Logistic), -0.150501);
    }

    #[test]
    fn llr_sign_follows_the_results() {
        assert!(llr(&[10, 20, 40], 0.0, 5.0, Model::Logistic) > 0.0);
        assert!(llr(&[40, 20, 10], 0.0, 5.0, Model::Logistic) < 0.0);
        assert!(llr(&[0, 0, 0], 0.0, 5.0, Model::Logistic).is_nan());
        assert!(llr(&[1, 2], 0.0, 5.0, Model::Logistic).is_nan());
        // Zero counts are regularised, not fatal.
        assert!(llr(&[0, 0, 7, 0, 0], 0.0, 5.0, Model::Normalized).is_finite());
    }

    #[test]
    fn bounds_and_verdicts() {
        let s = Sprt::new(0.0, 5.0, 0.05, 0.05, Model::Logistic).unwrap();
        close(s.upper_bound(), 2.944439);
        close(s.lower_bound(), -2.944439);
        assert_eq!(s.verdict(3.0), Verdict::Accepted);
        assert_eq!(s.verdict(-3.0), Verdict::Rejected);
        assert_eq!(s.verdict(0.0), Verdict::Continue);
        assert!(Sprt::new(5.0, 0.0, 0.05, 0.05, Model::Logistic).is_err());
        assert!(Sprt::new(0.0, 5.0, 0.0, 0.05, Model::Logistic).is_err());
    }
}
