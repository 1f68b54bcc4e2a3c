//! `kembench builds` (compile, gate, register) and `kembench list --builds`.

use crate::builds::compile::FlagSet;
use crate::builds::{self, sources};
use crate::cli::CompileArgs;
use crate::output::builds as out;
use crate::providers::built::manifest;
use crate::providers::registry::{matcher, Pattern};
use crate::providers::Filter;
use crate::suggest::hint;
use std::io::IsTerminal;
use std::process::ExitCode;

/// `kembench builds`'s command line (see [`Options`] for what it is validated into).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Algorithm names or globs (`ML-KEM-768`, `ntru*`); repeat or separate by commas.
    #[arg(long = "alg", value_delimiter = ',')]
    algorithms: Vec<String>,
    /// Sources, by id or glob: `pqclean/clean`, `pqclean/avx2`, `pqclean/opt`.
    #[arg(long = "impl", value_delimiter = ',')]
    sources: Vec<String>,
    /// A source tree to build (repeatable): `liboqs=PATH` (a liboqs checkout or release,
    /// built with its CMake), `pqclean=PATH` (a PQClean checkout's `crypto_kem/*`) or
    /// `openssl=PATH` (an OpenSSL checkout or release, built with its Configure and make,
    /// then OpenSSL's KEM library against it: minutes). Its builds are named with the tree's
    /// declared version and its git commit or content digest
    /// (`ML-KEM-768@liboqs-0.13.0+g1a2b3c4/auto@gcc-12:O3`), gated with the tree's own known
    /// answers where it ships them. Without --impl, only the trees' sources are built.
    #[arg(long = "source", value_name = "KIND=PATH")]
    trees: Vec<String>,
    /// Compilers, flag sets (default: gcc and clang, -O2;-O3;-O3 -march=native), the
    /// gate's limit, JSON.
    #[command(flatten)]
    compile: CompileArgs,
    /// Compilers run at once (default: the logical CPUs).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
    jobs: Option<u16>,
    /// Run the gate again on builds this kembench already verified.
    #[arg(long)]
    reverify: bool,
    /// Build only shard K of N (K from 1) of the (source, compiler, flag set)
    /// combinations, split deterministically and balanced by expected cost: N jobs
    /// sharing one build cache (KEMBENCH_BUILD_DIR) build the whole matrix once.
    #[arg(long, value_name = "K/N", value_parser = crate::shard::Shard::from_str_arg)]
    shard: Option<crate::shard::Shard>,
    /// Architectures to build for (default: this machine's): `s390x`, `aarch64`,
    /// `ppc64le`, `riscv64` are cross-compiled into static programs run under QEMU's
    /// user-mode emulation, gated there (known answers, interoperability with this
    /// machine's implementations), and counted by `profile`, never timed. With a foreign
    /// architecture the default flag sets are -O2;-O3;-O3 -march=vector, where
    /// `-march=vector` stands for each architecture's vector unit: -march=z13 on s390x,
    /// -march=armv8.2-a+sve on aarch64, -mcpu=power9 on ppc64le, -march=x86-64-v3 on
    /// x86-64 (none on riscv64: said, not built).
    #[arg(long, value_delimiter = ',')]
    arch: Vec<String>,
}

impl Args {
    /// Runs `builds`.
    pub fn run(self) -> anyhow::Result<ExitCode> {
        let archs = parse_archs(&self.arch)?;
        let flags: &[&str] = if archs.iter().any(|a| a.foreign()) {
            &["-O2", "-O3", "-O3 -march=vector"]
        } else {
            &["-O2", "-O3", "-O3 -march=native"]
        };
        build(&Options {
            algorithms: self.algorithms,
            sources: self.sources,
            trees: self.trees,
            compile: Compile::from(self.compile.or(&["gcc", "clang"], flags)),
            jobs: self.jobs.map(usize::from),
            reverify: self.reverify,
            shard: self.shard,
            archs,
        })
    }
}

