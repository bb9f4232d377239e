//! Records the git revision of the build (`KAGE_GIT_REV` wins when set) so that every
//! artefact can name the code that produced it (`kage_data::GIT_REVISION`, used by
//! kage-selfplay and kage-train). A build-time value keeps the output of one
//! binary independent of the directory it runs in.
//!
//! The files that trigger a rerun (`HEAD` and the branch it names) are given relative to this
//! package, not as absolute paths: cargo resolves a relative `rerun-if-changed` against the
//! package being built, so two checkouts that share one target directory (a CI clone, a test
//! clone beside the main checkout) each rerun this script when their own `HEAD` moves.
//! Absolute paths named the checkout that ran the script last, and a build in another checkout
//! then kept that checkout's revision. The files' times alone cannot tell which checkout ran the
//! script last (a clone built after the main checkout's last commit is newer than its `HEAD`),
//! so the working directory cargo runs in (`PWD`) triggers a rerun too: building in another
//! directory records that directory's revision (at the cost of rebuilding this crate and its
//! dependents once).

use std::path::{Component, Path, PathBuf};
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// `target` relative to `base` (both absolute), e.g. `../.git/HEAD`.
fn relative(target: &Path, base: &Path) -> PathBuf {
    let t: Vec<Component> = target.components().collect();
    let b: Vec<Component> = base.components().collect();
    let common = t.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut rel: PathBuf = b[common..].iter().map(|_| Component::ParentDir).collect();
    rel.extend(&t[common..]);
    rel
}

fn rerun_if_changed(file: &Path, package: &Path) {
    println!("cargo:rerun-if-changed={}", relative(file, package).display());
}

fn main() {
    println!("cargo:rerun-if-env-changed=KAGE_GIT_REV");
    println!("cargo:rerun-if-env-changed=PWD");
    let rev = std::env::var("KAGE_GIT_REV")
        .ok()
        .filter(|s| !s.is_empty())
        .or_else(|| git(&["rev-parse", "HEAD"]))
        .unwrap_or_else(|| "unknown".to_owned());
    let package = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from);
    if let (Some(dir), Some(package)) = (git(&["rev-parse", "--absolute-git-dir"]), package) {
        let dir = Path::new(&dir);
        rerun_if_changed(&dir.join("HEAD"), &package);
        if let Some(r) = git(&["symbolic-ref", "-q", "HEAD"]) {
            rerun_if_changed(&dir.join(r), &package);
        }
    }
    println!("cargo:rustc-env=KAGE_BUILD_GIT_REV={rev}");
}
