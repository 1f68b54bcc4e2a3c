//! Builds compiled here and loaded side by side in this process.

use super::compile::{self, FlagSet};
use super::compiler::Compiler;
use super::sources;
use crate::kem::BuildFacts;
use crate::kem::{Gate, Kem};
use crate::providers::built::manifest::{Compiled, Entry};
use crate::providers::built::Built;

#[test]
fn two_builds_of_one_source_coexist_in_one_process_and_agree() {
    // gcc is never skipped (README): without it this test fails rather than pass unchecked.
    let gcc = Compiler::find("gcc").expect("gcc is required (scripts/setup installs it)");
    let (all, _) = sources::all();
    let src = all
        .into_iter()
        .find(|s| s.algorithm == "ML-KEM-512" && s.id == "pqclean/clean")
        .expect("PQClean ML-KEM-512 sources");
    let root = std::env::temp_dir().join(format!("kembench-coexist-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let sha = src.sha256().unwrap();
    let mut loaded = Vec::new();
    for flags in ["-O1", "-O2"] {
        let f = FlagSet::parse(flags).unwrap();
        let key = compile::key(&src, &sha, &gcc, &f);
        compile::compile(&src, &gcc, &f, &root.join(&key)).expect("compiles");
        let entry = Entry {
            key,
            algorithm: src.algorithm.to_string(),
            facts: BuildFacts {
                implementation: compile::id(&src, &gcc.short, &f),
                source: src.id.clone(),
                source_version: src.version.clone(),
                source_sha256: sha.clone(),
                compiler: gcc.short.clone(),
                compiler_version: gcc.version.clone(),
                flags: f.text.clone(),
                required_flags: vec![],
                targets: vec![],
                gate: Gate::NotRun,
                arch: None,
            },
            symbols: src.symbols.clone(),
            kat_sha256: src.kat_sha256.clone(),
            custom: None,
            kat_file: None,
            compiled: Compiled::Built,
            build_seconds: 0.0,
            gated_by: None,
            registered_unix: 0,
        };
        loaded.push(Built::new(&root, entry).expect("a built entry"));
    }
    let (a, b): (&dyn Kem, &dyn Kem) = (&loaded[0], &loaded[1]);
    // The crate-built copy of the same C code is linked into this very binary, with the same
    // symbol names: local binding keeps the three apart, and all three agree.
    let linked = crate::providers::pqclean::implementations()
        .impls
        .into_iter()
        .find(|k| k.meta().label() == "ML-KEM-512@pqclean/clean")
        .unwrap();
    let seed = [7u8; 64];
    let alg = a.meta().algorithm;
    let keys = |k: &dyn Kem| {
        let (mut pk, mut sk) = (vec![0; alg.pk_len], vec![0; alg.sk_len]);
        k.keypair_derand(&seed, &mut pk, &mut sk).unwrap();
        (pk, sk)
    };
    let (pk_a, sk_a) = keys(a);
    assert_eq!(keys(b), (pk_a.clone(), sk_a.clone()));
    assert_eq!(keys(linked.as_ref()).0, pk_a);
    let m = [9u8; 32];
    let enc = |k: &dyn Kem| {
        let (mut ct, mut ss) = (vec![0; alg.ct_len], vec![0; alg.ss_len]);
        k.encaps_derand(&pk_a, &m, &mut ct, &mut ss).unwrap();
        (ct, ss)
    };
    let (ct, ss) = enc(a);
    assert_eq!(enc(b), (ct.clone(), ss.clone()));
    assert_eq!(b.decaps_vec(&sk_a, &ct).unwrap(), ss);
    // Random encapsulation by one build, decapsulation by the other.
    let (ct2, ss2) = a.encaps_vec(&pk_a).unwrap();
    assert_eq!(b.decaps_vec(&sk_a, &ct2).unwrap(), ss2);
    // Each build reproduces PQClean's published first KAT entry through kembench's DRBG.
    let (want, _) = a.known_answer_digest().unwrap();
    for k in [a, b] {
        let t = k.known_answer_transcript(1).unwrap().unwrap();
        use sha2::Digest;
        assert_eq!(hex::encode(sha2::Sha256::digest(t.as_bytes())), want);
    }
    let _ = std::fs::remove_dir_all(&root);
}

/// The KAT file of the test package (`tests/data/nist-package/`): ten entries of NIST's
/// `PQCgenKAT_kem` output for ML-KEM-512, made with liboqs (whose first entry's digest is also
/// PQClean's published `nistkat-sha256`). `KEMBENCH_WRITE_FIXTURES=1` rewrites it.
#[cfg(feature = "liboqs")]
#[test]
fn the_test_package_kat_file_is_liboqs_ml_kem_512_output() {
    use crate::kem::nist_kat::{first_difference, parse_rsp};
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/nist-package/mlkem512/KAT/mlkem512/PQCkemKAT_1632.rsp");
    let oqs = crate::providers::liboqs::implementations()
        .impls
        .into_iter()
        .find(|k| k.meta().label() == "ML-KEM-512@liboqs")
        .unwrap();
    let transcript = oqs.known_answer_transcript(10).unwrap().unwrap();
    if std::env::var_os("KEMBENCH_WRITE_FIXTURES").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, format!("# ML-KEM-512\n\n{transcript}\n\n")).unwrap();
    }
    let file = std::fs::read_to_string(&path).unwrap();
    assert_eq!(parse_rsp(&file).len(), 10);
    // Apart from the transcript that wrote it: the file's first entry, as liboqs's kat_kem
    // prints it, has the digest liboqs ships for ML-KEM-512 (`data/kat/liboqs_kats.json`,
    // itself checked against liboqs's kats.json).
    let first: String = file
        .lines()
        .skip_while(|l| !l.starts_with("count = 0"))
        .take_while(|l| !l.is_empty())
        .map(|l| format!("{l}\n"))
        .collect();
    let kats: serde_json::Value =
        serde_json::from_str(include_str!("../../data/kat/liboqs_kats.json")).unwrap();
    assert_eq!(
        hex::encode(<sha2::Sha256 as sha2::Digest>::digest(first.as_bytes())),
        kats["kats"]["ML-KEM-512"]["single"].as_str().unwrap()
    );
    assert_eq!(
        first_difference(&parse_rsp(&file), &parse_rsp(&transcript)),
        None
    );
}

