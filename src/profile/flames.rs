//! Flame-graph files: one per (implementation, operation) of a profile, differential ones
//! between the implementations of one algorithm, and between two profiles (`compare`).

use crate::files::Protected;
use crate::record::profile::ProfileRecord;
use crate::record::Benchmark;
use std::path::Path;

/// A file name for `label` and `what`: `ML-KEM-768@pqclean_avx2-keygen.svg`.
fn svg_name(label: &str, what: &str) -> String {
    format!("{}-{what}.svg", super::file_part(label))
}

/// Writes flame graphs into `dir` (created if missing), never over a protected file.
struct Writer<'a> {
    dir: &'a Path,
    protected: &'a [Protected],
    written: usize,
}

impl<'a> Writer<'a> {
    fn new(dir: &'a Path, protected: &'a [Protected]) -> anyhow::Result<Writer<'a>> {
        std::fs::create_dir_all(dir)
            .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", dir.display()))?;
        Ok(Writer {
            dir,
            protected,
            written: 0,
        })
    }

    fn write(&mut self, name: String, svg: String) -> anyhow::Result<()> {
        let path = self.dir.join(name);
        crate::files::refuse_overwrite(&path, self.protected)?;
        crate::files::write_atomic(&path, svg.as_bytes())?;
        self.written += 1;
        Ok(())
    }
}

/// One flame graph per (implementation, operation) of `record` in `dir`, and for every
/// algorithm with several implementations profiled, a differential one per operation between
/// the first and each other. Returns how many files were written.
pub fn write_all(
    dir: &Path,
    record: &ProfileRecord,
    protected: &[Protected],
) -> anyhow::Result<usize> {
    let mut w = Writer::new(dir, protected)?;
    for r in &record.results {
        for o in &r.operations {
            let svg = r.flamegraph(o)?;
            w.write(svg_name(&r.label(), o.operation.as_str()), svg)?;
        }
    }
    for (i, a) in record.results.iter().enumerate() {
        let Some(base) = record.results[..i]
            .iter()
            .find(|b| b.algorithm == a.algorithm)
        else {
            continue;
        };
        for o in &a.operations {
            let Some(b) = base.op(o.operation) else {
                continue;
            };
            let svg = crate::callgrind::differential(
                &super::comparable(&b.analysis.folded),
                &super::comparable(&o.analysis.folded),
                &format!(
                    "{} {}: {} → {}",
                    a.algorithm,
                    o.operation.as_str(),
                    base.implementation,
                    a.implementation
                ),
                "red: more instructions in the second, blue: fewer (function names without their variant prefix)",
            )?;
            let label = format!(
                "{}@{}-vs-{}",
                a.algorithm, base.implementation, a.implementation
            );
            w.write(svg_name(&label, o.operation.as_str()), svg)?;
        }
    }
    Ok(w.written)
}

/// One differential flame graph per (implementation, operation) present in both profiles,
/// `old` → `new`, in `dir`. Returns how many files were written.
pub fn write_differences(
    dir: &Path,
    old: &ProfileRecord,
    new: &ProfileRecord,
    protected: &[Protected],
) -> anyhow::Result<usize> {
    let mut w = Writer::new(dir, protected)?;
    for b in &new.results {
        let Some(a) = old.result(&b.algorithm, &b.implementation) else {
            continue;
        };
        for ob in &b.operations {
            let Some(oa) = a.op(ob.operation) else {
                continue;
            };
            let svg = crate::callgrind::differential(
                &oa.analysis.folded,
                &ob.analysis.folded,
                &format!("{} {}: old → new", b.label(), ob.operation.as_str()),
                "red: more instructions in the new profile, blue: fewer",
            )?;
            w.write(
                svg_name(&format!("{}-diff", b.label()), ob.operation.as_str()),
                svg,
            )?;
        }
    }
    Ok(w.written)
}
