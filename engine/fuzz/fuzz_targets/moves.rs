#![no_main]
//! Any text either parses as a legal move in the start positions or is rejected.

use kage_engine::{Position, Variant, VariantId};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    for id in VariantId::ALL {
        let pos = Position::startpos(Variant::builtin(id));
        if let Ok(m) = pos.parse_move(text) {
            assert!(pos.is_legal(m));
        }
    }
});
