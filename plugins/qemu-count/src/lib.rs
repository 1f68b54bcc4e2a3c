//! `qemu-count`: a QEMU TCG plugin (plugin API version 1, QEMU 7.2 and later) that counts the
//! guest instructions executed between two marker functions, per translation block (TB).
//!
//! kembench loads it into `qemu-user` with
//! `-plugin libqemu_count.so,out=PATH,begin=0xADDR,end=0xADDR[,mem=on|off]` and maps the TB
//! addresses to functions itself. The output format is described in `README.md`.
//!
//! Counting: every TB gets, at translation, a leaked [`Tb`] entry and an exec callback that adds
//! one to the entry while a region is active; the region's instruction count is the sum of
//! `n_insns * execs`. The TBs that start exactly at `begin` or `end` are never counted. An insn
//! callback on the instruction at `begin` opens a region, one on the instruction at `end` writes
//! it out and closes it. With `mem=on`, a memory callback on every instruction counts the loads
//! and stores QEMU reports while a region is active.
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
}

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

static CONFIG: OnceLock<Config> = OnceLock::new();
static STATE: OnceLock<Mutex<State>> = OnceLock::new();
/// Whether a region is open (between a begin and an end marker).
static ACTIVE: AtomicBool = AtomicBool::new(false);

/// Locks the shared state; a poisoned lock is still usable (the data stays consistent enough).
fn state() -> MutexGuard<'static, State> {
    let m = STATE.get().expect("plugin installed");
    m.lock().unwrap_or_else(|e| e.into_inner())
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
        tb.touch();
    }
}

/// Insn callback on the begin marker's first instruction: opens a region.
unsafe extern "C" fn on_begin(_vcpu: c_uint, _udata: *mut c_void) {
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
    let written = st
        .out
        .write_all(text.as_bytes())
        .and_then(|_| st.out.flush());
    if let Err(e) = written {
        eprintln!("qemu-count: cannot write the output file: {e}");
    }
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
    let entry: &'static Tb = Box::leak(Box::new(Tb {
        vaddr,
        insns: insns.iter().map(|i| i.1).collect(),
        tail_size: insns.last().map_or(0, |i| i.2),
        execs: AtomicU64::new(0),
        loads: AtomicU64::new(0),
        stores: AtomicU64::new(0),
        listed: AtomicBool::new(false),
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
    let (mut out, mut begin, mut end, mut mem) = (None, None, None, None);
    for arg in args {
        let (k, v) = arg
            .split_once('=')
            .ok_or(format!("argument `{arg}` is not key=value"))?;
        let bad = || format!("bad value in `{arg}`");
        let slot_was_set = match k {
            "out" => out.replace(v.to_string()).is_some(),
            "begin" => begin.replace(parse_addr(v).ok_or_else(bad)?).is_some(),
            "end" => end.replace(parse_addr(v).ok_or_else(bad)?).is_some(),
            "mem" => mem
                .replace(match v {
                    "on" | "yes" | "true" => true,
                    "off" | "no" | "false" => false,
                    _ => return Err(bad()),
                })
                .is_some(),
            _ => {
                return Err(format!(
                    "unknown argument `{arg}` (known: out, begin, end, mem)"
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
    Ok((Config { begin, end, mem }, file))
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
    if CONFIG.set(config).is_err() || STATE.set(Mutex::new(state)).is_err() {
        eprintln!("qemu-count: installed twice");
        return 1;
    }
    unsafe {
        qemu_plugin_register_vcpu_tb_trans_cb(id, Some(on_tb_trans));
        qemu_plugin_register_atexit_cb(id, Some(on_exit), null_mut());
    }
    0
}
