//! Records the git revision of the build (`KAGE_GIT_REV` wins when set) so that every
//! artefact can name the code that produced it (`kage_data::GIT_REVISION`, used by
//! kage-selfplay and kage-train). A build-time value keeps the output of one
//! binary independent of the directory it runs in.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

fn main() {
    println!("cargo:rerun-if-env-changed=KAGE_GIT_REV");
    let rev = std::env::var("KAGE_GIT_REV")
        .ok()
        .filter(|s| !s.is_empty())
        .or_else(|| git(&["rev-parse", "HEAD"]))
        .unwrap_or_else(|| "unknown".to_owned());
    if let Some(dir) = git(&["rev-parse", "--absolute-git-dir"]) {
        println!("cargo:rerun-if-changed={dir}/HEAD");
        if let Some(r) = git(&["symbolic-ref", "-q", "HEAD"]) {
            println!("cargo:rerun-if-changed={dir}/{r}");
        }
    }
    println!("cargo:rustc-env=KAGE_BUILD_GIT_REV={rev}");
}
