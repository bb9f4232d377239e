//! The networks shipped with kage (`engine/nets/<variant>.nnue`, embedded at build time):
//! the default evaluation of their variant. See `engine/nets/README.md` for how each was made.

use super::Network;
use crate::variant::{Variant, VariantId};
use std::sync::{Arc, OnceLock};

/// The shipped networks' files: (variant name, bytes), in [`VariantId::ALL`]'s order.
fn shipped() -> impl Iterator<Item = (&'static str, &'static [u8])> {
    VariantId::ALL.into_iter().filter_map(|id| id.folder().net.map(|b| (id.name(), b)))
}

/// The parsed shipped networks (parsed once, on first use).
fn parsed() -> &'static [(&'static str, Arc<Network>)] {
    static NETS: OnceLock<Vec<(&'static str, Arc<Network>)>> = OnceLock::new();
    NETS.get_or_init(|| {
        shipped()
            .map(|(name, bytes)| {
                // The files are checked by a test (`shipped_nets_load_and_fit_their_variant`):
                // a broken one cannot be released.
                let net = Network::load(bytes)
                    .unwrap_or_else(|e| panic!("shipped network {name}.nnue is damaged: {e}"));
                (name, Arc::new(net))
            })
            .collect()
    })
}

/// The shipped network of `variant`, when there is one and it fits the variant (a user
/// variant with a built-in name but other pieces or board does not get it).
pub fn shipped_net(variant: &Variant) -> Option<&'static Arc<Network>> {
    parsed()
        .iter()
        .find(|(name, _)| *name == variant.name)
        .map(|(_, net)| net)
        .filter(|net| net.check_variant(variant).is_ok())
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
        for (name, bytes) in shipped() {
            let v = Variant::by_name(name).expect("shipped nets are named after built-in variants");
            Network::load_for_variant(bytes, v).expect("shipped network loads for its variant");
            assert!(shipped_net(v).is_some(), "{name}");
        }
        for id in VariantId::ALL {
            let v = Variant::builtin(id);
            assert_eq!(shipped_net(v).is_some(), shipped().any(|(n, _)| n == v.name), "{}", v.name);
        }
    }
}
