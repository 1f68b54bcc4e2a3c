//! Counting foreign builds: `profile` on a build for another architecture runs its static
//! program under `qemu-<arch>` with kembench's counting plugin (`plugins/qemu-count`, GPL, a
//! separate artifact QEMU loads; kembench only starts QEMU with it) and reads exact
//! instruction counts per translation block between two marker functions of the driver.
//!
//! Each counted call is made twice by the driver: once with its random bytes asked of
//! kembench and recorded, then between the markers replaying them (no I/O inside the region),
//! after an empty region whose count (the markers' own call path) is subtracted. Blocks are
//! attributed to functions by the program's ELF symbols; the plugin sees no calls, so every
//! function's cost is its self cost and the tree is one level deep. Loads and stores are the
//! memory accesses QEMU reports; the instruction mix is read from QEMU's own disassembly.

use super::mix;
use crate::arch::Arch;
use crate::callgrind::{FoldedStack, FunctionCost, HotNode, OpAnalysis, Primitive, Share};
use crate::kem::Kem;
use crate::measure::counters::Counters;
use crate::measure::sampler::Op;
use crate::providers::foreign::Foreign;
use crate::record::profile::{Emulated, FunctionCount, MixCount, OpProfile, ProfileResult, RandomnessNote, Spread};
use object::{Object, ObjectSection, ObjectSymbol, SectionKind, SymbolKind};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The environment variable naming a built plugin (`libqemu_count.so`) to use instead of
/// building `plugins/qemu-count`.
pub const PLUGIN_VAR: &str = "KEMBENCH_QEMU_PLUGIN";

/// The plugin's sources, beside kembench's own.
fn plugin_sources() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("plugins")
        .join("qemu-count")
}

/// The counting plugin: `$KEMBENCH_QEMU_PLUGIN`, else built from `plugins/qemu-count` on
/// first use (cargo, into the build cache) and reused.
pub fn plugin() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os(PLUGIN_VAR).filter(|p| !p.is_empty()) {
        let p = PathBuf::from(p);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(format!("{PLUGIN_VAR}={} is not a file", p.display()))
        };
    }
    let src = plugin_sources();
    if !src.join("Cargo.toml").is_file() {
        return Err(format!(
            "the counting plugin's sources are not at {} (a kembench installed without its \
             source tree): build plugins/qemu-count and name the library with {PLUGIN_VAR}",
            src.display()
        ));
    }
    let target = crate::providers::built::manifest::dir().join("qemu-count");
    let so = target.join("release").join("libqemu_count.so");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    // Cargo itself decides whether anything changed (and holds a lock for concurrent calls).
    let out = Command::new(cargo)
        .args(["build", "--release", "--locked", "--quiet", "--manifest-path"])
        .arg(src.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(&target)
        .output()
        .map_err(|e| format!("cannot run cargo to build the counting plugin: {e}"))?;
    if !out.status.success() || !so.is_file() {
        return Err(format!(
            "building the counting plugin (plugins/qemu-count) failed: {}",
            last_lines(&String::from_utf8_lossy(&out.stderr))
        ));
    }
    Ok(so)
}

/// The last few lines of cargo's output (where its error is).
fn last_lines(text: &str) -> String {
    let v: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    v[v.len().saturating_sub(4)..].join("\n")
}

/// `qemu-<arch> --version`'s first line.
fn emulator_version(arch: Arch) -> String {
    arch.emulator()
        .ok()
        .and_then(|q| Command::new(q).arg("--version").output().ok())
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .next()
                .unwrap_or_default()
                .to_string()
        })
        .unwrap_or_else(|| arch.qemu().to_string())
}

/// The functions of a static program, by address, and its two markers.
struct Program {
    /// (start, end, name), sorted by start.
    functions: Vec<(u64, u64, String)>,
    begin: u64,
    end: u64,
}

