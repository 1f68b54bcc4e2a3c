//! An instruction's length from its first bytes, for the foreign architectures kembench
//! counts: what cuts a block's bytes into the instructions the disassembler is handed, one a
//! line.
//!
//! aarch64 and ppc64le: 4 bytes. s390x: the two top bits of the first byte (00: 2 bytes,
//! 01 and 10: 4, 11: 6). riscv64: 2 bytes when the two low bits of the first (little-endian)
//! halfword are not 11 (the compressed extension), else 4 (rv64gc has no longer encodings).
//! x86-64: decoded (iced-x86), 1 to 15 bytes.

use crate::arch::Arch;

/// The length of the instruction that starts `bytes`, or `None` where it is no instruction
/// (x86-64) or too few bytes are left.
pub fn of(arch: Arch, bytes: &[u8]) -> Option<usize> {
    let first = *bytes.first()?;
    let n = match arch {
        Arch::Aarch64 | Arch::Ppc64le => 4,
        Arch::S390x => match first >> 6 {
            0 => 2,
            1 | 2 => 4,
            _ => 6,
        },
        Arch::Riscv64 => {
            if first & 0b11 == 0b11 {
                4
            } else {
                2
            }
        }
        Arch::X86_64 => {
            let mut d = iced_x86::Decoder::new(64, bytes, iced_x86::DecoderOptions::NONE);
            let i = d.decode();
            return (!i.is_invalid()).then_some(i.len());
        }
    };
    (bytes.len() >= n).then_some(n)
}

/// `count` instructions cut from `bytes` (a block's code, from its first instruction), or
/// `None` where the bytes end first.
pub fn split(arch: Arch, bytes: &[u8], count: usize) -> Option<Vec<Vec<u8>>> {
    let mut out = Vec::with_capacity(count);
    let mut at = 0;
    for _ in 0..count {
        let n = of(arch, &bytes[at..])?;
        out.push(bytes[at..at + n].to_vec());
        at += n;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_follow_each_architectures_encoding() {
        // s390x: lgr (b904: 4), br (07fe: 2), brasl (c0e5: 6), stmg (eb..: 6).
        assert_eq!(of(Arch::S390x, &[0xb9, 0x04, 0, 0x12]), Some(4));
        assert_eq!(of(Arch::S390x, &[0x07, 0xfe]), Some(2));
        assert_eq!(of(Arch::S390x, &[0xc0, 0xe5, 0, 0, 0, 0x10]), Some(6));
        assert_eq!(
            of(Arch::S390x, &[0xeb, 0x8f, 0xf0, 0x40, 0x00, 0x24]),
            Some(6)
        );
        // riscv64: c.addi (0x0505: 2), addi (0x13: 4).
        assert_eq!(of(Arch::Riscv64, &[0x05, 0x05]), Some(2));
        assert_eq!(of(Arch::Riscv64, &[0x13, 0x05, 0x15, 0x00]), Some(4));
        assert_eq!(of(Arch::Aarch64, &[0x1f, 0x20, 0x03, 0xd5]), Some(4));
        assert_eq!(of(Arch::Ppc64le, &[0, 0, 0]), None, "too few bytes");
        // x86-64: nop, `add rbx, rax` (48 01 c3), a truncated `mov eax, imm32`.
        assert_eq!(of(Arch::X86_64, &[0x90]), Some(1));
        assert_eq!(of(Arch::X86_64, &[0x48, 0x01, 0xc3, 0x90]), Some(3));
        assert_eq!(of(Arch::X86_64, &[0xb8, 0x01]), None, "too few bytes");
        let code = [
            0x07, 0xfe, 0xb9, 0x04, 0x00, 0x12, 0xc0, 0xe5, 0, 0, 0, 0x10,
        ];
        let parts = split(Arch::S390x, &code, 3).unwrap();
        assert_eq!(parts.iter().map(Vec::len).collect::<Vec<_>>(), [2, 4, 6]);
        assert!(
            split(Arch::S390x, &code, 4).is_none(),
            "the bytes end first"
        );
    }
}
