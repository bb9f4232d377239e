//! The networks shipped with kage (`engine/nets/<variant>.nnue`, embedded at build time):
//! the default evaluation of their variant, in kage's own format or in Fairy-Stockfish's (told
//! apart by the first word, as `EvalFile` tells them). See `engine/nets/README.md` for how each
//! was made and why its format won.

use super::Network;
use super::fsf::{FsfNetwork, is_fsf_net};
use crate::variant::{Variant, VariantId};
use std::sync::{Arc, OnceLock};

/// A parsed shipped network.
#[derive(Debug)]
pub enum ShippedNet {
    /// kage's own format.
    Kage(Arc<Network>),
    /// Fairy-Stockfish's format.
    Fsf(Arc<FsfNetwork>),
}

/// The shipped networks' files: (variant, bytes), in [`VariantId::ALL`]'s order.
fn files() -> impl Iterator<Item = (VariantId, &'static [u8])> {
    VariantId::ALL.into_iter().filter_map(|id| id.folder().net.map(|b| (id, b)))
}

/// The parsed shipped networks (parsed once, on first use); a net from `KAGE_NETS_DIR` that
/// does not load is kept as its error ([`load_error`]).
fn parsed() -> &'static [(&'static str, Result<ShippedNet, String>)] {
    static NETS: OnceLock<Vec<(&'static str, Result<ShippedNet, String>)>> = OnceLock::new();
    NETS.get_or_init(|| {
        files()
            .map(|(id, bytes)| {
                let name = id.name();
                let net = if is_fsf_net(bytes) {
                    FsfNetwork::load(bytes, Variant::builtin(id))
                        .map(|n| ShippedNet::Fsf(Arc::new(n)))
                        .map_err(|e| e.to_string())
                } else {
                    Network::load(bytes)
                        .map(|n| ShippedNet::Kage(Arc::new(n)))
                        .map_err(|e| e.to_string())
                };
                // The committed files are checked by a test
                // (`shipped_nets_load_and_fit_their_variant`): a broken one cannot be released.
                if let (Err(e), false) = (&net, id.folder().net_local) {
                    panic!("shipped network {name}.nnue is damaged: {e}");
                }
                (name, net)
            })
            .collect()
    })
}

/// Why the default network of `variant_name` taken from `KAGE_NETS_DIR` does not load (then
/// the variant has none in this build).
pub fn load_error(variant_name: &str) -> Option<&'static str> {
    parsed().iter().find(|(name, _)| *name == variant_name)?.1.as_ref().err().map(String::as_str)
}

/// The shipped network of `variant` in either format, when there is one and it fits the
/// variant (a user variant with a built-in name but other pieces or board does not get it).
pub fn shipped(variant: &Variant) -> Option<&'static ShippedNet> {
    let (_, net) = parsed().iter().find(|(name, _)| *name == variant.name)?;
    net.as_ref().ok().filter(|net| match net {
        ShippedNet::Kage(n) => n.check_variant(variant).is_ok(),
        ShippedNet::Fsf(n) => n.fits(variant),
    })
}

/// The shipped network of `variant` when it is in kage's format (see [`shipped`]).
pub fn shipped_net(variant: &Variant) -> Option<&'static Arc<Network>> {
    match shipped(variant)? {
        ShippedNet::Kage(net) => Some(net),
        ShippedNet::Fsf(_) => None,
    }
}

/// The shipped network of `variant` when it is in Fairy-Stockfish's format (see [`shipped`]).
pub fn shipped_fsf_net(variant: &Variant) -> Option<&'static Arc<FsfNetwork>> {
    match shipped(variant)? {
        ShippedNet::Fsf(net) => Some(net),
        ShippedNet::Kage(_) => None,
    }
}

/// Whether `variant_name`'s default network was taken from `KAGE_NETS_DIR` at build time
/// (`engine/build.rs`) instead of `engine/nets/`.
pub fn is_local(variant_name: &str) -> bool {
    VariantId::from_name(variant_name).is_some_and(|id| id.folder().net_local)
}

/// Whether any built-in variant's default network came from `KAGE_NETS_DIR` ([`is_local`]).
pub fn any_local() -> bool {
    VariantId::ALL.into_iter().any(|id| id.folder().net_local)
}

/// What the default network of `variant_name` is called in messages: "shipped", or
/// "built-in (KAGE_NETS_DIR)" for one taken from `KAGE_NETS_DIR` ([`is_local`]).
pub fn origin(variant_name: &str) -> &'static str {
    if is_local(variant_name) { "built-in (KAGE_NETS_DIR)" } else { "shipped" }
}

/// The file bytes of `variant`'s shipped network (what self-play records a hash of).
pub fn shipped_bytes(variant_name: &str) -> Option<&'static [u8]> {
    VariantId::from_name(variant_name).and_then(|id| id.folder().net)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_nets_load_and_fit_their_variant() {
        for (id, bytes) in files() {
            let v = Variant::builtin(id);
            if is_fsf_net(bytes) {
                FsfNetwork::load(bytes, v).expect("shipped FSF-format network loads");
                assert!(shipped_fsf_net(v).is_some() && shipped_net(v).is_none(), "{}", v.name);
            } else {
                Network::load_for_variant(bytes, v).expect("shipped network loads for its variant");
                assert!(shipped_net(v).is_some() && shipped_fsf_net(v).is_none(), "{}", v.name);
            }
        }
        for id in VariantId::ALL {
            let v = Variant::builtin(id);
            assert_eq!(shipped(v).is_some(), id.folder().net.is_some(), "{}", v.name);
        }
    }
}
