//! Builds for another architecture (`kembench builds --arch s390x`), as implementations: each
//! is a static program (the scheme's sources and kembench's [driver](DRIVER_C)) run under
//! QEMU's user-mode emulator (`qemu-s390x`), spoken to over a pipe. Every operation is one
//! command; every random draw the scheme makes is asked of kembench, so the generators that
//! serve native builds (the operating system's, `profile`'s seeded stream, NIST's DRBG for known
//! answers) serve foreign ones, and `verify`'s checks (round trips, known answers,
//! interoperability with the host's implementations of the same algorithm) run on them
//! unchanged. Time under emulation means nothing: foreign builds are verified and counted,
//! never timed.

use crate::arch::Arch;
use crate::kem::{BuildFacts, ImplMeta, Kem, KemError, Randomness, SeedLens};
use crate::providers::built::Entry;
use crate::providers::{drbg, seeded};
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Arc, Mutex};

/// The C source of the driver compiled into every foreign build.
pub const DRIVER_C: &str = include_str!("driver.c");

/// A running driver.
struct Proc {
    child: Child,
    input: BufWriter<ChildStdin>,
    output: BufReader<ChildStdout>,
    /// What it wrote on standard error (kept for the error when it dies).
    stderr: Arc<Mutex<Vec<u8>>>,
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One foreign build, as an implementation.
pub struct Foreign {
    meta: ImplMeta,
    entry: Entry,
    arch: Arch,
    program: PathBuf,
    /// Extra arguments for QEMU before the program (a plugin).
    qemu_args: Vec<String>,
    /// A seeded stream of this instance's own ([`Foreign::with_seed`]), which serves its draws
    /// before any process-wide generator.
    stream: Mutex<Option<rand_chacha::ChaCha20Rng>>,
    proc: Mutex<Option<Proc>>,
}

/// The answer to one command: the byte strings after `ok`.
type Reply = Vec<Vec<u8>>;

impl Foreign {
    /// The foreign build recorded in `entry`, whose program lies under `root`; `None` when it
    /// was not built or its algorithm is not in the catalog.
    pub fn new(root: &Path, entry: Entry) -> Option<Foreign> {
        if entry.compiled != crate::providers::built::manifest::Compiled::Built {
            return None;
        }
        let arch = crate::arch::Arch::of(entry.facts.arch.as_deref())?;
        let algorithm = crate::kem::catalog::find(&entry.algorithm)?;
        let f = &entry.facts;
        let version = format!(
            "{}, cross-compiled for {arch} by kembench with {} ({}), run under {}",
            f.source_version,
            f.compiler_version,
            f.flags_said(),
            arch.qemu()
        );
        Some(Foreign {
            meta: ImplMeta {
                algorithm,
                implementation: f.implementation.clone(),
                version,
                dispatch: "a foreign build, run under user-mode emulation",
            },
            program: entry.library(root),
            arch,
            entry,
            qemu_args: Vec::new(),
            stream: Mutex::new(None),
            proc: Mutex::new(None),
        })
    }

    /// The same build, its emulator started with `args` before the program (a plugin).
    pub fn with_qemu_args(mut self, args: Vec<String>) -> Foreign {
        self.qemu_args = args;
        self
    }

    /// The same build drawing from a ChaCha20 stream keyed with `seed` of its own (the stream
    /// `profile`'s seeded source gives a thread for the same seed), so that foreign builds
    /// profiled side by side, each with its seed, do not share one process-wide generator.
    pub fn with_seed(self, seed: &[u8; 32]) -> Foreign {
        use rand_chacha::rand_core::SeedableRng;
        *self.stream.lock().unwrap_or_else(|p| p.into_inner()) =
            Some(rand_chacha::ChaCha20Rng::from_seed(*seed));
        self
    }

    /// The foreign build labelled `label` in the build cache.
    pub fn find(label: &str) -> Option<Foreign> {
        use crate::providers::built::manifest;
        let root = manifest::dir();
        manifest::all(&root)
            .into_iter()
            .filter(|e| e.facts.arch.is_some() && e.label() == label)
            .find_map(|e| Foreign::new(&root, e))
    }

    /// Fills `buf`: this instance's stream, else NIST's DRBG while a known-answer transcript
    /// is made, else `profile`'s seeded source, else the operating system.
    fn fill(&self, buf: &mut [u8]) -> std::io::Result<()> {
        use rand_chacha::rand_core::RngCore;
        if let Some(rng) = self
            .stream
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_mut()
        {
            rng.fill_bytes(buf);
            return Ok(());
        }
        if drbg::kat_fill(buf) {
            return Ok(());
        }
        seeded::fill_or_os(buf).map_err(|e| std::io::Error::other(e.to_string()))
    }

