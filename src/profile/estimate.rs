//! Estimated cycles of counted calls on the CPUs of `--cpus`: the blocks counted in every
//! operation, cut into instructions from the program's own bytes, disassembled once by LLVM
//! and priced once per CPU by its scheduling model; each operation's estimate is the sum over
//! its blocks of executions × cycles per execution, with the blocks that carry most of it.
//!
//! A foreign build's blocks are the QEMU plugin's translation blocks. A native call's come from
//! callgrind's count of every instruction (`--dump-instr=yes`): per object, the runs of
//! consecutive instructions executed the same number of times ([`native`]).

use crate::arch::Arch;
use crate::cycles::{length, mca, Tools};
use crate::kem::Op;
use crate::record::profile::{BlockCost, CpuModel, CycleEstimate};
use std::collections::{BTreeMap, BTreeSet};

/// Blocks listed per estimate (the most cycles first).
pub const BLOCKS_LISTED: usize = 5;

/// One operation's executed blocks: (address, instructions) → executions.
pub type Blocks = BTreeMap<(u64, u64), u64>;

/// What the estimate needs of the program: its code's bytes from an address on, and the
/// function holding an address.
pub trait Code {
    /// The bytes of the program's code from `addr` to the end of its section.
    fn bytes_at(&self, addr: u64) -> Option<&[u8]>;
    /// The function holding `addr` (or the address).
    fn function_at(&self, addr: u64) -> String;
}

/// Every operation's estimate on each of `cpus` (all of `arch`), in the order of `ops`.
pub fn estimate(
    tools: &Tools,
    arch: Arch,
    code: &dyn Code,
    ops: &[(Op, &Blocks)],
    cpus: &[CpuModel],
) -> Result<Vec<Vec<CycleEstimate>>, String> {
    let unique: Vec<(u64, u64)> = ops
        .iter()
        .flat_map(|(_, b)| b.keys().copied())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    // Each block's instructions; a block whose bytes cannot be cut is unpriced as a whole.
    let cut: Vec<Vec<Vec<u8>>> = unique
        .iter()
        .map(|&(addr, n)| {
            code.bytes_at(addr)
                .and_then(|b| length::split(arch, b, n as usize))
                .unwrap_or_default()
        })
        .collect();
    let texts = mca::disassemble(tools, arch, &cut)?;
    let priced: Vec<Result<Vec<mca::Priced>, String>> = std::thread::scope(|s| {
        let handles: Vec<_> = cpus
            .iter()
            .map(|c| s.spawn(|| mca::price(tools, arch, &c.cpu, &texts)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err("pricing panicked".into())))
            .collect()
    });
    let mut per_cpu = Vec::with_capacity(cpus.len());
    for p in priced {
        per_cpu.push(p?);
    }
    let index: BTreeMap<(u64, u64), usize> =
        unique.iter().enumerate().map(|(i, k)| (*k, i)).collect();
    Ok(ops
        .iter()
        .map(|(_, blocks)| {
            cpus.iter()
                .zip(&per_cpu)
                .map(|(cpu, prices)| one(cpu, code, blocks, &index, prices))
                .collect()
        })
        .collect())
}

/// One operation's estimate on one CPU.
fn one(
    cpu: &CpuModel,
    code: &dyn Code,
    blocks: &Blocks,
    index: &BTreeMap<(u64, u64), usize>,
    prices: &[mca::Priced],
) -> CycleEstimate {
    let (mut cycles, mut priced, mut unpriced) = (0.0f64, 0u64, 0u64);
    let mut costs: Vec<BlockCost> = Vec::new();
    for (&(addr, n), &execs) in blocks {
        let p = prices[index[&(addr, n)]];
        let here = p.cycles * execs as f64;
        cycles += here;
        let done = (p.priced as u64).min(n);
        priced += done * execs;
        unpriced += (n - done) * execs;
        costs.push(BlockCost {
            address: addr,
            function: code.function_at(addr),
            instructions: n,
            executions: execs,
            cycles_per_execution: p.cycles,
            cycles: here.round() as u64,
        });
    }
    costs.sort_by(|a, b| b.cycles.cmp(&a.cycles).then(a.address.cmp(&b.address)));
    costs.truncate(BLOCKS_LISTED);
    CycleEstimate {
        cpu: cpu.cpu.clone(),
        model: cpu.model.clone(),
        cycles: cycles.round() as u64,
        priced_instructions: priced,
        unpriced_instructions: unpriced,
        blocks: costs,
    }
}

