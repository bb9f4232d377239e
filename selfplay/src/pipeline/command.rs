//! The tool invocations of a step: the command lines the executor runs, with the run's
//! root as working directory and every path relative to it ([`super::layout`]). Pure: given
//! the resolved players it builds argument lists, so unit tests check them without a tool.

use std::path::{Path, PathBuf};

use super::layout::Layout;
use super::plan::{Control, MatchStep, SelfplayStep, Step, StepConfig, TrainStep};
use super::state::Resolved;

/// A kage binary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    /// `kage-selfplay`.
    Selfplay,
    /// `kage-data`.
    Data,
    /// `kage-train`.
    Train,
}

impl Tool {
    /// The binary's file name.
    pub fn binary(self) -> &'static str {
        match self {
            Tool::Selfplay => "kage-selfplay",
            Tool::Data => "kage-data",
            Tool::Train => "kage-train",
        }
    }
}

/// One command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invocation {
    /// Which binary.
    pub tool: Tool,
    /// Its arguments.
    pub args: Vec<String>,
}

fn s(p: &Path) -> String {
    p.display().to_string()
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|x| x.to_string()).collect()
}

/// Self-play shard `shard` (`None`: the whole step) by the resolved `player`.
pub fn selfplay(
    layout: &Layout,
    step: &Step,
    sp: &SelfplayStep,
    player: &Resolved,
    threads: usize,
    shard: Option<u32>,
) -> Invocation {
    let mut args = strings(&["generate"]);
    args.extend(layout.variant_args(&sp.variant, sp.rules));
    args.extend(strings(&["--games", &sp.games.to_string(), "--nodes", &sp.nodes.to_string()]));
    args.extend(strings(&["--seed", &step.seed.to_string(), "--threads", &threads.to_string()]));
    args.extend(strings(&["--out", &s(&layout.selfplay_out(step)), "--quiet"]));
    match layout.net(player) {
        Some(net) => args.extend(strings(&["--net", &s(&net)])),
        None => args.extend(strings(&["--eval", "hce"])),
    }
    if let Some(i) = shard {
        args.extend(strings(&["--shard", &i.to_string(), "--shards", &sp.shards.to_string()]));
    }
    args.extend(sp.args.iter().cloned());
    Invocation { tool: Tool::Selfplay, args }
}

/// The shard files a merge step joins, per kind (`games`, `positions`).
pub fn merge_inputs(layout: &Layout, selfplay: &Step, kind: &str) -> Vec<PathBuf> {
    let StepConfig::Selfplay(sp) = &selfplay.config else { return Vec::new() };
    (0..sp.shards).map(|i| layout.shard_file(selfplay, &sp.variant, i, sp.shards, kind)).collect()
}

/// `kage-data merge` of one kind of a sharded self-play step into the merge step's directory.
pub fn merge(layout: &Layout, merge_step: &Step, selfplay: &Step, kind: &str) -> Invocation {
    let out = layout.data_file(merge_step.id, kind);
    let mut args = strings(&["merge", "--out", &s(&out)]);
    args.extend(merge_inputs(layout, selfplay, kind).iter().map(|p| s(p)));
    Invocation { tool: Tool::Data, args }
}

/// `kage-train` from `init` (the HCE: from scratch); `resume`: continue the checkpoint of an
/// interrupted run instead.
pub fn train(
    layout: &Layout,
    step: &Step,
    t: &TrainStep,
    init: &Resolved,
    threads: usize,
    resume: bool,
) -> Invocation {
    let dir = s(&layout.train_dir(step));
    let threads = threads.to_string();
    if resume {
        return Invocation {
            tool: Tool::Train,
            args: strings(&["--resume", &dir, "--threads", &threads]),
        };
    }
    let mut args = strings(&["--variant", &t.variant, "--data"]);
    args.extend(t.data.iter().map(|d| s(&layout.data_file(*d, "positions"))));
    args.extend(strings(&["--out", &dir, "--epochs", &t.epochs.to_string()]));
    args.extend(strings(&["--lambda", &t.lambda.to_string(), "--seed", &step.seed.to_string()]));
    args.extend(strings(&["--threads", &threads]));
    if let Some(net) = layout.net(init) {
        args.extend(strings(&["--init-net", &s(&net)]));
    }
    args.extend(t.args.iter().cloned());
    Invocation { tool: Tool::Train, args }
}

/// The `--engine` values of a built-in player.
fn engine(layout: &Layout, player: &Resolved) -> Vec<String> {
    let name = format!("name={}", layout.label(player));
    match layout.net(player) {
        Some(net) => vec!["builtin".into(), format!("net={}", s(&net)), name],
        None => vec!["builtin".into(), "eval=hce".into(), name],
    }
}

/// `kage-selfplay match` of the resolved candidate against the resolved opponent.
pub fn matches(
    layout: &Layout,
    step: &Step,
    m: &MatchStep,
    candidate: &Resolved,
    opponent: &Resolved,
    threads: usize,
) -> Invocation {
    let mut args = strings(&["match"]);
    args.extend(layout.variant_args(&m.variant, m.rules));
    args.push("--engine".into());
    args.extend(engine(layout, candidate));
    args.push("--engine".into());
    args.extend(engine(layout, opponent));
    args.extend(strings(&["--games", &m.games.to_string()]));
    match m.control {
        Control::Nodes(n) => args.extend(strings(&["--nodes", &n.to_string()])),
        Control::MovetimeMs(ms) => args.extend(strings(&["--movetime", &ms.to_string()])),
    }
    args.extend(strings(&["--threads", &threads.to_string(), "--seed", &step.seed.to_string()]));
    if let Some(b) = m.sprt {
        args.extend(strings(&[
            "--sprt",
            "--elo0",
            &b.elo0.to_string(),
            "--elo1",
            &b.elo1.to_string(),
        ]));
    }
    args.extend(strings(&["--out", &s(&layout.match_dir(step))]));
    args.extend(m.args.iter().cloned());
    Invocation { tool: Tool::Selfplay, args }
}
