//! Checkpoints: parameters, Adam state, step, epoch and metrics, checksummed and written
//! atomically (temporary file, then rename).

use crate::model::NetParams;
use crate::model::fsf::{FsfHead, STACK_SIZES};
use crate::training::optim::Moments;
use crate::training::train::{EpochMetrics, ParamMoments, Trainer};
use kage_engine::nnue::fsf::arch::BUCKETS;
use kage_engine::nnue::network::{MAX_FEATURES, MAX_FT_SIZE, MAX_HEAD_SIZE};
use kage_engine::util::bytes::{ByteError, ByteReader, SEALED_PREAMBLE as PREAMBLE, seal};
use kage_engine::util::hash::fnv1a64;
use std::io::Read;
use std::path::Path;
use thiserror::Error;

const MAGIC: [u8; 8] = *b"KAGECKPT";
const VERSION: u32 = 1;

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
        reason: CheckpointFormatError,
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
    /// The fsf architecture's PSQT and stacks with their moments (after the FT's tensors in
    /// the file; absent for the small net, whose checkpoints are unchanged).
    pub fsf: Option<(FsfHead, [Moments; 7])>,
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
            fsf: trainer.fsf.as_ref().map(|f| (f.head.clone(), f.moments.clone())),
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
    if let Some((head, moments)) = &state.fsf {
        for (w, mo) in head.tensors().into_iter().zip(moments) {
            put_f32s(&mut body, w);
            put_f32s(&mut body, &mo.m);
            put_f32s(&mut body, &mo.v);
        }
    }
    seal(&MAGIC, VERSION, &body)
}

/// Why checkpoint bytes do not decode.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum CheckpointFormatError {
    /// Too short or the wrong magic bytes.
    #[error("not a kage checkpoint (bad magic or too short)")]
    NotACheckpoint,
    /// Written by another format version.
    #[error("unsupported checkpoint version {found} (expected {VERSION})")]
    Version {
        /// The version in the file.
        found: u32,
    },
    /// The body length differs from the one the preamble declares.
    #[error("body is {found} bytes, header says {declared} (truncated?)")]
    BodyLength {
        /// Bytes after the preamble.
        found: u64,
        /// Bytes the preamble declares.
        declared: u64,
    },
    /// The body does not hash to the stored checksum.
    #[error("checksum mismatch (corrupt file)")]
    Checksum,
    /// A section is cut short or not UTF-8.
    #[error(transparent)]
    Bytes(#[from] ByteError),
    /// A length field is implausibly large.
    #[error("{section}: length {found} too large")]
    TooLarge {
        /// The section.
        section: &'static str,
        /// The stored length.
        found: u64,
    },
    /// A tensor holds another value count than its shape needs.
    #[error("{section}: tensor has {found} values, expected {expected}")]
    TensorSize {
        /// The section.
        section: &'static str,
        /// Values stored.
        found: usize,
        /// Values the shape needs.
        expected: usize,
    },
    /// The metrics history is not the JSON it should be.
    #[error("metrics history: {0}")]
    History(String),
    /// Bytes follow the last tensor.
    #[error("unexpected trailing bytes")]
    Trailing,
}

/// A stored length, at most `max`.
fn get_len(
    r: &mut ByteReader<'_>,
    max: usize,
    section: &'static str,
) -> Result<usize, CheckpointFormatError> {
    let found = r.u64(section)?;
    usize::try_from(found)
        .ok()
        .filter(|&n| n <= max)
        .ok_or(CheckpointFormatError::TooLarge { section, found })
}

fn get_str(r: &mut ByteReader<'_>, section: &'static str) -> Result<String, CheckpointFormatError> {
    let n = get_len(r, r.remaining(), section)?;
    Ok(r.utf8(n, section)?.to_owned())
}

fn get_f32s(
    r: &mut ByteReader<'_>,
    expected: usize,
    section: &'static str,
) -> Result<Vec<f32>, CheckpointFormatError> {
    let found = get_len(r, r.remaining() / 4, section)?;
    if found != expected {
        return Err(CheckpointFormatError::TensorSize { section, found, expected });
    }
    Ok(r.f32s(found, section)?)
}

fn get_tensor(
    r: &mut ByteReader<'_>,
    want: usize,
    section: &'static str,
) -> Result<(Vec<f32>, Moments), CheckpointFormatError> {
    let w = get_f32s(r, want, section)?;
    let m = get_f32s(r, want, section)?;
    let v = get_f32s(r, want, section)?;
    Ok((w, Moments { m, v }))
}

