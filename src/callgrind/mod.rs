//! Reading valgrind's callgrind: what kembench keeps of one profiled operation (total and
//! per-function instruction counts, a hot-path tree, per-line costs of the hottest functions,
//! shares in symmetric primitives and randomness, simulated cache misses, folded stacks for
//! flame graphs). Pure: text in, typed values out; nothing here runs valgrind.
//!
//! The worker runs each operation inside a marker function; callgrind collects only while
//! the marker is on the stack (`--toggle-collect`), dumps when it returns (`--dump-after`),
//! and names every function by its whole call chain (`--separate-callers`), so every cost
//! has its full stack and the frames above the marker are cut off here.
//!
//! - `parse`: the callgrind format into contexts, costs, calls and line costs;
//! - `analyse`: one dump into an [`OpAnalysis`] ([`analyse()`], [`AnalysisOptions`]);
//! - `classify`: the name and source-file patterns of the primitives, one table per provider;
//! - `inline`: the frames inlined at an address, from the objects' debug information;
//! - `flame`: flame graphs and differential flame graphs (SVG, by `inferno`).

use serde::{Deserialize, Serialize};

mod analyse;
mod classify;
mod flame;
mod inline;
pub(crate) mod parse;

pub use analyse::{analyse, analyse_with, AnalysisOptions, DEEPER, LINES_PER_FUNCTION};
// Used by the engines of the `app` feature (profile's QEMU counts).
#[cfg_attr(not(feature = "app"), allow(unused_imports))]
pub(crate) use analyse::{chain_primitive, folded_frame, hot_tree};
pub use classify::primitive_of;
#[cfg_attr(not(feature = "app"), allow(unused_imports))]
pub(crate) use classify::Classifier;
pub use flame::{differential, flamegraph};
pub use inline::{DebugInfo, InlineFrame, Inlines, NoInlines};
pub use parse::{cache_geometry, ParseError};

/// How many times each instruction of a dump taken with `--dump-instr=yes` ran: (object file,
/// the instruction's address in that object) → executions (its `Ir`: one per execution; a
/// `rep`-prefixed string instruction counts one per iteration). What prices a native call's
/// blocks (`profile --cpus`).
pub fn executions(
    text: &str,
) -> Result<std::collections::BTreeMap<(String, u64), u64>, ParseError> {
    let dump = parse::parse(text)?;
    let mut out = std::collections::BTreeMap::new();
    for (&(ctx, address), &ir) in &dump.addresses {
        let object = dump.contexts[ctx as usize]
            .object
            .and_then(|o| dump.objects.get(o as usize))
            .cloned()
            .unwrap_or_default();
        *out.entry((object, address)).or_default() += ir;
    }
    Ok(out)
}

/// The primitives whose share of an operation `profile` reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Primitive {
    /// Keccak: SHA-3, SHAKE and the permutation itself.
    Keccak,
    /// SHA-2 (SHA-256, SHA-512).
    Sha2,
    /// AES (block cipher, CTR, the AES-based XOFs).
    Aes,
    /// The random generator: DRBGs, `randombytes`, the kernel's getrandom.
    Rng,
    /// Big-number and field arithmetic of the classical baselines (BN, P-256, X25519).
    Bignum,
    /// Everything else: the algorithm's own arithmetic, copies, allocation.
    Other,
}

impl Primitive {
    /// Every primitive, in the order shares are listed.
    pub const ALL: [Primitive; 6] = [
        Primitive::Keccak,
        Primitive::Sha2,
        Primitive::Aes,
        Primitive::Rng,
        Primitive::Bignum,
        Primitive::Other,
    ];

    /// The name in tables (`Keccak`, `SHA-2`, ...).
    pub fn label(self) -> &'static str {
        match self {
            Primitive::Keccak => "Keccak",
            Primitive::Sha2 => "SHA-2",
            Primitive::Aes => "AES",
            Primitive::Rng => "RNG",
            Primitive::Bignum => "bignum",
            Primitive::Other => "other",
        }
    }
}