/// `kembench add`'s command line (see [`AddOptions`]).
#[derive(Debug, clap::Args)]
pub struct AddArgs {
    /// The package directory (the one holding api.h), or a prebuilt shared library that
    /// exports crypto_kem_keypair/enc/dec.
    path: std::path::PathBuf,
    /// For a prebuilt library: its public-key, secret-key, ciphertext and shared-secret
    /// bytes (api.h's CRYPTO_PUBLICKEYBYTES, ...), unless --implements gives them.
    #[arg(long, value_delimiter = ',', num_args = 1..)]
    sizes: Vec<usize>,
    /// Its name (default: CRYPTO_ALGNAME from api.h, else the directory's name).
    #[arg(long)]
    name: Option<String>,
    /// The catalog algorithm it implements (e.g. ML-KEM-768): its sizes must match, and the
    /// gate then checks interoperability with every implementation of it.
    #[arg(long)]
    implements: Option<String>,
    /// Compilers, flag sets (default: gcc, -O3), the gate's limit, JSON.
    #[command(flatten)]
    compile: CompileArgs,
    /// Its claimed NIST level (a scheme of its own).
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=5))]
    level: Option<u8>,
    /// It claims IND-CCA with implicit rejection: the gate's tamper check then demands a
    /// pseudo-random secret for a tampered ciphertext (a scheme of its own).
    #[arg(long)]
    implicit_rejection: bool,
    /// Replace the builds another package or library registered under the same name
    /// (without it, a name that holds a verified build of another package is refused).
    #[arg(long)]
    replace: bool,
    /// Architectures to build the package for (default: this machine's), as `builds
    /// --arch`: a foreign one is cross-compiled into a static program with kembench's
    /// driver and gated under QEMU (needs --implements or a catalog name: the driver
    /// takes the catalog's sizes).
    #[arg(long, value_delimiter = ',')]
    arch: Vec<String>,
}

impl AddArgs {
    /// Runs `add`.
    pub fn run(self) -> anyhow::Result<ExitCode> {
        add(&AddOptions {
            archs: parse_archs(&self.arch)?,
            path: self.path,
            sizes: self.sizes,
            name: self.name,
            implements: self.implements,
            compile: Compile::from(self.compile.or(&["gcc"], &["-O3"])),
            level: self.level,
            implicit_rejection: self.implicit_rejection,
            replace: self.replace,
        })
    }
}

/// `--arch` values as architectures; an unknown one is refused, suggesting the nearest.
fn parse_archs(arch: &[String]) -> anyhow::Result<Vec<crate::arch::Arch>> {
    let names = crate::arch::Arch::names();
    Ok(crate::arch::Arch::parse_list(arch).map_err(|bad| {
        crate::usage::Usage(format!(
            "unknown architecture '{bad}'{} (kembench builds for {})",
            hint(&bad, &names),
            names.join(", ")
        ))
    })?)
}

impl From<CompileArgs> for Compile {
    /// The compile arguments of `builds` and `add` as those commands take them.
    fn from(c: CompileArgs) -> Compile {
        Compile {
            cc: c.cc,
            flags: c.flags,
            gate_timeout: std::time::Duration::from_secs(c.gate_timeout),
            json: c.json,
        }
    }
}

/// The validated command line of `builds`.
#[derive(Debug, Clone)]
pub struct Options {
    /// Algorithm names or globs.
    pub algorithms: Vec<String>,
    /// Source ids or globs.
    pub sources: Vec<String>,
    /// Source trees (`KIND=PATH`, see [`builds::trees`]).
    pub trees: Vec<String>,
    /// Compilers, flag sets, the gate's limit, JSON.
    pub compile: Compile,
    /// Compilers at once.
    pub jobs: Option<usize>,
    /// Gate again.
    pub reverify: bool,
    /// Only this shard of the builds.
    pub shard: Option<crate::shard::Shard>,
    /// Architectures to build for (empty: the host's).
    pub archs: Vec<crate::arch::Arch>,
}

/// What `builds` and `add` share: how they compile and gate, and how they answer.
#[derive(Debug, Clone)]
pub struct Compile {
    /// Compilers.
    pub cc: Vec<String>,
    /// Flag sets.
    pub flags: Vec<String>,
    /// Longest one gate child may run.
    pub gate_timeout: std::time::Duration,
    /// JSON output.
    pub json: bool,
}

/// Names or globs (case-insensitive; a name matched literally, see [`Pattern`]); none given
/// matches everything.
struct Patterns(Vec<Pattern>);

impl Patterns {
    /// Reads `patterns` against `names`: one that is a name matches it literally; one that is
    /// a malformed glob and no name is a usage error.
    fn compile(patterns: &[String], names: &[String]) -> anyhow::Result<Patterns> {
        let mut v = Vec::new();
        for p in patterns {
            let m = matcher(p).exact_where_named(names);
            if let Some(bad) = m
                .malformed()
                .filter(|_| !names.iter().any(|n| m.is_match(n)))
            {
                return Err(crate::usage::Usage(bad.to_string()).into());
            }
            v.push(m);
        }
        Ok(Patterns(v))
    }

