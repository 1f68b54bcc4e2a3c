//! Inlined frames: which functions' code an instruction address holds, read from the object's
//! DWARF debug information (`DW_TAG_inlined_subroutine` entries, through `addr2line`).
//!
//! Compilers inline whole primitives into their callers (libcrux's four-way Keccak into
//! `generate_keypair_avx2`), so callgrind, which names a cost by the real frames of the call
//! chain, gives their instructions to the caller. The primitive shares of [`analyse_with`]
//! look through these frames too, address by address.
//!
//! Callgrind writes an address as the object file's own (the load offset taken off), which is
//! what the file's debug information uses: no load address is needed.
//!
//! [`analyse_with`]: super::analyse_with

use object::{Object, ObjectSection};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// One frame at an address: a function whose code is there, and the source file that code
/// comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InlineFrame {
    /// The function's name as the debug information gives it: a C function's name; for Rust
    /// built with line tables only, the name without its module path (`keccakf1600<...>`).
    pub function: String,
    /// The source file the frame's code at this address comes from (for an outer frame, the
    /// file of the call site inside it): a crate's path names the crate.
    pub file: String,
}

/// Where the analysis finds the frames at an address.
pub trait Inlines: Sync {
    /// The frames at `address` of `object` (a path, as callgrind's `ob=` names it), outermost
    /// first: the function callgrind names, then each function inlined into it down to the
    /// innermost. Empty when the object or the address has no debug information.
    fn frames(&self, object: &str, address: u64) -> Vec<InlineFrame>;
}

/// No debug information: shares are decided by the call chain's real frames alone.
pub struct NoInlines;

impl Inlines for NoInlines {
    fn frames(&self, _: &str, _: u64) -> Vec<InlineFrame> {
        Vec::new()
    }
}

type Reader = gimli::EndianArcSlice<gimli::RunTimeEndian>;

/// One object's debug information, looked up by one thread at a time.
type Shared = Arc<Mutex<addr2line::Context<Reader>>>;

/// The debug information of the objects a profile ran, each file read once, on first use.
/// An object that cannot be read or has none (a stripped library, compressed sections) gives
/// no frames.
#[derive(Default)]
pub struct DebugInfo {
    objects: Mutex<HashMap<String, Option<Shared>>>,
}

impl DebugInfo {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// The source file and line of the instruction at `address` of `object` (the innermost
    /// inlined frame's, as a line table gives it); `None` without line information there.
    pub fn line(&self, object: &str, address: u64) -> Option<(String, u32)> {
        let context = self.context(object)?;
        let context = context.lock().unwrap_or_else(|e| e.into_inner());
        let l = context.find_location(address).ok()??;
        Some((l.file?.to_string(), l.line.filter(|&n| n > 0)?))
    }

    fn context(&self, object: &str) -> Option<Shared> {
        let mut objects = self.objects.lock().unwrap_or_else(|e| e.into_inner());
        objects
            .entry(object.to_string())
            .or_insert_with(|| load(object).map(|c| Arc::new(Mutex::new(c))))
            .clone()
    }
}

impl Inlines for DebugInfo {
    fn frames(&self, object: &str, address: u64) -> Vec<InlineFrame> {
        let Some(context) = self.context(object) else {
            return Vec::new();
        };
        let context = context.lock().unwrap_or_else(|e| e.into_inner());
        let Ok(mut iter) = context.find_frames(address).skip_all_loads() else {
            return Vec::new();
        };
        let mut out = Vec::new();
        while let Ok(Some(f)) = iter.next() {
            out.push(InlineFrame {
                function: f
                    .function
                    .and_then(|n| n.demangle().ok().map(|c| c.into_owned()))
                    .unwrap_or_default(),
                file: f
                    .location
                    .and_then(|l| l.file)
                    .unwrap_or_default()
                    .to_string(),
            });
        }
        out.reverse();
        out
    }
}

/// Reads `path`'s DWARF sections into one context; `None` without debug information.
fn load(path: &str) -> Option<addr2line::Context<Reader>> {
    let data: Arc<[u8]> = std::fs::read(path).ok()?.into();
    let file = object::File::parse(&*data).ok()?;
    if !file.sections().any(|s| s.name() == Ok(".debug_info")) {
        return None;
    }
    let endian = if file.is_little_endian() {
        gimli::RunTimeEndian::Little
    } else {
        gimli::RunTimeEndian::Big
    };
    let whole = Reader::new(data.clone(), endian);
    let mut compressed = false;
    let dwarf = gimli::Dwarf::load(|id| -> Result<Reader, gimli::Error> {
        let range = file.section_by_name(id.name()).and_then(|s| {
            let c = s.compressed_file_range().ok()?;
            if c.format != object::CompressionFormat::None {
                compressed = true;
                return None;
            }
            Some(c.offset as usize..(c.offset + c.compressed_size) as usize)
        });
        Ok(match range {
            Some(r) if r.end <= data.len() => whole.range(r),
            _ => whole.range(0..0),
        })
    })
    .ok()?;
    if compressed {
        return None;
    }
    addr2line::Context::from_dwarf(dwarf).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use object::ObjectSymbol;

    /// This test binary's own debug information gives the frames at the address of one of
    /// its functions: the function itself, named, in this file; an object that is not there
    /// gives none.
    #[test]
    fn frames_of_a_function_of_this_binary() {
        #[inline(never)]
        fn probe_target(x: u64) -> u64 {
            std::hint::black_box(x).wrapping_mul(3)
        }
        assert_eq!(probe_target(2), 6);
        let exe = std::env::current_exe().unwrap();
        let data = std::fs::read(&exe).unwrap();
        let file = object::File::parse(&*data).unwrap();
        let address = file
            .symbols()
            .find(|s| s.name().is_ok_and(|n| n.contains("probe_target")))
            .map(|s| s.address())
            .expect("the probe function's symbol");
        let info = DebugInfo::new();
        let frames = info.frames(exe.to_str().unwrap(), address);
        let outermost = frames.first().expect("frames at the probe function");
        assert!(outermost.function.contains("probe_target"), "{frames:?}");
        assert!(
            outermost.file.ends_with("callgrind/inline.rs"),
            "{frames:?}"
        );
        assert!(info.frames("/nonexistent/object", 0x1000).is_empty());
        let (file, line) = info.line(exe.to_str().unwrap(), address).expect("a line");
        // The innermost inlined frame's line (here `black_box`'s).
        assert_eq!(file, frames.last().unwrap().file, "{frames:?}");
        assert!(line > 0);
        assert!(info.line("/nonexistent/object", 0x1000).is_none());
    }
}