/// Instructions attributed to one primitive.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Share {
    /// Which primitive.
    pub primitive: Primitive,
    /// Instructions executed inside it (the outermost frame of the stack that belongs to a
    /// primitive decides, so AES inside a DRBG counts as the RNG).
    pub instructions: u64,
}

/// The simulated cache: callgrind's model of a stated geometry, not this CPU's caches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CacheCounts {
    /// Data reads plus writes.
    pub data_refs: u64,
    /// First-level instruction-cache misses.
    pub i1_misses: u64,
    /// First-level data-cache misses (reads and writes).
    pub d1_misses: u64,
    /// Last-level misses (instructions and data).
    pub ll_misses: u64,
    /// L1 hits + 5 × LL hits + 35 × memory accesses (the model gungraun and CodSpeed use).
    pub estimated_cycles: u64,
}

/// One function's cost within one operation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionCost {
    /// The function's name (demangled, without the call chain).
    pub name: String,
    /// The object it lives in (a shared library, or the kembench binary).
    pub object: String,
    /// Instructions executed in the function itself.
    pub self_instructions: u64,
    /// Instructions executed in it and everything it called (recursion counted once).
    pub inclusive_instructions: u64,
    /// Times it was called within the operation.
    pub calls: u64,
}

/// A node of the hot-path tree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HotNode {
    /// The function (the root is the operation).
    pub name: String,
    /// Instructions in this call path, inclusive.
    pub instructions: u64,
    /// Share of the parent's instructions, 0 to 1 (1 at the root).
    pub share_of_parent: f64,
    /// The callees above the pruning threshold, hottest first.
    pub children: Vec<HotNode>,
}

/// Instructions spent on one source line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LineCost {
    /// The line number.
    pub line: u32,
    /// Instructions executed on it (self cost of the function on that line).
    pub instructions: u64,
}

/// The per-line split of one hot function.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionLines {
    /// The function.
    pub function: String,
    /// Its source file, as the line tables name it.
    pub file: String,
    /// Its hottest lines, most instructions first.
    pub lines: Vec<LineCost>,
}

/// One call stack with its self cost, outermost frame first, frames joined by `;` (the
/// folded format flame-graph tools read).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FoldedStack {
    /// `op;outer;...;inner`.
    pub stack: String,
    /// Instructions executed in the innermost frame on this stack.
    pub instructions: u64,
}

/// Everything kembench keeps of one profiled operation (one callgrind dump).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OpAnalysis {
    /// Instructions executed inside the marker (every frame below it).
    pub instructions: u64,
    /// The simulated cache, when callgrind simulated one.
    pub cache: Option<CacheCounts>,
    /// The hottest functions by inclusive cost.
    pub functions: Vec<FunctionCost>,
    /// The hot-path tree from the operation down, depth-limited and pruned.
    pub tree: HotNode,
    /// Per-line costs of the hottest functions that carry line information.
    pub lines: Vec<FunctionLines>,
    /// One share per [`Primitive`], in [`Primitive::ALL`] order; they sum to `instructions`.
    pub shares: Vec<Share>,
    /// Every stack below the marker with its self cost; they sum to `instructions`.
    pub folded: Vec<FoldedStack>,
    /// Instructions on stacks deeper than callgrind's `--separate-callers`, whose chain does
    /// not reach the marker (counted in `instructions`, placed under a `[deeper]` frame).
    pub truncated_instructions: u64,
    /// Instructions whose primitive share was decided by a frame the debug information names
    /// at their address (code inlined into a function the call chain names), not by the call
    /// chain itself; 0 where the dump or the object had no such information.
    #[serde(default)]
    pub inlined_instructions: u64,
}