impl Program {
    fn read(path: &Path) -> Result<Program, String> {
        let data = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let file = object::File::parse(&*data).map_err(|e| format!("{}: {e}", path.display()))?;
        // Sized function symbols, and the unsized labels of assembly routines (NEON code
        // without `.size`), which then reach the next symbol.
        let mut functions: Vec<(u64, u64, String)> = file
            .symbols()
            .filter(|s| {
                matches!(
                    s.kind(),
                    SymbolKind::Text | SymbolKind::Label | SymbolKind::Unknown
                ) && s
                    .section_index()
                    .and_then(|i| file.section_by_index(i).ok())
                    .is_some_and(|sec| sec.kind() == SectionKind::Text)
            })
            .filter_map(|s| {
                // (`$x`, `$d`: Arm's mapping symbols, not functions.)
                let name = s
                    .name()
                    .ok()
                    .filter(|n| !n.is_empty() && !n.starts_with('.') && !n.starts_with('$'))?;
                Some((s.address(), s.address() + s.size(), name.to_string()))
            })
            .collect();
        functions.sort();
        functions.dedup_by(|b, a| a.0 == b.0 && (a.1 > a.0 || b.1 == b.0));
        let starts: Vec<u64> = functions.iter().map(|f| f.0).collect();
        for (i, f) in functions.iter_mut().enumerate() {
            if f.1 == f.0 {
                f.1 = starts.get(i + 1..).and_then(|r| r.iter().find(|&&a| a > f.0).copied()).unwrap_or(u64::MAX);
            }
        }
        let at = |name: &str| {
            functions
                .iter()
                .find(|f| f.2 == name)
                .map(|f| f.0)
                .ok_or_else(|| format!("{} has no {name}: not a kembench driver", path.display()))
        };
        let (begin, end) = (at("kembench_region_begin")?, at("kembench_region_end")?);
        Ok(Program {
            functions,
            begin,
            end,
        })
    }

    /// The function holding `addr`, or the address itself.
    fn function_at(&self, addr: u64) -> String {
        let i = self.functions.partition_point(|f| f.0 <= addr);
        match i.checked_sub(1).map(|i| &self.functions[i]) {
            Some((s, e, name)) if addr >= *s && addr < *e => name.clone(),
            _ => format!("{addr:#x}"),
        }
    }
}

/// Every instruction of `program` as binutils' disassembler for `arch` prints it
/// (`s390x-linux-gnu-objdump`, installed with the cross gcc), by address: QEMU 7.2's own
/// disassembler leaves some instructions undecoded (`.byte`; s390x's vector facility, Arm's
/// SVE), so the mix reads binutils' where it has it. Empty where objdump cannot run.
fn objdump(arch: Arch, program: &Path) -> BTreeMap<u64, String> {
    let tool = format!("{}-objdump", arch.triple());
    let Ok(out) = Command::new(&tool)
        .args(["-d", "--no-show-raw-insn"])
        .arg(program)
        .output()
    else {
        return BTreeMap::new();
    };
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let (addr, text) = l.trim_start().split_once(":\t")?;
            let addr = u64::from_str_radix(addr, 16).ok()?;
            Some((addr, text.replace('\t', " ").trim().to_string()))
        })
        .collect()
}

/// One region of the plugin's output.
#[derive(Default, Debug, Clone)]
struct Region {
    /// (block address, instructions) → (executions, loads, stores).
    blocks: BTreeMap<(u64, u64), (u64, u64, u64)>,
    total: u64,
    loads: u64,
    stores: u64,
}

