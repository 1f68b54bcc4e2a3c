//! `qemu-count`: a QEMU TCG plugin (plugin API version 1, QEMU 7.2 and later) that counts the
//! guest instructions executed between two marker functions, per translation block (TB).
//!
//! kembench loads it into `qemu-user` with
//! `-plugin libqemu_count.so,out=PATH,begin=0xADDR,end=0xADDR[,mem=on|off][,funcs=PATH]` and
//! maps the TB addresses to functions itself. The output format is described in `README.md`.
//!
//! Counting: every TB gets, at translation, a leaked [`Tb`] entry and an exec callback that adds
//! one to the entry while a region is active; the region's instruction count is the sum of
//! `n_insns * execs`. The TBs that start exactly at `begin` or `end` are never counted. An insn
//! callback on the instruction at `begin` opens a region, one on the instruction at `end` writes
//! it out and closes it. With `mem=on`, a memory callback on every instruction counts the loads
//! and stores QEMU reports while a region is active.
//!
//! Call stacks (`funcs=PATH`, the program's function ranges): API v1 gives no registers, so
//! calls and returns are inferred from the order of TB executions against the functions
//! ([`Shadow::enter`]); each execution (and each load and store) is counted per (stack, TB),
//! and a region's `stack` lines are those counts summed per stack, so they sum to its `total`.
//!
//! Licence: GPL-2.0-or-later, as it is built against QEMU's plugin API.

use qemu_plugin_sys::{
    qemu_info_t, qemu_plugin_cb_flags::QEMU_PLUGIN_CB_NO_REGS as NO_REGS, qemu_plugin_id_t,
    qemu_plugin_insn, qemu_plugin_insn_disas, qemu_plugin_insn_size, qemu_plugin_insn_vaddr,
    qemu_plugin_mem_is_store, qemu_plugin_mem_rw::QEMU_PLUGIN_MEM_RW as MEM_RW,
    qemu_plugin_meminfo_t, qemu_plugin_register_atexit_cb, qemu_plugin_register_vcpu_insn_exec_cb,
    qemu_plugin_register_vcpu_mem_cb, qemu_plugin_register_vcpu_tb_exec_cb,
    qemu_plugin_register_vcpu_tb_trans_cb, qemu_plugin_tb, qemu_plugin_tb_get_insn,
    qemu_plugin_tb_n_insns, qemu_plugin_tb_vaddr,
};
use std::collections::{BTreeMap, HashMap};
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::ptr::null_mut;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Mutex, MutexGuard, OnceLock};

/// The plugin API version this plugin was written against (`QEMU_PLUGIN_VERSION` of API v1).
#[no_mangle]
pub static qemu_plugin_version: c_int = 1;

extern "C" {
    /// GLib's `g_free`, resolved in the QEMU process: frees `qemu_plugin_insn_disas`'s strings.
    fn g_free(mem: *mut c_void);
}

/// The parsed plugin arguments.
struct Config {
    /// Address of the first instruction of the begin marker function.
    begin: u64,
    /// Address of the first instruction of the end marker function.
    end: u64,
    /// Whether loads and stores are counted (`mem=on`).
    mem: bool,
    /// The program's functions as `[start, end)` ranges sorted by start (`funcs=PATH`); empty
    /// when no stacks are kept.
    funcs: Vec<(u64, u64)>,
}

/// No function: an address in no range of `funcs`.
const NO_FUNC: u32 = u32::MAX;

/// One translation of a TB, kept for the life of the process (its address is callback udata).
struct Tb {
    /// Guest virtual address of the TB's first instruction.
    vaddr: u64,
    /// Guest virtual address of each of its instructions, as QEMU lists them.
    insns: Box<[u64]>,
    /// Bytes QEMU read of the last instruction (see [`len`]).
    tail_size: usize,
    /// Executions in the current region.
    execs: AtomicU64,
    /// Loads reported in the current region.
    loads: AtomicU64,
    /// Stores reported in the current region.
    stores: AtomicU64,
    /// Whether the entry is in [`State::touched`] for the current region.
    listed: AtomicBool,
    /// The index in [`Config::funcs`] of the function holding `vaddr`, or [`NO_FUNC`].
    func: u32,
    /// Whether `vaddr` is that function's first instruction.
    entry: bool,
}

