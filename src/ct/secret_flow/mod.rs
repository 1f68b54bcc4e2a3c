//! The secret-flow screen: one `kembench ct-worker` process for every operation asked for,
//! under memcheck with its XML output, and memcheck's errors turned into findings of the
//! operation whose marker (`kembench_ct_*`) is on their stack.
//!
//! memcheck's kinds: `UninitCondition` (a branch or conditional move on a secret) is a
//! [`FindingKind::Branch`], `UninitValue` (a secret used as an address) an
//! [`FindingKind::Index`], `SyscallParam` a [`FindingKind::Syscall`]. Any other error
//! (an invalid read or write, a client check) is kept as an `Index` finding, memcheck's own
//! kind first in its `detail`, never dropped. memcheck sees neither division nor timing: the
//! latency and timing screens do.
//!
//! Two things memcheck reports are not findings of the library screened: its leak records
//! (`Leak_*`: where memory was allocated and never freed, such as kembench's own one-time
//! leaks of a package's description; the screen runs with `--leak-check=no`, and a leak record
//! read anyway is dropped), and errors whose innermost frame of code (past Rust's standard
//! library) is kembench's own rather than the library's: these are said in the screen's `how`
//! and never charged to the library. An error inside the library, called from kembench's
//! adapter, is the library's: only the innermost frames decide.

pub mod xml;

use super::worker::{self, Message, MARKERS};
use super::Context;
use crate::kem::{Kem, MEGABYTE_KEYS_STACK};
use crate::kem::Op;
use crate::record::ct::{Finding, FindingKind, Ran, Screen, ScreenResult};
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use xml::{Frame, MemError};

/// Frames of call chain memcheck keeps per error: deeper than any library reaches from the
/// marker, so that the marker is on every stack.
pub const NUM_CALLERS: usize = 64;

/// The command-line arguments that put a worker under memcheck, writing its XML to `xml`.
pub fn memcheck_args(xml: &Path) -> Vec<String> {
    vec![
        "--tool=memcheck".into(),
        "--xml=yes".into(),
        format!("--xml-file={}", xml.display()),
        "--error-limit=no".into(),
        // Leaks are not secret flow, and the leak check at exit would report kembench's own
        // one-time allocations (see `attribute`, which drops any leak record read anyway).
        "--leak-check=no".into(),
        format!("--num-callers={NUM_CALLERS}"),
        // Classic McEliece keeps megabyte keys on the stack.
        format!("--max-stackframe={MEGABYTE_KEYS_STACK}"),
        format!("--main-stacksize={MEGABYTE_KEYS_STACK}"),
        "--quiet".into(),
    ]
}

/// Screens `ops` of `k` in one worker process under memcheck: one result per operation, in
/// order.
pub fn screen(ctx: &Context, k: &dyn Kem, ops: &[Op]) -> Vec<ScreenResult> {
    let label = k.meta().label();
    let all_not = |why: &str| -> Vec<ScreenResult> {
        ops.iter()
            .map(|&op| ScreenResult::not_screened(Screen::SecretFlow, op, why))
            .collect()
    };
    if let Some(arch) = k.build().and_then(|b| b.arch.as_deref()) {
        return all_not(&format!(
            "memcheck cannot run code that runs under QEMU ({label} is built for {arch})"
        ));
    }
    let valgrind = match &ctx.valgrind {
        Ok(v) => v,
        Err(why) => return all_not(why),
    };
    match run_worker(ctx, valgrind, &label, ops) {
        Ok(run) => results(ops, &run),
        Err(why) => ops
            .iter()
            .map(|&op| ScreenResult {
                ran: Ran::Failed(why.clone()),
                ..ScreenResult::not_screened(Screen::SecretFlow, op, "")
            })
            .collect(),
    }
}

/// What one worker under memcheck gave.
#[derive(Debug, Clone)]
pub struct WorkerRun {
    /// Its messages, one per operation it reached.
    pub messages: Vec<Message>,
    /// memcheck's report.
    pub memcheck: xml::Output,
    /// How the process ended, when not well (in words), with the end of its standard error.
    pub ended_badly: Option<String>,
}

