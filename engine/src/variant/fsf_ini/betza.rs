//! Fairy-Stockfish's reading of Betza notation (`piece.cpp`, `from_betza`), and the translation of
//! the moves it gives into kage's smaller Betza dialect (W F N D A atoms, R B riders; f b l r
//! directions, m c i n modifiers), or an error saying what kage cannot express.

use std::collections::BTreeSet;

/// How a move component goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Reach {
    /// One jump (lame: the square passed over must be empty).
    Leap { lame: bool },
    /// A slide, `0` = unlimited, else at most that many steps.
    Ride(u8),
    /// Over a screen (cannons, grasshoppers).
    Hop,
}

/// One FSF move component, relative to White (`dy > 0` forward).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct FsfStep {
    pub dx: i8,
    pub dy: i8,
    pub reach: Reach,
    /// Quiet moves (else captures).
    pub quiet: bool,
    /// Only from the double-step region.
    pub initial: bool,
}

const LEAPERS: &[(char, (i8, i8))] = &[
    ('W', (1, 0)),
    ('F', (1, 1)),
    ('D', (2, 0)),
    ('N', (2, 1)),
    ('A', (2, 2)),
    ('H', (3, 0)),
    ('L', (3, 1)),
    ('C', (3, 1)),
    ('J', (3, 2)),
    ('Z', (3, 2)),
    ('G', (3, 3)),
];

fn atoms(c: char) -> Option<(Vec<(i8, i8)>, bool)> {
    match c {
        'K' => Some((vec![(1, 0), (1, 1)], false)),
        'R' => Some((vec![(1, 0)], true)),
        'B' => Some((vec![(1, 1)], true)),
        'Q' => Some((vec![(1, 0), (1, 1)], true)),
        _ => LEAPERS.iter().find(|l| l.0 == c).map(|l| (vec![l.1], false)),
    }
}

/// Modifiers read before an atom.
#[derive(Default)]
struct Mods {
    quiet: bool,
    capture: bool,
    hopper: bool,
    lame: bool,
    initial: bool,
    dirs: Vec<String>,
}

/// FSF's moves of a Betza string; characters FSF ignores are refused here (`Err(char)`), since
/// what their author meant is not what FSF plays.
pub fn fsf_steps(betza: &str) -> Result<BTreeSet<FsfStep>, String> {
    let chars: Vec<char> = betza.chars().collect();
    let mut out = BTreeSet::new();
    let mut m = Mods::default();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            'm' => m.quiet = true,
            'c' => m.capture = true,
            'p' | 'g' => m.hopper = true,
            'n' => m.lame = true,
            'i' => m.initial = true,
            'e' => {} // en passant: a property of the piece type, handled by the caller
            'f' | 'b' | 'v' | 'h' | 'r' | 'l' | 's' => {
                let next = chars.get(i + 1).copied();
                let vert = |x: char| "fbvh".contains(x);
                let horiz = |x: char| "rlsh".contains(x);
                match next {
                    Some(n) if n == c || (vert(c) && horiz(n)) || (horiz(c) && vert(n)) => {
                        m.dirs.push(format!("{c}{n}"));
                        i += 1;
                    }
                    _ => m.dirs.push(format!("{c}{c}")),
                }
            }
            _ => {
                let (list, mut rider) =
                    atoms(c).ok_or_else(|| format!("character '{c}' is not read by kage"))?;
                let mut distance = 0u8;
                if let Some(&n) = chars.get(i + 1)
                    && (n.is_ascii_digit() || n == c)
                {
                    rider = true;
                    distance = n.to_digit(10).map_or(0, |d| d as u8);
                    i += 1;
                }
                add_atom(&list, rider, distance, &m, &mut out);
                m = Mods::default();
            }
        }
        i += 1;
    }
    if m.quiet || m.capture || m.hopper || m.lame || m.initial || !m.dirs.is_empty() {
        return Err("modifiers without an atom at the end".into());
    }
    Ok(out)
}

