//! TLS handshakes: the charts of every tls run given ([`chart`]: handshakes per second, CPU
//! per handshake and the key exchange's part, bytes per flight against TCP segments, handshake
//! time against RTT and loss; each run's own, named after it when there are several) and under
//! each the table of its figures, every tls run's rows in it; the decision table; then the
//! groups a stack lacks and the network conditions not measured.

pub mod chart;

use super::common::{h3, say};
use super::environment::record_facts;
use super::intro::line;
use super::method::para;
use super::{Context, KindParts, Section};
use crate::report::data::Dataset;
use crate::report::doc::{strong, Para};
use crate::units;

use crate::record::tls::tables::{decisions, Decision, BASELINE_CERT, BASELINE_GROUP};
use crate::record::tls::Tls;
use crate::record::tls::{TlsRecord, MSS};
use crate::report::data::Input;
use crate::report::doc::{text, Block, Chart, Table};
use crate::table::{Described, Tables};

/// The tls section.
pub const SECTION: Section = Section::new("tls", "TLS handshakes", build);

/// What the report's intro, environment and method say of this kind's records.
pub const PARTS: KindParts = KindParts {
    intro,
    environment,
    method,
};

/// The intro's line for each record of this kind.
fn intro(data: &Dataset) -> Vec<Para> {
    let mut out = Vec::new();
    for t in data.of::<Tls>().iter() {
        let n = t.record.results.len();
        out.push(line(
            format!("tls ({})", t.label),
            "",
            &t.record,
            vec![text(format!(
                ", {n} benchmark{}.",
                if n == 1 { "" } else { "s" }
            ))],
        ));
    }
    out
}

/// Each record's heading and facts under "Environment".
fn environment(data: &Dataset, blocks: &mut Vec<Block>) {
    for (i, input) in data.of::<Tls>().iter().enumerate() {
        let r = &input.record;
        let c = &r.config;
        let stacks: Vec<String> = r
            .results
            .iter()
            .map(|x| format!("{} {}", x.stack, x.version))
            .fold(Vec::new(), |mut v, s| {
                if !v.contains(&s) {
                    v.push(s);
                }
                v
            });
        let facts = vec![
            (
                "selection".into(),
                format!(
                    "groups {}; stacks {}; certificates {} ({} benchmarks)",
                    c.groups.join(", "),
                    c.stacks.join(", "),
                    c.certs.join(", "),
                    r.results.len()
                ),
            ),
            ("stack versions".into(), stacks.join(", ")),
            (
                "handshakes".into(),
                format!(
                    "{} per kind ({}), scaling at threads {:?} for {} each, {} per network condition",
                    units::ns(c.duration_s * 1e9),
                    c.modes.iter().map(|m| m.as_str()).collect::<Vec<_>>().join(", "),
                    c.threads,
                    units::ns(c.scaling_duration_s * 1e9),
                    c.network_handshakes
                ),
            ),
        ];
        let id = format!("environment-tls-{}", i + 1);
        let heading = format!("tls ({})", input.label);
        record_facts(blocks, &id, &heading, r, facts);
    }
}

/// What the method says of this kind, when the report has records of it.
fn method(data: &Dataset, blocks: &mut Vec<Block>) {
    if !data.of::<Tls>().is_empty() {
        para(
            blocks,
            vec![
                strong("TLS handshakes. "),
                text(
                    "Both stacks' own client and server shake hands over an in-memory \
                     transport in one thread; each side's time is the time spent in its own \
                     calls, summarised per round, and the best round's median is the figure \
                     least moved by the machine's drift. Every handshake is checked for the \
                     negotiated group, the key shares on the wire and the certificate chain. \
                     Network conditions are loopback TCP between network namespaces, with a \
                     relay for the delay and packet filters for the loss.",
                ),
            ],
        );
    }
}

/// The chart `make` draws of each run in `records`: one run's chart as it is, several runs'
/// each named after its run (title) and numbered in turn (id), so that no two share an id.
fn of_each(
    records: &[Input<TlsRecord>],
    make: impl Fn(&TlsRecord) -> anyhow::Result<Option<Chart>>,
) -> anyhow::Result<Vec<Chart>> {
    let mut out = Vec::new();
    for (i, input) in records.iter().enumerate() {
        if let Some(mut c) = make(&input.record)? {
            if records.len() > 1 {
                c.id = format!("{}-{}", c.id, i + 1);
                c.title = format!("{} ({})", c.title, input.label);
            }
            out.push(c);
        }
    }
    Ok(out)
}