    /// Compiles `patterns`; each must match one of `names` (else a usage error naming the
    /// nearest, `what` saying what kind of name).
    fn new(what: &str, patterns: &[String], names: &[String]) -> anyhow::Result<Patterns> {
        let compiled = Patterns::compile(patterns, names)?;
        for (p, m) in patterns.iter().zip(&compiled.0) {
            if !names.iter().any(|n| m.is_match(n)) {
                let hint = match hint(p, names) {
                    h if h.is_empty() => format!("; kembench can build: {}", names.join(", ")),
                    h => h,
                };
                crate::bail_usage!("no {what} to build matches '{p}'{hint}");
            }
        }
        Ok(compiled)
    }

    fn matches(&self, name: &str) -> bool {
        self.0.is_empty() || self.0.iter().any(|m| m.is_match(name))
    }
}

/// Prints a summary (JSON or tables) and gives the exit code: 1 when a build failed.
fn finish(
    summary: &builds::Summary,
    json: bool,
    unavailable: &[&sources::Missing],
    after: Option<&str>,
) -> anyhow::Result<ExitCode> {
    if json {
        println!("{}", serde_json::to_string_pretty(&out::json(summary))?);
    } else {
        out::print_summary(summary, unavailable);
        if let Some(text) = after {
            print!("{}", crate::output::wrap(text, 2));
        }
    }
    Ok(if summary.outcomes.iter().any(|o| out::failed(&o.entry)) {
        ExitCode::from(crate::exit::FAILED)
    } else {
        ExitCode::SUCCESS
    })
}

