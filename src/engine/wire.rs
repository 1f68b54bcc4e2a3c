//! The one line protocol between kembench and every worker process of its engines (`run`,
//! `throughput --processes`, `profile`, `ct`'s screens and its timing test): a message is one
//! line of JSON on the worker's standard output behind the engine's prefix ([`Wire`]), so that
//! nothing a C library prints there is ever read as a message. Requests, where an engine sends
//! any, are lines on the worker's standard input in the same form.

use serde::de::DeserializeOwned;
use serde::Serialize;
use std::io::Write;

/// One engine's channel: the prefix that marks its messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wire(&'static str);

impl Wire {
    /// A channel whose messages start with `prefix` (by convention `KEMBENCH-<ENGINE> `).
    pub const fn new(prefix: &'static str) -> Wire {
        Wire(prefix)
    }

    /// The prefix of this channel's lines.
    pub fn prefix(&self) -> &'static str {
        self.0
    }

    /// `m` as one line (without the newline): the prefix and its JSON, which never holds a
    /// line break.
    pub fn encode<T: Serialize>(&self, m: &T) -> String {
        format!(
            "{}{}",
            self.0,
            serde_json::to_string(m).expect("kembench's messages always serialise")
        )
    }

    /// The message on `line`: `None` for a line that is not one of this channel's (a C
    /// library's output), an error for one that is but does not parse (a bug, or a stream
    /// cut short).
    pub fn decode<T: DeserializeOwned>(&self, line: &str) -> Option<Result<T, serde_json::Error>> {
        line.trim_end_matches(['\n', '\r'])
            .strip_prefix(self.0)
            .map(serde_json::from_str)
    }

    /// The message on `line`, if it holds one that parses.
    pub fn parse<T: DeserializeOwned>(&self, line: &str) -> Option<T> {
        self.decode(line).and_then(Result::ok)
    }

    /// The first message in a worker's whole output.
    pub fn first<T: DeserializeOwned>(&self, output: &str) -> Option<Result<T, serde_json::Error>> {
        output.lines().find_map(|l| self.decode(l))
    }

    /// Writes `m` as one line on `out` and flushes it.
    pub fn write<T: Serialize>(&self, out: &mut impl Write, m: &T) -> std::io::Result<()> {
        writeln!(out, "{}", self.encode(m))?;
        out.flush()
    }

    /// Writes `m` as one line on this process's standard output and flushes it.
    pub fn send<T: Serialize>(&self, m: &T) -> std::io::Result<()> {
        self.write(&mut std::io::stdout().lock(), m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WIRE: Wire = Wire::new("KEMBENCH-TEST ");

    #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    enum M {
        Done { error: Option<String> },
    }

    #[test]
    fn a_message_is_one_line_and_nothing_else_is_a_message() {
        let m = M::Done {
            error: Some("x\ny".into()),
        };
        let line = WIRE.encode(&m);
        assert!(!line.contains('\n'), "{line}");
        assert_eq!(WIRE.parse::<M>(&line), Some(m));
        assert!(WIRE.parse::<M>(&format!("{line}\n")).is_some());
        assert!(WIRE.decode::<M>("liboqs says hello").is_none());
        assert!(WIRE.decode::<M>("KEMBENCH-OTHER {}").is_none());
        // One of ours that does not parse is an error, not silence.
        assert!(matches!(
            WIRE.decode::<M>("KEMBENCH-TEST {bad"),
            Some(Err(_))
        ));
        assert!(WIRE.parse::<M>("KEMBENCH-TEST {bad").is_none());
    }

    #[test]
    fn the_first_message_of_an_output_is_found_among_other_lines() {
        let mut out = Vec::new();
        out.extend_from_slice(b"a library's banner\n");
        WIRE.write(&mut out, &M::Done { error: None }).unwrap();
        WIRE.write(
            &mut out,
            &M::Done {
                error: Some("second".into()),
            },
        )
        .unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            WIRE.first::<M>(&text).unwrap().unwrap(),
            M::Done { error: None }
        );
        assert!(WIRE.first::<M>("nothing here\n").is_none());
    }
}
