//! Records the exact versions of the provider crates (from Cargo.lock) so that every result
//! can name the code it measured.

use std::{env, fs, path::Path};

const TRACKED: &[&str] = &[
    "oqs-sys",
    "pqcrypto-mlkem",
    "pqcrypto-ntru",
    "libcrux-ml-kem",
    "ml-kem",
    "aws-lc-rs",
    "aws-lc-sys",
    "openssl",
    "openssl-sys",
    "openssl-src",
];

fn main() {
    let dir = env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let lock = Path::new(&dir).join("Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock.display());
    let text = fs::read_to_string(&lock).unwrap_or_default();
    let mut name: Option<&str> = None;
    for line in text.lines() {
        if let Some(n) = line.strip_prefix("name = ") {
            name = Some(n.trim_matches('"'));
        } else if let (Some(v), Some(n)) = (line.strip_prefix("version = "), name.take()) {
            if TRACKED.contains(&n) {
                let key = n.to_uppercase().replace('-', "_");
                println!("cargo:rustc-env=KEMBENCH_DEP_{key}={}", v.trim_matches('"'));
            }
        }
    }
    for n in TRACKED {
        // Absent from Cargo.lock (feature off): still define the variable.
        let key = n.to_uppercase().replace('-', "_");
        if !text.contains(&format!("name = \"{n}\"")) {
            println!("cargo:rustc-env=KEMBENCH_DEP_{key}=absent");
        }
    }
}
