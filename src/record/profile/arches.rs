//! Across architectures: profiled results placed on the architecture they ran on (x86-64
//! natively under callgrind, a foreign build under QEMU's plugin), their source, compiler and
//! flags; per algorithm the instructions of each operation side by side, the primitive shares
//! and the bound they put on a drop-in accelerator, and plain sentences on what the counts say
//! (the architecture's own code against its portable code, each architecture's portable code
//! against the host's). One table for `show`, the Markdown export and the report.
//!
//! Counts compare code paths, not machines: an instruction of s390x is not one of x86-64 in
//! time, and nothing here says how fast an architecture is.

use super::ProfileResult;
use crate::arch::BuildId;
use crate::callgrind::Primitive;
use crate::kem::Op;
use crate::table::{Cell, Column, Table, FIT, MARKDOWN, REPORT, WIDE};
use crate::units::thousands;

/// The operations of one key exchange, each a column.
const OPS: [Op; 3] = [Op::Keygen, Op::Encaps, Op::Decaps];

/// The primitives a drop-in accelerator (a coprocessor, an instruction set extension, a faster
/// library) could take over: everything but the algorithm's own arithmetic.
const PRIMITIVES: [Primitive; 5] = [
    Primitive::Keccak,
    Primitive::Sha2,
    Primitive::Aes,
    Primitive::Rng,
    Primitive::Bignum,
];

/// What kind of code a profiled implementation is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
    /// A build of portable C (`pqclean/clean`, `liboqs/generic`).
    Portable,
    /// A build of the architecture's own code (AVX2, NEON, a liboqs build that dispatches).
    Own,
    /// A library as its crate ships it, dispatching at run time on the host.
    Library,
}

impl Code {
    /// Its name in tables.
    pub fn label(self) -> &'static str {
        match self {
            Code::Portable => "portable",
            Code::Own => "own code",
            Code::Library => "library",
        }
    }
}

/// One profiled (algorithm, implementation), placed.
#[derive(Debug, Clone)]
pub struct Placed<'a> {
    /// The architecture it ran on (`x86_64`, `s390x`).
    pub arch: String,
    /// The source (`pqclean/clean`) or the library (`liboqs`).
    pub source: String,
    /// Compiler and flags (`gcc-12:O3`); empty for a library as shipped.
    pub build: String,
    /// What kind of code it is.
    pub code: Code,
    /// The result.
    pub result: &'a ProfileResult,
}

impl Placed<'_> {
    /// Instructions of `op` (the median over seeds), if profiled.
    pub fn count(&self, op: Op) -> Option<u64> {
        self.result.op(op).map(|o| o.instructions.median)
    }

    /// Instructions of one exchange (keygen + encaps + decaps), when all three were profiled.
    pub fn exchange(&self) -> Option<u64> {
        OPS.iter().map(|op| self.count(*op)).sum()
    }

    /// Instructions of seed 0's calls of the exchange's operations spent in `p`, and in all.
    fn primitive(&self, p: Primitive) -> (u64, u64) {
        let mut inside = 0;
        let mut all = 0;
        for o in OPS.iter().filter_map(|op| self.result.op(*op)) {
            all += o.analysis.instructions;
            inside += o
                .analysis
                .shares
                .iter()
                .filter(|s| s.primitive == p)
                .map(|s| s.instructions)
                .sum::<u64>();
        }
        (inside, all)
    }

    /// Instructions of the profiled operations (seed 0) left if every primitive an accelerator
    /// could take over cost nothing, and all of them: the bound on any drop-in accelerator is
    /// `all / left`.
    pub fn left_without_primitives(&self) -> (u64, u64) {
        let all = self.primitive(Primitive::Other).1;
        let inside: u64 = PRIMITIVES.iter().map(|p| self.primitive(*p).0).sum();
        (all - inside.min(all), all)
    }
}

