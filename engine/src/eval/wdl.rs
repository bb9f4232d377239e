//! The score scale of an evaluator: a win/draw/loss model fitted from self-play
//! (`kage-data fit-wdl`), Stockfish's, with an offset for an evaluator that favours one side.
//!
//! With `x = v - s * offset` (`v` the internal value from the side to move, `s` +1 when White
//! is to move, -1 otherwise):
//!
//! ```text
//! P(win)  = 1 / (1 + exp((a - x) / b))
//! P(loss) = 1 / (1 + exp((a + x) / b))
//! P(draw) = 1 - P(win) - P(loss)
//! ```
//!
//! UCI's normalised score is `cp = 100 * x / unit`, where `unit` is the `x` at which the
//! expected score (win + draw / 2) is 0.75. Where draws are common (`a` several times `b`, as in
//! chess) that is `a` to within a fraction of a percent: +100 cp is a 50% chance of a win,
//! Stockfish's normalisation. It stays defined where draws are rare (Minishogi has none, and
//! then `a` tends to 0): +100 cp means a score of 0.75 in every variant.
//!
//! The fitted files: `engine/nets/<variant>.wdl.toml` for each shipped net (keyed by the net's
//! run id: a replaced net without a new fit gets none) and `engine/variants/<variant>/hce.wdl.toml`
//! for the hand-crafted evaluation with its built-in parameters.

use crate::search::MATE_BOUND;
use crate::types::Color;
use serde::Deserialize;
use std::sync::OnceLock;

/// Largest accepted magnitude of `a`, `b` and `offset` (internal units).
pub const MAX_WDL_PARAM: f64 = 100_000.0;

/// A WDL parameter file that cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WdlError {
    /// Not TOML of the expected shape.
    #[error("WDL parameters: {0}")]
    Syntax(String),
    /// A parameter outside its range.
    #[error("WDL parameter {name} = {value} is out of range ({range})")]
    OutOfRange {
        /// `a`, `b` or `offset`.
        name: &'static str,
        /// What was given.
        value: f64,
        /// The accepted range.
        range: &'static str,
    },
}

/// A validated WDL model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WdlModel {
    a: f64,
    b: f64,
    offset: f64,
    unit: f64,
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

impl WdlModel {
    /// A model from its parameters: `a` in `0..=MAX`, `b` in `(0, MAX]`, `|offset| <= MAX`.
    pub fn new(a: f64, b: f64, offset: f64) -> Result<WdlModel, WdlError> {
        let check = |name, value: f64, ok: bool, range| {
            if ok && value.is_finite() {
                Ok(())
            } else {
                Err(WdlError::OutOfRange { name, value, range })
            }
        };
        check("a", a, (0.0..=MAX_WDL_PARAM).contains(&a), "0..=100000")?;
        check("b", b, b > 0.0 && b <= MAX_WDL_PARAM, "above 0, at most 100000")?;
        check("offset", offset, offset.abs() <= MAX_WDL_PARAM, "-100000..=100000")?;
        let mut m = WdlModel { a, b, offset, unit: 1.0 };
        m.unit = m.solve_unit();
        Ok(m)
    }

    /// `a`: where the win chance is one half (offset removed).
    pub fn a(&self) -> f64 {
        self.a
    }
    /// `b`: the spread.
    pub fn b(&self) -> f64 {
        self.b
    }
    /// `offset`: the internal value, from White's side, at which the game is even.
    pub fn offset(&self) -> f64 {
        self.offset
    }
    /// The internal value (offset removed) that UCI shows as 100 cp.
    pub fn unit(&self) -> f64 {
        self.unit
    }

    /// `(win, draw, loss)` probabilities at `x` (offset removed).
    pub fn probabilities(&self, x: f64) -> (f64, f64, f64) {
        let w = sigmoid((x - self.a) / self.b);
        let l = sigmoid((-x - self.a) / self.b);
        (w, (1.0 - w - l).max(0.0), l)
    }

    /// The expected score at `x` (offset removed).
    pub fn expected(&self, x: f64) -> f64 {
        let (w, d, _) = self.probabilities(x);
        w + d / 2.0
    }

    /// The `x` where the expected score is 0.75 (it rises with `x`: bisection).
    fn solve_unit(&self) -> f64 {
        let (mut lo, mut hi) = (0.0, self.a + 50.0 * self.b);
        for _ in 0..200 {
            let mid = (lo + hi) / 2.0;
            if self.expected(mid) < 0.75 { lo = mid } else { hi = mid }
        }
        ((lo + hi) / 2.0).max(1e-6)
    }

    /// The internal value `v` (side to move `stm`) with the offset removed.
    pub fn centred(&self, v: i32, stm: Color) -> f64 {
        let s = if stm == Color::White { 1.0 } else { -1.0 };
        f64::from(v) - s * self.offset
    }

