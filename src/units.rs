//! Unit formatting for people: ns/µs/ms/s, bytes/KiB/MiB, counts with SI prefixes or
//! thousands separators; and text from a record shown with its control characters visible.

/// A duration in ns, scaled for reading: `850 ns`, `12.3 µs`, `4.56 ms`, `1.23 s`.
pub fn ns(v: f64) -> String {
    if !v.is_finite() {
        return "-".into();
    }
    let (x, unit) = if v < 1e3 {
        (v, "ns")
    } else if v < 1e6 {
        (v / 1e3, "µs")
    } else if v < 1e9 {
        (v / 1e6, "ms")
    } else {
        (v / 1e9, "s")
    };
    format!("{} {unit}", sig3(x))
}

/// Three significant digits, no exponent.
pub fn sig3(x: f64) -> String {
    // Thresholds just below the decade so that 99.99 prints as "100", not "100.0".
    if x >= 99.95 {
        format!("{x:.0}")
    } else if x >= 9.995 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

/// A byte count: `512 B`, `12.3 KiB`, `1.25 MiB`.
pub fn bytes(v: u64) -> String {
    let f = v as f64;
    if v < 1024 {
        format!("{v} B")
    } else if f < 1024.0 * 1024.0 {
        format!("{} KiB", sig3(f / 1024.0))
    } else {
        format!("{} MiB", sig3(f / 1024.0 / 1024.0))
    }
}

/// A large count: `950`, `12.3 k`, `4.56 M`.
pub fn count(v: f64) -> String {
    if v < 1e3 {
        format!("{v:.0}")
    } else if v < 1e6 {
        format!("{} k", sig3(v / 1e3))
    } else if v < 1e9 {
        format!("{} M", sig3(v / 1e6))
    } else {
        format!("{} G", sig3(v / 1e9))
    }
}

/// Cores with enough digits to tell 0.02 from 0: `0.25`, `12.5`.
pub fn cores(c: f64) -> String {
    if c < 10.0 {
        format!("{c:.2}")
    } else {
        format!("{c:.1}")
    }
}

/// `1,234,567`.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `v` as text, or nothing when there is none (an empty CSV field).
pub fn or_empty<T: ToString>(v: Option<T>) -> String {
    v.map(|x| x.to_string()).unwrap_or_default()
}

/// `s` with every control character (an escape sequence's ESC, a carriage return, a line
/// break) shown as an escape (`\u{1b}`, `\n`) instead of acting on a terminal or breaking a
/// line: for text from a record (a host name, a command line, an implementation's name),
/// which an imported file may have crafted.
pub fn visible(s: &str) -> String {
    if !s.chars().any(char::is_control) {
        return s.to_string();
    }
    s.chars()
        .flat_map(|c| {
            if c.is_control() {
                c.escape_default().collect::<Vec<_>>()
            } else {
                vec![c]
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_are_grouped_by_commas() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(468_859_462), "468,859,462");
    }

    #[test]
    fn scales_units() {
        assert_eq!(ns(850.0), "850 ns");
        assert_eq!(ns(12_345.0), "12.3 µs");
        assert_eq!(ns(4_560_000.0), "4.56 ms");
        assert_eq!(ns(1.234e9), "1.23 s");
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(12_595), "12.3 KiB");
        assert_eq!(bytes(1_310_720), "1.25 MiB");
        assert_eq!(count(12_300.0), "12.3 k");
        assert_eq!(ns(f64::NAN), "-");
        assert_eq!(count(99_999.9), "100 k");
    }
}
