//! The generation-loop scripts: the Slurm job graph (`scripts/slurm_loop.sh --dry-run`, and a
//! submission through a stand-in `sbatch`), the gate's verdicts and the summary table
//! (`scripts/loop_report.py`) on a real match directory and on hand-made ones.
#![cfg(unix)]

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const KAGE_SELFPLAY: &str = env!("CARGO_BIN_EXE_kage-selfplay");

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn slurm_loop(out: &Path, env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut c = Command::new("bash");
    c.arg(repo().join("scripts/slurm_loop.sh")).args(args).env("OUT", out);
    for k in ["VARIANTS", "GENERATIONS", "SHARDS", "NET", "SBATCH_ARGS", "BIN"] {
        c.env_remove(k);
    }
    c.envs(env.iter().copied()).output().expect("bash runs")
}

/// One job of the dry run: array range, dependencies, command.
#[derive(Debug)]
struct Job {
    array: String,
    after: Vec<String>,
    cmd: String,
}

fn graph(stdout: &[u8]) -> BTreeMap<String, Job> {
    let mut jobs = BTreeMap::new();
    for line in text(stdout).lines() {
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(f.len(), 5, "job line {line:?}");
        let name = f[0].strip_prefix("job ").expect("job name").to_owned();
        let after = f[2].strip_prefix("after=").expect("after");
        let after =
            if after == "-" { Vec::new() } else { after.split(',').map(str::to_owned).collect() };
        let array = f[1].strip_prefix("array=").expect("array").to_owned();
        jobs.insert(name, Job { array, after, cmd: f[4].to_owned() });
    }
    jobs
}

