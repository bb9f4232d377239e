//! The typed pipeline's pure part: the job graph a recipe plans to, content ids and seeds,
//! the gate decision, lineage files and recipe errors. Nothing here runs a tool.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use kage_selfplay::pipeline::gate::{EloFigures, SprtFigures, SprtVerdict};
use kage_selfplay::pipeline::recipe::{Generations, Matches, Refine};
use kage_selfplay::pipeline::{
    Condition, ContentId, GateError, Lineage, LineageFile, MatchStatus, MatchSummary, Plan,
    PlanError, Player, Reason, Recipe, RecipeError, StepConfig, StepKind, decide, plan,
};

const THREE_WITH_POLISH: &str = "variant = \"minishogi\"\n[generations]\ncount = 3\n[polish]\n";

fn recipe(text: &str) -> Recipe {
    Recipe::from_toml(text).unwrap_or_else(|e| panic!("recipe: {e}"))
}

fn planned(text: &str) -> Plan {
    plan(&recipe(text), &BTreeMap::new()).expect("plan")
}

fn names(plan: &Plan, ids: &[ContentId]) -> Vec<String> {
    ids.iter().map(|id| plan.step(*id).expect("known id").name.clone()).collect()
}

fn preds(plan: &Plan, name: &str) -> Vec<String> {
    names(plan, &plan.named(name).expect(name).predecessors)
}

#[test]
fn three_generations_with_polish_have_the_scripts_steps() {
    let p = planned(THREE_WITH_POLISH);
    let got: Vec<(&str, StepKind)> = p.steps.iter().map(|s| (s.name.as_str(), s.kind())).collect();
    use StepKind::*;
    let mut want = Vec::new();
    for g in 1..=3 {
        want.push((format!("gen-{g}/selfplay"), Selfplay));
        want.push((format!("gen-{g}/train"), Train));
        want.push((format!("gen-{g}/gate"), Gate));
    }
    for (n, k) in [
        ("anchor", Anchor),
        ("polish/train", Train),
        ("polish/gate", Gate),
        ("polish/anchor", Anchor),
    ] {
        want.push((n.to_string(), k));
    }
    let want: Vec<(&str, StepKind)> = want.iter().map(|(n, k)| (n.as_str(), *k)).collect();
    assert_eq!(got, want);
    assert_eq!(p.result, p.named("polish/gate").unwrap().id);
    assert!(p.files.is_empty());
}

#[test]
fn predecessors_follow_the_loop() {
    let p = planned(THREE_WITH_POLISH);
    let none: Vec<String> = Vec::new();
    assert_eq!(preds(&p, "gen-1/selfplay"), none);
    assert_eq!(preds(&p, "gen-1/train"), ["gen-1/selfplay"]);
    assert_eq!(preds(&p, "gen-1/gate"), ["gen-1/train"]);
    assert_eq!(preds(&p, "gen-2/selfplay"), ["gen-1/gate"]);
    assert_eq!(preds(&p, "gen-2/train"), ["gen-1/selfplay", "gen-2/selfplay", "gen-1/gate"]);
    assert_eq!(preds(&p, "gen-2/gate"), ["gen-2/train", "gen-1/gate"]);
    assert_eq!(
        preds(&p, "gen-3/train"),
        ["gen-1/selfplay", "gen-2/selfplay", "gen-3/selfplay", "gen-2/gate"]
    );
    assert_eq!(preds(&p, "anchor"), ["gen-3/gate"]);
    // From scratch on every generation; only when the loop's best is a net.
    assert_eq!(
        preds(&p, "polish/train"),
        ["gen-1/selfplay", "gen-2/selfplay", "gen-3/selfplay", "gen-3/gate"]
    );
    assert_eq!(preds(&p, "polish/gate"), ["polish/train", "gen-3/gate"]);
    assert_eq!(preds(&p, "polish/anchor"), ["polish/train", "polish/gate"]);
    let gate3 = p.named("gen-3/gate").unwrap().id;
    assert_eq!(p.named("polish/train").unwrap().when, Condition::BestIsNet(gate3));
    assert_eq!(p.named("anchor").unwrap().when, Condition::BestChanged(gate3));
    let polish_gate = p.named("polish/gate").unwrap().id;
    assert_eq!(p.named("polish/anchor").unwrap().when, Condition::Accepted(polish_gate));
    // Every step after its predecessors, names unique.
    let mut seen = BTreeSet::new();
    for s in &p.steps {
        assert!(s.predecessors.iter().all(|d| seen.contains(d)), "{} before a predecessor", s.name);
        seen.insert(s.id);
    }
    let unique: BTreeSet<&str> = p.steps.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(unique.len(), p.steps.len());
}

