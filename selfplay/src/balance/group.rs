//! What made a set of games: the generator config of a file header, reduced to the settings
//! that decide how the games are played (the player), so that runs of the same settings with
//! other seeds pool and runs of different settings never do.

use serde::Serialize;

use crate::config::{Budget, GenConfig, OpeningMode, PlayerKind};

/// The identity of a group: variant and the player's settings.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct GroupKey {
    /// Variant name.
    pub variant: String,
    /// Hash of the settings (the config without seed, game count, batch size and the net's
    /// path: its hash stays), or of the
    /// raw config text when it is not a kage-selfplay config.
    pub settings_hash: u64,
}

/// What a group is, for the report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GroupInfo {
    /// Variant name.
    pub variant: String,
    /// Names of the first player (White) and the second (Black) as the variant calls them.
    pub sides: [String; 2],
    /// Whether the variant comes from a user spec file (`--variant-file`).
    pub user_variant: bool,
    /// Settings hash (hex), the group's identity within its variant.
    pub settings_hash: String,
    /// One line: player, budget, net, openings, adjudication.
    pub label: String,
    /// Who played (`search`, `greedy`, or `unknown` for foreign configs).
    pub player: String,
    /// Budget per move (`nodes 4000`, `depth 6`), when known.
    pub budget: Option<String>,
    /// Nodes per move (for charts across budgets), when the budget is a node count.
    pub nodes: Option<u64>,
    /// NNUE network file name and hash (`hce` for the hand-crafted evaluation).
    pub net: String,
    /// Opening policy in words.
    pub openings: String,
    /// Opening plies sampled (0 when unknown or none).
    pub opening_plies: u32,
    /// Adjudication settings in words.
    pub adjudication: String,
    /// Whether resignations or adjudicated draws could end games.
    pub adjudicated: bool,
}

/// Key and description of the games of a file with `variant` and header config `config`.
pub fn describe(variant: &str, config: &str) -> (GroupKey, GroupInfo) {
    let parsed = GenConfig::from_toml(config).ok().filter(|c| c.variant == variant);
    let Some(c) = parsed else {
        let hash = kage_data::config_hash(config);
        let info = GroupInfo {
            variant: variant.to_owned(),
            sides: side_names(variant, None),
            user_variant: false,
            settings_hash: format!("{hash:016x}"),
            label: format!("config {hash:016x} (not a kage-selfplay config)"),
            player: "unknown".into(),
            budget: None,
            nodes: None,
            net: "unknown".into(),
            openings: "unknown".into(),
            opening_plies: 0,
            adjudication: "unknown".into(),
            adjudicated: true,
        };
        return (GroupKey { variant: variant.to_owned(), settings_hash: hash }, info);
    };
    let mut settings = c.clone();
    settings.seed = 0;
    settings.games = 1;
    settings.batch_size = 1;
    // A net is what its contents are, wherever the file was.
    if let Some(n) = &mut settings.net {
        n.path.clear();
    }
    let hash = settings.hash();
    let player = match c.player {
        PlayerKind::Search => "search",
        PlayerKind::Greedy => "greedy",
    };
    let (budget, nodes) = match c.budget {
        Budget::Nodes(n) if c.nodes_jitter_pct > 0 => {
            (format!("nodes {n} +-{}%", c.nodes_jitter_pct), Some(n))
        }
        Budget::Nodes(n) => (format!("nodes {n}"), Some(n)),
        Budget::Depth(d) => (format!("depth {d}"), None),
    };
    let net = match &c.net {
        None => "hce".to_owned(),
        Some(n) => {
            let name = std::path::Path::new(&n.path)
                .file_name()
                .map_or(n.path.clone(), |f| f.to_string_lossy().into_owned());
            format!("{name} ({})", n.hash)
        }
    };
    let o = c.openings;
    let openings = match (o.random_plies, o.mode) {
        (0, _) => "start position, no sampling".to_owned(),
        (p, OpeningMode::Uniform) => format!("start position, {p} uniformly random plies"),
        (p, OpeningMode::Multipv) => format!(
            "start position, {p} plies sampled among the MultiPV {} moves within {} cp of the best",
            o.multipv, o.margin_cp
        ),
    };
    let openings = if c.nodes_jitter_pct > 0 {
        format!("{openings}; node budget jittered by up to {}% per move", c.nodes_jitter_pct)
    } else {
        openings
    };
    let a = c.adjudication;
    let resign = if a.resign_plies == 0 {
        "no resign".to_owned()
    } else {
        format!("resign {} cp x {} plies", a.resign_cp, a.resign_plies)
    };
    let draw = if a.draw_plies == 0 {
        "no draw adjudication".to_owned()
    } else {
        format!("draw |{}| cp x {} plies from ply {}", a.draw_cp, a.draw_plies, a.draw_min_ply)
    };
    let adjudication = format!("{resign}, {draw}, max {} plies", a.max_plies);
    let user_variant = c.variant_spec.is_some();
    let label = format!(
        "{player} {budget}, net {net}, hash {} MiB, openings: {openings}; {adjudication}",
        c.hash_mb
    );
    let info = GroupInfo {
        variant: variant.to_owned(),
        sides: side_names(variant, c.variant_spec.as_deref()),
        user_variant,
        settings_hash: format!("{hash:016x}"),
        label,
        player: player.into(),
        budget: Some(budget),
        nodes,
        net,
        openings,
        opening_plies: o.random_plies,
        adjudication,
        adjudicated: a.resign_plies > 0 || a.draw_plies > 0,
    };
    (GroupKey { variant: variant.to_owned(), settings_hash: hash }, info)
}

