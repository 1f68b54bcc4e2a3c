//! What `compare` does with two records of one kind, whatever the kind. A kind says in its
//! facts what `compare` can do with it ([`Compares`]) and gives its comparison through
//! [`Kind::compare`](super::Kind::compare) as a [`Comparison`]: its JSON, its console tables,
//! why nothing was compared, its regression gate and its flame graphs. The differences of
//! environment that a reader must see before trusting any ratio, and the console's lines
//! around the tables that every kind shares, are here.

use crate::arch::BuildId;
use crate::env::Environment;
use crate::record::Benchmark;
use crate::table::{Cell, Column, Table, Tables, CONSOLE};
use serde::Serialize;

/// What `compare` can do with two records of a kind ([`super::Facts::compare`]).
#[derive(Debug, Clone, Copy)]
pub struct Compares {
    /// Whether `compare` compares two records of the kind at all (a record of a kind that is
    /// not compared is read as the first kind of the list, whose errors say what is wrong).
    pub compares: bool,
    /// Why `--fail-on-regression` does not apply to them; `None` when it does.
    pub no_gate: Option<&'static str>,
    /// Whether `--flamegraphs DIR` writes differential flame graphs of them.
    pub flame_graphs: bool,
}

impl Compares {
    /// Not compared.
    pub const NOT: Compares = Compares {
        compares: false,
        no_gate: None,
        flame_graphs: false,
    };
}

/// How `compare` was asked: the two records as it names them, and the noise threshold.
#[derive(Debug, Clone, Copy)]
pub struct Asked<'a> {
    /// The old record (`a.json`, `run 20261122-…`).
    pub old: &'a str,
    /// The new record.
    pub new: &'a str,
    /// Changes smaller than this fraction are called noise, where a kind has a verdict.
    pub noise: f64,
}

/// The comparison of two records of one kind, `old` then `new`.
pub trait Comparison {
    /// The comparison as `compare --json` prints it.
    fn json(&self) -> serde_json::Result<String>;

    /// Why nothing was compared (the two records share nothing), as `compare` refuses it;
    /// `None` when something was.
    fn nothing_shared(&self) -> Option<String>;

    /// What the console shows: the tables, and the lines around them.
    fn tables(&self) -> Tables;

    /// `--fail-on-regression PCT`: when something regressed by more than `pct` percent, the
    /// line that says so (the command then exits 1); `None` when nothing did.
    fn regressions(&self, _pct: f64) -> Option<String> {
        None
    }

    /// `--flamegraphs DIR`: the differential flame graphs, as (file name, SVG).
    fn flame_graphs(&self) -> anyhow::Result<Vec<(String, String)>> {
        Ok(Vec::new())
    }
}

/// A difference between the two records' environments.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EnvDifference {
    /// What differs (e.g. `cpu.model`, `provider liboqs`).
    pub what: String,
    /// In the old record.
    pub old: String,
    /// In the new record.
    pub new: String,
}

/// A compared row's implementation: `old`, or `old → new` when it was paired with another id
/// ([`partner`]).
pub fn shown_pair(old: &str, new: Option<&str>) -> String {
    match new {
        Some(n) => format!("{old} → {n}"),
        None => old.to_string(),
    }
}

/// The benchmark of `other` that `r` (one of `own`) is compared with: the same (algorithm,
/// implementation); else the one build of the same source, compiler and flags for another
/// architecture that has no exact partner in `own`; else the one build of the same variant,
/// compiler and flags of another version of the library (source trees, `builds --source`) that
/// has none. `compare` of profiles and of latency runs pair their results with it.
pub fn partner<'b, B: Benchmark>(r: &B, own: &[B], other: &'b [B]) -> Option<&'b B> {
    let exact = |x: &B, alg: &str, id: &str| x.algorithm() == alg && x.implementation() == id;
    if let Some(x) = other
        .iter()
        .find(|x| exact(x, r.algorithm(), r.implementation()))
    {
        return Some(x);
    }
    let unpaired = |x: &B| {
        !own.iter()
            .any(|o| exact(o, x.algorithm(), x.implementation()))
    };
    let key = BuildId::parse(r.implementation()).arch_less;
    let mut found = other.iter().filter(|x| {
        x.algorithm() == r.algorithm()
            && BuildId::parse(x.implementation()).arch_less == key
            && unpaired(x)
    });
    if let (Some(x), None) = (found.next(), found.next()) {
        return Some(x);
    }
    let key = BuildId::version_less(r.implementation());
    let mut found = other.iter().filter(|x| {
        x.algorithm() == r.algorithm()
            && x.implementation() != r.implementation()
            && BuildId::version_less(x.implementation()) == key
            && unpaired(x)
    });
    match (found.next(), found.next()) {
        (Some(x), None) => Some(x),
        _ => None,
    }
}

