//! The variable-latency screen: every instruction executed during a secret-handling operation
//! whose time depends on its operands (integer division above all: KyberSlash).
//!
//! One `kembench ct-worker` runs every operation under callgrind, which collects only inside
//! the markers and writes one dump per marker call, with the self instructions of every
//! executed address (`--dump-instr=yes`). Each executed address is decoded from its object
//! file (`code.rs`, through `object`) with iced-x86 and checked against the list of
//! `instructions.rs`; its instruction count in the dump is its number of executions in the
//! one call. `file:line` and inlined functions come from the object's debug information.
//!
//! Whether an integer division's operands held secrets: `operands.rs` runs the worker again
//! under memcheck with gdb and reads their V bits ([`SecretOperands`], with the reason in the
//! finding when unknown). The exception lists say which findings are divisions of public
//! values (a hash's input length by its block size).
//!
//! Foreign-architecture builds (QEMU) are screened through `kembench profile`'s counting plugin
//! (`foreign.rs`).

pub mod code;
pub mod foreign;
pub mod instructions;
pub mod operands;

use crate::callgrind::{parse, DebugInfo, Inlines};
use crate::ct::worker::{self, Message, MARKERS};
use crate::ct::Context;
use crate::kem::Kem;
use crate::kem::MEGABYTE_KEYS_STACK;
use crate::kem::Op;
use crate::record::ct::{Finding, FindingKind, Ran, Screen, ScreenResult, SecretOperands};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// Why a finding's operands are not known to be secret or public.
pub const OPERANDS_UNKNOWN: &str = "whether the operands are secret was not determined: \
     callgrind counts executions and does not track secrets (the secret-flow screen's memcheck \
     does not check the operands of a division); read the source at the line given";

/// The arguments that put a worker under callgrind, writing one dump per marker call to
/// `out_file.N` (N from 1, in call order).
///
/// Collection toggles on the glob `kembench_ct_*` rather than on each marker: the compiler may
/// fold the three identical markers into one function that callgrind knows by one of the three
/// names, and three toggles of one function would cancel out. Each marker's `--dump-after`
/// still writes exactly one dump per call, whichever name the folded function carries.
pub fn callgrind_args(out_file: &Path) -> Vec<String> {
    let mut a: Vec<String> = vec![
        "--tool=callgrind".into(),
        format!("--callgrind-out-file={}", out_file.display()),
        "--toggle-collect=kembench_ct_*".into(),
    ];
    a.extend(MARKERS.iter().map(|(_, m)| format!("--dump-after={m}")));
    a.extend([
        "--dump-instr=yes".into(),
        "--compress-strings=no".into(),
        "--compress-pos=no".into(),
        // Classic McEliece keeps megabyte keys on the stack.
        format!("--max-stackframe={MEGABYTE_KEYS_STACK}"),
        format!("--main-stacksize={MEGABYTE_KEYS_STACK}"),
        "--quiet".into(),
    ]);
    a
}

/// Screens `ops` of `k`: one result per operation, in order.
pub fn screen(ctx: &Context, k: &dyn Kem, ops: &[Op]) -> Vec<ScreenResult> {
    let all = |why: &str| {
        ops.iter()
            .map(|&op| ScreenResult::not_screened(Screen::Latency, op, why))
            .collect()
    };
    if let Some(arch) = k.build().and_then(|b| b.arch.as_deref()) {
        return foreign::screen(ctx, k, arch, ops);
    }
    let valgrind = match &ctx.valgrind {
        Ok(v) => v.clone(),
        Err(why) => return all(why),
    };
    let label = k.meta().label();
    match run_worker(ctx, &valgrind, &label, ops) {
        Ok(run) => {
            let mut r = results(&run, ops);
            operands::check(ctx, &valgrind, &label, &mut r);
            r
        }
        Err(why) => ops.iter().map(|&op| failed(op, why.clone())).collect(),
    }
}

pub(crate) fn failed(op: Op, why: String) -> ScreenResult {
    ScreenResult {
        ran: Ran::Failed(why),
        ..ScreenResult::not_screened(Screen::Latency, op, "")
    }
}

/// What one worker under callgrind left.
struct Run {
    /// Its messages, in order.
    messages: Vec<Message>,
    /// Its dumps' texts, in call order.
    dumps: Vec<String>,
    /// The end of its standard error, for failures.
    stderr: String,
    /// Seconds it ran.
    seconds: f64,
}

