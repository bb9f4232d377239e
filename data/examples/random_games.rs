//! Writes random-playout games and their training positions in the kage data
//! format, for trying the tools and loaders before real self-play data exists.
//!
//! `cargo run -p kage-data --example random_games -- VARIANT GAMES OUT_DIR`
//! writes `OUT_DIR/VARIANT-games.kdata` and `OUT_DIR/VARIANT-positions.kdata`.
//! Scores are random; results are the rules' verdicts (draw at 200 plies).

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use kage_data::{
    FileHeader, GameRecord, GameResult, PositionRecord, RecordKind, Termination, Writer,
};
use kage_engine::{Game, Variant};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [variant, games, dir] = args.as_slice() else {
        bail!("usage: random_games VARIANT GAMES OUT_DIR");
    };
    let v = Variant::by_name(variant)?;
    let n: u64 = games.parse().context("GAMES must be a number")?;
    let dir = PathBuf::from(dir);
    std::fs::create_dir_all(&dir)?;
    let config = format!("generator = \"random_games example\"\ngames = {n}\nmax_plies = 200\n");
    let gh =
        FileHeader::new(RecordKind::Game, &v.name, &config, "unknown", "random_games example")?;
    let mut gw =
        Writer::<GameRecord>::create(dir.join(format!("{variant}-games.kdata")), gh.clone())?;
    let mut pw = Writer::<PositionRecord>::create(
        dir.join(format!("{variant}-positions.kdata")),
        gh.with_kind(RecordKind::Position),
    )?;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(n);
    for index in 0..n {
        let mut game = Game::startpos(v);
        let mut scores: Vec<i16> = Vec::new();
        let mut outcome = None;
        while game.ply() < 200 {
            if let Some(o) = game.outcome() {
                outcome = Some(o);
                break;
            }
            let moves = game.position().legal_moves();
            game.play(moves.as_slice()[rng.random_range(0..moves.len())]);
            scores.push(rng.random_range(-600..600));
        }
        let winner = outcome.and_then(|o| o.winner);
        let mut replay = Game::startpos(v);
        for (ply, &m) in game.moves().iter().enumerate() {
            let pos = replay.position();
            pw.write(&PositionRecord::from_position(
                pos,
                scores[ply],
                winner,
                ply as u16,
                Some(m),
                None,
            )?)?;
            replay.play(m);
        }
        gw.write(&GameRecord {
            variant: v.name.clone(),
            start_fen: v.start_fen.clone(),
            moves: game.moves().iter().map(|m| m.0).collect(),
            scores,
            result: GameResult::from_winner(winner),
            termination: outcome.map_or(Termination::PlyLimit, |o| o.reason.into()),
            game_index: index,
        })?;
    }
    let g = gw.finish()?;
    let p = pw.finish()?;
    println!(
        "{}: {} games\n{}: {} positions",
        g.path.display(),
        g.records,
        p.path.display(),
        p.records
    );
    Ok(())
}