/// What is known of the instruction at one address.
struct Insn {
    /// Its disassembly, from the translation that read the most bytes of it.
    text: Box<str>,
    /// The bytes that translation read.
    size: usize,
    /// Whether its `insn` line has been written.
    written: bool,
}

/// Everything that is not a hot counter, behind one lock.
struct State {
    /// The output file.
    out: BufWriter<File>,
    /// Number of the next region.
    region: u64,
    /// Each instruction address seen: see [`Insn`].
    insns: HashMap<u64, Insn>,
    /// Entries that counted something in the current region.
    touched: Vec<&'static Tb>,
}

/// One node of a region's calling-context tree: a distinct stack of functions.
struct Node {
    /// The node below it (the caller); the root's is itself.
    parent: u32,
    /// Its innermost function ([`NO_FUNC`] at the root: code before any function).
    func: u32,
    /// Times this stack was entered: pushed, or its function's entry run again on top.
    calls: u64,
    /// Its callees' nodes, by function.
    children: HashMap<u32, u32>,
}

/// The shadow call stack of the open region and its counts per (stack, TB).
struct Shadow {
    /// The calling-context tree; node 0 is the root (the region itself).
    nodes: Vec<Node>,
    /// (function, node) of each frame, outermost first; empty before the first TB.
    stack: Vec<(u32, u32)>,
    /// (node, TB entry address) → executions, loads, stores.
    counts: HashMap<(u32, usize), [u64; 3], BuildFx>,
}

/// A fast, deterministic hasher for small integer keys (the per-TB-execution lookup).
#[derive(Default, Clone, Copy)]
struct BuildFx;

/// See [`BuildFx`]: a multiply-rotate hash (FxHash's), fine for keys nobody chooses adversarially.
#[derive(Default)]
struct Fx(u64);

impl std::hash::BuildHasher for BuildFx {
    type Hasher = Fx;
    fn build_hasher(&self) -> Fx {
        Fx(0)
    }
}

impl std::hash::Hasher for Fx {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        bytes.iter().for_each(|&b| self.write_u64(b as u64));
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_u32(&mut self, v: u32) {
        self.write_u64(v as u64);
    }
    fn write_usize(&mut self, v: usize) {
        self.write_u64(v as u64);
    }
}

impl Shadow {
    fn new() -> Shadow {
        let root = Node {
            parent: 0,
            func: NO_FUNC,
            calls: 0,
            children: HashMap::new(),
        };
        Shadow {
            nodes: vec![root],
            stack: Vec::new(),
            counts: HashMap::with_hasher(BuildFx),
        }
    }

    /// The node of the current stack (the root before the first frame).
    fn top(&self) -> u32 {
        self.stack.last().map_or(0, |f| f.1)
    }

    /// Pushes a frame of `func` on the current stack and counts the entry.
    fn push(&mut self, func: u32) {
        let parent = self.top();
        let next = self.nodes.len() as u32;
        let node = *self.nodes[parent as usize]
            .children
            .entry(func)
            .or_insert(next);
        if node == next {
            self.nodes.push(Node {
                parent,
                func,
                calls: 0,
                children: HashMap::new(),
            });
        }
        self.nodes[node as usize].calls += 1;
        self.stack.push((func, node));
    }

    /// Updates the stack for a TB about to run, from where it starts alone:
    /// - at a function's first instruction: a call (a tail call too), pushed; but when that
    ///   function is already on top, a direct recursive call, counted as an entry of the top
    ///   frame without a new one (nothing would show its returns: the code after them runs in
    ///   the same function, so the inner frame would never be popped; a loop back to a
    ///   function's first instruction reads the same);
    /// - inside a function on the stack but not on top: a return (to its innermost frame);
    /// - inside a function not on the stack (the region's first TB, back in the driver; a
    ///   jump into a `.cold` part; a longjmp): pushed as a frame too;
    /// - in no function (a PLT stub, code without a symbol): no change, its cost is the
    ///   caller's, as callgrind charges it.
    ///
    /// Returns the node the TB's execution counts for.
    fn enter(&mut self, func: u32, entry: bool) -> u32 {
        if func == NO_FUNC {
            return self.top();
        }
        match self.stack.iter().rposition(|f| f.0 == func) {
            Some(i) if i + 1 == self.stack.len() => {
                if entry {
                    let top = self.top();
                    self.nodes[top as usize].calls += 1;
                }
            }
            Some(_) if entry => self.push(func),
            Some(i) => self.stack.truncate(i + 1),
            None => self.push(func),
        }
        self.top()
    }