static RUNS: AtomicU64 = AtomicU64::new(0);

/// A folder name from a label.
pub(crate) fn folder_name(label: &str) -> String {
    label
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

fn run_worker(ctx: &Context, valgrind: &Path, label: &str, ops: &[Op]) -> Result<Run, String> {
    let dir: PathBuf = ctx.work_dir.join(format!(
        "latency-{}-{}",
        RUNS.fetch_add(1, Ordering::Relaxed),
        folder_name(label)
    ));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let out_file = dir.join("callgrind.out");
    let (stdout_path, stderr_path) = (dir.join("stdout"), dir.join("stderr"));
    let file = |p: &Path| std::fs::File::create(p).map_err(|e| format!("{}: {e}", p.display()));
    let ops_arg: Vec<&str> = ops.iter().map(|o| o.as_str()).collect();
    let mut cmd = Command::new(valgrind);
    cmd.args(callgrind_args(&out_file))
        .arg(&ctx.exe)
        .args(["ct-worker", "--label", label, "--ops", &ops_arg.join(",")])
        .args(["--seed", &ctx.seed.to_string()])
        .current_dir(&dir)
        .stdin(Stdio::null())
        .stdout(file(&stdout_path)?)
        .stderr(file(&stderr_path)?);
    if ctx.include_mock {
        cmd.arg("--include-mock");
    }
    let started = Instant::now();
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("{} could not start: {e}", valgrind.display()))?;
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) if started.elapsed() > ctx.worker_timeout => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "the callgrind worker ran past {} s and was killed",
                    ctx.worker_timeout.as_secs()
                ));
            }
            Ok(None) => std::thread::sleep(std::time::Duration::from_millis(20)),
            Err(e) => return Err(format!("waiting for the callgrind worker: {e}")),
        }
    };
    let seconds = started.elapsed().as_secs_f64();
    let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_default();
    let stderr = tail(&read(&stderr_path), 2000);
    let messages: Vec<Message> = read(&stdout_path)
        .lines()
        .filter_map(worker::parse)
        .collect();
    if !status.success() && messages.len() < ops.len() {
        return Err(format!(
            "the callgrind worker exited with {status} after {} of {} messages: {stderr}",
            messages.len(),
            ops.len()
        ));
    }
    let mut dumps = Vec::new();
    for n in 1.. {
        let p = PathBuf::from(format!("{}.{n}", out_file.display()));
        if !p.exists() {
            break;
        }
        dumps.push(std::fs::read_to_string(&p).map_err(|e| format!("{}: {e}", p.display()))?);
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(Run {
        messages,
        dumps,
        stderr,
        seconds,
    })
}

/// The last `n` bytes of `s` (at a character boundary).
pub(crate) fn tail(s: &str, n: usize) -> String {
    let mut from = s.len().saturating_sub(n);
    while !s.is_char_boundary(from) {
        from += 1;
    }
    s[from..].trim().to_string()
}

/// The message about `op` in a run, if the worker sent one.
fn message_of(messages: &[Message], op: Op) -> Option<&Message> {
    messages.iter().find(|m| match m {
        Message::Screened { op: o, .. }
        | Message::Cannot { op: o, .. }
        | Message::Failed { op: o, .. } => *o == op,
    })
}

/// Which dump belongs to each screened operation: one dump per marker call, in call order.
/// A failed call may or may not have entered its marker; the count of dumps decides, and a
/// count that fits neither reading leaves no dump to any operation.
fn dumps_of(messages: &[Message], dumps: usize) -> Result<Vec<(Op, usize)>, String> {
    let screened: Vec<Op> = messages
        .iter()
        .filter_map(|m| match m {
            Message::Screened { op, .. } => Some(*op),
            _ => None,
        })
        .collect();
    let with_failed: Vec<(Op, bool)> = messages
        .iter()
        .filter_map(|m| match m {
            Message::Screened { op, .. } => Some((*op, true)),
            Message::Failed { op, .. } => Some((*op, false)),
            Message::Cannot { .. } => None,
        })
        .collect();
    if dumps == screened.len() {
        Ok(screened.into_iter().zip(0..).collect())
    } else if dumps == with_failed.len() {
        Ok(with_failed
            .into_iter()
            .zip(0..)
            .filter(|((_, s), _)| *s)
            .map(|((op, _), i)| (op, i))
            .collect())
    } else {
        Err(format!(
            "callgrind wrote {dumps} dumps for {} screened calls: which dump is which \
             operation's is unknown",
            screened.len()
        ))
    }
}

