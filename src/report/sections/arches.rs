//! Across architectures: every profile given, its results placed on the architecture they ran
//! on ([`crate::record::profile::arches`]): per algorithm the instructions per operation of
//! each architecture × source × compiler × flags side by side, what each architecture's own
//! code buys over its portable code, the bound on a drop-in accelerator, and the hottest
//! functions of the fewest build on each architecture.

use super::common::{h3, para, say};
use super::{Context, Section};
use crate::kem::Op;
use crate::record::profile::arches::{self, Placed};
use crate::record::profile::{Profile, ProfileResult};
use crate::record::Benchmark;
use crate::report::doc::{code, slug, text, Block, Chart, Embed, Table};
use crate::table::Tables;

/// The section.
pub const SECTION: Section = Section::new("arches", "Across architectures", build);

/// Functions listed per architecture.
const HOTTEST: usize = 3;

fn build(ctx: &Context<'_>, blocks: &mut Vec<Block>) -> anyhow::Result<()> {
    let profiles = ctx.data.of::<Profile>();
    // Every result of every profile given; a later profile's result for the same
    // (algorithm, implementation) replaces an earlier one.
    let mut results: Vec<(&str, &ProfileResult)> = Vec::new();
    for p in profiles {
        for r in &p.record.results {
            results.retain(|(_, x)| x.label() != r.label());
            results.push((p.record.environment.arch.as_str(), r));
        }
    }
    let Some(host) = profiles.last().map(|p| p.record.environment.arch.as_str()) else {
        para(
            blocks,
            vec![
                text("No profile given. Build for other architectures with "),
                code("kembench builds --arch s390x,aarch64"),
                text(", count them with "),
                code("kembench profile"),
                text(", then "),
                code("kembench report PROFILE"),
                text("."),
            ],
        );
        return Ok(());
    };
    let charts = cycle_charts(&results)?;
    if !charts.is_empty() {
        say(
            blocks,
            "Estimated cycles per call on CPUs kembench does not have (`profile --cpus`): model \
             estimates, not measurements. Every block QEMU's plugin counted is priced by LLVM's \
             scheduling model of the CPU as a loop of itself; no caches, branch mispredictions, \
             memory latency or clock. A CPU LLVM prices with another CPU's model is named with \
             it.",
        );
        blocks.push(Block::Charts {
            id: "charts-profile-cycles".into(),
            charts,
        });
    }
    let placed = arches::placed(host, results);
    if placed.is_empty() || !arches::spans(&placed) {
        para(
            blocks,
            vec![
                text(format!(
                    "The profiles given ran on one architecture ({}). Build the same sources \
                     for others with ",
                    placed.first().map_or(host, |p| p.arch.as_str())
                )),
                code("kembench builds --arch s390x,aarch64,ppc64le,riscv64"),
                text(" and profile them: they are checked and counted under QEMU."),
            ],
        );
        return Ok(());
    }
    say(
        blocks,
        "Every profile given, placed on the architecture it ran on: x86-64 natively under \
         callgrind, foreign builds under QEMU with kembench's counting plugin, both exact \
         counts of one call. Counts compare code paths, not machines, and nothing here is \
         timed: an instruction of s390x is not one of x86-64 in time. The drop-in bound is \
         the most any accelerator of the hashing, AES, RNG and big-number code (a coprocessor, \
         an instruction set extension, a faster library) could divide the exchange's \
         instructions by: what is left if those cost nothing.",
    );
    let tables = Tables {
        title: String::new(),
        intro: Vec::new(),
        tables: vec![arches::table(&placed)],
        outro: Vec::new(),
        rest_elsewhere: false,
    };
    blocks.push(Block::Table(Table::described(
        "table-profile-arches",
        [("", &tables)],
    )));
    for (alg, lines) in arches::findings(host, &placed) {
        h3(blocks, &format!("arches-{}", slug(&alg)), &alg);
        for l in lines {
            say(blocks, l);
        }
        hottest(blocks, &alg, &placed);
    }
    Ok(())
}

/// One chart per algorithm whose foreign builds have estimated cycles: a bar per build and
/// CPU, split into keygen, encaps and decaps, every bar labelled a model estimate.
fn cycle_charts(results: &[(&str, &ProfileResult)]) -> anyhow::Result<Vec<Chart>> {
    use crate::report::charts::stacked::{stacked_values, Stacked};
    use crate::report::charts::{op_color, tidy, truncate, LegendEntry, Shape};
    const OPS: [Op; 3] = [Op::Keygen, Op::Encaps, Op::Decaps];
    let mut algorithms: Vec<&str> = Vec::new();
    for (_, r) in results {
        if r.operations.iter().any(|o| !o.estimates.is_empty())
            && !algorithms.contains(&r.algorithm.as_str())
        {
            algorithms.push(&r.algorithm);
        }
    }
    let mut charts = Vec::new();
    for alg in algorithms {
        let mut rows = Vec::new();
        let mut group_starts = Vec::new();
        for (_, r) in results.iter().filter(|(_, r)| r.algorithm == alg) {
            let mut cpus: Vec<(&str, &str)> = Vec::new();
            for e in r.operations.iter().flat_map(|o| &o.estimates) {
                if !cpus.iter().any(|(c, _)| *c == e.cpu) {
                    cpus.push((&e.cpu, &e.model));
                }
            }
            if cpus.is_empty() {
                continue;
            }
            group_starts.push(rows.len());
            for (cpu, model) in cpus {
                let shown = if cpu == model {
                    cpu.to_string()
                } else {
                    format!("{cpu} ({model}'s model)")
                };
                let values = OPS
                    .map(|op| {
                        r.op(op)
                            .and_then(|o| o.estimates.iter().find(|x| x.cpu == cpu))
                            .map_or(0.0, |x| x.cycles as f64)
                    })
                    .to_vec();
                rows.push((
                    format!(
                        "{} · {shown} · model estimate",
                        truncate(&r.implementation, 40)
                    ),
                    values,
                ));
            }
        }
        let svg = stacked_values(
            &Stacked {
                parts: OPS
                    .iter()
                    .map(|op| LegendEntry::new(op.as_str(), op_color(*op), Shape::Block))
                    .collect(),
                rows,
                group_starts,
                x_desc: "estimated cycles per call (model estimate: LLVM's scheduling model over exact block counts)",
            },
            &|v| tidy(crate::units::count(v)),
        )?;
        charts.push(Chart {
            id: format!("chart-profile-cycles-{}", slug(alg)),
            title: format!("{alg}: estimated cycles per CPU (model estimate)"),
            caption: "Each bar is one build on one CPU, split into keygen, encaps and decaps: \
                      seed 0's counted blocks priced by the CPU's LLVM scheduling model. Cycles of \
                      an ideal pipeline, not time: no caches, mispredictions or memory latency."
                .into(),
            svg,
            family: None,
            embed: Embed::Inline,
        });
    }
    Ok(charts)
}

