//! Suggestions for names that match nothing: the nearest known names, for error messages
//! ("did you mean ML-KEM-768?"). Used for algorithms, implementations, families and run ids.

/// The names nearest to `pattern`, best first (at most five; none when nothing is close).
pub fn nearest(pattern: &str, names: &[String]) -> Vec<String> {
    let p: String = pattern
        .to_ascii_lowercase()
        .chars()
        .filter(|c| !matches!(c, '*' | '?' | '[' | ']'))
        .collect();
    let mut scored: Vec<(f64, &String)> = names
        .iter()
        .map(|n| {
            let l = n.to_ascii_lowercase();
            let mut s = strsim::jaro_winkler(&p, &l);
            if !p.is_empty() && (l.contains(&p) || p.contains(&l)) {
                s += 0.5;
            }
            (s, n)
        })
        .filter(|(s, _)| *s > 0.75)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    scored.dedup_by(|a, b| a.1 == b.1);
    scored.into_iter().take(5).map(|(_, n)| n.clone()).collect()
}

/// `"; did you mean A, B?"` with the names nearest to `pattern`, or nothing when none is
/// close: the tail of an error message.
pub fn hint(pattern: &str, names: &[String]) -> String {
    did_you_mean(&nearest(pattern, names))
}

/// `"; did you mean A, B?"` for suggestions already found, or nothing when there are none.
pub fn did_you_mean(near: &[String]) -> String {
    if near.is_empty() {
        String::new()
    } else {
        format!("; did you mean {}?", near.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kem::catalog;

    #[test]
    fn nearest_suggests_close_names() {
        let names: Vec<String> = catalog::ALGORITHMS
            .iter()
            .map(|a| a.name.to_string())
            .collect();
        let s = nearest("ML-KEM-786", &names);
        assert!(s.contains(&"ML-KEM-768".to_string()), "{s:?}");
        let s = nearest("mlkem", &names);
        assert!(s.iter().any(|n| n.starts_with("ML-KEM")), "{s:?}");
        assert!(nearest("zzzzzzzz", &names).is_empty());
    }
}
