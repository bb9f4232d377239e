//! The statistics of one group of games: results by side over all and over distinct games,
//! the first player's score with its interval and Elo equivalent, endings with who won by
//! them, and game lengths.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use kage_data::stats::Share;
use kage_data::{GameRecord, GameResult, Termination};
use serde::Serialize;

use super::group::GroupInfo;
use crate::matches::stats::elo_of_score;

/// 97.5% quantile of the standard normal distribution.
const Z975: f64 = 1.959_963_984_540_054;

/// Counts by result, from the first player's side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Wdl {
    /// Games the first player (White) won.
    pub first: u64,
    /// Draws.
    pub draws: u64,
    /// Games the second player (Black) won.
    pub second: u64,
}

impl Wdl {
    fn add(&mut self, r: GameResult) {
        match r {
            GameResult::WhiteWin => self.first += 1,
            GameResult::Draw => self.draws += 1,
            GameResult::BlackWin => self.second += 1,
        }
    }

    /// Games counted.
    pub fn games(&self) -> u64 {
        self.first + self.draws + self.second
    }
}

/// The first player's mean score (win 1, draw 1/2) with a 95% normal interval from the
/// per-game variance, and the Elo equivalents of all three.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Score {
    /// Games.
    pub games: u64,
    /// Mean score.
    pub score: f64,
    /// 95% interval, low.
    pub ci_low: f64,
    /// 95% interval, high.
    pub ci_high: f64,
    /// Elo equivalent of the score (clamped to about +-1200 for scores of 0 or 1).
    pub elo: f64,
    /// Elo of the interval's low end.
    pub elo_low: f64,
    /// Elo of the interval's high end.
    pub elo_high: f64,
}

/// The first player's score of `wdl` (see [`Score`]); an interval of `[0, 1]` without games.
pub fn first_player_score(wdl: Wdl) -> Score {
    let n = wdl.games();
    if n == 0 {
        return Score {
            games: 0,
            score: 0.5,
            ci_low: 0.0,
            ci_high: 1.0,
            elo: 0.0,
            elo_low: elo_of_score(0.0),
            elo_high: elo_of_score(1.0),
        };
    }
    let nf = n as f64;
    let s = (wdl.first as f64 + 0.5 * wdl.draws as f64) / nf;
    let var = (wdl.first as f64 * (1.0 - s).powi(2)
        + wdl.draws as f64 * (0.5 - s).powi(2)
        + wdl.second as f64 * s.powi(2))
        / nf;
    let half = Z975 * (var / nf).sqrt();
    let (lo, hi) = ((s - half).max(0.0), (s + half).min(1.0));
    Score {
        games: n,
        score: s,
        ci_low: lo,
        ci_high: hi,
        // `+ 0.0` turns the -0 of an even score into 0.
        elo: elo_of_score(s) + 0.0,
        elo_low: elo_of_score(lo) + 0.0,
        elo_high: elo_of_score(hi) + 0.0,
    }
}

fn share(count: u64, n: u64) -> Share {
    Share::new(count, n)
}

/// Results by side with their shares.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SideResults {
    /// Games.
    pub games: u64,
    /// First player's wins.
    pub first_wins: Share,
    /// Draws.
    pub draws: Share,
    /// Second player's wins.
    pub second_wins: Share,
}

impl SideResults {
    /// The three results as a report lists them, named by the `sides` (first player first):
    /// `<first> wins`, `draws`, `<second> wins`.
    pub fn named(&self, sides: &[String; 2]) -> [(String, &Share); 3] {
        let [a, b] = sides;
        [
            (format!("{a} wins"), &self.first_wins),
            ("draws".to_owned(), &self.draws),
            (format!("{b} wins"), &self.second_wins),
        ]
    }

    fn of(w: Wdl) -> Self {
        let n = w.games();
        SideResults {
            games: n,
            first_wins: share(w.first, n),
            draws: share(w.draws, n),
            second_wins: share(w.second, n),
        }
    }
}

/// One kind of ending and who won by it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Ending {
    /// `checkmate`, `resign`, `repetition`, `ply_limit`, `adjudicated_draw`, ...
    pub ending: String,
    /// Games that ended so.
    pub games: u64,
    /// ... won by the first player.
    pub first_wins: u64,
    /// ... drawn.
    pub draws: u64,
    /// ... won by the second player.
    pub second_wins: u64,
}

