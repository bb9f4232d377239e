//! Checkpoints: parameters, Adam state, step, epoch and metrics, checksummed and written
//! atomically (temporary file, then rename).

use crate::model::NetParams;
use crate::optim::Moments;
use crate::train::{EpochMetrics, ParamMoments, Trainer};
use kage_engine::nnue::checksum::fnv1a64;
use std::path::Path;
use thiserror::Error;

const MAGIC: [u8; 8] = *b"KAGECKPT";
const VERSION: u32 = 1;
const PREAMBLE: usize = 28;

/// Why a checkpoint could not be read or written.
#[derive(Debug, Error)]
pub enum CheckpointError {
    /// I/O failure.
    #[error("checkpoint {path}: {cause}")]
    Io {
        /// File.
        path: String,
        /// Cause.
        cause: std::io::Error,
    },
    /// Not a checkpoint, wrong version, truncated or corrupt.
    #[error("checkpoint {path} is unusable: {reason}")]
    Invalid {
        /// File.
        path: String,
        /// Why.
        reason: String,
    },
}

/// Everything needed to continue a run exactly.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckpointState {
    /// Epochs completed.
    pub epochs_done: u32,
    /// Adam steps taken.
    pub step: u64,
    /// Resolved config TOML of the run.
    pub config_toml: String,
    /// Metrics so far.
    pub history: Vec<EpochMetrics>,
    /// Parameters.
    pub params: NetParams,
    /// Adam moments.
    pub moments: ParamMoments,
}

impl CheckpointState {
    /// Snapshot of a trainer.
    pub fn of(trainer: &Trainer, config_toml: &str) -> CheckpointState {
        CheckpointState {
            epochs_done: trainer.epochs_done,
            step: trainer.step,
            config_toml: config_toml.to_string(),
            history: trainer.history.clone(),
            params: trainer.params.clone(),
            moments: trainer.moments.clone(),
        }
    }
}

fn put_f32s(out: &mut Vec<u8>, v: &[f32]) {
    out.extend_from_slice(&(v.len() as u64).to_le_bytes());
    for x in v {
        out.extend_from_slice(&x.to_le_bytes());
    }
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as u64).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

/// Serialises a checkpoint.
pub fn encode(state: &CheckpointState) -> Vec<u8> {
    let p = &state.params;
    let m = &state.moments;
    let mut body = Vec::new();
    body.extend_from_slice(&state.epochs_done.to_le_bytes());
    body.extend_from_slice(&state.step.to_le_bytes());
    for d in [p.num_features, p.ft_size, p.head_size] {
        body.extend_from_slice(&(d as u64).to_le_bytes());
    }
    put_str(&mut body, &state.config_toml);
    put_str(&mut body, &serde_json::to_string(&state.history).unwrap_or_else(|_| "[]".into()));
    let tensors: [(&Vec<f32>, &Moments); 6] = [
        (&p.ft_w, &m.ft_w),
        (&p.ft_b, &m.ft_b),
        (&p.l1_w, &m.l1_w),
        (&p.l1_b, &m.l1_b),
        (&p.out_w, &m.out_w),
        (&p.out_b, &m.out_b),
    ];
    for (w, mo) in tensors {
        put_f32s(&mut body, w);
        put_f32s(&mut body, &mo.m);
        put_f32s(&mut body, &mo.v);
    }
    let mut out = Vec::with_capacity(PREAMBLE + body.len());
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&(body.len() as u64).to_le_bytes());
    out.extend_from_slice(&fnv1a64(&body).to_le_bytes());
    out.extend_from_slice(&body);
    out
}