    /// The stack of `node`: function indices, outermost first.
    fn path(&self, mut node: u32) -> Vec<u32> {
        let mut path = Vec::new();
        while node != 0 {
            path.push(self.nodes[node as usize].func);
            node = self.nodes[node as usize].parent;
        }
        path.reverse();
        path
    }
}

static CONFIG: OnceLock<Config> = OnceLock::new();
/// The shadow stack, when `funcs=` was given (locked per TB execution: a user-mode guest has
/// one vCPU per guest thread, and kembench's driver has one).
static SHADOW: OnceLock<Mutex<Shadow>> = OnceLock::new();
static STATE: OnceLock<Mutex<State>> = OnceLock::new();
/// Whether a region is open (between a begin and an end marker).
static ACTIVE: AtomicBool = AtomicBool::new(false);

/// Locks the shared state; a poisoned lock is still usable (the data stays consistent enough).
fn state() -> MutexGuard<'static, State> {
    let m = STATE.get().expect("plugin installed");
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Locks the shadow stack, when there is one.
fn shadow() -> Option<MutexGuard<'static, Shadow>> {
    SHADOW
        .get()
        .map(|m| m.lock().unwrap_or_else(|e| e.into_inner()))
}

impl Tb {
    /// Puts the entry on the current region's list the first time it counts something.
    fn touch(&'static self) {
        if !self.listed.load(Relaxed) && !self.listed.swap(true, Relaxed) {
            state().touched.push(self);
        }
    }
}

/// The number of instructions the TB really executes. QEMU 7.2's x86 translator ends a TB
/// *before* a non-first instruction that would cross a page, yet the plugin API still lists that
/// abandoned instruction (with only the bytes read before the crossing) as the TB's last: it runs
/// as the first instruction of the next TB instead. It is recognised by the same address having
/// been translated with more bytes, which cross a 4 KiB boundary (first instructions may cross).
fn len(tb: &Tb, insns: &HashMap<u64, Insn>) -> usize {
    let n = tb.insns.len();
    let phantom = n > 1
        && insns.get(&tb.insns[n - 1]).is_some_and(|i| {
            let a = tb.insns[n - 1];
            i.size > tb.tail_size && (a ^ (a + i.size as u64 - 1)) >> 12 != 0
        });
    n - phantom as usize
}

/// TB exec callback: counts one execution of the TB while a region is open.
unsafe extern "C" fn on_tb_exec(_vcpu: c_uint, udata: *mut c_void) {
    if ACTIVE.load(Relaxed) {
        // SAFETY: udata is a leaked `&'static Tb` (see `on_tb_trans`).
        let tb = unsafe { &*(udata as *const Tb) };
        tb.execs.fetch_add(1, Relaxed);
        if let Some(mut sh) = shadow() {
            let node = sh.enter(tb.func, tb.entry);
            sh.counts.entry((node, udata as usize)).or_default()[0] += 1;
        }
        tb.touch();
    }
}

/// Memory callback: counts one load or store of the TB while a region is open.
unsafe extern "C" fn on_mem(
    _vcpu: c_uint,
    info: qemu_plugin_meminfo_t,
    _va: u64,
    udata: *mut c_void,
) {
    if ACTIVE.load(Relaxed) {
        // SAFETY: as in `on_tb_exec`.
        let tb = unsafe { &*(udata as *const Tb) };
        // SAFETY: `info` comes straight from QEMU.
        let store = unsafe { qemu_plugin_mem_is_store(info) };
        if store { &tb.stores } else { &tb.loads }.fetch_add(1, Relaxed);
        if let Some(mut sh) = shadow() {
            // The TB's own execution callback ran first and set the stack.
            let node = sh.top();
            sh.counts.entry((node, udata as usize)).or_default()[1 + store as usize] += 1;
        }
        tb.touch();
    }
}

