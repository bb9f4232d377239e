//! `kage-selfplay rebalance`: a tiny search ends with a ranked report (the invalid candidate
//! reported), an interrupted search resumes to the same report bytes, the candidates parser
//! refuses unknown keys by name, and `--emit-slurm` writes the pending steps as a job array.

mod common;

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use kage_selfplay::config::Budget;
use kage_selfplay::rebalance::{
    self, Control, FineTune, Outcome, Search, Settings, builtin_spec, candidates,
};
use kage_selfplay::{ConfigError, SelfplayError, StudyError};

const CANDIDATES: &str = r#"
[[candidate]]
name = "reference"

[[candidate]]
name = "gote-promotes-2"
note = "Gote promotes on ranks 1 and 2"
promotion_black = [1, 2]

[[candidate]]
name = "gote-first"
first = "black"

[[candidate]]
name = "bad-piece"
hand_add = "X"
"#;

fn search(out: &Path) -> Search {
    let cands = candidates::parse(CANDIDATES, "test candidates").unwrap();
    let t = common::tiny_template(4, 5, Budget::Nodes(30));
    let settings = Settings {
        tool: "test".into(),
        base: "minishogi".into(),
        base_spec: builtin_spec("minishogi").unwrap().into(),
        candidates: cands.iter().map(|c| (c.name.clone(), c.describe())).collect(),
        template: t.validated().unwrap(),
        levels: vec![Budget::Nodes(20), Budget::Nodes(60)],
        games: 4,
        rounds: 2,
        budget_games: Some(60),
        audit_sample: 2,
        fine_tune: FineTune::None,
        base_net: None,
    };
    Search { settings, candidates: cands, out: out.to_path_buf(), kage_train: None }
}

fn ctl(stop: &AtomicBool, max_steps: Option<usize>) -> Control<'_> {
    common::quiet(stop, 2, max_steps)
}

fn report_bytes(dir: &Path) -> Vec<Vec<u8>> {
    common::read_all(dir, &["report.txt", "report.json", "report.html"])
}

#[test]
fn tiny_budget_ends_with_a_ranked_report() {
    let tmp = tempfile::tempdir().unwrap();
    let stop = AtomicBool::new(false);
    let Outcome::Done(rep) = search(tmp.path()).run(&ctl(&stop, None)).unwrap() else {
        panic!("not done")
    };
    assert_eq!(rep.rows.len(), 4);
    // Round 0: 3 valid x 2 levels x 4 games; round 1: the better 2 x 2 x 8 (60 fit the budget).
    assert_eq!(rep.rounds.len(), 2);
    assert_eq!(rep.rounds[1].len(), 2);
    assert_eq!(rep.games, 24 + 32);
    let last = rep.rows.last().unwrap();
    assert_eq!((last.candidate.as_str(), last.status.as_str()), ("bad-piece", "invalid spec"));
    assert!(last.error.is_some());
    let valid = &rep.rows[..3];
    for w in valid.windows(2) {
        let key = |r: &rebalance::report::Row| (std::cmp::Reverse(r.rounds), r.distance.unwrap());
        assert!(key(&w[0]) <= key(&w[1]), "rows out of order: {:?}", rep.rows);
    }
    assert_eq!(valid[2].status, "eliminated after round 0");
    for row in valid {
        assert_eq!(row.levels.len(), 2);
        let top = row.levels.last().unwrap();
        assert_eq!(row.distance, Some((top.score - 0.5).abs()));
        assert!(top.ci_low <= top.score && top.score <= top.ci_high);
        assert_eq!(top.games, if row.rounds == 2 { 12 } else { 4 }, "{row:?}");
        assert!(top.distinct_games <= top.games);
    }
    assert_eq!(valid[0].rank, 1);
    let text = std::fs::read_to_string(tmp.path().join("report.txt")).unwrap();
    assert!(text.contains("bad-piece") && text.contains("invalid spec"), "{text}");
    let html = std::fs::read_to_string(tmp.path().join("report.html")).unwrap();
    assert!(html.contains("<svg") && html.contains("gote-promotes-2"));
    let state = std::fs::read_to_string(tmp.path().join("state.json")).unwrap();
    assert!(state.contains("\"done\": true"), "{state}");
    // A rerun finds the search over and writes the same report.
    let before = report_bytes(tmp.path());
    assert!(matches!(search(tmp.path()).run(&ctl(&stop, None)).unwrap(), Outcome::Done(_)));
    assert_eq!(report_bytes(tmp.path()), before);
}

