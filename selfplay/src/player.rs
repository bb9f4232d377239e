//! What plays the moves: anything that, given a game, returns a best move, its score and
//! (for MultiPV openings) the best few root moves with their scores.

use kage_engine::{Game, Move};

/// The answer of a [`Player`] for one position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    /// Best move (never `Move::NULL`: players are only asked in positions with moves).
    pub best: Move,
    /// Score in centipawns from the side to move (mates as the searcher reports them).
    pub score: i32,
    /// Root moves with their scores, best first (at least the best move).
    pub lines: Vec<(i32, Move)>,
    /// Nodes searched.
    pub nodes: u64,
}

/// A move chooser. It must be deterministic given the game and the calls since the last
/// [`Player::new_game`], so that a game does not depend on the thread that plays it.
pub trait Player: Send {
    /// Forgets everything from earlier games.
    fn new_game(&mut self);
    /// Chooses a move in `game`'s current position, which has at least one legal move;
    /// `multipv` asks for that many root lines in [`Choice::lines`].
    fn choose(&mut self, game: &Game, multipv: usize) -> Choice;
    /// Scales the node budget of the following searches (node jitter); players without a
    /// node budget ignore it.
    fn set_node_scale(&mut self, _scale: f64) {}
}

/// A 1-ply capture-greedy player: captures the most valuable piece, else plays the first
/// move. Fast and deterministic; used by tests of the pipeline that do not need real games.
#[derive(Clone, Debug, Default)]
pub struct GreedyPlayer;

impl Player for GreedyPlayer {
    fn new_game(&mut self) {}

    fn choose(&mut self, game: &Game, multipv: usize) -> Choice {
        let pos = game.position();
        let v = pos.variant();
        let mut lines: Vec<(i32, Move)> = pos
            .legal_moves()
            .as_slice()
            .iter()
            .map(|&m| {
                let gain = pos.captured(m).map_or(0, |p| v.kind(p.kind).value);
                let promo = if m.is_promotion() { 50 } else { 0 };
                (gain + promo, m)
            })
            .collect();
        // Stable: equal scores keep generation order.
        lines.sort_by_key(|&(s, _)| std::cmp::Reverse(s));
        let (score, best) = lines.first().copied().unwrap_or((0, Move::NULL));
        let nodes = lines.len() as u64;
        lines.truncate(multipv.max(1));
        Choice { best, score, lines, nodes }
    }
}

/// The engine's searcher with a fixed budget per move.
pub struct SearchPlayer {
    searcher: kage_engine::search::Searcher,
    limits: kage_engine::search::Limits,
    base_nodes: Option<u64>,
    stop: std::sync::atomic::AtomicBool,
}

impl SearchPlayer {
    /// A searcher with `hash_mb` MiB of hash searching within `budget`.
    pub fn new(hash_mb: usize, budget: crate::config::Budget) -> Self {
        use kage_engine::search::{Limits, Searcher};
        let limits = match budget {
            crate::config::Budget::Nodes(n) => Limits::nodes(n),
            crate::config::Budget::Depth(d) => Limits::depth(d),
        };
        SearchPlayer {
            searcher: Searcher::new(hash_mb),
            base_nodes: limits.nodes,
            limits,
            stop: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// The searcher, e.g. to set its evaluator.
    pub fn searcher_mut(&mut self) -> &mut kage_engine::search::Searcher {
        &mut self.searcher
    }
}

impl Player for SearchPlayer {
    fn new_game(&mut self) {
        self.searcher.clear();
    }

    fn choose(&mut self, game: &Game, multipv: usize) -> Choice {
        let mut limits = self.limits.clone();
        limits.multipv = multipv.max(1);
        let r = self.searcher.search(game, &limits, &self.stop, &mut |_| {});
        let mut lines: Vec<(i32, Move)> =
            r.lines.iter().filter_map(|(s, pv)| pv.first().map(|&m| (*s, m))).collect();
        if lines.is_empty() {
            lines.push((r.score, r.best_move));
        }
        Choice { best: r.best_move, score: r.score, lines, nodes: r.nodes }
    }

    fn set_node_scale(&mut self, scale: f64) {
        if let Some(n) = self.base_nodes {
            self.limits.nodes = Some(((n as f64 * scale).round() as u64).max(1));
        }
    }
}

/// FNV-1a 64 of a file's bytes, hex (how configs identify a network file).
pub fn file_hash(bytes: &[u8]) -> String {
    format!("{:016x}", kage_engine::util::hash::fnv1a64(bytes))
}

/// How a run's config names a shipped network (`shipped:<variant>`).
pub const SHIPPED_PREFIX: &str = "shipped:";

/// The config reference of `variant`'s shipped network, when it has one.
pub fn shipped_ref(variant: &str) -> Option<crate::config::NetRef> {
    let bytes = kage_engine::nnue::shipped::shipped_bytes(variant)?;
    Some(crate::config::NetRef {
        path: format!("{SHIPPED_PREFIX}{variant}"),
        hash: file_hash(bytes),
    })
}

/// The player factory of a config: one fresh player per worker thread. A network named in
/// the config is loaded once (checked against its recorded hash and the variant) and shared.
pub fn factory_for(
    cfg: &crate::config::GenConfig,
) -> crate::error::Result<crate::driver::PlayerFactory> {
    use crate::config::PlayerKind;
    use crate::error::SelfplayError;
    use kage_engine::eval::Evaluator;
    let evaluator = match &cfg.net {
        None => Evaluator::HandCrafted,
        Some(net) => {
            let bytes = match net.path.strip_prefix(SHIPPED_PREFIX) {
                Some(name) => kage_engine::nnue::shipped::shipped_bytes(name)
                    .ok_or_else(|| {
                        SelfplayError::Net(format!("{}: this build has no such network", net.path))
                    })?
                    .to_vec(),
                None => kage_engine::nnue::read_file(std::path::Path::new(&net.path))
                    .map_err(|e| SelfplayError::Net(format!("{}: {e}", net.path)))?,
            };
            if file_hash(&bytes) != net.hash {
                return Err(SelfplayError::Net(format!(
                    "{}: the file changed since the run was configured (hash {} != {})",
                    net.path,
                    file_hash(&bytes),
                    net.hash
                )));
            }
            let v = cfg.variant_def()?;
            Evaluator::load_nnue(&bytes, v)
                .map_err(|e| SelfplayError::Net(format!("{}: {e}", net.path)))?
        }
    };
    let (hash_mb, budget) = (cfg.hash_mb, cfg.budget);
    Ok(match cfg.player {
        PlayerKind::Search => std::sync::Arc::new(move || {
            let mut p = SearchPlayer::new(hash_mb, budget);
            // A smaller table would change the games: refuse rather than play other ones.
            let got = p.searcher_mut().hash_mb();
            if got < hash_mb {
                return Err(SelfplayError::Config(format!(
                    "cannot allocate {hash_mb} MiB of hash for a worker thread (this machine \
                     gave {got} MiB); use a smaller --hash or fewer --threads"
                )));
            }
            p.searcher_mut().set_evaluator(evaluator.clone());
            Ok(Box::new(p) as Box<dyn Player>)
        }),
        PlayerKind::Greedy => {
            if cfg.net.is_some() {
                return Err(SelfplayError::Config("the greedy player uses no network".into()));
            }
            std::sync::Arc::new(|| Ok(Box::new(GreedyPlayer) as Box<dyn Player>))
        }
    })
}
