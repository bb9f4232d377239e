//! The ladder's Elo scale: each match between adjacent rungs gives the stronger rung's Elo
//! over the weaker one with a 95% interval ([`crate::matches::stats::elo`] on the pentanomial
//! counts of the pairs); the scale chains them from the weakest rung (0). The matches are
//! independent, so the variances add along the chain: rung k's half width is the root of
//! the sum of the squared half widths of the links below it.

use serde::Serialize;

use crate::matches::stats::{self, Counts};

/// One link of the chain: the upper rung's Elo over the lower one.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Link {
    /// Elo difference (upper minus lower).
    pub elo: f64,
    /// Half width of its 95% interval.
    pub elo95: f64,
}

impl Link {
    /// The link of a match's counts, the upper rung first; `None` without games or when
    /// the figures are not finite.
    pub fn of(counts: &Counts) -> Option<Link> {
        let e = stats::elo(&counts.penta)?;
        (e.elo.is_finite() && e.elo95.is_finite()).then_some(Link { elo: e.elo, elo95: e.elo95 })
    }
}

/// A rung's place on the scale.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Point {
    /// Elo over the weakest rung.
    pub elo: f64,
    /// Half width of its 95% interval (0 at the anchor).
    pub elo95: f64,
}

/// The scale of `links` (`links[k]`: rung k+1 over rung k): one point per rung, the first
/// one 0 +- 0; a rung above a missing link has no point.
pub fn chain(links: &[Option<Link>]) -> Vec<Option<Point>> {
    let mut out = vec![Some(Point { elo: 0.0, elo95: 0.0 })];
    let (mut elo, mut var) = (0.0f64, 0.0f64);
    let mut broken = false;
    for l in links {
        match l {
            Some(l) if !broken => {
                elo += l.elo;
                var += l.elo95 * l.elo95;
                out.push(Some(Point { elo, elo95: var.sqrt() }));
            }
            _ => {
                broken = true;
                out.push(None);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(penta: [u64; 5]) -> Counts {
        let mut c = Counts::default();
        for (k, &n) in penta.iter().enumerate() {
            let halves: [u8; 2] = match k {
                0 => [0, 0],
                1 => [0, 1],
                2 => [1, 1],
                3 => [2, 1],
                _ => [2, 2],
            };
            for _ in 0..n {
                c.add_pair(halves);
            }
        }
        c
    }

    #[test]
    fn chain_adds_elo_and_variances() {
        let p = chain(&[
            Some(Link { elo: 100.0, elo95: 30.0 }),
            Some(Link { elo: 50.0, elo95: 40.0 }),
            Some(Link { elo: -20.0, elo95: 0.0 }),
        ]);
        let p: Vec<Point> = p.into_iter().map(Option::unwrap).collect();
        assert_eq!(p[0], Point { elo: 0.0, elo95: 0.0 });
        assert_eq!(p[1], Point { elo: 100.0, elo95: 30.0 });
        assert_eq!(p[2], Point { elo: 150.0, elo95: 50.0 });
        assert_eq!(p[3], Point { elo: 130.0, elo95: 50.0 });
    }

    #[test]
    fn a_missing_link_leaves_the_rungs_above_without_elo() {
        let l = Some(Link { elo: 10.0, elo95: 5.0 });
        let p = chain(&[l, None, l]);
        assert!(p[0].is_some() && p[1].is_some());
        assert_eq!((p[2], p[3]), (None, None));
        assert_eq!(chain(&[]).len(), 1);
    }

    #[test]
    fn links_from_fixed_match_counts() {
        // 20 pairs DD+WL, 20 pairs WW: score (20*1 + 20*2) / 80 = 0.75, Elo 400 log10(3).
        let c = counts([0, 0, 20, 0, 20]);
        assert_eq!((c.wins, c.draws, c.losses), (40, 40, 0));
        let l = Link::of(&c).unwrap();
        // (fishtest regularises the empty cells by 1e-3 games: a shift of 0.03 Elo.)
        assert!((l.elo - 400.0 * 3f64.log10()).abs() < 0.05, "{}", l.elo);
        let e = stats::elo(&c.penta).unwrap();
        assert_eq!(l.elo95, e.elo95);
        // Even counts: 0 Elo; two such links chained keep 0 and widen by sqrt(2).
        let even = Link::of(&counts([5, 0, 10, 0, 5])).unwrap();
        assert!(even.elo.abs() < 1e-9);
        let p = chain(&[Some(even), Some(even)]);
        let top = p[2].unwrap();
        assert!(top.elo.abs() < 1e-9);
        assert!((top.elo95 - even.elo95 * 2f64.sqrt()).abs() < 1e-9);
        assert_eq!(Link::of(&Counts::default()), None);
    }
}