fn results(run: &Run, ops: &[Op]) -> Vec<ScreenResult> {
    let order = dumps_of(&run.messages, run.dumps.len());
    let info = DebugInfo::new();
    let mut code = code::Code::new();
    ops.iter()
        .map(|&op| match message_of(&run.messages, op) {
            None => failed(
                op,
                format!(
                    "the callgrind worker sent no message about {}: {}",
                    op.as_str(),
                    run.stderr
                ),
            ),
            Some(Message::Cannot { why, .. }) => {
                ScreenResult::not_screened(Screen::Latency, op, why.clone())
            }
            Some(Message::Failed { error, .. }) => failed(op, error.clone()),
            Some(Message::Screened { how, .. }) => {
                let dump = match &order {
                    Err(why) => return failed(op, why.clone()),
                    Ok(o) => o.iter().find(|(o, _)| *o == op).map(|(_, i)| *i),
                };
                let Some(text) = dump.and_then(|i| run.dumps.get(i)) else {
                    return failed(op, format!("no callgrind dump for {}", op.as_str()));
                };
                match scan(text, &mut code, &info) {
                    Ok(s) => ScreenResult {
                        screen: Screen::Latency,
                        operation: op,
                        ran: Ran::Screened,
                        how: s.how(how, run.seconds),
                        findings: s.findings,
                        timing: None,
                    },
                    Err(why) => failed(op, why),
                }
            }
        })
        .collect()
}

/// What one dump held.
struct Scan {
    findings: Vec<Finding>,
    /// Instructions executed inside the marker.
    instructions: u64,
    /// Distinct addresses decoded.
    addresses: usize,
    /// Instructions in objects whose code could not be read, per object, with the reason.
    unread: BTreeMap<String, (u64, String)>,
}

impl Scan {
    fn how(&self, marked: &str, seconds: f64) -> String {
        let mut s = format!(
            "callgrind counted the {} instructions executed in one call ({} distinct \
             addresses), each decoded from its object file (iced-x86) and checked against the \
             variable-latency list (div, idiv, floating-point division and square root, x87 \
             microcoded operations); the worker ran {seconds:.1} s under callgrind; inputs: {marked}",
            self.instructions, self.addresses
        );
        if !self.unread.is_empty() {
            let missed: Vec<String> = self
                .unread
                .iter()
                .map(|(o, (n, why))| format!("{o} ({n} instructions: {why})"))
                .collect();
            s.push_str(&format!(
                "; NOT decoded, so not screened: {}",
                missed.join(", ")
            ));
        }
        s
    }
}

/// The findings of one dump.
fn scan(text: &str, code: &mut code::Code, info: &dyn Lines) -> Result<Scan, String> {
    let dump = parse::parse(text).map_err(|e| e.to_string())?;
    // Executions per (object, function, address).
    let mut executed: BTreeMap<(String, String, u64), u64> = BTreeMap::new();
    for (&(ctx, address), &n) in &dump.addresses {
        let c = &dump.contexts[ctx as usize];
        let object = c
            .object
            .and_then(|o| dump.objects.get(o as usize))
            .cloned()
            .unwrap_or_default();
        // `'2` and the like: callgrind's recursion levels.
        let function = c.name.split('\'').next().unwrap_or_default().to_string();
        *executed.entry((object, function, address)).or_default() += n;
    }
    let mut s = Scan {
        findings: Vec::new(),
        instructions: executed.values().sum(),
        addresses: executed.len(),
        unread: BTreeMap::new(),
    };
    for ((object, function, address), n) in executed {
        let bytes = match code.at(&object, address) {
            Ok(b) => b,
            Err(why) => {
                let e = s.unread.entry(object).or_insert((0, why));
                e.0 += n;
                continue;
            }
        };
        let Some(flagged) = instructions::classify(bytes, address) else {
            continue;
        };
        let (function, stack) = info.function(&object, address, &function);
        let line = info
            .line(&object, address)
            .map(|(file, line)| format!("{file}:{line}"));
        s.findings.push(Finding {
            kind: FindingKind::VariableLatency {
                mnemonic: flagged.mnemonic,
            },
            function,
            stack,
            object: Some(object),
            line,
            count_per_call: n,
            secret_operands: Some(SecretOperands::Unknown),
            detail: operands::detail(&flagged.text, address),
            explained: None,
        });
    }
    if s.instructions == 0 {
        return Err("the callgrind dump holds no instruction inside the marker".into());
    }
    Ok(s)
}

