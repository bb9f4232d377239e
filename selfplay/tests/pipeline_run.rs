//! The pipeline's run-time rules without tools: who the best player is after each gate,
//! which steps run or are skipped, the command lines each step runs, and the Slurm job
//! graph. (`.ci/pipeline_check.sh` runs a real recipe locally, on a real Slurm cluster and
//! through `reproduce`, and compares the hashes.)

use std::collections::BTreeMap;

use kage_selfplay::pipeline::command::{self, Tool};
use kage_selfplay::pipeline::layout::Layout;
use kage_selfplay::pipeline::slurm::{self, SlurmOptions};
use kage_selfplay::pipeline::{
    Action, Outcome, Plan, Player, Recipe, Resolved, Run, RunState, StepConfig, plan,
};

const TWO_WITH_POLISH_AND_REFINE: &str = "variant = \"minishogi\"\n[generations]\ncount = 2\n\
    [polish]\n[refine]\nrounds = 1\n";

fn planned(text: &str) -> Plan {
    plan(&Recipe::from_toml(text).expect("recipe"), &BTreeMap::new()).expect("plan")
}

fn id(p: &Plan, name: &str) -> kage_selfplay::pipeline::ContentId {
    p.named(name).unwrap_or_else(|| panic!("no step {name}")).id
}

/// The state after the named steps ended as given (`Some(bool)`: a gate's decision).
fn state<'a>(p: &'a Plan, done: &[(&str, Option<bool>)], skipped: &[&str]) -> RunState<'a> {
    let mut s = RunState::new(p, BTreeMap::new());
    for (n, accepted) in done {
        s.set(id(p, n), Outcome::Done { accepted: *accepted });
    }
    for n in skipped {
        s.set(id(p, n), Outcome::Skipped);
    }
    s
}

fn action(s: &RunState, name: &str) -> Action {
    s.action(s.plan().named(name).expect(name))
}

const GEN1: [(&str, Option<bool>); 2] = [("gen-1/selfplay", None), ("gen-1/train", None)];

#[test]
fn steps_wait_for_their_predecessors() {
    let p = planned(TWO_WITH_POLISH_AND_REFINE);
    let s = state(&p, &[], &[]);
    assert_eq!(action(&s, "gen-1/selfplay"), Action::Run);
    assert_eq!(action(&s, "gen-1/train"), Action::Wait(id(&p, "gen-1/selfplay")));
    let s = state(&p, &GEN1, &[]);
    assert_eq!(action(&s, "gen-1/gate"), Action::Run);
    assert_eq!(action(&s, "gen-2/selfplay"), Action::Wait(id(&p, "gen-1/gate")));
    assert_eq!(action(&s, "gen-1/train"), Action::Finished(Outcome::Done { accepted: None }));
}

#[test]
fn the_best_player_follows_the_gates() {
    let p = planned(TWO_WITH_POLISH_AND_REFINE);
    let gen2_player = |s: &RunState| match &p.named("gen-2/selfplay").unwrap().config {
        StepConfig::Selfplay(sp) => s.resolve(&sp.player).expect("resolved"),
        _ => unreachable!(),
    };
    let mut accepted = GEN1.to_vec();
    accepted.push(("gen-1/gate", Some(true)));
    assert_eq!(gen2_player(&state(&p, &accepted, &[])), Resolved::Net(id(&p, "gen-1/train")));
    let mut rejected = GEN1.to_vec();
    rejected.push(("gen-1/gate", Some(false)));
    assert_eq!(gen2_player(&state(&p, &rejected, &[])), Resolved::Hce);
    // A skipped gate counts as rejected.
    assert_eq!(gen2_player(&state(&p, &GEN1, &["gen-1/gate"])), Resolved::Hce);
    // Before the gate has run, nobody knows.
    assert!(state(&p, &GEN1, &[]).resolve(&Player::BestAfter(id(&p, "gen-1/gate"))).is_err());
    // Rejected at gen 2 after an accepted gen 1: the best is still gen 1's net.
    let mut s = state(&p, &accepted, &[]);
    for n in ["gen-2/selfplay", "gen-2/train"] {
        s.set(id(&p, n), Outcome::Done { accepted: None });
    }
    s.set(id(&p, "gen-2/gate"), Outcome::Done { accepted: Some(false) });
    let best = s.resolve(&Player::BestAfter(id(&p, "gen-2/gate"))).unwrap();
    assert_eq!(best, Resolved::Net(id(&p, "gen-1/train")));
    assert_eq!(action(&s, "anchor"), Action::Run);
}

