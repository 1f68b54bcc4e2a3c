//! One dump → [`OpAnalysis`]: every context's call chain is cut at the marker and hung below
//! a root frame named after the operation; per-function totals, the hot-path tree, per-line
//! costs, primitive shares, the simulated cache and folded stacks all come from those stacks.

use std::collections::HashMap;

use super::classify::Classifier;
use super::inline::{Inlines, NoInlines};
use super::parse::{self, Dump, ParseError};
use super::{
    CacheCounts, FoldedStack, FunctionCost, FunctionLines, HotNode, LineCost, OpAnalysis,
    Primitive, Share,
};

/// The frame under which chains that do not reach the marker are placed: callgrind keeps at
/// most `--separate-callers` callers, so the outer part of a deeper chain is lost.
pub const DEEPER: &str = "[deeper]";

/// How many lines [`OpAnalysis::lines`] keeps per function.
pub const LINES_PER_FUNCTION: usize = 8;

/// What [`analyse()`] needs besides the dump.
#[derive(Debug, Clone, PartialEq)]
pub struct AnalysisOptions {
    /// The name of the root frame: the operation (`keygen`, `encaps`, ...).
    pub root: String,
    /// The function that callgrind toggled collection on; frames above it are cut off.
    pub marker: String,
    /// The library the operation ran in (`liboqs`, `openssl`, ...), which picks the name
    /// patterns of the primitive shares; an unknown or empty name uses every table.
    pub provider: String,
    /// Levels of the hot-path tree below the root.
    pub tree_depth: usize,
    /// Paths under this fraction of the operation's instructions are pruned from the tree.
    pub tree_threshold: f64,
    /// How many functions [`OpAnalysis::functions`] keeps (by inclusive cost).
    pub max_functions: usize,
    /// How many functions (the hottest by self cost with line information) get a per-line
    /// split, [`LINES_PER_FUNCTION`] lines each.
    pub hot_lines: usize,
}

impl Default for AnalysisOptions {
    fn default() -> Self {
        AnalysisOptions {
            root: "op".into(),
            marker: "kembench_profiled_op".into(),
            provider: String::new(),
            tree_depth: 8,
            tree_threshold: 0.01,
            max_functions: 25,
            hot_lines: 5,
        }
    }
}

/// No object known for a frame.
const NO_OBJECT: u32 = u32::MAX;

/// Frame names, interned.
#[derive(Default)]
struct Frames<'a> {
    ids: HashMap<&'a str, u32>,
    names: Vec<&'a str>,
}

impl<'a> Frames<'a> {
    fn id(&mut self, name: &'a str) -> u32 {
        *self.ids.entry(name).or_insert_with(|| {
            self.names.push(name);
            (self.names.len() - 1) as u32
        })
    }
}

/// A context's chain: frame ids innermost first, where each frame starts in the name, and
/// the position of the marker (its outermost occurrence).
struct Chain {
    frames: Vec<u32>,
    starts: Vec<usize>,
    marker: Option<usize>,
}

/// Splits `name` at `'`; pieces that are only digits are callgrind's recursion levels
/// (`f'2`), not frames.
fn split_chain<'a>(name: &'a str, frames: &mut Frames<'a>, marker: &str) -> Chain {
    let mut chain = Chain {
        frames: Vec::new(),
        starts: Vec::new(),
        marker: None,
    };
    let mut start = 0;
    for piece in name.split('\'') {
        let at = start;
        start += piece.len() + 1;
        if piece.is_empty() || piece.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        if piece == marker {
            chain.marker = Some(chain.frames.len());
        }
        chain.frames.push(frames.id(piece));
        chain.starts.push(at);
    }
    chain
}

/// A context with self cost, as a stack below the root.
struct Stack {
    /// Frames outermost first, without the root; may start with [`DEEPER`].
    frames: Vec<u32>,
    /// The object of each frame ([`NO_OBJECT`] for the pseudo-frame or when unknown).
    objects: Vec<u32>,
    /// Self instructions of the innermost frame.
    ir: u64,
    /// The context it came from.
    context: u32,
}

/// Analyses one callgrind dump (the text of one `cg.out.N` file).
///
/// Every chain is cut at the outermost `opts.marker` frame: the marker becomes the root
/// frame `opts.root` (its own instructions are the root's self cost) and the frames above it
/// are dropped. A chain with a cost that does not reach the marker (callgrind kept only
/// `--separate-callers` callers) hangs under a [`DEEPER`] frame below the root. Function
/// totals cover the frames below the root (neither the root nor `[deeper]`), each function
/// named by its innermost frame and keyed with its object. Callgrind's recursion levels are
/// dropped (`f'2` is `f`).
///
/// Errors: a line that breaks the format (with its number), or a dump with instructions
/// where no chain reaches the marker ([`ParseError::NoMarker`]).
pub fn analyse(text: &str, opts: &AnalysisOptions) -> Result<OpAnalysis, ParseError> {
    analyse_with(text, opts, &NoInlines)
}