fn add_atom(list: &[(i8, i8)], rider: bool, distance: u8, m: &Mods, out: &mut BTreeSet<FsfStep>) {
    let modes: Vec<bool> = match (m.quiet, m.capture) {
        (true, false) => vec![true],
        (false, true) => vec![false],
        _ => vec![true, false],
    };
    for &(a, b) in list {
        let mut dirs: Vec<String> = Vec::new();
        for s in &m.dirs {
            let s0 = s.chars().next().unwrap_or('f');
            let s1 = s.chars().nth(1).unwrap_or('f');
            if list.len() == 1 && b == 0 && s0 != s1 {
                dirs.push(format!("{s0}{s0}"));
                dirs.push(format!("{s1}{s1}"));
            } else {
                dirs.push(s.clone());
            }
        }
        let has =
            |keys: &[&str]| dirs.is_empty() || keys.iter().any(|k| dirs.iter().any(|d| d == k));
        // FSF's eight directions of atom (a, b): (file, rank) offsets and the modifiers that
        // select them.
        let eight: [((i8, i8), [&str; 7]); 8] = [
            ((b, a), ["ff", "vv", "rf", "rv", "fh", "rh", "hr"]),
            ((-b, -a), ["bb", "vv", "lb", "lv", "bh", "lh", "hr"]),
            ((a, -b), ["rr", "ss", "br", "bs", "bh", "rh", "hr"]),
            ((-a, b), ["ll", "ss", "fl", "fs", "fh", "lh", "hr"]),
            ((a, b), ["rr", "ss", "fr", "fs", "fh", "rh", "hl"]),
            ((-a, -b), ["ll", "ss", "bl", "bs", "bh", "lh", "hl"]),
            ((b, -a), ["bb", "vv", "rb", "rv", "bh", "rh", "hl"]),
            ((-b, a), ["ff", "vv", "lf", "lv", "fh", "lh", "hl"]),
        ];
        for ((dx, dy), keys) in eight {
            if !has(&keys) {
                continue;
            }
            let reach = if m.hopper {
                Reach::Hop
            } else if rider {
                Reach::Ride(distance)
            } else {
                Reach::Leap { lame: m.lame }
            };
            for &quiet in &modes {
                out.insert(FsfStep { dx, dy, reach, quiet, initial: m.initial });
            }
        }
    }
}

/// A movement in kage's Betza dialect giving exactly `steps`, or why there is none.
pub fn to_kage(steps: &BTreeSet<FsfStep>) -> Result<String, String> {
    // Group by (atom, reach, modality, initial); both modalities of one move merge.
    let mut tokens: Vec<String> = Vec::new();
    let mut seen: BTreeSet<(i8, i8, Reach, bool)> = BTreeSet::new();
    for s in steps {
        let key = (s.dx, s.dy, s.reach, s.initial);
        if !seen.insert(key) {
            continue;
        }
        let quiet = steps.contains(&FsfStep { quiet: true, ..*s });
        let capture = steps.contains(&FsfStep { quiet: false, ..*s });
        tokens.push(token(s, quiet, capture)?);
    }
    if tokens.is_empty() {
        return Err("a piece that never moves".into());
    }
    Ok(tokens.concat())
}