/// The plugin's output file: its regions in order, and every instruction's disassembly.
fn read_regions(text: &str) -> Result<(Vec<Region>, BTreeMap<u64, String>), String> {
    let mut regions: Vec<Region> = Vec::new();
    let mut insns = BTreeMap::new();
    let hex = |w: &str| u64::from_str_radix(w.trim_start_matches("0x"), 16);
    let bad = |l: &str| format!("the counting plugin wrote a line kembench cannot read: {l:.80}");
    for l in text.lines() {
        let mut w = l.split_whitespace();
        match w.next() {
            Some("region") => regions.push(Region::default()),
            Some("insn") => {
                let a = w.next().and_then(|a| hex(a).ok()).ok_or_else(|| bad(l))?;
                let rest = l.splitn(3, ' ').nth(2).unwrap_or_default();
                insns.insert(a, rest.to_string());
            }
            Some("tb") => {
                let v: Vec<&str> = w.collect();
                let r = regions.last_mut().ok_or_else(|| bad(l))?;
                let n = |i: usize| v.get(i).and_then(|x| x.parse::<u64>().ok());
                let a = v.first().and_then(|a| hex(a).ok());
                match (a, n(1), n(2), n(3), n(4)) {
                    (Some(a), Some(ni), Some(e), Some(ld), Some(st)) => {
                        let slot = r.blocks.entry((a, ni)).or_default();
                        slot.0 += e;
                        slot.1 += ld;
                        slot.2 += st;
                    }
                    _ => return Err(bad(l)),
                }
            }
            Some("total") => {
                let v: Vec<u64> = w.filter_map(|x| x.parse().ok()).collect();
                let r = regions.last_mut().ok_or_else(|| bad(l))?;
                if v.len() != 3 {
                    return Err(bad(l));
                }
                (r.total, r.loads, r.stores) = (v[0], v[1], v[2]);
            }
            _ => return Err(bad(l)),
        }
    }
    Ok((regions, insns))
}

/// `call` minus `calibration`, block by block (the markers' call path runs in both).
fn minus(call: &Region, calibration: &Region) -> Region {
    let mut out = call.clone();
    for (k, c) in &calibration.blocks {
        if let Some(v) = out.blocks.get_mut(k) {
            v.0 = v.0.saturating_sub(c.0);
            v.1 = v.1.saturating_sub(c.1);
            v.2 = v.2.saturating_sub(c.2);
        }
    }
    out.blocks.retain(|_, v| v.0 > 0);
    out.total = call.total.saturating_sub(calibration.total);
    out.loads = call.loads.saturating_sub(calibration.loads);
    out.stores = call.stores.saturating_sub(calibration.stores);
    out
}

/// Adds `b`'s counts to `a` (the three calls of an exchange).
fn add(a: &mut Region, b: &Region) {
    for (k, v) in &b.blocks {
        let s = a.blocks.entry(*k).or_default();
        s.0 += v.0;
        s.1 += v.1;
        s.2 += v.2;
    }
    a.total += b.total;
    a.loads += b.loads;
    a.stores += b.stores;
}

/// One operation as counted: its analysis and what the plugin saw besides.
struct Counted {
    analysis: OpAnalysis,
    emulated: Emulated,
}

