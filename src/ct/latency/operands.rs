//! The operand check: whether the operands of each integer division the latency screen found
//! held secret bits when it ran.
//!
//! callgrind counts executions and tracks no secrets; memcheck tracks secrets (every random
//! byte the worker draws is marked undefined, exactly as in the secret-flow screen) but does
//! not flag a division, it only passes undefinedness on through it. So the check runs the
//! same `kembench ct-worker` once more under memcheck with valgrind's gdbserver
//! (`--vgdb=yes --vgdb-shadow-registers=yes`, and `--vex-iropt-register-updates=
//! allregs-at-each-insn` so that the registers and their shadows are up to date at every
//! instruction), and gdb in batch mode runs `operands.py` against it: a breakpoint at each
//! marker's entry arms breakpoints at the division sites of that operation (their run-time
//! addresses from the object's mapping in the process, `/proc/PID/maps`, valgrind's guest
//! addresses being the process's own) until the marker returns; at each hit it reads the V
//! bits (memcheck's "undefined" bits) of the dividend (`rdx:rax`, `ax` for a byte division)
//! through the shadow registers (`$raxs1`) and of the divisor through its register's shadow
//! or `monitor get_vbits` for a memory operand. [`HITS`] hits per site and operation are
//! checked, then its breakpoint is disabled.
//!
//! The answer per finding: [`SecretOperands::Yes`] when some hit had undefined bits in an
//! operand (which operand said), [`SecretOperands::No`] when every hit checked was defined
//! (the number said), [`SecretOperands::Unknown`] with the reason otherwise (not reached, gdb
//! missing, a floating-point instruction, whose vector shadows the check does not read).
//!
//! What it cannot see: a division whose operands are public in this run but secret in
//! another (the check sees the hits of one seeded call per operation, [`HITS`] per site);
//! secrets that memcheck's marking does not reach (what the worker does not mark, or what it
//! declassifies); and memcheck's approximations, which may call a bit undefined that is not
//! (an over-approximation: `Yes` is then a false alarm, never a missed secret).

use crate::ct::secret_flow::memcheck_args;
use crate::ct::worker::MARKERS;
use crate::ct::Context;
use crate::kem::Op;
use crate::record::ct::{Finding, FindingKind, Ran, ScreenResult, SecretOperands};
use iced_x86::{Decoder, DecoderOptions, Mnemonic, OpKind, Register};
use object::{Object, ObjectSegment, ObjectSymbol};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Hits checked per division site and operation.
pub const HITS: u32 = 3;

/// The gdb script (run with `gdb -batch -nx -x`).
const SCRIPT: &str = include_str!("operands.py");

/// How to install gdb, for the reason a check did not run.
pub const INSTALL_GDB: &str = "sudo apt-get install -y gdb, or scripts/setup";

/// The detail of a latency finding: the instruction and its address in its object's file.
pub fn detail(text: &str, address: u64) -> String {
    format!("{text} at {address:#x}; {}", super::OPERANDS_UNKNOWN)
}

/// The address in its object's file of a latency finding, from its [`detail`].
fn address_of(f: &Finding) -> Option<u64> {
    let rest = f.detail.split(" at 0x").nth(1)?;
    let hex: String = rest.chars().take_while(|c| c.is_ascii_hexdigit()).collect();
    u64::from_str_radix(&hex, 16).ok()
}

/// One part of an operand, as `operands.py` reads it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
enum Part {
    /// `bits` bits of a 64-bit register from bit `shift`.
    Reg { reg: String, shift: u32, bits: u32 },
    /// `bytes` bytes of memory at `base + index*scale + disp` (plus the object's load bias
    /// for a RIP-relative operand, whose `disp` is the file address).
    Mem {
        base: Option<String>,
        index: Option<String>,
        scale: u32,
        disp: u64,
        bytes: u32,
        rip: bool,
    },
}

/// A named operand (`dividend (edx:eax)`) and its parts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Operand {
    name: String,
    parts: Vec<Part>,
}

/// The lower-case name gdb knows a 64-bit register by.
fn gdb_name(r: Register) -> String {
    format!("{:?}", r.full_register()).to_lowercase()
}