/// Adds `charts` when there are some, under a sub-heading.
fn charted(blocks: &mut Vec<Block>, id: &str, title: &str, charts: Vec<Chart>) {
    h3(blocks, id, title);
    if !charts.is_empty() {
        blocks.push(Block::Charts {
            id: String::new(),
            charts,
        });
    }
}

fn build(ctx: &Context<'_>, blocks: &mut Vec<Block>) -> anyhow::Result<()> {
    let records = &ctx.data.of::<Tls>();
    if records.is_empty() {
        say(blocks, "No tls run given (`kembench tls --json FILE`).");
        return Ok(());
    }
    say(
        blocks,
        format!(
            "Real TLS 1.3 handshakes between two stacks' own client and server, every one \
             checked (negotiated group, key shares on the wire, certificate chain). CPU figures \
             come from an in-memory transport, each side's time in its own calls; flights are \
             counted in TLS bytes and {MSS}-byte TCP segments.{}",
            if records.len() > 1 {
                format!(
                    " Each of the {} tls runs given has its own charts, named after it; the \
                     tables hold every run's rows.",
                    records.len()
                )
            } else {
                String::new()
            }
        ),
    );

    let described: Vec<(&str, Tables)> = records
        .iter()
        .map(|i| (i.label.as_str(), i.record.tables(&i.record.results)))
        .collect();
    let table = |id: &str| Table::described(id, described.iter().map(|(l, t)| (*l, t)));
    let with_rows = |t: Table| (!t.rows.is_empty()).then_some(t);

    charted(
        blocks,
        "tls-rate",
        "Handshakes per second",
        of_each(records, chart::rate)?,
    );
    blocks.push(Block::Table(table("table-tls-cpu")));

    charted(
        blocks,
        "tls-cpu",
        "CPU per handshake and the key exchange",
        of_each(records, chart::cpu)?,
    );
    if let Some(t) = with_rows(table("table-tls-capacity")) {
        say(
            blocks,
            "Cores for the target rate of full handshakes: measured (one core's rate per \
             side, times the per-core slowdown at the basis thread count) beside what \
             `kembench throughput`'s model predicts from the bare key exchange alone.",
        );
        blocks.push(Block::Table(t));
    }

    charted(
        blocks,
        "tls-flights",
        "Bytes per flight",
        of_each(records, chart::flights)?,
    );
    blocks.push(Block::Table(table("table-tls-flights")));

    if let Some(t) = with_rows(table("table-tls-scaling")) {
        h3(blocks, "tls-scaling", "Scaling across threads");
        say(
            blocks,
            "Full handshakes with both sides in each thread; efficiency is the speed-up over \
             min(threads, logical CPUs).",
        );
        blocks.push(Block::Table(t));
    }

    if let Some(t) = with_rows(table("table-tls-network")) {
        h3(blocks, "tls-network", "Under network conditions");
        for against in [chart::Against::Rtt, chart::Against::Loss] {
            let charts = of_each(records, |r| chart::network(r, against))?;
            if !charts.is_empty() {
                blocks.push(Block::Charts {
                    id: String::new(),
                    charts,
                });
            }
        }
        blocks.push(Block::Table(t));
    }
    if let Some(t) = with_rows(table("table-tls-decision")) {
        h3(
            blocks,
            "tls-decision",
            "What the post-quantum transition costs your servers and your users",
        );
        say(
            blocks,
            format!(
                "Each configuration measured, at its run's target rate of full handshakes and \
                 under each network condition measured: the cores a TLS terminator needs \
                 (server) and its clients spend (client), the bytes a full handshake puts on \
                 the wire each way, and the handshake time a user waits (median and p95, TCP \
                 connect to the client's Finished). The + columns hold each row against the \
                 same stack's {BASELINE_GROUP} key exchange with an {BASELINE_CERT} chain, \
                 measured in the same run, under the same condition: what moving to that \
                 configuration adds."
            ),
        );
        for input in records.iter() {
            for line in costliest(&input.record, records.len() > 1, &input.label) {
                say(blocks, line);
            }
        }
        blocks.push(Block::Table(t));
    }
    let notes = notes(records);
    if !notes.is_empty() {
        h3(blocks, "tls-not-measured", "Not measured");
        blocks.push(Block::List(notes));
    }
    Ok(())
}