/// The analysis of one counted call: self cost per function, a one-level tree, the primitive
/// shares by function name, folded stacks `op;function`, and the mix.
fn analyse(
    op: Op,
    r: &Region,
    calibration: u64,
    program: &Program,
    insns: &BTreeMap<u64, String>,
    arch: Arch,
    provider: &str,
) -> Counted {
    let mut by_fn: HashMap<String, u64> = HashMap::new();
    let mut mix_counts: BTreeMap<mix::Class, u64> = BTreeMap::new();
    let mut divisions: BTreeMap<String, u64> = BTreeMap::new();
    for (&(addr, n), &(execs, _, _)) in &r.blocks {
        let function = program.function_at(addr);
        for (_, text) in insns.range(addr..).take(n as usize) {
            for c in mix::classes(arch, text) {
                *mix_counts.entry(c).or_default() += execs;
                if c == mix::Class::Divide {
                    *divisions.entry(function.clone()).or_default() += execs;
                }
            }
        }
        *by_fn.entry(function).or_default() += n * execs;
    }
    let mut divisions: Vec<FunctionCount> = divisions
        .into_iter()
        .map(|(function, instructions)| FunctionCount {
            function,
            instructions,
        })
        .collect();
    divisions.sort_by_key(|d| std::cmp::Reverse(d.instructions));
    let mut functions: Vec<FunctionCost> = by_fn
        .iter()
        .map(|(name, &n)| FunctionCost {
            name: name.clone(),
            object: program_name(arch),
            self_instructions: n,
            inclusive_instructions: n,
            calls: 0,
        })
        .collect();
    functions.sort_by(|a, b| {
        b.self_instructions
            .cmp(&a.self_instructions)
            .then(a.name.cmp(&b.name))
    });
    let total: u64 = functions.iter().map(|f| f.self_instructions).sum();
    let root = op.as_str().to_string();
    let children = functions
        .iter()
        .filter(|f| f.self_instructions * 100 >= total.max(1))
        .map(|f| HotNode {
            name: f.name.clone(),
            instructions: f.self_instructions,
            share_of_parent: f.self_instructions as f64 / total.max(1) as f64,
            children: Vec::new(),
        })
        .collect();
    let mut shares: BTreeMap<Primitive, u64> = Primitive::ALL.iter().map(|&p| (p, 0)).collect();
    for f in &functions {
        let p = crate::callgrind::primitive_of(provider, &f.name).unwrap_or(Primitive::Other);
        *shares.entry(p).or_default() += f.self_instructions;
    }
    let folded = functions
        .iter()
        .map(|f| FoldedStack {
            stack: format!("{root};{}", f.name),
            instructions: f.self_instructions,
        })
        .collect();
    Counted {
        analysis: OpAnalysis {
            instructions: total,
            cache: None,
            functions,
            tree: HotNode {
                name: root,
                instructions: total,
                share_of_parent: 1.0,
                children,
            },
            lines: Vec::new(),
            shares: Primitive::ALL
                .iter()
                .map(|&p| Share {
                    primitive: p,
                    instructions: shares[&p],
                })
                .collect(),
            folded,
            truncated_instructions: 0,
            inlined_instructions: 0,
        },
        emulated: Emulated {
            arch: arch.to_string(),
            emulator: emulator_version(arch),
            loads: r.loads,
            stores: r.stores,
            mix: mix::Class::ALL
                .iter()
                .map(|c| MixCount {
                    class: c.label().to_string(),
                    instructions: mix_counts.get(c).copied().unwrap_or(0),
                })
                .collect(),
            calibration,
            cpu: String::new(),
            divisions,
        },
    }
}

fn program_name(arch: Arch) -> String {
    format!("driver ({arch})")
}