struct Reader<'a> {
    b: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        if n > self.b.len() - self.pos {
            return Err(format!("truncated at byte {}", self.pos));
        }
        self.pos += n;
        Ok(&self.b[self.pos - n..self.pos])
    }
    fn u64(&mut self) -> Result<u64, String> {
        let mut a = [0u8; 8];
        a.copy_from_slice(self.take(8)?);
        Ok(u64::from_le_bytes(a))
    }
    fn u32(&mut self) -> Result<u32, String> {
        let mut a = [0u8; 4];
        a.copy_from_slice(self.take(4)?);
        Ok(u32::from_le_bytes(a))
    }
    fn len(&mut self, max: usize) -> Result<usize, String> {
        let n = self.u64()?;
        usize::try_from(n).ok().filter(|&n| n <= max).ok_or_else(|| format!("length {n} too large"))
    }
    fn str(&mut self) -> Result<String, String> {
        let n = self.len(self.b.len())?;
        String::from_utf8(self.take(n)?.to_vec()).map_err(|_| "invalid UTF-8".to_string())
    }
    fn f32s(&mut self, want: usize) -> Result<Vec<f32>, String> {
        let n = self.len(self.b.len() / 4)?;
        if n != want {
            return Err(format!("tensor has {n} values, expected {want}"));
        }
        let raw = self.take(n * 4)?;
        Ok(raw.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
    }
    fn tensor(&mut self, want: usize) -> Result<(Vec<f32>, Moments), String> {
        Ok((self.f32s(want)?, Moments { m: self.f32s(want)?, v: self.f32s(want)? }))
    }
}

/// Parses a checkpoint.
pub fn decode(bytes: &[u8]) -> Result<CheckpointState, String> {
    if bytes.len() < PREAMBLE || bytes[..8] != MAGIC {
        return Err("not a kage checkpoint (bad magic or too short)".into());
    }
    let mut r = Reader { b: bytes, pos: 8 };
    let version = r.u32()?;
    if version != VERSION {
        return Err(format!("unsupported checkpoint version {version} (expected {VERSION})"));
    }
    let body_len = r.u64()?;
    let checksum = r.u64()?;
    let body = &bytes[PREAMBLE..];
    if body.len() as u64 != body_len {
        return Err(format!("body is {} bytes, header says {body_len} (truncated?)", body.len()));
    }
    if fnv1a64(body) != checksum {
        return Err("checksum mismatch (corrupt file)".into());
    }
    let mut r = Reader { b: body, pos: 0 };
    let epochs_done = r.u32()?;
    let step = r.u64()?;
    let num_features = r.len(1 << 24)?;
    let ft_size = r.len(1 << 16)?;
    let head_size = r.len(1 << 16)?;
    let config_toml = r.str()?;
    let history: Vec<EpochMetrics> =
        serde_json::from_str(&r.str()?).map_err(|e| format!("metrics history: {e}"))?;
    let (ft_w, m_ft_w) = r.tensor(num_features * ft_size)?;
    let (ft_b, m_ft_b) = r.tensor(ft_size)?;
    let (l1_w, m_l1_w) = r.tensor(2 * ft_size * head_size)?;
    let (l1_b, m_l1_b) = r.tensor(head_size)?;
    let (out_w, m_out_w) = r.tensor(head_size)?;
    let (out_b, m_out_b) = r.tensor(1)?;
    if r.pos != body.len() {
        return Err("unexpected trailing bytes".into());
    }
    Ok(CheckpointState {
        epochs_done,
        step,
        config_toml,
        history,
        params: NetParams {
            num_features,
            ft_size,
            head_size,
            ft_w,
            ft_b,
            l1_w,
            l1_b,
            out_w,
            out_b,
        },
        moments: ParamMoments {
            ft_w: m_ft_w,
            ft_b: m_ft_b,
            l1_w: m_l1_w,
            l1_b: m_l1_b,
            out_w: m_out_w,
            out_b: m_out_b,
        },
    })
}

/// Writes `bytes` to `path` atomically: a temporary sibling is written, synced and renamed.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let tmp = path.with_extension(format!(
        "{}.tmp",
        path.extension().and_then(|e| e.to_str()).unwrap_or("part")
    ));
    {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
    }
    std::fs::rename(&tmp, path)
}

/// Saves a checkpoint atomically.
pub fn save(path: &Path, state: &CheckpointState) -> Result<(), CheckpointError> {
    write_atomic(path, &encode(state))
        .map_err(|cause| CheckpointError::Io { path: path.display().to_string(), cause })
}

/// Loads and validates a checkpoint.
pub fn load(path: &Path) -> Result<CheckpointState, CheckpointError> {
    let p = path.display().to_string();
    let bytes =
        std::fs::read(path).map_err(|cause| CheckpointError::Io { path: p.clone(), cause })?;
    decode(&bytes).map_err(|reason| CheckpointError::Invalid { path: p, reason })
}