#[test]
fn when_no_net_beats_generation_0_the_later_stages_are_skipped() {
    let p = planned(TWO_WITH_POLISH_AND_REFINE);
    let mut done = Vec::new();
    for g in 1..=2 {
        for k in ["selfplay", "train"] {
            done.push((format!("gen-{g}/{k}"), None));
        }
        done.push((format!("gen-{g}/gate"), Some(false)));
    }
    let done: Vec<(&str, Option<bool>)> = done.iter().map(|(n, a)| (n.as_str(), *a)).collect();
    let mut s = state(&p, &done, &[]);
    let skip = |a: Action| match a {
        Action::Skip(why) => why,
        other => panic!("not skipped: {other:?}"),
    };
    assert!(skip(action(&s, "anchor")).contains("generation 0"));
    assert!(skip(action(&s, "polish/train")).contains("no net"));
    s.set(id(&p, "anchor"), Outcome::Skipped);
    s.set(id(&p, "polish/train"), Outcome::Skipped);
    assert!(skip(action(&s, "polish/gate")).contains("polish/train was skipped"));
    s.set(id(&p, "polish/gate"), Outcome::Skipped);
    assert!(skip(action(&s, "polish/anchor")).contains("polish/train was skipped"));
    s.set(id(&p, "polish/anchor"), Outcome::Skipped);
    assert!(skip(action(&s, "refine-1/selfplay")).contains("no net"));
    s.set(id(&p, "refine-1/selfplay"), Outcome::Skipped);
    assert!(skip(action(&s, "refine-1/train")).contains("skipped"));
    s.set(id(&p, "refine-1/train"), Outcome::Skipped);
    s.set(id(&p, "refine-1/gate"), Outcome::Skipped);
    assert_eq!(s.result().unwrap(), Resolved::Hce);
}

fn arg_after<'a>(args: &'a [String], flag: &str) -> &'a str {
    let i = args.iter().position(|a| a == flag).unwrap_or_else(|| panic!("no {flag} in {args:?}"));
    &args[i + 1]
}

#[test]
fn commands_name_the_resolved_players_and_the_step_seed() {
    let p = planned("variant = \"minishogi\"\n[generations]\ncount = 2\nshards = 2\n");
    let l = Layout::new(&p);
    let step = p.named("gen-2/selfplay").unwrap();
    let StepConfig::Selfplay(sp) = &step.config else { unreachable!() };
    let train1 = id(&p, "gen-1/train");
    let inv = command::selfplay(&l, step, sp, &Resolved::Net(train1), 3, Some(1));
    assert_eq!(inv.tool, Tool::Selfplay);
    assert_eq!(arg_after(&inv.args, "--seed"), step.seed.to_string());
    assert_eq!(arg_after(&inv.args, "--threads"), "3");
    let net = arg_after(&inv.args, "--net");
    assert!(net.starts_with("steps/gen-1-train-") && net.ends_with("/train/net.nnue"), "{net}");
    assert_eq!((arg_after(&inv.args, "--shard"), arg_after(&inv.args, "--shards")), ("1", "2"));
    let hce = command::selfplay(&l, step, sp, &Resolved::Hce, 1, None);
    assert_eq!(arg_after(&hce.args, "--eval"), "hce");
    assert!(!hce.args.iter().any(|a| a == "--shard"));

    let merge = p.named("gen-2/merge").unwrap();
    let m = command::merge(&l, merge, step, "positions");
    assert_eq!(m.tool, Tool::Data);
    assert_eq!(m.args.len(), 5, "merge --out OUT and two shards: {:?}", m.args);
    assert!(m.args[4].ends_with("shard-0001-of-0002/positions.kdata"));

    let train = p.named("gen-2/train").unwrap();
    let StepConfig::Train(t) = &train.config else { unreachable!() };
    let fresh = command::train(&l, train, t, &Resolved::Net(train1), 2, false);
    let data: Vec<&String> = fresh.args.iter().filter(|a| a.ends_with("positions.kdata")).collect();
    assert_eq!(data.len(), 2, "both merges' positions: {:?}", fresh.args);
    assert!(arg_after(&fresh.args, "--init-net").contains("gen-1-train-"));
    let resumed = command::train(&l, train, t, &Resolved::Net(train1), 2, true);
    assert_eq!(resumed.args[0], "--resume");
    assert_eq!(resumed.args.len(), 4);

    let gate = p.named("gen-2/gate").unwrap();
    let StepConfig::Match(mt) = &gate.config else { unreachable!() };
    let inv =
        command::matches(&l, gate, mt, &Resolved::Net(id(&p, "gen-2/train")), &Resolved::Hce, 2);
    let joined = inv.args.join(" ");
    assert!(joined.contains("name=gen-2 --engine builtin eval=hce name=hce"), "{joined}");
    assert!(joined.contains("--sprt --elo0 0 --elo1 10"), "{joined}");
}