/// The operands of the integer division at the start of `bytes`, or why they are not read.
fn operands(bytes: &[u8], ip: u64) -> Result<Vec<Operand>, String> {
    let mut decoder = Decoder::with_ip(64, bytes, ip, DecoderOptions::NONE);
    let i = decoder.decode();
    if i.is_invalid() {
        return Err("the instruction does not decode".into());
    }
    if !matches!(i.mnemonic(), Mnemonic::Div | Mnemonic::Idiv) {
        return Err(format!(
            "{} is not an integer division: the operand check reads integer divisions' \
             operands only (not the vector shadows of floating-point registers)",
            format!("{:?}", i.mnemonic()).to_lowercase()
        ));
    }
    let text = super::instructions::classify(bytes, ip)
        .map(|f| f.text)
        .unwrap_or_default();
    let divisor_text = text.split_once(' ').map(|(_, o)| o).unwrap_or_default();
    let (width, divisor) = match i.op0_kind() {
        OpKind::Register => {
            let r = i.op0_register();
            let shift = if matches!(r, Register::AH | Register::BH | Register::CH | Register::DH)
            {
                8
            } else {
                0
            };
            let bits = r.size() as u32 * 8;
            (
                bits,
                Part::Reg {
                    reg: gdb_name(r),
                    shift,
                    bits,
                },
            )
        }
        OpKind::Memory => {
            if matches!(i.memory_segment(), Register::FS | Register::GS) {
                return Err(format!(
                    "{text}: a divisor in {:?}-relative memory is not read",
                    i.memory_segment()
                ));
            }
            let rip = i.is_ip_rel_memory_operand();
            let reg = |r: Register| (r != Register::None).then(|| gdb_name(r));
            let bytes = i.memory_size().size() as u32;
            (
                bytes * 8,
                Part::Mem {
                    base: if rip { None } else { reg(i.memory_base()) },
                    index: reg(i.memory_index()),
                    scale: i.memory_index_scale(),
                    disp: if rip {
                        i.ip_rel_memory_address()
                    } else {
                        i.memory_displacement64()
                    },
                    bytes,
                    rip,
                },
            )
        }
        k => return Err(format!("{text}: an operand of kind {k:?} is not read")),
    };
    let reg = |reg: &str, bits: u32| Part::Reg {
        reg: reg.into(),
        shift: 0,
        bits,
    };
    let dividend = match width {
        8 => Operand {
            name: "dividend (ax)".into(),
            parts: vec![reg("rax", 16)],
        },
        w => {
            let (hi, lo) = match w {
                16 => ("dx", "ax"),
                32 => ("edx", "eax"),
                _ => ("rdx", "rax"),
            };
            Operand {
                name: format!("dividend ({hi}:{lo})"),
                parts: vec![reg("rdx", w), reg("rax", w)],
            }
        }
    };
    Ok(vec![
        dividend,
        Operand {
            name: format!("divisor ({divisor_text})"),
            parts: vec![divisor],
        },
    ])
}

/// One division site to check: an address of an object, in which operations.
#[derive(Debug, Clone, Serialize)]
struct Site {
    object: String,
    address: u64,
    ops: Vec<&'static str>,
    operands: Vec<Operand>,
}

/// An object's first loaded address in its file (0 for a position-independent one).
#[derive(Debug, Clone, Serialize)]
struct Loaded {
    first_load: u64,
}

/// A marker to break at: its operation, object and address in the file.
#[derive(Debug, Clone, Serialize)]
struct Marker {
    op: &'static str,
    object: String,
    address: u64,
}

/// What `operands.py` reads.
#[derive(Debug, Clone, Serialize)]
struct Plan {
    out: PathBuf,
    pid: u32,
    vgdb: PathBuf,
    prefix: PathBuf,
    hits: u32,
    objects: BTreeMap<String, Loaded>,
    markers: Vec<Marker>,
    sites: Vec<Site>,
}

