//! `kage-data export`: positions as text, games as PGN.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use kage_data::{FileHeader, GameRecord, PositionRecord, RecordKind, StmResult};
use kage_engine::{Color, Move, Position, Variant};

use crate::Perspective;
use crate::common::{check_damage, check_output, open, variant_of};

/// An output file written under a temporary name, or standard output.
struct Output {
    w: Box<dyn Write>,
    rename: Option<(PathBuf, PathBuf)>,
}

impl Output {
    fn create(path: &Path) -> Result<Self> {
        if path.as_os_str() == "-" {
            return Ok(Output {
                w: Box::new(BufWriter::new(std::io::stdout().lock())),
                rename: None,
            });
        }
        let tmp = kage_data::tmp_path(path);
        let f = File::create(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
        Ok(Output {
            w: Box::new(BufWriter::with_capacity(1 << 20, f)),
            rename: Some((tmp, path.to_path_buf())),
        })
    }

    fn finish(mut self) -> Result<()> {
        self.w.flush().context("writing output")?;
        // Close the file before renaming it.
        self.w = Box::new(std::io::sink());
        if let Some((tmp, path)) = self.rename.take() {
            let res = kage_data::atomic::persist(&tmp, &path)
                .with_context(|| format!("renaming to {}", path.display()));
            if res.is_err() {
                let _ = std::fs::remove_file(&tmp);
            }
            res?;
        }
        Ok(())
    }
}

impl Drop for Output {
    /// An output that was not finished (an error on the way) leaves no temporary file.
    fn drop(&mut self) {
        if let Some((tmp, _)) = self.rename.take() {
            self.w = Box::new(std::io::sink());
            let _ = std::fs::remove_file(tmp);
        }
    }
}

fn result_text(o: StmResult) -> &'static str {
    match o {
        StmResult::Win => "1.0",
        StmResult::Draw => "0.5",
        StmResult::Loss => "0.0",
    }
}

/// `FEN | score | result`, one line per position. Score in centipawns and
/// result (1.0 win, 0.5 draw, 0.0 loss) from White's point of view by
/// default (as bullet's text format), or from the side to move.
pub fn text(
    out: &Path,
    files: &[PathBuf],
    perspective: Perspective,
    allow_damaged: bool,
) -> Result<ExitCode> {
    check_output(out, files)?;
    let mut o = Output::create(out)?;
    let mut lines = 0u64;
    for f in files {
        let h = FileHeader::read_file(f)?;
        let v = variant_of(&h)?;
        match h.kind() {
            RecordKind::Position => {
                let mut r = open::<PositionRecord>(f)?;
                while let Some(chunk) = r.next_chunk()? {
                    for rec in &chunk {
                        let fen = rec
                            .pos
                            .to_fen(v)
                            .with_context(|| format!("{}: record {lines}", f.display()))?;
                        let (score, result) = match perspective {
                            Perspective::White => (rec.white_score(), rec.white_result()),
                            Perspective::Stm => (rec.score, rec.result),
                        };
                        writeln!(o.w, "{fen} | {score} | {}", result_text(result))?;
                        lines += 1;
                    }
                }
                check_damage(&r, allow_damaged)?;
            }
            RecordKind::Game => {
                let mut r = open::<GameRecord>(f)?;
                while let Some(chunk) = r.next_chunk()? {
                    for g in &chunk {
                        lines += game_lines(&mut o.w, v, g, perspective)
                            .with_context(|| format!("{}: game {}", f.display(), g.game_index))?;
                    }
                }
                check_damage(&r, allow_damaged)?;
            }
        }
    }
    o.finish()?;
    if out.as_os_str() != "-" {
        eprintln!("kage-data: wrote {lines} lines to {}", out.display());
    }
    Ok(ExitCode::SUCCESS)
}

