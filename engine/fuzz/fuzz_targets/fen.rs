#![no_main]
//! Any text either parses as a FEN (and then prints and re-parses identically) or is rejected.

use kage_engine::{Position, Variant, VariantId};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    for id in VariantId::ALL {
        let v = Variant::builtin(id);
        if let Ok(p) = Position::from_fen(v, text) {
            let again = Position::from_fen(v, &p.to_fen()).expect("printed FEN parses");
            assert_eq!(again.to_fen(), p.to_fen());
            let _ = p.legal_moves();
        }
    }
});