/// One line `operands.py` wrote.
#[derive(Debug, Clone, Deserialize)]
struct Hit {
    #[serde(default)]
    op: Option<String>,
    #[serde(default)]
    site: Option<usize>,
    #[serde(default)]
    undefined: Option<BTreeMap<String, u64>>,
    #[serde(default)]
    error: Option<String>,
}

/// gdb on the `PATH`, or why there is none.
fn gdb() -> Result<PathBuf, String> {
    gdb_in(&std::env::var_os("PATH").unwrap_or_default())
}

/// gdb in the folders of `path` (a `PATH` value), or why there is none.
fn gdb_in(path: &std::ffi::OsStr) -> Result<PathBuf, String> {
    std::env::split_paths(path)
        .map(|d| d.join("gdb"))
        .find(|p| p.is_file())
        .ok_or_else(|| {
            format!(
                "gdb is not installed, so the operand check did not run ({INSTALL_GDB}); \
                 {}",
                super::OPERANDS_UNKNOWN
            )
        })
}

/// Whether a finding is one the check reads: an integer division in an object's code.
fn is_division(f: &Finding) -> bool {
    matches!(&f.kind, FindingKind::VariableLatency { mnemonic } if mnemonic == "div" || mnemonic == "idiv")
}

/// Fills `secret_operands` of the latency findings of `results` (one per operation of one
/// worker run of `label`) and says what the check did in each screened result's `how`.
pub fn check(ctx: &Context, valgrind: &Path, label: &str, results: &mut [ScreenResult]) {
    let wanted: Vec<(usize, usize)> = results
        .iter()
        .enumerate()
        .filter(|(_, r)| r.ran == Ran::Screened)
        .flat_map(|(i, r)| {
            r.findings
                .iter()
                .enumerate()
                .filter(|(_, f)| f.secret_operands.is_some())
                .map(move |(j, _)| (i, j))
        })
        .collect();
    if wanted.is_empty() {
        return;
    }
    let outcome = run(ctx, valgrind, label, results, &wanted);
    let note = match &outcome {
        Ok(o) => format!(
            "; operand check: the worker run again under memcheck with the secrets marked, \
             gdb reading the V bits of each division's operands at up to {HITS} hits per \
             site ({:.1} s)",
            o.seconds
        ),
        Err(why) => format!("; operand check: did not run: {why}"),
    };
    for r in results.iter_mut().filter(|r| r.ran == Ran::Screened) {
        if r.findings.iter().any(|f| f.secret_operands.is_some()) {
            r.how.push_str(&note);
        }
    }
    for &(i, j) in &wanted {
        let op = results[i].operation;
        let f = &mut results[i].findings[j];
        let (answer, words) = match &outcome {
            Err(why) => (SecretOperands::Unknown, why.clone()),
            Ok(o) => o.answer(op, f),
        };
        let head = f.detail.split("; ").next().unwrap_or_default().to_string();
        f.secret_operands = Some(answer);
        f.detail = format!("{head}; {words}");
    }
}

/// An operation (`decaps`), an object and an address in its file: one site in one operation.
type Key = (String, String, u64);

/// What the check saw.
struct Outcome {
    /// Per (operation, object, address): the hits, each with its operands' undefined bits.
    hits: BTreeMap<Key, Vec<BTreeMap<String, u64>>>,
    /// Per (operation, object, address), or per whole run (`None`): errors.
    errors: Vec<(Option<Key>, String)>,
    /// Why a site was not planned (not an integer division, unreadable).
    unplanned: BTreeMap<(String, u64), String>,
    seconds: f64,
}