/// liboqs's aarch64 dist build refuses a whole-architecture `-march=`/`-mcpu=` (it would
/// replace the `-march=` liboqs gives its AES and SHA-3 backends: the compile fails); its
/// generic build, PQClean and the host's liboqs/auto take the same flags.
#[test]
fn liboqs_auto_on_aarch64_refuses_a_march_flag_set_and_nothing_else_does() {
    use crate::arch::Arch;
    let (all, _) = sources::all_for(&[Arch::Aarch64, Arch::host()]);
    let find = |id: &str, arch: Arch| {
        all.iter()
            .find(|s| s.algorithm == "ML-KEM-768" && s.id == id && s.arch == arch)
            .unwrap_or_else(|| panic!("{id} for {arch}"))
    };
    let words = |t: &str| t.split(' ').map(String::from).collect::<Vec<_>>();
    let auto = find("liboqs/auto", Arch::Aarch64);
    let why = auto.refuses(&words("-O3 -march=armv8.2-a+sve")).unwrap();
    assert!(
        why.contains("-march=armv8.2-a+sve") && why.contains("liboqs/generic"),
        "{why}"
    );
    assert!(auto.refuses(&words("-O3 -mcpu=neoverse-v1")).is_some());
    assert_eq!(auto.refuses(&words("-O3")), None);
    for (id, arch) in [
        ("liboqs/generic", Arch::Aarch64),
        ("pqclean/clean", Arch::Aarch64),
        ("liboqs/auto", Arch::host()),
    ] {
        assert_eq!(
            find(id, arch).refuses(&words("-O3 -march=armv8.2-a+sve")),
            None,
            "{id}"
        );
    }
}