/// Adds `what` to `out` when `old` and `new` differ.
pub fn diff(out: &mut Vec<EnvDifference>, what: &str, old: impl ToString, new: impl ToString) {
    let (old, new) = (old.to_string(), new.to_string());
    if old != new {
        out.push(EnvDifference {
            what: what.to_string(),
            old,
            new,
        });
    }
}

/// Differences between two environments: machine, OS, build and provider versions.
pub fn environment_differences(ea: &Environment, eb: &Environment) -> Vec<EnvDifference> {
    let mut d = Vec::new();
    diff(&mut d, "host", &ea.hostname, &eb.hostname);
    diff(&mut d, "cpu.model", &ea.cpu.model, &eb.cpu.model);
    diff(
        &mut d,
        "cpu.logical_cpus",
        ea.cpu.logical_cpus,
        eb.cpu.logical_cpus,
    );
    diff(
        &mut d,
        "cpu.flags",
        ea.cpu.flags.join(" "),
        eb.cpu.flags.join(" "),
    );
    diff(&mut d, "kernel", &ea.kernel, &eb.kernel);
    diff(&mut d, "os", &ea.os, &eb.os);
    diff(
        &mut d,
        "hypervisor",
        ea.hypervisor.as_deref().unwrap_or("none"),
        eb.hypervisor.as_deref().unwrap_or("none"),
    );
    diff(
        &mut d,
        "kembench commit",
        &ea.build.git_commit,
        &eb.build.git_commit,
    );
    diff(&mut d, "rustc", &ea.build.rustc, &eb.build.rustc);
    diff(&mut d, "cc", &ea.build.cc, &eb.build.cc);
    for pa in &ea.providers {
        if let Some(pb) = eb
            .providers
            .iter()
            .find(|p| p.implementation == pa.implementation)
        {
            diff(
                &mut d,
                &format!("provider {}", pa.implementation),
                &pa.version,
                &pb.version,
            );
        }
    }
    d
}

/// The console's first lines of a comparison: the two records, then `same` when the
/// environments match or each difference under `Differences between the {records} (…):`.
pub fn heading(asked: &Asked, differences: &[EnvDifference], same: &str, records: &str) -> Table {
    let mut s = format!("old: {}\nnew: {}\n", asked.old, asked.new);
    if differences.is_empty() {
        s.push_str(same);
        s.push('\n');
    } else {
        s.push_str(&format!(
            "Differences between the {records} (read the ratios with these in mind):\n"
        ));
        for d in differences {
            s.push_str(&format!("  {}: {} -> {}\n", d.what, d.old, d.new));
        }
    }
    Table::block("heading", CONSOLE, s)
}

/// A console table called `id` of `columns`, a row of cells per entry of `rows`.
pub fn table(id: &str, columns: Vec<Column>, rows: Vec<Vec<Cell>>) -> Table {
    let mut t = Table::new(id);
    let cols: Vec<_> = columns.into_iter().map(|c| t.add(c)).collect();
    t.view(CONSOLE, 0, &cols);
    for cells in rows {
        let line = t.row(None);
        for (col, cell) in cols.iter().zip(cells) {
            line.set(*col, cell);
        }
    }
    t
}

/// The console's lines for what only one record measured: `only in the old {record}: LABEL`.
pub fn unmatched(unmatched: &[(String, &'static str)], record: &str) -> Table {
    let s: String = unmatched
        .iter()
        .map(|(label, side)| format!("only in the {side} {record}: {label}\n"))
        .collect();
    Table::block("unmatched", CONSOLE, s)
}

/// A comparison's tables for the console: `tables` in order, then `said` under them.
pub fn console(tables: Vec<Table>, said: &str) -> Tables {
    Tables {
        title: String::new(),
        intro: Vec::new(),
        tables,
        outro: vec![(CONSOLE, said.to_string())],
        rest_elsewhere: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::fixture;

    #[test]
    fn differences_are_said_as_values_not_as_rust_debug_text() {
        let a = fixture::run().environment;
        let mut b = a.clone();
        b.hypervisor = Some("KVM".into());
        let mut c = a.clone();
        c.hypervisor = None;
        let d = environment_differences(&c, &b);
        let h = d.iter().find(|x| x.what == "hypervisor").unwrap();
        assert_eq!((h.old.as_str(), h.new.as_str()), ("none", "KVM"));
    }
}