/// Runs `builds`.
fn build(a: &Options) -> anyhow::Result<ExitCode> {
    let archs = if a.archs.is_empty() {
        vec![crate::arch::Arch::host()]
    } else {
        a.archs.clone()
    };
    for arch in archs.iter().filter(|a| a.foreign()) {
        arch.emulator().map_err(crate::usage::Usage)?;
    }
    let (mut all, mut missing) = sources::all_for(&archs);
    let mut trees: Vec<builds::trees::Tree> = Vec::new();
    for t in &a.trees {
        let tree = builds::trees::open(t)?;
        if let Some(same) = trees.iter().find(|o| o.origin.prefix == tree.origin.prefix) {
            eprintln!(
                "builds: {} and {} are the same code ({}): built once",
                same.path.display(),
                tree.path.display(),
                tree.origin.prefix
            );
            continue;
        }
        eprintln!("builds: source tree {}", tree.origin.version);
        let (f, m) = tree.sources(&archs);
        all.extend(f);
        missing.extend(m);
        trees.push(tree);
    }
    // With trees and no --impl, only the trees' sources.
    let of_a_tree = |id: &str| {
        trees
            .iter()
            .any(|t| id.starts_with(&format!("{}/", t.origin.prefix)))
    };
    if !trees.is_empty() && a.sources.is_empty() {
        all.retain(|s| of_a_tree(&s.id));
        missing.retain(|m| {
            let src = m.label.split('@').nth(1).unwrap_or_default();
            of_a_tree(src) || trees.iter().any(|t| src == t.origin.prefix)
        });
    }
    let (mut alg_names, mut src_names): (Vec<String>, Vec<String>) = (Vec::new(), Vec::new());
    for s in &all {
        if !alg_names.iter().any(|n| n == s.algorithm) {
            alg_names.push(s.algorithm.to_string());
        }
        if !src_names.contains(&s.id) {
            src_names.push(s.id.clone());
        }
    }
    if a.algorithms.is_empty() && a.sources.is_empty() && trees.is_empty() {
        let n = all.len() * a.compile.cc.len() * a.compile.flags.len();
        crate::bail_usage!(
            "say what to build, e.g. `--alg ML-KEM-768` or `--impl pqclean/clean`; `--alg '*'` \
             builds every source kembench carries ({} sources × {} compilers × {} flag sets = \
             {n} builds, liboqs's taking about 20 s each)",
            all.len(),
            a.compile.cc.len(),
            a.compile.flags.len()
        );
    }
    // Sources whose files cannot be read are named by the filters too: asking for them is not
    // a typo, and the error says what cannot be read.
    let unreadable: Vec<&sources::Missing> = missing.iter().filter(|m| m.unreadable).collect();
    let algorithm_of = |m: &sources::Missing| m.label.split('@').next().unwrap_or("").to_string();
    for m in &unreadable {
        let alg = algorithm_of(m);
        if !alg_names.contains(&alg) {
            alg_names.push(alg);
        }
    }
    // What a tree has and kembench does not build is named too: asking for it gets the
    // reason and the sizes the tree declares, not "no algorithm matches".
    if !trees.is_empty() {
        for m in missing.iter().filter(|m| !m.quiet) {
            let alg = algorithm_of(m);
            if !alg_names.contains(&alg) {
                alg_names.push(alg);
            }
        }
    }
    let algs = Patterns::new("algorithm", &a.algorithms, &alg_names)?;
    let asked: Vec<&&sources::Missing> = unreadable
        .iter()
        .filter(|m| algs.matches(&algorithm_of(m)))
        .collect();
    let cannot_read = || {
        let said: Vec<String> = asked
            .iter()
            .map(|m| format!("{}: {}", m.label, m.reason))
            .collect();
        anyhow::anyhow!(
            "the sources asked for cannot be read, so nothing can be built from them: {}",
            said.join("; ")
        )
    };
    // A source that exists but not for the architecture asked (liboqs on s390x): say why.
    for p in &a.sources {
        let m = matcher(p);
        if src_names.iter().any(|n| m.is_match(n)) {
            continue;
        }
        let why: Vec<String> = missing
            .iter()
            .filter(|x| !x.unreadable && algs.matches(&algorithm_of(x)))
            .filter(|x| {
                x.label.split('@').nth(1).is_some_and(|src| {
                    m.is_match(src) || src.starts_with(p.as_str()) || p.starts_with(src)
                })
            })
            .map(|x| format!("{}: {}", x.label, x.reason))
            .collect();
        if !why.is_empty() {
            crate::bail_usage!("'{p}' cannot be built here: {}", why.join("; "));
        }
    }
    let srcs = match Patterns::new("source", &a.sources, &src_names) {
        Err(_) if !asked.is_empty() => return Err(cannot_read()),
        p => p?,
    };
    let picked: Vec<sources::Source> = all
        .into_iter()
        .filter(|s| algs.matches(s.algorithm) && srcs.matches(&s.id))
        .collect();
    if picked.is_empty() {
        if !asked.is_empty() {
            return Err(cannot_read());
        }
        // What a tree has that kembench does not build from it, asked for by name.
        let not_offered: Vec<String> = missing
            .iter()
            .filter(|m| !m.quiet && algs.matches(&algorithm_of(m)))
            .map(|m| format!("{}: {}", m.label, m.reason))
            .collect();
        if !trees.is_empty() && !not_offered.is_empty() {
            crate::bail_usage!("nothing to build: {}", not_offered.join("; "));
        }
        crate::bail_usage!(
            "the filters together select no source (try `kembench builds --alg ML-KEM-768`)"
        );
    }
    for m in &asked {
        eprintln!("builds: not built: {}: {}", m.label, m.reason);
    }
    let flags = FlagSet::parse_all(&a.compile.flags).map_err(crate::usage::Usage)?;
    let mut cc: Vec<String> = Vec::new();
    for c in &a.compile.cc {
        let c = c.trim().to_string();
        if c.is_empty() {
            crate::bail_usage!("--cc has an empty compiler name");
        }
        if !cc.contains(&c) {
            cc.push(c);
        }
    }
    let req = builds::Request {
        sources: picked,
        compilers: cc,
        flags,
        jobs: a
            .jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
        reverify: a.reverify,
        gate_timeout: a.compile.gate_timeout,
        shard: a.shard,
    };
    let tty = std::io::stderr().is_terminal() && !a.compile.json;
    let progress = |what: &str| {
        if tty {
            eprint!("\r\x1b[2Kbuilds: {what}");
        }
    };
    let summary = builds::run(&req, &progress)
        .map_err(|e| anyhow::anyhow!("build cache {}: {e}", manifest::dir().display()))?;
    if tty {
        eprint!("\r\x1b[2K");
    }
    let unavailable: Vec<&sources::Missing> = missing
        .iter()
        .filter(|m| algs.matches(m.label.split('@').next().unwrap_or_default()))
        .filter(|m| said(m, !a.sources.is_empty(), &|s| srcs.matches(s)))
        .collect();
    let cpus = emulated_cpus(&summary);
    finish(&summary, a.compile.json, &unavailable, cpus.as_deref())
}

