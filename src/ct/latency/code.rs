//! The machine code at an address of an object file (the kembench executable, a shared
//! library), as callgrind names both: the object's path and the address in the file's own
//! layout (the load offset taken off), which is what its sections' addresses are.

use object::{Object, ObjectSection, SectionKind};
use std::collections::HashMap;

/// One object's executable sections: (address, bytes).
struct Text {
    sections: Vec<(u64, Vec<u8>)>,
}

/// The code of the objects a screen saw, each file read once.
#[derive(Default)]
pub struct Code {
    objects: HashMap<String, Result<Text, String>>,
}

impl Code {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// Up to [`super::instructions::MAX_LEN`] bytes from `address` of `object` (fewer at the
    /// end of a section), or why there are none: the file cannot be read or parsed, or no
    /// executable section holds the address.
    pub fn at(&mut self, object: &str, address: u64) -> Result<&[u8], String> {
        let text = self
            .objects
            .entry(object.to_string())
            .or_insert_with(|| load(object))
            .as_ref()
            .map_err(Clone::clone)?;
        text.sections
            .iter()
            .find(|(start, bytes)| address >= *start && address - start < bytes.len() as u64)
            .map(|(start, bytes)| {
                let from = (address - start) as usize;
                let to = (from + super::instructions::MAX_LEN).min(bytes.len());
                &bytes[from..to]
            })
            .ok_or_else(|| format!("no executable section of {object} holds {address:#x}"))
    }
}

fn load(path: &str) -> Result<Text, String> {
    let data = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
    let file = object::File::parse(&*data).map_err(|e| format!("{path}: {e}"))?;
    if file.architecture() != object::Architecture::X86_64 {
        return Err(format!(
            "{path} is {:?} code, and this screen decodes x86-64 only",
            file.architecture()
        ));
    }
    let sections = file
        .sections()
        .filter(|s| s.kind() == SectionKind::Text)
        .filter_map(|s| Some((s.address(), s.data().ok()?.to_vec())))
        .collect();
    Ok(Text { sections })
}

#[cfg(test)]
mod tests {
    use super::*;
    use object::ObjectSymbol;

    /// A function of this test binary under a name of its own: a test's own function may be
    /// inlined into the harness's call and leave no symbol named after it.
    #[no_mangle]
    #[inline(never)]
    extern "C" fn kembench_test_code_target(x: u64) -> u64 {
        std::hint::black_box(x).wrapping_mul(3)
    }

    /// The bytes at a function of this test binary are its code: they decode, and an address
    /// outside every section or an object that is not there says why there are none.
    #[test]
    fn bytes_at_a_function_of_this_binary() {
        assert_eq!(kembench_test_code_target(std::hint::black_box(2)), 6);
        let exe = std::env::current_exe().unwrap();
        let data = std::fs::read(&exe).unwrap();
        let file = object::File::parse(&*data).unwrap();
        let symbol = file
            .symbols()
            .find(|s| {
                s.kind() == object::SymbolKind::Text
                    && s.name() == Ok("kembench_test_code_target")
            })
            .expect("the test's own function");
        let mut code = Code::new();
        let exe = exe.to_str().unwrap();
        let bytes = code.at(exe, symbol.address()).unwrap();
        assert_eq!(bytes.len(), super::super::instructions::MAX_LEN);
        let mut d = iced_x86::Decoder::new(64, bytes, iced_x86::DecoderOptions::NONE);
        assert!(!d.decode().is_invalid());
        let why = code.at(exe, u64::MAX - 16).unwrap_err();
        assert!(why.contains("no executable section"), "{why}");
        let why = code.at("/nonexistent/object", 0x1000).unwrap_err();
        assert!(why.contains("/nonexistent/object"), "{why}");
    }
}
