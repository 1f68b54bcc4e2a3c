//! Running LLVM's tools on executed blocks: `llvm-mc` turns each instruction's bytes into
//! LLVM's assembly (one instruction a line, all blocks in one process), `llvm-mca` prices every
//! block as a code region of its own (all blocks of one CPU in one process), each simulated as
//! [`ITERATIONS`] iterations of itself: its steady-state cycles per iteration are the total
//! cycles over the iterations.
//!
//! What cannot be read is said, never guessed: an instruction LLVM's disassembler does not
//! decode, or that its model cannot price (`--skip-unsupported-instructions`), is left out of
//! its block's price and counted as unpriced. Where a tool fails on a batch, the batch is split
//! in halves until the blocks it fails on are found; those are unpriced as a whole.

use super::{disassembler_cpu, target, Tools};
use crate::arch::Arch;
use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// Iterations llvm-mca simulates of each block.
pub const ITERATIONS: u64 = 100;

/// One block's price on one CPU.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Priced {
    /// Steady-state cycles of one execution of the block (0 when nothing of it was priced).
    pub cycles: f64,
    /// Instructions of the block the model priced (the rest are unpriced).
    pub priced: usize,
}

/// Runs `exe` with `args`, `input` on its standard input.
pub fn run(exe: &Path, args: &[String], input: &str) -> Result<Output, String> {
    let mut child = Command::new(exe)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    let mut stdin = child.stdin.take().expect("piped");
    let text = input.to_string();
    // Written from a thread of its own: a large input must not block on a full output pipe.
    let writer = std::thread::spawn(move || stdin.write_all(text.as_bytes()));
    let out = child
        .wait_with_output()
        .map_err(|e| format!("{}: {e}", exe.display()))?;
    let _ = writer.join();
    Ok(out)
}

/// Every block's instructions as LLVM's assembly (`None`: not decoded), each block's bytes
/// already cut into instructions.
pub fn disassemble(
    tools: &Tools,
    arch: Arch,
    blocks: &[Vec<Vec<u8>>],
) -> Result<Vec<Vec<Option<String>>>, String> {
    let mut out = Vec::with_capacity(blocks.len());
    disassemble_into(tools, arch, blocks, &mut out)?;
    Ok(out)
}

fn disassemble_into(
    tools: &Tools,
    arch: Arch,
    blocks: &[Vec<Vec<u8>>],
    out: &mut Vec<Vec<Option<String>>>,
) -> Result<(), String> {
    if blocks.is_empty() {
        return Ok(());
    }
    if let Some(v) = disassemble_batch(tools, arch, blocks)? {
        out.extend(v);
        return Ok(());
    }
    if blocks.len() == 1 {
        out.push(vec![None; blocks[0].len()]);
        return Ok(());
    }
    let (a, b) = blocks.split_at(blocks.len() / 2);
    disassemble_into(tools, arch, a, out)?;
    disassemble_into(tools, arch, b, out)
}

/// One `llvm-mc` over `blocks`; `None` where its output does not line up with the input (an
/// instruction read as two, say).
fn disassemble_batch(
    tools: &Tools,
    arch: Arch,
    blocks: &[Vec<Vec<u8>>],
) -> Result<Option<Vec<Vec<Option<String>>>>, String> {
    let mut input = String::new();
    for insn in blocks.iter().flatten() {
        let line: Vec<String> = insn.iter().map(|b| format!("{b:#04x}")).collect();
        input.push_str(&line.join(" "));
        input.push('\n');
    }
    let (triple, attrs) = target(arch);
    let mut args = vec![
        "--disassemble".to_string(),
        format!("-triple={triple}"),
        format!("-mcpu={}", disassembler_cpu(arch)),
    ];
    if !attrs.is_empty() {
        args.push(format!("-mattr={attrs}"));
    }
    let o = run(&tools.mc, &args, &input)?;
    let invalid = invalid_lines(&String::from_utf8_lossy(&o.stderr));
    let mut texts = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('.'))
        .map(|l| rewrite(arch, l))
        .collect::<Vec<String>>()
        .into_iter();
    let total: usize = blocks.iter().map(Vec::len).sum();
    if texts.len() + invalid.len() != total || invalid.iter().any(|&l| l == 0 || l > total) {
        return Ok(None);
    }
    let mut line = 0;
    let mut out = Vec::with_capacity(blocks.len());
    for b in blocks {
        let mut v = Vec::with_capacity(b.len());
        for _ in b {
            line += 1;
            v.push(if invalid.contains(&line) {
                None
            } else {
                texts.next()
            });
        }
        out.push(v);
    }
    Ok(Some(out))
}