/// Whether `builds` says why `m` is not offered: without `--impl`, every reason but the
/// quiet ones (a variant that has no code for an architecture); with `--impl`, those of the
/// sources it names (`matches`), and a tree's algorithm it does not build (a label with no
/// variant: `FrodoKEM-640-AES@liboqs-0.16.0+g8979276`), whatever the variants named.
fn said(m: &sources::Missing, impl_given: bool, matches: &dyn Fn(&str) -> bool) -> bool {
    let source = m.label.split('@').nth(1).unwrap_or_default();
    if impl_given {
        matches(source) || !source.contains('/')
    } else {
        !m.quiet
    }
}

/// What CPU each emulator presents to the programs built for it (its platform and vector
/// capabilities), read by the driver of one passed build per architecture.
fn emulated_cpus(summary: &builds::Summary) -> Option<String> {
    let mut said: Vec<String> = Vec::new();
    let mut done: Vec<&str> = Vec::new();
    for o in summary.outcomes.iter().filter(|o| !out::failed(&o.entry)) {
        let Some(a) = o.entry.facts.arch.as_deref() else {
            continue;
        };
        if done.contains(&a) {
            continue;
        }
        done.push(a);
        let Some(f) = crate::providers::foreign::Foreign::new(&summary.root, o.entry.clone())
        else {
            continue;
        };
        said.push(match f.cpu() {
            Ok(c) => format!("{a} under {}: {}", c.arch.qemu(), c.describe()),
            Err(e) => format!("{a}: not read ({e})"),
        });
    }
    (!said.is_empty()).then(|| {
        format!(
            "The CPU each emulator presents (its auxiliary vector, as a build's program reads \
             it): {}.",
            said.join("; ")
        )
    })
}

/// The validated command line of `add`.
#[derive(Debug, Clone)]
pub struct AddOptions {
    /// The package directory, or a prebuilt shared library.
    pub path: std::path::PathBuf,
    /// A prebuilt library's sizes: pk, sk, ct, ss.
    pub sizes: Vec<usize>,
    /// Its name.
    pub name: Option<String>,
    /// The catalog algorithm it implements.
    pub implements: Option<String>,
    /// Compilers, flag sets, the gate's limit, JSON.
    pub compile: Compile,
    /// Claimed level.
    pub level: Option<u8>,
    /// Claims implicit rejection.
    pub implicit_rejection: bool,
    /// Replace another package's builds of the same name.
    pub replace: bool,
    /// Architectures to build for (empty: this machine's).
    pub archs: Vec<crate::arch::Arch>,
}

/// A name (`--name`, `CRYPTO_ALGNAME`, a directory's or library's) that can name an
/// implementation: not empty, one line of printable text.
fn check_name(name: &str, what: &str) -> anyhow::Result<()> {
    if name.trim().is_empty() {
        crate::bail_usage!("{what} is empty: name the package with --name NAME");
    }
    if let Some(c) = name.chars().find(|c| c.is_control()) {
        crate::bail_usage!(
            "{what} {name:?} holds a control character ({c:?}): a name is one line of \
             printable text (give one with --name NAME)"
        );
    }
    Ok(())
}

/// `--sizes` of a prebuilt library: four sizes, each one a KEM could have.
fn check_sizes(sizes: &[usize]) -> anyhow::Result<()> {
    /// Larger than any KEM's (Classic McEliece's largest public key is 1.3 MB).
    const MAX: usize = 64 << 20;
    if sizes.is_empty() {
        return Ok(());
    }
    if sizes.len() != 4 {
        crate::bail_usage!(
            "--sizes takes four sizes, PK,SK,CT,SS (api.h's CRYPTO_PUBLICKEYBYTES, \
             CRYPTO_SECRETKEYBYTES, CRYPTO_CIPHERTEXTBYTES, CRYPTO_BYTES), not {}",
            sizes.len()
        );
    }
    for (what, &n) in ["public key", "secret key", "ciphertext", "shared secret"]
        .iter()
        .zip(sizes)
    {
        if n == 0 || n > MAX {
            crate::bail_usage!(
                "--sizes: a {what} of {n} bytes is no KEM's (each size is 1 byte to 64 MiB)"
            );
        }
    }
    Ok(())
}