/// Per stack of `record`, the configuration that adds the most server cores over its baseline,
/// in one sentence with what it adds for the clients, on the wire and to the handshake time
/// (the slowest condition's median); nothing for a stack without a baseline.
fn costliest(record: &TlsRecord, name_run: bool, label: &str) -> Vec<String> {
    let rows = decisions(&record.results);
    let mut stacks: Vec<&str> = Vec::new();
    for d in &rows {
        if !stacks.contains(&d.result.stack.as_str()) {
            stacks.push(&d.result.stack);
        }
    }
    let mut out = Vec::new();
    for stack in stacks {
        let of_stack = || {
            rows.iter()
                .filter(move |d| d.result.stack == stack && !d.is_baseline())
        };
        let Some(worst) = of_stack()
            .filter(|d| d.extra_cores().is_some())
            .max_by(|a, b| {
                let x = |d: &Decision| d.extra_cores().map_or(f64::MIN, |c| c.0);
                x(a).total_cmp(&x(b))
            })
        else {
            continue;
        };
        let r = worst.result;
        let (xs, xc) = worst.extra_cores().unwrap_or_default();
        let slowest = of_stack()
            .filter(|d| std::ptr::eq(d.result, r))
            .filter_map(|d| Some((d.profile?, d.extra_ms()?)))
            .max_by(|a, b| a.1 .0.total_cmp(&b.1 .0));
        let rate = r
            .capacity
            .as_ref()
            .map_or(String::new(), |c| units::count(c.target_rate));
        out.push(format!(
            "{}{stack}: the costliest configuration measured, {} with a {} chain ({}), adds \
             {xs:+.2} server cores and {xc:+.2} client cores at {rate} handshakes/s{}{}.",
            if name_run {
                format!("{label}, ")
            } else {
                String::new()
            },
            r.group,
            r.cert,
            r.implementation,
            worst
                .extra_bytes()
                .map_or(String::new(), |b| format!(", {b:+} bytes per handshake")),
            slowest.map_or(String::new(), |(p, (m, q))| format!(
                ", and {m:+.1} ms to the median handshake ({q:+.1} ms at p95) under {p}"
            )),
        ));
    }
    out
}

