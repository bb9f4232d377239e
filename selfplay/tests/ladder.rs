//! `kage-selfplay ladder`: a tiny Minishogi ladder (20/80/320 nodes, a few games) ends with a
//! report of the right structure whose Elo is the chain of its matches; the report's bytes
//! do not depend on the thread count or on an interruption; bad rungs are one-line errors.

mod common;

use std::path::Path;
use std::process::Command;
use std::sync::atomic::AtomicBool;

use kage_selfplay::config::{Budget, GenConfig, Openings};
use kage_selfplay::ladder::{Control, Ladder, OPENING_NODES, Outcome, Rung, Settings};
use kage_selfplay::matches::OpeningSpec;
use kage_selfplay::{ConfigError, SelfplayError, StudyError};

fn ladder(out: &Path) -> Ladder {
    let t = common::tiny_template(6, 3, Budget::Nodes(1));
    let rungs = ["nodes=20", "nodes=80", "nodes=320,eval=hce,name=top"];
    let settings = Settings {
        tool: "test".into(),
        rungs: rungs.iter().map(|r| Rung::parse(r).unwrap()).collect(),
        match_openings: OpeningSpec::Random {
            openings: Openings { multipv: 1, ..t.openings },
            nodes: OPENING_NODES,
        },
        template: t,
        match_games: 6,
        audit_sample: 2,
    };
    Ladder { settings: settings.validated().unwrap(), out: out.to_path_buf() }
}

fn ctl(stop: &AtomicBool, threads: usize, max_steps: Option<usize>) -> Control<'_> {
    common::quiet(stop, threads, max_steps)
}

fn report_bytes(dir: &Path) -> Vec<Vec<u8>> {
    common::read_all(dir, &["report.txt", "report.json", "report.html", "elo.svg"])
}

#[test]
fn tiny_ladder_ends_with_an_elo_report() {
    let tmp = tempfile::tempdir().unwrap();
    let stop = AtomicBool::new(false);
    let l = ladder(tmp.path());
    assert_eq!(l.steps().len(), 3 + 2 + 3);
    let Outcome::Done(rep) = l.run(&ctl(&stop, 2, None)).unwrap() else { panic!("not done") };
    assert_eq!(rep.rungs.len(), 3);
    assert_eq!(rep.matches.len(), 2);
    let names: Vec<&str> = rep.rungs.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["n20", "n80", "top"]);
    assert_eq!((rep.matches[0].upper.as_str(), rep.matches[0].lower.as_str()), ("n80", "n20"));
    // The anchor, then the chain of the matches' links with variances added.
    let p0 = rep.rungs[0].elo.unwrap();
    assert_eq!((p0.elo, p0.elo95), (0.0, 0.0));
    let (l0, l1) = (rep.matches[0].link.unwrap(), rep.matches[1].link.unwrap());
    let (p1, p2) = (rep.rungs[1].elo.unwrap(), rep.rungs[2].elo.unwrap());
    assert_eq!((p1.elo, p1.elo95), (l0.elo, l0.elo95));
    assert!((p2.elo - (l0.elo + l1.elo)).abs() < 1e-9);
    assert!((p2.elo95 - (l0.elo95.powi(2) + l1.elo95.powi(2)).sqrt()).abs() < 1e-9);
    for (r, m) in rep.rungs.iter().zip(&rep.matches) {
        assert_eq!(r.balance.games, 6);
        assert_eq!(m.counts.games(), 6);
    }
    // Adjudication is on: every rung was audited (a sample of its adjudicated games).
    assert!(rep.rungs.iter().all(|r| r.balance.audit.is_some()));
    let text = std::fs::read_to_string(tmp.path().join("report.txt")).unwrap();
    assert!(text.contains("0 (anchor)") && text.contains("n80 vs n20"), "{text}");
    let html = std::fs::read_to_string(tmp.path().join("report.html")).unwrap();
    assert!(html.contains("<svg") && html.contains("by repetition"), "{html}");
    assert!(tmp.path().join("play/r0/minishogi/games.kdata").exists());
    assert!(tmp.path().join("match/r1-r2/games.pgn").exists());
    // A rerun finds everything done and writes the same bytes.
    let first = report_bytes(tmp.path());
    assert!(matches!(l.run(&ctl(&stop, 1, None)).unwrap(), Outcome::Done(_)));
    assert_eq!(report_bytes(tmp.path()), first);
}