#[test]
fn a_user_variant_runs_with_its_file_copied_into_the_run() {
    let text = "variant = \"mine\"\nvariant_file = \"rules/mine.ini\"\n";
    let r = Recipe::from_toml(text).expect("recipe");
    let hash = kage_selfplay::pipeline::ContentId::of_bytes(b"rules");
    let p = plan(&r, &BTreeMap::from([("rules/mine.ini".into(), hash)])).expect("plan");
    let l = Layout::new(&p);
    let step = p.named("gen-1/selfplay").unwrap();
    let StepConfig::Selfplay(sp) = &step.config else { unreachable!() };
    let inv = command::selfplay(&l, step, sp, &Resolved::Hce, 1, None);
    assert_eq!(arg_after(&inv.args, "--variant"), "mine");
    assert_eq!(arg_after(&inv.args, "--variant-file"), format!("inputs/{hash}.ini"));
    // Without the file's hash the recipe cannot be planned; a built-in recipe names no file.
    assert!(plan(&r, &BTreeMap::new()).is_err());
    let builtin = planned("variant = \"minishogi\"\n");
    let s = builtin.named("gen-1/selfplay").unwrap();
    let StepConfig::Selfplay(sp) = &s.config else { unreachable!() };
    let inv = command::selfplay(&Layout::new(&builtin), s, sp, &Resolved::Hce, 1, None);
    assert!(!inv.args.iter().any(|a| a == "--variant-file"));
    assert!(Recipe::from_toml("variant = \"mine\"\n").is_err(), "not built in, no file");
}

#[test]
fn slurm_jobs_follow_the_graph_and_leave_out_finished_steps() {
    let dir = tempfile::tempdir().expect("dir");
    let text = "variant = \"minishogi\"\n[generations]\ncount = 2\nshards = 3\n";
    let run = Run::create(dir.path(), text).expect("run");
    let opts = SlurmOptions {
        bin_dir: "/opt/kage/bin".into(),
        root: dir.path().into(),
        threads: 2,
        sbatch_args: vec!["--partition=cpu".into()],
    };
    let jobs = slurm::jobs(&run, &opts).expect("jobs");
    let names: Vec<&str> = jobs.iter().map(|j| j.step.as_str()).collect();
    let planned: Vec<&str> = run.plan().steps.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, planned);
    let sp = &jobs[0];
    assert_eq!((sp.step.as_str(), sp.array, sp.after.len()), ("gen-1/selfplay", Some(3), 0));
    assert!(sp.script.contains("--shard \"$SLURM_ARRAY_TASK_ID\""));
    assert!(sp.script.contains("#SBATCH --requeue") && sp.script.contains("--cpus-per-task=2"));
    let train2 = jobs.iter().find(|j| j.step == "gen-2/train").unwrap();
    assert_eq!(train2.after, ["gen-1/merge", "gen-2/merge", "gen-1/gate"]);
    let args = slurm::sbatch_args(train2, &opts, &["11".into(), "12".into()], "x.sh".as_ref());
    assert_eq!(
        args,
        [
            "--parsable",
            "--dependency=afterok:11:12",
            "--kill-on-invalid-dep=yes",
            "--partition=cpu",
            "x.sh"
        ]
    );
    // A finished step has no job, and its dependents do not wait for it.
    let first = &run.plan().steps[0];
    let outcome = Layout::new(run.plan()).outcome_file(first);
    std::fs::create_dir_all(dir.path().join(outcome.parent().unwrap())).unwrap();
    std::fs::write(dir.path().join(&outcome), "status = \"done\"\n").unwrap();
    let jobs = slurm::jobs(&run, &opts).expect("jobs");
    assert_eq!(jobs.len(), planned.len() - 1);
    assert!(jobs[0].after.is_empty(), "gen-1/merge waits for nothing: {:?}", jobs[0].after);
    // Another recipe in the same directory is refused.
    assert!(Run::create(dir.path(), "variant = \"shinobi\"\n").is_err());
}
