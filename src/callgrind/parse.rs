//! The callgrind output format, version 1, read into plain tables: one context per distinct
//! `fn=` name (with `--separate-callers` a whole call chain), its self cost per event, its self
//! instructions per source line, and the `calls=` records between contexts. No meaning is given
//! to the names here; `analyse` cuts the chains at the marker.

use std::collections::HashMap;

/// A callgrind output file that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// A line that does not follow the format.
    #[error("callgrind output, line {line}: {message}")]
    Syntax {
        /// The line number, from 1.
        line: usize,
        /// What is wrong with it.
        message: String,
    },
    /// No call chain with a cost reaches the marker function: the dump was taken with another
    /// marker, or the marker was inlined.
    #[error("no call chain in the callgrind dump reaches the marker function `{0}`")]
    NoMarker(String),
}

/// One `fn=` name: a function, or with `--separate-callers` a call chain, innermost first.
#[derive(Debug, Default)]
pub(crate) struct Context {
    /// The name as callgrind wrote it.
    pub name: String,
    /// The object (`ob=`) the innermost function lives in, an index into [`Dump::objects`].
    pub object: Option<u32>,
    /// Instructions executed in the innermost function itself.
    pub self_ir: u64,
}

/// One `calls=` record.
#[derive(Debug)]
pub(crate) struct Call {
    /// The calling context.
    pub caller: u32,
    /// The called context.
    pub callee: u32,
    /// How many times.
    pub count: u64,
}

/// A parsed dump.
#[derive(Debug, Default)]
pub(crate) struct Dump {
    /// The event names, in cost-line order.
    pub events: Vec<String>,
    /// Every context, indexed by the ids used in [`Call`] and [`Dump::lines`].
    pub contexts: Vec<Context>,
    /// Object names (`ob=`, `cob=`).
    pub objects: Vec<String>,
    /// Source file names (`fl=`, `fi=`, `fe=`).
    pub files: Vec<String>,
    /// Self cost summed over every cost line outside `calls=`, one per event.
    pub self_totals: Vec<u64>,
    /// The `totals:` line (or else `summary:`), when the file has one.
    pub totals: Option<Vec<u64>>,
    /// The `calls=` records.
    pub calls: Vec<Call>,
    /// Self instructions per (context, file, line).
    pub lines: HashMap<(u32, u32, u32), u64>,
    /// Self instructions per (context, instruction address), when the dump has addresses
    /// (`--dump-instr=yes`: an `instr` position). Callgrind writes an address as the object
    /// file's own (its load offset taken off), which is what its debug information uses.
    pub addresses: HashMap<(u32, u64), u64>,
}

impl Dump {
    /// The index of an event, by name.
    pub fn event(&self, name: &str) -> Option<usize> {
        self.events.iter().position(|e| e == name)
    }
}

/// Interns names, resolving callgrind's `(id) name` / `(id)` string compression.
#[derive(Default)]
struct Names {
    ids: HashMap<String, u32>,
    compressed: HashMap<u64, u32>,
}

impl Names {
    /// The id of `value` (a name, `(n) name` or `(n)`), appending new names to `list`.
    fn resolve(
        &mut self,
        value: &str,
        list: &mut Vec<String>,
        line: usize,
    ) -> Result<u32, ParseError> {
        let value = value.trim();
        if let Some((n, rest)) = compressed_id(value) {
            let rest = rest.trim();
            if rest.is_empty() {
                return self
                    .compressed
                    .get(&n)
                    .copied()
                    .ok_or_else(|| ParseError::Syntax {
                        line,
                        message: format!("name id ({n}) used before it is defined"),
                    });
            }
            let id = self.intern(rest, list);
            self.compressed.insert(n, id);
            return Ok(id);
        }
        Ok(self.intern(value, list))
    }

    fn intern(&mut self, name: &str, list: &mut Vec<String>) -> u32 {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = list.len() as u32;
        list.push(name.to_string());
        self.ids.insert(name.to_string(), id);
        id
    }
}

/// `(123) rest` → (123, " rest"); anything else (such as `(below main)`) → `None`.
fn compressed_id(value: &str) -> Option<(u64, &str)> {
    let inner = value.strip_prefix('(')?;
    let close = inner.find(')')?;
    let n = inner[..close].parse().ok()?;
    Some((n, &inner[close + 1..]))
}

