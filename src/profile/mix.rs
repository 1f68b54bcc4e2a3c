//! The instruction mix of an emulated operation: which of its instructions, as binutils'
//! disassembler for the architecture prints them (QEMU's own where objdump has none), are
//! divisions, multiplications, branches and vector instructions, by mnemonic and operands. The classes overlap (a vector multiply is both a
//! multiply and a vector instruction); an instruction QEMU could not decode (`.byte`) is in
//! none. Divisions are the ones to watch: their latency depends on their operands on common
//! CPUs (KyberSlash).

use crate::arch::Arch;
use serde::{Deserialize, Serialize};

/// One class of the mix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    /// Integer and floating-point division (and RISC-V's remainder).
    Divide,
    /// Multiplication, scalar and vector, with multiply-add.
    Multiply,
    /// Branches, calls and returns, conditional or not.
    Branch,
    /// Instructions on vector registers (AVX/SSE, NEON, z/Architecture vector, VSX, RVV).
    Vector,
}

impl Class {
    /// Every class, in table order.
    pub const ALL: [Class; 4] = [Class::Divide, Class::Multiply, Class::Branch, Class::Vector];

    /// The name in tables.
    pub fn label(self) -> &'static str {
        match self {
            Class::Divide => "divide",
            Class::Multiply => "multiply",
            Class::Branch => "branch",
            Class::Vector => "vector",
        }
    }
}