/// Groups a stack lacks, errors, and network conditions not measured, one line each.
fn notes(records: &[Input<TlsRecord>]) -> Vec<crate::report::doc::Para> {
    let mut out = Vec::new();
    for input in records {
        for r in &input.record.results {
            let who = format!("{}@{} ({})", r.group, r.implementation, input.label);
            if let Some(why) = &r.unavailable {
                out.push(vec![text(format!("{who}: unavailable: {why}"))]);
            }
            if let Some(e) = &r.error {
                out.push(vec![text(format!("{who}: error: {e}"))]);
            }
            if let Some(why) = &r.network_skipped {
                out.push(vec![text(format!(
                    "{who}: network conditions not measured: {why}"
                ))]);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::data::{AnyRecord, Dataset};
    use crate::report::doc::Block;

    fn blocks(data: &Dataset) -> Vec<Block> {
        let ctx = Context {
            data,
            primary: None,
            noise: 0.02,
        };
        let mut b = Vec::new();
        build(&ctx, &mut b).unwrap();
        b
    }

    #[test]
    fn the_fixture_gets_every_chart_and_table() {
        let data = Dataset::from_records(vec![(
            "tls.json".into(),
            AnyRecord::from(crate::export::fixture::tls()),
        )]);
        let b = blocks(&data);
        let charts: Vec<&str> = b
            .iter()
            .flat_map(|x| match x {
                Block::Charts { charts, .. } => charts.iter().map(|c| c.id.as_str()).collect(),
                _ => Vec::new(),
            })
            .collect();
        assert_eq!(
            charts,
            [
                "chart-tls-rate",
                "chart-tls-cpu",
                "chart-tls-flights",
                "chart-tls-rtt",
                "chart-tls-loss"
            ]
        );
        let tables: Vec<&str> = b
            .iter()
            .filter_map(|x| match x {
                Block::Table(t) => Some(t.id.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(
            tables,
            [
                "table-tls-cpu",
                "table-tls-capacity",
                "table-tls-flights",
                "table-tls-scaling",
                "table-tls-network",
                "table-tls-decision"
            ]
        );
        let Some(Block::List(notes)) = b.last() else {
            panic!("the notes come last")
        };
        assert_eq!(notes.len(), 2, "the unavailable group, the skipped network");
    }

    #[test]
    fn every_tls_run_given_is_charted_each_under_its_own_name() {
        let mut other = crate::export::fixture::tls();
        other.results.truncate(1);
        let data = Dataset::from_records(vec![
            (
                "a.json".into(),
                AnyRecord::from(crate::export::fixture::tls()),
            ),
            ("b.json".into(), AnyRecord::from(other)),
        ]);
        let b = blocks(&data);
        let charts: Vec<(String, String)> = b
            .iter()
            .flat_map(|x| match x {
                Block::Charts { charts, .. } => charts
                    .iter()
                    .map(|c| (c.id.clone(), c.title.clone()))
                    .collect(),
                _ => Vec::new(),
            })
            .collect();
        for kind in ["rate", "cpu", "flights", "rtt", "loss"] {
            for (n, label) in [(1, "a.json"), (2, "b.json")] {
                let id = format!("chart-tls-{kind}-{n}");
                let c = charts.iter().find(|c| c.0 == id);
                assert!(
                    c.is_some_and(|c| c.1.ends_with(&format!("({label})"))),
                    "{id}: {charts:?}"
                );
            }
        }
        let mut ids: Vec<&String> = charts.iter().map(|c| &c.0).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), charts.len(), "no two charts share an id");
        // One run alone keeps its ids and titles as they were.
        let one = blocks(&Dataset::from_records(vec![(
            "a.json".into(),
            AnyRecord::from(crate::export::fixture::tls()),
        )]));
        let titles: Vec<(&str, &str)> = one
            .iter()
            .flat_map(|x| match x {
                Block::Charts { charts, .. } => charts
                    .iter()
                    .map(|c| (c.id.as_str(), c.title.as_str()))
                    .collect(),
                _ => Vec::new(),
            })
            .collect();
        assert_eq!(titles.len(), 5);
        assert!(titles.iter().any(|c| c.0 == "chart-tls-rate"), "{titles:?}");
        assert!(
            titles.iter().all(|c| !c.1.contains("(a.json)")),
            "{titles:?}"
        );
    }

    #[test]
    fn the_decision_section_names_each_stacks_costliest_configuration() {
        let mut r = crate::export::fixture::tls();
        // Without a baseline, the table alone.
        assert!(costliest(&r, false, "t.json").is_empty());
        let mut b = r.results[0].clone();
        b.algorithm = "X25519".into();
        b.group = BASELINE_GROUP.into();
        let c = b.capacity.as_mut().unwrap();
        c.server_cores_for_target /= 2.0;
        r.results.push(b);
        let lines = costliest(&r, false, "t.json");
        assert_eq!(lines.len(), 1, "{lines:?}");
        let d = decisions(&r.results)
            .into_iter()
            .find(|d| std::ptr::eq(d.result, &r.results[0]))
            .unwrap();
        let (xs, _) = d.extra_cores().unwrap();
        assert!(xs > 0.0);
        assert!(lines[0].starts_with("rustls: the costliest"), "{lines:?}");
        assert!(
            lines[0].contains(&format!("{xs:+.2} server cores")),
            "{lines:?}"
        );
        assert!(lines[0].contains("X25519MLKEM768"), "{lines:?}");
    }

    #[test]
    fn no_tls_run_says_so() {
        let b = blocks(&Dataset::default());
        assert!(matches!(&b[..], [Block::Para(p)] if format!("{p:?}").contains("tls --json")));
    }
}
