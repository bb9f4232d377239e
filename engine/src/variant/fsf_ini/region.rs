//! FSF regions (`*7 *8`, `a1 b2`, `c*`) as square sets on FSF's largest board (12 files, 10
//! ranks), and their reading as kage's rank lists.

/// Files and ranks of FSF's largest board.
pub const FILES: u8 = 12;
/// Ranks of FSF's largest board.
pub const RANKS: u8 = 10;

/// A set of squares, bit `rank * FILES + file`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Region(pub u128);

impl Region {
    /// Every square.
    pub const ALL: Region = Region((1u128 << (FILES as u32 * RANKS as u32)) - 1);

    /// One whole rank (0-based).
    pub fn rank(r: u8) -> Region {
        if r >= RANKS {
            return Region(0);
        }
        Region(((1u128 << FILES) - 1) << (r as u32 * FILES as u32))
    }

    fn file(f: u8) -> Region {
        let mut b = 0u128;
        for r in 0..RANKS {
            b |= 1u128 << (r as u32 * FILES as u32 + f as u32);
        }
        Region(b)
    }

    fn square(f: u8, r: u8) -> Region {
        Region(1u128 << (r as u32 * FILES as u32 + f as u32))
    }

    /// The names of its squares (`d4`), files up to `width`.
    pub fn squares(self, width: u8) -> Vec<String> {
        let mut out = Vec::new();
        for r in 0..RANKS {
            for f in 0..width.min(FILES) {
                if self.0 & Region::square(f, r).0 != 0 {
                    out.push(format!("{}{}", (b'a' + f) as char, r + 1));
                }
            }
        }
        out
    }

    /// The squares of a `width` x `height` board.
    pub fn board(width: u8, height: u8) -> Region {
        let mut b = 0u128;
        for r in 0..height.min(RANKS) {
            for f in 0..width.min(FILES) {
                b |= Region::square(f, r).0;
            }
        }
        Region(b)
    }

    /// The squares in both.
    pub fn and(self, o: Region) -> Region {
        Region(self.0 & o.0)
    }

    /// No square.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Parses an FSF region; `Err` says why not.
    pub fn parse(text: &str) -> Result<Region, String> {
        let mut b = 0u128;
        for tok in text.split_whitespace() {
            if tok == "-" {
                break;
            }
            b |= token(tok)?.0;
        }
        Ok(Region(b))
    }

    /// The 1-based ranks of a `width` x `height` board this region covers, when it is made of
    /// whole ranks of that board (squares off the board are ignored, as FSF ignores them).
    pub fn ranks(self, width: u8, height: u8) -> Option<Vec<u8>> {
        let on = self.and(Region::board(width, height));
        let mut out = Vec::new();
        for r in 0..height {
            let row = Region::rank(r).and(Region::board(width, height));
            let got = on.and(row);
            if got == row {
                out.push(r + 1);
            } else if !got.is_empty() {
                return None;
            }
        }
        Some(out)
    }
}

fn token(tok: &str) -> Result<Region, String> {
    let bad = || format!("'{tok}' is not a square, a file (a*) or a rank (*1)");
    let file_of = |c: char| -> Result<u8, String> {
        let f = (c.to_ascii_lowercase() as i32) - ('a' as i32);
        if c.is_ascii_alphabetic() && (0..FILES as i32).contains(&f) {
            Ok(f as u8)
        } else {
            Err(bad())
        }
    };
    let rank_of = |s: &str| -> Result<u8, String> {
        let r: u8 = s.parse().map_err(|_| bad())?;
        if (1..=RANKS).contains(&r) { Ok(r - 1) } else { Err(bad()) }
    };
    if let Some(r) = tok.strip_prefix('*') {
        return Ok(Region::rank(rank_of(r)?));
    }
    let mut chars = tok.chars();
    let c = chars.next().ok_or_else(bad)?;
    let rest = chars.as_str();
    if rest == "*" {
        return Ok(Region::file(file_of(c)?));
    }
    Ok(Region::square(file_of(c)?, rank_of(rest)?))
}