#[test]
fn slurm_dry_run_prints_the_job_graph_and_skips_finished_steps() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("run");
    let env = [("VARIANTS", "minishogi,shinobi"), ("GENERATIONS", "2"), ("SHARDS", "3")];
    let o = slurm_loop(&out, &env, &["--dry-run"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(!out.exists(), "the dry run wrote {}", out.display());
    let jobs = graph(&o.stdout);
    assert_eq!(jobs.len(), 18, "{jobs:#?}");
    let j = |n: &str| jobs.get(n).unwrap_or_else(|| panic!("no job {n}: {jobs:#?}"));
    for v in ["minishogi", "shinobi"] {
        let sp1 = j(&format!("kage-{v}-g1-selfplay"));
        assert_eq!((sp1.array.as_str(), sp1.after.len()), ("0-2", 0));
        assert!(sp1.cmd.ends_with(&format!("--step selfplay {v} 1")), "{}", sp1.cmd);
        assert!(sp1.cmd.contains("SHARDS=3"), "{}", sp1.cmd);
        let after = |n: &str| j(&format!("kage-{v}-{n}")).after.clone();
        let names = |ns: &[&str]| ns.iter().map(|n| format!("kage-{v}-{n}")).collect::<Vec<_>>();
        assert_eq!(after("g1-merge"), names(&["g1-selfplay"]));
        assert_eq!(after("g1-train"), names(&["g1-merge"]));
        assert_eq!(after("g1-gate"), names(&["g1-train"]));
        assert_eq!(after("g2-selfplay"), names(&["g1-gate"]));
        assert_eq!(after("g2-merge"), names(&["g2-selfplay"]));
        assert_eq!(after("g2-train"), names(&["g2-merge", "g1-gate"]));
        assert_eq!(after("g2-gate"), names(&["g2-train", "g1-gate"]));
        assert_eq!(j(&format!("kage-{v}-g2-gate")).array, "-");
        assert_eq!(j(&format!("kage-{v}-anchor")).after, names(&["g2-gate"]));
        assert!(j(&format!("kage-{v}-anchor")).cmd.ends_with(&format!("--step anchor {v} 2")));
    }

    // Finished steps are not submitted again: minishogi's generation 1 has self-play and
    // training done, shinobi's generation 1 is finished.
    let g1 = out.join("minishogi/gen-1");
    std::fs::create_dir_all(&g1).expect("mkdir");
    for f in ["selfplay.done", "train.done"] {
        std::fs::write(g1.join(f), "").expect("marker");
    }
    let s1 = out.join("shinobi/gen-1");
    std::fs::create_dir_all(&s1).expect("mkdir");
    for f in ["selfplay.done", "train.done", "best.txt"] {
        std::fs::write(s1.join(f), "").expect("marker");
    }
    let o = slurm_loop(&out, &env, &["--dry-run"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let jobs = graph(&o.stdout);
    let names: Vec<&str> = jobs.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            "kage-minishogi-anchor",
            "kage-minishogi-g1-gate",
            "kage-minishogi-g2-gate",
            "kage-minishogi-g2-merge",
            "kage-minishogi-g2-selfplay",
            "kage-minishogi-g2-train",
            "kage-shinobi-anchor",
            "kage-shinobi-g2-gate",
            "kage-shinobi-g2-merge",
            "kage-shinobi-g2-selfplay",
            "kage-shinobi-g2-train",
        ]
    );
    assert!(jobs["kage-minishogi-g1-gate"].after.is_empty());
    assert_eq!(jobs["kage-minishogi-g2-selfplay"].after, ["kage-minishogi-g1-gate"]);
    assert!(jobs["kage-shinobi-g2-selfplay"].after.is_empty());
    assert_eq!(jobs["kage-shinobi-g2-train"].after, ["kage-shinobi-g2-merge"]);

    let o = slurm_loop(&out, &[("SHARDS", "0")], &["--dry-run"]);
    assert!(!o.status.success() && text(&o.stderr).contains("SHARDS"));
    let o = slurm_loop(&out, &[], &["--bogus"]);
    assert!(!o.status.success() && text(&o.stderr).contains("usage"));
}

fn executable(path: &Path, body: &str) {
    std::fs::write(path, format!("#!/bin/sh\n{body}")).expect("write script");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

#[test]
fn slurm_submission_chains_job_ids_and_records_the_settings() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (out, bin, fake) =
        (dir.path().join("run"), dir.path().join("bin"), dir.path().join("fake"));
    std::fs::create_dir_all(&bin).expect("mkdir");
    std::fs::create_dir_all(&fake).expect("mkdir");
    for b in ["kage-selfplay", "kage-train", "kage-data"] {
        executable(&bin.join(b), "exit 1\n");
    }
    // A stand-in sbatch: logs its arguments (one per line, then a blank line), prints an id.
    let log = dir.path().join("sbatch.log");
    executable(
        &fake.join("sbatch"),
        &format!(
            "n=$(grep -c '^--job-name' {log:?} 2>/dev/null || true)\n\
             for a in \"$@\"; do printf '%s\\n' \"$a\" >> {log:?}; done\n\
             echo >> {log:?}\n\
             echo $((100 + ${{n:-0}}))\n"
        ),
    );
    let path = format!("{}:{}", fake.display(), std::env::var("PATH").unwrap_or_default());
    let bin_s = bin.display().to_string();
    let env = [
        ("VARIANTS", "minishogi"),
        ("GENERATIONS", "2"),
        ("SHARDS", "4"),
        ("BIN", bin_s.as_str()),
        ("PATH", path.as_str()),
        ("SBATCH_ARGS", "--partition=test"),
    ];
    let o = slurm_loop(&out, &env, &[]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let logged = std::fs::read_to_string(&log).expect("sbatch log");
    let calls: Vec<Vec<&str>> = logged
        .split("\n\n")
        .filter(|c| !c.trim().is_empty())
        .map(|c| c.lines().collect())
        .collect();
    assert_eq!(calls.len(), 9);
    let arg = |call: &[&str], key: &str| -> Option<String> {
        call.iter().find_map(|a| a.strip_prefix(key).map(str::to_owned))
    };
    let names: Vec<String> = calls.iter().map(|c| arg(c, "--job-name=").expect("name")).collect();
    assert_eq!(names[0], "kage-minishogi-g1-selfplay");
    assert_eq!(names[7], "kage-minishogi-g2-gate");
    assert_eq!(names[8], "kage-minishogi-anchor");
    // Ids are 100, 101, ... in submission order.
    let id = |name: &str| 100 + names.iter().position(|n| n == name).expect("submitted");
    let dep = |name: &str| arg(&calls[id(name) - 100], "--dependency=");
    assert_eq!(dep("kage-minishogi-g1-selfplay"), None);
    assert_eq!(arg(&calls[0], "--array="), Some("0-3".into()));
    assert_eq!(
        dep("kage-minishogi-g1-merge"),
        Some(format!("afterok:{}", id("kage-minishogi-g1-selfplay")))
    );
    assert_eq!(
        dep("kage-minishogi-g2-train"),
        Some(format!("afterok:{}:{}", id("kage-minishogi-g2-merge"), id("kage-minishogi-g1-gate")))
    );
    for c in &calls {
        assert!(c.contains(&"--requeue") && c.contains(&"--partition=test"), "{c:?}");
        assert!(c.contains(&"--kill-on-invalid-dep=yes"), "{c:?}");
        let wrap = c.iter().position(|a| *a == "--wrap").expect("--wrap");
        assert!(c[wrap + 1].contains("slurm_loop.sh --step"), "{c:?}");
    }
    let settings = std::fs::read_to_string(out.join("minishogi/settings.sh")).expect("settings");
    assert!(settings.contains("VARIANT=minishogi") && settings.contains("GAMES=8000"));
    assert_eq!(std::fs::read_to_string(out.join("minishogi/gen-0/best.txt")).unwrap(), "hce\n");

    // Other settings on a rerun are refused.
    let mut other = env.to_vec();
    other.push(("GAMES", "10"));
    let o = slurm_loop(&out, &other, &[]);
    assert!(!o.status.success() && text(&o.stderr).contains("other settings"));
}

fn report(args: &[&Path]) -> Output {
    Command::new("python3")
        .arg(repo().join("scripts/loop_report.py"))
        .args(args.iter().map(|p| p.as_os_str()))
        .output()
        .expect("python3 runs")
}

fn gate_of(dir: &Path, summary: &str) -> Output {
    std::fs::create_dir_all(dir).expect("mkdir");
    std::fs::write(dir.join("summary.json"), summary).expect("write");
    report(&[Path::new("gate"), dir])
}

fn summary(status: &str, wdl: [u64; 3], elo: f64, elo95: f64, verdict: &str, llr: f64) -> String {
    format!(
        r#"{{"status": "{status}", "counts": {{"wins": {}, "draws": {}, "losses": {},
        "penta": [0, 0, 0, 0, 0]}}, "elo": {{"elo": {elo}, "elo95": {elo95}, "games": 10}},
        "sprt": {{"llr": {llr}, "lower": -2.94, "upper": 2.94, "verdict": "{verdict}"}}}}"#,
        wdl[0], wdl[1], wdl[2]
    )
}