#[test]
fn interrupted_search_resumes_to_the_same_report() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let stop = AtomicBool::new(false);
    assert!(matches!(search(a.path()).run(&ctl(&stop, None)).unwrap(), Outcome::Done(_)));
    // Stopped at once, then stopped inside a self-play step, then one step per invocation.
    let stopped = AtomicBool::new(true);
    let r = search(b.path()).run(&ctl(&stopped, None)).unwrap();
    assert!(matches!(r, Outcome::Interrupted { pending } if pending > 0), "{r:?}");
    let soon = AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            std::thread::sleep(Duration::from_millis(30));
            soon.store(true, std::sync::atomic::Ordering::SeqCst);
        });
        let _ = search(b.path()).run(&ctl(&soon, None)).unwrap();
    });
    let mut runs = 0;
    loop {
        runs += 1;
        match search(b.path()).run(&ctl(&stop, Some(1))).unwrap() {
            Outcome::Done(_) => break,
            Outcome::Interrupted { .. } => assert!(runs < 40, "no progress"),
        }
    }
    assert!(runs > 2, "{runs}");
    assert_eq!(report_bytes(a.path()), report_bytes(b.path()));
    // Another search in the same directory is refused.
    let mut other = search(b.path());
    other.settings.games = 8;
    let e = other.run(&ctl(&stop, None)).unwrap_err().to_string();
    assert!(e.contains("different config"), "{e}");
}

#[test]
fn candidates_parser_refuses_unknown_keys_by_name() {
    let e = candidates::parse("[[candidate]]\nname = \"x\"\npromotion_blak = [1]\n", "c.toml")
        .unwrap_err()
        .to_string();
    assert!(e.contains("promotion_blak") && e.contains("c.toml") && !e.contains('\n'), "{e}");
    let e = candidates::parse("title = \"t\"\n[[candidate]]\nname = \"x\"\n", "c.toml")
        .unwrap_err()
        .to_string();
    assert!(e.contains("title"), "{e}");
    // The refusals are typed: a bad hand change names its candidate, key and value.
    let e = candidates::parse("[[candidate]]\nname = \"x\"\nhand_add = \"P1\"\n", "c.toml")
        .unwrap_err();
    let SelfplayError::Config(ConfigError::Study(e)) = e else { panic!("{e}") };
    assert!(
        matches!(
            &*e,
            StudyError::Candidate {
                index: 1,
                cause: candidates::CandidateError::Letters { key: "hand_add", value, .. },
                ..
            } if value == "P1"
        ),
        "{e:?}"
    );
    assert_eq!(
        e.to_string(),
        "c.toml: candidate 1: \"x\": hand_add \"P1\" must be piece letters (upper case: White's hand)"
    );
    let e = candidates::parse("[[candidate]]\nname = \"x\"\n[[candidate]]\nname = \"x\"\n", "c")
        .unwrap_err();
    let SelfplayError::Config(ConfigError::Study(e)) = e else { panic!("{e}") };
    assert!(matches!(&*e, StudyError::CandidateTwice { name, .. } if name == "x"), "{e:?}");
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/shinobiplus_candidates.toml");
    let cands = candidates::read(Path::new(example)).unwrap();
    assert!(cands.len() >= 10);
    // Every example change makes a Shinobi+ variant that compiles.
    let s = Search {
        settings: Settings { base: "shinobiplus".into(), ..search(Path::new(".")).settings },
        candidates: cands,
        out: ".".into(),
        kage_train: None,
    };
    let mut s = s;
    s.settings.base_spec = builtin_spec("shinobiplus").unwrap().into();
    for r in s.resolve().unwrap() {
        assert!(r.spec.is_ok(), "{}: {:?}", r.cand.name, r.spec);
    }
}

#[test]
fn emit_slurm_writes_the_pending_steps() {
    let tmp = tempfile::tempdir().unwrap();
    let cands = tmp.path().join("c.toml");
    std::fs::write(&cands, CANDIDATES).unwrap();
    let out = tmp.path().join("out");
    let job = tmp.path().join("job.sh");
    let run = |extra: &[&str]| {
        let mut args = vec!["rebalance", "--base", "minishogi", "--quiet", "--eval", "hce"];
        args.extend(["--games", "2", "--rounds", "1", "--levels", "10,20", "--audit-sample", "0"]);
        args.extend(["--opening-plies", "2", "--opening-mode", "uniform", "--max-plies", "60"]);
        args.extend(["--threads", "1"]);
        let (c, o) = (cands.to_str().unwrap(), out.to_str().unwrap());
        args.extend(["--candidates", c, "--out", o]);
        args.extend(extra);
        std::process::Command::new(env!("CARGO_BIN_EXE_kage-selfplay"))
            .args(&args)
            .output()
            .unwrap()
    };
    let o = run(&["--emit-slurm", job.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let script = std::fs::read_to_string(&job).unwrap();
    assert!(script.contains("#SBATCH --array=0-5"), "{script}");
    assert!(script.contains("'steps/gote-first/r0-l1'") && script.contains("--step"), "{script}");
    let exec = script.lines().find(|l| l.starts_with("exec ")).unwrap();
    assert!(!exec.contains("--emit-slurm") && !exec.contains("job.sh"), "{script}");
    // A job's command: one step.
    let o = run(&["--step", "steps/gote-first/r0-l1"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let state = std::fs::read_to_string(out.join("state.json")).unwrap();
    assert!(!state.contains("gote-first/r0-l1"), "{state}");
    let o = run(&["--candidates-typo"]);
    assert!(!o.status.success());
    let o = run(&[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("bad-piece"));
}