/// Counts `ops` of the foreign build `label` for one seed: a fresh emulator with the plugin,
/// the build's draws from the seed's stream.
fn count_seed(
    label: &str,
    plugin: &Path,
    seed: u64,
    ops: &[Op],
    provider: &str,
) -> Result<Vec<(Op, Counted)>, String> {
    let base = Foreign::find(label).ok_or_else(|| format!("{label} is not in the build cache"))?;
    let arch = base.arch();
    let program = Program::read(base.program())?;
    let disassembly = objdump(arch, base.program());
    let dir = tempdir(label, seed)?;
    // Absolute: the driver runs from its own directory.
    let out = std::path::absolute(dir.0.join("counts")).map_err(|e| e.to_string())?;
    let plugin = std::path::absolute(plugin).map_err(|e| e.to_string())?;
    let spec = format!(
        "{},out={},begin={:#x},end={:#x},mem=on",
        plugin.display(),
        out.display(),
        program.begin,
        program.end
    );
    let f = base
        .with_qemu_args(vec!["-plugin".into(), spec])
        .with_seed(&super::worker::seed_bytes(seed));
    let a = f.meta().algorithm;
    let (pk_len, sk_len, ct_len, ss_len) = (a.pk_len, a.sk_len, a.ct_len, a.ss_len);
    // The CPU QEMU presents (outside any counted region).
    let cpu = f
        .cpu()
        .map_or_else(|e| format!("not read: {e}"), |c| c.describe());
    let mut regions_seen = 0;
    // Runs one counted command: its reply, and its call's region minus its calibration region
    // with the calibration's own count.
    let mut counted = |line: &str, lens: &[usize], what: &str| {
        let reply = f
            .call(&format!("m {line}"), lens, what)
            .map_err(|e| e.to_string())?;
        let text = std::fs::read_to_string(&out).map_err(|e| {
            format!(
                "the counting plugin left no output ({e}); does {} load plugins?",
                arch.qemu()
            )
        })?;
        let (regions, _) = read_regions(&text)?;
        if regions.len() != regions_seen + 2 {
            return Err(format!(
                "the counting plugin wrote {} regions for one call, expected 2",
                regions.len().saturating_sub(regions_seen)
            ));
        }
        let (calibration, call) = (&regions[regions_seen], &regions[regions_seen + 1]);
        let r = (minus(call, calibration), calibration.total);
        regions_seen = regions.len();
        Ok::<_, String>((reply, r))
    };
    let key = |f: &Foreign| {
        f.call("k", &[pk_len, sk_len], "keypair")
            .map_err(|e| e.to_string())
    };
    let mut counts = Vec::new();
    for &op in ops {
        let (region, calibration) = match op {
            Op::Keygen => {
                let (_, r) = counted("k", &[pk_len, sk_len], "keypair")?;
                r
            }
            Op::Encaps => {
                let kp = key(&f)?;
                let (_, r) = counted(&format!("e {}", hex::encode(&kp[0])), &[ct_len, ss_len], "enc")?;
                r
            }
            Op::Decaps => {
                let kp = key(&f)?;
                let e = f
                    .call(&format!("e {}", hex::encode(&kp[0])), &[ct_len, ss_len], "enc")
                    .map_err(|e| e.to_string())?;
                let line = format!("d {} {}", hex::encode(&kp[1]), hex::encode(&e[0]));
                let (ss, r) = counted(&line, &[ss_len], "dec")?;
                if ss[0] != e[1] {
                    return Err("decapsulation under the plugin gave another secret".into());
                }
                r
            }
            Op::Exchange => {
                let (kp, mut r) = counted("k", &[pk_len, sk_len], "keypair")?;
                let (e, r2) = counted(&format!("e {}", hex::encode(&kp[0])), &[ct_len, ss_len], "enc")?;
                let line = format!("d {} {}", hex::encode(&kp[1]), hex::encode(&e[0]));
                let (_, r3) = counted(&line, &[ss_len], "dec")?;
                add(&mut r.0, &r2.0);
                add(&mut r.0, &r3.0);
                (r.0, r.1 + r2.1 + r3.1)
            }
            Op::SkImport | Op::PkImport => continue,
        };
        counts.push((op, region, calibration));
    }
    // Every instruction the regions ran, as binutils prints it where it can (QEMU's text
    // otherwise), read once the last call is counted.
    let text = std::fs::read_to_string(&out).map_err(|e| e.to_string())?;
    let (_, mut insns) = read_regions(&text)?;
    for (addr, text) in insns.iter_mut() {
        if let Some(better) = disassembly.get(addr) {
            text.clone_from(better);
        }
    }
    Ok(counts
        .into_iter()
        .map(|(op, region, calibration)| {
            let mut c = analyse(op, &region, calibration, &program, &insns, arch, provider);
            c.emulated.cpu.clone_from(&cpu);
            (op, c)
        })
        .collect())
}

/// A work directory of one's own, removed when dropped.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn tempdir(label: &str, seed: u64) -> Result<TempDir, String> {
    let safe = crate::record::profile::flames::file_part(label);
    let d = std::env::temp_dir().join(format!(
        "kembench-count-{}-{safe}-{seed}-{:08x}",
        std::process::id(),
        rand::random::<u32>()
    ));
    std::fs::create_dir(&d).map_err(|e| format!("{}: {e}", d.display()))?;
    Ok(TempDir(d))
}

