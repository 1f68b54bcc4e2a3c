//! Names for functions valgrind cannot name. Valgrind ignores ELF symbols of size zero, which
//! is what assembly routines without a `.size` directive get (PQClean's AVX2 NTRU
//! multiplication, some of liboqs's Keccak): callgrind then calls them `0x00000000008bc7c6`.
//! This reads those symbols from the kembench binary so the profile can name them.

use object::{Object, ObjectSection, ObjectSymbol, SectionKind, SymbolKind};
use std::collections::HashMap;
use std::path::Path;

/// Address → name of the binary's defined text symbols that have no size (where two names
/// share an address, the one without a leading underscore). Empty when the file cannot be
/// read: the frames then keep their addresses.
pub fn unsized_text_symbols(exe: &Path) -> HashMap<u64, String> {
    let Ok(data) = std::fs::read(exe) else {
        return HashMap::new();
    };
    let Ok(file) = object::File::parse(&*data) else {
        return HashMap::new();
    };
    let mut out: HashMap<u64, String> = HashMap::new();
    for sym in file.symbols() {
        // Assembly labels without `.type @function` are untyped: take any symbol in code.
        let in_code = sym
            .section_index()
            .and_then(|i| file.section_by_index(i).ok())
            .is_some_and(|s| s.kind() == SectionKind::Text);
        let kind_ok = matches!(
            sym.kind(),
            SymbolKind::Text | SymbolKind::Label | SymbolKind::Unknown
        );
        // (`is_definition` is false for untyped symbols; a symbol in a code section is defined.)
        if sym.size() != 0 || !kind_ok || !in_code {
            continue;
        }
        let Ok(name) = sym.name() else { continue };
        if name.is_empty() {
            continue;
        }
        let better = |old: &String| old.starts_with('_') && !name.starts_with('_');
        match out.get(&sym.address()) {
            Some(old) if !better(old) => {}
            _ => {
                out.insert(sym.address(), name.to_string());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unreadable_file_gives_no_names() {
        assert!(unsized_text_symbols(Path::new("/nonexistent/kembench")).is_empty());
    }
}
