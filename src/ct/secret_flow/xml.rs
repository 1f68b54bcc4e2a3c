//! Reading memcheck's XML output (`--xml=yes`, protocol 4): each error's kind, message and
//! first stack (the frames inlined at an address come as frames of their own, innermost
//! first), and the error counts at the end (memcheck writes each distinct error once, at its
//! first occurrence, and counts the repeats).

use quick_xml::events::Event;
use quick_xml::Reader;
use std::collections::HashMap;

/// One frame of an error's stack.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Frame {
    /// The function (`<fn>`), as memcheck names it (demangled); `None` where it has no symbol.
    pub function: Option<String>,
    /// The object (`<obj>`): the executable or shared library.
    pub object: Option<String>,
    /// The source file's name (`<file>`), where the object has line tables.
    pub file: Option<String>,
    /// Its folder (`<dir>`).
    pub dir: Option<String>,
    /// The line (`<line>`).
    pub line: Option<u32>,
}

/// One distinct error memcheck reported.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemError {
    /// memcheck's id of the error (`<unique>`), the key of its count.
    pub unique: String,
    /// memcheck's kind (`UninitCondition`, `UninitValue`, `SyscallParam`, ...).
    pub kind: String,
    /// memcheck's message (`<what>`, or `<xwhat><text>`).
    pub what: String,
    /// The stack where it happened, innermost frame first (the first `<stack>` of the error;
    /// origin stacks, with `--track-origins`, are not read).
    pub stack: Vec<Frame>,
}

/// What one memcheck run reported.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Output {
    /// Every distinct error, in the order memcheck first saw them.
    pub errors: Vec<MemError>,
    /// How many times each error (by `unique`) happened.
    pub counts: HashMap<String, u64>,
    /// Whether the file ended properly (`</valgrindoutput>`): a run that was killed leaves it
    /// unfinished, and its counts are missing.
    pub complete: bool,
}

impl Output {
    /// How many times `e` happened (1 where memcheck wrote no count: it saw it at least once).
    pub fn count(&self, e: &MemError) -> u64 {
        self.counts.get(&e.unique).copied().unwrap_or(1)
    }
}

/// The entities XML predefines, which memcheck uses in function names (`&lt;` in
/// `<T as Trait>`).
fn entity(name: &str) -> Option<&'static str> {
    Some(match name {
        "lt" => "<",
        "gt" => ">",
        "amp" => "&",
        "quot" => "\"",
        "apos" => "'",
        _ => return None,
    })
}

/// Parses memcheck's XML. A file cut short (the run was killed) gives what it holds, with
/// `complete` false; a file that is not XML is an error.
pub fn parse(xml: &str) -> anyhow::Result<Output> {
    let mut reader = Reader::from_str(xml);
    let mut out = Output::default();
    let mut path: Vec<String> = Vec::new();
    let mut text = String::new();
    let mut error: Option<MemError> = None;
    let mut stacks_seen = 0usize;
    let mut pair: (Option<String>, Option<u64>) = (None, None);
    loop {
        let ev = match reader.read_event() {
            Ok(ev) => ev,
            // A file cut short by a killed run may end in the middle of a tag.
            Err(_) if reader.buffer_position() as usize >= xml.trim_end().len() => break,
            Err(e) => {
                anyhow::bail!(
                    "memcheck's XML is malformed at byte {}: {e}",
                    reader.buffer_position()
                )
            }
        };
        match ev {
            Event::Start(s) => {
                let name = String::from_utf8_lossy(s.name().as_ref()).into_owned();
                text.clear();
                let under: Vec<&str> = path.iter().map(String::as_str).collect();
                match (under.as_slice(), name.as_str()) {
                    ([.., "valgrindoutput"], "error") => {
                        error = Some(MemError::default());
                        stacks_seen = 0;
                    }
                    ([.., "error"], "stack") => stacks_seen += 1,
                    ([.., "error", "stack"], "frame") if stacks_seen == 1 => {
                        if let Some(e) = error.as_mut() {
                            e.stack.push(Frame::default());
                        }
                    }
                    ([.., "errorcounts"], "pair") => pair = (None, None),
                    _ => {}
                }
                path.push(name);
            }
            Event::Text(t) => text.push_str(&t.xml10_content()?),
            Event::CData(t) => text.push_str(&t.decode()?),
            Event::GeneralRef(r) => {
                if let Some(c) = r.resolve_char_ref()? {
                    text.push(c);
                } else {
                    let name = r.decode()?;
                    text.push_str(entity(&name).unwrap_or("?"));
                }
            }
            Event::End(_) => {
                let value = std::mem::take(&mut text).trim().to_string();
                let under: Vec<&str> = path.iter().map(String::as_str).collect();
                match under.as_slice() {
                    [.., "valgrindoutput", "error"] => {
                        if let Some(e) = error.take() {
                            out.errors.push(e);
                        }
                    }
                    [.., "error", "unique"] => set(&mut error, |e| e.unique = value),
                    [.., "error", "kind"] => set(&mut error, |e| e.kind = value),
                    [.., "error", "what"] | [.., "error", "xwhat", "text"] => {
                        set(&mut error, |e| e.what = value)
                    }
                    [.., "error", "stack", "frame", field] if stacks_seen == 1 => {
                        let field = field.to_string();
                        set(&mut error, |e| {
                            if let Some(f) = e.stack.last_mut() {
                                match field.as_str() {
                                    "fn" => f.function = Some(value),
                                    "obj" => f.object = Some(value),
                                    "file" => f.file = Some(value),
                                    "dir" => f.dir = Some(value),
                                    "line" => f.line = value.parse().ok(),
                                    _ => {}
                                }
                            }
                        })
                    }
                    [.., "errorcounts", "pair", "count"] => pair.1 = value.parse().ok(),
                    [.., "errorcounts", "pair", "unique"] => pair.0 = Some(value),
                    [.., "errorcounts", "pair"] => {
                        if let (Some(u), Some(c)) = pair.clone() {
                            out.counts.insert(u, c);
                        }
                    }
                    ["valgrindoutput"] => out.complete = true,
                    _ => {}
                }
                path.pop();
            }
            Event::Eof => break,
            _ => {}
        }
    }
    Ok(out)
}