#[test]
fn the_window_limits_training_data_and_previous_polish_starts_from_the_last_init() {
    let p = planned(
        "variant = \"minishogi\"\n[generations]\ncount = 3\nwindow = 2\n[polish]\ninit = \"previous\"\n",
    );
    assert_eq!(preds(&p, "gen-3/train"), ["gen-2/selfplay", "gen-3/selfplay", "gen-2/gate"]);
    let StepConfig::Train(t) = &p.named("polish/train").unwrap().config else { panic!("train") };
    assert_eq!(t.init, Player::BestAfter(p.named("gen-2/gate").unwrap().id));
    assert_eq!(t.data.len(), 3);
}

/// The names of the steps whose ids differ between `a` and `b` (same step names).
fn changed(a: &Plan, b: &Plan) -> BTreeSet<String> {
    assert_eq!(a.steps.len(), b.steps.len());
    let ids: BTreeMap<&str, ContentId> = b.steps.iter().map(|s| (s.name.as_str(), s.id)).collect();
    a.steps.iter().filter(|s| ids[s.name.as_str()] != s.id).map(|s| s.name.clone()).collect()
}

/// `names` and every step of `plan` that descends from them.
fn with_descendants(plan: &Plan, names: &[&str]) -> BTreeSet<String> {
    let mut out: BTreeSet<String> = names.iter().map(|n| n.to_string()).collect();
    for n in names {
        let id = plan.named(n).expect(n).id;
        out.extend(plan.descendants(id).into_iter().map(|d| plan.step(d).unwrap().name.clone()));
    }
    out
}

#[test]
fn a_setting_changes_exactly_its_steps_and_their_descendants() {
    let base = planned(THREE_WITH_POLISH);
    let cases: [(&str, &[&str]); 4] = [
        ("[polish]\nlambda = 0.5\n", &["polish/train"]),
        ("[generations]\ncount = 3\nwindow = 2\n[polish]\n", &["gen-3/train"]),
        ("[generations]\ncount = 3\nepochs = 20\n[polish]\n", &["gen-1/train", "polish/train"]),
        (
            "[generations]\ncount = 3\n[matches]\nanchor = true\nelo1 = 5.0\n[polish]\n",
            &["gen-1/gate"],
        ),
    ];
    for (extra, direct) in cases {
        let text = if extra.starts_with("[polish]") {
            format!("variant = \"minishogi\"\n[generations]\ncount = 3\n{extra}")
        } else {
            format!("variant = \"minishogi\"\n{extra}")
        };
        let other = planned(&text);
        assert_eq!(changed(&base, &other), with_descendants(&base, direct), "{extra}");
    }
    let polish = with_descendants(&base, &["polish/train"]);
    assert_eq!(polish, ["polish/anchor", "polish/gate", "polish/train"].map(String::from).into());
}

#[test]
fn refinement_time_changes_only_its_gate() {
    let text = "variant = \"minishogi\"\n[refine]\n";
    let a = planned(text);
    let b = planned(&format!("{text}movetime_ms = 50\n"));
    assert_eq!(changed(&a, &b), BTreeSet::from(["refine-1/gate".to_string()]));
}

