//! PGN of match games: the seven-tag roster plus `Variant`, `FEN`/`SetUp`, `Termination`
//! and `PlyCount`; moves in UCI notation; optional per-move score comments.

use super::game::GameRecord;

/// Today's date as `YYYY.MM.DD` (UTC).
pub fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    format!("{y:04}.{m:02}.{d:02}")
}

/// Days since 1970-01-01 to (year, month, day) (H. Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// One game as PGN (`round`: e.g. `3.2` for the second game of pair 3).
pub fn game(r: &GameRecord, variant: &str, round: &str, date: &str, scores: bool) -> String {
    let plies = r.moves.len().to_string();
    let tags = [
        ("Event", "kage-selfplay match"),
        ("Site", "?"),
        ("Date", date),
        ("Round", round),
        ("White", &r.white),
        ("Black", &r.black),
        ("Result", &r.result),
        ("Variant", variant),
        ("FEN", &r.start_fen),
        ("SetUp", "1"),
        ("Termination", &r.termination),
        ("PlyCount", &plies),
    ];
    let black_first = r.start_fen.split_whitespace().nth(1) == Some("b");
    let mut tokens: Vec<String> = Vec::new();
    for (i, m) in r.moves.iter().enumerate() {
        let ply = i + usize::from(black_first);
        if ply % 2 == 0 {
            tokens.push(format!("{}.", ply / 2 + 1));
        } else if i == 0 {
            tokens.push(format!("{}...", ply / 2 + 1));
        }
        tokens.push(m.clone());
        if i + 1 == r.book {
            tokens.push("{book}".into());
        }
        if scores && i >= r.book {
            let k = i - r.book;
            let score = r.scores.get(k).copied().flatten().map_or("?".into(), |x| x.pgn());
            let ms = r.ms.get(k).copied().unwrap_or(0);
            tokens.push(format!("{{{score} {:.3}s}}", ms as f64 / 1000.0));
        }
    }
    tokens.push(format!("{{{}}}", r.termination));
    tokens.push(r.result.clone());
    kage_data::pgn::document(&tags, &tokens)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matches::engine::Score;

    #[test]
    fn scores_as_centipawns() {
        assert_eq!(Score::Cp(-35).centipawns(), -35);
        assert_eq!(Score::Mate(1).centipawns(), 31_999);
        assert_eq!(Score::Mate(-2).centipawns(), -31_996);
        assert_eq!(Score::Mate(3).pgn(), "+M3");
        assert_eq!(Score::Cp(-5).pgn(), "-0.05");
    }

    #[test]
    fn dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_697), (2026, 9, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    }

    #[test]
    fn pgn_text() {
        let r = GameRecord {
            first_white: true,
            white: "new".into(),
            black: "old \"x\"".into(),
            start_fen: "rbsgk/4p/5/P4/KGSBR[-] b - - 0 1".into(),
            book: 1,
            moves: vec!["e4e3".into(), "a2a3".into(), "e3e2+".into()],
            scores: vec![Some(Score::Cp(-35)), Some(Score::Mate(2))],
            ms: vec![50, 1200],
            result: "0-1".into(),
            termination: "checkmate".into(),
        };
        let p = game(&r, "minishogi", "1.2", "2026.11.30", true);
        assert!(p.contains("[Variant \"minishogi\"]\n"));
        assert!(p.contains("[Black \"old \\\"x\\\"\"]"));
        assert!(p.contains("[FEN \"rbsgk/4p/5/P4/KGSBR[-] b - - 0 1\"]"));
        assert!(p.contains("[Termination \"checkmate\"]"));
        assert!(
            p.contains(
                "1... e4e3 {book} 2. a2a3 {-0.35 0.050s} e3e2+ {+M2 1.200s} {checkmate} 0-1"
            ),
            "{p}"
        );
        let plain = game(&r, "minishogi", "1.2", "2026.11.30", false);
        assert!(plain.contains("1... e4e3 {book} 2. a2a3 e3e2+ {checkmate} 0-1"), "{plain}");
    }
}