#[test]
fn interrupted_ladder_resumes_to_the_same_bytes_whatever_the_threads() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let stop = AtomicBool::new(false);
    let whole = ladder(a.path());
    assert!(matches!(whole.run(&ctl(&stop, 2, None)).unwrap(), Outcome::Done(_)));
    let parts = ladder(b.path());
    // Two steps at a time on one thread, then the rest.
    let mut rounds = 0;
    loop {
        rounds += 1;
        match parts.run(&ctl(&stop, 1, Some(2))).unwrap() {
            Outcome::Interrupted { pending } => assert!(pending > 0),
            Outcome::Done(_) => break,
        }
    }
    assert_eq!(rounds, 4);
    assert_eq!(report_bytes(a.path()), report_bytes(b.path()));
    // Stopped before any work: everything pending, nothing written but the settings.
    let c = tempfile::tempdir().unwrap();
    let stopped = AtomicBool::new(true);
    let l = ladder(c.path());
    assert_eq!(l.run(&ctl(&stopped, 1, None)).unwrap(), Outcome::Interrupted { pending: 8 });
    assert!(!c.path().join("report.json").exists());
}

#[test]
fn another_ladder_in_the_same_directory_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let stop = AtomicBool::new(false);
    let l = ladder(tmp.path());
    assert!(matches!(l.run(&ctl(&stop, 2, Some(0))).unwrap(), Outcome::Interrupted { .. }));
    let mut other = ladder(tmp.path());
    other.settings.match_games = 8;
    let e = other.run(&ctl(&stop, 2, None)).unwrap_err().to_string();
    assert!(e.contains("different config") && e.contains("match_games = 8"), "{e}");
}

#[test]
fn rungs_are_validated_with_one_line_errors() {
    for (spec, want) in [
        ("nodes=0", "not a count"),
        ("net=x.nnue", "cannot read net"),
        ("depth=3", "unknown setting"),
        ("eval=hce", "needs nodes=N"),
        ("nodes=10,eval=big", "unknown setting"),
    ] {
        let e = Rung::parse(spec).unwrap_err().to_string();
        assert!(e.contains(want) && !e.contains('\n'), "{spec}: {e}");
    }
    let r = Rung::parse("nodes=4000,eval=hce").unwrap();
    assert_eq!((r.name.as_str(), r.nodes), ("n4000-hce", 4000));
    let mut t = GenConfig::new("minishogi", 2, 1, Budget::Nodes(1));
    t.batch_size = 1;
    let one = |rungs: &[&str]| Settings {
        tool: "test".into(),
        rungs: rungs.iter().map(|r| Rung::parse(r).unwrap()).collect(),
        template: t.clone(),
        match_games: 2,
        match_openings: OpeningSpec::Random { openings: t.openings, nodes: 10 },
        audit_sample: 0,
    };
    let e = one(&["nodes=10"]).validated().unwrap_err().to_string();
    assert!(e.contains("two --rung"), "{e}");
    let e = one(&["nodes=10", "nodes=10,name=b"]).validated().unwrap_err().to_string();
    assert!(e.contains("one player"), "{e}");
    // Each refusal is its own typed case.
    let study = |e: SelfplayError| match e {
        SelfplayError::Config(ConfigError::Study(s)) => *s,
        e => panic!("not a study error: {e}"),
    };
    let e = study(Rung::parse("nodes=x").unwrap_err());
    assert!(matches!(&e, StudyError::RungNodes { value, .. } if value == "x"), "{e:?}");
    let e = study(one(&["nodes=10"]).validated().unwrap_err());
    assert!(matches!(e, StudyError::TooFewRungs), "{e:?}");
    let e = study(one(&["nodes=10", "nodes=10,name=b"]).validated().unwrap_err());
    assert!(matches!(&e, StudyError::OnePlayer(a, b) if a == "n10" && b == "b"), "{e:?}");
    let exe = env!("CARGO_BIN_EXE_kage-selfplay");
    let tmp = tempfile::tempdir().unwrap();
    let out = Command::new(exe)
        .args(["ladder", "--variant", "minishogi", "--rung", "nodes=20", "--rung", "nodes=x"])
        .arg("--out")
        .arg(tmp.path().join("l"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("nodes \"x\""), "{err}");
    // Said once (the refusal is not also the error's source in the `{:#}` chain).
    assert_eq!(err.matches("is not a count").count(), 1, "{err}");
    assert!(!tmp.path().join("l").exists());
}