#[test]
fn seeds_differ_between_steps_and_are_stable() {
    let p = planned(THREE_WITH_POLISH);
    let seeds: BTreeSet<u64> = p.steps.iter().map(|s| s.seed).collect();
    assert_eq!(seeds.len(), p.steps.len());
    assert!(p.steps.iter().all(|s| s.seed == s.id.seed() && s.seed <= i64::MAX as u64));
    assert_eq!(planned(THREE_WITH_POLISH), p);
    // Pinned: a change to the hashed form (field names or order, kinds, the tag) must be
    // deliberate (raise the tag in pipeline/id.rs and these values).
    let first = p.named("gen-1/selfplay").unwrap();
    assert_eq!(first.id.to_string(), GEN1_SELFPLAY_ID);
    assert_eq!(first.seed, GEN1_SELFPLAY_SEED);
    assert_eq!(first.dir_name(), format!("gen-1-selfplay-{}", &GEN1_SELFPLAY_ID[..12]));
    // The root seed reaches every step.
    let other = planned(&format!("seed = 2\n{THREE_WITH_POLISH}"));
    assert_eq!(changed(&p, &other).len(), p.steps.len());
}

const GEN1_SELFPLAY_ID: &str = "807ee273990d82f6465cf57350ce0348eb66cad75c24f67218eb58b54277eeaf";
const GEN1_SELFPLAY_SEED: u64 = 6065017979217164336;

#[test]
fn shards_add_merge_steps_that_training_reads() {
    let p = planned("variant = \"minishogi\"\n[generations]\ncount = 2\nshards = 4\n");
    let kinds: Vec<StepKind> = p.steps.iter().take(4).map(|s| s.kind()).collect();
    assert_eq!(kinds, [StepKind::Selfplay, StepKind::Merge, StepKind::Train, StepKind::Gate]);
    assert_eq!(preds(&p, "gen-1/merge"), ["gen-1/selfplay"]);
    assert_eq!(preds(&p, "gen-2/train"), ["gen-1/merge", "gen-2/merge", "gen-1/gate"]);
    assert_eq!(p.steps.len(), 2 * 4 + 1);
}

#[test]
fn a_start_net_is_an_input_by_content_hash() {
    let r = recipe("variant = \"shinobi\"\nstart = { net = \"nets/s.nnue\" }\n[refine]\n");
    let missing = plan(&r, &BTreeMap::new());
    assert_eq!(missing, Err(PlanError::MissingHash(PathBuf::from("nets/s.nnue"))));
    let hash = ContentId::of_bytes(b"net bytes");
    let p = plan(&r, &BTreeMap::from([(PathBuf::from("nets/s.nnue"), hash)])).expect("plan");
    assert_eq!(p.files, BTreeMap::from([(hash, PathBuf::from("nets/s.nnue"))]));
    let StepConfig::Selfplay(s) = &p.named("gen-1/selfplay").unwrap().config else { panic!() };
    assert_eq!(s.player, Player::File(hash));
    let names: Vec<&str> = p.steps.iter().skip(9).map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["anchor", "refine-1/selfplay", "refine-1/train", "refine-1/gate"]);
    assert_eq!(p.result, p.named("refine-1/gate").unwrap().id);
    // Another net's bytes: every id changes.
    let other = ContentId::of_bytes(b"other bytes");
    let q = plan(&r, &BTreeMap::from([(PathBuf::from("nets/s.nnue"), other)])).expect("plan");
    assert_eq!(changed(&p, &q).len(), p.steps.len());
}

#[test]
fn the_minishogi_recipe_is_the_bash_loops_settings() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/recipes/minishogi.toml");
    let r = Recipe::load(&path).expect("example recipe");
    assert_eq!((r.variant.as_str(), r.seed), ("minishogi", 1));
    assert_eq!(r.generations, Generations::default());
    assert_eq!(r.matches, Matches::default());
    assert_eq!(r.polish, None);
    let refine = Refine {
        games: 8000,
        selfplay_args: vec!["--nodes-jitter".into(), "10".into()],
        lambda: 0.75,
        ..Refine::default()
    };
    assert_eq!(r.refine, Some(refine));
    let p = plan(&r, &BTreeMap::new()).expect("plan");
    assert_eq!(p.steps.len(), 3 * 3 + 1 + 3);
    let StepConfig::Match(m) = &p.named("refine-1/gate").unwrap().config else { panic!() };
    assert_eq!((m.games, m.sprt), (200, None));
}