/// The input lines `llvm-mc` said it could not decode (`<stdin>:27:1: warning: invalid
/// instruction encoding`).
fn invalid_lines(stderr: &str) -> BTreeSet<usize> {
    stderr
        .lines()
        .filter(|l| l.contains("invalid instruction encoding"))
        .filter_map(|l| l.strip_prefix("<stdin>:")?.split(':').next()?.parse().ok())
        .collect()
}

/// The instruction as it is priced. A call is priced as the jump it also is: llvm-mca does
/// not model calls and gives each a 100-cycle latency, which an in-order model (Cortex-A55,
/// SiFive U74) charges in full to every block that ends in one, and LLVM 19's llvm-mca crashes
/// on SystemZ's PC-relative calls. So `bl X` is priced as `b X`, `blr xN` as `br xN`, and so
/// on per architecture; the return address the call also writes is left out.
pub fn rewrite(arch: Arch, text: &str) -> String {
    if arch == Arch::X86_64 {
        if let Some(one) = string_iteration(text) {
            return one;
        }
    }
    let mut w = text.split_whitespace();
    let (Some(mnemonic), rest) = (w.next(), w.collect::<Vec<_>>()) else {
        return text.to_string();
    };
    let operands = rest.join(" ");
    match (arch, mnemonic) {
        (Arch::Aarch64, "bl") => format!("b\t{operands}"),
        (Arch::Aarch64, "blr") => format!("br\t{operands}"),
        (Arch::Ppc64le, "bl") => format!("b {operands}"),
        (Arch::Ppc64le, "bla") => format!("ba {operands}"),
        (Arch::Ppc64le, "bctrl") => "bctr".to_string(),
        (Arch::Ppc64le, "blrl") => "blr".to_string(),
        // `jal X` and `jalr REG` are the calls (the link register `ra` implied); `jal rd, X`
        // with another rd is a plain jump already.
        (Arch::Riscv64, "jal") if rest.len() == 1 => format!("j\t{operands}"),
        (Arch::Riscv64, "jalr") if rest.len() == 1 => format!("jr\t{operands}"),
        (Arch::S390x, "brasl" | "bras" | "jasl" | "jas") => "br\t%r1".to_string(),
        (Arch::S390x, "basr" | "balr") => match rest.get(1) {
            Some(target) => format!("br\t{target}"),
            None => text.to_string(),
        },
        (Arch::X86_64, "callq" | "call") => format!("jmp\t{operands}"),
        _ => text.to_string(),
    }
}

/// One iteration of an x86 string instruction, as priced: callgrind and the QEMU plugin count
/// `rep stosq` once per iteration, and LLVM 19's Zen models price every `stos` and `movs` at
/// 100 cycles (not modelled), so an iteration is priced as the store (`stos`) or the load
/// (`movs`) it makes. `None` for any other instruction.
fn string_iteration(text: &str) -> Option<String> {
    let mut w = text.split_whitespace().peekable();
    if w.peek().is_some_and(|p| p.starts_with("rep")) {
        w.next();
    }
    let op = w.next()?;
    let (kind, size) = (op.get(..4)?, op.get(4..)?);
    let reg = match size {
        "b" => "%al",
        "w" => "%ax",
        "l" => "%eax",
        "q" => "%rax",
        _ => return None,
    };
    match kind {
        "stos" => Some(format!("mov{size}\t{reg}, (%rdi)")),
        "movs" => Some(format!("mov{size}\t(%rsi), {reg}")),
        _ => None,
    }
}

/// Every block's price on `cpu`, from its instructions' assembly.
pub fn price(
    tools: &Tools,
    arch: Arch,
    cpu: &str,
    blocks: &[Vec<Option<String>>],
) -> Result<Vec<Priced>, String> {
    let mut out = Vec::with_capacity(blocks.len());
    price_into(tools, arch, cpu, blocks, &mut out)?;
    Ok(out)
}

fn price_into(
    tools: &Tools,
    arch: Arch,
    cpu: &str,
    blocks: &[Vec<Option<String>>],
    out: &mut Vec<Priced>,
) -> Result<(), String> {
    if blocks.is_empty() {
        return Ok(());
    }
    if let Some(v) = price_batch(tools, arch, cpu, blocks)? {
        out.extend(v);
        return Ok(());
    }
    if blocks.len() == 1 {
        out.push(Priced {
            cycles: 0.0,
            priced: 0,
        });
        return Ok(());
    }
    let (a, b) = blocks.split_at(blocks.len() / 2);
    price_into(tools, arch, cpu, a, out)?;
    price_into(tools, arch, cpu, b, out)
}

