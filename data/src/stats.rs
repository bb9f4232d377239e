//! Statistics of a set of games: results by side with confidence intervals, how the games
//! ended, lengths. Self-play's run summary and balance report and `kage-data stats` share
//! them.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::game::{GameRecord, GameResult, Termination};
use serde::Serialize;

/// Wilson score interval (95%) of `k` successes out of `n`, as fractions.
pub fn wilson(k: u64, n: u64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let (n, z) = (n as f64, 1.959_963_984_540_054);
    let p = k as f64 / n;
    let denom = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / denom;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// A count with its share and 95% Wilson interval.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Share {
    /// Count.
    pub count: u64,
    /// Fraction of all games.
    pub fraction: f64,
    /// 95% interval, low.
    pub ci_low: f64,
    /// 95% interval, high.
    pub ci_high: f64,
}

impl Share {
    /// `count` of `n`, with its fraction and 95% Wilson interval.
    pub fn new(count: u64, n: u64) -> Self {
        let (ci_low, ci_high) = wilson(count, n);
        let fraction = if n == 0 { 0.0 } else { count as f64 / n as f64 };
        Share { count, fraction, ci_low, ci_high }
    }
}

/// Statistics of a set of games of one variant.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GameStats {
    /// Games.
    pub games: u64,
    /// Training positions (searched positions).
    pub positions: u64,
    /// White wins, draws, Black wins.
    pub white_wins: u64,
    /// Draws.
    pub draws: u64,
    /// Black wins.
    pub black_wins: u64,
    /// Games per end reason name.
    pub terminations: BTreeMap<Termination, u64>,
    /// Sum of game lengths in plies.
    pub plies: u64,
    /// Shortest and longest game.
    pub min_plies: u64,
    /// Longest game.
    pub max_plies: u64,
}

/// The JSON form of [`GameStats`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StatsReport {
    /// Games.
    pub games: u64,
    /// Training positions.
    pub positions: u64,
    /// White wins.
    pub white_wins: Share,
    /// Draws.
    pub draws: Share,
    /// Black wins.
    pub black_wins: Share,
    /// Games per termination (`checkmate`, ..., `resign`, `adjudicated_draw`, `ply_limit`).
    pub terminations: BTreeMap<String, u64>,
    /// Average length in plies.
    pub average_plies: f64,
    /// Shortest game, plies.
    pub min_plies: u64,
    /// Longest game, plies.
    pub max_plies: u64,
}

impl GameStats {
    /// Adds one game with `positions` training positions.
    pub fn add(&mut self, g: &GameRecord, positions: u64) {
        let len = g.moves.len() as u64;
        if self.games == 0 || len < self.min_plies {
            self.min_plies = len;
        }
        self.max_plies = self.max_plies.max(len);
        self.games += 1;
        self.positions += positions;
        self.plies += len;
        match g.result {
            GameResult::WhiteWin => self.white_wins += 1,
            GameResult::Draw => self.draws += 1,
            GameResult::BlackWin => self.black_wins += 1,
        }
        *self.terminations.entry(g.termination).or_default() += 1;
    }

    /// Average game length in plies.
    pub fn average_plies(&self) -> f64 {
        if self.games == 0 { 0.0 } else { self.plies as f64 / self.games as f64 }
    }

    /// The serialisable report.
    pub fn report(&self) -> StatsReport {
        let n = self.games;
        StatsReport {
            games: n,
            positions: self.positions,
            white_wins: Share::new(self.white_wins, n),
            draws: Share::new(self.draws, n),
            black_wins: Share::new(self.black_wins, n),
            terminations: self
                .terminations
                .iter()
                .map(|(e, c)| (e.name().to_owned(), *c))
                .collect(),
            average_plies: self.average_plies(),
            min_plies: self.min_plies,
            max_plies: self.max_plies,
        }
    }

    /// Human-readable lines (two-space indented): the counts, then [`Self::outcome_text`].
    pub fn text(&self) -> String {
        let mut s = String::new();
        if self.positions > 0 {
            let _ = writeln!(s, "  games      {}   positions {}", self.games, self.positions);
        } else {
            let _ = writeln!(s, "  games      {}", self.games);
        }
        s + &self.outcome_text()
    }

    /// Human-readable lines (two-space indented): results by side, endings, lengths.
    pub fn outcome_text(&self) -> String {
        let r = self.report();
        let mut s = String::new();
        for (name, sh) in
            [("white wins", &r.white_wins), ("draws", &r.draws), ("black wins", &r.black_wins)]
        {
            let _ = writeln!(
                s,
                "  {name:<10} {:>6}  {:5.1}%  (95% CI {:5.1}% - {:5.1}%)",
                sh.count,
                100.0 * sh.fraction,
                100.0 * sh.ci_low,
                100.0 * sh.ci_high
            );
        }
        let terms: Vec<String> = r.terminations.iter().map(|(k, v)| format!("{k} {v}")).collect();
        let _ = writeln!(s, "  endings    {}", terms.join(", "));
        let _ = writeln!(
            s,
            "  length     average {:.1} plies (min {}, max {})",
            r.average_plies, r.min_plies, r.max_plies
        );
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_interval() {
        let (lo, hi) = wilson(50, 100);
        assert!((lo - 0.4038).abs() < 1e-3 && (hi - 0.5962).abs() < 1e-3, "{lo} {hi}");
        let (lo, hi) = wilson(0, 10);
        assert_eq!(lo, 0.0);
        assert!((hi - 0.2775).abs() < 1e-3);
        assert_eq!(wilson(0, 0), (0.0, 1.0));
    }
}