/// Where a finding's function and line come from (the objects' debug information; a table in
/// tests).
trait Lines {
    /// `file` and line of `address` in `object`.
    fn line(&self, object: &str, address: u64) -> Option<(String, u32)>;
    /// The function a finding names, and the inlined frames innermost first (empty when
    /// nothing is inlined there): the innermost frame of the implementation's own code where
    /// the debug information has inlined frames, else `real` (callgrind's name).
    fn function(&self, object: &str, address: u64, real: &str) -> (String, Vec<String>);
}

impl Lines for DebugInfo {
    fn line(&self, object: &str, address: u64) -> Option<(String, u32)> {
        DebugInfo::line(self, object, address)
    }

    fn function(&self, object: &str, address: u64, real: &str) -> (String, Vec<String>) {
        let frames = self.frames(object, address);
        // The standard library's frames (`/rustc/...`: black_box, slice indexing) are not
        // where the implementation divides.
        let own: Vec<&str> = frames
            .iter()
            .filter(|f| !f.function.is_empty() && !f.file.starts_with("/rustc/"))
            .map(|f| f.function.as_str())
            .collect();
        if own.len() < 2 {
            return (real.to_string(), Vec::new());
        }
        let mut stack: Vec<String> = own.iter().rev().map(|f| f.to_string()).collect();
        if let Some(outer) = stack.last_mut() {
            *outer = real.to_string();
        }
        (stack[0].clone(), stack)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct NoLines;
    impl Lines for NoLines {
        fn line(&self, _: &str, _: u64) -> Option<(String, u32)> {
            None
        }
        fn function(&self, _: &str, _: u64, real: &str) -> (String, Vec<String>) {
            (real.into(), Vec::new())
        }
    }

    fn screened(op: Op) -> Message {
        Message::Screened {
            op,
            how: "h".into(),
        }
    }

    #[test]
    fn dumps_follow_the_screened_calls() {
        let (k, e, d) = (Op::Keygen, Op::Encaps, Op::Decaps);
        let m = vec![screened(k), screened(e), screened(d)];
        assert_eq!(dumps_of(&m, 3).unwrap(), vec![(k, 0), (e, 1), (d, 2)]);
        // A Cannot has no dump.
        let m = vec![
            Message::Cannot {
                op: k,
                why: "w".into(),
            },
            screened(d),
        ];
        assert_eq!(dumps_of(&m, 1).unwrap(), vec![(d, 0)]);
        // A failed call inside its marker left a dump; one before it did not.
        let m = vec![
            Message::Failed {
                op: k,
                error: "x".into(),
            },
            screened(d),
        ];
        assert_eq!(dumps_of(&m, 2).unwrap(), vec![(d, 1)]);
        assert_eq!(dumps_of(&m, 1).unwrap(), vec![(d, 0)]);
        let why = dumps_of(&m, 5).unwrap_err();
        assert!(why.contains("5 dumps for 1 screened"), "{why}");
    }

    /// A dump whose one executed address in this test binary is a function's first
    /// instruction: no finding unless that instruction divides; an object that cannot be read
    /// is said in `how`, never passed over.
    #[test]
    fn a_dump_of_unreadable_code_says_so() {
        let text = "events: Ir\npositions: instr line\nob=/nonexistent/lib.so\nfn=f\n\
                    0x1000 3 7\n";
        let s = scan(text, &mut code::Code::new(), &NoLines).unwrap();
        assert!(s.findings.is_empty());
        assert_eq!(s.instructions, 7);
        let how = s.how("m", 1.0);
        assert!(how.contains("NOT decoded"), "{how}");
        assert!(how.contains("/nonexistent/lib.so (7 instructions"), "{how}");
        let empty = "events: Ir\npositions: instr line\n";
        assert!(scan(empty, &mut code::Code::new(), &NoLines).is_err());
    }

    #[test]
    fn folder_names_are_plain() {
        assert_eq!(
            folder_name("Kyber768@pqclean/clean@gcc-12:Os"),
            "Kyber768_pqclean_clean_gcc_12_Os"
        );
    }
}
