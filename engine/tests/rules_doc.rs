//! docs/RULES.md embeds `kage describe` for every built-in variant; this test regenerates each
//! table from the compiled spec and fails when the page differs, so the documentation cannot
//! drift from the rules the engine plays. `KAGE_BLESS=1` rewrites the page instead.

use kage_engine::{Variant, VariantId};
use std::path::PathBuf;

const END: &str = "<!-- end generated -->";

fn marker(id: VariantId) -> String {
    format!("<!-- generated: kage describe --variant {} -->", id.name())
}

/// The page with every generated block replaced by the current output.
fn regenerate(page: &str) -> String {
    let mut out = page.to_string();
    for id in VariantId::ALL {
        let begin = marker(id);
        let start =
            out.find(&begin).unwrap_or_else(|| panic!("docs/RULES.md has no block `{begin}`"))
                + begin.len();
        let len = out[start..].find(END).unwrap_or_else(|| panic!("block of {id} has no end"));
        let table = Variant::builtin(id).describe_markdown();
        out.replace_range(start..start + len, &format!("\n{table}"));
    }
    out
}

#[test]
fn rules_doc_tables_match_the_compiled_variants() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/RULES.md");
    let page = std::fs::read_to_string(&path).expect("docs/RULES.md is in the repository");
    let fresh = regenerate(&page);
    if std::env::var_os("KAGE_BLESS").is_some() {
        std::fs::write(&path, &fresh).expect("rewrite docs/RULES.md");
        return;
    }
    assert!(
        fresh == page,
        "docs/RULES.md is out of date with the variant specs; run \
         `KAGE_BLESS=1 cargo test -p kage-engine --test rules_doc` and review the diff"
    );
}

#[test]
fn describe_reads_the_compiled_tables() {
    let mini = Variant::builtin(VariantId::MINISHOGI).describe_markdown();
    assert!(mini.contains("| board | 5 files x 5 ranks |"), "{mini}");
    assert!(mini.contains("| legal moves at the start | 14 |"), "{mini}");
    assert!(mini.contains("4-fold: White loses"), "{mini}");
    let sp = Variant::builtin(VariantId::SHINOBIPLUS).describe_markdown();
    assert!(sp.contains("| legal moves at the start | 179 |"), "{sp}");
    assert!(sp.contains("| White drops | ranks 1-4 |"), "{sp}");
    assert!(sp.contains("| Black drops | none |"), "{sp}");
    assert!(sp.contains("| White king reaching | rank 8: wins at once (campmate) |"), "{sp}");
    let sh = Variant::builtin(VariantId::SHINOBI).describe_markdown();
    assert!(sh.contains("3-fold: draw; a side that gave check"), "{sh}");
    assert!(sh.contains("| Black promotion zone | ranks 1-2 |"), "{sh}");
}
