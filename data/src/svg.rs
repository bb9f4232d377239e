//! A few helpers for the small hand-written SVG charts of the workspace (self-play balance,
//! training loss): the document frame and text with its XML escaped.

use std::fmt::Write as _;

/// Starts an SVG document `width` x `height` on a white background, in `font_size` sans-serif.
pub fn begin(width: f64, height: f64, font_size: u32) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="{font_size}">"#
    );
    s.push_str("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
    s
}

/// Ends the document `begin` started.
pub fn end(mut s: String) -> String {
    s.push_str("</svg>\n");
    s
}

/// Appends a `<text>` element at (`x`, `y`) with extra attributes `attrs` (written as given)
/// and `content` escaped.
pub fn text(s: &mut String, x: f64, y: f64, attrs: &str, content: &str) {
    let sep = if attrs.is_empty() { "" } else { " " };
    let _ = writeln!(s, r#"<text x="{x:.1}" y="{y:.1}"{sep}{attrs}>{}</text>"#, escape(content));
}

/// `s` with the XML special characters escaped.
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&apos;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_and_escapes() {
        let mut s = begin(10.0, 20.0, 12);
        text(&mut s, 1.0, 2.0, r#"fill="red""#, "a<b & \"c\"");
        let s = end(s);
        assert!(
            s.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"20\"")
        );
        assert!(
            s.contains(r#"<text x="1.0" y="2.0" fill="red">a&lt;b &amp; &quot;c&quot;</text>"#)
        );
        assert!(s.ends_with("</svg>\n"));
    }
}