/// The catalog algorithm a package claims: `--implements`, else `--name` when it is a
/// catalog algorithm (a claim like `--implements`, its sizes checked), else `api.h`'s
/// `CRYPTO_ALGNAME` when it is one.
fn claimed(a: &AddOptions, declared: Option<&str>) -> anyhow::Result<Option<&'static str>> {
    let named = a.name.as_deref().and_then(crate::kem::catalog::find);
    Ok(match (&a.implements, named) {
        (Some(i), Some(n)) if !i.eq_ignore_ascii_case(n.name) => crate::bail_usage!(
            "--name {} is the catalog algorithm {}, but --implements says {i}: name the \
             package otherwise, or drop one of them",
            n.name,
            n.name
        ),
        (Some(i), _) => Some(catalog_algorithm(i)?.name),
        (None, Some(n)) => Some(n.name),
        (None, None) => declared.and_then(crate::kem::catalog::find).map(|x| x.name),
    })
}

/// Whether a build's gate passed.
fn verified(e: &manifest::Entry) -> bool {
    matches!(e.facts.gate, crate::kem::Gate::Passed(_))
}

/// Makes room for the builds of `source` (`local/NAME`) from `origin` (`local package DIR`,
/// `prebuilt library PATH`): another package's builds under that name are refused when one of
/// them passed the gate (unless `replace`), and removed otherwise, each said on stderr. A
/// verified build is never replaced silently.
fn claim_name(source: &str, origin: &str, replace: bool) -> anyhow::Result<()> {
    let root = manifest::dir();
    let others: Vec<manifest::Entry> = manifest::every(&root)
        .into_iter()
        .filter(|e| e.facts.source == source && e.facts.source_version != origin)
        .collect();
    if let Some(v) = others.iter().find(|e| verified(e)).filter(|_| !replace) {
        crate::bail_usage!(
            "{source} is already the name of another package: {} ({}, verified); give this \
             one its own name with --name NAME, or replace that one with --replace",
            v.facts.source_version,
            v.label()
        );
    }
    for e in &others {
        eprintln!(
            "kembench add: replacing {} of {} ({})",
            e.label(),
            e.facts.source_version,
            if verified(e) {
                "verified"
            } else {
                "not verified"
            }
        );
        let _ = std::fs::remove_dir_all(root.join(&e.key));
    }
    Ok(())
}

/// Says on stderr which earlier builds of the same package (same label, an older record) a
/// verified build was replaced by: a changed package re-added under its name.
fn say_replaced(before: &[manifest::Entry], summary: &builds::Summary) {
    for o in &summary.outcomes {
        let label = o.entry.label();
        for old in before
            .iter()
            .filter(|e| e.label() == label && e.key != o.entry.key && verified(e))
        {
            eprintln!(
                "kembench add: {label} now names this build of {} ({}); it replaces an \
                 earlier, verified build of the same package (cache key {})",
                o.entry.facts.source_version,
                if out::failed(&o.entry) {
                    "which did NOT pass"
                } else {
                    "verified"
                },
                old.key
            );
        }
    }
}

/// An id part from a name: no spaces, `@`, `,` or `/`.
fn id_part(name: &str) -> String {
    name.trim()
        .chars()
        .map(|c| {
            if c.is_whitespace() || "@,/:".contains(c) {
                '-'
            } else {
                c
            }
        })
        .collect()
}