impl Outcome {
    fn answer(&self, op: Op, f: &Finding) -> (SecretOperands, String) {
        let (Some(object), Some(address)) = (f.object.clone(), address_of(f)) else {
            return (
                SecretOperands::Unknown,
                "the finding names no object and address to check".into(),
            );
        };
        if let Some(why) = self.unplanned.get(&(object.clone(), address)) {
            return (SecretOperands::Unknown, format!("operands not checked: {why}"));
        }
        let key = (op.as_str().to_string(), object, address);
        let errors: Vec<&str> = self
            .errors
            .iter()
            .filter(|(k, _)| k.is_none() || k.as_ref() == Some(&key))
            .map(|(_, e)| e.as_str())
            .collect();
        let hits = self.hits.get(&key).map(Vec::as_slice).unwrap_or_default();
        let mut secret: BTreeMap<&str, (usize, u64)> = BTreeMap::new();
        for h in hits {
            for (name, &bits) in h {
                if bits != 0 {
                    let e = secret.entry(name.as_str()).or_default();
                    e.0 += 1;
                    e.1 |= bits;
                }
            }
        }
        if !secret.is_empty() {
            let which: Vec<String> = secret
                .iter()
                .map(|(name, (n, bits))| {
                    format!("{name} at {n} of {} hits (undefined bits {bits:#x})", hits.len())
                })
                .collect();
            return (
                SecretOperands::Yes,
                format!(
                    "secret operands under memcheck (random bytes marked undefined): {}",
                    which.join(", ")
                ),
            );
        }
        if !errors.is_empty() {
            return (
                SecretOperands::Unknown,
                format!(
                    "operands not determined ({} hits read): {}",
                    hits.len(),
                    errors.join("; ")
                ),
            );
        }
        if hits.is_empty() {
            return (
                SecretOperands::Unknown,
                "operands not determined: the division was not reached in the run under \
                 memcheck"
                    .into(),
            );
        }
        let names: Vec<&String> = hits[0].keys().collect();
        (
            SecretOperands::No,
            format!(
                "operands public under memcheck: every bit of {} defined at all {} hits \
                 checked (of this seeded call)",
                names
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(" and "),
                hits.len()
            ),
        )
    }
}

/// The file addresses of the markers in kembench's executable.
fn markers(exe: &Path, ops: &[Op]) -> Result<Vec<Marker>, String> {
    let data = std::fs::read(exe).map_err(|e| format!("{}: {e}", exe.display()))?;
    let file = object::File::parse(&*data).map_err(|e| format!("{}: {e}", exe.display()))?;
    let object = exe.display().to_string();
    ops.iter()
        .map(|&op| {
            let name = MARKERS
                .iter()
                .find(|(o, _)| *o == op)
                .map(|(_, m)| *m)
                .ok_or_else(|| format!("no marker for {}", op.as_str()))?;
            let address = file
                .symbols()
                .find(|s| s.name() == Ok(name))
                .map(|s| s.address())
                .ok_or_else(|| format!("{name} is not in the symbols of {object}"))?;
            Ok(Marker {
                op: op.as_str(),
                object: object.clone(),
                address,
            })
        })
        .collect()
}

/// The first loaded address of an object's file.
fn first_load(path: &str) -> Result<u64, String> {
    let data = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
    let file = object::File::parse(&*data).map_err(|e| format!("{path}: {e}"))?;
    file.segments()
        .map(|s| s.address())
        .min()
        .ok_or_else(|| format!("{path} has no loaded segment"))
}