fn token(s: &FsfStep, quiet: bool, capture: bool) -> Result<String, String> {
    let (ax, ay) = (s.dx.abs(), s.dy.abs());
    let (atom, dirs) = match (s.reach, ax.max(ay), ax.min(ay)) {
        (Reach::Hop, ..) => return Err("hoppers (p, g)".into()),
        (Reach::Ride(0), 1, 0) => ('R', orth(s.dx, s.dy)),
        (Reach::Ride(0), 1, 1) => ('B', diag(s.dx, s.dy)),
        (Reach::Ride(_), ..) => return Err("riders other than unlimited R, B and Q".into()),
        (Reach::Leap { .. }, 1, 0) => ('W', orth(s.dx, s.dy)),
        (Reach::Leap { .. }, 1, 1) => ('F', diag(s.dx, s.dy)),
        (Reach::Leap { .. }, 2, 0) => ('D', orth(s.dx, s.dy)),
        (Reach::Leap { .. }, 2, 2) => ('A', diag(s.dx, s.dy)),
        (Reach::Leap { .. }, 2, 1) => ('N', String::new()),
        _ => return Err("leaps longer than two squares (H, C, L, Z, J, G)".into()),
    };
    if atom == 'N' {
        return Err(format!("single knight jumps ({}, {})", s.dx, s.dy));
    }
    let lame = matches!(s.reach, Reach::Leap { lame: true });
    if lame && !matches!(atom, 'D' | 'A') {
        return Err("lame leapers other than nD and nA".into());
    }
    let rider = atom == 'R' || atom == 'B';
    if rider && !(quiet && capture) {
        return Err("riders that only move or only capture".into());
    }
    if s.initial && !(atom == 'D' && quiet && !capture && lame && s.dx == 0 && s.dy == 2) {
        return Err("initial moves other than the pawn double step ifmnD".into());
    }
    let modality = match (quiet, capture) {
        (true, false) => "m",
        (false, true) => "c",
        _ => "",
    };
    let init = if s.initial { "i" } else { "" };
    let n = if lame { "n" } else { "" };
    Ok(format!("{init}{dirs}{modality}{n}{atom}"))
}

fn orth(dx: i8, dy: i8) -> String {
    match (dx.signum(), dy.signum()) {
        (0, 1) => "f",
        (0, _) => "b",
        (1, _) => "r",
        _ => "l",
    }
    .to_string()
}

fn diag(dx: i8, dy: i8) -> String {
    let v = if dy > 0 { 'f' } else { 'b' };
    let h = if dx > 0 { 'r' } else { 'l' };
    format!("{v}{h}")
}

/// Merges single knight jumps into kage's pairs (`fN` = both narrow forward jumps, `lN` = both
/// wide left ones, ...): the steps must form whole pairs of one modality.
pub fn knight_tokens(steps: &BTreeSet<FsfStep>) -> Result<(BTreeSet<FsfStep>, String), String> {
    let mut rest = steps.clone();
    let mut out = String::new();
    let pairs: [(char, [(i8, i8); 2]); 4] = [
        ('f', [(1, 2), (-1, 2)]),
        ('b', [(1, -2), (-1, -2)]),
        ('l', [(-2, 1), (-2, -1)]),
        ('r', [(2, 1), (2, -1)]),
    ];
    let mut all: Vec<(char, &str)> = Vec::new();
    for (d, sq) in pairs {
        for (quiet_only, capture_only, m) in
            [(true, true, ""), (true, false, "m"), (false, true, "c")]
        {
            let want: Vec<FsfStep> = sq
                .iter()
                .flat_map(|&(dx, dy)| {
                    let leap = Reach::Leap { lame: false };
                    let q = FsfStep { dx, dy, reach: leap, quiet: true, initial: false };
                    let c = FsfStep { quiet: false, ..q };
                    [(quiet_only, q), (capture_only, c)]
                        .into_iter()
                        .filter(|x| x.0)
                        .map(|x| x.1)
                        .collect::<Vec<_>>()
                })
                .collect();
            if want.iter().all(|w| rest.contains(w)) {
                for w in &want {
                    rest.remove(w);
                }
                all.push((d, m));
            }
        }
    }
    for (d, m) in all {
        out.push_str(&format!("{d}{m}N"));
    }
    Ok((rest, out))
}

/// FSF movement `betza` in kage's dialect.
pub fn translate(betza: &str) -> Result<String, String> {
    let steps = fsf_steps(betza)?;
    let (rest, knights) = knight_tokens(&steps)?;
    if rest.is_empty() {
        return if knights.is_empty() {
            Err("a piece that never moves".into())
        } else {
            Ok(knights)
        };
    }
    Ok(format!("{knights}{}", to_kage(&rest)?))
}
