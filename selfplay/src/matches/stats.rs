//! Match statistics as fishtest reports them: W/D/L and pentanomial counts, Elo with a 95%
//! interval, normalized Elo, likelihood of superiority, and the GSPRT state.

use std::fmt::Write as _;

use serde::Serialize;

use super::sprt::{self, NELO_PER_T, Sprt, Verdict};

/// The 97.5% quantile of the standard normal law.
pub const Z975: f64 = 1.959_963_984_540_054;

/// The standard normal cumulative distribution (erfc by a Chebyshev fit, relative error
/// below 1.2e-7: plenty for a probability printed with 1-4 decimals).
pub fn phi(x: f64) -> f64 {
    0.5 * erfc(-x / std::f64::consts::SQRT_2)
}

fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let r = t
        * (-z * z - 1.265_512_23
            + t * (1.000_023_68
                + t * (0.374_091_96
                    + t * (0.096_784_18
                        + t * (-0.186_288_06
                            + t * (0.278_868_07
                                + t * (-1.135_203_98
                                    + t * (1.488_515_87
                                        + t * (-0.822_152_23 + t * 0.170_872_77)))))))))
            .exp();
    if x >= 0.0 { r } else { 2.0 - r }
}

/// Logistic Elo of an expected score (clamped to [0.001, 0.999] as fishtest does).
pub fn elo_of_score(x: f64) -> f64 {
    let x = x.clamp(1e-3, 1.0 - 1e-3);
    -400.0 * (1.0 / x - 1.0).log10()
}

/// Counts of one match from the first engine's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Counts {
    /// Games won by the first engine.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games lost.
    pub losses: u64,
    /// Game pairs by the first engine's points: [0, 0.5, 1, 1.5, 2] i.e.
    /// [LL, LD, DD+WL, WD, WW].
    pub penta: [u64; 5],
}

impl Counts {
    /// Adds one game pair: the first engine's points in each game (0, 0.5 or 1, as halves:
    /// 0, 1, 2).
    pub fn add_pair(&mut self, halves: [u8; 2]) {
        for h in halves {
            match h {
                0 => self.losses += 1,
                1 => self.draws += 1,
                _ => self.wins += 1,
            }
        }
        let sum = usize::from(halves[0].min(2) + halves[1].min(2));
        self.penta[sum] += 1;
    }

    /// Games counted.
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// [L, D, W].
    pub fn trinomial(&self) -> [u64; 3] {
        [self.losses, self.draws, self.wins]
    }
}

/// Elo figures of a result vector (3 or 5 counts), after fishtest's `get_elo`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Elo {
    /// Games (pairs count twice).
    pub games: u64,
    /// Mean score per game.
    pub score: f64,
    /// Logistic Elo.
    pub elo: f64,
    /// Half width of its 95% interval.
    pub elo95: f64,
    /// Likelihood of superiority: P(true score > 0.5).
    pub los: f64,
    /// Normalized Elo (t-value times 800 / ln 10).
    pub nelo: f64,
    /// Half width of its 95% interval.
    pub nelo95: f64,
}

/// Elo, interval, LOS and normalized Elo of `results` (`[L, D, W]` or the pentanomial
/// counts); `None` without results.
pub fn elo(results: &[u64]) -> Option<Elo> {
    if !(results.len() == 3 || results.len() == 5) || results.iter().sum::<u64>() == 0 {
        return None;
    }
    let r = sprt::regularize(results);
    let l = r.len();
    let n: f64 = r.iter().sum();
    let games = n * (l - 1) as f64 / 2.0;
    let mu = r.iter().enumerate().map(|(i, c)| c * i as f64 / 2.0).sum::<f64>() / games;
    let mu_ = (l - 1) as f64 / 2.0 * mu;
    let var =
        r.iter().enumerate().map(|(i, c)| c * (i as f64 / 2.0 - mu_).powi(2)).sum::<f64>() / games;
    let sd = var.sqrt();
    let se = sd / games.sqrt();
    let (lo, hi) = (mu - Z975 * se, mu + Z975 * se);
    let los = if se > 0.0 { phi((mu - 0.5) / se) } else { f64::NAN };
    let (nelo, nelo95) = if sd > 0.0 {
        (NELO_PER_T * (mu - 0.5) / sd, NELO_PER_T * Z975 / games.sqrt())
    } else {
        (f64::NAN, f64::NAN)
    };
    Some(Elo {
        games: results.iter().sum::<u64>() * (l as u64 - 1) / 2,
        score: mu,
        elo: elo_of_score(mu),
        elo95: (elo_of_score(hi) - elo_of_score(lo)) / 2.0,
        los,
        nelo,
        nelo95,
    })
}

/// A GSPRT's state for given results.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SprtState {
    /// The test.
    pub sprt: Sprt,
    /// Its LLR.
    pub llr: f64,
    /// Lower bound: H0 is accepted at or below it.
    pub lower: f64,
    /// Upper bound: H1 is accepted at or above it.
    pub upper: f64,
    /// Verdict.
    pub verdict: Verdict,
}