/// A native object's code and functions, read from its file.
pub struct NativeObject {
    /// Its executable sections: (address, bytes).
    code: Vec<(u64, Vec<u8>)>,
    /// (start, end, name), sorted by start.
    functions: Vec<(u64, u64, String)>,
}

impl NativeObject {
    /// Reads the ELF file at `path`.
    pub fn read(path: &std::path::Path) -> Result<NativeObject, String> {
        use object::{Object, ObjectSection, ObjectSymbol, SectionKind};
        let data = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let file = object::File::parse(&*data).map_err(|e| format!("{}: {e}", path.display()))?;
        let code = file
            .sections()
            .filter(|s| s.kind() == SectionKind::Text)
            .filter_map(|s| Some((s.address(), s.data().ok()?.to_vec())))
            .collect();
        let mut functions: Vec<(u64, u64, String)> = file
            .symbols()
            .chain(file.dynamic_symbols())
            .filter(|s| s.kind() == object::SymbolKind::Text && s.size() > 0)
            .filter_map(|s| {
                let name = s.name().ok()?;
                let name = addr2line::demangle_auto(name.into(), None).into_owned();
                Some((s.address(), s.address() + s.size(), name))
            })
            .collect();
        functions.sort();
        functions.dedup_by(|b, a| a.0 == b.0);
        Ok(NativeObject { code, functions })
    }
}

impl Code for NativeObject {
    fn bytes_at(&self, addr: u64) -> Option<&[u8]> {
        self.code.iter().find_map(|(start, bytes)| {
            let off = usize::try_from(addr.checked_sub(*start)?).ok()?;
            bytes.get(off..).filter(|b| !b.is_empty())
        })
    }

    fn function_at(&self, addr: u64) -> String {
        let i = self.functions.partition_point(|f| f.0 <= addr);
        match i.checked_sub(1).map(|i| &self.functions[i]) {
            Some((s, e, name)) if addr >= *s && addr < *e => name.clone(),
            _ => format!("{addr:#x}"),
        }
    }
}

/// The blocks of one object's executed instructions (address → executions): runs of
/// consecutive instructions, each starting where the one before it ends, executed the same
/// number of times. An instruction whose bytes cannot be read is a block of its own.
pub fn blocks_of(arch: Arch, code: &dyn Code, executions: &BTreeMap<u64, u64>) -> Blocks {
    let mut out = Blocks::new();
    // (start, instructions, executions, where the run's next instruction would start)
    let mut run: Option<(u64, u64, u64, Option<u64>)> = None;
    for (&addr, &execs) in executions {
        let next = code
            .bytes_at(addr)
            .and_then(|b| length::of(arch, b))
            .map(|n| addr + n as u64);
        run = match run {
            Some((start, n, e, Some(end))) if end == addr && e == execs => {
                Some((start, n + 1, e, next))
            }
            other => {
                if let Some((start, n, e, _)) = other {
                    out.insert((start, n), e);
                }
                Some((addr, 1, execs, next))
            }
        };
    }
    if let Some((start, n, e, _)) = run {
        out.insert((start, n), e);
    }
    out
}