/// One `llvm-mca` over `blocks`, each a region `bN`; `None` where it failed.
fn price_batch(
    tools: &Tools,
    arch: Arch,
    cpu: &str,
    blocks: &[Vec<Option<String>>],
) -> Result<Option<Vec<Priced>>, String> {
    let mut input = String::new();
    for (i, b) in blocks.iter().enumerate() {
        if b.iter().all(Option::is_none) {
            continue;
        }
        input.push_str(&format!("# LLVM-MCA-BEGIN b{i}\n"));
        for t in b.iter().flatten() {
            input.push_str(t);
            input.push('\n');
        }
        input.push_str("# LLVM-MCA-END\n");
    }
    let mut out = vec![
        Priced {
            cycles: 0.0,
            priced: 0
        };
        blocks.len()
    ];
    if input.is_empty() {
        return Ok(Some(out));
    }
    let (triple, attrs) = target(arch);
    let mut args = vec![
        format!("-mtriple={triple}"),
        format!("-mcpu={cpu}"),
        format!("-iterations={ITERATIONS}"),
        "--json".into(),
        "--instruction-info=false".into(),
        "--resource-pressure=false".into(),
        "--skip-unsupported-instructions=any".into(),
    ];
    if !attrs.is_empty() {
        args.push(format!("-mattr={attrs}"));
    }
    let o = run(&tools.mca, &args, &input)?;
    if !o.status.success() {
        return Ok(None);
    }
    let Ok(v) = serde_json::from_slice::<serde_json::Value>(&o.stdout) else {
        return Ok(None);
    };
    for r in v["CodeRegions"].as_array().into_iter().flatten() {
        let Some(i) = r["Name"]
            .as_str()
            .and_then(|n| n.strip_prefix('b'))
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|&i| i < blocks.len())
        else {
            continue;
        };
        let s = &r["SummaryView"];
        let (Some(total), Some(iterations)) = (s["TotalCycles"].as_f64(), s["Iterations"].as_f64())
        else {
            continue;
        };
        if iterations > 0.0 {
            out[i] = Priced {
                cycles: total / iterations,
                priced: r["Instructions"].as_array().map_or(0, Vec::len),
            };
        }
    }
    Ok(Some(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn undecodable_lines_are_read_from_llvm_mcs_warnings() {
        let err = "<stdin>:27:1: warning: invalid instruction encoding\n0xeb 0x38\n^\n\
                   <stdin>:3:1: warning: invalid instruction encoding\n";
        assert_eq!(invalid_lines(err).into_iter().collect::<Vec<_>>(), [3, 27]);
        assert!(invalid_lines("warning: something else").is_empty());
    }

    #[test]
    fn calls_are_priced_as_the_jumps_they_also_are() {
        assert_eq!(rewrite(Arch::S390x, "brasl\t%r14, 0x88"), "br\t%r1");
        assert_eq!(rewrite(Arch::S390x, "basr\t%r14, %r1"), "br\t%r1");
        assert_eq!(rewrite(Arch::S390x, "lgr\t%r1, %r2"), "lgr\t%r1, %r2");
        assert_eq!(rewrite(Arch::Aarch64, "bl\t#16"), "b\t#16");
        assert_eq!(rewrite(Arch::Aarch64, "blr\tx3"), "br\tx3");
        assert_eq!(rewrite(Arch::Aarch64, "b.ne\t#8"), "b.ne\t#8");
        assert_eq!(rewrite(Arch::Ppc64le, "bl .+0"), "b .+0");
        assert_eq!(rewrite(Arch::Ppc64le, "bctrl"), "bctr");
        assert_eq!(rewrite(Arch::Riscv64, "jal\t20"), "j\t20");
        assert_eq!(rewrite(Arch::Riscv64, "jalr\ta5"), "jr\ta5");
        assert_eq!(rewrite(Arch::Riscv64, "jal\tzero, 20"), "jal\tzero, 20");
        assert_eq!(rewrite(Arch::X86_64, "callq\t16"), "jmp\t16");
        // x86's string instructions: one iteration, as callgrind counts them.
        assert_eq!(
            rewrite(Arch::X86_64, "rep\t\tstosq\t%rax, %es:(%rdi)"),
            "movq\t%rax, (%rdi)"
        );
        assert_eq!(
            rewrite(Arch::X86_64, "rep\t\tmovsb\t(%rsi), %es:(%rdi)"),
            "movb\t(%rsi), %al"
        );
        assert_eq!(
            rewrite(Arch::X86_64, "movsbl\t%al, %eax"),
            "movsbl\t%al, %eax"
        );
        assert_eq!(
            rewrite(Arch::X86_64, "movq\t%rax, %rbx"),
            "movq\t%rax, %rbx"
        );
    }
}