/// Runs `add`: one package, compiled with every compiler and flag set, gated, registered.
fn add(a: &AddOptions) -> anyhow::Result<ExitCode> {
    let dir = &a.path;
    // `exists` is false for any error: a loop of symbolic links or a folder that cannot be
    // searched is said with the system's reason, not as a missing path.
    match std::fs::metadata(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            crate::bail_usage!("{} does not exist", dir.display())
        }
        Err(e) => anyhow::bail!("cannot read {}: {e}", dir.display()),
        Ok(m) if !m.is_dir() => return add_library(a),
        Ok(_) => {}
    }
    let dir = std::fs::canonicalize(dir)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", dir.display()))?;
    std::fs::read_dir(&dir).map_err(|e| anyhow::anyhow!("cannot read {}: {e}", dir.display()))?;
    let api_h = dir.join("api.h");
    let api = match std::fs::read_to_string(&api_h) {
        Ok(text) => text,
        // Said by `from_dir`, with what a package keeps.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => anyhow::bail!("cannot read {}: {e}", api_h.display()),
    };
    let declared = builds::package::algname(&api);
    let implements = claimed(a, declared.as_deref())?;
    let (name, what) = match (&a.name, declared) {
        (Some(n), _) => (n.clone(), "--name"),
        (None, Some(d)) => (d, "api.h's CRYPTO_ALGNAME"),
        (None, None) => (
            dir.file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned(),
            "the package directory's name",
        ),
    };
    check_name(&name, what)?;
    let algorithm: &'static str = match implements {
        Some(n) => n,
        None => Box::leak(name.clone().into_boxed_str()),
    };
    let kat_file = builds::package::find_kat(&dir);
    let package = sources::Package {
        kat_file: kat_file.clone(),
        implements: implements.is_some(),
        level: a.level,
        implicit_rejection: implements
            .and_then(crate::kem::catalog::find)
            .map_or(a.implicit_rejection, |x| x.implicit_rejection),
    };
    let source = builds::package::from_dir(
        &dir,
        &format!("local/{}", id_part(&name)),
        algorithm,
        package,
    )
    .map_err(crate::usage::Usage)?;
    let flags = FlagSet::parse_all(&a.compile.flags).map_err(crate::usage::Usage)?;
    // One source per architecture asked for: a foreign one is a static program with
    // kembench's driver, which takes the catalog's sizes.
    let mut sources = Vec::new();
    for arch in if a.archs.is_empty() {
        vec![crate::arch::Arch::host()]
    } else {
        a.archs.clone()
    } {
        if arch.foreign() {
            arch.emulator().map_err(crate::usage::Usage)?;
            if implements.is_none() {
                crate::bail_usage!(
                    "--arch {arch}: a package built for another architecture runs in \
                     kembench's driver, which takes a catalog algorithm's sizes: say which one it \
                     implements with --implements (a scheme of its own is built for this machine \
                     only)"
                );
            }
        }
        sources.push(sources::Source {
            arch,
            ..source.clone()
        });
    }
    claim_name(&source.id, &source.version, a.replace)?;
    cache_writable()?;
    let before = manifest::every(&manifest::dir());
    let req = builds::Request {
        sources,
        compilers: a.compile.cc.clone(),
        flags,
        jobs: std::thread::available_parallelism().map_or(1, |n| n.get()),
        reverify: true,
        gate_timeout: a.compile.gate_timeout,
        shard: None,
    };
    let summary = builds::run(&req, &|_| {})
        .map_err(|e| anyhow::anyhow!("build cache {}: {e}", manifest::dir().display()))?;
    say_replaced(&before, &summary);
    let kats = match &kat_file {
        Some(f) => format!("Known answers: {} (regenerated and compared).", f.display()),
        None => "No PQCkemKAT_*.rsp beside the package (looked in it, and in KAT/ up to four \
                 levels above): known answers only where kembench has its own for the algorithm."
            .to_string(),
    };
    finish(&summary, a.compile.json, &[], Some(&kats))
}

/// Whether `add` can write into the build cache, tried with a file of its own before anything
/// is compiled: a cache it cannot write is an I/O error (exit 3) naming the cache and the
/// reason, not a build that failed its check.
fn cache_writable() -> anyhow::Result<()> {
    let root = manifest::dir();
    let probe = root.join(format!(".kembench-write-probe-{}", std::process::id()));
    std::fs::create_dir_all(&root)
        .and_then(|()| std::fs::File::create(&probe))
        .map_err(|e| {
            anyhow::anyhow!(
                "cannot write into the build cache {}: {e}; make it writable, or name another \
                 with KEMBENCH_BUILD_DIR",
                root.display()
            )
        })?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// The catalog algorithm `--implements` names (suggesting the nearest for a typo).
fn catalog_algorithm(name: &str) -> anyhow::Result<&'static crate::kem::Algorithm> {
    crate::kem::catalog::find(name).ok_or_else(|| {
        let catalog: Vec<String> = crate::kem::catalog::ALGORITHMS
            .iter()
            .map(|x| x.name.to_string())
            .collect();
        anyhow::Error::new(crate::usage::Usage(format!(
            "--implements {name}: not a catalog algorithm{}",
            hint(name, &catalog)
        )))
    })
}