    /// The architecture it runs on.
    pub fn arch(&self) -> Arch {
        self.arch
    }

    /// The CPU as the emulator presents it to the program: the driver reads its own auxiliary
    /// vector (`AT_HWCAP`, `AT_HWCAP2`, `AT_PLATFORM`).
    pub fn cpu(&self) -> Result<EmulatedCpu, KemError> {
        let r = self.command("cpu", "cpu")?;
        let word = |i: usize| {
            r.get(i)
                .and_then(|w| <[u8; 8]>::try_from(w.as_slice()).ok())
                .map(u64::from_be_bytes)
        };
        let (Some(hwcap), Some(hwcap2)) = (word(0), word(1)) else {
            return Err(KemError::Failure(format!(
                "the driver's answer to `cpu` is malformed: {r:?}"
            )));
        };
        let platform = r
            .get(2)
            .map(|p| String::from_utf8_lossy(p).into_owned())
            .unwrap_or_default();
        Ok(EmulatedCpu {
            arch: self.arch,
            hwcap,
            hwcap2,
            platform,
        })
    }

    /// Its static program.
    pub fn program(&self) -> &Path {
        &self.program
    }

    fn start(&self) -> Result<Proc, KemError> {
        let qemu = self.arch.emulator().map_err(KemError::Failure)?;
        // The same start on every machine and in every run: the program's stack holds its
        // environment and path, whose lengths move the stack, and with it the alignment
        // `memset` and `memcpy` meet (an inherited environment changed a liboqs decapsulation
        // by 76 to 1,635 instructions). So the driver starts with an empty environment, from
        // its own directory, as `./driver`.
        let (dir, name) = match (self.program.parent(), self.program.file_name()) {
            (Some(d), Some(n)) => (d, Path::new(".").join(n)),
            _ => (Path::new("."), self.program.clone()),
        };
        let mut child = Command::new(qemu)
            .env_clear()
            .current_dir(dir)
            .args(&self.qemu_args)
            .arg(&name)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| KemError::Failure(format!("cannot start {}: {e}", self.arch.qemu())))?;
        let stderr = Arc::new(Mutex::new(Vec::new()));
        if let Some(mut err) = child.stderr.take() {
            let sink = Arc::clone(&stderr);
            std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                while let Ok(n) = err.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    let mut s = sink.lock().unwrap_or_else(|p| p.into_inner());
                    if s.len() < 1 << 16 {
                        s.extend_from_slice(&buf[..n]);
                    }
                }
            });
        }
        let (Some(i), Some(o)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(KemError::Failure(
                "the driver's pipes were not opened".into(),
            ));
        };
        Ok(Proc {
            child,
            input: BufWriter::new(i),
            output: BufReader::new(o),
            stderr,
        })
    }

    /// Why the driver stopped answering: how it ended and its last words.
    fn died(&self, p: &mut Proc, what: &str) -> KemError {
        use std::os::unix::process::ExitStatusExt;
        // Closing its input lets a driver that is still alive end; then it is reaped.
        let how = match p.child.try_wait() {
            Ok(Some(s)) => match s.signal() {
                Some(sig) => format!("killed by {}", crate::signals::signal_name(sig)),
                None => format!("exited {}", s.code().unwrap_or(-1)),
            },
            _ => {
                let _ = p.child.kill();
                "stopped answering".into()
            }
        };
        let _ = p.child.wait();
        std::thread::sleep(std::time::Duration::from_millis(20));
        let err = p.stderr.lock().unwrap_or_else(|e| e.into_inner());
        let last = String::from_utf8_lossy(&err)
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .map(|l| format!(" ({})", l.trim()))
            .unwrap_or_default();
        KemError::Failure(format!(
            "the {} build under {} was {how} during {what}{last}",
            self.arch,
            self.arch.qemu()
        ))
    }

    /// Sends one command and reads its answer, serving the random draws it asks for.
    fn command(&self, line: &str, what: &str) -> Result<Reply, KemError> {
        let mut guard = self.proc.lock().unwrap_or_else(|p| p.into_inner());
        if guard.is_none() {
            *guard = Some(self.start()?);
        }
        let p = guard.as_mut().ok_or(KemError::Unsupported)?;
        let result = talk(p, line, &mut |b| self.fill(b));
        match result {
            Ok(Answer::Ok(r)) => Ok(r),
            Ok(Answer::Err(e)) => Err(KemError::Failure(format!("{what} {e}"))),
            Ok(Answer::Unsupported) => Err(KemError::Unsupported),
            Err(_) => {
                let mut p = guard.take().ok_or(KemError::Unsupported)?;
                Err(self.died(&mut p, what))
            }
        }
    }

    fn expect(reply: Reply, lens: &[usize], what: &str) -> Result<Reply, KemError> {
        let got: Vec<usize> = reply.iter().map(Vec::len).collect();
        if got != lens {
            return Err(KemError::Failure(format!(
                "{what} answered {got:?} bytes, expected {lens:?}"
            )));
        }
        Ok(reply)
    }

    /// Sends a command (`k`, `e PK`, ... or with `m ` before it, counted) and checks the
    /// lengths of what comes back.
    pub fn call(&self, line: &str, lens: &[usize], what: &str) -> Result<Reply, KemError> {
        Foreign::expect(self.command(line, what)?, lens, what)
    }

    fn lens(&self) -> [usize; 4] {
        let a = self.meta.algorithm;
        [a.pk_len, a.sk_len, a.ct_len, a.ss_len]
    }
}

