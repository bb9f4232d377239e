//! `setoption`: UCI_Variant, Hash, MultiPV, Use NNUE, EvalFile and UCI_ShowWDL.
//!
//! The evaluation: with `Use NNUE` true (the default), the network of `EvalFile`, or with an
//! empty `EvalFile` the variant's default (its shipped network where it has one, else the
//! hand-crafted evaluation); with `Use NNUE` false, the hand-crafted evaluation.
//! `EvalFile` and `UCI_Variant` may come in either order: a network is loaded and checked
//! when it is set, and whether it fits the variant is decided (and said, on `isready` or
//! `go`) once both are known. A network that does not fit leaves the hand-crafted evaluation
//! in use.

use super::Uci;
use crate::eval::Evaluator;
use crate::game::Game;
use crate::nnue::NetError;
use crate::nnue::Network;
use crate::nnue::fsf::{FsfLayout, FsfNetwork, guess_variant, is_fsf_net};
use crate::variant::Variant;
use std::io::Write;
use std::sync::Arc;

/// Default transposition table size (MB).
pub const DEFAULT_HASH_MB: usize = 16;
/// Largest accepted `Hash` value (MB); a machine that cannot give it gets what it has.
pub const MAX_HASH_MB: usize = 65536;
/// Largest accepted `MultiPV`.
pub const MAX_MULTIPV: usize = 500;

/// A network loaded by `EvalFile`, with the path it came from: kage's format or
/// Fairy-Stockfish's (told apart by the file's first word).
pub(super) struct LoadedNet {
    pub path: String,
    pub net: LoadedKind,
}

/// The two net formats `EvalFile` takes.
pub(super) enum LoadedKind {
    Kage(Arc<Network>),
    Fsf(Arc<FsfNetwork>),
}

impl LoadedKind {
    fn evaluator(&self) -> Evaluator {
        match self {
            LoadedKind::Kage(n) => Evaluator::Nnue(Arc::clone(n)),
            LoadedKind::Fsf(n) => Evaluator::Fsf(Arc::clone(n)),
        }
    }
}

/// An `EvalFile` that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum EvalFileError {
    /// The file could not be read.
    #[error("cannot read '{path}': {cause}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        cause: String,
    },
    /// The file is not a usable network.
    #[error("'{path}': {cause}")]
    Invalid {
        /// The file.
        path: String,
        /// What is wrong with it.
        cause: NetError,
    },
}

/// Reads and checks a network file (any variant: whether it fits is decided later).
pub fn load_net(path: &str) -> Result<Network, EvalFileError> {
    let invalid = |cause| EvalFileError::Invalid { path: path.to_string(), cause };
    let bytes = crate::nnue::read_file(std::path::Path::new(path)).map_err(|e| match e {
        NetError::Io(cause) => EvalFileError::Read { path: path.to_string(), cause },
        e => invalid(e),
    })?;
    Network::load(&bytes).map_err(invalid)
}

/// Reads an `EvalFile` for `variant`: a kage net (any variant: whether it fits is decided
/// later) or a Fairy-Stockfish net, parsed for `variant` when its size fits it, else for the
/// built-in variant its size fits (refused with the size error when none does).
fn load_eval_file(path: &str, variant: &'static Variant) -> Result<LoadedKind, EvalFileError> {
    let invalid = |cause| EvalFileError::Invalid { path: path.to_string(), cause };
    let bytes = crate::nnue::read_file(std::path::Path::new(path)).map_err(|e| match e {
        NetError::Io(cause) => EvalFileError::Read { path: path.to_string(), cause },
        e => invalid(e),
    })?;
    if !is_fsf_net(&bytes) {
        return Network::load(&bytes).map(|n| LoadedKind::Kage(Arc::new(n))).map_err(invalid);
    }
    let fits = FsfLayout::for_variant(variant).is_ok_and(|l| {
        bytes.len() >= 12
            && l.file_size(u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize)
                == bytes.len()
    });
    let target = match guess_variant(&bytes) {
        Ok(Some(id)) if !fits => Variant::builtin(id),
        _ => variant,
    };
    let net = FsfNetwork::load(&bytes, target).map_err(|e| invalid(e.into()))?;
    Ok(LoadedKind::Fsf(Arc::new(net)))
}

/// Whether a loaded net fits `variant`.
fn loaded_fits(net: &LoadedKind, variant: &Variant) -> Result<(), NetError> {
    match net {
        LoadedKind::Kage(n) => net_fits(n, variant),
        LoadedKind::Fsf(n) if n.fits(variant) => Ok(()),
        LoadedKind::Fsf(n) => Err(NetError::WrongVariant {
            expected: variant.name.clone(),
            found: n.layout().variant_name().to_string(),
        }),
    }
}

/// Whether `net` fits `variant` (its name and feature set).
pub(super) fn net_fits(net: &Network, variant: &Variant) -> Result<(), NetError> {
    net.check_compatible(
        &variant.name,
        crate::nnue::features::FEATURE_SET_ID,
        crate::nnue::features::num_features(variant),
    )
}

