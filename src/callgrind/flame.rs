//! Flame graphs of folded stacks, drawn by `inferno`: one operation, or the difference
//! between two (the width is the second profile, red where it executes more instructions).

use anyhow::Context;

use super::FoldedStack;

/// The options every graph here shares: counts are instructions, colours follow the frame
/// name (so a function keeps its colour from one graph to the next).
fn options(title: &str, subtitle: &str) -> inferno::flamegraph::Options<'static> {
    let mut opt = inferno::flamegraph::Options::default();
    opt.title = title.to_string();
    opt.subtitle = (!subtitle.is_empty()).then(|| subtitle.to_string());
    opt.count_name = "instructions".into();
    opt.hash = true;
    opt.deterministic = true;
    opt
}

/// The folded-format lines of `stacks` (`a;b;c 123`), sorted as inferno requires.
fn lines(stacks: &[FoldedStack]) -> Vec<String> {
    let mut out: Vec<String> = stacks
        .iter()
        .filter(|s| s.instructions > 0)
        .map(|s| format!("{} {}", s.stack, s.instructions))
        .collect();
    out.sort();
    out
}

/// Draws sorted folded lines.
fn draw(lines: &[String], title: &str, subtitle: &str) -> anyhow::Result<String> {
    anyhow::ensure!(!lines.is_empty(), "no instructions to draw in `{title}`");
    let mut svg = Vec::new();
    let mut opt = options(title, subtitle);
    inferno::flamegraph::from_lines(&mut opt, lines.iter().map(String::as_str), &mut svg)
        .context("drawing the flame graph")?;
    String::from_utf8(svg).context("the flame graph is not UTF-8")
}

/// A flame graph (SVG) of one operation's folded stacks, frames as wide as their
/// instructions; an error when there are no instructions.
pub fn flamegraph(folded: &[FoldedStack], title: &str, subtitle: &str) -> anyhow::Result<String> {
    draw(&lines(folded), title, subtitle)
}

/// A differential flame graph (SVG): frames as wide as in `after`, red where `after`
/// executes more instructions than `before`, blue where fewer. Counts are not normalised:
/// a change in the total shows.
pub fn differential(
    before: &[FoldedStack],
    after: &[FoldedStack],
    title: &str,
    subtitle: &str,
) -> anyhow::Result<String> {
    let before = lines(before).join("\n");
    let after = lines(after).join("\n");
    let mut merged = Vec::new();
    inferno::differential::from_readers(
        inferno::differential::Options::default(),
        before.as_bytes(),
        after.as_bytes(),
        &mut merged,
    )
    .context("merging the two profiles")?;
    let merged = String::from_utf8(merged).context("the merged profile is not UTF-8")?;
    let mut lines: Vec<String> = merged.lines().map(String::from).collect();
    lines.sort();
    draw(&lines, title, subtitle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stack(s: &str, n: u64) -> FoldedStack {
        FoldedStack {
            stack: s.into(),
            instructions: n,
        }
    }

    #[test]
    fn draws_a_titled_graph_with_its_frames() {
        let folded = [
            stack("keygen;KeccakF1600_StatePermute", 700),
            stack("keygen;poly_ntt", 250),
            stack("keygen", 50),
        ];
        let svg = flamegraph(&folded, "ML-KEM-768 keygen", "liboqs, callgrind").unwrap();
        assert!(
            svg.starts_with("<?xml") || svg.starts_with("<svg"),
            "{}",
            &svg[..80]
        );
        assert!(svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains("ML-KEM-768 keygen"));
        assert!(svg.contains("liboqs, callgrind"));
        assert!(svg.contains("KeccakF1600_StatePermute"));
        assert!(svg.contains("instructions"));
    }

    #[test]
    fn draws_a_differential_graph() {
        let before = [stack("op;a", 100), stack("op;b", 100)];
        let after = [stack("op;a", 300), stack("op;c", 10)];
        let svg = differential(&before, &after, "before → after", "").unwrap();
        assert!(svg.starts_with("<?xml") || svg.starts_with("<svg"));
        assert!(svg.contains("before → after"));
        assert!(
            svg.contains(">a<") || svg.contains("a ("),
            "frame a is drawn"
        );
        // More instructions in `a` after: drawn red (inferno's differential colours are
        // rgb(255,x,x) for growth).
        assert!(svg.contains("rgb(255,"));
    }

    #[test]
    fn nothing_to_draw_is_an_error() {
        let e = flamegraph(&[stack("op", 0)], "nothing", "").unwrap_err();
        assert!(e.to_string().contains("no instructions"));
    }
}