#[test]
fn gate_verdicts() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cases = [
        (
            "sprt_accepted",
            [30, 10, 10],
            100.0,
            80.0,
            "accepted",
            3.0,
            "accepted\tGSPRT accepted H1",
        ),
        (
            "sprt_rejected",
            [10, 10, 30],
            -100.0,
            80.0,
            "rejected",
            -3.0,
            "rejected\tGSPRT accepted H0",
        ),
        (
            "complete",
            [60, 20, 40],
            30.0,
            20.0,
            "continue",
            1.0,
            "accepted\tno GSPRT decision; Elo lower bound 10.0 > 0",
        ),
        (
            "complete",
            [60, 20, 40],
            30.0,
            40.0,
            "continue",
            1.0,
            "rejected\tno GSPRT decision; Elo lower bound -10.0 <= 0",
        ),
    ];
    for (i, (status, wdl, elo, elo95, verdict, llr, want)) in cases.into_iter().enumerate() {
        let o = gate_of(
            &dir.path().join(format!("m{i}")),
            &summary(status, wdl, elo, elo95, verdict, llr),
        );
        assert!(o.status.success(), "case {i}: {}", text(&o.stderr));
        assert!(text(&o.stdout).starts_with(want), "case {i}: {}", text(&o.stdout));
    }
    let o = gate_of(
        &dir.path().join("int"),
        &summary("interrupted", [1, 0, 0], 0.0, 1.0, "continue", 0.0),
    );
    assert!(!o.status.success() && text(&o.stderr).contains("interrupted"));
    let o = report(&[Path::new("gate"), &dir.path().join("none")]);
    assert!(!o.status.success() && text(&o.stderr).contains("summary.json"));
}