/// Parses a checkpoint.
pub fn decode(bytes: &[u8]) -> Result<CheckpointState, CheckpointFormatError> {
    if bytes.len() < PREAMBLE || bytes[..8] != MAGIC {
        return Err(CheckpointFormatError::NotACheckpoint);
    }
    let mut r = ByteReader::new(&bytes[8..PREAMBLE]);
    let version = r.u32("version")?;
    if version != VERSION {
        return Err(CheckpointFormatError::Version { found: version });
    }
    let declared = r.u64("body length")?;
    let checksum = r.u64("checksum")?;
    let body = &bytes[PREAMBLE..];
    if body.len() as u64 != declared {
        return Err(CheckpointFormatError::BodyLength { found: body.len() as u64, declared });
    }
    if fnv1a64(body) != checksum {
        return Err(CheckpointFormatError::Checksum);
    }
    let mut r = ByteReader::new(body);
    let epochs_done = r.u32("epochs")?;
    let step = r.u64("step")?;
    let num_features = get_len(&mut r, MAX_FEATURES as usize, "num_features")?;
    let ft_size = get_len(&mut r, MAX_FT_SIZE as usize, "ft_size")?;
    let head_size = get_len(&mut r, MAX_HEAD_SIZE as usize, "head_size")?;
    let config_toml = get_str(&mut r, "config")?;
    let history: Vec<EpochMetrics> = serde_json::from_str(&get_str(&mut r, "history")?)
        .map_err(|e| CheckpointFormatError::History(e.to_string()))?;
    let (ft_w, m_ft_w) = get_tensor(&mut r, num_features * ft_size, "ft_w")?;
    let (ft_b, m_ft_b) = get_tensor(&mut r, ft_size, "ft_b")?;
    let (l1_w, m_l1_w) = get_tensor(&mut r, 2 * ft_size * head_size, "l1_w")?;
    let (l1_b, m_l1_b) = get_tensor(&mut r, head_size, "l1_b")?;
    let (out_w, m_out_w) = get_tensor(&mut r, head_size, "out_w")?;
    let (out_b, m_out_b) = get_tensor(&mut r, 1, "out_b")?;
    let fsf = if r.remaining() != 0 && head_size == 0 {
        Some(get_fsf(&mut r, num_features)?)
    } else {
        None
    };
    if r.remaining() != 0 {
        return Err(CheckpointFormatError::Trailing);
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
        fsf,
    })
}

/// The fsf architecture's tensors: the PSQT of `rows` features and the 8 stacks.
fn get_fsf(
    r: &mut ByteReader<'_>,
    rows: usize,
) -> Result<(FsfHead, [Moments; 7]), CheckpointFormatError> {
    const NAMES: [&str; 7] =
        ["fsf psqt", "fsf l1_w", "fsf l1_b", "fsf l2_w", "fsf l2_b", "fsf out_w", "fsf out_b"];
    let mut t = Vec::with_capacity(7);
    for (i, name) in NAMES.iter().enumerate() {
        let n = if i == 0 { rows * BUCKETS } else { BUCKETS * STACK_SIZES[i - 1] };
        t.push(get_tensor(r, n, name)?);
    }
    let mut it = t.into_iter();
    let mut next = || it.next().unwrap_or_default();
    let (psqt, m0) = next();
    let (l1_w, m1) = next();
    let (l1_b, m2) = next();
    let (l2_w, m3) = next();
    let (l2_b, m4) = next();
    let (out_w, m5) = next();
    let (out_b, m6) = next();
    let head = FsfHead { psqt, l1_w, l1_b, l2_w, l2_b, out_w, out_b };
    Ok((head, [m0, m1, m2, m3, m4, m5, m6]))
}

/// Saves a checkpoint atomically.
pub fn save(path: &Path, state: &CheckpointState) -> Result<(), CheckpointError> {
    kage_data::atomic::write_atomic(path, &encode(state))
        .map_err(|cause| CheckpointError::Io { path: path.display().to_string(), cause })
}

/// The largest body a checkpoint of the largest network has: its tensors (weights and two
/// moments, 4 bytes each) and room for the configuration and the metrics.
const MAX_BODY: u64 = {
    let (f, h) = (MAX_FEATURES as u64, MAX_HEAD_SIZE as u64);
    let ft = MAX_FT_SIZE as u64;
    let fsf = f * BUCKETS as u64 + 8 * (1024 * 16 + 16 * 32 + 16 + 32 + 32 + 1);
    let values = f * ft + ft + 2 * ft * h + 2 * h + 1 + fsf;
    12 * values + (256 << 20)
};

/// Loads and validates a checkpoint. Reads the preamble first and then no more than the body
/// it declares, so a file that is not a checkpoint (`/dev/zero`, a wrong huge file) is
/// refused without being read whole.
pub fn load(path: &Path) -> Result<CheckpointState, CheckpointError> {
    let p = path.display().to_string();
    let io = |cause| CheckpointError::Io { path: p.clone(), cause };
    let invalid = |reason| CheckpointError::Invalid { path: p.clone(), reason };
    let mut file = std::fs::File::open(path).map_err(io)?;
    let mut bytes = Vec::new();
    (&mut file).take(PREAMBLE as u64).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() < PREAMBLE || bytes[..8] != MAGIC {
        return Err(invalid(CheckpointFormatError::NotACheckpoint));
    }
    let declared = u64::from_le_bytes(bytes[12..20].try_into().unwrap_or([0xff; 8]));
    if declared > MAX_BODY {
        return Err(invalid(CheckpointFormatError::TooLarge { section: "body", found: declared }));
    }
    file.take(declared + 1).read_to_end(&mut bytes).map_err(io)?;
    decode(&bytes).map_err(invalid)
}
