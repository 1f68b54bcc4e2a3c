//! Estimated cycles of a foreign build's counted calls on the CPUs of `--cpus`: the blocks the
//! plugin counted in every operation, cut into instructions from the program's own bytes,
//! disassembled once by LLVM and priced once per CPU by its scheduling model; each operation's
//! estimate is the sum over its blocks of executions × cycles per execution, with the blocks
//! that carry most of it.

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
