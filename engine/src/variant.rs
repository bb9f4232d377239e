//! Variants as data: a TOML spec per variant, compiled once into the tables that
//! move generation reads.

mod betza;
mod builtin;
mod compile;
mod describe;
mod error;
mod fsf;
pub mod fsf_ini;
mod limits;
mod spec;
mod user_file;

pub use betza::BetzaError;
pub use builtin::Bench;
pub use compile::{Direction, KindInfo, RepetitionVerdict, Variant};
pub use error::SpecError;
pub use fsf::FsfPieceTypes;
pub use fsf_ini::{FsfIniError, FsfIniFile};
pub use limits::{MAX_MATERIAL, MAX_NAME_LEN, MAX_PIECE_VALUE, MAX_PIECES, is_valid_name};
pub use spec::{FsfNnueSpec, PieceSpec, VariantSpec};
pub use user_file::{
    FileFormat, NamedVariant, UserVariant, file_format, read_user_variant, read_user_variants,
};

use std::sync::OnceLock;

/// A built-in variant: a handle on one folder `engine/variants/<name>/` (see [`VariantId::ALL`]
/// and the constants named after the folders, such as [`VariantId::MINISHOGI`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VariantId(u8);

impl VariantId {
    /// The name: the folder's, such as `minishogi`.
    pub fn name(self) -> &'static str {
        self.folder().name
    }

    /// Parses [`VariantId::name`].
    pub fn from_name(name: &str) -> Option<VariantId> {
        VariantId::ALL.into_iter().find(|v| v.name() == name)
    }

    /// The spec text (`engine/variants/<name>/rules.toml`).
    pub fn spec_text(self) -> &'static str {
        self.folder().rules
    }

    /// The names of every built-in variant, comma-separated (for help texts and errors).
    pub fn names() -> String {
        VariantId::ALL.map(VariantId::name).join(", ")
    }
}

impl std::fmt::Display for VariantId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for VariantId {
    type Err = SpecError;
    fn from_str(s: &str) -> Result<Self, SpecError> {
        VariantId::from_name(s).ok_or_else(|| SpecError::UnknownVariant {
            name: s.to_string(),
            known: VariantId::names(),
        })
    }
}

/// Largest variant spec file read (a spec is a few KiB).
pub const MAX_SPEC_BYTES: u64 = 1 << 20;