impl OpAnalysis {
    /// The share of `p` in the operation's instructions, 0 to 1.
    pub fn share(&self, p: Primitive) -> f64 {
        let n = self
            .shares
            .iter()
            .find(|s| s.primitive == p)
            .map_or(0, |s| s.instructions);
        if self.instructions == 0 {
            0.0
        } else {
            n as f64 / self.instructions as f64
        }
    }

    /// The `n` functions with the most instructions of their own, most first (ties by name),
    /// each with its share of the operation's instructions, 0 to 1.
    pub fn hottest_self(&self, n: usize) -> Vec<(&FunctionCost, f64)> {
        let mut fs: Vec<&FunctionCost> = self.functions.iter().collect();
        fs.sort_by(|a, b| {
            b.self_instructions
                .cmp(&a.self_instructions)
                .then(a.name.cmp(&b.name))
        });
        fs.into_iter()
            .take(n)
            .map(|f| {
                (
                    f,
                    f.self_instructions as f64 / self.instructions.max(1) as f64,
                )
            })
            .collect()
    }

    /// Instructions on stacks that pass through a frame for which `frame` is true (each
    /// stack counted once): the inclusive cost of a set of functions.
    pub fn inclusive_of(&self, frame: impl Fn(&str) -> bool) -> u64 {
        self.folded
            .iter()
            .filter(|f| f.stack.split(';').any(&frame))
            .map(|f| f.instructions)
            .sum()
    }
}

/// `text` (a dump) with every function named by its address (`0x00000000008bc7c6`, in `fn=`
/// and `cfn=` lines) that `names` knows replaced by that name. Valgrind leaves functions
/// unnamed when their ELF symbol has no size (assembly without `.size`); the caller reads
/// those symbols from the binary.
pub fn name_addresses<'a>(
    text: &'a str,
    names: &std::collections::HashMap<u64, String>,
) -> std::borrow::Cow<'a, str> {
    const HEX: usize = 18; // "0x" and 16 digits
    let name_of = |token: &str| {
        let digits = token.strip_prefix("0x")?;
        names.get(&u64::from_str_radix(digits, 16).ok()?)
    };
    if names.is_empty() || !text.contains("=0x") && !text.contains("'0x") {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        if !(line.starts_with("fn=") || line.starts_with("cfn=")) || !line.contains("0x") {
            out.push_str(line);
            continue;
        }
        let mut rest = line;
        while let Some(at) = rest.find("0x") {
            let token = rest.get(at..at + HEX).unwrap_or("");
            let whole = token.len() == HEX
                && token[2..].bytes().all(|b| b.is_ascii_hexdigit())
                && matches!(rest[..at].chars().last(), Some('=' | '\'' | ' ' | ')'));
            match name_of(token).filter(|_| whole) {
                Some(name) => {
                    out.push_str(&rest[..at]);
                    out.push_str(name);
                    rest = &rest[at + HEX..];
                }
                None => {
                    out.push_str(&rest[..at + 2]);
                    rest = &rest[at + 2..];
                }
            }
        }
        out.push_str(rest);
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod name_tests {
    use super::*;

    #[test]
    fn known_addresses_in_function_names_get_their_names() {
        let names = [(0x8bc7c6u64, "poly_Rq_mul".to_string())]
            .into_iter()
            .collect();
        let text = "fn=0x00000000008bc7c6'owcpa_keypair'kembench_profiled_op\n\
                    5 100\n\
                    cfn=0x00000000008bc7c6\n\
                    calls=1 0x00000000008bc7c6\n\
                    fn=0x0000000000000001'x\n";
        let named = name_addresses(text, &names);
        assert!(named.contains("fn=poly_Rq_mul'owcpa_keypair'"), "{named}");
        assert!(named.contains("cfn=poly_Rq_mul\n"), "{named}");
        assert!(named.contains("calls=1 0x00000000008bc7c6"), "{named}");
        assert!(named.contains("fn=0x0000000000000001'x"), "{named}");
    }
}
