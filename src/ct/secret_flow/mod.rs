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

pub mod xml;

use super::worker::{self, Message, MARKERS};
use super::Context;
use crate::kem::{Kem, MEGABYTE_KEYS_STACK};
use crate::measure::sampler::Op;
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
    let findings = attribute(&run.memcheck, ops);
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

/// Each error as a finding of the operation whose marker is on its stack, deduplicated by
/// (operation, kind, function, line) with their counts added. An error with no marker on its
/// stack (a stack deeper than [`NUM_CALLERS`], a thread of the library's own) goes to the
/// operation of the error memcheck saw just before it, and its detail says so.
pub fn attribute(m: &xml::Output, ops: &[Op]) -> Vec<(Op, Finding)> {
    let mut out: Vec<(Op, Finding)> = Vec::new();
    let mut last_op = ops.first().copied();
    for e in &m.errors {
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
        let f = attribute(&m, &ops);
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