/// Game lengths in plies.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Lengths {
    /// Mean.
    pub mean: f64,
    /// Median.
    pub median: f64,
    /// Shortest.
    pub min: u64,
    /// Longest.
    pub max: u64,
    /// Width of a histogram bin in plies; bin `i` holds lengths `i*w .. (i+1)*w - 1`.
    pub bin_width: u64,
    /// Games per bin.
    pub histogram: Vec<u64>,
}

/// Histogram bin widths tried, smallest first.
const BIN_WIDTHS: [u64; 12] = [1, 2, 5, 10, 20, 25, 50, 100, 200, 500, 1000, 10_000];
/// Most bins of a histogram.
const MAX_BINS: u64 = 24;

/// Mean, median, range and a histogram of at most `MAX_BINS` bins of `lengths`.
pub fn lengths(lengths: &[u64]) -> Lengths {
    let mut v = lengths.to_vec();
    v.sort_unstable();
    let n = v.len();
    if n == 0 {
        return Lengths { mean: 0.0, median: 0.0, min: 0, max: 0, bin_width: 1, histogram: vec![] };
    }
    let max = v[n - 1];
    let median = if n % 2 == 1 { v[n / 2] as f64 } else { (v[n / 2 - 1] + v[n / 2]) as f64 / 2.0 };
    let bin_width =
        BIN_WIDTHS.into_iter().find(|w| (max / w) < MAX_BINS).unwrap_or(max / MAX_BINS + 1);
    let mut histogram = vec![0u64; (max / bin_width + 1) as usize];
    for &l in &v {
        histogram[(l / bin_width) as usize] += 1;
    }
    Lengths {
        mean: v.iter().sum::<u64>() as f64 / n as f64,
        median,
        min: v[0],
        max,
        bin_width,
        histogram,
    }
}

/// The games of one group as they are read.
#[derive(Clone, Debug, Default)]
pub struct GroupStats {
    files: u64,
    runs: BTreeSet<String>,
    seeds: BTreeSet<u64>,
    all: Wdl,
    distinct_wdl: Wdl,
    distinct: HashSet<(String, Vec<u16>)>,
    openings: HashSet<Vec<u16>>,
    endings: BTreeMap<Termination, Wdl>,
    lengths: Vec<u64>,
}

impl GroupStats {
    /// Notes a file of run `config_hash` (hex) with `seed` (when known).
    pub fn add_file(&mut self, config_hash: u64, seed: Option<u64>) {
        self.files += 1;
        self.runs.insert(format!("{config_hash:016x}"));
        self.seeds.extend(seed);
    }

    /// Adds one game; its opening is its first `opening_plies` plies (all of a shorter game).
    pub fn add(&mut self, g: &GameRecord, opening_plies: usize) {
        self.all.add(g.result);
        if self.distinct.insert((g.start_fen.clone(), g.moves.clone())) {
            self.distinct_wdl.add(g.result);
        }
        let n = opening_plies.min(g.moves.len());
        self.openings.insert(g.moves[..n].to_vec());
        self.endings.entry(g.termination).or_default().add(g.result);
        self.lengths.push(g.moves.len() as u64);
    }

    /// Games added.
    pub fn games(&self) -> u64 {
        self.all.games()
    }

    /// The report of the group described by `info`.
    pub fn report(&self, info: GroupInfo, opening_plies: u32) -> GroupReport {
        let endings = self
            .endings
            .iter()
            .map(|(t, w)| Ending {
                ending: t.name().to_owned(),
                games: w.games(),
                first_wins: w.first,
                draws: w.draws,
                second_wins: w.second,
            })
            .collect();
        let distinct = self.distinct_wdl.games();
        GroupReport {
            info,
            files: self.files,
            runs: self.runs.iter().cloned().collect(),
            seeds: self.seeds.iter().copied().collect(),
            games: self.all.games(),
            distinct_games: distinct,
            opening_plies,
            distinct_openings: self.openings.len() as u64,
            results: SideResults::of(self.all),
            distinct_results: SideResults::of(self.distinct_wdl),
            first_player_score: first_player_score(self.distinct_wdl),
            draw_rate: share(self.distinct_wdl.draws, distinct),
            endings,
            lengths: lengths(&self.lengths),
            audit: None,
        }
    }
}