impl Variant {
    /// The compiled built-in variant (compiled once, then shared).
    pub fn builtin(id: VariantId) -> &'static Variant {
        static CELLS: [OnceLock<Variant>; VariantId::ALL.len()] =
            [const { OnceLock::new() }; VariantId::ALL.len()];
        CELLS[id.index()].get_or_init(|| {
            let spec = VariantSpec::parse(id.spec_text()).expect("built-in spec parses");
            let mut v = Variant::compile(&spec).expect("built-in spec compiles");
            v.id = Some(id);
            v
        })
    }

    /// A built-in variant by its name (`shinobiplus`, ...).
    pub fn by_name(name: &str) -> Result<&'static Variant, SpecError> {
        Ok(Variant::builtin(name.parse()?))
    }

    /// Reads, checks and compiles a spec file; the variant lives for the rest of the program.
    pub fn from_spec_file(path: &std::path::Path) -> Result<&'static Variant, SpecError> {
        Variant::from_spec_text(&read_spec(path)?)
    }

    /// Parses and compiles spec text (leaked: variants live as long as the program).
    pub fn from_spec_text(text: &str) -> Result<&'static Variant, SpecError> {
        let spec = VariantSpec::parse(text)?;
        let v: &'static Variant = Box::leak(Box::new(Variant::compile(&spec)?));
        let start = crate::Position::from_fen(v, &v.start_fen)
            .map_err(|e| SpecError::StartFen(e.to_string()))?;
        if let Some(o) = crate::Game::new(start.clone()).outcome() {
            return Err(SpecError::StartFen(format!(
                "the game is over before the first move ({}, {})",
                o.reason.name(),
                o.winner_name()
            )));
        }
        limits::check_start(v, &start)?;
        Ok(v)
    }

    /// [`Variant::from_spec_text`] for a variant the user defines: its name must not be a
    /// built-in variant's (a spec named `minishogi` would be taken for Minishogi by its
    /// evaluation parameters, its net and its data files).
    pub fn from_user_spec_text(text: &str) -> Result<&'static Variant, SpecError> {
        let spec = VariantSpec::parse(text)?;
        if VariantId::from_name(&spec.name).is_some() {
            return Err(SpecError::BuiltinName(spec.name));
        }
        Variant::from_spec_text(text)
    }

    /// [`Variant::from_spec_file`] for a variant the user defines (see
    /// [`Variant::from_user_spec_text`]); a Fairy-Stockfish `variants.ini` file too, when it
    /// defines one variant ([`Variant::from_user_file`]).
    pub fn from_user_spec_file(path: &std::path::Path) -> Result<&'static Variant, SpecError> {
        Variant::from_user_file(path, None)
    }

    /// The variant of a user variant file, kage TOML spec or Fairy-Stockfish `variants.ini`:
    /// for an `.ini` file, its section `name` (needed when it has several); a section named
    /// like a built-in variant and playing its game is the built-in (see [`read_user_variant`]).
    pub fn from_user_file(
        path: &std::path::Path,
        name: Option<&str>,
    ) -> Result<&'static Variant, SpecError> {
        Ok(read_user_variant(path, name)?.variant)
    }

    /// The variant a command means by `name` (`--variant`) given the user variant `user`
    /// (`--variant-file`), if any: without a name, the user variant, else `default`; with
    /// one, the user variant when it has that name, the built-in variant of that name when
    /// there is no user variant, and an error when the two name different variants.
    pub fn resolve(
        name: Option<&str>,
        user: Option<&'static Variant>,
        default: VariantId,
    ) -> Result<&'static Variant, SpecError> {
        match (name, user) {
            (None, Some(u)) => Ok(u),
            (None, None) => Ok(Variant::builtin(default)),
            (Some(n), None) => Variant::by_name(n),
            (Some(n), Some(u)) if n == u.name => Ok(u),
            (Some(n), Some(u)) => {
                Err(SpecError::NameConflict { asked: n.to_string(), spec: u.name.clone() })
            }
        }
    }
}

/// The text of a spec file, read at most [`MAX_SPEC_BYTES`] of it (the caller names the
/// file: `variant file <path>: ...`).
pub fn read_spec(path: &std::path::Path) -> Result<String, SpecError> {
    use std::io::Read;
    let io = |e: std::io::Error| SpecError::Io(e.to_string());
    let file = std::fs::File::open(path).map_err(io)?;
    let mut bytes = Vec::new();
    file.take(MAX_SPEC_BYTES + 1).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > MAX_SPEC_BYTES {
        return Err(SpecError::Io(format!(
            "larger than {MAX_SPEC_BYTES} bytes: not a variant spec"
        )));
    }
    String::from_utf8(bytes).map_err(|_| SpecError::Io("not UTF-8 text".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn side_names_from_the_spec() {
        let names = |id| Variant::builtin(id).side_names.clone();
        assert_eq!(names(VariantId::SHINOBI), ["Clan", "Kingdom"]);
        assert_eq!(names(VariantId::SHINOBIPLUS), ["Clan", "Kingdom"]);
        assert_eq!(names(VariantId::MINISHOGI), ["Sente", "Gote"]);
        assert_eq!(names(VariantId::GOROGOROPLUS), ["Sente", "Gote"]);
        let spec =
            VariantId::MINISHOGI.spec_text().replace("name = \"minishogi\"", "name = \"m2\"");
        let plain = spec.replace("sides = [\"Sente\", \"Gote\"]\n", "");
        assert_eq!(Variant::from_spec_text(&plain).unwrap().side_names, ["White", "Black"]);
        for bad in [r#"["A", "A"]"#, r#"["", "B"]"#, r#"["two words", "B"]"#] {
            let text = spec.replace(r#"["Sente", "Gote"]"#, bad);
            let e = Variant::from_spec_text(&text).unwrap_err();
            assert!(e.to_string().contains("sides"), "{bad}: {e}");
        }
    }
}