/// [`analyse()`], with the primitive shares looking through inlined frames: where no real
/// frame of a stack decides its primitive, each instruction address of its innermost function
/// (a dump taken with `--dump-instr=yes`) goes to the outermost frame at that address that
/// `inlines` names and the classifier knows, by function name or source file; the rest is
/// [`Primitive::Other`]. [`OpAnalysis::inlined_instructions`] says how many were so decided.
pub fn analyse_with(
    text: &str,
    opts: &AnalysisOptions,
    inlines: &dyn Inlines,
) -> Result<OpAnalysis, ParseError> {
    let dump = parse::parse(text)?;
    let mut frames = Frames::default();
    let root = frames.id(&opts.root);
    let deeper = frames.id(DEEPER);

    let chains: Vec<Chain> = dump
        .contexts
        .iter()
        .map(|c| split_chain(&c.name, &mut frames, &opts.marker))
        .collect();
    let by_name: HashMap<&str, u32> = dump
        .contexts
        .iter()
        .enumerate()
        .map(|(i, c)| (c.name.as_str(), i as u32))
        .collect();
    let fallback = objects_by_name(&dump, &chains);
    let stacks = stacks(&dump, &chains, &by_name, &fallback, deeper);

    let instructions: u64 = stacks.iter().map(|s| s.ir).sum();
    if instructions > 0 && chains.iter().all(|c| c.marker.is_none()) {
        return Err(ParseError::NoMarker(opts.marker.clone()));
    }
    let truncated_instructions = stacks
        .iter()
        .filter(|s| s.frames.first() == Some(&deeper))
        .map(|s| s.ir)
        .sum();

    let (shares, inlined_instructions) = primitive_shares(
        &dump,
        &stacks,
        &frames,
        deeper,
        &Classifier::new(&opts.provider),
        inlines,
    );

    Ok(OpAnalysis {
        instructions,
        cache: cache(&dump),
        functions: functions(&dump, &chains, &stacks, &frames, deeper, opts.max_functions),
        tree: tree(&stacks, &frames, root, instructions, opts),
        lines: lines(&dump, &stacks, &frames, opts.hot_lines),
        shares,
        folded: folded(&stacks, &frames, &opts.root),
        truncated_instructions,
        inlined_instructions,
    })
}

/// Each stack's self cost to the outermost of its real frames that belongs to a primitive;
/// where none does, each address of its innermost function to the outermost frame there that
/// `inlines` names and the classifier knows; the rest to [`Primitive::Other`]. The shares in
/// [`Primitive::ALL`] order, and the instructions decided by an inlined frame.
fn primitive_shares(
    dump: &Dump,
    stacks: &[Stack],
    frames: &Frames,
    deeper: u32,
    classifier: &Classifier,
    inlines: &dyn Inlines,
) -> (Vec<Share>, u64) {
    let mut class: HashMap<u32, Option<Primitive>> = HashMap::new();
    let mut shares: HashMap<Primitive, u64> = HashMap::new();
    let mut addresses: HashMap<u32, Vec<(u64, u64)>> = HashMap::new();
    for (&(ctx, address), &ir) in &dump.addresses {
        addresses.entry(ctx).or_default().push((address, ir));
    }
    let mut inlined_instructions = 0;
    for s in stacks {
        let p = chain_primitive(
            classifier,
            &mut class,
            s.frames.iter().filter(|&&f| f != deeper).copied(),
            &frames.names,
        );
        if let Some(p) = p {
            *shares.entry(p).or_default() += s.ir;
            continue;
        }
        let object = s
            .objects
            .last()
            .filter(|&&o| o != NO_OBJECT)
            .and_then(|&o| dump.objects.get(o as usize));
        let mut left = s.ir;
        if let (Some(object), Some(list)) = (object, addresses.get(&s.context)) {
            for &(address, ir) in list {
                let at = inlines.frames(object, address);
                if let Some(p) = at.iter().find_map(|f| classifier.classify_frame(f)) {
                    // (Never more than the stack's own cost: the shares sum to the total.)
                    let ir = ir.min(left);
                    *shares.entry(p).or_default() += ir;
                    inlined_instructions += ir;
                    left -= ir;
                }
            }
        }
        *shares.entry(Primitive::Other).or_default() += left;
    }
    let shares = Primitive::ALL
        .iter()
        .map(|&p| Share {
            primitive: p,
            instructions: shares.get(&p).copied().unwrap_or(0),
        })
        .collect();
    (shares, inlined_instructions)
}

/// The primitive of a call chain (frame ids outermost first, `names[id]` naming each): that of
/// its outermost frame the classifier knows, so that AES inside a DRBG counts as the RNG and
/// the code a Keccak function calls counts as Keccak; `None` when no frame decides. `memo`
/// keeps each frame's verdict.
pub(crate) fn chain_primitive(
    classifier: &Classifier,
    memo: &mut HashMap<u32, Option<Primitive>>,
    chain: impl IntoIterator<Item = u32>,
    names: &[&str],
) -> Option<Primitive> {
    chain.into_iter().find_map(|f| {
        *memo
            .entry(f)
            .or_insert_with(|| classifier.classify(names[f as usize]))
    })
}

/// For each frame name, the object it most often lives in as the innermost function of a
/// context: the object of frames whose own context cannot be found.
fn objects_by_name(dump: &Dump, chains: &[Chain]) -> HashMap<u32, u32> {
    let mut counts: HashMap<(u32, u32), usize> = HashMap::new();
    for (c, chain) in dump.contexts.iter().zip(chains) {
        if let (Some(o), Some(&f)) = (c.object, chain.frames.first()) {
            *counts.entry((f, o)).or_default() += 1;
        }
    }
    let mut best: HashMap<u32, (usize, u32)> = HashMap::new();
    for ((f, o), n) in counts {
        let e = best.entry(f).or_insert((n, o));
        if (n, std::cmp::Reverse(o)) > (e.0, std::cmp::Reverse(e.1)) {
            *e = (n, o);
        }
    }
    best.into_iter().map(|(f, (_, o))| (f, o)).collect()
}

/// The stacks of every context with self instructions. A frame's object is that of the
/// context its suffix of the chain names (its caller's context, and so on), else the
/// object its name usually has.
fn stacks(
    dump: &Dump,
    chains: &[Chain],
    by_name: &HashMap<&str, u32>,
    fallback: &HashMap<u32, u32>,
    deeper: u32,
) -> Vec<Stack> {
    let mut out = Vec::new();
    for (i, (c, chain)) in dump.contexts.iter().zip(chains).enumerate() {
        if c.self_ir == 0 {
            continue;
        }
        let keep = chain.marker.unwrap_or(chain.frames.len());
        // Objects innermost first, following the chain of caller contexts while it exists.
        let mut objects = Vec::with_capacity(keep);
        let mut ctx = Some(i as u32);
        for j in 0..keep {
            let object = ctx.and_then(|k| dump.contexts[k as usize].object);
            objects.push(
                object
                    .or_else(|| fallback.get(&chain.frames[j]).copied())
                    .unwrap_or(NO_OBJECT),
            );
            ctx = ctx.and_then(|k| {
                let (name, chain) = (&dump.contexts[k as usize].name, &chains[k as usize]);
                chain
                    .starts
                    .get(1)
                    .and_then(|&s| by_name.get(&name[s..]).copied())
            });
        }
        let mut frames: Vec<u32> = chain.frames[..keep].iter().rev().copied().collect();
        objects.reverse();
        if chain.marker.is_none() {
            frames.insert(0, deeper);
            objects.insert(0, NO_OBJECT);
        }
        out.push(Stack {
            frames,
            objects,
            ir: c.self_ir,
            context: i as u32,
        });
    }
    out
}