/// `add` of a prebuilt shared library: its exported NIST API, the sizes given, the gate.
fn add_library(a: &AddOptions) -> anyhow::Result<ExitCode> {
    if let Some(arch) = a.archs.iter().find(|x| x.foreign()) {
        crate::bail_usage!(
            "--arch {arch}: a prebuilt library is built for this machine; give the package's \
             source directory to build it for {arch}"
        );
    }
    let path = std::fs::canonicalize(&a.path)?;
    check_sizes(&a.sizes)?;
    let symbols = builds::package::library_symbols(&path).map_err(crate::usage::Usage)?;
    let name = a.name.clone().unwrap_or_else(|| {
        let stem = path.file_stem().unwrap_or_default().to_string_lossy();
        stem.strip_prefix("lib").unwrap_or(&stem).to_string()
    });
    check_name(
        &name,
        if a.name.is_some() {
            "--name"
        } else {
            "the library's name"
        },
    )?;
    let (algorithm, custom) = match claimed(a, None)? {
        Some(i) => {
            let alg = catalog_algorithm(i)?;
            let want = [alg.pk_len, alg.sk_len, alg.ct_len, alg.ss_len];
            if !a.sizes.is_empty() && a.sizes != want {
                crate::bail_usage!(
                    "--sizes {:?} differ from {}'s {want:?} (pk, sk, ct, ss bytes)",
                    a.sizes,
                    alg.name
                );
            }
            (alg.name.to_string(), None)
        }
        None => {
            let [pk, sk, ct, ss] = a.sizes[..] else {
                crate::bail_usage!(
                    "a prebuilt library needs its sizes: --sizes PK,SK,CT,SS (api.h's \
                     CRYPTO_PUBLICKEYBYTES, CRYPTO_SECRETKEYBYTES, CRYPTO_CIPHERTEXTBYTES, \
                     CRYPTO_BYTES), or --implements ALGORITHM"
                );
            };
            (
                name.clone(),
                Some(crate::providers::built::CustomAlgorithm {
                    name: name.clone(),
                    nist_level: a.level,
                    pk_len: pk,
                    sk_len: sk,
                    ct_len: ct,
                    ss_len: ss,
                    implicit_rejection: a.implicit_rejection,
                }),
            )
        }
    };
    let id = format!("local/{}@prebuilt", id_part(&name));
    let origin = format!("prebuilt library {}", path.display());
    claim_name(&format!("local/{}", id_part(&name)), &origin, a.replace)?;
    cache_writable()?;
    let before = manifest::every(&manifest::dir());
    let summary = builds::prebuilt(
        &path,
        &id,
        &algorithm,
        custom,
        symbols,
        a.compile.gate_timeout,
    )
    .map_err(|e| anyhow::anyhow!("build cache {}: {e}", manifest::dir().display()))?;
    say_replaced(&before, &summary);
    finish(&summary, a.compile.json, &[], None)
}

/// Runs `list --builds`: every registered build (and failed one) the filter's algorithms select.
pub fn list(filter: &Filter, json: bool) -> anyhow::Result<ExitCode> {
    let root = manifest::dir();
    let mut entries = manifest::all(&root);
    let alg_names: Vec<String> = entries.iter().map(|e| e.algorithm.clone()).collect();
    let id_names: Vec<String> = entries
        .iter()
        .map(|e| e.facts.implementation.clone())
        .collect();
    let algs = Patterns::compile(&filter.algorithms, &alg_names)?;
    let ids = Patterns::compile(&filter.implementations, &id_names)?;
    entries.retain(|e| algs.matches(&e.algorithm) && ids.matches(&e.facts.implementation));
    if json {
        println!("{}", serde_json::to_string_pretty(&entries)?);
    } else {
        out::print_list(&entries, &root);
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn missing(label: &str, quiet: bool) -> sources::Missing {
        sources::Missing {
            label: label.into(),
            reason: String::new(),
            unreadable: false,
            quiet,
        }
    }

    /// `--impl '*/generic'` no longer lists PQClean's aarch64 code as not running here, and
    /// still lists a tree's algorithm of another specification.
    #[test]
    fn the_reasons_said_follow_the_sources_named() {
        let generic = |s: &str| s.ends_with("/generic");
        let aarch64 = missing("Kyber768@pqclean/aarch64", false);
        let tree = missing("FrodoKEM-640-AES@liboqs-0.16.0+g8979276", false);
        let quiet = missing("ML-KEM-768@liboqs/auto@s390x", true);
        assert!(!said(&aarch64, true, &generic));
        assert!(said(&aarch64, false, &generic));
        assert!(said(&tree, true, &generic));
        assert!(said(&tree, false, &generic));
        assert!(!said(&quiet, false, &generic));
        assert!(said(&quiet, true, &|s: &str| s == "liboqs/auto"));
    }
}