fn set(error: &mut Option<MemError>, f: impl FnOnce(&mut MemError)) {
    if let Some(e) = error.as_mut() {
        f(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = r#"<?xml version="1.0"?>
<valgrindoutput>
<protocolversion>4</protocolversion>
<error>
  <unique>0x0</unique>
  <tid>2</tid>
  <kind>UninitCondition</kind>
  <what>Conditional jump or move depends on uninitialised value(s)</what>
  <stack>
    <frame><ip>0x1</ip><obj>/bin/k</obj><fn>inner&lt;T&gt;</fn><dir>/s</dir><file>a.rs</file><line>7</line></frame>
    <frame><ip>0x2</ip><obj>/bin/k</obj><fn>kembench_ct_decaps</fn></frame>
  </stack>
  <auxwhat>Uninitialised value was created</auxwhat>
  <stack><frame><ip>0x9</ip><fn>origin</fn></frame></stack>
</error>
<error>
  <unique>0x1</unique>
  <kind>SyscallParam</kind>
  <xwhat><text>Syscall param write(buf) points to uninitialised byte(s)</text></xwhat>
  <stack><frame><ip>0x3</ip><obj>/lib/libc.so.6</obj></frame></stack>
</error>
<errorcounts>
  <pair><count>3</count><unique>0x0</unique></pair>
  <pair><count>1</count><unique>0x1</unique></pair>
</errorcounts>
</valgrindoutput>
"#;

    #[test]
    fn reads_errors_stacks_and_counts() {
        let o = parse(SAMPLE).unwrap();
        assert!(o.complete);
        assert_eq!(o.errors.len(), 2);
        let e = &o.errors[0];
        assert_eq!(e.kind, "UninitCondition");
        assert_eq!(e.stack.len(), 2, "the origin stack is not read");
        assert_eq!(e.stack[0].function.as_deref(), Some("inner<T>"));
        assert_eq!(e.stack[0].line, Some(7));
        assert_eq!(e.stack[0].file.as_deref(), Some("a.rs"));
        assert_eq!(o.count(e), 3);
        assert_eq!(
            o.errors[1].what,
            "Syscall param write(buf) points to uninitialised byte(s)"
        );
        assert_eq!(o.errors[1].stack[0].function, None);
    }

    #[test]
    fn a_cut_file_is_incomplete_and_bad_xml_is_an_error() {
        let cut = &SAMPLE[..SAMPLE.find("<errorcounts>").unwrap()];
        let o = parse(cut).unwrap();
        assert!(!o.complete);
        assert_eq!(o.errors.len(), 2);
        assert_eq!(o.count(&o.errors[0]), 1);
        assert!(parse("<valgrindoutput><error></kind></valgrindoutput>").is_err());
    }
}