/// Per architecture, the hottest functions (self) of the fewest build's decapsulation.
fn hottest(blocks: &mut Vec<Block>, alg: &str, placed: &[Placed<'_>]) {
    let mut items = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    // `placed` is sorted by architecture, then instructions: the first of each is the fewest.
    for p in placed.iter().filter(|p| p.result.algorithm == alg) {
        if seen.contains(&p.arch.as_str()) {
            continue;
        }
        seen.push(&p.arch);
        let Some(o) = p.result.op(Op::Decaps) else {
            continue;
        };
        let mut spans = vec![text(format!("{} ({}): ", p.arch, p.result.implementation))];
        for (i, (f, share)) in o.analysis.hottest_self(HOTTEST).into_iter().enumerate() {
            if i > 0 {
                spans.push(text(", "));
            }
            spans.push(code(&f.name));
            spans.push(text(format!(" {:.1}%", 100.0 * share)));
        }
        items.push(spans);
    }
    if !items.is_empty() {
        say(
            blocks,
            "The hottest functions of decapsulation (their own instructions) in the fewest \
             build of each architecture:",
        );
        blocks.push(Block::List(items));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::fixture;
    use crate::record::profile::Emulated;
    use crate::report::data::{AnyRecord, Dataset};
    use crate::report::doc::Block;

    fn text_of(blocks: &[Block]) -> String {
        format!("{blocks:?}")
    }

    fn section(records: Vec<crate::record::profile::ProfileRecord>) -> String {
        let data = Dataset::from_records(
            records
                .into_iter()
                .enumerate()
                .map(|(i, r)| (format!("p{i}.json").into(), AnyRecord::from(r)))
                .collect(),
        );
        let ctx = Context {
            data: &data,
            primary: data.primary(),
            noise: 0.02,
        };
        let mut blocks = Vec::new();
        build(&ctx, &mut blocks).unwrap();
        text_of(&blocks)
    }

    #[test]
    fn profiles_on_one_architecture_say_how_to_add_others() {
        let s = section(vec![fixture::profile()]);
        assert!(s.contains("ran on one architecture (x86_64)"), "{s}");
        assert!(!s.contains("table-profile-arches"), "{s}");
    }

    #[test]
    fn a_foreign_profile_given_beside_a_native_one_is_placed_on_its_architecture() {
        let native = fixture::profile();
        let mut foreign = fixture::profile();
        for r in &mut foreign.results {
            r.implementation = format!("{}@gcc-12:O2@s390x", r.implementation);
            for o in &mut r.operations {
                o.emulated = Some(Emulated {
                    arch: "s390x".into(),
                    emulator: "qemu-s390x version 7.2.22".into(),
                    loads: 11,
                    stores: 5,
                    mix: Vec::new(),
                    calibration: 1,
                    cpu: String::new(),
                    divisions: Vec::new(),
                    division_sites: Vec::new(),
                });
            }
        }
        let s = section(vec![native.clone(), foreign.clone()]);
        assert!(s.contains("table-profile-arches"), "{s}");
        assert!(
            !s.contains("chart-profile-cycles"),
            "no estimates, no chart: {s}"
        );
        // Both profiles' results are in the table, each on its architecture.
        assert!(s.contains("\"x86_64\"") && s.contains("\"s390x\""), "{s}");
        assert!(s.contains("mock/correct"), "{s}");
        // With estimates for two CPUs, one of them priced with another CPU's model: one chart
        // for the algorithm, a bar per CPU, each said to be a model estimate.
        for r in &mut foreign.results {
            for o in &mut r.operations {
                for (cpu, model, cycles) in [("z16", "z16", 900), ("z13x", "z13", 1200)] {
                    o.estimates.push(crate::record::profile::CycleEstimate {
                        cpu: cpu.into(),
                        model: model.into(),
                        cycles,
                        priced_instructions: 10,
                        unpriced_instructions: 0,
                        blocks: Vec::new(),
                    });
                }
            }
        }
        let s = section(vec![native, foreign.clone()]);
        assert!(s.contains("chart-profile-cycles-mockkem"), "{s}");
        assert!(s.contains("z16 · model estimate"), "{s}");
        // (The SVG writes the apostrophe as an entity.)
        assert!(
            s.contains("z13x (z13&apos;s model) · model estimate"),
            "{s}"
        );
        // On one architecture alone, the chart is there too.
        let s = section(vec![foreign]);
        assert!(s.contains("chart-profile-cycles-mockkem"), "{s}");
    }
}
