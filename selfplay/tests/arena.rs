//! The arena: self-play with an outside UCI engine (kage itself, over `kage-selfplay uci`) as
//! the player, and a game between the built-in player and an outside one as a
//! `kage_data::GameRecord` like any other.

use kage_data::{GameResult, Termination};
use kage_engine::{Game, Move, Position, Variant};
use kage_selfplay::arena::game::{self, AdjudicateAt, GameEnd, LimitSpec, Rules, Seats, Start};
use kage_selfplay::arena::player::{Builtin, Outside, Player};
use kage_selfplay::config::{Budget, GenConfig, OpeningMode};
use kage_selfplay::matches::UciSpec;
use kage_selfplay::play::{game_rng, play_game};

const BIN: &str = env!("CARGO_BIN_EXE_kage-selfplay");

fn kage_uci(hash_mb: usize) -> UciSpec {
    UciSpec {
        cmd: BIN.into(),
        args: vec!["uci".into()],
        dir: None,
        options: vec![("Hash".into(), hash_mb.to_string())],
    }
}

fn cfg() -> GenConfig {
    let mut c = GenConfig::new("minishogi", 2, 11, Budget::Nodes(200));
    c.hash_mb = 2;
    c.openings.random_plies = 2;
    c.openings.mode = OpeningMode::Uniform;
    c.adjudication.max_plies = 60;
    c.validated().unwrap()
}

/// Replays `moves` from `fen`: every move legal.
fn replays(v: &'static Variant, fen: &str, moves: &[u16]) -> Game {
    let mut g = Game::new(Position::from_fen(v, fen).unwrap());
    for &m in moves {
        assert!(g.position().is_legal(Move(m)), "illegal {m} in {}", g.position().to_fen());
        g.play(Move(m));
    }
    g
}

#[test]
fn self_play_game_with_an_outside_engine_as_the_player() {
    let c = cfg();
    let v = c.variant_def().unwrap();
    let mut outside = Outside::start(&kage_uci(c.hash_mb), &c.variant).unwrap();
    let out = play_game(&c, v, &mut outside, 1).unwrap();
    let r = &out.record;
    assert_eq!((r.variant.as_str(), r.game_index), ("minishogi", 1));
    assert!(!r.moves.is_empty() && r.scores.len() == r.moves.len());
    let g = replays(v, &r.start_fen, &r.moves);
    match g.outcome() {
        Some(o) => {
            assert_eq!(r.termination, Termination::Rule(o.reason));
            assert_eq!(r.result, GameResult::from_winner(o.winner));
        }
        None => assert!(
            matches!(
                r.termination,
                Termination::PlyLimit | Termination::Resign | Termination::AdjudicatedDraw
            ),
            "{:?}",
            r.termination
        ),
    }
    // One training position per search, as with the built-in player.
    assert!(out.positions.len() == r.moves.len() || out.positions.len() == r.moves.len() + 1);
    // The same engine over UCI plays the built-in player's moves (same search, same hash);
    // its scores are UCI's (normalised), so adjudication may end one game sooner.
    let mut inproc = Builtin::default_eval(c.hash_mb);
    let same = play_game(&c, v, &mut inproc, 1).unwrap().record;
    let n = same.moves.len().min(r.moves.len());
    assert!(n > 10, "{n}");
    assert_eq!(same.moves[..n], r.moves[..n]);
}

#[test]
fn builtin_against_outside_is_a_game_record_like_any_other() {
    let c = cfg();
    let v = c.variant_def().unwrap();
    let mut players: [Box<dyn Player>; 2] = [
        Box::new(Builtin::default_eval(2)),
        Box::new(Outside::start(&kage_uci(2), &c.variant).unwrap()),
    ];
    let rules = Rules {
        limit: LimitSpec::Nodes { nodes: 150, jitter: 0.0 },
        nodes: [None, Some(300)],
        max_plies: 40,
        adjudication: c.adjudication,
        adjudicate_at: AdjudicateAt::AfterMove,
        openings: None,
        hang: Some(std::time::Duration::from_secs(30)),
        positions: true,
    };
    let start = Position::startpos(v);
    let mut book_game = Game::new(start.clone());
    let first = book_game.position().legal_moves().as_slice()[0];
    book_game.play(first);
    let at = Start { variant: "minishogi", position: &start, book: &[first], index: 7 };
    let mut rng = game_rng(1, "nodes-jitter", 7);
    let seats = Seats::Two { players: &mut players, first_white: false };
    let p = match game::play(seats, &at, &rules, &mut rng, None).unwrap() {
        GameEnd::Done(p) => p,
        e => panic!("{e:?}"),
    };
    let r = &p.record;
    assert_eq!((r.game_index, p.book), (7, 1));
    assert_eq!(r.moves[0], first.0);
    assert_eq!(r.scores.len(), r.moves.len());
    assert_eq!(p.turns.len(), r.moves.len() - 1);
    assert_eq!(r.scores[0], 0, "the book move has no score");
    assert!(p.illegal.is_none());
    replays(v, &r.start_fen, &r.moves);
    assert!(r.moves.len() <= 40);
    assert_eq!(p.positions.len(), p.turns.len(), "a position per searched move");
}

#[test]
fn a_crashed_outside_engine_is_restarted_and_replays_its_game() {
    use std::os::unix::fs::PermissionsExt;
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;

    use kage_selfplay::{PlayerFactory, SelfplayError, Slot, play_games};
    let t = tempfile::tempdir().unwrap();
    // Crashes at its fifth `go` the first time it runs, then plays normally.
    let marker = t.path().join("crashed-once");
    let script = t.path().join("crash-once.sh");
    let body = format!(
        "#!/bin/sh\nif [ -e {m} ]; then exec {BIN} uci; fi\ntouch {m}\nn=0\n\
         while IFS= read -r line; do\n  case \"$line\" in go*) n=$((n+1)); \
         if [ $n -ge 5 ]; then exit 3; fi;; esac\n  printf '%s\\n' \"$line\"\ndone | {BIN} uci\n",
        m = marker.display()
    );
    std::fs::write(&script, body).unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let c = cfg();
    let v = c.variant_def().unwrap();
    let factory_of = |spec: UciSpec| -> PlayerFactory {
        Arc::new(move || {
            let p = Outside::start(&spec, "minishogi")
                .map_err(|cause| SelfplayError::PlayerFault { game: 0, cause })?;
            Ok(Box::new(p) as Box<dyn Player>)
        })
    };
    let crashing = UciSpec { cmd: script.display().to_string(), args: vec![], ..kage_uci(2) };
    let slots: Vec<Slot> = (0..2).map(|g| Slot { game: g, group: 0 }).collect();
    let stop = AtomicBool::new(false);
    let play = |f: &PlayerFactory| {
        let mut games = vec![None, None];
        play_games(&c, v, &slots, 1, f, &stop, &mut |i, out| {
            games[i] = Some(out.record);
            Ok(())
        })
        .unwrap();
        games
    };
    let after_crash = play(&factory_of(crashing));
    assert!(marker.exists(), "it crashed once");
    let plain = play(&factory_of(kage_uci(2)));
    assert!(after_crash.iter().all(Option::is_some));
    assert_eq!(after_crash, plain, "the replayed game is the game");
}
