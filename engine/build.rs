//! Embeds the shipped networks, `nets/<variant>.nnue`, in the engine: each variant whose file
//! exists gets it as its default evaluation; a variant without one keeps the hand-crafted
//! evaluation. The list is generated into `$OUT_DIR/shipped_nets.rs`.

use std::fmt::Write as _;
use std::path::PathBuf;

const VARIANTS: [&str; 4] = ["shinobiplus", "shinobi", "gorogoroplus", "minishogi"];

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let nets = manifest.join("nets");
    println!("cargo:rerun-if-changed={}", nets.display());
    let mut code = String::from("/// The shipped networks: (variant name, file bytes).\n");
    code.push_str("pub(crate) static SHIPPED: &[(&str, &[u8])] = &[\n");
    for v in VARIANTS {
        let file = nets.join(format!("{v}.nnue"));
        println!("cargo:rerun-if-changed={}", file.display());
        if file.is_file() {
            writeln!(code, "    ({v:?}, include_bytes!({:?})),", file.display().to_string())
                .expect("string write");
        }
    }
    code.push_str("];\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo"));
    std::fs::write(out.join("shipped_nets.rs"), code).expect("write shipped_nets.rs");
}
