//! The rule summary of a compiled variant, as Markdown: what `kage describe` prints and what
//! `docs/RULES.md` embeds (a test keeps the two equal, so the documentation cannot drift from
//! the tables the engine plays by).

use super::{RepetitionVerdict, Variant};
use crate::types::{Bitboard, Color, PieceKind};
use std::fmt::Write as _;

impl Variant {
    /// A Markdown summary of the rules this variant compiles to: board, armies, drops,
    /// promotion, game ends and the piece table, read from the compiled tables.
    pub fn describe_markdown(&'static self) -> String {
        let mut s = String::from("| rule | |\n|---|---|\n");
        let mut row = |k: &str, v: String| {
            let _ = writeln!(s, "| {k} | {v} |");
        };
        row("board", format!("{} files x {} ranks", self.width, self.height));
        row("start position", format!("`{}`", self.start_fen));
        let start = crate::Position::from_fen(self, &self.start_fen);
        if let Ok(pos) = start {
            row("legal moves at the start", pos.legal_moves().as_slice().len().to_string());
        }
        row(
            "captured pieces",
            if self.captures_to_hand {
                "go to the capturer's hand, demoted".into()
            } else {
                "leave the game".into()
            },
        );
        for c in [Color::White, Color::Black] {
            row(&format!("{} drops", side(c)), self.ranks_text(self.drop_zone[c], "none"));
        }
        row(
            "promotion",
            if self.mandatory_promotion {
                "mandatory whenever a move starts or ends in the zone".into()
            } else {
                "optional when a move starts or ends in the zone; forced where the piece could \
                 never move again"
                    .into()
            },
        );
        for c in [Color::White, Color::Black] {
            row(
                &format!("{} promotion zone", side(c)),
                self.ranks_text(self.promotion_zone[c], "none"),
            );
        }
        row("castling", yes_no(self.castling).into());
        row("double step and en passant", yes_no(self.en_passant).into());
        row(
            "stalemate",
            if self.stalemate_loses { "the side without a move loses" } else { "draw" }.into(),
        );
        let verdict = match self.repetition_verdict {
            RepetitionVerdict::Draw => "draw",
            RepetitionVerdict::WhiteLoses => "White loses",
        };
        let perpetual = if self.perpetual_check_loses {
            "; a side that gave check with every move of the cycle loses"
        } else {
            ""
        };
        row("repetition", format!("{}-fold: {verdict}{perpetual}", self.repetition_count));
        row(
            "move rule",
            match self.move_rule_plies {
                0 => "none".into(),
                p => format!("{p} plies without capture, pawn move, drop or promotion: draw"),
            },
        );
        for c in [Color::White, Color::Black] {
            row(
                &format!("{} king reaching", side(c)),
                match self.flag_zone[c] {
                    0 => "no special rule".into(),
                    z => format!("{}: wins at once (campmate)", self.zone_text(z)),
                },
            );
        }
        s.push_str("\n| letter | name | moves (Betza) | promotes to | value | in hand | notes |\n");
        s.push_str("|---|---|---|---|---|---|---|\n");
        for (i, k) in self.kinds.iter().enumerate() {
            let promotes = if k.promotion_choices.is_empty() {
                k.promotes_to.map_or(String::new(), |p| {
                    let to = self.kind(p);
                    format!("`{}` ({})", to.symbol(), to.betza)
                })
            } else {
                let c: Vec<String> = k
                    .promotion_choices
                    .iter()
                    .map(|&p| format!("`{}`", self.kind(p).symbol()))
                    .collect();
                format!("one of {}", c.join(", "))
            };
            let in_hand = if self.hand_kinds.contains(&PieceKind(i as u8)) {
                k.hand_value.to_string()
            } else {
                "-".into()
            };
            let mut notes = Vec::new();
            if k.royal {
                notes.push("royal");
            }
            if k.pawn {
                notes.push("pawn");
            }
            if k.nifu {
                notes.push("no drop on a file with an own unpromoted one");
            }
            if k.drop_mate_loses {
                notes.push("a checkmating drop loses");
            }
            if k.castling_rook {
                notes.push("castles");
            }
            let _ = writeln!(
                s,
                "| `{}` | {} | `{}` | {promotes} | {} | {in_hand} | {} |",
                k.symbol(),
                k.name,
                k.betza,
                k.value,
                notes.join(", ")
            );
        }
        s
    }

    /// "ranks 1-4" for a set of whole ranks, `empty` for none.
    /// A zone's whole ranks, and its other squares by name.
    fn zone_text(&self, zone: Bitboard) -> String {
        let full: Bitboard = self.rank_masks[..self.height as usize]
            .iter()
            .filter(|&&m| zone & m == m)
            .fold(0, |a, &m| a | m);
        let mut parts = vec![self.ranks_text(zone, "")];
        let rest: Vec<String> = crate::types::bits(zone & !full)
            .map(|s| crate::types::Square(s).name(self.width))
            .collect();
        if !rest.is_empty() {
            parts.push(format!("squares {}", rest.join(" ")));
        }
        parts.retain(|p| !p.is_empty());
        parts.join(", ")
    }

    fn ranks_text(&self, zone: Bitboard, empty: &str) -> String {
        let ranks: Vec<u8> = (0..self.height)
            .filter(|&r| {
                let m = self.rank_masks[r as usize];
                zone & m == m
            })
            .map(|r| r + 1)
            .collect();
        match ranks.as_slice() {
            [] => empty.to_string(),
            r if r.len() == self.height as usize => "anywhere on the board".to_string(),
            [r] => format!("rank {r}"),
            [a, .., b] if (b - a) as usize + 1 == ranks.len() => format!("ranks {a}-{b}"),
            _ => {
                let list: Vec<String> = ranks.iter().map(u8::to_string).collect();
                format!("ranks {}", list.join(", "))
            }
        }
    }
}

fn side(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

fn yes_no(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}