/// The (pk, sk, ct, ss) bytes a package's shim declares in a foreign build's static program
/// (`kembench_api_sizes`, four 64-bit words in the target's byte order), read from the ELF file
/// itself: the program cannot be loaded into kembench.
pub fn api_sizes(program: &Path) -> Result<[usize; 4], String> {
    use object::{Object, ObjectSection, ObjectSymbol};
    let symbol = crate::providers::built::API_SIZES_SYMBOL;
    let data = std::fs::read(program).map_err(|e| format!("{}: {e}", program.display()))?;
    let file = object::File::parse(&*data).map_err(|e| format!("{}: {e}", program.display()))?;
    let sym = file
        .symbols()
        .find(|s| s.name() == Ok(symbol))
        .ok_or_else(|| format!("{} has no {symbol}", program.display()))?;
    let section = sym
        .section_index()
        .and_then(|i| file.section_by_index(i).ok())
        .ok_or_else(|| format!("{symbol} is in no section of {}", program.display()))?;
    let bytes = section
        .data_range(sym.address(), 32)
        .ok()
        .flatten()
        .ok_or_else(|| format!("{symbol}'s 32 bytes are not in {}", program.display()))?;
    let mut out = [0usize; 4];
    for (o, w) in out.iter_mut().zip(bytes.chunks_exact(8)) {
        let w: [u8; 8] = w.try_into().unwrap_or_default();
        let v = if file.is_little_endian() {
            u64::from_le_bytes(w)
        } else {
            u64::from_be_bytes(w)
        };
        *o = usize::try_from(v).map_err(|_| format!("{symbol} holds {v}"))?;
    }
    Ok(out)
}

/// The CPU an emulator presents to a program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmulatedCpu {
    /// The architecture.
    pub arch: Arch,
    /// `AT_HWCAP`.
    pub hwcap: u64,
    /// `AT_HWCAP2`.
    pub hwcap2: u64,
    /// `AT_PLATFORM` (`z15`, `power9`, `aarch64`), empty where the emulator sets none.
    pub platform: String,
}

impl EmulatedCpu {
    /// `platform z15; vector and crypto: msa vxrs vxrs_ext vxrs_ext2`.
    pub fn describe(&self) -> String {
        let caps = self.arch.capabilities(self.hwcap, self.hwcap2);
        format!(
            "platform {}; vector and crypto capabilities: {} (AT_HWCAP {:#x}, AT_HWCAP2 {:#x})",
            if self.platform.is_empty() {
                "(not set)"
            } else {
                &self.platform
            },
            if caps.is_empty() {
                "none".to_string()
            } else {
                caps.join(" ")
            },
            self.hwcap,
            self.hwcap2
        )
    }
}

enum Answer {
    Ok(Reply),
    Err(String),
    Unsupported,
}