impl Uci {
    pub(super) fn setoption(&mut self, args: &[&str], out: &mut dyn Write) -> std::io::Result<()> {
        // setoption name <id> [value <x>]
        let joined = args.join(" ");
        let Some(rest) = joined.strip_prefix("name ") else {
            return writeln!(out, "info string error malformed setoption");
        };
        let (name, value) = match rest.split_once(" value ") {
            Some((n, v)) => (n.trim(), v.trim()),
            None => (rest.trim().strip_suffix(" value").unwrap_or(rest.trim()), ""),
        };
        if name.eq_ignore_ascii_case("UCI_Variant") {
            let chosen = match self.custom.iter().find(|c| c.name == value) {
                Some(&c) => Some(c),
                None => Variant::by_name(value).ok(),
            };
            match chosen {
                Some(v) => {
                    self.variant = v;
                    self.game = None;
                    self.position_error = None;
                    self.eval_fit_said = false;
                    self.scale_said = false;
                }
                None => writeln!(out, "info string error unknown variant '{value}'")?,
            }
        } else if name.eq_ignore_ascii_case("Hash") {
            match value.parse::<usize>() {
                Ok(mb) if (1..=MAX_HASH_MB).contains(&mb) => {
                    let got = self.worker.set_hash(mb);
                    if got < mb {
                        writeln!(
                            out,
                            "info string error Hash {mb} MB is more than this machine can give: \
                             using {got} MB"
                        )?;
                    }
                }
                _ => writeln!(out, "info string error Hash must be 1..={MAX_HASH_MB} (MB)")?,
            }
        } else if name.eq_ignore_ascii_case("MultiPV") {
            match value.parse::<usize>() {
                Ok(k) if (1..=MAX_MULTIPV).contains(&k) => self.multipv = k,
                _ => writeln!(out, "info string error MultiPV must be 1..={MAX_MULTIPV}")?,
            }
        } else if name.eq_ignore_ascii_case("EvalFile") {
            self.eval_file(value, out)?;
        } else if name.eq_ignore_ascii_case("UCI_ShowWDL") {
            match value.to_ascii_lowercase().as_str() {
                "true" => self.worker.set_show_wdl(true),
                "false" => self.worker.set_show_wdl(false),
                _ => writeln!(out, "info string error UCI_ShowWDL must be true or false")?,
            }
        } else if name.eq_ignore_ascii_case("Use NNUE") {
            match value.to_ascii_lowercase().as_str() {
                "true" => self.use_nnue = true,
                "false" => self.use_nnue = false,
                _ => return writeln!(out, "info string error Use NNUE must be true or false"),
            }
            self.apply_evaluator();
            writeln!(
                out,
                "info string evaluation: {}",
                self.evaluator().describe_for(self.variant)
            )?;
        } else {
            writeln!(out, "info string error unknown option '{name}'")?;
        }
        Ok(())
    }

    fn eval_file(&mut self, value: &str, out: &mut dyn Write) -> std::io::Result<()> {
        if value.is_empty() || value == "<empty>" {
            self.net = None;
            self.eval_fit_said = false;
            self.apply_evaluator();
            return writeln!(out, "info string evaluation: the variant's default");
        }
        match load_eval_file(value, self.variant) {
            Ok(net) => {
                writeln!(out, "info string evaluation: {}", net.evaluator().describe())?;
                self.net = Some(LoadedNet { path: value.to_string(), net });
                self.eval_fit_said = false;
                self.apply_evaluator();
            }
            // The evaluation in use stays as it was.
            Err(e) => writeln!(out, "info string error EvalFile: {e}")?,
        }
        Ok(())
    }

    /// The evaluation the options select.
    pub(super) fn evaluator(&self) -> Evaluator {
        match (&self.net, self.use_nnue) {
            (_, false) => Evaluator::HandCrafted,
            (Some(n), true) => n.net.evaluator(),
            (None, true) => Evaluator::Default,
        }
    }

    /// Gives the searcher the evaluation the options select.
    pub(super) fn apply_evaluator(&mut self) {
        let ev = self.evaluator();
        self.worker.set_evaluator(ev);
        self.scale_said = false;
    }

    /// Says once per evaluation and variant, before a search, when its scores are in the
    /// evaluation's raw units: no WDL model was fitted for it (an FSF-format net, a user net).
    pub(super) fn report_scale(&mut self, game: &Game, out: &mut dyn Write) -> std::io::Result<()> {
        if self.scale_said {
            return Ok(());
        }
        self.scale_said = true;
        if self.worker.score_view(game).model.is_none() {
            writeln!(
                out,
                "info string score cp is in the raw units of {}: it has no fitted WDL model, \
                 so cp is not normalised and UCI_ShowWDL shows nothing",
                self.evaluator().describe_for(game.variant())
            )?;
        }
        Ok(())
    }

    /// Says once (on `isready` or `go`) that the loaded network does not fit the variant
    /// now set, and that the hand-crafted evaluation is used instead.
    pub(super) fn report_eval_fit(&mut self, out: &mut dyn Write) -> std::io::Result<()> {
        if self.eval_fit_said {
            return Ok(());
        }
        self.eval_fit_said = true;
        if let Some(n) = &self.net
            && self.use_nnue
            && let Err(e) = loaded_fits(&n.net, self.variant)
        {
            writeln!(
                out,
                "info string error EvalFile '{}' does not fit variant {}: {e}; \
                 using the hand-crafted evaluation",
                n.path, self.variant.name
            )?;
        }
        Ok(())
    }
}