/// A name for files from a label (`ML-KEM-768@pqclean/clean@gcc-12:O2`).
fn file_name(label: &str) -> String {
    label
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn run_worker(
    ctx: &Context,
    valgrind: &Path,
    label: &str,
    ops: &[Op],
) -> Result<WorkerRun, String> {
    let xml_path = ctx
        .work_dir
        .join(format!("memcheck-{}.xml", file_name(label)));
    let err_path = ctx
        .work_dir
        .join(format!("memcheck-{}.stderr", file_name(label)));
    std::fs::create_dir_all(&ctx.work_dir)
        .map_err(|e| format!("cannot create {}: {e}", ctx.work_dir.display()))?;
    let stderr = std::fs::File::create(&err_path)
        .map_err(|e| format!("cannot create {}: {e}", err_path.display()))?;
    let ops_arg: Vec<&str> = ops.iter().map(|o| o.as_str()).collect();
    let mut cmd = Command::new(valgrind);
    cmd.args(memcheck_args(&xml_path))
        .arg(&ctx.exe)
        .args(["ct-worker", "--label", label, "--ops", &ops_arg.join(",")])
        .args(["--seed", &ctx.seed.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(stderr);
    if ctx.include_mock {
        cmd.arg("--include-mock");
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", valgrind.display()))?;
    let mut stdout = child.stdout.take().expect("stdout is piped");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if start.elapsed() >= ctx.worker_timeout => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => return Err(format!("waiting for the worker of {label}: {e}")),
        }
    };
    let out = reader.join().unwrap_or_default();
    let messages = out.lines().filter_map(worker::parse).collect();
    let err_tail = std::fs::read_to_string(&err_path)
        .map(|s| tail(&s, 600))
        .unwrap_or_default();
    let ended_badly = match status {
        None => Some(format!(
            "stopped after {} s (the worker timeout) under memcheck",
            seconds(ctx.worker_timeout)
        )),
        Some(s) if !s.success() => Some(format!(
            "the worker under memcheck ended with {s}{}",
            if err_tail.is_empty() {
                String::new()
            } else {
                format!(": {err_tail}")
            }
        )),
        Some(_) => None,
    };
    let text = std::fs::read_to_string(&xml_path).unwrap_or_default();
    let memcheck = match xml::parse(&text) {
        Ok(m) => m,
        Err(e) => return Err(format!("{}: {e}", xml_path.display())),
    };
    if memcheck.errors.is_empty() && !memcheck.complete && ended_badly.is_none() {
        return Err(format!(
            "memcheck wrote no complete XML to {}{}",
            xml_path.display(),
            if err_tail.is_empty() {
                String::new()
            } else {
                format!(": {err_tail}")
            }
        ));
    }
    Ok(WorkerRun {
        messages,
        memcheck,
        ended_badly,
    })
}

/// Seconds in words: whole seconds as such, a fraction with one decimal.
fn seconds(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        d.as_secs().to_string()
    } else {
        format!("{:.1}", d.as_secs_f64())
    }
}

fn tail(s: &str, n: usize) -> String {
    let s = s.trim();
    let start = s.len().saturating_sub(n);
    let start = (start..=s.len())
        .find(|&i| s.is_char_boundary(i))
        .unwrap_or(s.len());
    s[start..].to_string()
}

/// The screen's results from a worker's run: one per operation, in order.
pub fn results(ops: &[Op], run: &WorkerRun) -> Vec<ScreenResult> {
    let Attributed { findings, own } = attribute(&run.memcheck, ops);
    ops.iter()
        .map(|&op| {
            let message = run.messages.iter().find(|m| message_op(m) == op);
            let (ran, how) = match (message, &run.ended_badly) {
                (Some(Message::Screened { how, .. }), None) => (Ran::Screened, how.clone()),
                (Some(Message::Screened { how, .. }), Some(bad)) => (
                    Ran::Failed(format!("the call was made, then {bad}")),
                    how.clone(),
                ),
                (Some(Message::Cannot { why, .. }), _) => {
                    (Ran::NotScreened(why.clone()), String::new())
                }
                (Some(Message::Failed { error, .. }), _) => {
                    (Ran::Failed(error.clone()), String::new())
                }
                (None, bad) => (
                    Ran::Failed(match bad {
                        Some(bad) => format!("no answer for {}: {bad}", op.as_str()),
                        None => format!("the worker gave no answer for {}", op.as_str()),
                    }),
                    String::new(),
                ),
            };
            let findings = findings
                .iter()
                .filter(|(o, _)| *o == op)
                .map(|(_, f)| f.clone())
                .collect();
            let how = with_own(how, own.iter().filter(|(o, _)| *o == op).map(|(_, f)| f));
            ScreenResult {
                screen: Screen::SecretFlow,
                operation: op,
                ran,
                how,
                findings,
                timing: None,
            }
        })
        .collect()
}

fn message_op(m: &Message) -> Op {
    match m {
        Message::Screened { op, .. } | Message::Cannot { op, .. } | Message::Failed { op, .. } => {
            *op
        }
    }
}

/// The operation whose marker is on `stack`, and where the marker is.
fn marker_of(stack: &[Frame]) -> Option<(Op, usize)> {
    stack.iter().enumerate().find_map(|(i, f)| {
        let name = f.function.as_deref()?;
        MARKERS
            .iter()
            .find(|(_, m)| *m == name)
            .map(|(op, _)| (*op, i))
    })
}

/// Functions of the worker itself between the marker and the library: not the library's code.
fn worker_frame(name: &str) -> bool {
    name == "screened" || name == "UnknownInlinedFun" || name.starts_with("kembench::ct::worker::")
}

/// Frames of Rust's standard library, skipped when naming the innermost function of the
/// implementation's own code.
fn std_frame(name: &str) -> bool {
    [
        "core::", "alloc::", "std::", "<core::", "<alloc::", "<std::",
    ]
    .iter()
    .any(|p| name.starts_with(p))
}

fn short_object(o: &str) -> String {
    Path::new(o)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| o.to_string())
}

