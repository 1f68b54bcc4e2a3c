//! The few system calls the testbed makes itself: entering a network namespace (one thread
//! at a time), turning a veth's offloads off (the `SIOCETHTOOL` ioctl, so that no `ethtool`
//! binary is needed) and running `ip`, `tc` and `nft` with their failures sorted into
//! [`NetError`]s.

use super::NetError;
use std::ffi::CString;
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::process::Command;

/// Where `ip netns add NAME` keeps its namespaces.
pub(super) const NETNS_DIR: &str = "/var/run/netns";

/// Moves the calling thread (only it: `setns` acts on one thread) into network namespace `ns`.
/// Threads it spawns afterwards start there too.
pub(super) fn enter_netns(ns: &str) -> io::Result<()> {
    let f = File::open(format!("{NETNS_DIR}/{ns}"))?;
    // SAFETY: `f` is an open namespace file for the duration of the call; setns only changes
    // the calling thread's network namespace and touches no memory of ours.
    let r = unsafe { libc::setns(f.as_raw_fd(), libc::CLONE_NEWNET) };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Runs `f` on a fresh thread inside namespace `ns` and returns what it returns.
pub(super) fn in_netns<T: Send>(ns: &str, f: impl FnOnce() -> T + Send) -> Result<T, NetError> {
    std::thread::scope(|s| {
        s.spawn(|| {
            enter_netns(ns)
                .map_err(|e| NetError::Failed(format!("entering namespace {ns}: {e}")))?;
            Ok(f())
        })
        .join()
        .unwrap_or_else(|_| {
            Err(NetError::Failed(format!(
                "a thread in namespace {ns} panicked"
            )))
        })
    })
}

/// `struct ethtool_value` of `<linux/ethtool.h>`.
#[repr(C)]
struct EthtoolValue {
    cmd: u32,
    data: u32,
}

/// `struct ifreq` with its union used as `ifr_data` (40 bytes on 64-bit Linux).
#[repr(C)]
struct IfreqData {
    name: [libc::c_char; libc::IFNAMSIZ],
    data: *mut libc::c_void,
    _pad: [u8; 16],
}

/// The offloads turned off, as (name, get command, set command) of the legacy ethtool ioctls.
/// TSO and GSO off make TCP build MSS-sized segments (as pq-tls-benchmark's `ethtool -K ...
/// gso off gro off tso off`); transmit checksumming off makes the sender compute checksums,
/// which the relay needs: a frame it reads with a checksum left for the "hardware" and writes
/// again would arrive with a wrong one.
const OFFLOADS: [(&str, u32, u32); 5] = [
    ("tso", 0x1e, 0x1f),
    ("gso", 0x23, 0x24),
    ("gro", 0x2b, 0x2c),
    ("sg", 0x18, 0x19),
    ("tx-checksum", 0x16, 0x17),
];

/// One ethtool "value" ioctl on `dev` through socket `fd`.
fn ethtool(fd: &OwnedFd, dev: &str, cmd: u32, data: u32) -> io::Result<u32> {
    let mut value = EthtoolValue { cmd, data };
    let mut req = IfreqData {
        name: [0; libc::IFNAMSIZ],
        data: (&mut value as *mut EthtoolValue).cast(),
        _pad: [0; 16],
    };
    if dev.len() >= libc::IFNAMSIZ {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "interface name too long",
        ));
    }
    for (d, s) in req.name.iter_mut().zip(dev.bytes()) {
        *d = s as libc::c_char;
    }
    // SAFETY: `req` is a properly laid out `struct ifreq` whose data pointer points at `value`,
    // both alive for the call; SIOCETHTOOL reads and writes only those.
    let r = unsafe { libc::ioctl(fd.as_raw_fd(), libc::SIOCETHTOOL as _, &mut req) };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(value.data)
}

/// Turns TSO, GSO, GRO, scatter-gather and transmit checksumming off on `dev` (in the calling
/// thread's namespace) and checks that they read back off.
pub(super) fn offloads_off(dev: &str) -> Result<(), String> {
    // SAFETY: plain socket creation; the result is checked before use.
    let raw = unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) };
    if raw < 0 {
        return Err(format!("socket: {}", io::Error::last_os_error()));
    }
    // SAFETY: `raw` is a fresh descriptor that nothing else owns.
    let fd = unsafe { OwnedFd::from_raw_fd(raw) };
    for (name, _, set) in OFFLOADS {
        ethtool(&fd, dev, set, 0).map_err(|e| format!("{dev}: turning {name} off: {e}"))?;
    }
    for (name, get, _) in OFFLOADS {
        let v = ethtool(&fd, dev, get, 0).map_err(|e| format!("{dev}: reading {name}: {e}"))?;
        if v != 0 {
            return Err(format!("{dev}: {name} is still on"));
        }
    }
    Ok(())
}

/// The index of interface `dev` in the calling thread's namespace.
pub(super) fn ifindex(dev: &str) -> io::Result<libc::c_int> {
    let c = CString::new(dev).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    // SAFETY: `c` is a NUL-terminated string alive for the call.
    let i = unsafe { libc::if_nametoindex(c.as_ptr()) };
    if i == 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(i as libc::c_int)
}

/// Runs `program args...`; a missing program is [`NetError::Unavailable`], a refusal for lack
/// of privilege [`NetError::NotPermitted`], any other failure [`NetError::Failed`] with its
/// standard error.
pub(super) fn run(program: &str, args: &[&str], stdin: Option<&str>) -> Result<String, NetError> {
    use std::io::Write;
    use std::process::Stdio;
    let line = format!("{program} {}", args.join(" "));
    let mut cmd = Command::new(program);
    cmd.args(args).stdout(Stdio::piped()).stderr(Stdio::piped());
    cmd.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    });
    let mut child = cmd.spawn().map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => NetError::Unavailable(format!("`{program}` is not installed")),
        io::ErrorKind::PermissionDenied => {
            NetError::NotPermitted(format!("cannot run `{program}`: {e}"))
        }
        _ => NetError::Failed(format!("{line}: {e}")),
    })?;
    if let (Some(text), Some(mut pipe)) = (stdin, child.stdin.take()) {
        pipe.write_all(text.as_bytes())
            .map_err(|e| NetError::Failed(format!("{line}: writing its input: {e}")))?;
    }
    let out = child
        .wait_with_output()
        .map_err(|e| NetError::Failed(format!("{line}: {e}")))?;
    if out.status.success() {
        return Ok(String::from_utf8_lossy(&out.stdout).into_owned());
    }
    let err = String::from_utf8_lossy(&out.stderr).trim().to_string();
    let msg = format!(
        "{line}: {}",
        if err.is_empty() {
            out.status.to_string()
        } else {
            err
        }
    );
    let lower = msg.to_lowercase();
    // What this machine or user cannot do (no privilege, a read-only /run in a container) is
    // a refusal; anything else is a failure to be reported.
    if lower.contains("operation not permitted")
        || lower.contains("permission denied")
        || lower.contains("read-only file system")
    {
        Err(NetError::NotPermitted(msg))
    } else {
        Err(NetError::Failed(msg))
    }
}

/// Whether process `pid` is alive: it has a `/proc` entry and is not a zombie (a process
/// killed hard stays one until its parent reaps it).
pub(super) fn pid_alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // `pid (comm) S ...`: the state follows the last parenthesis (comm may contain any).
        Ok(stat) => stat
            .rfind(')')
            .and_then(|i| stat[i + 1..].split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X"),
        Err(_) => false,
    }
}