#[test]
fn every_recipe_in_scripts_plans() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/recipes");
    let mut seen = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("scripts/recipes") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "toml") {
            let r = Recipe::load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            // The files a recipe names are read relative to the repository's root.
            let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
            let files = kage_selfplay::pipeline::exec::input_paths(&r)
                .into_iter()
                .map(|f| {
                    (f.clone(), ContentId::of_bytes(&std::fs::read(root.join(f)).expect("input")))
                })
                .collect();
            let p = plan(&r, &files).expect("plan");
            assert!(p.step(p.result).is_some(), "{}", path.display());
            if let Some(f) = &r.variant_file {
                // A user variant's rules are part of every self-play, train and match step.
                let rules = files[f];
                assert!(p.steps.iter().all(|s| match &s.config {
                    StepConfig::Selfplay(x) => x.rules == Some(rules),
                    StepConfig::Train(x) => x.rules == Some(rules),
                    StepConfig::Match(x) => x.rules == Some(rules),
                    StepConfig::Merge(_) => true,
                }));
                assert_eq!(p.files.get(&rules), Some(f));
            }
            seen.push(path.file_stem().unwrap().to_string_lossy().into_owned());
        }
    }
    seen.sort();
    assert_eq!(seen, ["gorogoroplus", "minishogi", "shinobi", "shinobiplus", "tiny", "tiny-user"]);
}

fn summary(elo: Option<(f64, f64)>, sprt: Option<SprtVerdict>) -> MatchSummary {
    MatchSummary {
        status: MatchStatus::Complete,
        elo: elo.map(|(elo, elo95)| EloFigures { games: 400, elo, elo95 }),
        sprt: sprt.map(|verdict| SprtFigures { llr: 0.5, lower: -2.94, upper: 2.94, verdict }),
    }
}

#[test]
fn the_gate_decides_on_the_boundaries() {
    let accepted = |s: &MatchSummary| decide(s).expect("decision").accepted;
    // No GSPRT decision: the lower end of the interval must be strictly above 0.
    assert!(!accepted(&summary(Some((10.0, 10.0)), None)));
    assert!(accepted(&summary(Some((10.0, 9.999)), None)));
    assert!(!accepted(&summary(Some((-5.0, 3.0)), Some(SprtVerdict::Continue))));
    assert!(!accepted(&summary(Some((f64::NAN, 3.0)), None)));
    // A GSPRT bound decides whatever the interval says.
    assert!(accepted(&summary(Some((1.0, 30.0)), Some(SprtVerdict::Accepted))));
    assert!(!accepted(&summary(Some((40.0, 10.0)), Some(SprtVerdict::Rejected))));
    let none = decide(&summary(None, None)).unwrap();
    assert_eq!((none.accepted, none.reason), (false, Reason::NoGames));
    let mut s = summary(Some((50.0, 10.0)), Some(SprtVerdict::Accepted));
    s.status = MatchStatus::Interrupted;
    assert_eq!(decide(&s), Err(GateError::Interrupted));
}

#[test]
fn the_gate_reads_summary_json_and_writes_loop_reports_words() {
    let text = r#"{"status": "complete", "variant": "minishogi", "engines": ["gen-1", "hce"],
        "elo": {"games": 400, "score": 0.6, "elo": 70.4, "elo95": 33.1, "los": 1.0,
                "nelo": 1.0, "nelo95": 1.0},
        "sprt": {"sprt": {"elo0": 0.0, "elo1": 10.0, "alpha": 0.05, "beta": 0.05,
                          "model": "logistic"},
                 "llr": 1.234, "lower": -2.944, "upper": 2.944, "verdict": "continue"},
        "pairs": 200}"#;
    let d = decide(&MatchSummary::from_json(text).expect("summary")).expect("decision");
    assert_eq!(d.gate_line(), "accepted\tno GSPRT decision; Elo lower bound 37.3 > 0");
    let h0 = text.replace("\"continue\"", "\"rejected\"").replace("1.234", "-2.95");
    let d = decide(&MatchSummary::from_json(&h0).unwrap()).unwrap();
    assert_eq!(d.gate_line(), "rejected\tGSPRT accepted H0 (LLR -2.95 <= -2.94)");
    let anchor = r#"{"status": "complete", "elo": {"games": 2, "elo": -3.0, "elo95": 395.5},
        "sprt": null}"#;
    let d = decide(&MatchSummary::from_json(anchor).unwrap()).unwrap();
    assert_eq!(d.gate_line(), "rejected\tno GSPRT decision; Elo lower bound -398.5 <= 0");
    assert!(matches!(MatchSummary::from_json("{}"), Err(GateError::Summary(_))));
}