/// `how`, with the errors memcheck reported in kembench's own code during the operation said
/// after it (never a finding of the library, but not hidden from a reader of the record).
fn with_own<'a>(how: String, own: impl Iterator<Item = &'a Finding>) -> String {
    let own: Vec<String> = own
        .map(|f| format!("{} {} ({}x)", f.kind.short(), f.function, f.count_per_call))
        .collect();
    if own.is_empty() {
        return how;
    }
    let said = format!(
        "memcheck also reported {} error(s) in kembench's own code, not the library's, so not \
         findings: {}",
        own.len(),
        own.join("; ")
    );
    if how.is_empty() {
        said
    } else {
        format!("{how}; {said}")
    }
}

/// memcheck's leak records (`Leak_DefinitelyLost`, `Leak_PossiblyLost`, ...): where memory
/// was allocated and never freed. Not a use of a secret, so never a secret-flow finding.
fn is_leak(kind: &str) -> bool {
    kind.starts_with("Leak_")
}

/// Whether `name` is a function of kembench's own code (its adapters, registry, workers),
/// rather than of a library it screens. The mock provider is the library of the mock
/// implementations, not the harness: its functions are the mocks' own code.
fn own_function(name: &str) -> bool {
    let name = name.strip_prefix('<').unwrap_or(name);
    name.starts_with("kembench::") && !name.starts_with("kembench::providers::mock::")
}

/// Whether the innermost frame of code on `frames` (the stack inside the marker, Rust's
/// standard library and the worker's own frames passed over) is kembench's own. A frame with
/// no name is a library's (kembench's own code always has symbols): an error there is the
/// library's even when kembench's adapter is the next frame out.
fn own_error(frames: &[Frame]) -> bool {
    frames
        .iter()
        .find(|f| {
            !f.function
                .as_deref()
                .is_some_and(|n| worker_frame(n) || std_frame(n))
        })
        .and_then(|f| f.function.as_deref())
        .is_some_and(own_function)
}

/// The errors of a memcheck run, split: the library's findings, and the errors in kembench's
/// own code (not the library's), each with its operation.
#[derive(Debug, Default)]
pub struct Attributed {
    /// The library's findings.
    pub findings: Vec<(Op, Finding)>,
    /// Errors whose innermost frame of code is kembench's own: said, never charged to the
    /// library.
    pub own: Vec<(Op, Finding)>,
}