/// Every operation's estimate on each of `cpus` (all of the host's architecture) from
/// callgrind's counts of its
/// instructions ((object, address) → executions, one map per operation, in order): priced per
/// object and summed; an object that cannot be read has all its instructions unpriced.
pub fn native(
    tools: &Tools,
    ops: &[BTreeMap<(String, u64), u64>],
    cpus: &[CpuModel],
) -> Result<Vec<Vec<CycleEstimate>>, String> {
    let mut out: Vec<Vec<CycleEstimate>> = ops
        .iter()
        .map(|_| {
            cpus.iter()
                .map(|c| CycleEstimate {
                    cpu: c.cpu.clone(),
                    model: c.model.clone(),
                    cycles: 0,
                    priced_instructions: 0,
                    unpriced_instructions: 0,
                    blocks: Vec::new(),
                })
                .collect()
        })
        .collect();
    let objects: BTreeSet<&str> = ops
        .iter()
        .flat_map(|m| m.keys().map(|(o, _)| o.as_str()))
        .collect();
    for object in objects {
        let per_op: Vec<BTreeMap<u64, u64>> = ops
            .iter()
            .map(|m| {
                m.iter()
                    .filter(|((o, _), _)| o == object)
                    .map(|((_, a), e)| (*a, *e))
                    .collect()
            })
            .collect();
        let Ok(code) = NativeObject::read(std::path::Path::new(object)) else {
            for (i, m) in per_op.iter().enumerate() {
                for e in &mut out[i] {
                    e.unpriced_instructions += m.values().sum::<u64>();
                }
            }
            continue;
        };
        let blocks: Vec<Blocks> = per_op
            .iter()
            .map(|m| blocks_of(Arch::host(), &code, m))
            .collect();
        let list: Vec<(Op, &Blocks)> = blocks.iter().map(|b| (Op::Keygen, b)).collect();
        let priced = estimate(tools, Arch::host(), &code, &list, cpus)?;
        for (i, per_cpu) in priced.into_iter().enumerate() {
            for (total, part) in out[i].iter_mut().zip(per_cpu) {
                total.cycles += part.cycles;
                total.priced_instructions += part.priced_instructions;
                total.unpriced_instructions += part.unpriced_instructions;
                total.blocks.extend(part.blocks);
                total
                    .blocks
                    .sort_by(|a, b| b.cycles.cmp(&a.cycles).then(a.address.cmp(&b.address)));
                total.blocks.truncate(BLOCKS_LISTED);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fake;
    impl Code for Fake {
        fn bytes_at(&self, _: u64) -> Option<&[u8]> {
            None
        }
        fn function_at(&self, addr: u64) -> String {
            format!("f{addr:x}")
        }
    }

    /// x86-64 code at 0x100: nop, `add rbx, rax`, nop, nop (1 + 3 + 1 + 1 bytes).
    struct X86;
    impl Code for X86 {
        fn bytes_at(&self, addr: u64) -> Option<&[u8]> {
            const CODE: [u8; 6] = [0x90, 0x48, 0x01, 0xc3, 0x90, 0x90];
            CODE.get(usize::try_from(addr.checked_sub(0x100)?).ok()?..)
                .filter(|b| !b.is_empty())
        }
        fn function_at(&self, _: u64) -> String {
            "f".into()
        }
    }

    #[test]
    fn native_blocks_are_runs_of_consecutive_instructions_executed_as_often() {
        // nop and add run 10 times, then the two nops 4 and 4 times; 0x200 is outside.
        let executions: BTreeMap<u64, u64> =
            [(0x100, 10), (0x101, 10), (0x104, 4), (0x105, 4), (0x200, 1)].into();
        let b = blocks_of(Arch::X86_64, &X86, &executions);
        let v: Vec<((u64, u64), u64)> = b.into_iter().collect();
        assert_eq!(v, [((0x100, 2), 10), ((0x104, 2), 4), ((0x200, 1), 1)]);
        // The same count but not consecutive (0x101 never ran): two blocks.
        let gap: BTreeMap<u64, u64> = [(0x100, 3), (0x104, 3)].into();
        assert_eq!(blocks_of(Arch::X86_64, &X86, &gap).len(), 2);
    }

    #[test]
    fn an_estimate_is_executions_times_cycles_with_the_unpriced_said() {
        let cpu = CpuModel {
            cpu: "z16".into(),
            arch: "s390x".into(),
            model: "z16".into(),
        };
        let blocks: Blocks = [((0x10, 4), 100), ((0x40, 2), 3), ((0x80, 3), 1)].into();
        let index = blocks.keys().enumerate().map(|(i, k)| (*k, i)).collect();
        let prices = [
            mca::Priced {
                cycles: 2.5,
                priced: 4,
            },
            mca::Priced {
                cycles: 10.0,
                priced: 1,
            },
            mca::Priced {
                cycles: 0.0,
                priced: 0,
            },
        ];
        let e = one(&cpu, &Fake, &blocks, &index, &prices);
        assert_eq!(e.cycles, 280);
        assert_eq!(e.priced_instructions, 400 + 3);
        assert_eq!(e.unpriced_instructions, 3 + 3);
        assert_eq!(e.blocks[0].address, 0x10);
        assert_eq!(e.blocks[0].cycles, 250);
        assert_eq!(e.blocks[0].function, "f10");
        assert_eq!(e.blocks[1].cycles, 30);
        assert!((e.priced_share() - 403.0 / 409.0).abs() < 1e-12);
    }
}