/// Insn callback on the begin marker's first instruction: opens a region.
unsafe extern "C" fn on_begin(_vcpu: c_uint, _udata: *mut c_void) {
    if !ACTIVE.load(Relaxed) {
        if let Some(mut sh) = shadow() {
            *sh = Shadow::new();
        }
    }
    ACTIVE.store(true, Relaxed);
}

/// Insn callback on the end marker's first instruction: writes the open region and closes it.
/// An end marker reached with no region open is ignored.
unsafe extern "C" fn on_end(_vcpu: c_uint, _udata: *mut c_void) {
    if !ACTIVE.swap(false, Relaxed) {
        return;
    }
    let mut st = state();
    // Merge retranslations: same vaddr and same instruction count.
    let mut merged: BTreeMap<(u64, usize), (&'static Tb, [u64; 3])> = BTreeMap::new();
    for tb in std::mem::take(&mut st.touched) {
        tb.listed.store(false, Relaxed);
        let c = [&tb.execs, &tb.loads, &tb.stores].map(|c| c.swap(0, Relaxed));
        let e = merged
            .entry((tb.vaddr, len(tb, &st.insns)))
            .or_insert((tb, [0; 3]));
        e.1.iter_mut().zip(c).for_each(|(a, b)| *a += b);
    }
    merged.retain(|_, (_, c)| c[0] > 0);
    let mut text = format!("region {}\n", st.region);
    st.region += 1;
    for (&(_, n), (tb, _)) in &merged {
        for a in &tb.insns[..n] {
            if let Some(i @ Insn { written: false, .. }) = st.insns.get_mut(a) {
                i.written = true;
                text += &format!("insn {a:#x} {}\n", i.text);
            }
        }
    }
    let mut total = [0u64; 3];
    for (&(vaddr, n), (_, [execs, loads, stores])) in &merged {
        text += &format!("tb {vaddr:#x} {n} {execs} {loads} {stores}\n");
        total[0] += n as u64 * execs;
        total[1] += loads;
        total[2] += stores;
    }
    text += &format!("total {} {} {}\n", total[0], total[1], total[2]);
    if let Some(sh) = shadow() {
        text += &stacks(&sh, &st.insns, cfg_funcs());
    }
    let written = st
        .out
        .write_all(text.as_bytes())
        .and_then(|_| st.out.flush());
    if let Err(e) = written {
        eprintln!("qemu-count: cannot write the output file: {e}");
    }
}

/// The configured function ranges.
fn cfg_funcs() -> &'static [(u64, u64)] {
    &CONFIG.get().expect("plugin installed").funcs
}

/// The region's `stack` lines: per stack, its self instructions (each TB's executions on it
/// times the TB's length, as in the `tb` lines, so they sum to `total`), loads, stores and
/// entries; sorted by the stack's function addresses.
fn stacks(sh: &Shadow, insns: &HashMap<u64, Insn>, funcs: &[(u64, u64)]) -> String {
    let mut per_node: BTreeMap<u32, [u64; 4]> = BTreeMap::new();
    for (&(node, tb), c) in &sh.counts {
        // SAFETY: the keys are leaked `&'static Tb` addresses (see `on_tb_exec`).
        let tb = unsafe { &*(tb as *const Tb) };
        let n = len(tb, insns) as u64;
        let e = per_node.entry(node).or_default();
        e[0] += n * c[0];
        e[1] += c[1];
        e[2] += c[2];
    }
    for (i, node) in sh.nodes.iter().enumerate() {
        if node.calls > 0 {
            per_node.entry(i as u32).or_default()[3] = node.calls;
        }
    }
    let mut lines: Vec<(Vec<u64>, [u64; 4])> = per_node
        .into_iter()
        .filter(|(_, c)| c.iter().any(|&v| v > 0))
        .map(|(node, c)| {
            let path = sh.path(node);
            (path.iter().map(|&f| funcs[f as usize].0).collect(), c)
        })
        .collect();
    lines.sort();
    let mut text = String::new();
    for (path, [insns, loads, stores, calls]) in lines {
        text += &format!("stack {insns} {loads} {stores} {calls}");
        for a in path {
            text += &format!(" {a:#x}");
        }
        text.push('\n');
    }
    text
}

