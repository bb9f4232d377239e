//! How a self-play config makes its players ([`factory_for`]) and names its network; the
//! players themselves are the arena's ([`crate::arena::player`]).

pub use crate::arena::player::{Builtin, GreedyPlayer, Player};

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

/// The bytes of the network a config names (shipped, or a file), checked against the hash
/// the config recorded.
pub fn net_bytes(net: &crate::config::NetRef) -> crate::error::Result<Vec<u8>> {
    use crate::error::SelfplayError;
    let bytes = match net.path.strip_prefix(SHIPPED_PREFIX) {
        Some(name) => kage_engine::nnue::shipped::shipped_bytes(name)
            .ok_or_else(|| SelfplayError::NetNotShipped { path: net.path.clone() })?
            .to_vec(),
        None => kage_engine::nnue::read_file(std::path::Path::new(&net.path))
            .map_err(|cause| SelfplayError::Net { path: net.path.clone(), cause })?,
    };
    let found = file_hash(&bytes);
    if found != net.hash {
        return Err(SelfplayError::NetChanged {
            path: net.path.clone(),
            found,
            recorded: net.hash.clone(),
        });
    }
    Ok(bytes)
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
            let bytes = net_bytes(net)?;
            let v = cfg.variant_def()?;
            Evaluator::load_nnue(&bytes, v)
                .map_err(|cause| SelfplayError::Net { path: net.path.clone(), cause })?
        }
    };
    let hash_mb = cfg.hash_mb;
    Ok(match cfg.player {
        PlayerKind::Search => std::sync::Arc::new(move || {
            let mut p = Builtin::default_eval(hash_mb);
            // A smaller table would change the games: refuse rather than play other ones.
            let got = p.searcher_mut().hash_mb();
            if got < hash_mb {
                return Err(crate::ConfigError::Hash { asked: hash_mb, got }.into());
            }
            p.searcher_mut().set_evaluator(evaluator.clone());
            Ok(Box::new(p) as Box<dyn Player>)
        }),
        PlayerKind::Greedy => {
            if cfg.net.is_some() {
                return Err(crate::ConfigError::GreedyNet.into());
            }
            std::sync::Arc::new(|| Ok(Box::new(GreedyPlayer) as Box<dyn Player>))
        }
    })
}
