//! Training targets through the data's WDL model (`kage-train --score-wdl FILE`).
//!
//! A search score is a chance of winning only through the model of the evaluator that produced
//! it: the shipped small Shinobi net, for one, calls the start position +400 for White where its
//! own self-play is close to even (`engine/nets/shinobi.wdl.toml`, `offset`). Trained on
//! `sigmoid(score / scale)`, a new net learns that bias. With this option the score part of the
//! target is the model's expected score instead: for a record of ply `p` whose side to move is
//! `s`, `E(v - s * offset)` with the model of `p`'s ply bucket (the file's overall model where it
//! has no ply buckets), so the target is `lambda * E + (1 - lambda) * result`. Mate scores keep
//! `sigmoid(score / scale)` (0 or 1 to within rounding).
//!
//! The configuration carries the model's numbers, not only the file's name, so a run's TOML
//! says what its targets were and the run id changes with them.

use crate::data::sample::SampleMeta;
use kage_data::wdl::MATE_SCORE;
use kage_engine::eval::wdl::{WdlError, WdlFile, WdlModel};
use kage_engine::types::Color;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// One model's parameters (`engine::eval::wdl`: `a`, `b`, `offset` from White's side).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WdlParams {
    /// Where the win chance is one half (offset removed).
    pub a: f64,
    /// The spread.
    pub b: f64,
    /// The internal value, from White's side, at which the game is even.
    pub offset: f64,
}

/// A ply bucket's parameters: records from ply `from` up to the next bucket's `from`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlyBucket {
    /// The bucket's lowest ply.
    pub from: u16,
    /// Its model.
    #[serde(flatten)]
    pub params: WdlParams,
}

/// The `score_wdl` setting: a WDL file's models, as read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScoreWdlConfig {
    /// The file they were read from.
    pub file: String,
    /// The net whose scores it models (its run id), if the file names one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub net_run_id: Option<String>,
    /// The overall model.
    pub model: WdlParams,
    /// The ply buckets, lowest first (empty: the overall model for every ply).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ply_bucket: Vec<PlyBucket>,
}

/// A WDL file that cannot serve as `--score-wdl`.
#[derive(Debug, thiserror::Error)]
pub enum ScoreWdlError {
    /// The file cannot be read (the error names it).
    #[error("{0}")]
    Read(kage_engine::util::read::ReadError),
    /// Not a WDL file, or a parameter out of range.
    #[error("{path}: {cause}")]
    Wdl {
        /// The file.
        path: String,
        /// Why.
        cause: WdlError,
    },
    /// Fitted for another variant.
    #[error("{path} is a WDL model of {found}, not of {expected}")]
    Variant {
        /// The file.
        path: String,
        /// The training's variant.
        expected: String,
        /// The file's.
        found: String,
    },
}

fn params(m: &WdlModel) -> WdlParams {
    WdlParams { a: m.a(), b: m.b(), offset: m.offset() }
}

impl ScoreWdlConfig {
    /// Reads a WDL file (`kage-data fit-wdl`'s output) fitted for `variant`.
    pub fn read(path: &Path, variant: &str) -> Result<ScoreWdlConfig, ScoreWdlError> {
        let name = path.display().to_string();
        let text = kage_engine::util::read::read_text_capped(
            path,
            kage_engine::util::read::cap::TEXT,
            "WDL parameters",
        )
        .map_err(ScoreWdlError::Read)?;
        let file = WdlFile::parse(&text)
            .map_err(|cause| ScoreWdlError::Wdl { path: name.clone(), cause })?;
        if file.variant != variant {
            return Err(ScoreWdlError::Variant {
                path: name,
                expected: variant.to_string(),
                found: file.variant,
            });
        }
        let mut ply_bucket: Vec<PlyBucket> = file
            .buckets
            .iter()
            .filter(|b| b.by == "ply")
            .map(|b| PlyBucket {
                from: u16::try_from(b.from).unwrap_or(u16::MAX),
                params: params(&b.model),
            })
            .collect();
        ply_bucket.sort_by_key(|b| b.from);
        ply_bucket.dedup_by_key(|b| b.from);
        Ok(ScoreWdlConfig {
            file: name,
            net_run_id: file.net_run_id,
            model: params(&file.model),
            ply_bucket,
        })
    }

    /// The models, validated.
    pub fn models(&self) -> Result<ScoreWdl, WdlError> {
        let model = |p: &WdlParams| WdlModel::new(p.a, p.b, p.offset);
        let mut by_ply = Vec::with_capacity(self.ply_bucket.len());
        for b in &self.ply_bucket {
            if by_ply.last().is_some_and(|&(from, _)| from >= b.from) {
                return Err(WdlError::Syntax("ply buckets must rise".into()));
            }
            by_ply.push((b.from, model(&b.params)?));
        }
        Ok(ScoreWdl { overall: model(&self.model)?, by_ply })
    }
}

