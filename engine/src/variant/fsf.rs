//! The `[fsf_nnue]` spec table compiled: which of Fairy-Stockfish's NNUE piece types each
//! kage kind is (../shared/design/FSF-NNUE.md §5.2). `nnue::fsf` builds its feature layout
//! from this.

use super::compile::KindInfo;
use super::{SpecError, VariantSpec};
use crate::types::PieceKind;

/// Fairy-Stockfish's NNUE piece types of a variant, in its order (king last), and the type
/// (its ordinal in that order) each kage kind is seen as.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FsfPieceTypes {
    /// FSF's letters of its piece types, in NNUE order; the king is last.
    pub letters: Vec<char>,
    /// Per kage kind (indexed by [`PieceKind`]): its ordinal in `letters`.
    pub ordinal: Vec<u8>,
}

impl FsfPieceTypes {
    /// The number of FSF piece types (`n` of FSF-NNUE.md §5).
    pub fn num_types(&self) -> usize {
        self.letters.len()
    }

    /// The ordinal of kage kind `k`.
    #[inline(always)]
    pub fn ordinal_of(&self, k: PieceKind) -> u8 {
        self.ordinal[k.index()]
    }
}

fn bad(why: String) -> SpecError {
    SpecError::Inconsistent(format!("fsf_nnue: {why}"))
}

/// Compiles the spec's `[fsf_nnue]` table (`None` when there is none): the types are distinct
/// letters, the king is last and only the royal kind maps to it, every kind is mapped.
pub(crate) fn compile(
    spec: &VariantSpec,
    kinds: &[KindInfo],
) -> Result<Option<FsfPieceTypes>, SpecError> {
    let Some(table) = &spec.fsf_nnue else { return Ok(None) };
    let mut letters = Vec::new();
    for t in table.types.split_whitespace() {
        let mut ch = t.chars();
        let (Some(c), None) = (ch.next(), ch.next()) else {
            return Err(bad(format!("type '{t}' is not one letter")));
        };
        if !c.is_ascii_uppercase() || letters.contains(&c) {
            return Err(bad(format!("type '{t}' is not a new uppercase letter")));
        }
        letters.push(c);
    }
    if letters.len() < 2 || letters.len() > 32 {
        return Err(bad(format!("{} types (2 to 32, the king last)", letters.len())));
    }
    let mut ordinal = vec![u8::MAX; kinds.len()];
    for (sym, ty) in &table.kinds {
        let k = kinds
            .iter()
            .position(|k| k.symbol() == *sym)
            .ok_or_else(|| bad(format!("unknown kind '{sym}'")))?;
        let o = letters
            .iter()
            .position(|c| ty.len() == 1 && ty.starts_with(*c))
            .ok_or_else(|| bad(format!("kind '{sym}' maps to '{ty}', not one of the types")))?;
        let is_king = o + 1 == letters.len();
        if kinds[k].royal != is_king {
            return Err(bad(format!("'{sym}': the royal kind and only it maps to the last type")));
        }
        ordinal[k] = o as u8;
    }
    if let Some(k) = ordinal.iter().position(|&o| o == u8::MAX) {
        return Err(bad(format!("kind '{}' is not mapped", kinds[k].symbol())));
    }
    Ok(Some(FsfPieceTypes { letters, ordinal }))
}

#[cfg(test)]
mod tests {
    use crate::variant::{Variant, VariantId, VariantSpec};

    fn minishogi_with(table: &str) -> String {
        let text = VariantId::MINISHOGI.spec_text();
        let cut = text.find("[fsf_nnue]").expect("table");
        format!("{}{table}", &text[..cut])
    }

    #[test]
    fn bad_tables_are_refused_naming_the_problem() {
        let good = "[fsf_nnue]\ntypes = \"B R S D P G H K\"\nkinds = { K = \"K\", P = \"P\", \
                    S = \"S\", G = \"G\", B = \"B\", R = \"R\", \"+P\" = \"G\", \"+S\" = \"G\", \
                    \"+B\" = \"H\", \"+R\" = \"D\" }\n";
        let spec = VariantSpec::parse(&minishogi_with(good)).expect("parses");
        assert!(Variant::compile(&spec).expect("compiles").fsf_nnue.is_some());
        for (bad, why) in [
            (good.replace("\"+R\" = \"D\"", "\"+R\" = \"X\""), "not one of the types"),
            (good.replace(", \"+R\" = \"D\"", ""), "'+R' is not mapped"),
            (good.replace("K = \"K\"", "K = \"G\""), "royal"),
            (good.replace("B R S D", "B B S D"), "new uppercase"),
            (good.replace("G H K\"", "G K H\""), "royal"),
        ] {
            let spec = VariantSpec::parse(&minishogi_with(&bad)).expect("parses");
            let err = Variant::compile(&spec).expect_err(why).to_string();
            assert!(err.contains("fsf_nnue") && err.contains(why), "{err}");
        }
    }
}