/// Reads one callgrind output file (one dump).
pub(crate) fn parse(text: &str) -> Result<Dump, ParseError> {
    let mut dump = Dump::default();
    let mut contexts = Names::default();
    let mut context_names = Vec::new();
    let mut objects = Names::default();
    let mut files = Names::default();

    let mut positions = vec!["line".to_string()];
    let mut last_pos: Vec<i64> = vec![0];
    let mut ir: Option<usize> = None;

    let mut object: Option<u32> = None;
    let mut fn_file: Option<u32> = None;
    let mut file: Option<u32> = None;
    let mut current: Option<u32> = None;
    let mut callee_object: Option<u32> = None;
    let mut callee: Option<u32> = None;
    // After `calls=`, the next cost line is the call's inclusive cost; after `jump=`/`jcnd=`
    // the next line is a position only.
    let mut pending_call: Option<(u32, u64)> = None;
    let mut skip_next = false;
    let mut costs: Vec<u64> = Vec::new();

    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let line = raw.trim_end();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let syntax = |message: String| ParseError::Syntax { line: n, message };
        let first = line.as_bytes()[0];
        if first.is_ascii_digit() || matches!(first, b'+' | b'-' | b'*') {
            if skip_next {
                skip_next = false;
                continue;
            }
            let Some(ir) = ir else {
                return Err(syntax("cost line before the `events:` line".into()));
            };
            let mut fields = line.split_ascii_whitespace();
            let mut src_line = 0u32;
            let mut address = None;
            for (k, name) in positions.iter().enumerate() {
                let f = fields
                    .next()
                    .ok_or_else(|| syntax(format!("cost line without its `{name}` position")))?;
                let v = position(f, last_pos[k])
                    .ok_or_else(|| syntax(format!("bad position `{f}`")))?;
                last_pos[k] = v;
                if name == "line" {
                    src_line = u32::try_from(v).unwrap_or(0);
                } else if name == "instr" {
                    address = u64::try_from(v).ok();
                }
            }
            costs.clear();
            for f in fields {
                let v = f
                    .parse::<u64>()
                    .map_err(|_| syntax(format!("bad cost `{f}`")))?;
                costs.push(v);
            }
            if costs.len() > dump.events.len() {
                return Err(syntax(format!(
                    "{} costs for {} events",
                    costs.len(),
                    dump.events.len()
                )));
            }
            let Some(ctx) = current else {
                return Err(syntax("cost line before any `fn=`".into()));
            };
            if let Some((target, count)) = pending_call.take() {
                dump.calls.push(Call {
                    caller: ctx,
                    callee: target,
                    count,
                });
                continue;
            }
            for (t, c) in dump.self_totals.iter_mut().zip(&costs) {
                *t += c;
            }
            let instr = costs.get(ir).copied().unwrap_or(0);
            if instr > 0 {
                dump.contexts[ctx as usize].self_ir += instr;
                let f = file.unwrap_or(u32::MAX);
                *dump.lines.entry((ctx, f, src_line)).or_default() += instr;
                if let Some(a) = address {
                    *dump.addresses.entry((ctx, a)).or_default() += instr;
                }
            }
            continue;
        }
        if pending_call.is_some() {
            return Err(syntax("`calls=` not followed by its cost line".into()));
        }
        let spec = line
            .split_once('=')
            .filter(|(key, _)| !key.is_empty() && key.bytes().all(|b| b.is_ascii_lowercase()));
        if let Some((key, value)) = spec {
            match key {
                "ob" => object = Some(objects.resolve(value, &mut dump.objects, n)?),
                "cob" => callee_object = Some(objects.resolve(value, &mut dump.objects, n)?),
                "fl" => {
                    fn_file = Some(files.resolve(value, &mut dump.files, n)?);
                    file = fn_file;
                }
                "fi" | "fe" => file = Some(files.resolve(value, &mut dump.files, n)?),
                "cfi" | "cfl" => {
                    files.resolve(value, &mut dump.files, n)?;
                }
                "fn" => {
                    let id = contexts.resolve(value, &mut context_names, n)?;
                    grow(&mut dump.contexts, &context_names);
                    let ctx = &mut dump.contexts[id as usize];
                    ctx.object = object.or(ctx.object);
                    current = Some(id);
                    file = fn_file;
                    callee = None;
                    callee_object = None;
                }
                "cfn" => {
                    let id = contexts.resolve(value, &mut context_names, n)?;
                    grow(&mut dump.contexts, &context_names);
                    callee = Some(id);
                }
                "calls" => {
                    let count = value
                        .split_ascii_whitespace()
                        .next()
                        .and_then(|c| c.parse::<u64>().ok())
                        .ok_or_else(|| syntax(format!("bad call count in `{line}`")))?;
                    let target = callee
                        .ok_or_else(|| syntax("`calls=` without a `cfn=` before it".into()))?;
                    let ctx = &mut dump.contexts[target as usize];
                    if ctx.object.is_none() {
                        ctx.object = callee_object.or(object);
                    }
                    pending_call = Some((target, count));
                    callee_object = None;
                }
                "jump" | "jcnd" => skip_next = true,
                _ => {} // other specifications (`ln=`, future keys): nothing kept
            }
            continue;
        }
        if let Some((key, value)) = line.split_once(':') {
            let value = value.trim();
            match key {
                "events" => {
                    dump.events = value.split_ascii_whitespace().map(String::from).collect();
                    dump.self_totals = vec![0; dump.events.len()];
                    ir = Some(dump.event("Ir").ok_or_else(|| {
                        syntax("the `events:` line has no Ir (instructions)".into())
                    })?);
                }
                "positions" => {
                    positions = value.split_ascii_whitespace().map(String::from).collect();
                    if positions.is_empty() {
                        return Err(syntax("empty `positions:` line".into()));
                    }
                    last_pos = vec![0; positions.len()];
                }
                "totals" | "summary" => {
                    let t = value
                        .split_ascii_whitespace()
                        .map(|v| v.parse::<u64>())
                        .collect::<Result<Vec<_>, _>>()
                        .map_err(|_| syntax(format!("bad `{key}:` line")))?;
                    if key == "totals" || dump.totals.is_none() {
                        dump.totals = Some(t);
                    }
                }
                _ => {} // version, creator, pid, cmd, part, desc, thread...
            }
            continue;
        }
        return Err(syntax(format!("unrecognised line `{}`", clip(line))));
    }
    if pending_call.is_some() {
        return Err(ParseError::Syntax {
            line: text.lines().count(),
            message: "the file ends after `calls=`".into(),
        });
    }
    for (ctx, name) in dump.contexts.iter_mut().zip(context_names) {
        ctx.name = name;
    }
    Ok(dump)
}

