//! Where the time of an exchange goes: one stacked bar per (algorithm, implementation), the
//! shares of keygen, encaps and decaps in keygen + encaps + decaps (`share_of_exchange`).

use crate::kem::Op;
use crate::record::latency::LatencyRecord;
use crate::report::charts::stacked::{stacked, Stacked};
use crate::report::charts::{self, pair_label, truncate, Shape};
use crate::report::doc::{Chart, Embed};

/// The operations whose shares are stacked.
pub const PARTS: [Op; 3] = [Op::Keygen, Op::Encaps, Op::Decaps];

/// The chart, or `None` when no result has shares.
pub fn chart(run: &LatencyRecord) -> anyhow::Result<Option<Chart>> {
    let rows: Vec<(String, Vec<f64>)> = run
        .results
        .iter()
        .filter(|r| !r.correctness.failed())
        .filter_map(|r| {
            let shares = PARTS
                .iter()
                .map(|op| r.op(*op)?.share_of_exchange)
                .collect::<Option<Vec<f64>>>()?;
            Some((
                truncate(&pair_label(&r.algorithm, &r.implementation), 44),
                shares,
            ))
        })
        .collect();
    if rows.is_empty() {
        return Ok(None);
    }
    let svg = stacked(&Stacked {
        parts: charts::op_legend(&PARTS, Shape::Block),
        rows,
        group_starts: Vec::new(),
        x_desc: "share of keygen + encaps + decaps (medians)",
    })?;
    Ok(Some(Chart {
        id: "chart-shares".into(),
        title: "Where an exchange's time goes".into(),
        caption: "Each operation's median as a share of keygen + encaps + decaps \
                  (`share_of_exchange`): for key exchange in TLS 1.3 the client pays keygen and \
                  decaps, the server encaps."
            .into(),
        svg,
        family: None,
        embed: Embed::Inline,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::fixture;

    #[test]
    fn one_bar_per_result_with_shares() {
        let c = chart(&fixture::run()).unwrap().unwrap();
        assert!(c.svg.contains("MockKEM · mock/correct"));
        assert!(!c.svg.contains("broken"));
        let mut run = fixture::run();
        for r in &mut run.results {
            for o in &mut r.operations {
                o.share_of_exchange = None;
            }
        }
        assert!(chart(&run).unwrap().is_none());
    }
}