/// The index of the function holding `addr` (the last range starting at or before it, when
/// it reaches `addr`), or [`NO_FUNC`]: kembench's own lookup, so both agree.
fn func_at(funcs: &[(u64, u64)], addr: u64) -> (u32, bool) {
    let i = funcs.partition_point(|f| f.0 <= addr);
    match i.checked_sub(1) {
        Some(i) if addr < funcs[i].1 => (i as u32, addr == funcs[i].0),
        _ => (NO_FUNC, false),
    }
}

/// Reads a `funcs=` file: one `START END` per line (addresses as in `begin=`), any order.
fn read_funcs(path: &str) -> Result<Vec<(u64, u64)>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read `{path}`: {e}"))?;
    let mut funcs = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let w: Vec<&str> = line.split_whitespace().collect();
        match w[..] {
            [] => {}
            [s, e] => match (parse_addr(s), parse_addr(e)) {
                (Some(s), Some(e)) if s < e => funcs.push((s, e)),
                _ => return Err(format!("`{path}` line {}: not START END", n + 1)),
            },
            _ => return Err(format!("`{path}` line {}: not START END", n + 1)),
        }
    }
    funcs.sort();
    funcs.dedup_by_key(|f| f.0);
    if funcs.len() >= NO_FUNC as usize {
        return Err(format!("`{path}`: too many functions"));
    }
    Ok(funcs)
}

/// QEMU's disassembly of an instruction, on one line.
///
/// # Safety
/// `h` must be an instruction handle of the TB being translated.
unsafe fn disas(h: *mut qemu_plugin_insn) -> Box<str> {
    let p = unsafe { qemu_plugin_insn_disas(h) };
    if p.is_null() {
        return "?".into();
    }
    let s = unsafe { CStr::from_ptr(p) }
        .to_string_lossy()
        .replace(char::is_control, " ");
    unsafe { g_free(p.cast()) };
    s.trim().into()
}

/// Translation callback: creates the TB's entry and registers its callbacks.
unsafe extern "C" fn on_tb_trans(_id: qemu_plugin_id_t, tb: *mut qemu_plugin_tb) {
    let cfg = CONFIG.get().expect("plugin installed");
    // SAFETY (all FFI calls below): `tb` and its insns are valid during this callback.
    let (vaddr, n) = unsafe { (qemu_plugin_tb_vaddr(tb), qemu_plugin_tb_n_insns(tb)) };
    // (handle, vaddr, bytes read) of each instruction.
    let insns: Vec<_> = (0..n)
        .map(|i| unsafe {
            let h = qemu_plugin_tb_get_insn(tb, i);
            (h, qemu_plugin_insn_vaddr(h), qemu_plugin_insn_size(h))
        })
        .collect();
    let mut st = state();
    for &(h, a, size) in &insns {
        // Keep the disassembly of the translation that read the most bytes (see `len`).
        if !st
            .insns
            .get(&a)
            .is_some_and(|i| i.written || i.size >= size)
        {
            let (text, written) = (unsafe { disas(h) }, false);
            st.insns.insert(
                a,
                Insn {
                    text,
                    size,
                    written,
                },
            );
        }
        let marker: Option<unsafe extern "C" fn(c_uint, *mut c_void)> = match a {
            _ if a == cfg.begin => Some(on_begin),
            _ if a == cfg.end => Some(on_end),
            _ => None,
        };
        if marker.is_some() {
            unsafe { qemu_plugin_register_vcpu_insn_exec_cb(h, marker, NO_REGS, null_mut()) };
        }
    }
    drop(st);
    // The markers' own TBs are never counted.
    if vaddr == cfg.begin || vaddr == cfg.end {
        return;
    }
    let (func, entry) = func_at(&cfg.funcs, vaddr);
    let entry: &'static Tb = Box::leak(Box::new(Tb {
        vaddr,
        insns: insns.iter().map(|i| i.1).collect(),
        tail_size: insns.last().map_or(0, |i| i.2),
        execs: AtomicU64::new(0),
        loads: AtomicU64::new(0),
        stores: AtomicU64::new(0),
        listed: AtomicBool::new(false),
        func,
        entry,
    }));
    let udata = entry as *const Tb as *mut c_void;
    unsafe { qemu_plugin_register_vcpu_tb_exec_cb(tb, Some(on_tb_exec), NO_REGS, udata) };
    if cfg.mem {
        for &(h, _, _) in &insns {
            unsafe { qemu_plugin_register_vcpu_mem_cb(h, Some(on_mem), NO_REGS, MEM_RW, udata) };
        }
    }
}

