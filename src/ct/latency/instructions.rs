//! Which x86-64 instructions take a time that depends on their operands, and the decoder that
//! recognises them in machine code (iced-x86).
//!
//! The list, and where each claim comes from:
//!
//! - **integer division** `div`, `idiv` (every width): the number of cycles depends on the
//!   dividend's and divisor's values on most x86-64 cores (Intel's *64 and IA-32 Architectures
//!   Optimization Reference Manual*, appendix on instruction latency: "DIV/IDIV latency depends
//!   on the operand values"; uops.info gives latency *ranges* for `DIV r32/r64` on every Intel
//!   core before Ice Lake and on AMD cores before Zen 2; Agner Fog's instruction tables likewise).
//!   KyberSlash (Bernstein et al., 2024, <https://kyberslash.cr.yp.to>) recovered Kyber keys
//!   from the timing of exactly this instruction in `poly_tomsg` and `poly_compress`, where the
//!   compiler left a division by the constant `KYBER_Q`;
//! - **floating-point division and square root**, scalar and vector, SSE, AVX and AVX-512
//!   encodings, and x87's: `divss/divsd/divps/divpd`, `vdiv*` (FP16 included), `sqrtss/sqrtsd/
//!   sqrtps/sqrtpd`, `vsqrt*`, `fdiv*`, `fidiv*`, `fsqrt`: the divider's early-out makes their
//!   latency depend on the operands on Intel cores (the same manual: "the latency of divide and
//!   square root depends on the input values"; uops.info lists ranges, e.g. `DIVSD` 13-15
//!   cycles on Skylake) and is the reason the constant-time guides of BearSSL and the
//!   Cryptography Coding Standard forbid them on secrets;
//! - **x87 microcoded transcendentals and remainders** `fprem`, `fprem1`, `fsin`, `fcos`,
//!   `fsincos`, `fptan`, `fpatan`, `fyl2x`, `fyl2xp1`, `f2xm1`, `fscale`: microcode loops whose
//!   length follows the operands (Intel's manual and uops.info give ranges of tens of cycles).
//!
//! Not listed, and why: `mul`/`imul` (fixed latency on every x86-64 core uops.info measures);
//! the approximations `rcpss/rsqrtss/vrcp14*/vrsqrt14*` (table lookups of fixed latency);
//! floating-point add and multiply, slow only on subnormal operands (a microcode assist that
//! depends on the values, not on the instruction: the timing screen is the one that sees those,
//! as `mock/ct-timing` shows); `bsf/bsr/tzcnt/lzcnt` (fixed on x86-64 cores of the last decade).

use iced_x86::{Decoder, DecoderOptions, Formatter, Instruction, IntelFormatter, Mnemonic};

/// The longest x86 instruction, in bytes.
pub const MAX_LEN: usize = 15;

/// Whether instructions of `m` take a time that depends on their operands (the module's list).
pub fn variable_latency(m: Mnemonic) -> bool {
    use Mnemonic::*;
    matches!(
        m,
        // Integer division.
        Div | Idiv
        // SSE / AVX / AVX-512 floating-point division.
        | Divss | Divsd | Divps | Divpd
        | Vdivss | Vdivsd | Vdivps | Vdivpd | Vdivph | Vdivsh
        // Square roots.
        | Sqrtss | Sqrtsd | Sqrtps | Sqrtpd
        | Vsqrtss | Vsqrtsd | Vsqrtps | Vsqrtpd | Vsqrtph | Vsqrtsh
        // x87 division and square root.
        | Fdiv | Fdivp | Fdivr | Fdivrp | Fidiv | Fidivr | Fsqrt
        // x87 microcoded transcendentals and remainders.
        | Fprem | Fprem1 | Fsin | Fcos | Fsincos | Fptan | Fpatan | Fyl2x | Fyl2xp1 | F2xm1
        | Fscale
    )
}

/// A variable-latency instruction found in machine code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flagged {
    /// The mnemonic, lower case (`div`, `vdivsd`).
    pub mnemonic: String,
    /// The instruction as disassembled, Intel syntax (`div ecx`).
    pub text: String,
}

/// Decodes the one 64-bit instruction at the start of `bytes` (at address `ip`, so that
/// relative operands read right) and says whether it is on the list; `None` for any other
/// instruction, and for bytes that do not decode.
pub fn classify(bytes: &[u8], ip: u64) -> Option<Flagged> {
    let mut decoder = Decoder::with_ip(64, bytes, ip, DecoderOptions::NONE);
    if !decoder.can_decode() {
        return None;
    }
    let instruction = decoder.decode();
    if instruction.is_invalid() || !variable_latency(instruction.mnemonic()) {
        return None;
    }
    Some(Flagged {
        mnemonic: format!("{:?}", instruction.mnemonic()).to_lowercase(),
        text: intel(&instruction),
    })
}

/// The instruction in Intel syntax.
fn intel(instruction: &Instruction) -> String {
    let mut out = String::new();
    IntelFormatter::new().format(instruction, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_divisions_are_flagged() {
        // f7 f1: div ecx; 41 f7 fa: idiv r10d (gcc -Os's poly_tomsg); 48 f7 f7: div rdi.
        let d = classify(&[0xf7, 0xf1], 0x1000).unwrap();
        assert_eq!(d.mnemonic, "div");
        assert_eq!(d.text, "div ecx");
        let d = classify(&[0x41, 0xf7, 0xfa], 0x1000).unwrap();
        assert_eq!(
            (d.mnemonic.as_str(), d.text.as_str()),
            ("idiv", "idiv r10d")
        );
        assert_eq!(classify(&[0x48, 0xf7, 0xf7], 0).unwrap().text, "div rdi");
    }

    #[test]
    fn floating_point_divisions_and_roots_are_flagged() {
        // f2 0f 5e c1: divsd xmm0,xmm1; f2 0f 51 c1: sqrtsd xmm0,xmm1;
        // c5 fd 5e c1: vdivpd ymm0,ymm0,ymm1; d9 fa: fsqrt.
        for (bytes, m) in [
            (&[0xf2, 0x0f, 0x5e, 0xc1][..], "divsd"),
            (&[0xf2, 0x0f, 0x51, 0xc1][..], "sqrtsd"),
            (&[0xc5, 0xfd, 0x5e, 0xc1][..], "vdivpd"),
            (&[0xd9, 0xfa][..], "fsqrt"),
        ] {
            assert_eq!(classify(bytes, 0).map(|f| f.mnemonic), Some(m.into()));
        }
    }

    #[test]
    fn fixed_latency_instructions_are_not_flagged() {
        // f7 e1: mul ecx; 0f af c1: imul eax,ecx; f2 0f 59 c1: mulsd xmm0,xmm1 (slow only on
        // subnormals: the timing screen's job); f3 0f 52 c1: rsqrtss; 01 c8: add eax,ecx.
        for bytes in [
            &[0xf7, 0xe1][..],
            &[0x0f, 0xaf, 0xc1][..],
            &[0xf2, 0x0f, 0x59, 0xc1][..],
            &[0xf3, 0x0f, 0x52, 0xc1][..],
            &[0x01, 0xc8][..],
        ] {
            assert_eq!(classify(bytes, 0), None, "{bytes:02x?}");
        }
        // Truncated or invalid bytes are no finding either.
        assert_eq!(classify(&[0xf7], 0), None);
        assert_eq!(classify(&[], 0), None);
        assert_eq!(classify(&[0x0f, 0x0b], 0), None); // ud2
    }
}