fn run(
    ctx: &Context,
    valgrind: &Path,
    label: &str,
    results: &[ScreenResult],
    wanted: &[(usize, usize)],
) -> Result<Outcome, String> {
    let gdb = gdb()?;
    let vgdb = valgrind.with_file_name("vgdb");
    if !vgdb.is_file() {
        return Err(format!(
            "{} is missing (valgrind's gdbserver relay, part of the valgrind package)",
            vgdb.display()
        ));
    }
    let mut code = super::code::Code::new();
    let mut sites: BTreeMap<(String, u64), Site> = BTreeMap::new();
    let mut unplanned = BTreeMap::new();
    let mut objects = BTreeMap::new();
    let mut ops: Vec<Op> = Vec::new();
    for &(i, j) in wanted {
        let op = results[i].operation;
        let f = &results[i].findings[j];
        let (Some(object), Some(address)) = (f.object.clone(), address_of(f)) else {
            continue;
        };
        let key = (object.clone(), address);
        if unplanned.contains_key(&key) {
            continue;
        }
        if !is_division(f) {
            unplanned.insert(
                key,
                format!(
                    "{} is not an integer division: the operand check reads integer \
                     divisions' operands only (not the vector shadows of floating-point \
                     registers)",
                    f.kind.short()
                ),
            );
            continue;
        }
        let planned = code
            .at(&object, address)
            .and_then(|b| operands(b, address))
            .and_then(|o| first_load(&object).map(|l| (o, l)));
        match planned {
            Err(why) => {
                unplanned.insert(key, why);
            }
            Ok((operands, first)) => {
                objects.insert(object.clone(), Loaded { first_load: first });
                let s = sites.entry(key).or_insert(Site {
                    object,
                    address,
                    ops: Vec::new(),
                    operands,
                });
                if !s.ops.contains(&op.as_str()) {
                    s.ops.push(op.as_str());
                }
                if !ops.contains(&op) {
                    ops.push(op);
                }
            }
        }
    }
    let sites: Vec<Site> = sites.into_values().collect();
    let mut outcome = Outcome {
        hits: BTreeMap::new(),
        errors: Vec::new(),
        unplanned,
        seconds: 0.0,
    };
    if sites.is_empty() {
        return Ok(outcome);
    }
    // The operations in the order the latency worker ran them.
    ops.sort_by_key(|o| results.iter().position(|r| r.operation == *o));
    let exe = ctx.exe.display().to_string();
    objects.insert(
        exe.clone(),
        Loaded {
            first_load: first_load(&exe)?,
        },
    );
    let dir = ctx.work_dir.join(format!(
        "operands-{}",
        label
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect::<String>()
    ));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let file = |name: &str| {
        std::fs::File::create(dir.join(name)).map_err(|e| format!("{}: {e}", dir.display()))
    };
    let prefix = dir.join("vgdb");
    let ops_arg: Vec<&str> = ops.iter().map(|o| o.as_str()).collect();
    let started = Instant::now();
    let mut cmd = Command::new(valgrind);
    cmd.args(memcheck_args(&dir.join("memcheck.xml")))
        .args([
            "--vgdb=yes".to_string(),
            // gdbserver waits for gdb at startup; no error stops the run.
            "--vgdb-error=1000000000".into(),
            "--vgdb-stop-at=startup".into(),
            "--vgdb-shadow-registers=yes".into(),
            "--vex-iropt-register-updates=allregs-at-each-insn".into(),
            format!("--vgdb-prefix={}", prefix.display()),
        ])
        .arg(&ctx.exe)
        .args(["ct-worker", "--label", label, "--ops", &ops_arg.join(",")])
        .args(["--seed", &ctx.seed.to_string()])
        .current_dir(&dir)
        .stdin(Stdio::null())
        .stdout(file("worker.stdout")?)
        .stderr(file("worker.stderr")?);
    if ctx.include_mock {
        cmd.arg("--include-mock");
    }
    let mut worker = Killed(
        cmd.spawn()
            .map_err(|e| format!("{} could not start: {e}", valgrind.display()))?,
    );
    let pid = worker.0.id();
    // valgrind makes its FIFOs before it waits for gdb.
    let fifo = format!("vgdb-from-vgdb-to-{pid}-");
    loop {
        let ready = std::fs::read_dir(&dir)
            .map(|d| {
                d.flatten()
                    .any(|e| e.file_name().to_string_lossy().starts_with(&fifo))
            })
            .unwrap_or(false);
        if ready {
            break;
        }
        if let Ok(Some(s)) = worker.0.try_wait() {
            return Err(format!(
                "the worker under memcheck ended with {s} before gdb could attach: {}",
                read_tail(&dir.join("worker.stderr"))
            ));
        }
        if started.elapsed() > ctx.worker_timeout {
            return Err("valgrind's gdbserver did not start within the worker timeout".into());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let hits_path = dir.join("hits.jsonl");
    let plan = Plan {
        out: hits_path.clone(),
        pid,
        vgdb,
        prefix,
        hits: HITS,
        objects,
        markers: markers(&ctx.exe, &ops)?,
        sites: sites.clone(),
    };
    let plan_path = dir.join("plan.json");
    std::fs::write(
        &plan_path,
        serde_json::to_string(&plan).expect("the plan serialises"),
    )
    .map_err(|e| format!("{}: {e}", plan_path.display()))?;
    let script = dir.join("operands.py");
    std::fs::write(&script, SCRIPT).map_err(|e| format!("{}: {e}", script.display()))?;
    let mut debugger = Killed(
        Command::new(&gdb)
            .args(["-batch", "-nx", "-x"])
            .arg(&script)
            .env("KEMBENCH_OPERANDS_PLAN", &plan_path)
            .current_dir(&dir)
            .stdin(Stdio::null())
            .stdout(file("gdb.stdout")?)
            .stderr(file("gdb.stderr")?)
            .spawn()
            .map_err(|e| format!("{} could not start: {e}", gdb.display()))?,
    );
    let (mut worker_status, mut gdb_status) = (None, None);
    while worker_status.is_none() || gdb_status.is_none() {
        if started.elapsed() > ctx.worker_timeout {
            return Err(format!(
                "the run under memcheck and gdb passed the worker timeout ({} s) and was killed",
                ctx.worker_timeout.as_secs()
            ));
        }
        if worker_status.is_none() {
            worker_status = worker.0.try_wait().map_err(|e| e.to_string())?;
        }
        if gdb_status.is_none() {
            gdb_status = debugger.0.try_wait().map_err(|e| e.to_string())?;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    outcome.seconds = started.elapsed().as_secs_f64();
    let text = std::fs::read_to_string(&hits_path).unwrap_or_default();
    for line in text.lines() {
        let h: Hit = serde_json::from_str(line).map_err(|e| format!("{line}: {e}"))?;
        let key = match (h.op, h.site.and_then(|s| sites.get(s))) {
            (Some(op), Some(s)) => Some((op, s.object.clone(), s.address)),
            _ => None,
        };
        match (key, h.undefined, h.error) {
            (Some(k), Some(u), _) => outcome.hits.entry(k).or_default().push(u),
            (k, _, Some(e)) => outcome.errors.push((k, e)),
            _ => {}
        }
    }
    if gdb_status.is_some_and(|s| !s.success()) || text.is_empty() {
        let why = read_tail(&dir.join("gdb.stderr"));
        if !why.is_empty() && outcome.hits.is_empty() {
            outcome.errors.push((None, format!("gdb: {why}")));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(outcome)
}

/// A child killed when dropped (after a timeout or an error).
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

fn read_tail(p: &Path) -> String {
    let s = std::fs::read_to_string(p).unwrap_or_default();
    let from = s.len().saturating_sub(600);
    s.get(from..).unwrap_or(&s).trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_operands_of_divisions() {
        // 41 f7 f0: div r8d (the division mock).
        let o = operands(&[0x41, 0xf7, 0xf0], 0x1000).unwrap();
        assert_eq!(o[0].name, "dividend (edx:eax)");
        assert_eq!(o[1].name, "divisor (r8d)");
        assert_eq!(
            o[1].parts,
            vec![Part::Reg {
                reg: "r8".into(),
                shift: 0,
                bits: 32
            }]
        );
        // 48 f7 f7: div rdi; f6 f4: div ah (a byte division: ax is the dividend).
        let o = operands(&[0x48, 0xf7, 0xf7], 0).unwrap();
        assert_eq!(o[0].name, "dividend (rdx:rax)");
        let o = operands(&[0xf6, 0xf4], 0).unwrap();
        assert_eq!(o[0].parts.len(), 1);
        assert_eq!(
            o[1].parts,
            vec![Part::Reg {
                reg: "rax".into(),
                shift: 8,
                bits: 8
            }]
        );
        // f7 7b 08: idiv dword ptr [rbx+8]; f7 35 10 00 00 00: div dword ptr [rip+0x10].
        let o = operands(&[0xf7, 0x7b, 0x08], 0).unwrap();
        assert!(matches!(&o[1].parts[0], Part::Mem { base: Some(b), disp: 8, bytes: 4, rip: false, .. } if b == "rbx"));
        let o = operands(&[0xf7, 0x35, 0x10, 0, 0, 0], 0x2000).unwrap();
        assert!(matches!(
            &o[1].parts[0],
            Part::Mem {
                base: None,
                disp: 0x2016,
                rip: true,
                ..
            }
        ));
        // Floating-point division: not read, and said.
        let why = operands(&[0xf2, 0x0f, 0x5e, 0xc1], 0).unwrap_err();
        assert!(why.contains("integer divisions' operands only"), "{why}");
        assert!(operands(&[0x0f, 0x0b], 0).is_err());
    }

    /// No gdb: the reason names the command that installs it.
    #[test]
    fn without_gdb_the_reason_says_how_to_install_it() {
        let why = gdb_in(std::ffi::OsStr::new("/nonexistent")).unwrap_err();
        assert!(why.contains("sudo apt-get install -y gdb"), "{why}");
        assert!(why.contains("operand check did not run"), "{why}");
    }

    #[test]
    fn a_findings_address_is_read_from_its_detail() {
        let f = Finding {
            kind: FindingKind::VariableLatency {
                mnemonic: "div".into(),
            },
            function: "f".into(),
            stack: vec![],
            object: Some("/x".into()),
            line: None,
            count_per_call: 1,
            secret_operands: Some(SecretOperands::Unknown),
            detail: detail("div r8d", 0xb23a7c),
            explained: None,
        };
        assert_eq!(address_of(&f), Some(0xb23a7c));
        let none = Finding {
            detail: "no address".into(),
            ..f
        };
        assert_eq!(address_of(&none), None);
    }

    fn outcome(hits: Vec<BTreeMap<String, u64>>, errors: Vec<String>) -> (Outcome, Finding) {
        let f = Finding {
            kind: FindingKind::VariableLatency {
                mnemonic: "div".into(),
            },
            function: "f".into(),
            stack: vec![],
            object: Some("/x".into()),
            line: None,
            count_per_call: 1,
            secret_operands: Some(SecretOperands::Unknown),
            detail: detail("div r8d", 0x10),
            explained: None,
        };
        let mut o = Outcome {
            hits: BTreeMap::new(),
            errors: errors
                .into_iter()
                .map(|e| (Some(("decaps".into(), "/x".into(), 0x10)), e))
                .collect(),
            unplanned: BTreeMap::new(),
            seconds: 0.0,
        };
        if !hits.is_empty() {
            o.hits.insert(("decaps".into(), "/x".into(), 0x10), hits);
        }
        (o, f)
    }

    fn hit(dividend: u64, divisor: u64) -> BTreeMap<String, u64> {
        [
            ("dividend (edx:eax)".to_string(), dividend),
            ("divisor (r8d)".to_string(), divisor),
        ]
        .into()
    }

    /// Undefined bits at one hit make the operands secret (the operand named); defined bits
    /// at every hit make them public; no hit or an error leaves them unknown, with why.
    #[test]
    fn answers_from_the_hits() {
        let (o, f) = outcome(vec![hit(0, 0), hit(0x1ff0, 0)], vec![]);
        let (a, words) = o.answer(Op::Decaps, &f);
        assert_eq!(a, SecretOperands::Yes);
        assert!(
            words.contains("dividend (edx:eax) at 1 of 2 hits (undefined bits 0x1ff0)"),
            "{words}"
        );
        assert!(!words.contains("divisor"), "{words}");
        let (o, f) = outcome(vec![hit(0, 0), hit(0, 0)], vec![]);
        let (a, words) = o.answer(Op::Decaps, &f);
        assert_eq!(a, SecretOperands::No);
        assert!(words.contains("at all 2 hits"), "{words}");
        // Another operation's hits are not this one's.
        assert_eq!(o.answer(Op::Encaps, &f).0, SecretOperands::Unknown);
        let (o, f) = outcome(vec![], vec![]);
        let (a, words) = o.answer(Op::Decaps, &f);
        assert_eq!(a, SecretOperands::Unknown);
        assert!(words.contains("not reached"), "{words}");
        let (o, f) = outcome(vec![hit(0, 0)], vec!["get_vbits failed".into()]);
        let (a, words) = o.answer(Op::Decaps, &f);
        assert_eq!(a, SecretOperands::Unknown);
        assert!(words.contains("get_vbits failed"), "{words}");
    }
}