/// Where `implementation` ran, from what it is called: `SOURCE@COMPILER:FLAGS@ARCH` for a
/// foreign build, `SOURCE@COMPILER:FLAGS` for a build for `host`, a library name otherwise.
pub fn place<'a>(host: &str, r: &'a ProfileResult) -> Placed<'a> {
    let id = BuildId::parse(&r.implementation);
    let (source, build) = (id.source, id.build);
    let arch = id.arch.map_or_else(|| host.to_string(), |a| a.to_string());
    // The emulator's own word wins where there is one.
    let arch = r
        .operations
        .iter()
        .find_map(|o| o.emulated.as_ref().map(|e| e.arch.clone()))
        .unwrap_or(arch);
    let variant = source.rsplit('/').next().unwrap_or(source);
    let code = if build.is_empty() {
        Code::Library
    } else if matches!(variant, "clean" | "generic" | "ref") {
        Code::Portable
    } else {
        Code::Own
    };
    Placed {
        arch,
        source: source.to_string(),
        build: build.to_string(),
        code,
        result: r,
    }
}

/// Every profiled result of `results` placed, each with the architecture of the machine that
/// profiled it, sorted by algorithm (first seen first), then architecture (`host` first, then
/// kembench's order), then instructions per exchange.
pub fn placed<'a>(
    host: &str,
    results: impl IntoIterator<Item = (&'a str, &'a ProfileResult)>,
) -> Vec<Placed<'a>> {
    let mut algorithms: Vec<String> = Vec::new();
    let mut out: Vec<Placed<'a>> = Vec::new();
    for (machine, r) in results.into_iter().filter(|(_, r)| !r.operations.is_empty()) {
        if !algorithms.contains(&r.algorithm) {
            algorithms.push(r.algorithm.clone());
        }
        out.push(place(machine, r));
    }
    let arch_rank = |a: &str| {
        if a == host {
            0
        } else {
            1 + crate::arch::ALL
                .iter()
                .position(|x| x.name() == a)
                .unwrap_or(usize::MAX - 1)
        }
    };
    out.sort_by_key(|p| {
        (
            algorithms.iter().position(|a| *a == p.result.algorithm),
            arch_rank(&p.arch),
            p.exchange().unwrap_or(u64::MAX),
        )
    });
    out
}