/// The models of a [`ScoreWdlConfig`], ready to map scores.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoreWdl {
    overall: WdlModel,
    by_ply: Vec<(u16, WdlModel)>,
}

impl ScoreWdl {
    /// The model of a record of ply `ply`: its ply bucket's (below the first bucket, and
    /// without buckets, the overall one).
    pub fn model(&self, ply: u16) -> &WdlModel {
        match self.by_ply.iter().rposition(|&(from, _)| from <= ply) {
            Some(i) => &self.by_ply[i].1,
            None => &self.overall,
        }
    }

    /// The expected score of the side to move for a sample; `None` for a mate score.
    pub fn expected(&self, meta: &SampleMeta) -> Option<f32> {
        let v = i32::from(meta.score_cp);
        if v.abs() >= MATE_SCORE {
            return None;
        }
        let stm = if meta.flags.black_to_move() { Color::Black } else { Color::White };
        let m = self.model(meta.ply);
        Some(m.expected(m.centred(v, stm)) as f32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::sample::SampleFlags;

    const FILE: &str = r#"
variant = "shinobi"
evaluator = "net"
net_run_id = "abc"
a = 10.0
b = 300.0
offset = 400.0

[[bucket]]
by = "ply"
from = 20
a = 5.0
b = 200.0
offset = 200.0

[[bucket]]
by = "ply"
from = 0
a = 5.0
b = 200.0
offset = 600.0

[[bucket]]
by = "material"
from = 10
a = 1.0
b = 1.0
offset = 0.0
"#;

    fn write(dir: &Path, text: &str) -> std::path::PathBuf {
        let p = dir.join("m.wdl.toml");
        std::fs::write(&p, text).expect("write");
        p
    }

    fn meta(score: i16, ply: u16, black: bool) -> SampleMeta {
        let flags = SampleFlags(if black { SampleFlags::BLACK_TO_MOVE } else { 0 });
        SampleMeta { score_cp: score, result: 0.5, ply, flags }
    }

    #[test]
    fn reads_ply_buckets_in_order_and_survives_toml() {
        let dir = tempfile::tempdir().expect("dir");
        let cfg = ScoreWdlConfig::read(&write(dir.path(), FILE), "shinobi").expect("read");
        assert_eq!(cfg.net_run_id.as_deref(), Some("abc"));
        let froms: Vec<u16> = cfg.ply_bucket.iter().map(|b| b.from).collect();
        assert_eq!(froms, [0, 20]);
        let text = toml::to_string(&cfg).expect("toml");
        let back: ScoreWdlConfig = toml::from_str(&text).expect("parse");
        assert_eq!(back, cfg);
    }

    #[test]
    fn the_even_point_of_each_bucket_maps_to_one_half_from_either_side() {
        let dir = tempfile::tempdir().expect("dir");
        let cfg = ScoreWdlConfig::read(&write(dir.path(), FILE), "shinobi").expect("read");
        let w = cfg.models().expect("models");
        // Ply 5 (bucket 0, offset 600): White to move at +600 and Black at -600 are even.
        assert!((w.expected(&meta(600, 5, false)).expect("e") - 0.5).abs() < 1e-6);
        assert!((w.expected(&meta(-600, 5, true)).expect("e") - 0.5).abs() < 1e-6);
        // Ply 30 (bucket 20, offset 200).
        assert!((w.expected(&meta(200, 30, false)).expect("e") - 0.5).abs() < 1e-6);
        // Plain sigmoid targets would call White's +600 a near-certain win.
        assert!(w.expected(&meta(900, 5, false)).expect("e") > 0.5);
        assert!(w.expected(&meta(300, 5, false)).expect("e") < 0.5);
        assert_eq!(w.expected(&meta(i16::MAX, 5, false)), None);
    }

    #[test]
    fn without_buckets_the_overall_model_serves_every_ply() {
        let dir = tempfile::tempdir().expect("dir");
        let text = FILE.split("[[bucket]]").next().expect("head");
        let w = ScoreWdlConfig::read(&write(dir.path(), text), "shinobi")
            .expect("read")
            .models()
            .expect("models");
        assert!((w.expected(&meta(400, 200, false)).expect("e") - 0.5).abs() < 1e-6);
    }

    #[test]
    fn another_variants_file_is_refused() {
        let dir = tempfile::tempdir().expect("dir");
        let err = ScoreWdlConfig::read(&write(dir.path(), FILE), "minishogi").unwrap_err();
        assert!(err.to_string().contains("not of minishogi"), "{err}");
    }
}