/// The side names of a built-in variant or of a user variant's spec text; `White`/`Black`
/// when neither is known.
pub fn side_names(variant: &str, spec: Option<&str>) -> [String; 2] {
    let v = match spec {
        Some(text) => kage_engine::Variant::from_spec_text(text).ok(),
        None => kage_engine::Variant::by_name(variant).ok(),
    };
    v.map_or_else(|| ["White".to_owned(), "Black".to_owned()], |v| v.side_names.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::NetRef;

    #[test]
    fn what_splits_groups_and_what_does_not() {
        let base = GenConfig::new("shinobi", 100, 1, Budget::Nodes(4000));
        let net =
            |path: &str, hash: &str| Some(NetRef { path: path.to_owned(), hash: hash.to_owned() });
        let with_net = GenConfig { net: net("a/gen3.nnue", "00000000000000aa"), ..base.clone() };
        let key = |c: &GenConfig| describe(&c.variant, &c.to_toml()).0;
        // Same player: other seeds, game counts, batch sizes and net paths pool.
        let same = [
            GenConfig { seed: 7, games: 5, batch_size: 3, ..with_net.clone() },
            GenConfig { net: net("elsewhere/copy.nnue", "00000000000000aa"), ..with_net.clone() },
        ];
        for c in &same {
            assert_eq!(key(c), key(&with_net));
        }
        // Another player: another group.
        let mut other_open = base.clone();
        other_open.openings.margin_cp = 10;
        let other = [
            base.clone(),
            GenConfig { net: net("a/gen3.nnue", "00000000000000bb"), ..with_net.clone() },
            GenConfig { budget: Budget::Nodes(1000), ..with_net.clone() },
            GenConfig { nodes_jitter_pct: 5, ..with_net.clone() },
            other_open,
        ];
        for c in &other {
            assert_ne!(key(c), key(&with_net));
        }
        let (_, info) = describe("shinobi", &with_net.to_toml());
        assert_eq!(info.net, "gen3.nnue (00000000000000aa)");
        assert_eq!((info.budget.as_deref(), info.nodes), (Some("nodes 4000"), Some(4000)));
        assert_eq!(info.sides, ["Clan".to_owned(), "Kingdom".to_owned()]);
        // A config that is not a kage-selfplay config: grouped by its text, said so.
        let (k1, i1) = describe("minishogi", "something else");
        assert_ne!(k1, describe("minishogi", "something other").0);
        assert!(i1.label.contains("not a kage-selfplay config"));
        assert_eq!(i1.sides, ["Sente".to_owned(), "Gote".to_owned()]);
    }
}