/// Exit callback: flushes the output file.
unsafe extern "C" fn on_exit(_id: qemu_plugin_id_t, _udata: *mut c_void) {
    if let Err(e) = state().out.flush() {
        eprintln!("qemu-count: cannot write the output file: {e}");
    }
}

/// Parses an address: `0x`-prefixed hexadecimal or decimal.
fn parse_addr(v: &str) -> Option<u64> {
    match v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => v.parse().ok(),
    }
}

/// Parses the `key=value` arguments and opens the output file.
fn configure(args: &[String]) -> Result<(Config, File), String> {
    let (mut out, mut begin, mut end, mut mem, mut funcs) = (None, None, None, None, None);
    for arg in args {
        let (k, v) = arg
            .split_once('=')
            .ok_or(format!("argument `{arg}` is not key=value"))?;
        let bad = || format!("bad value in `{arg}`");
        let slot_was_set = match k {
            "out" => out.replace(v.to_string()).is_some(),
            "begin" => begin.replace(parse_addr(v).ok_or_else(bad)?).is_some(),
            "end" => end.replace(parse_addr(v).ok_or_else(bad)?).is_some(),
            "funcs" => funcs.replace(read_funcs(v)?).is_some(),
            "mem" => mem
                .replace(match v {
                    "on" | "yes" | "true" => true,
                    "off" | "no" | "false" => false,
                    _ => return Err(bad()),
                })
                .is_some(),
            _ => {
                return Err(format!(
                    "unknown argument `{arg}` (known: out, begin, end, mem, funcs)"
                ))
            }
        };
        if slot_was_set {
            return Err(format!("argument `{k}` given twice"));
        }
    }
    let missing = |k: &str| format!("missing required argument `{k}=`");
    let (out, begin, end) = (
        out.ok_or(missing("out"))?,
        begin.ok_or(missing("begin"))?,
        end.ok_or(missing("end"))?,
    );
    if begin == end {
        return Err("`begin` and `end` must differ".into());
    }
    let file = File::create(&out).map_err(|e| format!("cannot create `{out}`: {e}"))?;
    let mem = mem.unwrap_or(false);
    let funcs = funcs.unwrap_or_default();
    Ok((
        Config {
            begin,
            end,
            mem,
            funcs,
        },
        file,
    ))
}

/// Plugin entry point, called by QEMU once at load. Returns nonzero (QEMU then refuses to start)
/// on a bad argument or when the output file cannot be created.
///
/// # Safety
/// Called by QEMU only, with `argc` valid C strings in `argv`.
#[no_mangle]
pub unsafe extern "C" fn qemu_plugin_install(
    id: qemu_plugin_id_t,
    _info: *const qemu_info_t,
    argc: c_int,
    argv: *mut *mut c_char,
) -> c_int {
    let arg = |i| {
        unsafe { CStr::from_ptr(*argv.add(i)) }
            .to_string_lossy()
            .into_owned()
    };
    let args: Vec<String> = (0..argc.max(0) as usize).map(arg).collect();
    let (config, file) = match configure(&args) {
        Ok(c) => c,
        Err(msg) => {
            eprintln!("qemu-count: {msg}");
            return 1;
        }
    };
    let (out, insns, touched) = (BufWriter::new(file), HashMap::new(), Vec::new());
    let state = State {
        out,
        region: 0,
        insns,
        touched,
    };
    let stacks = !config.funcs.is_empty();
    if CONFIG.set(config).is_err()
        || STATE.set(Mutex::new(state)).is_err()
        || stacks && SHADOW.set(Mutex::new(Shadow::new())).is_err()
    {
        eprintln!("qemu-count: installed twice");
        return 1;
    }
    unsafe {
        qemu_plugin_register_vcpu_tb_trans_cb(id, Some(on_tb_trans));
        qemu_plugin_register_atexit_cb(id, Some(on_exit), null_mut());
    }
    0
}