#[test]
fn lineage_round_trips() {
    let p = planned(THREE_WITH_POLISH);
    let step = p.named("polish/gate").unwrap();
    let input = LineageFile {
        role: "candidate".into(),
        path: "polish-train/net.nnue".into(),
        sha256: ContentId::of_bytes(b"net"),
        step: Some(p.named("polish/train").unwrap().id),
    };
    let outside = LineageFile { step: None, role: "opponent".into(), ..input.clone() };
    let lineage = Lineage::of_step(step, "0123abc", vec![input, outside]);
    let dir = tempfile::tempdir().expect("dir");
    let path = Lineage::path_in(dir.path());
    lineage.write(&path).expect("write");
    let text = std::fs::read_to_string(&path).expect("text");
    for line in ["kind = \"gate\"", "git_revision = \"0123abc\"", "[[inputs]]", "[config.match]"] {
        assert!(text.lines().any(|l| l == line), "{line} missing in\n{text}");
    }
    assert_eq!(Lineage::read(&path).expect("read"), lineage);
    let names: Vec<_> =
        std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, ["lineage.toml"]);
    for s in &p.steps {
        let l = Lineage::of_step(s, "rev", Vec::new());
        assert_eq!(Lineage::from_toml(&l.to_toml(), &path).expect(&s.name), l);
    }
    let bumped = lineage.to_toml().replace("format = 1", "format = 9");
    assert!(Lineage::from_toml(&bumped, &path).is_err());
    let beside = Lineage::path_beside(Path::new("engine/nets/minishogi.nnue"));
    assert_eq!(beside, Path::new("engine/nets/minishogi.lineage.toml"));
}

#[test]
fn a_bad_recipe_names_its_field() {
    let cases = [
        ("variant = \"nochess\"", "variant"),
        ("variant = \"minishogi\"\n[generations]\nwindow = 0", "generations.window"),
        ("variant = \"minishogi\"\n[generations]\nlambda = 1.5", "generations.lambda"),
        ("variant = \"minishogi\"\n[generations]\nshards = 9\ngames = 8", "generations.shards"),
        (
            "variant = \"minishogi\"\n[generations]\nselfplay_args = [\"--seed=3\"]",
            "generations.selfplay_args",
        ),
        ("variant = \"minishogi\"\n[matches]\nelo0 = 5.0\nelo1 = 5.0", "matches.elo1"),
        ("variant = \"minishogi\"\n[polish]\nlambda = -0.1", "polish.lambda"),
        ("variant = \"minishogi\"\n[refine]\nmovetime_ms = 0", "refine.movetime_ms"),
        ("variant = \"minishogi\"\nstart = { net = \"\" }", "start.net"),
    ];
    for (text, field) in cases {
        let e = Recipe::from_toml(text).expect_err(text);
        assert_eq!(e.field(), Some(field), "{text}: {e}");
        assert!(e.to_string().contains(field), "{e}");
    }
    let unknown = Recipe::from_toml("variant = \"minishogi\"\n[generations]\nwindw = 2");
    assert!(matches!(&unknown, Err(RecipeError::Parse(m)) if m.contains("windw")), "{unknown:?}");
    let typed = Recipe::from_toml("variant = \"minishogi\"\n[polish]\ninit = \"later\"");
    assert!(matches!(typed, Err(RecipeError::Parse(_))));
    assert!(matches!(Recipe::load(Path::new("/nonexistent.toml")), Err(RecipeError::Read { .. })));
}