fn game_lines(
    w: &mut dyn Write,
    v: &'static Variant,
    g: &GameRecord,
    p: Perspective,
) -> Result<u64> {
    if g.scores.len() != g.moves.len() {
        bail!(
            "has {} scores for {} moves; text export needs a score per position",
            g.scores.len(),
            g.moves.len()
        );
    }
    let mut pos = Position::from_fen(v, &g.start_fen)
        .with_context(|| format!("start FEN {:?}", g.start_fen))?;
    let white = match g.result.white_score() {
        1 => StmResult::Win,
        -1 => StmResult::Loss,
        _ => StmResult::Draw,
    };
    for (ply, (&m, &score)) in g.moves.iter().zip(&g.scores).enumerate() {
        let stm_white = pos.side_to_move() == Color::White;
        let (score, result) = match p {
            Perspective::White if stm_white => (score, white),
            Perspective::White => (score.saturating_neg(), white),
            Perspective::Stm if stm_white => (score, white),
            Perspective::Stm => (score, white.flip()),
        };
        writeln!(w, "{} | {score} | {}", pos.to_fen(), result_text(result))?;
        let m = Move(m);
        if !pos.legal_moves().contains(m) {
            bail!("move {ply} ({:#06x}) is illegal in {}", m.0, pos.to_fen());
        }
        pos.play(m);
    }
    Ok(g.moves.len() as u64)
}

/// Games as PGN: Variant, FEN and SetUp tags, moves in FSF's UCI notation.
pub fn pgn(out: &Path, files: &[PathBuf], scores: bool, allow_damaged: bool) -> Result<ExitCode> {
    check_output(out, files)?;
    let mut o = Output::create(out)?;
    let mut games = 0u64;
    for f in files {
        let h = FileHeader::read_file(f)?;
        if h.kind() != RecordKind::Game {
            bail!("{} holds {} records; PGN export needs game files", f.display(), h.kind());
        }
        let v = variant_of(&h)?;
        let mut r = open::<GameRecord>(f)?;
        while let Some(chunk) = r.next_chunk()? {
            for g in &chunk {
                let text = game_pgn(v, g, scores)
                    .with_context(|| format!("{}: game {}", f.display(), g.game_index))?;
                o.w.write_all(text.as_bytes())?;
                games += 1;
            }
        }
        check_damage(&r, allow_damaged)?;
    }
    o.finish()?;
    if out.as_os_str() != "-" {
        eprintln!("kage-data: wrote {games} games to {}", out.display());
    }
    Ok(ExitCode::SUCCESS)
}

fn pgn_termination(t: kage_data::Termination) -> &'static str {
    use kage_data::Termination as T;
    match t {
        T::Resign | T::AdjudicatedDraw => "adjudication",
        T::PlyLimit => "unterminated",
        _ => "normal",
    }
}

/// One game in PGN.
pub fn game_pgn(v: &'static Variant, g: &GameRecord, with_scores: bool) -> Result<String> {
    let mut pos = Position::from_fen(v, &g.start_fen)
        .with_context(|| format!("start FEN {:?}", g.start_fen))?;
    let (round, plies) = (g.game_index.to_string(), g.moves.len().to_string());
    let tags = [
        ("Event", "kage self-play"),
        ("Site", "?"),
        ("Date", "????.??.??"),
        ("Round", &round),
        ("White", "kage"),
        ("Black", "kage"),
        ("Result", g.result.pgn()),
        ("Variant", &v.name),
        ("FEN", g.start_fen.trim()),
        ("SetUp", "1"),
        ("Termination", pgn_termination(g.termination)),
        ("PlyCount", &plies),
    ];
    let mut tokens: Vec<String> = Vec::with_capacity(g.moves.len() * 2 + 2);
    let mut number = pos.fullmove_number();
    for (ply, &m) in g.moves.iter().enumerate() {
        let m = Move(m);
        if !pos.legal_moves().contains(m) {
            bail!("move {ply} ({:#06x}) is illegal in {}", m.0, pos.to_fen());
        }
        if pos.side_to_move() == Color::White {
            tokens.push(format!("{number}."));
        } else if ply == 0 {
            tokens.push(format!("{number}..."));
        }
        tokens.push(pos.move_to_uci(m));
        if with_scores && let Some(sc) = g.scores.get(ply) {
            tokens.push(format!("{{{sc}}}"));
        }
        if pos.side_to_move() == Color::Black {
            number += 1;
        }
        pos.play(m);
    }
    tokens.push(format!("{{{}}}", g.termination.name()));
    tokens.push(g.result.pgn().to_owned());
    Ok(kage_data::pgn::document(&tags, &tokens))
}