/// The report of one group.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GroupReport {
    /// What made the games.
    pub info: GroupInfo,
    /// Files read.
    pub files: u64,
    /// Config hashes of the runs pooled (same settings, other seeds or game counts).
    pub runs: Vec<String>,
    /// Their seeds.
    pub seeds: Vec<u64>,
    /// Games (a game of one run counts once, however many files hold it).
    pub games: u64,
    /// Distinct games (the same start and moves count once).
    pub distinct_games: u64,
    /// Plies that make an opening.
    pub opening_plies: u32,
    /// Distinct openings (first `opening_plies` plies as played).
    pub distinct_openings: u64,
    /// Results of all games.
    pub results: SideResults,
    /// Results of the distinct games.
    pub distinct_results: SideResults,
    /// The first player's score over the distinct games.
    pub first_player_score: Score,
    /// Draw rate over the distinct games (95% Wilson interval).
    pub draw_rate: Share,
    /// Endings, in the order of `kage_data::Termination`.
    pub endings: Vec<Ending>,
    /// Lengths of all games.
    pub lengths: Lengths,
    /// The adjudication audit of these settings, when one was given (`balance --audit`).
    pub audit: Option<AuditSummary>,
}

/// How often adjudication was wrong in an audit of a group's settings.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AuditSummary {
    /// Adjudicated games played on.
    pub sampled: u64,
    /// Of which the adjudicated result was wrong.
    pub wrong: u64,
    /// `wrong / sampled`.
    pub fraction: f64,
    /// 95% Wilson interval, low.
    pub ci_low: f64,
    /// 95% Wilson interval, high.
    pub ci_high: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn score_interval_and_elo_by_hand() {
        // 6 wins, 2 draws, 2 losses: s = 7/10; per-game deviations 0.3, -0.2, -0.7:
        // var = (6*0.09 + 2*0.04 + 2*0.49)/10 = 0.16, se = 0.4/sqrt(10) = 0.126491.
        let s = first_player_score(Wdl { first: 6, draws: 2, second: 2 });
        assert!((s.score - 0.7).abs() < 1e-12);
        let half = 1.959_964 * 0.126_491;
        assert!((s.ci_low - (0.7 - half)).abs() < 1e-5, "{}", s.ci_low);
        assert!((s.ci_high - (0.7 + half)).abs() < 1e-5, "{}", s.ci_high);
        // Elo of 0.7: -400 log10(1/0.7 - 1) = 147.19.
        assert!((s.elo - 147.19).abs() < 0.01, "{}", s.elo);
        assert!(s.elo_low < s.elo && s.elo < s.elo_high);
        // Even: score 1/2, Elo 0, symmetric interval.
        let e = first_player_score(Wdl { first: 3, draws: 4, second: 3 });
        assert_eq!(e.score, 0.5);
        assert!(e.elo.abs() < 1e-9 && (e.elo_low + e.elo_high).abs() < 1e-6);
        assert_eq!(format!("{:+.0}", e.elo), "+0");
        // All wins: no spread, the interval is the point; clamped at 1.
        let w = first_player_score(Wdl { first: 5, draws: 0, second: 0 });
        assert_eq!((w.score, w.ci_low, w.ci_high), (1.0, 1.0, 1.0));
        assert_eq!(first_player_score(Wdl::default()).games, 0);
    }

    #[test]
    fn lengths_by_hand() {
        let l = lengths(&[10, 30, 20, 41]);
        assert_eq!((l.min, l.max, l.mean, l.median), (10, 41, 25.25, 25.0));
        assert_eq!(l.bin_width, 2);
        assert_eq!(l.histogram.len(), 21);
        assert_eq!(l.histogram.iter().sum::<u64>(), 4);
        assert_eq!(
            (l.histogram[5], l.histogram[10], l.histogram[15], l.histogram[20]),
            (1, 1, 1, 1)
        );
        let l = lengths(&[300, 7, 99]);
        assert_eq!((l.median, l.bin_width, l.histogram.len()), (99.0, 20, 16));
        assert_eq!(l.histogram[0] + l.histogram[4] + l.histogram[15], 3);
    }
}
