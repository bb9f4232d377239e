//! Score-based adjudication: resignations, adjudicated draws and the ply cap (the ways a
//! game ends are `kage_data::Termination`).

use kage_data::Termination;
use kage_engine::Color;

use crate::config::Adjudication;

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
    ) -> Option<(Option<Color>, Termination)> {
        let r = &self.rules;
        let white = if stm == Color::White { score } else { -score };
        let count = |c: &mut u32, on: bool| *c = if on { *c + 1 } else { 0 };
        count(&mut self.white_winning, white >= r.resign_cp);
        count(&mut self.black_winning, white <= -r.resign_cp);
        count(&mut self.drawish, white.abs() <= r.draw_cp);
        // `resign_plies` consecutive plies include both sides' searches once it is >= 2.
        if r.resign_plies > 0 {
            if self.white_winning >= r.resign_plies {
                return Some((Some(Color::White), Termination::Resign));
            }
            if self.black_winning >= r.resign_plies {
                return Some((Some(Color::Black), Termination::Resign));
            }
        }
        if r.draw_plies > 0 && ply >= r.draw_min_ply && self.drawish >= r.draw_plies {
            return Some((None, Termination::AdjudicatedDraw));
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
    ) -> Option<(u32, Option<Color>, Termination)> {
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
        assert_eq!(feed(&mut a, 7, &[900]), Some((7, Some(Color::White), Termination::Resign)));
        let mut a = Adjudicator::new(rules());
        assert_eq!(
            feed(&mut a, 0, &[0, -500, -501, -900, -32000]),
            Some((4, Some(Color::Black), Termination::Resign))
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
        assert_eq!(feed(&mut a, 0, &[0; 30]), Some((20, None, Termination::AdjudicatedDraw)));
        let mut a = Adjudicator::new(rules());
        // A swing resets the count: 5 quiet, 1 loud, then 6 quiet needed again.
        let mut s = vec![5; 5];
        s.push(50);
        s.extend([-3; 10]);
        assert_eq!(feed(&mut a, 30, &s), Some((41, None, Termination::AdjudicatedDraw)));
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
}
