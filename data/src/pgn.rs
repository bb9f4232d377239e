//! PGN text: tag pairs and movetext wrapped at 79 columns (`kage-data export` and
//! `kage-selfplay match` both write through [`document`]).

/// One PGN game: `tags` as `[Name "value"]` lines (backslashes and quotes escaped), a blank
/// line, then the movetext `tokens` (move numbers, moves, `{comments}`, the result) joined
/// by spaces in lines of at most 79 characters (a longer token stands alone), and a blank
/// line after the game.
pub fn document(tags: &[(&str, &str)], tokens: &[String]) -> String {
    let mut s = String::new();
    for (name, value) in tags {
        let v = value.replace('\\', "\\\\").replace('"', "\\\"");
        s.push_str(&format!("[{name} \"{v}\"]\n"));
    }
    s.push('\n');
    let mut line = String::new();
    for t in tokens {
        if !line.is_empty() && line.len() + 1 + t.len() > 79 {
            s.push_str(&line);
            s.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(t);
    }
    s.push_str(&line);
    s.push_str("\n\n");
    s
}

#[cfg(test)]
mod tests {
    use super::document;

    #[test]
    fn tags_escaped_and_movetext_wrapped() {
        let tokens: Vec<String> = (1..=30).map(|i| format!("{i}. a1b2")).collect();
        let s = document(&[("White", "a \"b\" \\c"), ("Result", "*")], &tokens);
        assert!(s.starts_with("[White \"a \\\"b\\\" \\\\c\"]\n[Result \"*\"]\n\n1. a1b2 2. a1b2"));
        assert!(s.ends_with("30. a1b2\n\n"), "{s}");
        let body: Vec<&str> =
            s.split("\n\n").nth(1).map(|b| b.lines().collect()).unwrap_or_default();
        assert!(body.len() > 1, "{s}");
        assert!(body.iter().all(|l| l.len() <= 79), "{s}");
        assert_eq!(body.join(" "), tokens.join(" "));
    }
}
