//! Counting foreign builds: `profile` on a build for another architecture runs its static
//! program under `qemu-<arch>` with kembench's counting plugin (`plugins/qemu-count`, GPL, a
//! separate artifact QEMU loads; kembench only starts QEMU with it) and reads exact
//! instruction counts per translation block between two marker functions of the driver.
//!
//! Each counted call is made twice by the driver: once with its random bytes asked of
//! kembench and recorded, then between the markers replaying them (no I/O inside the region),
//! after an empty region whose count (the markers' own call path) is subtracted. kembench
//! gives the plugin the program's functions (from its ELF symbols) and the plugin keeps a
//! shadow call stack from where each block starts (a block at a function's first instruction
//! is a call, one in a function lower on the stack a return; see the plugin's README for what
//! that cannot see): its per-stack self counts become the same folded stacks, inclusive costs,
//! calls, hot-path tree and primitive shares (classified on the whole chain) as callgrind's.
//! Loads and stores are the memory accesses QEMU reports; the instruction mix is read from
//! binutils' disassembly where it has it, QEMU's otherwise.

use super::mix;
use crate::arch::Arch;
use crate::callgrind::{
    self, Classifier, DebugInfo, FoldedStack, FunctionCost, FunctionLines, LineCost, OpAnalysis,
    Primitive, Share,
};
use crate::kem::Kem;
use crate::measure::counters::Counters;
use crate::kem::Op;
use crate::providers::foreign::Foreign;
use crate::record::profile::{
    CpuModel, DivisionSite, Emulated, FunctionCount, MixCount, OpProfile, ProfileConfig, ProfileResult,
    RandomnessNote,
    Spread,
};
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
    /// Its path, for its line tables.
    path: String,
    /// (start, end, name), sorted by start.
    functions: Vec<(u64, u64, String)>,
    begin: u64,
    end: u64,
    /// Its code sections: (address, bytes), for the cycle estimates.
    code: Vec<(u64, Vec<u8>)>,
}

impl super::estimate::Code for Program {
    fn bytes_at(&self, addr: u64) -> Option<&[u8]> {
        self.code.iter().find_map(|(start, bytes)| {
            let off = usize::try_from(addr.checked_sub(*start)?).ok()?;
            bytes.get(off..).filter(|b| !b.is_empty())
        })
    }