/// Profiles the foreign build `k`: its gate verdict and round trips under emulation, then
/// every seed counted by the plugin. Operations a foreign build has no entry for (key
/// imports) are left out and said.
pub fn profile(
    k: &dyn Kem,
    seeds: usize,
    ops: &[Op],
    stop: &dyn Fn() -> bool,
    mut result: ProfileResult,
) -> ProfileResult {
    let label = k.meta().label();
    result.correctness = crate::engine::correctness_check(k);
    if result.correctness.failed() {
        return result;
    }
    let plugin = match plugin() {
        Ok(p) => p,
        Err(e) => {
            result.error = Some(e);
            return result;
        }
    };
    result.randomness = RandomnessNote {
        fixed: true,
        how: "every draw is asked of kembench by the driver and served from the seed's ChaCha20 \
              stream; the counted call replays the bytes its first run drew"
            .into(),
    };
    let provider = k.meta().provider().to_string();
    let mut per_seed: Vec<Vec<(Op, Counted)>> = Vec::new();
    for seed in 0..seeds as u64 {
        if stop() {
            result.error = Some(format!("stopped before seed {seed}"));
            return result;
        }
        match count_seed(&label, &plugin, seed, ops, &provider) {
            Ok(v) => per_seed.push(v),
            Err(e) => {
                result.error = Some(format!("seed {seed}: {e}"));
                return result;
            }
        }
    }
    let mut first = per_seed.remove(0);
    let skipped: Vec<&str> = ops
        .iter()
        .filter(|o| matches!(o, Op::SkImport | Op::PkImport))
        .map(|o| o.as_str())
        .collect();
    for (op, c) in first.drain(..) {
        let mut counts = vec![c.analysis.instructions];
        counts.extend(per_seed.iter().filter_map(|s| {
            s.iter()
                .find(|(o, _)| *o == op)
                .map(|(_, c)| c.analysis.instructions)
        }));
        result.operations.push(OpProfile {
            operation: op,
            call: format!(
                "{} under {}, counted by kembench's QEMU plugin",
                super::call_of(op),
                crate::engine::foreign_arch(k).map_or("qemu", |a| a.qemu())
            ),
            instructions: Spread::of(counts),
            analysis: c.analysis,
            native: Counters::Unavailable(
                "a foreign build: counted under emulation, never run natively".into(),
            ),
            emulated: Some(c.emulated),
        });
    }
    if !skipped.is_empty() {
        result.error = Some(format!(
            "{} not counted: a foreign build's driver has no key-import entry",
            skipped.join(", ")
        ));
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    const OUT: &str = "region 0\n\
        insn 0x1000 brasl %r14,0x2000\n\
        tb 0x1000 1 1 0 1\n\
        total 1 0 1\n\
        region 1\n\
        insn 0x2000 dlr %r2,%r3\n\
        insn 0x2004 vl %v0,0(%r2)\n\
        insn 0x2008 br %r14\n\
        tb 0x1000 1 1 0 1\n\
        tb 0x2000 3 10 10 0\n\
        total 31 10 1\n";

    #[test]
    fn the_plugin_output_is_read_and_the_calibration_subtracted() {
        let (regions, insns) = read_regions(OUT).unwrap();
        assert_eq!(regions.len(), 2);
        assert_eq!(insns.len(), 4);
        let r = minus(&regions[1], &regions[0]);
        assert_eq!((r.total, r.loads, r.stores), (30, 10, 0));
        assert_eq!(r.blocks.len(), 1, "the markers' block is the calibration's");
        let program = Program {
            functions: vec![(0x2000, 0x2010, "poly_reduce".into())],
            begin: 0x100,
            end: 0x200,
        };
        let c = analyse(Op::Decaps, &r, 1, &program, &insns, Arch::S390x, "pqclean");
        assert_eq!(c.analysis.instructions, 30);
        assert_eq!(c.analysis.functions[0].name, "poly_reduce");
        let mix: Vec<(String, u64)> = c
            .emulated
            .mix
            .iter()
            .map(|m| (m.class.clone(), m.instructions))
            .collect();
        assert_eq!(
            mix,
            [
                ("divide".into(), 10),
                ("multiply".into(), 0),
                ("branch".into(), 10),
                ("vector".into(), 10)
            ]
        );
        assert_eq!(c.analysis.shares.iter().map(|s| s.instructions).sum::<u64>(), 30);
        assert_eq!(c.emulated.divisions.len(), 1);
        assert_eq!(c.emulated.divisions[0].function, "poly_reduce");
        assert_eq!(c.emulated.divisions[0].instructions, 10);
    }

    #[test]
    fn a_line_the_plugin_never_writes_is_an_error() {
        assert!(read_regions("tb 0x10 1 1 0 0\n").is_err(), "a block before any region");
        assert!(read_regions("region 0\nbogus\n").is_err());
        assert!(read_regions("region 0\ntotal 1 2\n").is_err());
    }
}
