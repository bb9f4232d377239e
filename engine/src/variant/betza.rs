//! A small Betza-notation parser: enough for the pieces of drop-and-promotion chess.
//!
//! Atoms: `W` (1,0) `F` (1,1) `N` (1,2) `D` (2,0) `A` (2,2), `K` = WF, riders `R` `B` `Q`.
//! Modifiers before an atom: directions `f b l r v s` (for `N`, `f` selects the two narrow
//! forward jumps, as in the shogi knight `fN`), `m` move only, `c` capture only, `i` only from
//! the second rank (pawn double step), `n` lame (the square passed over must be empty).

/// One movement component, relative to White (`dy > 0` is forward).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    pub dx: i8,
    pub dy: i8,
    pub rider: bool,
    pub can_move: bool,
    pub can_capture: bool,
    pub initial_only: bool,
    pub lame: bool,
}

/// Why a Betza movement string is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BetzaError {
    /// A character that is neither an atom nor a modifier.
    #[error("unexpected '{0}'")]
    Unexpected(char),
    /// Modifiers at the end, with no atom after them.
    #[error("modifiers '{0}' without an atom")]
    DanglingModifiers(String),
    /// An empty movement.
    #[error("no movement")]
    Empty,
    /// `m` (move only) and `c` (capture only) on one atom.
    #[error("both 'm' and 'c'")]
    MoveAndCaptureOnly,
    /// `n` (lame) on an atom that does not jump over a square.
    #[error("'n' (lame) applies to D and A only")]
    LameLeaper,
    /// A rider restricted to moving or capturing, or to its first move.
    #[error("riders must both move and capture")]
    RestrictedRider,
}

pub fn parse(betza: &str) -> Result<Vec<Step>, BetzaError> {
    let mut steps = Vec::new();
    let mut mods = String::new();
    for ch in betza.chars() {
        match ch {
            'f' | 'b' | 'l' | 'r' | 'v' | 's' | 'm' | 'c' | 'i' | 'n' => mods.push(ch),
            'W' | 'F' | 'N' | 'D' | 'A' | 'K' | 'R' | 'B' | 'Q' => {
                atom(ch, &mods, &mut steps)?;
                mods.clear();
            }
            _ => return Err(BetzaError::Unexpected(ch)),
        }
    }
    if !mods.is_empty() {
        return Err(BetzaError::DanglingModifiers(mods));
    }
    if steps.is_empty() {
        return Err(BetzaError::Empty);
    }
    steps.sort_by_key(|s| (s.dx, s.dy, s.rider, s.can_move, s.can_capture, s.initial_only));
    steps.dedup();
    Ok(steps)
}

fn atom(ch: char, mods: &str, out: &mut Vec<Step>) -> Result<(), BetzaError> {
    let (bases, rider): (&[(i8, i8)], bool) = match ch {
        'W' => (&[(1, 0)], false),
        'F' => (&[(1, 1)], false),
        'N' => (&[(1, 2)], false),
        'D' => (&[(2, 0)], false),
        'A' => (&[(2, 2)], false),
        'K' => (&[(1, 0), (1, 1)], false),
        'R' => (&[(1, 0)], true),
        'B' => (&[(1, 1)], true),
        'Q' => (&[(1, 0), (1, 1)], true),
        _ => unreachable!("atom letters are matched by the caller"),
    };
    let only_move = mods.contains('m');
    let only_capture = mods.contains('c');
    if only_move && only_capture {
        return Err(BetzaError::MoveAndCaptureOnly);
    }
    let lame = mods.contains('n');
    if lame && !matches!(ch, 'D' | 'A') {
        return Err(BetzaError::LameLeaper);
    }
    let dirs: Vec<char> = mods.chars().filter(|c| "fblrvs".contains(*c)).collect();
    for &(a, b) in bases {
        for (dx, dy) in symmetries(a, b) {
            if !selected(dx, dy, &dirs) {
                continue;
            }
            out.push(Step {
                dx,
                dy,
                rider,
                can_move: !only_capture,
                can_capture: !only_move,
                initial_only: mods.contains('i'),
                lame,
            });
        }
    }
    Ok(())
}

fn symmetries(a: i8, b: i8) -> Vec<(i8, i8)> {
    let mut v = Vec::new();
    for (x, y) in [(a, b), (b, a)] {
        for sx in [1, -1] {
            for sy in [1, -1] {
                let p = (x * sx, y * sy);
                if !v.contains(&p) {
                    v.push(p);
                }
            }
        }
    }
    v
}

fn selected(dx: i8, dy: i8, dirs: &[char]) -> bool {
    if dirs.is_empty() {
        return true;
    }
    let oblique = dx != 0 && dy != 0 && dx.abs() != dy.abs();
    let diagonal = dx != 0 && dx.abs() == dy.abs();
    // A diagonal with one vertical and one horizontal letter ("fl") is their intersection.
    if diagonal && dirs.len() == 2 {
        let v = dirs.iter().find(|c| matches!(c, 'f' | 'b'));
        let h = dirs.iter().find(|c| matches!(c, 'l' | 'r'));
        if let (Some(v), Some(h)) = (v, h) {
            return test(*v, dx, dy, false) && test(*h, dx, dy, false);
        }
    }
    dirs.iter().any(|&c| test(c, dx, dy, oblique))
}

fn test(c: char, dx: i8, dy: i8, oblique: bool) -> bool {
    let narrow = dy.abs() > dx.abs();
    match c {
        'f' => dy > 0 && (!oblique || narrow),
        'b' => dy < 0 && (!oblique || narrow),
        'l' => dx < 0 && (!oblique || !narrow),
        'r' => dx > 0 && (!oblique || !narrow),
        'v' => {
            if oblique {
                narrow
            } else {
                dx == 0
            }
        }
        's' => {
            if oblique {
                !narrow
            } else {
                dy == 0
            }
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(b: &str) -> usize {
        parse(b).unwrap().len()
    }

    #[test]
    fn common_pieces() {
        assert_eq!(count("K"), 8);
        assert_eq!(count("N"), 8);
        assert_eq!(count("fN"), 2);
        assert_eq!(count("WfF"), 6); // gold
        assert_eq!(count("FfW"), 5); // silver
        assert_eq!(count("fR"), 1); // lance
        assert_eq!(count("fmWfcFifmnD"), 4); // chess pawn
        assert!(parse("fN").unwrap().iter().all(|s| s.dy == 2));
        assert!(parse("X").is_err());
        assert!(parse("f").is_err());
        assert!(parse("mcW").is_err());
    }
}
