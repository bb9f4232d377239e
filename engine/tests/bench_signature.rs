//! `kage bench`'s signatures pinned: the total node counts of its fixed-depth searches of the
//! fixed position set (each variant's `engine/variants/<name>/bench.toml`), once with the hand-crafted
//! evaluation (`signature`) and once with the shipped networks (`nnue signature`). Any change
//! to the search, the move generator, the HCE or a shipped net moves them.
//!
//! The numbers are recorded in engine/BENCHMARKS-search.md ("Signature (total nodes)") and in
//! BENCHMARKS.md. A deliberate change updates BENCHMARKS-search.md and this test together.
//!
//! Runs the whole `kage bench` (all four variants, default depths, both evaluators): about 13 s
//! under the dev profile.

use std::process::Command;

/// `kage bench`'s HCE signature.
const HCE_SIGNATURE: u64 = 2_547_665;
/// `kage bench`'s NNUE signature (the shipped nets).
const NNUE_SIGNATURE: u64 = 4_032_454;

/// The number after `label ` on the line that starts with it.
fn value(text: &str, label: &str) -> u64 {
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix(label).and_then(|r| r.strip_prefix(' ')))
        .unwrap_or_else(|| panic!("no '{label}' line in kage bench's output:\n{text}"));
    line.trim().parse().unwrap_or_else(|e| panic!("'{label} {line}': {e}"))
}

#[test]
fn bench_signatures() {
    let o = Command::new(env!("CARGO_BIN_EXE_kage")).arg("bench").output().expect("run kage");
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "kage bench failed: {}", String::from_utf8_lossy(&o.stderr));
    let why = "recorded in engine/BENCHMARKS-search.md (\"Signature (total nodes)\"); a \
               deliberate change to the search or evaluation must update BENCHMARKS-search.md \
               and engine/tests/bench_signature.rs together";
    assert_eq!(value(&text, "signature"), HCE_SIGNATURE, "kage bench HCE signature, {why}");
    if kage_engine::nnue::shipped::any_local() {
        // A build with KAGE_NETS_DIR searches with other nets: only the HCE's count is pinned.
        eprintln!("nnue signature not checked: this build's nets come from KAGE_NETS_DIR");
        return;
    }
    assert_eq!(value(&text, "nnue signature"), NNUE_SIGNATURE, "kage bench nnue signature, {why}");
}