/// The cache counts from the dump's events, when it simulated caches.
fn cache(dump: &Dump) -> Option<CacheCounts> {
    let get = |name: &str| dump.event(name).map(|i| dump.self_totals[i]);
    let (ir, dr, dw) = (get("Ir")?, get("Dr")?, get("Dw")?);
    let (i1, d1r, d1w) = (get("I1mr")?, get("D1mr")?, get("D1mw")?);
    let (ilr, dlr, dlw) = (get("ILmr")?, get("DLmr")?, get("DLmw")?);
    let accesses = ir + dr + dw;
    let l1_misses = i1 + d1r + d1w;
    let ll = ilr + dlr + dlw;
    let l1_hits = accesses.saturating_sub(l1_misses);
    let ll_hits = l1_misses.saturating_sub(ll);
    Some(CacheCounts {
        data_refs: dr + dw,
        i1_misses: i1,
        d1_misses: d1r + d1w,
        ll_misses: ll,
        estimated_cycles: l1_hits + 5 * ll_hits + 35 * ll,
    })
}

/// Per (function, object): self, inclusive (each stack once) and calls made inside the
/// marker; the hottest by inclusive cost.
fn functions(
    dump: &Dump,
    chains: &[Chain],
    stacks: &[Stack],
    frames: &Frames,
    deeper: u32,
    max: usize,
) -> Vec<FunctionCost> {
    #[derive(Default)]
    struct Agg {
        self_ir: u64,
        inclusive: u64,
        calls: u64,
        last: usize,
    }
    let mut agg: HashMap<(u32, u32), Agg> = HashMap::new();
    for (n, s) in stacks.iter().enumerate() {
        for (k, (&f, &o)) in s.frames.iter().zip(&s.objects).enumerate() {
            if f == deeper {
                continue;
            }
            let a = agg.entry((f, o)).or_insert(Agg {
                last: usize::MAX,
                ..Agg::default()
            });
            if a.last != n {
                a.last = n;
                a.inclusive += s.ir;
            }
            if k + 1 == s.frames.len() {
                a.self_ir += s.ir;
            }
        }
    }
    // A call counts when its caller ran inside the marker (its chain reaches the marker, or
    // is deeper and has a cost) and its callee is below the marker (not the marker itself).
    let inside = |c: u32| {
        let chain = &chains[c as usize];
        chain.marker.is_some() || dump.contexts[c as usize].self_ir > 0
    };
    for call in &dump.calls {
        let chain = &chains[call.callee as usize];
        if chain.marker == Some(0) || chain.frames.is_empty() || !inside(call.caller) {
            continue;
        }
        let object = dump.contexts[call.callee as usize]
            .object
            .unwrap_or(NO_OBJECT);
        if let Some(a) = agg.get_mut(&(chain.frames[0], object)) {
            a.calls += call.count;
        }
    }
    let mut out: Vec<FunctionCost> = agg
        .into_iter()
        .map(|((f, o), a)| FunctionCost {
            name: frames.names[f as usize].to_string(),
            object: object_name(dump, o),
            self_instructions: a.self_ir,
            inclusive_instructions: a.inclusive,
            calls: a.calls,
        })
        .collect();
    out.sort_by(|a, b| {
        b.inclusive_instructions
            .cmp(&a.inclusive_instructions)
            .then(b.self_instructions.cmp(&a.self_instructions))
            .then_with(|| a.name.cmp(&b.name))
            .then_with(|| a.object.cmp(&b.object))
    });
    out.truncate(max);
    out
}

/// The file name of an object (`libc.so.6`, `kembench`), `???` when unknown.
fn object_name(dump: &Dump, object: u32) -> String {
    match dump.objects.get(object as usize) {
        Some(path) => path.rsplit('/').next().unwrap_or(path).to_string(),
        None => "???".into(),
    }
}

/// The hot-path tree: the trie of the stacks, pruned and depth-limited.
fn tree(
    stacks: &[Stack],
    frames: &Frames,
    root: u32,
    total: u64,
    opts: &AnalysisOptions,
) -> HotNode {
    hot_tree(
        stacks.iter().map(|s| (&s.frames[..], s.ir)),
        &frames.names,
        root,
        total,
        opts.tree_depth,
        opts.tree_threshold,
    )
}

