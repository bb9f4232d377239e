//! `go`: its arguments, and the `info` and `bestmove` lines a search answers with.

use crate::eval::wdl::WdlModel;
use crate::position::Position;
use crate::search::{Limits, SearchInfo, SearchResult, mate_in_moves};
use thiserror::Error;

/// A `go` command that cannot be searched.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum GoError {
    /// A limit without its number.
    #[error("go {0} needs a value")]
    MissingValue(String),
    /// A limit whose number does not parse.
    #[error("bad go {name} '{value}'")]
    BadValue {
        /// The limit (`depth`, `wtime`, ...).
        name: String,
        /// What was given.
        value: String,
    },
    /// A word `go` does not know.
    #[error("unknown go argument '{0}'")]
    Unknown(String),
}

/// Parses the arguments of `go` (everything but `perft`).
pub fn parse_go(args: &[&str], multipv: usize) -> Result<Limits, GoError> {
    let mut l = Limits { multipv, ..Limits::default() };
    let mut it = args.iter();
    while let Some(&tok) = it.next() {
        let mut num = |name: &str| -> Result<u64, GoError> {
            let v = it.next().ok_or_else(|| GoError::MissingValue(name.to_string()))?;
            let bad = || GoError::BadValue { name: name.to_string(), value: v.to_string() };
            // Negative clock values (some GUIs send them) count as zero.
            if let Some(neg) = v.strip_prefix('-') {
                return neg.parse::<u64>().map(|_| 0).map_err(|_| bad());
            }
            v.parse::<u64>().map_err(|_| bad())
        };
        match tok {
            "depth" => l.depth = Some(num("depth")?.clamp(1, 1000) as u32),
            "nodes" => l.nodes = Some(num("nodes")?.max(1)),
            "movetime" => l.movetime_ms = Some(num("movetime")?),
            "wtime" => l.wtime = Some(num("wtime")?),
            "btime" => l.btime = Some(num("btime")?),
            "winc" => l.winc = Some(num("winc")?),
            "binc" => l.binc = Some(num("binc")?),
            "movestogo" => l.movestogo = Some(num("movestogo")?.min(10_000) as u32),
            "infinite" => l.infinite = true,
            "ponder" => {}
            other => return Err(GoError::Unknown(other.to_string())),
        }
    }
    Ok(l)
}

/// How `info` lines show scores: normalised by the evaluator's WDL model when it has one
/// (`None`: the raw internal scale), with `wdl W D L` per mille when `UCI_ShowWDL` is on and
/// there is a model.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ScoreView {
    /// The evaluator's model.
    pub model: Option<&'static WdlModel>,
    /// `UCI_ShowWDL`.
    pub show_wdl: bool,
}

impl ScoreView {
    /// `cp N` / `mate N`, then `wdl W D L` when asked for and known, for internal `score`
    /// with `pos`'s side to move.
    pub fn text(&self, score: i32, pos: &Position) -> String {
        let stm = pos.side_to_move();
        let mut s = match (mate_in_moves(score), self.model) {
            (Some(n), _) => format!("mate {n}"),
            (None, Some(m)) => format!("cp {}", m.to_cp(score, stm)),
            (None, None) => format!("cp {score}"),
        };
        if let (true, Some(m)) = (self.show_wdl, self.model) {
            let [w, d, l] = m.wdl(score, stm);
            s += &format!(" wdl {w} {d} {l}");
        }
        s
    }
}

/// `info depth .. seldepth .. [multipv k] score cp|mate .. [wdl w d l] nodes .. nps .. time ..
/// pv ..`.
pub fn info_line(i: &SearchInfo, pos: &Position, multi: bool, view: ScoreView) -> String {
    let score = view.text(i.score, pos);
    let mut s = format!("info depth {} seldepth {}", i.depth, i.seldepth);
    if multi {
        s += &format!(" multipv {}", i.multipv);
    }
    s += &format!(" score {score} nodes {} nps {} time {} pv", i.nodes, i.nps, i.time_ms);
    let mut p = pos.clone();
    for &m in &i.pv {
        if !p.is_legal(m) {
            break;
        }
        s.push(' ');
        s += &p.move_to_uci(m);
        p.play(m);
    }
    s
}

/// `bestmove <move> [ponder <move>]`, or `bestmove (none)` without a legal move.
pub fn bestmove_line(r: &SearchResult, pos: &Position) -> String {
    if r.best_move.is_null() {
        return "bestmove (none)".to_string();
    }
    let mut s = format!("bestmove {}", pos.move_to_uci(r.best_move));
    if let Some(&m) = r.pv.get(1) {
        let mut p = pos.clone();
        p.play(r.best_move);
        if p.is_legal(m) {
            s += &format!(" ponder {}", p.move_to_uci(m));
        }
    }
    s
}