/// The classes of one instruction, as a disassembler prints it on `arch`
/// (`dlgr %r2,%r3`, `udiv w0, w1, w2`, `imull %eax, %ecx`).
pub fn classes(arch: Arch, text: &str) -> Vec<Class> {
    let text = text.trim().to_ascii_lowercase();
    let (mnemonic, operands) = text.split_once(char::is_whitespace).unwrap_or((&text, ""));
    let m = mnemonic;
    let any = |list: &[&str]| list.contains(&m);
    let starts = |list: &[&str]| list.iter().any(|p| m.starts_with(p));
    let (divide, multiply, branch, vector) = match arch {
        Arch::X86_64 => (
            starts(&["div", "idiv", "vdiv"]),
            starts(&["mul", "imul", "pmul", "vpmul", "vmul", "vfmadd", "vfmsub"]),
            m.starts_with('j') || starts(&["call", "ret", "loop"]),
            m.starts_with('v') || operands.contains("xmm") || operands.contains("ymm"),
        ),
        Arch::Aarch64 => (
            any(&["udiv", "sdiv", "fdiv"]),
            m.contains("mul")
                || starts(&["madd", "msub", "mla", "mls", "smaddl", "umaddl", "smlal", "umlal"]),
            any(&["b", "bl", "br", "blr", "ret", "cbz", "cbnz", "tbz", "tbnz"])
                || m.starts_with("b."),
            operands
                .split([',', ' ', '{', '}', '['])
                .any(|t| {
                    let mut c = t.chars();
                    matches!(c.next(), Some('v' | 'q')) && c.next().is_some_and(|d| d.is_ascii_digit())
                }),
        ),
        Arch::S390x => (
            any(&[
                "d", "dr", "dl", "dlr", "dlg", "dlgr", "dsg", "dsgr", "dsgf", "dsgfr", "ddb", "ddbr",
                "deb", "debr", "dxbr",
            ]),
            any(&[
                "m", "mr", "mfy", "mh", "mhy", "mhi", "mghi", "mlr", "mlgr", "ml", "mlg", "ms", "msr",
                "msy", "msg", "msgr", "msgf", "msgfr", "msfi", "msgfi", "msc", "msgc", "msrkc",
                "msgrkc", "mgrk", "mg", "mgh", "mdb", "mdbr", "meeb", "meebr",
            ]) || starts(&["vml", "vmh", "vme", "vmo", "vma", "vmsl"]),
            m.starts_with('j')
                || starts(&["br", "bc", "bas", "bal"])
                || (m.starts_with('c') && ["rj", "ij", "rb", "ib"].iter().any(|s| m.contains(s))),
            m.starts_with('v'),
        ),
        Arch::Ppc64le => (
            starts(&["div", "fdiv", "xsdiv", "xvdiv"]),
            starts(&["mul", "vmul", "xsmul", "xvmul", "fmul", "maddld", "maddhd"]),
            m.starts_with('b'),
            m.starts_with('v') || starts(&["xx", "xv", "lxv", "stxv"]),
        ),
        Arch::Riscv64 => (
            starts(&["div", "rem", "fdiv"]),
            starts(&["mul", "fmul", "vmul"]),
            (m.starts_with('b') && !starts(&["bset", "bclr", "binv", "bext"]))
                || any(&["j", "jal", "jalr", "jr", "ret", "call", "tail"]),
            m.starts_with('v'),
        ),
    };
    [
        (divide, Class::Divide),
        (multiply, Class::Multiply),
        (branch, Class::Branch),
        (vector, Class::Vector),
    ]
    .into_iter()
    .filter_map(|(on, c)| on.then_some(c))
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn divisions_are_found_on_every_architecture_and_nothing_else_is_one() {
        let div = |a, t| classes(a, t).contains(&Class::Divide);
        assert!(div(Arch::X86_64, "divl %ecx"));
        assert!(div(Arch::X86_64, "idivq %rsi"));
        assert!(div(Arch::Aarch64, "udiv w0, w1, w2"));
        assert!(div(Arch::S390x, "dlr %r2,%r3"));
        assert!(div(Arch::S390x, "dsgfr %r0,%r1"));
        assert!(div(Arch::Ppc64le, "divwu r3,r3,r4"));
        assert!(div(Arch::Riscv64, "remuw a0,a0,a1"));
        for (a, t) in [
            (Arch::X86_64, "addl %eax, %ecx"),
            (Arch::Aarch64, "add w0, w1, w2"),
            (Arch::S390x, "ahi %r1,1"),
            (Arch::S390x, "la %r1,8(%r2)"),
            (Arch::Riscv64, "addw a0,a0,a1"),
            (Arch::X86_64, ".byte 0xf7"),
        ] {
            assert!(!div(a, t), "{a} {t}");
        }
    }

    #[test]
    fn vectors_multiplies_and_branches_by_mnemonic_and_registers() {
        assert_eq!(
            classes(Arch::X86_64, "vpmullw %ymm1, %ymm2, %ymm3"),
            [Class::Multiply, Class::Vector]
        );
        assert_eq!(classes(Arch::X86_64, "jne 0x401000"), [Class::Branch]);
        assert_eq!(
            classes(Arch::Aarch64, "mul v0.8h, v1.8h, v2.8h"),
            [Class::Multiply, Class::Vector]
        );
        assert_eq!(classes(Arch::Aarch64, "mul w0, w1, w2"), [Class::Multiply]);
        assert_eq!(classes(Arch::Aarch64, "b.ne 0x400100"), [Class::Branch]);
        assert_eq!(classes(Arch::Aarch64, "ldr q0, [x1]"), [Class::Vector]);
        assert_eq!(classes(Arch::S390x, "vl %v0,0(%r2)"), [Class::Vector]);
        assert_eq!(
            classes(Arch::S390x, "vmlhw %v0,%v1,%v2"),
            [Class::Multiply, Class::Vector]
        );
        assert_eq!(classes(Arch::S390x, "jne 0x1000"), [Class::Branch]);
        assert_eq!(classes(Arch::S390x, "brasl %r14,0x1000"), [Class::Branch]);
        assert_eq!(classes(Arch::S390x, "msr %r1,%r2"), [Class::Multiply]);
        assert_eq!(classes(Arch::Riscv64, "bnez a0,0x100"), [Class::Branch]);
        assert_eq!(classes(Arch::Riscv64, "bset a0,a0,a1"), []);
    }
}