/// One exchange with the driver; an I/O error or an answer it cannot read means it died.
fn talk(
    p: &mut Proc,
    line: &str,
    fill: &mut dyn FnMut(&mut [u8]) -> std::io::Result<()>,
) -> std::io::Result<Answer> {
    let bad = |m: String| std::io::Error::new(std::io::ErrorKind::InvalidData, m);
    writeln!(p.input, "{line}")?;
    p.input.flush()?;
    let mut buf = String::new();
    loop {
        buf.clear();
        if p.output.read_line(&mut buf)? == 0 {
            return Err(bad("the driver closed its output".into()));
        }
        let l = buf.trim_end();
        if let Some(n) = l.strip_prefix("r ") {
            let n: usize = n.parse().map_err(|_| bad(format!("bad request {l}")))?;
            let mut bytes = vec![0u8; n];
            fill(&mut bytes)?;
            writeln!(p.input, "{}", hex::encode(&bytes))?;
            p.input.flush()?;
            continue;
        }
        if l == "unsupported" {
            return Ok(Answer::Unsupported);
        }
        if let Some(e) = l.strip_prefix("err ") {
            return Ok(Answer::Err(match e {
                "replay" => "gave other bytes when replayed with the same random bytes".into(),
                rc => format!("returned {rc}"),
            }));
        }
        let mut words = l.split(' ');
        if words.next() != Some("ok") {
            return Err(bad(format!("unexpected answer {l:.80}")));
        }
        let reply: Result<Reply, _> = words.map(hex::decode).collect();
        return reply
            .map(Answer::Ok)
            .map_err(|e| bad(format!("bad hex: {e}")));
    }
}

impl Kem for Foreign {
    fn meta(&self) -> &ImplMeta {
        &self.meta
    }

    fn build(&self) -> Option<&BuildFacts> {
        Some(&self.entry.facts)
    }

    fn keypair_raw(&self, pk: &mut [u8], sk: &mut [u8]) -> Result<(), KemError> {
        let [p, s, _, _] = self.lens();
        let r = self.call("k", &[p, s], "keypair")?;
        pk.copy_from_slice(&r[0]);
        sk.copy_from_slice(&r[1]);
        Ok(())
    }

    fn encaps_raw(&self, pk: &[u8], ct: &mut [u8], ss: &mut [u8]) -> Result<(), KemError> {
        let [_, _, c, s] = self.lens();
        let r = self.call(&format!("e {}", hex::encode(pk)), &[c, s], "enc")?;
        ct.copy_from_slice(&r[0]);
        ss.copy_from_slice(&r[1]);
        Ok(())
    }

    fn decaps_raw(&self, sk: &[u8], ct: &[u8], ss: &mut [u8]) -> Result<(), KemError> {
        let [_, _, _, s] = self.lens();
        let line = format!("d {} {}", hex::encode(sk), hex::encode(ct));
        let r = self.call(&line, &[s], "dec")?;
        ss.copy_from_slice(&r[0]);
        Ok(())
    }

    fn seed_lens(&self) -> SeedLens {
        self.entry.symbols.seed_lens()
    }

    fn keypair_derand_raw(
        &self,
        seed: &[u8],
        pk: &mut [u8],
        sk: &mut [u8],
    ) -> Result<(), KemError> {
        let [p, s, _, _] = self.lens();
        let line = format!("kd {}", hex::encode(seed));
        let r = self.call(&line, &[p, s], "keypair_derand")?;
        pk.copy_from_slice(&r[0]);
        sk.copy_from_slice(&r[1]);
        Ok(())
    }

    fn encaps_derand_raw(
        &self,
        pk: &[u8],
        seed: &[u8],
        ct: &mut [u8],
        ss: &mut [u8],
    ) -> Result<(), KemError> {
        let [_, _, c, s] = self.lens();
        let line = format!("ed {} {}", hex::encode(pk), hex::encode(seed));
        let r = self.call(&line, &[c, s], "enc_derand")?;
        ct.copy_from_slice(&r[0]);
        ss.copy_from_slice(&r[1]);
        Ok(())
    }

    fn fix_randomness(&self, seed: &[u8; 32]) -> Randomness {
        seeded::install(seed);
        Randomness::Fixed(
            "every draw is asked of kembench by the driver compiled into the build, which serves \
             the seeded ChaCha20 stream"
                .into(),
        )
    }

    fn known_answer_transcript(&self, entries: usize) -> Option<Result<String, KemError>> {
        Some(drbg::kat_transcript(self, entries))
    }

    fn known_answer_digest(&self) -> Option<(String, String)> {
        self.entry.kat_sha256.clone()
    }

    /// A package's own KAT file (`kembench add --arch`), regenerated by the foreign program.
    fn known_answer_file(&self) -> Option<PathBuf> {
        self.entry.kat_file.clone()
    }
}