impl SprtState {
    /// The state of `sprt` for `results`.
    pub fn of(sprt: Sprt, results: &[u64]) -> Self {
        let llr = sprt.llr(results);
        let verdict = if llr.is_nan() { Verdict::Continue } else { sprt.verdict(llr) };
        SprtState { sprt, llr, lower: sprt.lower_bound(), upper: sprt.upper_bound(), verdict }
    }
}

/// The text report of `results` (and a GSPRT, if any): the figures `kage-selfplay stats`
/// and the end of a match print.
pub fn report(results: &[u64], sprt: Option<Sprt>) -> String {
    let mut s = String::new();
    let label = if results.len() == 5 { "Ptnml(0-2)" } else { "L/D/W" };
    let counts: Vec<String> = results.iter().map(u64::to_string).collect();
    let _ = writeln!(s, "{label:<11} {}", counts.join(", "));
    match elo(results) {
        Some(e) => {
            let _ = writeln!(s, "Games       {}   Score {:.2}%", e.games, 100.0 * e.score);
            let _ = writeln!(s, "Elo         {:.2} +/- {:.2} (95%)", e.elo, e.elo95);
            let _ = writeln!(s, "nElo        {:.2} +/- {:.2} (95%)", e.nelo, e.nelo95);
            let _ = writeln!(s, "LOS         {:.2}%", 100.0 * e.los);
        }
        None => {
            let _ = writeln!(s, "Games       0");
        }
    }
    if let Some(sp) = sprt {
        let st = SprtState::of(sp, results);
        let _ = writeln!(
            s,
            "LLR         {:.4} ({:.2}, {:.2}) [{}, {}] {} {}",
            st.llr,
            st.lower,
            st.upper,
            sp.elo0,
            sp.elo1,
            sp.model.name(),
            match st.verdict {
                Verdict::Accepted => "H1 accepted",
                Verdict::Rejected => "H0 accepted",
                Verdict::Continue => "no decision",
            }
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) {
        assert!((a - b).abs() < tol, "{a} != {b}");
    }

    #[test]
    fn elo_and_interval_by_hand() {
        // L,D,W = 10,20,30: score 40/60 = 2/3, Elo = -400 log10(1/2) = 120.412.
        // Per-game variance: (10 (2/3)^2 + 20 (1/6)^2 + 30 (1/3)^2) / 60 = 5/36;
        // s.e. = sqrt(5/36 / 60) = 0.0481125; 2/3 +- 1.959964 s.e. = 0.572368 .. 0.760965;
        // Elo there: 50.6420 .. 201.1617, half width 75.2599.
        let e = elo(&[10, 20, 30]).unwrap();
        close(e.score, 2.0 / 3.0, 1e-12);
        close(e.elo, 120.411_998, 1e-4);
        close(e.elo95, 75.2599, 1e-3);
        // LOS = Phi((2/3 - 1/2) / 0.0481125) = Phi(3.4641) = 0.999734.
        close(e.los, 0.999_734, 1e-5);
        // nElo = 800/ln10 * (1/6) / sqrt(5/36) = 347.4356 * 0.447214 = 155.378;
        // interval 347.4356 * 1.959964 / sqrt(60) = 87.9117.
        close(e.nelo, 155.378, 1e-2);
        close(e.nelo95, 87.9117, 1e-3);
    }

    #[test]
    fn pentanomial_elo_by_hand() {
        // Pairs [LL, LD, DD+WL, WD, WW] = [0, 0, 10, 0, 0]: 20 games, score 1/2, Elo 0.
        // The four zero cells count 0.001 pairs each (fishtest): a tiny symmetric
        // variance, Elo 0.
        let e = elo(&[0, 0, 10, 0, 0]).unwrap();
        close(e.elo, 0.0, 1e-9);
        assert_eq!(e.games, 20);
        // [1, 0, 0, 0, 1]: per-game variance from pairs = (1 * 1 + 1 * 1) / 4 = 1/2 (within
        // regularisation), score 1/2.
        let e = elo(&[1, 0, 0, 0, 1]).unwrap();
        close(e.score, 0.5, 1e-9);
        assert!(e.elo95 > 300.0);
        assert!(elo(&[0, 0, 0]).is_none());
    }

    #[test]
    fn normal_cdf() {
        close(phi(0.0), 0.5, 1e-7);
        close(phi(Z975), 0.975, 1e-7);
        close(phi(-1.0), 0.158_655_25, 1e-7);
    }

    #[test]
    fn counts_and_report() {
        let mut c = Counts::default();
        c.add_pair([2, 0]);
        c.add_pair([2, 1]);
        c.add_pair([0, 0]);
        assert_eq!((c.wins, c.draws, c.losses), (2, 1, 3));
        assert_eq!(c.penta, [1, 0, 1, 1, 0]);
        let text = report(
            &[65804, 56553, 65388],
            Some(Sprt::new(-3.0, 1.0, 0.05, 0.05, sprt::Model::Logistic).unwrap()),
        );
        assert!(text.contains("LLR         2.0490"), "{text}");
    }
}