    /// The normalised centipawns of internal value `v` (side to move `stm`); mate scores are
    /// returned as they are, and other scores stay below them.
    pub fn to_cp(&self, v: i32, stm: Color) -> i32 {
        if v.abs() >= MATE_BOUND {
            return v;
        }
        let cp = (100.0 * self.centred(v, stm) / self.unit).round();
        cp.clamp(f64::from(1 - MATE_BOUND), f64::from(MATE_BOUND - 1)) as i32
    }

    /// The internal value that shows as `cp` normalised centipawns (side to move `stm`): what
    /// an adjudication threshold given in normalised centipawns is in the search's unit.
    pub fn from_cp(&self, cp: i32, stm: Color) -> i32 {
        let s = if stm == Color::White { 1.0 } else { -1.0 };
        (f64::from(cp) * self.unit / 100.0 + s * self.offset).round() as i32
    }

    /// Win, draw and loss per mille for the side to move (summing to 1000); a mate is a
    /// certain win or loss.
    pub fn wdl(&self, v: i32, stm: Color) -> [u32; 3] {
        if v >= MATE_BOUND {
            return [1000, 0, 0];
        }
        if v <= -MATE_BOUND {
            return [0, 0, 1000];
        }
        let (w, _, l) = self.probabilities(self.centred(v, stm));
        let w = (1000.0 * w).round() as u32;
        let l = ((1000.0 * l).round() as u32).min(1000 - w);
        [w, 1000 - w - l, l]
    }
}

/// A WDL parameter file (`kage-data fit-wdl` writes it; keys not read here, such as the
/// data's identity, are ignored).
#[derive(Clone, Debug, PartialEq)]
pub struct WdlFile {
    /// The variant it was fitted for.
    pub variant: String,
    /// `hce`, `net` (kage's format) or `fsf-net` (Fairy-Stockfish's).
    pub evaluator: String,
    /// For a kage-format net: the run id in its header.
    pub net_run_id: Option<String>,
    /// For an FSF-format net: its name by content (`<variant>-<12 hex digits>.nnue`).
    pub net_file: Option<String>,
    /// The model.
    pub model: WdlModel,
    /// The per-bucket fits (`[[bucket]]`, in file order; the engine uses only
    /// `model`, the trainer's `--score-wdl` the ply buckets).
    pub buckets: Vec<WdlBucket>,
}

/// One bucket's fit in a WDL parameter file.
#[derive(Clone, Debug, PartialEq)]
pub struct WdlBucket {
    /// What the positions are grouped by: `ply` or `material`.
    pub by: String,
    /// The bucket's lowest ply or piece count.
    pub from: u32,
    /// The bucket's model.
    pub model: WdlModel,
}

#[derive(Deserialize)]
struct RawBucket {
    by: String,
    from: u32,
    a: f64,
    b: f64,
    #[serde(default)]
    offset: f64,
}

#[derive(Deserialize)]
struct RawFile {
    variant: String,
    evaluator: String,
    #[serde(default)]
    net_run_id: Option<String>,
    #[serde(default)]
    net_file: Option<String>,
    a: f64,
    b: f64,
    #[serde(default)]
    offset: f64,
    #[serde(default)]
    bucket: Vec<RawBucket>,
}

impl WdlFile {
    /// Parses a file's text.
    pub fn parse(text: &str) -> Result<WdlFile, WdlError> {
        let raw: RawFile = toml::from_str(text)
            .map_err(|e| WdlError::Syntax(e.to_string().trim().replace('\n', " ")))?;
        Ok(WdlFile {
            variant: raw.variant,
            evaluator: raw.evaluator,
            net_run_id: raw.net_run_id,
            net_file: raw.net_file,
            model: WdlModel::new(raw.a, raw.b, raw.offset)?,
            buckets: raw
                .bucket
                .into_iter()
                .map(|b| {
                    Ok(WdlBucket {
                        by: b.by,
                        from: b.from,
                        model: WdlModel::new(b.a, b.b, b.offset)?,
                    })
                })
                .collect::<Result<_, WdlError>>()?,
        })
    }
}

/// The built-in files (`engine/variants/<name>/hce.wdl.toml`, `engine/nets/<name>.wdl.toml`),
/// parsed once (a broken one is caught by a test): (the HCE's, the shipped net's).
fn parsed() -> &'static [(WdlFile, Option<WdlFile>)] {
    static FILES: OnceLock<Vec<(WdlFile, Option<WdlFile>)>> = OnceLock::new();
    FILES.get_or_init(|| {
        crate::VariantId::ALL
            .iter()
            .map(|id| {
                let f = id.folder();
                let parse = |t| {
                    WdlFile::parse(t)
                        .unwrap_or_else(|e| panic!("built-in {} WDL file: {e}", f.name))
                };
                // One from KAGE_NETS_DIR (engine/build.rs) that does not parse is no model:
                // scores in raw units, as kage says at the first search.
                let net = match f.net_wdl {
                    Some(t) if f.net_local => WdlFile::parse(t).ok(),
                    t => t.map(parse),
                };
                (parse(f.hce_wdl), net)
            })
            .collect()
    })
}