/// The hot-path tree of `stacks` (frame ids outermost first, below the root, with their self
/// cost; `names[id]` names a frame): the trie of the stacks under the frame `root`, each node
/// with its inclusive cost, children under `threshold` × `total` pruned, `depth` levels below
/// the root at most. Callgrind's stacks and the QEMU plugin's both come through here.
pub(crate) fn hot_tree<'s>(
    stacks: impl IntoIterator<Item = (&'s [u32], u64)>,
    names: &[&str],
    root: u32,
    total: u64,
    depth: usize,
    threshold: f64,
) -> HotNode {
    struct Node {
        frame: u32,
        cost: u64,
        children: HashMap<u32, usize>,
    }
    let mut nodes = vec![Node {
        frame: root,
        cost: 0,
        children: HashMap::new(),
    }];
    for (frames, ir) in stacks {
        let mut at = 0;
        nodes[0].cost += ir;
        for &f in frames {
            let next = match nodes[at].children.get(&f) {
                Some(&n) => n,
                None => {
                    nodes.push(Node {
                        frame: f,
                        cost: 0,
                        children: HashMap::new(),
                    });
                    let n = nodes.len() - 1;
                    nodes[at].children.insert(f, n);
                    n
                }
            };
            nodes[next].cost += ir;
            at = next;
        }
    }
    let floor = threshold * total as f64;
    fn build(
        nodes: &[Node],
        at: usize,
        parent: u64,
        level: usize,
        floor: f64,
        names: &[&str],
        depth: usize,
    ) -> HotNode {
        let node = &nodes[at];
        let mut children: Vec<usize> = if level < depth {
            node.children
                .values()
                .copied()
                .filter(|&c| nodes[c].cost > 0 && nodes[c].cost as f64 >= floor)
                .collect()
        } else {
            Vec::new()
        };
        children.sort_by(|&a, &b| {
            nodes[b]
                .cost
                .cmp(&nodes[a].cost)
                .then_with(|| names[nodes[a].frame as usize].cmp(names[nodes[b].frame as usize]))
        });
        HotNode {
            name: names[node.frame as usize].to_string(),
            instructions: node.cost,
            share_of_parent: if parent == 0 {
                1.0
            } else {
                node.cost as f64 / parent as f64
            },
            children: children
                .into_iter()
                .map(|c| build(nodes, c, node.cost, level + 1, floor, names, depth))
                .collect(),
        }
    }
    build(&nodes, 0, 0, 0, floor, names, depth)
}

/// Per-line self costs of the `count` functions with the most self instructions among those
/// with line information, in the file where most of their instructions are.
fn lines(dump: &Dump, stacks: &[Stack], frames: &Frames, count: usize) -> Vec<FunctionLines> {
    // (frame, object) → file → line → instructions
    type PerFile = HashMap<u32, HashMap<u32, u64>>;
    let mut by_fn: HashMap<(u32, u32), PerFile> = HashMap::new();
    let mut self_ir: HashMap<(u32, u32), u64> = HashMap::new();
    let mut key_of: HashMap<u32, (u32, u32)> = HashMap::new();
    for s in stacks {
        let (Some(&f), Some(&o)) = (s.frames.last(), s.objects.last()) else {
            continue;
        };
        key_of.insert(s.context, (f, o));
        *self_ir.entry((f, o)).or_default() += s.ir;
    }
    let unknown = |file: u32| {
        dump.files
            .get(file as usize)
            .is_none_or(|name| name.is_empty() || name == "???")
    };
    for (&(ctx, file, line), &ir) in &dump.lines {
        if line == 0 || unknown(file) {
            continue;
        }
        if let Some(key) = key_of.get(&ctx) {
            *by_fn
                .entry(*key)
                .or_default()
                .entry(file)
                .or_default()
                .entry(line)
                .or_default() += ir;
        }
    }
    let mut hot: Vec<((u32, u32), u64)> = by_fn.keys().map(|k| (*k, self_ir[k])).collect();
    hot.sort_by(|a, b| {
        b.1.cmp(&a.1)
            .then_with(|| frames.names[a.0 .0 as usize].cmp(frames.names[b.0 .0 as usize]))
    });
    hot.truncate(count);
    hot.into_iter()
        .map(|(key, _)| {
            let per_file = &by_fn[&key];
            let (&file, per_line) = per_file
                .iter()
                .max_by(|a, b| {
                    let sum = |m: &HashMap<u32, u64>| m.values().sum::<u64>();
                    sum(a.1)
                        .cmp(&sum(b.1))
                        .then_with(|| dump.files[*b.0 as usize].cmp(&dump.files[*a.0 as usize]))
                })
                .expect("a function with line information has a file");
            let mut lines: Vec<LineCost> = per_line
                .iter()
                .map(|(&line, &instructions)| LineCost { line, instructions })
                .collect();
            lines.sort_by(|a, b| {
                b.instructions
                    .cmp(&a.instructions)
                    .then(a.line.cmp(&b.line))
            });
            lines.truncate(LINES_PER_FUNCTION);
            FunctionLines {
                function: frames.names[key.0 as usize].to_string(),
                file: dump.files[file as usize].clone(),
                lines,
            }
        })
        .collect()
}

/// A frame name fit for the folded format: `;` separates frames there.
pub(crate) fn folded_frame(name: &str) -> std::borrow::Cow<'_, str> {
    if name.contains(';') {
        name.replace(';', ",").into()
    } else {
        name.into()
    }
}