    fn function_at(&self, addr: u64) -> String {
        Program::function_at(self, addr)
    }
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
        let code = file
            .sections()
            .filter(|s| s.kind() == SectionKind::Text)
            .filter_map(|s| Some((s.address(), s.data().ok()?.to_vec())))
            .collect();
        Ok(Program {
            path: path.to_string_lossy().into_owned(),
            functions,
            begin,
            end,
            code,
        })
    }

    /// The plugin's `funcs=` file: every function's `START END`, as [`function_at`] looks
    /// them up (the plugin uses the same rule).
    ///
    /// [`function_at`]: Program::function_at
    fn funcs_file(&self) -> String {
        self.functions
            .iter()
            .map(|(s, e, _)| format!("{s:#x} {e:#x}\n"))
            .collect()
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
    /// Call stack (function start addresses, outermost first) → (self instructions, loads,
    /// stores, entries), from the plugin's `stack` lines.
    stacks: BTreeMap<Vec<u64>, [u64; 4]>,
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
            Some("stack") => {
                let v: Vec<&str> = w.collect();
                let r = regions.last_mut().ok_or_else(|| bad(l))?;
                let counts: Vec<u64> = v.iter().take(4).filter_map(|x| x.parse().ok()).collect();
                let path: Result<Vec<u64>, _> = v.iter().skip(4).map(|a| hex(a)).collect();
                match (<[u64; 4]>::try_from(counts), path) {
                    (Ok(c), Ok(path)) => {
                        let slot = r.stacks.entry(path).or_default();
                        slot.iter_mut().zip(c).for_each(|(a, b)| *a += b);
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

/// `call` minus `calibration`, block by block and stack by stack (the markers' call path runs
/// in both). The calibration region's one stack is the driver's frame that calls the markers
/// (in both regions the same function), holding the call set-up: subtracting it there leaves
/// that frame's self cost the instructions that pass the call's arguments and make it, and its
/// entry (the region's first block, pushed as a frame) cancelled.
fn minus(call: &Region, calibration: &Region) -> Region {
    let mut out = call.clone();
    for (k, c) in &calibration.stacks {
        if let Some(v) = out.stacks.get_mut(k) {
            v.iter_mut().zip(c).for_each(|(a, b)| *a = a.saturating_sub(*b));
        }
    }
    out.stacks.retain(|_, v| v.iter().any(|&x| x > 0));
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
    for (k, v) in &b.stacks {
        let s = a.stacks.entry(k.clone()).or_default();
        s.iter_mut().zip(v).for_each(|(x, y)| *x += y);
    }
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
    estimates: Vec<crate::record::profile::CycleEstimate>,
}

/// Per-line instructions of the `count` functions with the most self instructions among those
/// the program's line tables cover (a build compiled with `-g1` or more: `builds` adds none),
/// each in the file where most of its instructions are: every instruction of every block,
/// times the block's executions, to its line.
fn lines(
    r: &Region,
    program: &Program,
    insns: &BTreeMap<u64, String>,
    debug: &DebugInfo,
    count: usize,
) -> Vec<FunctionLines> {
    // function → file → line → instructions
    type PerFile = BTreeMap<String, BTreeMap<u32, u64>>;
    let mut by_fn: BTreeMap<String, (u64, PerFile)> = BTreeMap::new();
    for (&(addr, n), &(execs, _, _)) in &r.blocks {
        let e = by_fn.entry(program.function_at(addr)).or_default();
        e.0 += n * execs;
        for (&a, _) in insns.range(addr..).take(n as usize) {
            if let Some((file, line)) = debug.line(&program.path, a) {
                *e.1.entry(file).or_default().entry(line).or_default() += execs;
            }
        }
    }
    let mut hot: Vec<(String, (u64, PerFile))> =
        by_fn.into_iter().filter(|(_, v)| !v.1.is_empty()).collect();
    hot.sort_by(|a, b| b.1 .0.cmp(&a.1 .0).then_with(|| a.0.cmp(&b.0)));
    hot.truncate(count);
    hot.into_iter()
        .filter_map(|(function, (_, per_file))| {
            let sum = |m: &BTreeMap<u32, u64>| m.values().sum::<u64>();
            // The most instructions; on a tie the first file by name.
            let (file, per_line) = per_file
                .into_iter()
                .max_by(|a, b| sum(&a.1).cmp(&sum(&b.1)).then_with(|| b.0.cmp(&a.0)))?;
            let mut lines: Vec<LineCost> = per_line
                .into_iter()
                .map(|(line, instructions)| LineCost { line, instructions })
                .collect();
            lines.sort_by(|a, b| b.instructions.cmp(&a.instructions).then(a.line.cmp(&b.line)));
            lines.truncate(callgrind::LINES_PER_FUNCTION);
            Some(FunctionLines {
                function,
                file,
                lines,
            })
        })
        .collect()
}

/// How the hot-path tree of a foreign profile is cut (the profile's `--tree-depth` and
/// `--tree-threshold`).
#[derive(Debug, Clone, Copy)]
struct TreeCut {
    depth: usize,
    threshold: f64,
}

/// The analysis of one counted call: the plugin's call stacks named by the program's
/// functions, into folded stacks, per-function self and inclusive costs and calls, the
/// hot-path tree and the primitive shares, as the callgrind path makes them; the instruction
/// mix and divisions from the blocks.
#[allow(clippy::too_many_arguments)]
fn analyse(
    op: Op,
    r: &Region,
    calibration: u64,
    program: &Program,
    insns: &BTreeMap<u64, String>,
    arch: Arch,
    provider: &str,
    cut: TreeCut,
    debug: &DebugInfo,
) -> Counted {
    let mut mix_counts: BTreeMap<mix::Class, u64> = BTreeMap::new();
    let mut divisions: BTreeMap<String, u64> = BTreeMap::new();
    let mut sites: BTreeMap<u64, (String, String, u64)> = BTreeMap::new();
    for (&(addr, n), &(execs, _, _)) in &r.blocks {
        let function = program.function_at(addr);
        for (&a, text) in insns.range(addr..).take(n as usize) {
            for c in mix::classes(arch, text) {
                *mix_counts.entry(c).or_default() += execs;
                if c == mix::Class::Divide {
                    *divisions.entry(function.clone()).or_default() += execs;
                    sites
                        .entry(a)
                        .or_insert_with(|| (function.clone(), text.clone(), 0))
                        .2 += execs;
                }
            }
        }
    }
    let mut division_sites: Vec<DivisionSite> = sites
        .into_iter()
        .map(|(address, (function, instruction, executions))| DivisionSite {
            line: debug
                .line(&program.path, address)
                .map(|(file, line)| format!("{file}:{line}")),
            function,
            address,
            instruction: instruction.trim().to_string(),
            executions,
        })
        .collect();
    division_sites.sort_by_key(|d| (std::cmp::Reverse(d.executions), d.address));
    let mut divisions: Vec<FunctionCount> = divisions
        .into_iter()
        .map(|(function, instructions)| FunctionCount {
            function,
            instructions,
        })
        .collect();
    divisions.sort_by_key(|d| std::cmp::Reverse(d.instructions));

    // Frame names interned; id 0 is the root (the operation).
    let root = op.as_str().to_string();
    let mut names: Vec<String> = vec![root.clone()];
    let mut ids: HashMap<String, u32> = HashMap::new();
    let mut id = |name: String| -> u32 {
        *ids.entry(name).or_insert_with_key(|n| {
            names.push(n.clone());
            (names.len() - 1) as u32
        })
    };
    // (frames outermost first, self instructions, entries).
    let mut stacks: Vec<(Vec<u32>, u64, u64)> = Vec::new();
    if r.stacks.is_empty() {
        // A plugin without stacks: each block its function's, one level deep.
        for (&(addr, n), &(execs, _, _)) in &r.blocks {
            stacks.push((vec![id(program.function_at(addr))], n * execs, 0));
        }
    } else {
        for (path, &[ir, _, _, calls]) in &r.stacks {
            let frames = path.iter().map(|&a| id(program.function_at(a))).collect();
            stacks.push((frames, ir, calls));
        }
    }
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let total: u64 = stacks.iter().map(|s| s.1).sum();

    #[derive(Default)]
    struct Agg {
        self_ir: u64,
        inclusive: u64,
        calls: u64,
    }
    let mut by_fn: BTreeMap<u32, Agg> = BTreeMap::new();
    for (frames, ir, calls) in &stacks {
        let mut seen: Vec<u32> = Vec::with_capacity(frames.len());
        for &f in frames {
            // Recursion: a stack counts once in a function's inclusive cost.
            if !seen.contains(&f) {
                seen.push(f);
                by_fn.entry(f).or_default().inclusive += ir;
            }
        }
        if let Some(&inner) = frames.last() {
            let a = by_fn.entry(inner).or_default();
            a.self_ir += ir;
            a.calls += calls;
        }
    }
    let mut functions: Vec<FunctionCost> = by_fn
        .iter()
        .map(|(&f, a)| FunctionCost {
            name: names[f as usize].to_string(),
            object: program_name(arch),
            self_instructions: a.self_ir,
            inclusive_instructions: a.inclusive,
            calls: a.calls,
        })
        .collect();
    functions.sort_by(|a, b| {
        b.inclusive_instructions
            .cmp(&a.inclusive_instructions)
            .then(b.self_instructions.cmp(&a.self_instructions))
            .then(a.name.cmp(&b.name))
    });

    let tree = callgrind::hot_tree(
        stacks.iter().map(|s| (&s.0[..], s.1)),
        &names,
        0,
        total,
        cut.depth,
        cut.threshold,
    );

    let classifier = Classifier::new(provider);
    let mut memo = HashMap::new();
    let mut shares: BTreeMap<Primitive, u64> = BTreeMap::new();
    for (frames, ir, _) in &stacks {
        let p = callgrind::chain_primitive(&classifier, &mut memo, frames.iter().copied(), &names)
            .unwrap_or(Primitive::Other);
        *shares.entry(p).or_default() += ir;
    }

    let mut folded: BTreeMap<String, u64> = BTreeMap::new();
    for (frames, ir, _) in stacks.iter().filter(|s| s.1 > 0) {
        let mut line = callgrind::folded_frame(&root).into_owned();
        for &f in frames {
            line.push(';');
            line.push_str(&callgrind::folded_frame(names[f as usize]));
        }
        *folded.entry(line).or_default() += ir;
    }
    Counted {
        analysis: OpAnalysis {
            instructions: total,
            cache: None,
            functions,
            tree,
            lines: lines(
                r,
                program,
                insns,
                debug,
                callgrind::AnalysisOptions::default().hot_lines,
            ),
            shares: Primitive::ALL
                .iter()
                .map(|&p| Share {
                    primitive: p,
                    instructions: shares.get(&p).copied().unwrap_or(0),
                })
                .collect(),
            folded: folded
                .into_iter()
                .map(|(stack, instructions)| FoldedStack {
                    stack,
                    instructions,
                })
                .collect(),
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
            division_sites,
        },
        estimates: Vec::new(),
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
    cut: TreeCut,
    pricing: Option<&Pricing>,
) -> Result<Vec<(Op, Counted)>, String> {
    let find = || Foreign::find(label).ok_or_else(|| format!("{label} is not in the build cache"));
    let base = find()?;
    let arch = base.arch();
    let program = Program::read(base.program())?;
    let disassembly = objdump(arch, base.program());
    let dir = tempdir(label, seed)?;
    // Absolute: the driver runs from its own directory.
    let plugin = std::path::absolute(plugin).map_err(|e| e.to_string())?;
    let funcs = std::path::absolute(dir.0.join("funcs")).map_err(|e| e.to_string())?;
    std::fs::write(&funcs, program.funcs_file())
        .map_err(|e| format!("{}: {e}", funcs.display()))?;
    let mut cpu = String::new();
    let mut counts = Vec::new();
    let mut insns: BTreeMap<u64, String> = BTreeMap::new();
    // Each operation in a driver process of its own, after the same uncounted preparation
    // (the CPU read, then the key pair and ciphertext it needs, drawn from the start of the
    // seed's stream): what ran before a call moves the heap it meets (malloc's state), and
    // with it the instructions it executes, so a count must not depend on which other
    // operations `--ops` asked for. Decapsulation counted alone and after keygen and encaps
    // differed by about 1,000 instructions on aarch64 when one process served them all.
    for &op in ops {
        if matches!(op, Op::SkImport | Op::PkImport) {
            continue;
        }
        let out = std::path::absolute(dir.0.join(format!("counts-{}", op.as_str())))
            .map_err(|e| e.to_string())?;
        let spec = format!(
            "{},out={},begin={:#x},end={:#x},mem=on,funcs={}",
            plugin.display(),
            out.display(),
            program.begin,
            program.end,
            funcs.display()
        );
        let f = find()?
            .with_qemu_args(vec!["-plugin".into(), spec])
            .with_seed(&super::worker::seed_bytes(seed));
        let a = f.meta().algorithm;
        let (pk_len, sk_len, ct_len, ss_len) = (a.pk_len, a.sk_len, a.ct_len, a.ss_len);
        // The CPU QEMU presents (outside any counted region).
        cpu = f
            .cpu()
            .map_or_else(|e| format!("not read: {e}"), |c| c.describe());
        let mut regions_seen = 0;
        // Runs one counted command: its reply, and its call's region minus its calibration
        // region with the calibration's own count.
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
        drop(f);
        counts.push((op, region, calibration));
        // Every instruction this process's regions ran (each file describes its own).
        let text = std::fs::read_to_string(&out).map_err(|e| e.to_string())?;
        insns.extend(read_regions(&text)?.1);
    }
    let debug = DebugInfo::new();
    // As binutils prints each instruction where it can (QEMU's text otherwise).
    for (addr, text) in insns.iter_mut() {
        if let Some(better) = disassembly.get(addr) {
            text.clone_from(better);
        }
    }
    let estimates = match pricing.filter(|p| !p.cpus.is_empty()) {
        None => vec![Vec::new(); counts.len()],
        Some(p) => {
            let blocks: Vec<super::estimate::Blocks> = counts
                .iter()
                .map(|(_, r, _)| r.blocks.iter().map(|(k, v)| (*k, v.0)).collect())
                .collect();
            let ops: Vec<(Op, &super::estimate::Blocks)> =
                counts.iter().zip(&blocks).map(|((op, _, _), b)| (*op, b)).collect();
            super::estimate::estimate(&p.tools, arch, &program, &ops, &p.cpus)
                .map_err(|e| format!("cycle estimates: {e}"))?
        }
    };
    Ok(counts
        .into_iter()
        .zip(estimates)
        .map(|((op, region, calibration), estimates)| {
            let mut c = analyse(
                op,
                &region,
                calibration,
                &program,
                &insns,
                arch,
                provider,
                cut,
                &debug,
            );
            c.emulated.cpu.clone_from(&cpu);
            c.estimates = estimates;
            (op, c)
        })
        .collect())
}

/// What prices a build's blocks: LLVM's tools and the CPUs of its architecture.
struct Pricing {
    tools: crate::cycles::Tools,
    cpus: Vec<CpuModel>,
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
    config: &ProfileConfig,
    stop: &dyn Fn() -> bool,
    mut result: ProfileResult,
) -> ProfileResult {
    let (seeds, ops) = (config.seeds, &config.operations[..]);
    let cut = TreeCut {
        depth: config.tree_depth,
        threshold: config.tree_threshold,
    };
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
    // The CPUs of `--cpus` of this build's architecture: priced on seed 0's counts.
    let arch = crate::engine::foreign_arch(k);
    let cpus: Vec<CpuModel> = config
        .cpus
        .iter()
        .filter(|c| arch.is_some_and(|a| a.name() == c.arch))
        .cloned()
        .collect();
    let pricing = if cpus.is_empty() {
        None
    } else {
        match crate::cycles::Tools::find() {
            Ok(tools) => Some(Pricing { tools, cpus }),
            Err(e) => {
                result.error = Some(e);
                return result;
            }
        }
    };
    let mut per_seed: Vec<Vec<(Op, Counted)>> = Vec::new();
    for seed in 0..seeds as u64 {
        if stop() {
            result.error = Some(format!("stopped before seed {seed}"));
            return result;
        }
        let priced = if seed == 0 { pricing.as_ref() } else { None };
        match count_seed(&label, &plugin, seed, ops, &provider, cut, priced) {
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
            estimates: c.estimates,
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
            path: String::new(),
            functions: vec![(0x2000, 0x2010, "poly_reduce".into())],
            begin: 0x100,
            end: 0x200,
            code: Vec::new(),
        };
        let c = analyse(
            Op::Decaps,
            &r,
            1,
            &program,
            &insns,
            Arch::S390x,
            "pqclean",
            CUT,
            &DebugInfo::new(),
        );
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
        let site = &c.emulated.division_sites;
        assert_eq!(site.len(), 1, "one division instruction: {site:?}");
        assert_eq!(
            (site[0].address, site[0].instruction.as_str(), site[0].executions),
            (0x2000, "dlr %r2,%r3", 10)
        );
        assert_eq!(site[0].function, "poly_reduce");
    }

    const CUT: TreeCut = TreeCut {
        depth: 8,
        threshold: 0.01,
    };

    /// A calibration region (the driver's `main` frame alone) and a call: `main` calls `dec`,
    /// which calls `KeccakF1600_StatePermute` directly and through `shake` and calls `rec`,
    /// which recursed through `helper` back into `rec`.
    const STACKS: &str = "region 0\n\
        insn 0x1000 brasl %r14,0x200\n\
        tb 0x1000 1 1 0 0\n\
        total 1 0 0\n\
        stack 1 0 0 1 0x1000\n\
        region 1\n\
        insn 0x1004 lgr %r2,%r3\n\
        insn 0x1008 brasl %r14,0x2000\n\
        insn 0x2000 ahi %r2,1\n\
        insn 0x3000 xgr %r1,%r2\n\
        insn 0x4000 lgr %r1,%r2\n\
        insn 0x5000 ahi %r1,1\n\
        insn 0x6000 ahi %r1,1\n\
        tb 0x1004 2 1 0 0\n\
        tb 0x2000 1 10 0 0\n\
        tb 0x3000 1 300 0 0\n\
        tb 0x4000 1 40 0 0\n\
        tb 0x5000 1 50 0 0\n\
        tb 0x6000 1 7 0 0\n\
        total 409 0 0\n\
        stack 2 0 0 1 0x1000\n\
        stack 10 0 0 1 0x1000 0x2000\n\
        stack 100 0 0 2 0x1000 0x2000 0x3000\n\
        stack 40 0 0 3 0x1000 0x2000 0x4000\n\
        stack 200 0 0 3 0x1000 0x2000 0x4000 0x3000\n\
        stack 30 0 0 2 0x1000 0x2000 0x5000\n\
        stack 5 0 0 1 0x1000 0x2000 0x5000 0x6000\n\
        stack 20 0 0 1 0x1000 0x2000 0x5000 0x6000 0x5000\n\
        stack 2 0 0 0 0x1000 0x2000 0x5000 0x6000 0x5000 0x6000\n";

    fn stacks_program() -> Program {
        let f = |s: u64, name: &str| (s, s + 0x100, name.to_string());
        Program {
            path: String::new(),
            functions: vec![
                f(0x1000, "main"),
                f(0x2000, "PQCLEAN_MLKEM768_CLEAN_crypto_kem_dec"),
                f(0x3000, "KeccakF1600_StatePermute"),
                f(0x4000, "shake256"),
                f(0x5000, "rec"),
                f(0x6000, "helper"),
            ],
            begin: 0x100,
            end: 0x200,
            code: Vec::new(),
        }
    }

    #[test]
    fn the_plugins_stacks_give_inclusive_costs_calls_a_tree_and_chain_shares() {
        let (regions, insns) = read_regions(STACKS).unwrap();
        let r = minus(&regions[1], &regions[0]);
        assert_eq!(r.total, 408);
        // The calibration's stack is `main` alone: its set-up and its entry are taken off.
        assert_eq!(r.stacks[&vec![0x1000]], [1, 0, 0, 0]);
        let c = analyse(
            Op::Decaps,
            &r,
            1,
            &stacks_program(),
            &insns,
            Arch::S390x,
            "pqclean",
            CUT,
            &DebugInfo::new(),
        );
        let a = &c.analysis;
        assert_eq!(a.instructions, 408);
        assert_eq!(a.folded.iter().map(|f| f.instructions).sum::<u64>(), 408);
        assert!(a
            .folded
            .iter()
            .any(|f| f.stack == "decaps;main;PQCLEAN_MLKEM768_CLEAN_crypto_kem_dec;shake256;KeccakF1600_StatePermute"
                && f.instructions == 200));
        let f = |name: &str| a.functions.iter().find(|f| f.name == name).unwrap();
        let (keccak, shake, rec) = (f("KeccakF1600_StatePermute"), f("shake256"), f("rec"));
        assert_eq!((keccak.self_instructions, keccak.inclusive_instructions), (300, 300));
        assert_eq!(keccak.calls, 5);
        assert_eq!((shake.self_instructions, shake.inclusive_instructions), (40, 240));
        // rec -> helper -> rec -> helper: each stack once in rec's inclusive cost.
        assert_eq!((rec.self_instructions, rec.inclusive_instructions), (50, 57));
        assert_eq!(rec.calls, 3);
        assert_eq!(f("PQCLEAN_MLKEM768_CLEAN_crypto_kem_dec").inclusive_instructions, 407);
        assert_eq!(a.functions[0].name, "main", "sorted by inclusive cost");
        // The tree: decaps -> main -> dec -> (shake256 240, Keccak 100, rec 57).
        let dec = &a.tree.children[0].children[0];
        assert_eq!(a.tree.instructions, 408);
        let kids: Vec<(&str, u64)> = dec
            .children
            .iter()
            .map(|n| (n.name.as_str(), n.instructions))
            .collect();
        assert_eq!(
            kids,
            [("shake256", 240), ("KeccakF1600_StatePermute", 100), ("rec", 57)]
        );
        // Shares on the chain: shake256 and the permutation under it are Keccak as a whole.
        let keccak_share = a
            .shares
            .iter()
            .find(|s| s.primitive == Primitive::Keccak)
            .unwrap();
        assert_eq!(keccak_share.instructions, 340);
        assert_eq!(a.shares.iter().map(|s| s.instructions).sum::<u64>(), 408);
    }

    #[test]
    fn a_line_the_plugin_never_writes_is_an_error() {
        assert!(read_regions("region 0\nstack 1 0 0\n").is_err(), "too few counts");
        assert!(read_regions("region 0\nstack 1 0 0 1 zz\n").is_err(), "not an address");
        assert!(read_regions("tb 0x10 1 1 0 0\n").is_err(), "a block before any region");
        assert!(read_regions("region 0\nbogus\n").is_err());
        assert!(read_regions("region 0\ntotal 1 2\n").is_err());
    }
}