#[test]
fn gate_and_summary_of_a_real_match() {
    let dir = tempfile::tempdir().expect("temp dir");
    let v = dir.path().join("minishogi");
    let g1 = v.join("gen-1");
    std::fs::create_dir_all(v.join("gen-0")).expect("mkdir");
    std::fs::write(v.join("gen-0/best.txt"), "hce\n").expect("write");
    let o = Command::new(KAGE_SELFPLAY)
        .args(["match", "--variant", "minishogi", "--games", "4", "--nodes", "200", "--quiet"])
        .args(["--engine", "builtin", "name=gen-1", "--engine", "builtin", "name=hce", "--sprt"])
        .arg("--out")
        .arg(g1.join("match"))
        .output()
        .expect("match runs");
    assert!(o.status.success(), "{}", text(&o.stderr));
    let o = report(&[Path::new("gate"), &g1.join("match")]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let verdict = text(&o.stdout);
    assert!(verdict.starts_with("rejected\t") || verdict.starts_with("accepted\t"), "{verdict}");
    std::fs::write(g1.join("gate.txt"), &verdict).expect("write");
    std::fs::write(g1.join("best.txt"), "hce\n").expect("write");
    std::fs::write(g1.join("window.txt"), "gen 1-1\n").expect("write");
    std::fs::create_dir_all(g1.join("train")).expect("mkdir");
    std::fs::write(
        g1.join("train/metrics.csv"),
        "epoch,train_loss,val_loss,pos_per_s,lr,positions\n1,0.05,0.06,1000.0,1e-3,3000\n\
         2,0.04,0.045,1000.0,1e-4,3000\n",
    )
    .expect("write");
    std::fs::create_dir_all(g1.join("selfplay/minishogi")).expect("mkdir");
    std::fs::write(
        g1.join("selfplay/minishogi/summary.json"),
        r#"{"stats": {"games": 100, "positions": 4321}}"#,
    )
    .expect("write");
    std::fs::write(g1.join("times.tsv"), "selfplay\t60\ntrain\t30\nmatch\t30\n").expect("write");
    let o = report(&[Path::new("report"), &v]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let md = std::fs::read_to_string(v.join("summary.md")).expect("summary.md");
    assert_eq!(md, text(&o.stdout));
    let row = md.lines().find(|l| l.starts_with("| 1 |")).expect("generation 1 row");
    assert!(
        row.starts_with("| 1 | HCE | 100 | 4321 | gen 1-1: 3000 | 0.040000 | 0.045000 | "),
        "{row}"
    );
    assert!(row.ends_with(" | HCE | 2.0 |"), "{row}");
    // The W/D/L of the row is the match's (4 games).
    let wdl = row.split(" | ").nth(7).expect("W/D/L cell");
    let n: u64 = wdl.split('/').map(|x| x.parse::<u64>().expect("count")).sum();
    assert_eq!(n, 4, "{row}");
    let tsv = std::fs::read_to_string(v.join("summary.tsv")).expect("summary.tsv");
    assert!(tsv.starts_with("gen\tplayer\tgames\tpositions\t"), "{tsv}");
    assert_eq!(tsv.lines().count(), 3);
    let svg = std::fs::read_to_string(v.join("elo.svg")).expect("elo.svg");
    assert!(svg.starts_with("<svg") && svg.contains("<circle") && svg.contains("polyline"));
}

/// The loop scripts' tools in `DIR/bin`: the real `kage-selfplay` and a stand-in `kage-train`
/// that appends its arguments to `DIR/train.log` and writes a small random minishogi network
/// (`DIR/random.nnue`); the run directory is `DIR/run`.
struct StandIns {
    out: PathBuf,
    bin: PathBuf,
    net: PathBuf,
    log: PathBuf,
}

fn stand_ins(dir: &Path) -> StandIns {
    let (out, bin) = (dir.join("run"), dir.join("bin"));
    std::fs::create_dir_all(&bin).expect("mkdir");
    std::os::unix::fs::symlink(KAGE_SELFPLAY, bin.join("kage-selfplay")).expect("symlink");
    let net = dir.join("random.nnue");
    let variant = kage_engine::Variant::by_name("minishogi").expect("variant");
    std::fs::write(&net, kage_engine::nnue::random_network(variant, 3).to_bytes()).expect("net");
    let log = dir.join("train.log");
    executable(
        &bin.join("kage-train"),
        &format!(
            "echo \"$*\" >> {log:?}\n\
             while [ $# -gt 0 ]; do [ \"$1\" = --out ] && out=$2; shift; done\n\
             mkdir -p \"$out\" && cp {net:?} \"$out/net.nnue\"\n\
             printf 'epoch,train_loss,val_loss,pos_per_s,lr,positions\\n1,0.05,0.04,1.0,0.001,77\\n' \
             > \"$out/metrics.csv\"\n"
        ),
    );
    StandIns { out, bin, net, log }
}

impl StandIns {
    /// `bash` with the stand-in tools (`OUT`, `BIN`), none of the loop's optional settings
    /// from the caller's environment, and a tiny two-generation run (4 games, 2-game gates).
    fn bash(&self) -> Command {
        let mut c = Command::new("bash");
        c.env("OUT", &self.out).env("BIN", &self.bin);
        for k in ["VARIANTS", "NET", "TRAIN_ARGS", "SELFPLAY_ARGS", "MATCH_ARGS", "LAMBDA"] {
            c.env_remove(k);
        }
        c.envs([
            ("GENERATIONS", "2"),
            ("GAMES", "4"),
            ("NODES", "60"),
            ("MATCH_GAMES", "2"),
            ("MATCH_NODES", "100"),
            ("EPOCHS", "3"),
            ("THREADS", "2"),
        ]);
        c
    }
}

/// `scripts/loop.sh` with the real `kage-selfplay` and a stand-in `kage-train` that logs its
/// arguments and writes a small random network.
#[test]
fn loop_runs_gates_and_resumes_without_redoing_steps() {
    let dir = tempfile::tempdir().expect("temp dir");
    let tools = stand_ins(dir.path());
    let (out, log) = (tools.out.clone(), tools.log.clone());
    let run = |extra: &[(&str, &str)]| {
        let mut c = tools.bash();
        c.arg(repo().join("scripts/loop.sh")).env("WINDOW", "2");
        c.envs(extra.iter().copied()).output().expect("bash runs")
    };
    let o = run(&[]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v = out.join("minishogi");
    let train_log = std::fs::read_to_string(&log).expect("train log");
    let calls: Vec<&str> = train_log.lines().collect();
    assert_eq!(calls.len(), 2, "{train_log}");
    let pos = |g: u32| format!("{}/gen-{g}/selfplay/minishogi/positions.kdata", v.display());
    assert!(calls[0].contains(&format!("--data {} --out", pos(1))), "{}", calls[0]);
    assert!(calls[1].contains(&format!("--data {} {} --out", pos(1), pos(2))), "{}", calls[1]);
    assert!(
        calls[0].contains("--epochs 3 --lambda 0.75 --seed 2") && !calls[0].contains("--init-net")
    );
    // A random net loses to the hand-crafted evaluation: rejected, the best stays the HCE, so
    // generation 2 trains from scratch and its self-play is the HCE's again.
    for g in 1..=2 {
        let gate = std::fs::read_to_string(v.join(format!("gen-{g}/gate.txt"))).expect("gate");
        assert!(gate.starts_with("rejected\t"), "gen {g}: {gate}");
        assert_eq!(std::fs::read_to_string(v.join(format!("gen-{g}/best.txt"))).unwrap(), "hce\n");
    }
    assert!(!calls[1].contains("--init-net") && !v.join("best.nnue").exists());
    let md = std::fs::read_to_string(v.join("summary.md")).expect("summary.md");
    let row = md.lines().find(|l| l.starts_with("| 2 |")).expect("row 2");
    assert!(row.starts_with("| 2 | HCE | 4 | "), "{row}");
    assert!(
        row.contains(" | gen 1-2: 77 | 0.050000 | 0.040000 | ")
            && row.contains(" | rejected | HCE | ")
    );
    assert!(text(&o.stdout).ends_with(&md), "the last report is printed");

    // A rerun does nothing again; after losing generation 2's training and gate it redoes
    // just those.
    let times = std::fs::read_to_string(v.join("gen-1/times.tsv")).expect("times");
    let o = run(&[]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(std::fs::read_to_string(&log).unwrap().lines().count(), 2);
    assert_eq!(std::fs::read_to_string(v.join("gen-1/times.tsv")).unwrap(), times);
    for f in ["train.done", "match.done", "gate.txt", "best.txt"] {
        std::fs::remove_file(v.join("gen-2").join(f)).expect("remove marker");
    }
    std::fs::remove_dir_all(v.join("gen-2/match")).expect("remove match");
    let o = run(&[]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(std::fs::read_to_string(&log).unwrap().lines().count(), 3);
    assert!(text(&o.stderr).contains("minishogi gen 2: match gen-2 against hce"));
    assert!(!text(&o.stderr).contains("gen 2: self-play"), "{}", text(&o.stderr));
    assert!(v.join("gen-2/best.txt").is_file());

    // Other settings are refused; a larger GENERATIONS extends the run.
    let o = run(&[("GAMES", "7")]);
    assert!(!o.status.success() && text(&o.stderr).contains("other settings"));
    let o = run(&[("GENERATIONS", "3")]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let last = std::fs::read_to_string(&log).unwrap();
    let last = last.lines().last().expect("a call");
    assert!(last.contains(&format!("--data {} {} --out", pos(2), pos(3))), "window of 2: {last}");
    assert!(std::fs::read_to_string(v.join("summary.md")).unwrap().contains("\n| 3 | HCE | 4 |"));
}

/// The polish step (`step_polish` of `scripts/loop_lib.sh`, `POLISH=1` in `make_net.sh`):
/// after the loop, a net trained from scratch on every generation's positions (not only the
/// window), with its own target mix when POLISH_LAMBDA is set, gated against the best; it
/// reruns nothing once done.
#[test]
fn polish_trains_on_every_generation_from_scratch_and_gates() {
    let dir = tempfile::tempdir().expect("temp dir");
    let tools = stand_ins(dir.path());
    let (out, log) = (tools.out.clone(), tools.log.clone());
    let bash = |script: &str| {
        let mut c = tools.bash();
        c.arg("-c").arg(script).arg("polish-test");
        c.env("NET", &tools.net).env("LOOP_DIR", repo().join("scripts"));
        c.envs([("WINDOW", "1"), ("SEED", "5")]).output().expect("bash runs")
    };
    let loop_sh = repo().join("scripts/loop.sh");
    let o = bash(&format!("bash {loop_sh:?}"));
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v = out.join("minishogi");
    // Generation 0 is the given net, so the best after generation 1 is a net (gen-0's, or
    // generation 1's): generation 2's training starts from it, the polish does not.
    let best = std::fs::read_to_string(v.join("gen-1/best.txt")).expect("best");
    let polish = format!(
        "POLISH_LAMBDA=0.5; . {:?}; loop_defaults; step_polish minishogi 2",
        repo().join("scripts/loop_lib.sh")
    );
    let o = bash(&polish);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let calls = std::fs::read_to_string(&log).expect("train log");
    assert_eq!(calls.lines().count(), 3, "{calls}");
    let last = calls.lines().last().expect("the polish's call");
    let pos = |g: u32| format!("{}/gen-{g}/selfplay/minishogi/positions.kdata", v.display());
    // WINDOW is 1, yet the polish trains on both generations, from scratch, with seed SEED+G.
    assert!(last.contains(&format!("--data {} {} --out", pos(1), pos(2))), "{last}");
    assert!(last.contains(&format!("--out {}/polish-gen-2/train", v.display())), "{last}");
    assert!(!last.contains("--init-net"), "{last}");
    let second = calls.lines().nth(1).expect("generation 2's call");
    assert!(second.contains(&format!("--init-net {}/{}", v.display(), best.trim())), "{second}");
    assert!(last.contains("--seed 7"), "{last}");
    // The polish's own target mix (POLISH_LAMBDA); the loop's generations keep LAMBDA.
    assert!(last.contains("--lambda 0.5 "), "{last}");
    assert!(second.contains("--lambda 0.75 "), "{second}");
    let gate = std::fs::read_to_string(v.join("polish-gen-2/gate.txt")).expect("gate");
    let accepted = gate.starts_with("accepted\t");
    assert!(accepted || gate.starts_with("rejected\t"), "{gate}");
    assert_eq!(v.join("polish-gen-2/best.nnue").is_file(), accepted);
    assert_eq!(v.join("polish-gen-2/anchor.done").is_file(), accepted);
    assert!(v.join("polish-gen-2/match/summary.json").is_file());
    // Done steps are not redone.
    let o = bash(&polish);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(std::fs::read_to_string(&log).unwrap().lines().count(), 3);
    // POLISH_INIT=previous: the same training from the best net before generation 2.
    std::fs::remove_dir_all(v.join("polish-gen-2")).expect("remove the polish");
    let o = bash(&format!("POLISH_INIT=previous; {polish}"));
    assert!(o.status.success(), "{}", text(&o.stderr));
    let calls = std::fs::read_to_string(&log).expect("train log");
    assert_eq!(calls.lines().count(), 4, "{calls}");
    let last = calls.lines().last().expect("the polish's call");
    assert!(last.contains(&format!("--init-net {}/{}", v.display(), best.trim())), "{last}");
    assert!(last.contains(&format!("--data {} {} --out", pos(1), pos(2))), "{last}");
}

/// `scripts/refine_net.sh`: self-play by the given net, a net trained from it on every
/// generation of the run plus the new games, an equal-time match of the two; a rerun redoes
/// nothing, and a second step trains on the first step's games too.
#[test]
fn refine_plays_trains_on_all_generations_and_matches() {
    let dir = tempfile::tempdir().expect("temp dir");
    let tools = stand_ins(dir.path());
    let (out, log) = (tools.out.clone(), tools.log.clone());
    let o = tools.bash().arg(repo().join("scripts/loop.sh")).env("WINDOW", "1").output();
    let o = o.expect("bash runs");
    assert!(o.status.success(), "{}", text(&o.stderr));
    let refine = |step: &str| {
        let mut c = tools.bash();
        c.arg(repo().join("scripts/refine_net.sh")).arg("minishogi");
        c.env("NET", &tools.net).env_remove("INSTALL");
        c.envs([
            ("REFINE_STEP", step),
            ("REFINE_GAMES", "4"),
            ("REFINE_NODES", "60"),
            ("REFINE_EPOCHS", "3"),
            ("REFINE_LAMBDA", "0.5"),
            ("REFINE_TRAIN_SEED", "9"),
            ("REFINE_MATCH_GAMES", "2"),
            ("REFINE_MOVETIME", "5"),
        ]);
        c.output().expect("bash runs")
    };
    let o = refine("1");
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v = out.join("minishogi");
    let r1 = v.join("refine-1");
    assert!(r1.join("selfplay/minishogi/positions.kdata").is_file());
    assert_eq!(std::fs::read(r1.join("start.nnue")).unwrap(), std::fs::read(&tools.net).unwrap());
    let calls = std::fs::read_to_string(&log).expect("train log");
    assert_eq!(calls.lines().count(), 3, "two generations, then the refine step: {calls}");
    let last = calls.lines().last().expect("the refine call");
    let pos = |g: u32| format!("{}/gen-{g}/selfplay/minishogi/positions.kdata", v.display());
    let new = format!("{}/selfplay/minishogi/positions.kdata", r1.display());
    assert!(last.contains(&format!("--data {} {} {new} --out", pos(1), pos(2))), "{last}");
    assert!(last.contains(&format!("--init-net {}/start.nnue", r1.display())), "{last}");
    assert!(last.contains("--lambda 0.5 --seed 9"), "{last}");
    let summary = std::fs::read_to_string(r1.join("match/summary.json")).expect("summary");
    assert!(summary.contains("\"elo\""), "{summary}");
    assert!(text(&o.stdout).contains("refine_net: ") && text(&o.stdout).contains("(2 games)"));
    // Done steps are not redone.
    let o = refine("1");
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(std::fs::read_to_string(&log).unwrap().lines().count(), 3);
    // Step 2 trains on step 1's games as well as its own.
    let o = refine("2");
    assert!(o.status.success(), "{}", text(&o.stderr));
    let calls = std::fs::read_to_string(&log).expect("train log");
    let last = calls.lines().last().expect("step 2's call");
    let new2 = format!("{}/refine-2/selfplay/minishogi/positions.kdata", v.display());
    assert!(last.contains(&format!("{new} {new2} --out")), "{last}");
}