/// Adds default contexts up to `names.len()`.
fn grow(contexts: &mut Vec<Context>, names: &[String]) {
    while contexts.len() < names.len() {
        contexts.push(Context::default());
    }
}

/// A position field: absolute (decimal or `0x` hex), relative (`+n`, `-n`) or `*` (same).
fn position(field: &str, last: i64) -> Option<i64> {
    if field == "*" {
        return Some(last);
    }
    if let Some(d) = field.strip_prefix('+') {
        return Some(last + number(d)?);
    }
    if let Some(d) = field.strip_prefix('-') {
        return Some(last - number(d)?);
    }
    number(field)
}

fn number(s: &str) -> Option<i64> {
    match s.strip_prefix("0x") {
        Some(h) => i64::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

/// The start of a long line, for error messages.
fn clip(line: &str) -> &str {
    match line.char_indices().nth(80) {
        Some((i, _)) => &line[..i],
        None => line,
    }
}

/// The simulated cache geometry from the `desc: I1/D1/LL cache:` lines, e.g.
/// `I1 32 KiB 8-way 64 B lines, D1 32 KiB 8-way, LL 8 MiB 16-way`; `None` when the dump did
/// not simulate caches.
pub fn cache_geometry(text: &str) -> Option<String> {
    let mut parts = Vec::new();
    let mut first_line_size = None;
    for line in text.lines() {
        if line.starts_with("fn=") || line.starts_with("ob=") || line.starts_with("fl=") {
            break; // the header is over
        }
        let Some(rest) = line.strip_prefix("desc:") else {
            continue;
        };
        let Some((level, geometry)) = rest.trim().split_once(" cache:") else {
            continue;
        };
        // "32768 B, 64 B, 8-way associative"
        let fields: Vec<&str> = geometry.split(',').map(str::trim).collect();
        let [size, line_size, ways, ..] = fields[..] else {
            continue;
        };
        let size: u64 = size.trim_end_matches(" B").trim().parse().ok()?;
        let ways = ways.trim_end_matches(" associative").trim();
        let mut part = format!("{} {} {}", level.trim(), bytes(size), ways);
        if first_line_size.is_none() {
            first_line_size = Some(line_size.to_string());
            part.push_str(&format!(" {line_size} lines"));
        } else if first_line_size.as_deref() != Some(line_size) {
            part.push_str(&format!(" {line_size} lines"));
        }
        parts.push(part);
    }
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// `32768` → `32 KiB`, `8388608` → `8 MiB`.
fn bytes(n: u64) -> String {
    const MIB: u64 = 1 << 20;
    const KIB: u64 = 1 << 10;
    if n >= MIB && n % MIB == 0 {
        format!("{} MiB", n / MIB)
    } else if n >= KIB && n % KIB == 0 {
        format!("{} KiB", n / KIB)
    } else {
        format!("{n} B")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = "# callgrind format
version: 1
creator: callgrind-3.19.0
desc: I1 cache: 32768 B, 64 B, 8-way associative
desc: D1 cache: 32768 B, 64 B, 8-way associative
desc: LL cache: 8388608 B, 64 B, 16-way associative
positions: line
events: Ir Dr Dw
summary: 30 4 2

ob=/bin/prog
fl=a.c
fn=main
10 5 1
cfn=f'main
calls=2 20
11 25 3 2
fn=f'main
fi=b.h
+29 20 1
fe=a.c
* 5 2 2
jump=1 20
21
totals: 30 4 2
";

    #[test]
    fn reads_contexts_costs_calls_and_lines() {
        let d = parse(SMALL).unwrap();
        assert_eq!(d.events, ["Ir", "Dr", "Dw"]);
        assert_eq!(d.self_totals, [30, 4, 2]);
        assert_eq!(d.totals, Some(vec![30, 4, 2]));
        assert_eq!(d.contexts.len(), 2);
        assert_eq!(d.contexts[0].name, "main");
        assert_eq!(d.contexts[0].self_ir, 5);
        assert_eq!(d.contexts[1].name, "f'main");
        assert_eq!(d.contexts[1].self_ir, 25);
        assert_eq!(
            d.objects[d.contexts[1].object.unwrap() as usize],
            "/bin/prog"
        );
        assert_eq!(d.calls.len(), 1);
        assert_eq!(
            (d.calls[0].caller, d.calls[0].callee, d.calls[0].count),
            (0, 1, 2)
        );
        let b = d.files.iter().position(|f| f == "b.h").unwrap() as u32;
        let a = d.files.iter().position(|f| f == "a.c").unwrap() as u32;
        // `+20` after line 20 is line 40 in the inlined file; `*` stays on line 40 in a.c.
        assert_eq!(d.lines[&(1, b, 40)], 20);
        assert_eq!(d.lines[&(1, a, 40)], 5);
    }

    #[test]
    fn resolves_compressed_names_and_keeps_parenthesised_ones() {
        let text = "events: Ir\nob=(1) /lib/x.so\nfn=(1) f'(below main)\n1 3\nfn=(2) (below main)\n2 4\nfn=(1)\n3 5\n";
        let d = parse(text).unwrap();
        assert_eq!(d.contexts.len(), 2);
        assert_eq!(d.contexts[0].name, "f'(below main)");
        assert_eq!(d.contexts[0].self_ir, 8);
        assert_eq!(d.contexts[1].name, "(below main)");
    }

    #[test]
    fn errors_name_the_line() {
        let e = parse("events: Ir\nfn=f\n1 x\n").unwrap_err();
        assert_eq!(
            e,
            ParseError::Syntax {
                line: 3,
                message: "bad cost `x`".into()
            }
        );
        assert!(e.to_string().contains("line 3"));
        let e = parse("events: Ir\n1 2\n").unwrap_err();
        assert!(matches!(e, ParseError::Syntax { line: 2, .. }));
        let e = parse("events: Ir\nfn=f\n1 2 3\n").unwrap_err();
        assert!(matches!(e, ParseError::Syntax { line: 3, .. }));
        let e = parse("events: Ir\nfn=f\ncfn=g\ncalls=1 2\n").unwrap_err();
        assert!(matches!(e, ParseError::Syntax { .. }));
        let e = parse("events: Dr\n").unwrap_err();
        assert!(matches!(e, ParseError::Syntax { line: 1, .. }));
        let e = parse("events: Ir\nwhat is this\n").unwrap_err();
        assert!(matches!(e, ParseError::Syntax { line: 2, .. }));
    }

    #[test]
    fn geometry_from_the_desc_lines() {
        assert_eq!(
            cache_geometry(SMALL).as_deref(),
            Some("I1 32 KiB 8-way 64 B lines, D1 32 KiB 8-way, LL 8 MiB 16-way")
        );
        assert_eq!(cache_geometry("events: Ir\nfn=f\n1 2\n"), None);
    }
}