/// Each error as a finding of the operation whose marker is on its stack, deduplicated by
/// (operation, kind, function, line) with their counts added. An error with no marker on its
/// stack (a stack deeper than [`NUM_CALLERS`], a thread of the library's own) goes to the
/// operation of the error memcheck saw just before it, and its detail says so. Leak records
/// are dropped; an error whose innermost frame of code is kembench's own goes to `own`.
pub fn attribute(m: &xml::Output, ops: &[Op]) -> Attributed {
    let mut out = Attributed::default();
    let mut last_op = ops.first().copied();
    for e in m.errors.iter().filter(|e| !is_leak(&e.kind)) {
        let (op, cut, note) = match marker_of(&e.stack) {
            Some((op, i)) => (op, i, String::new()),
            None => match last_op {
                Some(op) => (
                    op,
                    e.stack.len(),
                    format!(
                        "; no kembench_ct_* marker on its stack ({} frames kept): attributed to \
                         {} because memcheck saw it right after that operation's errors",
                        e.stack.len(),
                        op.as_str()
                    ),
                ),
                None => continue,
            },
        };
        last_op = Some(op);
        let finding = finding(e, &e.stack[..cut], m.count(e), &note);
        let out = if own_error(&e.stack[..cut]) {
            &mut out.own
        } else {
            &mut out.findings
        };
        match out.iter_mut().find(|(o, f)| {
            *o == op
                && f.kind == finding.kind
                && f.function == finding.function
                && f.line == finding.line
        }) {
            Some((_, f)) => f.count_per_call += finding.count_per_call,
            None => out.push((op, finding)),
        }
    }
    out
}