/// Whether `placed` covers more than one architecture (the table is worth showing).
pub fn spans(placed: &[Placed<'_>]) -> bool {
    placed.iter().any(|p| p.arch != placed[0].arch)
}

/// The table: per algorithm and architecture, each source × compiler × flags with its
/// instructions per operation, loads and stores of decapsulation (foreign builds), the
/// primitive shares of the exchange and the bound on a drop-in accelerator.
pub fn table(placed: &[Placed<'_>]) -> Table {
    let mut t = Table::new("table-profile-arches");
    let algorithm = t.add(Column::text("algorithm"));
    let arch = t.add(Column::text("arch"));
    let source = t.add(Column::text("source"));
    let build = t.add(Column::text("build"));
    let code = t.add(Column::text("code"));
    let ops = OPS.map(|op| t.add(Column::num(op.as_str())));
    let loads = t.add(Column::num("decaps loads"));
    let stores = t.add(Column::num("decaps stores"));
    let shares = PRIMITIVES.map(|p| t.add(Column::num(p.label())));
    let bound = t.add(Column::num("drop-in bound"));
    let hottest = t.add(Column::text("hottest in decaps (self)"));
    let names = [algorithm, arch, source, build];
    let fit = [&names[..], &ops, &[bound]].concat();
    let all = [
        &names[..],
        &[code],
        &ops,
        &[loads, stores],
        &shares,
        &[bound, hottest],
    ]
    .concat();
    t.view(FIT, 2, &fit)
        .view(WIDE | REPORT | MARKDOWN, 2, &all)
        .caption(
            FIT | WIDE | MARKDOWN | REPORT,
            "Across architectures: instructions per call (median over seeds; foreign builds \
             counted under QEMU, x86-64 under callgrind). Shares are of the exchange's \
             instructions; the drop-in bound is how many times fewer instructions the exchange \
             would take if SHA-3, SHA-2, AES, the RNG and big-number code cost nothing.",
        );
    for p in placed {
        let r = p.result;
        let tags = r.tags();
        let row = t
            .row(tags)
            .set(algorithm, &r.algorithm)
            .set(arch, &p.arch)
            .set(source, &p.source)
            .set(build, if p.build.is_empty() { "(as shipped)" } else { &p.build })
            .set(code, p.code.label());
        for (c, op) in ops.into_iter().zip(OPS) {
            row.set(
                c,
                p.count(op)
                    .map_or(Cell::right("–"), |n| Cell::num(thousands(n), n as f64)),
            );
        }
        let emulated = r.op(Op::Decaps).and_then(|o| o.emulated.as_ref());
        for (c, n) in [(loads, emulated.map(|e| e.loads)), (stores, emulated.map(|e| e.stores))] {
            row.set(
                c,
                n.map_or(Cell::right("–"), |n| Cell::num(thousands(n), n as f64)),
            );
        }
        for (c, pr) in shares.into_iter().zip(PRIMITIVES) {
            let (inside, all) = p.primitive(pr);
            let v = if all == 0 { 0.0 } else { inside as f64 / all as f64 };
            let text = if inside == 0 {
                "–".to_string()
            } else {
                format!("{:.1}%", 100.0 * v)
            };
            row.set(c, Cell::num(text, v));
        }
        let (left, all) = p.left_without_primitives();
        row.set(
            bound,
            if left == 0 {
                Cell::right("–")
            } else {
                let x = all as f64 / left as f64;
                Cell::num(format!("≤ {x:.2}×"), x)
            },
        );
        row.set(
            hottest,
            r.op(Op::Decaps)
                .map(|o| super::hottest_cell(&o.analysis))
                .unwrap_or_default(),
        );
    }
    t
}

/// The fewest instructions per exchange among `placed` that pass `keep`.
fn fewest<'p, 'a>(
    placed: &'p [&'p Placed<'a>],
    keep: impl Fn(&Placed<'_>) -> bool,
) -> Option<(&'p Placed<'a>, u64)> {
    placed
        .iter()
        .filter(|p| keep(p))
        .filter_map(|p| p.exchange().map(|n| (*p, n)))
        .min_by_key(|(_, n)| *n)
}

/// `source@build` (or the library's name).
fn name(p: &Placed<'_>) -> String {
    if p.build.is_empty() {
        p.source.clone()
    } else {
        format!("{}@{}", p.source, p.build)
    }
}

/// Plain sentences per algorithm on what the counts say: per architecture its fewest
/// instructions per exchange and what its own code buys over its portable code (or that it
/// has none among the builds profiled), each architecture's best portable build against the
/// host's, and the drop-in bound of the fewest. Only algorithms profiled on more than one
/// architecture.
pub fn findings(host: &str, placed: &[Placed<'_>]) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    let mut algorithms: Vec<&str> = Vec::new();
    for p in placed {
        if !algorithms.contains(&p.result.algorithm.as_str()) {
            algorithms.push(&p.result.algorithm);
        }
    }
    for alg in algorithms {
        let of: Vec<&Placed<'_>> = placed
            .iter()
            .filter(|p| p.result.algorithm == alg)
            .collect();
        let mut arches: Vec<&str> = Vec::new();
        for p in &of {
            if !arches.contains(&p.arch.as_str()) {
                arches.push(&p.arch);
            }
        }
        if arches.len() < 2 {
            continue;
        }
        let mut lines = Vec::new();
        for a in &arches {
            let here: Vec<&Placed<'_>> = of.iter().copied().filter(|p| p.arch == *a).collect();
            let portable = fewest(&here, |p| p.code == Code::Portable);
            let own = fewest(&here, |p| p.code == Code::Own);
            let line = match (portable, own) {
                (Some((pp, pn)), Some((op, on))) => format!(
                    "{a}: its own code {} takes {} instructions per exchange, {:.2}× fewer than \
                     its best portable build {} ({}).",
                    name(op),
                    thousands(on),
                    pn as f64 / on as f64,
                    name(pp),
                    thousands(pn)
                ),
                (Some((pp, pn)), None) => format!(
                    "{a}: no code of its own among the builds profiled (portable C only); the \
                     fewest instructions per exchange: {} ({}).",
                    name(pp),
                    thousands(pn)
                ),
                (None, Some((op, on))) => format!(
                    "{a}: only its own code was profiled: {} ({} instructions per exchange).",
                    name(op),
                    thousands(on)
                ),
                (None, None) => match fewest(&here, |_| true) {
                    Some((p, n)) => format!(
                        "{a}: {} ({} instructions per exchange, the library as shipped).",
                        name(p),
                        thousands(n)
                    ),
                    None => continue,
                },
            };
            lines.push(line);
        }
        // The same portable source and build on each instruction set: the host's fewest
        // portable build, found again on the other architectures.
        let on_host: Vec<&Placed<'_>> = of.iter().copied().filter(|p| p.arch == host).collect();
        if let Some((bp, bn)) = fewest(&on_host, |p| p.code == Code::Portable) {
            let others: Vec<String> = arches
                .iter()
                .filter(|a| **a != host)
                .filter_map(|a| {
                    let same: Vec<&Placed<'_>> = of
                        .iter()
                        .copied()
                        .filter(|p| p.arch == *a && p.source == bp.source && p.build == bp.build)
                        .collect();
                    fewest(&same, |_| true).map(|(_, n)| {
                        format!("{a} {} ({:.2}×)", thousands(n), n as f64 / bn as f64)
                    })
                })
                .collect();
            if !others.is_empty() {
                lines.push(format!(
                    "The same portable C ({}) per exchange: {host} {}, {}. Counts compare code \
                     paths, not machines: an instruction of one architecture is not one of \
                     another in time.",
                    name(bp),
                    thousands(bn),
                    others.join(", ")
                ));
            }
        }
        let bounds: Vec<String> = arches
            .iter()
            .filter_map(|a| {
                let here: Vec<&Placed<'_>> = of.iter().copied().filter(|p| p.arch == *a).collect();
                let (p, _) = fewest(&here, |_| true)?;
                let (left, all) = p.left_without_primitives();
                (left > 0).then(|| format!("{a} ≤ {:.2}×", all as f64 / left as f64))
            })
            .collect();
        if !bounds.is_empty() {
            lines.push(format!(
                "A drop-in accelerator for the hashing, AES and RNG of the fewest build (a \
                 coprocessor, a faster library) can at most divide its instructions by: {}.",
                bounds.join(", ")
            ));
        }
        out.push((alg.to_string(), lines));
    }
    out
}

/// The implementation id of liboqs with OpenSSL's SHA-3 installed through liboqs's callbacks
/// (`providers::liboqs::openssl_sha3`), profiled beside the plain `liboqs`.
pub const OPENSSL_SHA3: &str = "liboqs/openssl-sha3";

/// One algorithm profiled with liboqs's own SHA-3 and with OpenSSL's on one architecture: a
/// real SHA-3 alternative set beside the bound that SHA-3 costing nothing would give.
#[derive(Debug, Clone, Copy)]
pub struct Sha3Alternative<'p, 'a> {
    /// `liboqs`.
    pub own: &'p Placed<'a>,
    /// `liboqs/openssl-sha3`.
    pub openssl: &'p Placed<'a>,
}

/// What the counts of one implementation say of its SHA-3 (seed 0's calls of the exchange).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sha3Part {
    /// Instructions per exchange (the median over seeds of each operation, summed).
    pub exchange: u64,
    /// Instructions of seed 0's exchange inside SHA-3 (the classifier's Keccak).
    pub sha3: u64,
    /// Instructions of seed 0's exchange in all.
    pub all: u64,
}

impl Sha3Part {
    fn of(p: &Placed<'_>) -> Option<Sha3Part> {
        let (sha3, all) = p.primitive(Primitive::Keccak);
        Some(Sha3Part {
            exchange: p.exchange()?,
            sha3,
            all,
        })
    }

    /// SHA-3's share of the exchange's instructions.
    pub fn share(&self) -> f64 {
        self.sha3 as f64 / self.all.max(1) as f64
    }

    /// Instructions outside SHA-3.
    pub fn outside(&self) -> u64 {
        self.all - self.sha3.min(self.all)
    }

    /// How many times fewer instructions the exchange would take if SHA-3 cost nothing.
    pub fn bound(&self) -> Option<f64> {
        (self.outside() > 0).then(|| self.all as f64 / self.outside() as f64)
    }
}

impl Sha3Alternative<'_, '_> {
    /// The counts of liboqs's own SHA-3 and of OpenSSL's.
    pub fn parts(&self) -> Option<(Sha3Part, Sha3Part)> {
        Some((Sha3Part::of(self.own)?, Sha3Part::of(self.openssl)?))
    }

    /// The sentence: both exchanges, their SHA-3 shares, what lies outside SHA-3, and the
    /// bound if SHA-3 cost nothing beside the drop-in bound of every primitive.
    pub fn sentence(&self) -> Option<String> {
        let (own, ossl) = self.parts()?;
        let r = self.own.result;
        let (left, all) = self.own.left_without_primitives();
        let drop_in = if left == 0 {
            String::new()
        } else {
            format!(
                "; with SHA-2, AES, the RNG and big-number code free as well, ≤ {:.2}×",
                all as f64 / left as f64
            )
        };
        let bound = own.bound().map_or_else(
            || "If SHA-3 cost nothing, nothing would be left of the exchange".to_string(),
            |b| {
                format!(
                    "If SHA-3 cost nothing, liboqs's exchange would take {} instructions: at \
                     most {b:.2}× fewer{drop_in}",
                    thousands(own.outside())
                )
            },
        );
        Some(format!(
            "{} on {}: with liboqs's own SHA-3 an exchange takes {} instructions (SHA-3 {:.1}%); \
             with OpenSSL's SHA-3 through liboqs's callbacks ({OPENSSL_SHA3}) {}, {:.2}× as \
             many (SHA-3 {:.1}%). Outside SHA-3 both run the same code: {} and {} instructions \
             (seed 0). OpenSSL's SHA-3 executes {:.2}× the instructions of liboqs's own. {bound}. \
             Instructions, not time: `kembench run --impl liboqs,{OPENSSL_SHA3}` times both.",
            r.algorithm,
            self.own.arch,
            thousands(own.exchange),
            100.0 * own.share(),
            thousands(ossl.exchange),
            ossl.exchange as f64 / own.exchange.max(1) as f64,
            100.0 * ossl.share(),
            thousands(own.outside()),
            thousands(ossl.outside()),
            ossl.sha3 as f64 / own.sha3.max(1) as f64,
        ))
    }
}

/// Every algorithm of `placed` profiled both as `liboqs` and as [`OPENSSL_SHA3`] on the same
/// architecture, in the order of `placed`.
pub fn sha3_alternatives<'p, 'a>(placed: &'p [Placed<'a>]) -> Vec<Sha3Alternative<'p, 'a>> {
    placed
        .iter()
        .filter(|p| p.result.implementation == "liboqs")
        .filter_map(|own| {
            let openssl = placed.iter().find(|p| {
                p.result.implementation == OPENSSL_SHA3
                    && p.result.algorithm == own.result.algorithm
                    && p.arch == own.arch
            })?;
            Some(Sha3Alternative { own, openssl })
        })
        .filter(|a| a.parts().is_some())
        .collect()
}

/// The table of [`sha3_alternatives`], with each sentence as a note; `None` when there is none.
pub fn sha3_table(placed: &[Placed<'_>]) -> Option<Table> {
    let found = sha3_alternatives(placed);
    if found.is_empty() {
        return None;
    }
    let mut t = Table::new("table-profile-sha3-alternative");
    let algorithm = t.add(Column::text("algorithm"));
    let arch = t.add(Column::text("arch"));
    let implementation = t.add(Column::text("implementation"));
    let sha3_by = t.add(Column::text("SHA-3"));
    let exchange = t.add(Column::num("per exchange"));
    let times = t.add(Column::num("× liboqs's own"));
    let share = t.add(Column::num("SHA-3 share"));
    let outside = t.add(Column::num("outside SHA-3"));
    let bound = t.add(Column::num("bound if SHA-3 free"));
    let all = [
        algorithm,
        arch,
        implementation,
        sha3_by,
        exchange,
        times,
        share,
        outside,
        bound,
    ];
    let fit = [
        algorithm,
        implementation,
        exchange,
        times,
        share,
        outside,
        bound,
    ];
    t.view(FIT, 1, &fit)
        .view(WIDE | MARKDOWN | REPORT, 1, &all)
        .caption(
        FIT | WIDE | MARKDOWN | REPORT,
        "A real SHA-3 alternative beside the bound: liboqs with its own SHA-3 and with \
         OpenSSL's (installed through liboqs's SHA-3 callbacks), instructions per exchange \
         (median over seeds); shares, what lies outside SHA-3 and the bound are of seed 0's \
         calls; the bound is how many times fewer instructions the exchange would take if SHA-3 \
         cost nothing.",
    );
    for a in &found {
        let Some((own, ossl)) = a.parts() else {
            continue;
        };
        for (p, part, by) in [
            (a.own, own, "liboqs's own"),
            (a.openssl, ossl, "OpenSSL 3 (EVP)"),
        ] {
            let r = p.result;
            let tags = r.tags();
            let x = part.exchange as f64 / own.exchange.max(1) as f64;
            t.row(tags)
                .set(algorithm, &r.algorithm)
                .set(arch, &p.arch)
                .set(implementation, &r.implementation)
                .set(sha3_by, by)
                .set(
                    exchange,
                    Cell::num(thousands(part.exchange), part.exchange as f64),
                )
                .set(times, Cell::num(format!("{x:.2}×"), x))
                .set(
                    share,
                    Cell::num(format!("{:.1}%", 100.0 * part.share()), part.share()),
                )
                .set(
                    outside,
                    Cell::num(thousands(part.outside()), part.outside() as f64),
                )
                .set(
                    bound,
                    part.bound()
                        .map_or(Cell::right("–"), |b| Cell::num(format!("≤ {b:.2}×"), b)),
                );
        }
        if let Some(s) = a.sentence() {
            t.note(FIT | WIDE | MARKDOWN | REPORT, s);
        }
    }
    Some(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::fixture;
    use crate::record::profile::{Emulated, Spread};
    use crate::table::Target;

    /// A result of `implementation` whose keygen, encaps and decaps take `scale` × 10,000
    /// instructions each (58% of them in Keccak and the RNG), counted under QEMU for `arch`.
    fn result(implementation: &str, scale: u64, arch: Option<&str>) -> ProfileResult {
        let mut r = fixture::profile().results[0].clone();
        r.implementation = implementation.into();
        let base = r.operations[0].clone();
        r.operations = OPS
            .map(|op| {
                let mut o = base.clone();
                o.operation = op;
                o.instructions = Spread::of(vec![scale * 10_000]);
                o.emulated = arch.map(|a| Emulated {
                    arch: a.into(),
                    emulator: format!("qemu-{a} version 7.2.22"),
                    loads: 7,
                    stores: 3,
                    mix: Vec::new(),
                    calibration: 1,
                    cpu: String::new(),
                    divisions: Vec::new(),
                    division_sites: Vec::new(),
                });
                o
            })
            .to_vec();
        r
    }

    #[test]
    fn implementations_are_placed_by_their_ids_and_the_emulators_word() {
        let foreign = result("pqclean/clean@gcc-12:O2@s390x", 1, Some("s390x"));
        let p = place("x86_64", &foreign);
        assert_eq!(
            (p.arch.as_str(), p.source.as_str(), p.build.as_str(), p.code),
            ("s390x", "pqclean/clean", "gcc-12:O2", Code::Portable)
        );
        let avx2 = result("pqclean/avx2@clang-14:O3", 1, None);
        let p = place("x86_64", &avx2);
        assert_eq!((p.arch.as_str(), p.code), ("x86_64", Code::Own));
        let generic = result("liboqs/generic@gcc-12:O3@aarch64", 1, Some("aarch64"));
        assert_eq!(place("x86_64", &generic).code, Code::Portable);
        let library = result("liboqs", 1, None);
        let p = place("x86_64", &library);
        assert_eq!((p.source.as_str(), p.build.as_str()), ("liboqs", ""));
        assert_eq!(p.code, Code::Library);
        // A build profiled on an aarch64 machine natively is aarch64's.
        let native = result("pqclean/aarch64@gcc-12:O3", 1, None);
        assert_eq!(place("aarch64", &native).arch, "aarch64");
    }

    #[test]
    fn the_findings_compare_own_code_portable_code_and_the_same_c_across_architectures() {
        let results = [
            result("pqclean/clean@gcc-12:O2", 3, None),
            result("pqclean/avx2@gcc-12:O2", 1, None),
            result("pqclean/clean@gcc-12:O2@s390x", 4, Some("s390x")),
            result("pqclean/clean@gcc-12:O2@aarch64", 2, Some("aarch64")),
            result("pqclean/aarch64@gcc-12:O2@aarch64", 1, Some("aarch64")),
        ];
        let placed = placed("x86_64", results.iter().map(|r| ("x86_64", r)));
        assert!(spans(&placed));
        // The host first, then kembench's order of architectures; fewest first within each.
        let order: Vec<String> = placed
            .iter()
            .map(|p| format!("{} {}", p.arch, p.source))
            .collect();
        assert_eq!(
            order,
            [
                "x86_64 pqclean/avx2",
                "x86_64 pqclean/clean",
                "aarch64 pqclean/aarch64",
                "aarch64 pqclean/clean",
                "s390x pqclean/clean"
            ]
        );
        let found = findings("x86_64", &placed);
        assert_eq!(found.len(), 1);
        let (alg, lines) = &found[0];
        assert_eq!(alg, "MockKEM");
        let all = lines.join("\n");
        assert!(
            all.contains("x86_64: its own code pqclean/avx2@gcc-12:O2 takes 30,000 instructions per exchange, 3.00× fewer than its best portable build pqclean/clean@gcc-12:O2 (90,000)"),
            "{all}"
        );
        assert!(all.contains("aarch64: its own code pqclean/aarch64@gcc-12:O2"), "{all}");
        assert!(
            all.contains("s390x: no code of its own among the builds profiled"),
            "{all}"
        );
        assert!(
            all.contains("The same portable C (pqclean/clean@gcc-12:O2) per exchange: x86_64 90,000, aarch64 60,000 (0.67×), s390x 120,000 (1.33×)"),
            "{all}"
        );
        // 5,800 of every 10,000 instructions are Keccak and the RNG: 10,000 / 4,200.
        assert!(all.contains("x86_64 ≤ 2.38×, aarch64 ≤ 2.38×, s390x ≤ 2.38×"), "{all}");
    }

    /// A result of `implementation` whose operations take `total` instructions each, `sha3`
    /// of them in Keccak (the rest "other").
    fn hashing(implementation: &str, total: u64, sha3: u64) -> ProfileResult {
        use crate::callgrind::Share;
        let mut r = result(implementation, 1, None);
        r.algorithm = "ML-KEM-768".into();
        for o in &mut r.operations {
            o.instructions = Spread::of(vec![total]);
            o.analysis.instructions = total;
            o.analysis.shares = vec![
                Share {
                    primitive: Primitive::Keccak,
                    instructions: sha3,
                },
                Share {
                    primitive: Primitive::Other,
                    instructions: total - sha3,
                },
            ];
        }
        r
    }

    #[test]
    fn the_sha3_alternative_is_set_beside_the_bound_from_the_counts() {
        let results = [
            hashing("liboqs", 100_000, 75_000),
            hashing(OPENSSL_SHA3, 300_000, 275_000),
            hashing("pqclean/avx2", 90_000, 60_000),
        ];
        let placed = placed("x86_64", results.iter().map(|r| ("x86_64", r)));
        let found = sha3_alternatives(&placed);
        assert_eq!(found.len(), 1);
        let s = found[0].sentence().unwrap();
        assert!(
            s.contains("ML-KEM-768 on x86_64: with liboqs's own SHA-3 an exchange takes 300,000 instructions (SHA-3 75.0%); with OpenSSL's SHA-3 through liboqs's callbacks (liboqs/openssl-sha3) 900,000, 3.00× as many (SHA-3 91.7%)"),
            "{s}"
        );
        assert!(s.contains("Outside SHA-3 both run the same code: 75,000 and 75,000"), "{s}");
        assert!(s.contains("OpenSSL's SHA-3 executes 3.67× the instructions"), "{s}");
        assert!(s.contains("would take 75,000 instructions: at most 4.00× fewer"), "{s}");
        let drawn = sha3_table(&placed).unwrap().draw(Target::Report).unwrap();
        assert_eq!(drawn.rows.len(), 2);
        let second: Vec<&str> = drawn.rows[1].cells.iter().map(|c| c.text.as_str()).collect();
        assert!(second.contains(&"3.00×") && second.contains(&"91.7%"), "{second:?}");
        // Without the pair, nothing.
        let alone = super::placed("x86_64", results[..1].iter().map(|r| ("x86_64", r)));
        assert!(sha3_alternatives(&alone).is_empty());
        assert!(sha3_table(&alone).is_none());
    }

    #[test]
    fn one_architecture_has_no_findings_and_the_table_shows_each_build() {
        let results = [
            result("pqclean/clean@gcc-12:O2", 3, None),
            result("liboqs", 1, None),
        ];
        let placed = placed("x86_64", results.iter().map(|r| ("x86_64", r)));
        assert!(!spans(&placed));
        assert!(findings("x86_64", &placed).is_empty());
        let drawn = table(&placed).draw(Target::Report).unwrap();
        assert_eq!(drawn.rows.len(), 2);
        let first: Vec<&str> = drawn.rows[0].cells.iter().map(|c| c.text.as_str()).collect();
        assert_eq!(&first[..5], ["MockKEM", "x86_64", "liboqs", "(as shipped)", "library"]);
        assert!(first.contains(&"≤ 2.38×"), "{first:?}");
    }
}
