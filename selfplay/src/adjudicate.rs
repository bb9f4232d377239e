//! Score-based adjudication and the names of every way a self-play game ends.

use kage_data::{GameResult, Termination};
use kage_engine::{Color, Reason};

use crate::config::Adjudication;

/// Why a self-play game ended: a rule of the variant, or one of self-play's own stops.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EndReason {
    /// A rule of the variant ended the game (`Game::outcome`).
    Rule(RuleReason),
    /// One side's score stayed beyond the resign bound: it resigned.
    Resign,
    /// The score stayed near zero late in the game.
    AdjudicatedDraw,
    /// The ply cap was reached (draw).
    PlyCap,
}

/// [`Reason`] with an order, for stable reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RuleReason(pub u8);

impl RuleReason {
    /// Wraps an engine reason.
    pub fn new(r: Reason) -> Self {
        RuleReason(Reason::ALL.iter().position(|&x| x == r).unwrap_or(0) as u8)
    }
    /// The engine reason.
    pub fn reason(self) -> Reason {
        Reason::ALL[self.0 as usize % Reason::ALL.len()]
    }
}

impl EndReason {
    /// `checkmate`, ..., `resign`, `adjudicated_draw`, `ply_cap`.
    pub fn name(self) -> &'static str {
        match self {
            EndReason::Rule(r) => r.reason().name(),
            EndReason::Resign => "resign",
            EndReason::AdjudicatedDraw => "adjudicated_draw",
            EndReason::PlyCap => "ply_cap",
        }
    }

    /// The termination stored in game records (the data format has one `adjudication`
    /// value for resignations and adjudicated draws; the result tells them apart).
    pub fn termination(self) -> Termination {
        match self {
            EndReason::Rule(r) => Termination::from(r.reason()),
            EndReason::Resign | EndReason::AdjudicatedDraw => Termination::Adjudication,
            EndReason::PlyCap => Termination::PlyLimit,
        }
    }

    /// Reads back what [`EndReason::termination`] stored.
    pub fn from_record(t: Termination, result: GameResult) -> Option<Self> {
        Some(match t {
            Termination::Adjudication if result == GameResult::Draw => EndReason::AdjudicatedDraw,
            Termination::Adjudication => EndReason::Resign,
            Termination::PlyLimit => EndReason::PlyCap,
            Termination::Checkmate => EndReason::Rule(RuleReason::new(Reason::Checkmate)),
            Termination::Stalemate => EndReason::Rule(RuleReason::new(Reason::Stalemate)),
            Termination::Campmate => EndReason::Rule(RuleReason::new(Reason::Campmate)),
            Termination::Repetition => EndReason::Rule(RuleReason::new(Reason::Repetition)),
            Termination::PerpetualCheck => EndReason::Rule(RuleReason::new(Reason::PerpetualCheck)),
            Termination::MoveRule => EndReason::Rule(RuleReason::new(Reason::MoveRule)),
            Termination::PawnDropMate => EndReason::Rule(RuleReason::new(Reason::PawnDropMate)),
            Termination::Other => return None,
        })
    }

    /// Every end reason, in report order.
    pub fn all() -> Vec<EndReason> {
        let mut v: Vec<EndReason> =
            Reason::ALL.iter().map(|&r| EndReason::Rule(RuleReason::new(r))).collect();
        v.extend([EndReason::Resign, EndReason::AdjudicatedDraw, EndReason::PlyCap]);
        v
    }
}

/// The adjudicator of one game: fed the search score of every searched position in order.
#[derive(Clone, Debug)]
pub struct Adjudicator {
    rules: Adjudication,
    /// Consecutive plies with White's score >= resign bound / <= -resign bound.
    white_winning: u32,
    black_winning: u32,
    /// Consecutive plies with |score| <= draw bound.
    drawish: u32,
}

impl Adjudicator {
    /// A fresh adjudicator.
    pub fn new(rules: Adjudication) -> Self {
        Adjudicator { rules, white_winning: 0, black_winning: 0, drawish: 0 }
    }

