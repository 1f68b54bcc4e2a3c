//! The parent's side of a benchmark worker: spawn it, send a request, wait for the reply
//! within a timeout while watching for Ctrl-C, and say how it ended when it did not answer.

use super::protocol::{self, Init, Reply, Request};
use crate::engine::ended::Ended;
use std::io::{BufRead, BufReader};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// Raises this process's soft stack limit to the worker's stack, within the hard limit, so that
/// the worker measures on its main thread (see `worker::serve`). Best effort: when the limit
/// cannot be raised the worker measures on a thread of its own.
fn raise_stack_limit() {
    let want = crate::kem::MEGABYTE_KEYS_STACK as libc::rlim_t;
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one rlimit into `r`; setrlimit reads it.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_STACK, &mut r) == 0
            && r.rlim_cur != libc::RLIM_INFINITY
            && r.rlim_cur < want
        {
            r.rlim_cur = if r.rlim_max == libc::RLIM_INFINITY {
                want
            } else {
                want.min(r.rlim_max)
            };
            libc::setrlimit(libc::RLIMIT_STACK, &r);
        }
    }
}

/// A running worker process.
pub struct Worker {
    child: Child,
    stdin: Option<ChildStdin>,
    replies: Receiver<Option<Result<Reply, String>>>,
}

impl Worker {
    /// Starts `exe run-worker` for `init.label` and waits for it to load the implementation.
    /// The worker gets its own process group, so Ctrl-C at the terminal reaches only `run`,
    /// which decides what to do.
    pub fn start(
        exe: &Path,
        init: &Init,
        timeout: Duration,
        abort: &dyn Fn() -> bool,
    ) -> Result<Worker, Ended> {
        let mut cmd = Command::new(exe);
        cmd.arg("run-worker")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .process_group(0);
        // SAFETY: the closure runs in the child between fork and exec and calls only
        // getrlimit and setrlimit, which are async-signal-safe, on a local value.
        unsafe {
            cmd.pre_exec(|| {
                raise_stack_limit();
                Ok(())
            });
        }
        let mut child = cmd
            .spawn()
            .map_err(|e| Ended::Garbled(format!("cannot start {}: {e}", exe.display())))?;
        let stdout = child.stdout.take().expect("piped");
        let (tx, rx) = std::sync::mpsc::channel();
        let tag = init.label.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                match protocol::WIRE.decode(&line) {
                    Some(r) => {
                        if tx.send(Some(r.map_err(|e| e.to_string()))).is_err() {
                            return;
                        }
                    }
                    // Whatever else the implementation prints is passed on, labelled.
                    None => eprintln!("[{tag}] {line}"),
                }
            }
            let _ = tx.send(None);
        });
        let mut w = Worker {
            stdin: child.stdin.take(),
            child,
            replies: rx,
        };
        match w.call(&Request::Init(Box::new(init.clone())), timeout, abort)? {
            Reply::Ready => Ok(w),
            Reply::Fatal(why) => Err(Ended::Garbled(why)),
            other => Err(Ended::Garbled(format!("expected Ready, got {other:?}"))),
        }
    }

    /// Sends `req` and waits up to `timeout` for the reply, checking `abort` ten times a
    /// second. On any failure the worker is gone (killed if it was still running).
    pub fn call(
        &mut self,
        req: &Request,
        timeout: Duration,
        abort: &dyn Fn() -> bool,
    ) -> Result<Reply, Ended> {
        let sent = self.stdin.as_mut().map(|s| protocol::WIRE.write(s, req));
        if !matches!(sent, Some(Ok(()))) {
            return Err(self.reap());
        }
        let start = Instant::now();
        loop {
            match self.replies.recv_timeout(Duration::from_millis(100)) {
                Ok(Some(Ok(r))) => return Ok(r),
                Ok(Some(Err(why))) => {
                    self.kill();
                    return Err(Ended::Garbled(why));
                }
                Ok(None) | Err(RecvTimeoutError::Disconnected) => return Err(self.reap()),
                Err(RecvTimeoutError::Timeout) => {
                    if abort() {
                        self.kill();
                        return Err(Ended::Aborted);
                    }
                    if start.elapsed() >= timeout {
                        self.kill();
                        return Err(Ended::TimedOut);
                    }
                }
            }
        }
    }

    /// How the process ended, once its output closed (killing it if it lingers).
    fn reap(&mut self) -> Ended {
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => {
                    return Ended::Died {
                        signal: status.signal(),
                        code: status.code(),
                    }
                }
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(20))
                }
                _ => {
                    self.kill();
                    return Ended::Died {
                        signal: Some(libc::SIGKILL),
                        code: None,
                    };
                }
            }
        }
    }

    /// Kills the worker and waits for it.
    pub fn kill(&mut self) {
        self.stdin = None;
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        // Closing stdin ends a worker that is waiting for requests; one that is busy is
        // killed so that no process outlives the run.
        self.stdin = None;
        let deadline = Instant::now() + Duration::from_millis(500);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        self.kill();
    }
}
