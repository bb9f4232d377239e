#![no_main]
//! Any text either compiles as a variant spec or is rejected with an error.

use kage_engine::{Variant, VariantSpec};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(spec) = VariantSpec::parse(text) {
        let _ = Variant::compile(&spec);
    }
});