    /// Records the score (`score` from the side to move `stm`) of the position at `ply`
    /// and returns the verdict, if any: the winner (`None` for a draw) and the reason.
    pub fn observe(
        &mut self,
        ply: u32,
        stm: Color,
        score: i32,
    ) -> Option<(Option<Color>, EndReason)> {
        let r = &self.rules;
        let white = if stm == Color::White { score } else { -score };
        let count = |c: &mut u32, on: bool| *c = if on { *c + 1 } else { 0 };
        count(&mut self.white_winning, white >= r.resign_cp);
        count(&mut self.black_winning, white <= -r.resign_cp);
        count(&mut self.drawish, white.abs() <= r.draw_cp);
        // `resign_plies` consecutive plies include both sides' searches once it is >= 2.
        if r.resign_plies > 0 {
            if self.white_winning >= r.resign_plies {
                return Some((Some(Color::White), EndReason::Resign));
            }
            if self.black_winning >= r.resign_plies {
                return Some((Some(Color::Black), EndReason::Resign));
            }
        }
        if r.draw_plies > 0 && ply >= r.draw_min_ply && self.drawish >= r.draw_plies {
            return Some((None, EndReason::AdjudicatedDraw));
        }
        None
    }

    /// Whether the ply cap stops the game before searching the position at `ply`.
    pub fn capped(&self, ply: u32) -> bool {
        self.rules.max_plies > 0 && ply >= self.rules.max_plies
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules() -> Adjudication {
        Adjudication {
            resign_cp: 500,
            resign_plies: 4,
            draw_cp: 10,
            draw_plies: 6,
            draw_min_ply: 20,
            max_plies: 100,
        }
    }

    /// Feeds White-perspective scores from `ply0`, alternating sides; returns the verdict
    /// and the ply where it came.
    fn feed(
        a: &mut Adjudicator,
        ply0: u32,
        white_scores: &[i32],
    ) -> Option<(u32, Option<Color>, EndReason)> {
        for (i, &w) in white_scores.iter().enumerate() {
            let ply = ply0 + i as u32;
            let stm = if ply.is_multiple_of(2) { Color::White } else { Color::Black };
            let s = if stm == Color::White { w } else { -w };
            if let Some((winner, why)) = a.observe(ply, stm, s) {
                return Some((ply, winner, why));
            }
        }
        None
    }

    #[test]
    fn resign_needs_both_sides_for_the_full_count() {
        let mut a = Adjudicator::new(rules());
        // Three plies beyond the bound, then one back inside: nothing.
        assert_eq!(feed(&mut a, 0, &[600, 700, 800, 400, 600, 600, 600]), None);
        // Fourth consecutive ply: White wins.
        assert_eq!(feed(&mut a, 7, &[900]), Some((7, Some(Color::White), EndReason::Resign)));
        let mut a = Adjudicator::new(rules());
        assert_eq!(
            feed(&mut a, 0, &[0, -500, -501, -900, -32000]),
            Some((4, Some(Color::Black), EndReason::Resign))
        );
    }

    #[test]
    fn resign_disabled_with_zero_plies() {
        let mut a = Adjudicator::new(Adjudication { resign_plies: 0, ..rules() });
        assert_eq!(feed(&mut a, 0, &[30000; 50]), None);
    }

    #[test]
    fn draw_only_late_and_after_enough_plies() {
        let mut a = Adjudicator::new(rules());
        // Quiet from the start: only fires once ply >= 20.
        assert_eq!(feed(&mut a, 0, &[0; 30]), Some((20, None, EndReason::AdjudicatedDraw)));
        let mut a = Adjudicator::new(rules());
        // A swing resets the count: 5 quiet, 1 loud, then 6 quiet needed again.
        let mut s = vec![5; 5];
        s.push(50);
        s.extend([-3; 10]);
        assert_eq!(feed(&mut a, 30, &s), Some((41, None, EndReason::AdjudicatedDraw)));
        let mut a = Adjudicator::new(Adjudication { draw_plies: 0, ..rules() });
        assert_eq!(feed(&mut a, 100, &[0; 40]), None);
    }

    #[test]
    fn ply_cap() {
        let a = Adjudicator::new(rules());
        assert!(!a.capped(99));
        assert!(a.capped(100));
        assert!(!Adjudicator::new(Adjudication { max_plies: 0, ..rules() }).capped(100_000));
    }

    #[test]
    fn names_and_record_round_trip() {
        for e in EndReason::all() {
            let result = match e {
                EndReason::Resign => GameResult::BlackWin,
                _ => GameResult::Draw,
            };
            assert_eq!(EndReason::from_record(e.termination(), result), Some(e), "{}", e.name());
        }
        assert_eq!(EndReason::AdjudicatedDraw.name(), "adjudicated_draw");
        assert_eq!(EndReason::PlyCap.name(), "ply_cap");
    }
}