fn finding(e: &MemError, frames: &[Frame], count: u64, note: &str) -> Finding {
    let frames: Vec<&Frame> = frames
        .iter()
        .filter(|f| !f.function.as_deref().is_some_and(worker_frame))
        .collect();
    let named = |f: &&&Frame| f.function.as_deref().is_some_and(|n| n != "???");
    let at = frames
        .iter()
        .find(|f| named(f) && !std_frame(f.function.as_deref().unwrap_or("")))
        .or_else(|| frames.iter().find(named))
        .or(frames.first())
        .copied();
    let (kind, detail) = match e.kind.as_str() {
        "UninitCondition" => (FindingKind::Branch, e.what.clone()),
        "UninitValue" => (FindingKind::Index, e.what.clone()),
        "SyscallParam" => (FindingKind::Syscall, e.what.clone()),
        other => (FindingKind::Index, format!("memcheck {other}: {}", e.what)),
    };
    let function = at
        .and_then(|f| f.function.clone())
        .or_else(|| {
            at.and_then(|f| {
                f.object
                    .as_deref()
                    .map(|o| format!("??? in {}", short_object(o)))
            })
        })
        .unwrap_or_else(|| "???".into());
    Finding {
        kind,
        function,
        stack: frames
            .iter()
            .map(|f| f.function.clone().unwrap_or_else(|| "???".into()))
            .collect(),
        object: at.and_then(|f| f.object.as_deref()).map(short_object),
        line: at.and_then(|f| Some(format!("{}:{}", f.file.as_deref()?, f.line?))),
        count_per_call: count,
        secret_operands: None,
        detail: format!("{detail}{note}"),
        explained: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(f: &str, file: Option<(&str, u32)>) -> Frame {
        Frame {
            function: Some(f.into()),
            object: Some("/x/kembench".into()),
            file: file.map(|(f, _)| f.to_string()),
            dir: None,
            line: file.map(|(_, l)| l),
        }
    }

    fn error(unique: &str, kind: &str, stack: Vec<Frame>) -> MemError {
        MemError {
            unique: unique.into(),
            kind: kind.into(),
            what: "w".into(),
            stack,
        }
    }

    #[test]
    fn errors_go_to_the_operation_of_their_marker_deduplicated_and_counted() {
        let leak = |u: &str| {
            error(
                u,
                "UninitCondition",
                vec![
                    frame("core::cmp::impls::lt", Some(("cmp.rs", 1))),
                    frame("lib::leak", Some(("lib.c", 9))),
                    frame("screened", None),
                    frame("kembench_ct_decaps", None),
                    frame("main", None),
                ],
            )
        };
        let mut m = xml::Output {
            errors: vec![
                leak("0x0"),
                leak("0x1"),
                error(
                    "0x2",
                    "UninitValue",
                    vec![frame("lib::t", None), frame("kembench_ct_keygen", None)],
                ),
                error("0x3", "InvalidRead", vec![frame("deep", None)]),
            ],
            ..Default::default()
        };
        m.counts.insert("0x0".into(), 2);
        m.counts.insert("0x1".into(), 3);
        let ops = [Op::Keygen, Op::Decaps];
        let f = attribute(&m, &ops).findings;
        assert_eq!(f.len(), 3, "{f:#?}");
        let (op, d) = &f[0];
        assert_eq!(*op, Op::Decaps);
        assert_eq!(d.kind, FindingKind::Branch);
        assert_eq!(
            d.function, "lib::leak",
            "the innermost frame of the library's own code"
        );
        assert_eq!(d.line.as_deref(), Some("lib.c:9"));
        assert_eq!(
            d.stack,
            ["core::cmp::impls::lt", "lib::leak"],
            "cut at the marker"
        );
        assert_eq!(d.count_per_call, 5);
        assert_eq!(f[1].0, Op::Keygen);
        assert_eq!(f[1].1.kind, FindingKind::Index);
        // No marker: kept, attributed to the operation before it, and said.
        assert_eq!(f[2].0, Op::Keygen);
        assert!(f[2].1.detail.starts_with("memcheck InvalidRead"));
        assert!(
            f[2].1.detail.contains("no kembench_ct_* marker"),
            "{}",
            f[2].1.detail
        );
    }

    /// memcheck's XML for a decapsulation's real finding, then the leak record the issue saw:
    /// kembench's own one-time leak of a package's description (allocated while the registry
    /// was made, outside any marker), reported at exit after the decaps error.
    const LEAK_AFTER_DECAPS: &str = r#"<?xml version="1.0"?>
<valgrindoutput>
<protocolversion>4</protocolversion>
<error>
  <unique>0x0</unique>
  <kind>UninitCondition</kind>
  <what>Conditional jump or move depends on uninitialised value(s)</what>
  <stack>
    <frame><ip>0x1</ip><obj>/x/kembench</obj><fn>aws_lc_0_28_x25519_scalar_mult</fn></frame>
    <frame><ip>0x2</ip><obj>/x/kembench</obj><fn>&lt;kembench::providers::awslc::X25519 as kembench::kem::Kem&gt;::decaps_kept</fn></frame>
    <frame><ip>0x3</ip><obj>/x/kembench</obj><fn>kembench_ct_decaps</fn></frame>
  </stack>
</error>
<error>
  <unique>0x1</unique>
  <kind>Leak_DefinitelyLost</kind>
  <xwhat><text>80 bytes in 1 blocks are definitely lost in loss record 3 of 9</text><leakedbytes>80</leakedbytes><leakedblocks>1</leakedblocks></xwhat>
  <stack>
    <frame><ip>0x4</ip><obj>/usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so</obj><fn>malloc</fn></frame>
    <frame><ip>0x5</ip><obj>/x/kembench</obj><fn>alloc::alloc::alloc</fn></frame>
    <frame><ip>0x6</ip><obj>/x/kembench</obj><fn>kembench::providers::built::manifest::CustomAlgorithm::leak</fn></frame>
    <frame><ip>0x7</ip><obj>/x/kembench</obj><fn>kembench::providers::registry::Registry::new</fn></frame>
  </stack>
</error>
<errorcounts>
  <pair><count>1</count><unique>0x0</unique></pair>
</errorcounts>
</valgrindoutput>
"#;

    #[test]
    fn a_leak_record_is_never_a_finding() {
        let m = xml::parse(LEAK_AFTER_DECAPS).unwrap();
        assert_eq!(m.errors.len(), 2, "the reader keeps both records");
        assert_eq!(m.errors[1].kind, "Leak_DefinitelyLost");
        let a = attribute(&m, &[Op::Decaps]);
        assert_eq!(a.findings.len(), 1, "{:#?}", a.findings);
        assert_eq!(a.findings[0].1.function, "aws_lc_0_28_x25519_scalar_mult");
        assert_eq!(a.findings[0].1.kind, FindingKind::Branch);
        assert!(a.own.is_empty(), "a leak is not even kembench's own error: {:#?}", a.own);
        assert!(memcheck_args(Path::new("x.xml")).contains(&"--leak-check=no".to_string()));
    }

    #[test]
    fn errors_in_kembenchs_own_code_are_not_the_librarys() {
        let adapter = "<kembench::providers::awslc::X25519 as kembench::kem::Kem>::decaps_kept";
        let lib = |f: &str| Frame {
            function: Some(f.into()),
            object: Some("/x/libfoo.so".into()),
            ..Default::default()
        };
        let unnamed = Frame {
            object: Some("/x/libfoo.so".into()),
            ..Default::default()
        };
        let m = xml::Output {
            errors: vec![
                // In kembench's adapter itself (past the standard library): its own.
                error(
                    "0x0",
                    "UninitCondition",
                    vec![
                        frame("core::cmp::impls::lt", None),
                        frame(adapter, None),
                        frame("kembench_ct_decaps", None),
                    ],
                ),
                // In the library, called from the adapter: the library's.
                error(
                    "0x1",
                    "UninitValue",
                    vec![lib("x25519_ladder"), frame(adapter, None), frame("kembench_ct_decaps", None)],
                ),
                // In the library's code without symbols, called from the adapter: the library's.
                error(
                    "0x2",
                    "UninitCondition",
                    vec![unnamed, frame(adapter, None), frame("kembench_ct_decaps", None)],
                ),
                // Outside any marker, in kembench's registry: its own, not the last operation's.
                error(
                    "0x3",
                    "InvalidRead",
                    vec![
                        frame("kembench::providers::built::manifest::CustomAlgorithm::leak", None),
                        frame("kembench::providers::registry::Registry::new", None),
                    ],
                ),
                // The mock provider is the mocks' library, not kembench's harness.
                error(
                    "0x4",
                    "UninitCondition",
                    vec![frame("kembench::providers::mock::leak", None), frame("kembench_ct_decaps", None)],
                ),
            ],
            ..Default::default()
        };
        let a = attribute(&m, &[Op::Decaps]);
        let names: Vec<&str> = a.findings.iter().map(|(_, f)| f.function.as_str()).collect();
        assert_eq!(
            names,
            ["x25519_ladder", adapter, "kembench::providers::mock::leak"],
            "the unnamed library frame is named by the next frame out, and still the library's"
        );
        let own: Vec<&str> = a.own.iter().map(|(_, f)| f.function.as_str()).collect();
        assert_eq!(
            own,
            [adapter, "kembench::providers::built::manifest::CustomAlgorithm::leak"]
        );
        // Said in the operation's `how`, not among its findings.
        let run = WorkerRun {
            messages: vec![Message::Screened {
                op: Op::Decaps,
                how: "h".into(),
            }],
            memcheck: m,
            ended_badly: None,
        };
        let r = &results(&[Op::Decaps], &run)[0];
        assert_eq!(r.findings.len(), 3);
        assert!(r.how.starts_with("h; memcheck also reported 2 error(s) in kembench's own code"), "{}", r.how);
    }

    #[test]
    fn messages_decide_whether_each_operation_ran() {
        let run = WorkerRun {
            messages: vec![
                Message::Screened {
                    op: Op::Keygen,
                    how: "h".into(),
                },
                Message::Cannot {
                    op: Op::Encaps,
                    why: "no".into(),
                },
            ],
            memcheck: xml::Output::default(),
            ended_badly: None,
        };
        let r = results(&[Op::Keygen, Op::Encaps, Op::Decaps], &run);
        assert_eq!(r[0].ran, Ran::Screened);
        assert_eq!(r[0].how, "h");
        assert_eq!(r[1].ran, Ran::NotScreened("no".into()));
        assert!(matches!(&r[2].ran, Ran::Failed(w) if w.contains("no answer")));
        let killed = WorkerRun {
            ended_badly: Some("stopped after 5 s".into()),
            ..run
        };
        let r = results(&[Op::Keygen, Op::Decaps], &killed);
        assert!(matches!(&r[0].ran, Ran::Failed(w) if w.contains("stopped after 5 s")));
        assert!(matches!(&r[1].ran, Ran::Failed(w) if w.contains("stopped after 5 s")));
    }
}