/// The hand-crafted evaluation's model for a built-in variant's name.
pub fn hce_model(variant: &str) -> Option<&'static WdlModel> {
    parsed().iter().find(|(h, _)| h.variant == variant).map(|(h, _)| &h.model)
}

/// The model fitted for the net of `variant` with run id `run_id` (the shipped one).
pub fn net_model(variant: &str, run_id: &str) -> Option<&'static WdlModel> {
    shipped_net_model(variant, |n| n.net_run_id.as_deref() == Some(run_id))
}

/// The model fitted for the FSF-format net of `variant` named `file_name` by content (the
/// shipped one).
pub fn fsf_net_model(variant: &str, file_name: &str) -> Option<&'static WdlModel> {
    shipped_net_model(variant, |n| n.net_file.as_deref() == Some(file_name))
}

/// The model of `variant`'s shipped net, when `names_it` says its file names the net asked for.
fn shipped_net_model(
    variant: &str,
    names_it: impl Fn(&WdlFile) -> bool,
) -> Option<&'static WdlModel> {
    parsed()
        .iter()
        .filter_map(|(_, n)| n.as_ref())
        .find(|n| n.variant == variant && names_it(n))
        .map(|n| &n.model)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_files_parse_and_match_their_variant() {
        for ((h, n), id) in parsed().iter().zip(crate::VariantId::ALL) {
            let name = id.name();
            assert_eq!((h.variant.as_str(), h.evaluator.as_str()), (name, "hce"));
            if let Some(n) = n {
                assert_eq!(n.variant, name);
                match n.evaluator.as_str() {
                    "net" => assert!(n.net_run_id.is_some(), "{name}"),
                    "fsf-net" => assert!(n.net_file.is_some(), "{name}"),
                    other => panic!("{name}: evaluator {other}"),
                }
                // The file is fitted for the net shipped beside it.
                let v = crate::variant::Variant::builtin(id);
                let named = match (crate::nnue::shipped_net(v), crate::nnue::shipped_fsf_net(v)) {
                    (Some(net), _) => n.net_run_id.as_deref() == Some(&net.header().run_id),
                    (_, Some(net)) => n.net_file.as_deref() == net.file_name(),
                    _ => false,
                };
                assert!(named, "{name}: the WDL file names another net than the shipped one");
            }
        }
    }

    #[test]
    fn unit_is_a_where_draws_are_common_and_defined_without_draws() {
        let m = WdlModel::new(300.0, 60.0, 0.0).expect("model");
        assert!((m.unit() - 300.0).abs() < 0.01 * 300.0, "{}", m.unit());
        assert_eq!(m.to_cp(300, Color::White), 100);
        let m = WdlModel::new(0.0, 100.0, 0.0).expect("model");
        assert!((m.unit() - 100.0 * 3f64.ln()).abs() < 0.01, "{}", m.unit());
        assert!((m.expected(m.unit()) - 0.75).abs() < 1e-6);
    }

    #[test]
    fn offset_is_from_whites_side_and_from_cp_inverts_to_cp() {
        let m = WdlModel::new(100.0, 50.0, 40.0).expect("model");
        assert_eq!(m.to_cp(40, Color::White), 0);
        assert_eq!(m.to_cp(-40, Color::Black), 0);
        for cp in [-500, -100, 0, 100, 1500] {
            for c in [Color::White, Color::Black] {
                assert!((m.to_cp(m.from_cp(cp, c), c) - cp).abs() <= 1, "{cp}");
            }
        }
    }

    #[test]
    fn wdl_sums_to_1000_is_monotone_and_mates_are_certain() {
        let m = WdlModel::new(150.0, 70.0, -20.0).expect("model");
        let mut last = [0, 0, 1000];
        for v in (-2000..=2000).step_by(10) {
            let w = m.wdl(v, Color::Black);
            assert_eq!(w.iter().sum::<u32>(), 1000);
            assert!(w[0] >= last[0] && w[2] <= last[2], "{v}");
            last = w;
        }
        assert_eq!(m.wdl(MATE_BOUND + 5, Color::White), [1000, 0, 0]);
        assert_eq!(m.to_cp(-MATE_BOUND - 5, Color::White), -MATE_BOUND - 5);
    }

    #[test]
    fn bad_parameters_are_refused_in_one_line() {
        assert!(matches!(WdlModel::new(1.0, 0.0, 0.0), Err(WdlError::OutOfRange { .. })));
        assert!(WdlModel::new(f64::NAN, 1.0, 0.0).is_err());
        let e = WdlFile::parse("variant = \"x\"\nevaluator = \"hce\"\na = -3\nb = 1\n");
        assert!(e.expect_err("negative a").to_string().contains("a = -3"));
        let e = WdlFile::parse("a = [").expect_err("syntax").to_string();
        assert!(!e.contains('\n'), "{e}");
    }
}