/// The folded stacks, identical ones merged, sorted by stack.
fn folded(stacks: &[Stack], frames: &Frames, root: &str) -> Vec<FoldedStack> {
    let mut merged: HashMap<String, u64> = HashMap::new();
    for s in stacks {
        let mut line = String::from(folded_frame(root));
        for &f in &s.frames {
            line.push(';');
            line.push_str(&folded_frame(frames.names[f as usize]));
        }
        *merged.entry(line).or_default() += s.ir;
    }
    let mut out: Vec<FoldedStack> = merged
        .into_iter()
        .map(|(stack, instructions)| FoldedStack {
            stack,
            instructions,
        })
        .collect();
    out.sort_by(|a, b| a.stack.cmp(&b.stack));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::callgrind::InlineFrame;

    /// A dump in `testdata/` (see its README for how each was taken).
    struct Fixture {
        text: &'static str,
        marker: &'static str,
        provider: &'static str,
    }

    /// A fixture: its file in `testdata/`, the marker it was taken with, the provider.
    macro_rules! fixture {
        ($file:literal, $marker:literal, $provider:literal) => {
            Fixture {
                text: include_str!(concat!("testdata/", $file)),
                marker: $marker,
                provider: $provider,
            }
        };
    }

    const LIBOQS_MLKEM: Fixture =
        fixture!("liboqs-mlkem768-keygen.cg", "OQS_KEM_keypair", "liboqs");
    const LIBOQS_FRODO_AES: Fixture = fixture!(
        "liboqs-frodokem640aes-keygen.cg",
        "OQS_KEM_keypair",
        "liboqs"
    );
    const PQCLEAN_AVX2: Fixture = fixture!(
        "pqclean-mlkem768-avx2-keygen.cg",
        "PQCLEAN_MLKEM768_AVX2_crypto_kem_keypair",
        "pqclean"
    );
    const PQCLEAN_CALLERS4: Fixture = fixture!(
        "pqclean-mlkem768-clean-keygen-callers4.cg",
        "PQCLEAN_MLKEM768_CLEAN_crypto_kem_keypair",
        "pqclean"
    );
    const OPENSSL_X25519: Fixture =
        fixture!("openssl-x25519-derive.cg", "EVP_PKEY_derive", "openssl");
    const AWSLC_X25519: Fixture = fixture!(
        "awslc-x25519-keygen.cg",
        "aws_lc_0_47_0_X25519_keypair",
        "aws-lc"
    );
    const LIBCRUX: Fixture = fixture!(
        "libcrux-mlkem768-avx2-keygen.cg",
        "<kembench::providers::libcrux::Libcrux as kembench::kem::Kem>::keypair_kept_raw",
        "libcrux"
    );
    const RUSTCRYPTO: Fixture = fixture!(
        "rustcrypto-mlkem768-keygen.cg",
        "<kembench::providers::rustcrypto::RustCrypto768 as kembench::kem::Kem>::keypair_kept_raw",
        "rustcrypto"
    );
    const ALL: [&Fixture; 8] = [
        &LIBOQS_MLKEM,
        &LIBOQS_FRODO_AES,
        &PQCLEAN_AVX2,
        &PQCLEAN_CALLERS4,
        &OPENSSL_X25519,
        &AWSLC_X25519,
        &LIBCRUX,
        &RUSTCRYPTO,
    ];

    fn options(f: &Fixture) -> AnalysisOptions {
        AnalysisOptions {
            root: "keygen".into(),
            marker: f.marker.into(),
            provider: f.provider.into(),
            ..AnalysisOptions::default()
        }
    }

    fn analysed(f: &Fixture) -> OpAnalysis {
        analyse(f.text, &options(f)).unwrap()
    }

    /// The `totals:` line's first figure (instructions).
    fn totals_ir(text: &str) -> u64 {
        let line = text.lines().find(|l| l.starts_with("totals:")).unwrap();
        line[7..]
            .split_whitespace()
            .next()
            .unwrap()
            .parse()
            .unwrap()
    }

    /// Every node's instructions cover its children's, shares are consistent, children are
    /// hottest first.
    fn check_tree(n: &HotNode, depth: usize, opts: &AnalysisOptions, total: u64) {
        assert!(depth <= opts.tree_depth, "{} is too deep", n.name);
        let sum: u64 = n.children.iter().map(|c| c.instructions).sum();
        assert!(
            sum <= n.instructions,
            "{}: children exceed the node",
            n.name
        );
        for w in n.children.windows(2) {
            assert!(w[0].instructions >= w[1].instructions);
        }
        for c in &n.children {
            assert!(c.instructions as f64 >= opts.tree_threshold * total as f64);
            let share = c.instructions as f64 / n.instructions as f64;
            assert!((c.share_of_parent - share).abs() < 1e-12);
            check_tree(c, depth + 1, opts, total);
        }
    }

    #[test]
    fn every_fixture_adds_up() {
        for f in ALL {
            let opts = options(f);
            let a = analyse(f.text, &opts).unwrap();
            let who = f.marker;
            assert!(a.instructions > 0, "{who}");
            assert_eq!(
                a.instructions,
                totals_ir(f.text),
                "{who}: callgrind's totals"
            );
            let folded: u64 = a.folded.iter().map(|s| s.instructions).sum();
            assert_eq!(folded, a.instructions, "{who}: folded stacks");
            let shares: u64 = a.shares.iter().map(|s| s.instructions).sum();
            assert_eq!(shares, a.instructions, "{who}: shares");
            let order: Vec<Primitive> = a.shares.iter().map(|s| s.primitive).collect();
            assert_eq!(order, Primitive::ALL);
            assert_eq!(a.tree.name, "keygen");
            assert_eq!(a.tree.instructions, a.instructions);
            assert_eq!(a.tree.share_of_parent, 1.0);
            check_tree(&a.tree, 0, &opts, a.instructions);
            // Folded stacks: rooted, sorted, merged, `;` only between frames.
            for w in a.folded.windows(2) {
                assert!(w[0].stack < w[1].stack, "{who}: sorted and merged");
            }
            for s in &a.folded {
                assert!(
                    s.stack == "keygen" || s.stack.starts_with("keygen;"),
                    "{}",
                    s.stack
                );
                assert!(!s.stack.contains(";;"));
                assert!(!s.stack.split(';').skip(1).any(|fr| fr == f.marker));
            }
            // Functions: the hottest by inclusive cost, never the marker (it is the root).
            assert!(!a.functions.is_empty() && a.functions.len() <= opts.max_functions);
            for w in a.functions.windows(2) {
                assert!(w[0].inclusive_instructions >= w[1].inclusive_instructions);
            }
            for func in &a.functions {
                assert_ne!(func.name, f.marker);
                assert!(func.self_instructions <= func.inclusive_instructions);
                assert!(func.inclusive_instructions <= a.instructions);
                let inclusive = a.inclusive_of(|fr| fr == func.name);
                assert!(func.inclusive_instructions <= inclusive, "{}", func.name);
            }
            let cache = a.cache.clone().expect("the fixtures simulated caches");
            assert!(cache.data_refs > 0 && cache.estimated_cycles >= a.instructions);
            assert!(a.lines.len() <= opts.hot_lines);
        }
    }

    #[test]
    fn liboqs_mlkem_keygen_is_mostly_keccak() {
        let a = analysed(&LIBOQS_MLKEM);
        assert!(a.share(Primitive::Keccak) > 0.7, "{:?}", a.shares);
        assert_eq!(a.share(Primitive::Bignum), 0.0);
        assert_eq!(a.share(Primitive::Aes), 0.0);
        assert!(a.share(Primitive::Rng) > 0.0, "OQS_randombytes ran");
        assert_eq!(a.truncated_instructions, 0);
        // The 4-way permutation is a function of its own, called 8 times.
        let x4 = a
            .functions
            .iter()
            .find(|f| f.name == "KeccakP1600times4_PermuteAll_24rounds_avx2")
            .unwrap();
        assert_eq!(x4.self_instructions, x4.inclusive_instructions);
        assert_eq!(x4.calls, 8);
        assert_eq!(x4.object, "kembench");
        // The tree starts at the operation and follows the hot path.
        assert_eq!(a.tree.children[0].name, "OQS_KEM_ml_kem_768_keypair");
    }

    #[test]
    fn liboqs_frodokem_aes_splits_aes_and_keccak() {
        let a = analysed(&LIBOQS_FRODO_AES);
        assert!(a.share(Primitive::Aes) > 0.2, "{:?}", a.shares);
        assert!(a.share(Primitive::Keccak) > 0.1, "{:?}", a.shares);
        assert_eq!(a.share(Primitive::Bignum), 0.0);
        assert!(a.share(Primitive::Other) > 0.4, "the matrix arithmetic");
    }

    #[test]
    fn pqclean_mlkem_keygen_is_mostly_keccak() {
        let a = analysed(&PQCLEAN_AVX2);
        assert!(a.share(Primitive::Keccak) > 0.8, "{:?}", a.shares);
        assert!(
            a.share(Primitive::Rng) > 0.0,
            "PQCRYPTO_RUST_randombytes ran"
        );
        assert_eq!(a.share(Primitive::Bignum) + a.share(Primitive::Aes), 0.0);
    }

    #[test]
    fn x25519_is_bignum_at_openssl_and_aws_lc() {
        let a = analysed(&OPENSSL_X25519);
        assert!(a.share(Primitive::Bignum) > 0.95, "{:?}", a.shares);
        let a = analysed(&AWSLC_X25519);
        assert!(a.share(Primitive::Bignum) > 0.9, "{:?}", a.shares);
        // The private key comes from RAND_bytes: its CTR-DRBG's AES counts as the RNG.
        assert!(a.share(Primitive::Rng) > 0.01, "{:?}", a.shares);
        assert_eq!(a.share(Primitive::Aes), 0.0);
        assert!(a
            .folded
            .iter()
            .any(|s| s.stack.contains("CTR_DRBG_generate") && s.stack.contains("aes_hw_")));
    }

    #[test]
    fn rust_providers_find_their_keccak() {
        let a = analysed(&LIBCRUX);
        // Much of libcrux's AVX2 Keccak is inlined into the operation; the rest is found.
        assert!(a.share(Primitive::Keccak) > 0.3, "{:?}", a.shares);
        let a = analysed(&RUSTCRYPTO);
        assert!(a.share(Primitive::Keccak) > 0.3, "{:?}", a.shares);
        assert_eq!(a.share(Primitive::Bignum) + a.share(Primitive::Aes), 0.0);
    }

    #[test]
    fn chains_cut_short_go_under_deeper() {
        // Taken with --separate-callers=4: most chains stop before the marker.
        let a = analysed(&PQCLEAN_CALLERS4);
        assert!(a.truncated_instructions > a.instructions / 2);
        let deeper: u64 = a
            .folded
            .iter()
            .filter(|s| s.stack.starts_with("keygen;[deeper];"))
            .map(|s| s.instructions)
            .sum();
        assert_eq!(deeper, a.truncated_instructions);
        assert!(a.tree.children.iter().any(|c| c.name == DEEPER));
        assert!(a.functions.iter().all(|f| f.name != DEEPER));
    }

    #[test]
    fn hot_lines_from_the_line_tables() {
        let a = analysed(&OPENSSL_X25519);
        assert!(!a.lines.is_empty());
        for f in &a.lines {
            assert!(!f.lines.is_empty() && f.lines.len() <= LINES_PER_FUNCTION);
            assert!(f.file != "???" && !f.file.is_empty());
            for w in f.lines.windows(2) {
                assert!(w[0].instructions >= w[1].instructions);
            }
            assert!(f.lines.iter().all(|l| l.line > 0));
        }
        assert_eq!(a.lines[0].function, "x25519_fe51_mul");
        assert!(a.lines[0].file.ends_with("crypto/ec/x25519-x86_64.s"));
        let ladder = a
            .lines
            .iter()
            .find(|f| f.function == "x25519_scalar_mult")
            .unwrap();
        assert!(
            ladder.file.ends_with("crypto/ec/curve25519.c"),
            "{}",
            ladder.file
        );
        let one = AnalysisOptions {
            hot_lines: 1,
            ..options(&OPENSSL_X25519)
        };
        assert_eq!(analyse(OPENSSL_X25519.text, &one).unwrap().lines.len(), 1);
    }

    #[test]
    fn tree_depth_and_threshold() {
        let f = &LIBOQS_MLKEM;
        let shallow = AnalysisOptions {
            tree_depth: 1,
            ..options(f)
        };
        let a = analyse(f.text, &shallow).unwrap();
        assert!(!a.tree.children.is_empty());
        assert!(a.tree.children.iter().all(|c| c.children.is_empty()));
        let coarse = AnalysisOptions {
            tree_threshold: 0.5,
            ..options(f)
        };
        fn count(n: &HotNode) -> usize {
            1 + n.children.iter().map(count).sum::<usize>()
        }
        let a = analyse(f.text, &coarse).unwrap();
        let b = analysed(f);
        assert!(count(&a.tree) < count(&b.tree));
        let few = AnalysisOptions {
            max_functions: 3,
            ..options(f)
        };
        assert_eq!(analyse(f.text, &few).unwrap().functions.len(), 3);
    }

    /// A dump with only instructions, one context per `(chain, self)` and calls
    /// `(caller, callee, count)`.
    fn synthetic(contexts: &[(&str, u64)], calls: &[(&str, &str, u64)]) -> String {
        let mut t = String::from("# callgrind format\nevents: Ir\n\nob=/bin/prog\nfl=a.c\n");
        for (chain, ir) in contexts {
            t.push_str(&format!("fn={chain}\n1 {ir}\n"));
            for (_, callee, n) in calls.iter().filter(|c| c.0 == *chain) {
                t.push_str(&format!("cfn={callee}\ncalls={n} 1\n2 1\n"));
            }
            t.push('\n');
        }
        let total: u64 = contexts.iter().map(|c| c.1).sum();
        t.push_str(&format!("totals: {total}\n"));
        t
    }

    fn opts(provider: &str) -> AnalysisOptions {
        AnalysisOptions {
            root: "op".into(),
            marker: "M".into(),
            provider: provider.into(),
            ..AnalysisOptions::default()
        }
    }

    #[test]
    fn the_outermost_primitive_decides() {
        let text = synthetic(
            &[
                ("M'worker'main", 5),
                ("OQS_KEM_keypair'M'worker'main", 10),
                // AES inside the DRBG is the RNG.
                ("aesni_ctr32_encrypt_blocks'drbg_ctr_generate'RAND_bytes_ex'OQS_KEM_keypair'M'worker'main", 100),
                // A copy inside Keccak is Keccak.
                ("memcpy'SHA3_absorb'ossl_sha3_update'OQS_KEM_keypair'M'worker'main", 20),
                // The probe around liboqs's SHA-3 decides nothing: its callee does.
                ("KeccakF1600'kembench_sha3_probe_shake128'OQS_KEM_keypair'M'worker'main", 40),
                ("kembench_sha3_probe_shake128'OQS_KEM_keypair'M'worker'main", 3),
                ("BN_mod_mul_montgomery'OQS_KEM_keypair'M'worker'main", 7),
            ],
            &[],
        );
        let a = analyse(&text, &opts("openssl")).unwrap();
        let share = |p| {
            a.shares
                .iter()
                .find(|s| s.primitive == p)
                .unwrap()
                .instructions
        };
        assert_eq!(share(Primitive::Rng), 100);
        assert_eq!(share(Primitive::Aes), 0);
        assert_eq!(share(Primitive::Keccak), 60);
        assert_eq!(share(Primitive::Bignum), 7);
        assert_eq!(share(Primitive::Other), 5 + 10 + 3);
        assert_eq!(a.instructions, 185);
        assert_eq!(a.truncated_instructions, 0);
    }

    #[test]
    fn functions_count_recursion_once_and_calls_inside_only() {
        let text = synthetic(
            &[
                ("M'worker", 1),
                ("f'M'worker", 10),
                ("f'2'f'M'worker", 20),
                ("g'f'2'f'M'worker", 5),
                ("worker", 0),
            ],
            &[
                ("worker", "M'worker", 1),
                ("M'worker", "f'M'worker", 2),
                ("f'M'worker", "f'2'f'M'worker", 3),
                ("f'2'f'M'worker", "g'f'2'f'M'worker", 4),
            ],
        );
        let a = analyse(&text, &opts("")).unwrap();
        let f = a.functions.iter().find(|x| x.name == "f").unwrap();
        assert_eq!(f.self_instructions, 30);
        assert_eq!(f.inclusive_instructions, 35, "each stack once");
        assert_eq!(f.calls, 5);
        assert_eq!(f.object, "prog");
        let g = a.functions.iter().find(|x| x.name == "g").unwrap();
        assert_eq!(
            (g.self_instructions, g.inclusive_instructions, g.calls),
            (5, 5, 4)
        );
        assert!(a
            .functions
            .iter()
            .all(|x| x.name != "M" && x.name != "worker"));
        // `f'2` is f at recursion depth 2, not a frame called `2`.
        assert!(a.folded.iter().any(|s| s.stack == "op;f;f;g"));
        assert_eq!(a.inclusive_of(|fr| fr == "f"), 35);
        assert_eq!(a.tree.children[0].name, "f");
        assert_eq!(a.tree.children[0].instructions, 35);
        assert_eq!(a.tree.instructions, 36);
    }

    #[test]
    fn folded_frames_keep_semicolons_out() {
        let text = synthetic(
            &[
                ("M'w", 1),
                ("<[u8; 32] as core::fmt::Debug>::fmt'M'w", 4),
                ("<[u8; 32] as core::fmt::Debug>::fmt'M'w", 2),
            ],
            &[],
        );
        let a = analyse(&text, &opts("")).unwrap();
        assert_eq!(a.folded.len(), 2);
        assert_eq!(a.folded[1].stack, "op;<[u8, 32] as core::fmt::Debug>::fmt");
        assert_eq!(a.folded[1].instructions, 6);
        assert_eq!(a.functions[0].name, "<[u8; 32] as core::fmt::Debug>::fmt");
    }

    #[test]
    fn a_dump_without_the_marker_is_an_error() {
        let text = synthetic(&[("f'main", 10)], &[]);
        assert_eq!(
            analyse(&text, &opts("")).unwrap_err(),
            ParseError::NoMarker("M".into())
        );
        // An empty dump is an empty operation.
        let a = analyse("events: Ir\ntotals: 0\n", &opts("")).unwrap();
        assert_eq!(a.instructions, 0);
        assert_eq!(a.tree.instructions, 0);
        assert!(a.folded.is_empty() && a.functions.is_empty());
        assert_eq!(a.cache, None);
    }

    #[test]
    fn cache_counts_follow_the_model() {
        let text =
            "events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\nfn=M\n1 1000 300 100 10 20 5 2 3 1\n";
        let a = analyse(text, &opts("")).unwrap();
        let c = a.cache.unwrap();
        assert_eq!(c.data_refs, 400);
        assert_eq!(c.i1_misses, 10);
        assert_eq!(c.d1_misses, 25);
        assert_eq!(c.ll_misses, 6);
        // accesses 1400, L1 misses 35 → L1 hits 1365, LL hits 29, RAM 6.
        assert_eq!(c.estimated_cycles, 1365 + 5 * 29 + 35 * 6);
    }

    #[test]
    fn geometry_of_a_real_dump() {
        assert_eq!(
            super::super::cache_geometry(LIBOQS_MLKEM.text).as_deref(),
            Some("I1 32 KiB 8-way 64 B lines, D1 32 KiB 8-way, LL 8 MiB 16-way")
        );
    }

    #[test]
    fn deep_chains_at_scale() {
        // 3,000 contexts with 100-frame chains (a few MB, like an OpenSSL dump).
        let mut text = String::from("events: Ir\nob=/bin/prog\nfl=a.c\n");
        let base: Vec<String> = (0..96).map(|i| format!("ossl_frame_{i}")).collect();
        let tail = format!("{}'M'worker'main", base.join("'"));
        let mut total = 0;
        for i in 0..3000u64 {
            text.push_str(&format!("fn=leaf_{i}'mid_{}'{tail}\n", i % 7));
            for l in 0..5 {
                text.push_str(&format!("{} {}\n", 100 + l, i + l));
                total += i + l;
            }
        }
        let t = std::time::Instant::now();
        let a = analyse(&text, &opts("openssl")).unwrap();
        let took = t.elapsed();
        assert_eq!(a.instructions, total);
        assert_eq!(a.folded.len(), 3000);
        assert_eq!(a.truncated_instructions, 0);
        assert!(
            took.as_secs_f64() < 5.0,
            "{} MB took {took:?}",
            text.len() >> 20
        );
    }

    /// Inline frames an analysis is told about: (object, address) → frames, outermost first.
    struct Told(Vec<((&'static str, u64), Vec<InlineFrame>)>);

    impl Inlines for Told {
        fn frames(&self, object: &str, address: u64) -> Vec<InlineFrame> {
            self.0
                .iter()
                .find(|((o, a), _)| *o == object && *a == address)
                .map(|(_, f)| f.clone())
                .unwrap_or_default()
        }
    }

    fn frame(function: &str, file: &str) -> InlineFrame {
        InlineFrame {
            function: function.into(),
            file: file.into(),
        }
    }

    /// Where no real frame decides, each address of the innermost function goes to the
    /// outermost inlined frame there that names a primitive (by file or name); the rest, and
    /// everything without debug information, is other. A real frame that decides is never
    /// overruled by what is inlined below it.
    #[test]
    fn shares_look_through_inlined_frames() {
        let text = "# callgrind format\nevents: Ir\npositions: instr line\n\n\
                    ob=/bin/prog\nfl=a.rs\n\
                    fn=generate_keypair'kembench_profiled_op\n\
                    0x1000 10 700\n0x1004 11 200\n0x1008 12 100\n\n\
                    fn=libcrux_sha3::portable::shake128'kembench_profiled_op\n\
                    0x2000 20 50\n\n\
                    ob=/lib/libc.so.6\nfn=memcpy'generate_keypair'kembench_profiled_op\n\
                    0x3000 0 30\n\ntotals: 1080\n";
        let registry = "/c/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f";
        let sha3 = &format!("{registry}/libcrux-sha3-0.0.11/src/generic_keccak.rs");
        let aes = &format!("{registry}/aes-0.8.4/src/soft.rs");
        let told = Told(vec![
            (
                ("/bin/prog", 0x1000),
                vec![
                    frame("generate_keypair", "/c/ind_cca.rs"),
                    frame("sample_matrix_A<3>", "/c/matrix.rs"),
                    frame("keccakf1600<4>", sha3),
                    frame("_mm256_xor_si256", "/rustc/x/core_arch/src/x86/avx2.rs"),
                ],
            ),
            (
                ("/bin/prog", 0x1004),
                vec![
                    frame("generate_keypair", "/c/ind_cca.rs"),
                    frame("ntt_at_layer_1", "/c/ntt.rs"),
                ],
            ),
            (
                ("/bin/prog", 0x1008),
                vec![
                    frame("generate_keypair", "/c/ind_cca.rs"),
                    frame("encrypt", aes),
                ],
            ),
            // Below a real frame that is Keccak already, an inlined AES frame does not count.
            (
                ("/bin/prog", 0x2000),
                vec![frame("shake128", "/c/sha3.rs"), frame("encrypt", aes)],
            ),
        ]);
        let opts = AnalysisOptions {
            provider: "libcrux/avx2".into(),
            ..AnalysisOptions::default()
        };
        let share = |a: &OpAnalysis, p: Primitive| {
            a.shares
                .iter()
                .find(|s| s.primitive == p)
                .unwrap()
                .instructions
        };
        let a = analyse_with(text, &opts, &told).unwrap();
        assert_eq!(a.instructions, 1080);
        assert_eq!(share(&a, Primitive::Keccak), 700 + 50);
        assert_eq!(
            share(&a, Primitive::Aes),
            100,
            "not the 50 below a Keccak frame"
        );
        assert_eq!(share(&a, Primitive::Other), 200 + 30);
        assert_eq!(a.inlined_instructions, 700 + 100);
        assert_eq!(a.shares.iter().map(|s| s.instructions).sum::<u64>(), 1080);
        // Without debug information, the call chain alone decides, as before.
        let plain = analyse(text, &opts).unwrap();
        assert_eq!(share(&plain, Primitive::Keccak), 50);
        assert_eq!(plain.inlined_instructions, 0);
        // Every other part of the analysis is the same either way.
        assert_eq!(plain.functions, a.functions);
        assert_eq!(plain.folded, a.folded);
    }
}
