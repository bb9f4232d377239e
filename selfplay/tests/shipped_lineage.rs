//! Every shipped net (`engine/nets/*.nnue`) has a lineage beside it that names it by content
//! hash: a pipeline lineage whose `net` output is the file, or a recorded one (a net made
//! before the pipeline) whose hash, run id and git revision are the file's and its header's,
//! and which `pipeline reproduce` refuses with a reason.

use std::path::{Path, PathBuf};
use std::process::Command;

use kage_selfplay::pipeline::{ContentId, Lineage, RecordedLineage};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("workspace root").to_path_buf()
}

fn shipped_nets() -> Vec<PathBuf> {
    let mut nets: Vec<PathBuf> = std::fs::read_dir(root().join("engine/nets"))
        .expect("engine/nets")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "nnue"))
        .collect();
    nets.sort();
    nets
}

/// The run id and git revision a shipped net's header records: a kage-format net's header, or
/// the description kage-train writes into an FSF-format net.
fn header_run(net: &Path, bytes: &[u8]) -> (String, String) {
    use kage_engine::nnue::fsf::{FsfNetwork, is_fsf_net};
    if is_fsf_net(bytes) {
        let name = net.file_stem().and_then(|s| s.to_str()).expect("engine/nets/<variant>.nnue");
        let v = kage_engine::variant::Variant::by_name(name).expect("a built-in variant");
        let net = FsfNetwork::load(bytes, v).expect("net loads");
        net.net().kage_run().expect("a net kage-train exported names its run")
    } else {
        let h = kage_engine::nnue::Network::load(bytes).expect("net loads").header().clone();
        (h.run_id, h.git_revision)
    }
}

#[test]
fn every_shipped_net_has_a_lineage_naming_it_by_hash() {
    let nets = shipped_nets();
    assert!(!nets.is_empty());
    for net in nets {
        let bytes = std::fs::read(&net).expect("net");
        let sha = ContentId::of_bytes(&bytes);
        let path = Lineage::path_beside(&net);
        assert!(path.is_file(), "{} has no {}", net.display(), path.display());
        if let Some(r) = RecordedLineage::read_if_recorded(&path) {
            assert_eq!(r.sha256, sha, "{}: sha256", path.display());
            assert_eq!(Some(r.net.as_str()), net.file_name().and_then(|n| n.to_str()));
            let (run_id, git_revision) = header_run(&net, &bytes);
            assert_eq!(r.run_id, run_id, "{}: run id", path.display());
            assert_eq!(r.git_revision, git_revision, "{}: git revision", path.display());
            assert!(
                root().join(&r.recipe).is_file(),
                "{}: recipe {}",
                path.display(),
                r.recipe.display()
            );
            assert!(!r.steps.is_empty() && !r.not_reproducible.is_empty(), "{}", path.display());
        } else {
            let l = Lineage::read(&path).expect("a pipeline lineage");
            let out = l.outputs.iter().find(|o| o.role == "net").expect("a net output");
            assert_eq!(out.sha256, sha, "{}: the net output's sha256", path.display());
            assert!(
                l.recipe.is_some(),
                "{}: an installed net's lineage holds its recipe",
                path.display()
            );
        }
    }
}

#[test]
fn reproduce_refuses_a_recorded_lineage_and_says_why() {
    let Some(path) = shipped_nets()
        .iter()
        .map(|n| Lineage::path_beside(n))
        .find(|p| RecordedLineage::read_if_recorded(p).is_some())
    else {
        return; // every shipped net has a pipeline lineage: nothing to refuse
    };
    let tmp = std::env::temp_dir().join(format!("kage-reproduce-recorded-{}", std::process::id()));
    let o = Command::new(env!("CARGO_BIN_EXE_kage-selfplay"))
        .args(["pipeline", "reproduce"])
        .arg(&path)
        .arg("--out")
        .arg(&tmp)
        .output()
        .expect("run kage-selfplay");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(err.contains("not reproducible") && err.contains("scripts/recipes/"), "{err}");
    assert!(!tmp.exists(), "nothing is written for a refused lineage");
}
