//! The method: how kembench measures (timers, sample counts, rounds, statistics, memory, the
//! comparison, throughput), then for every run its timers, sampling settings and the operations
//! that stopped before the target precision or whose rounds disagree.

pub(super) use super::common::para;
use super::common::{h3, int_cell, op_cell, pct_cell, run_heading, say, tags};
use super::{Context, Section, KINDS};
use crate::measure::sampler::StopReason;
use crate::record::latency::Latency;
use crate::record::latency::{LatencyRecord, OperationResult, DRIFT};
use crate::report::data::Input;
use crate::report::doc::{strong, text, Block, Cell, Mark, Table};
use crate::units;

/// The method section.
pub const SECTION: Section = Section::new("methodology", "Methodology", build);

fn build(ctx: &Context<'_>, blocks: &mut Vec<Block>) -> anyhow::Result<()> {
    let (data, noise) = (ctx.data, ctx.noise);
    say(
        blocks,
        "Each (algorithm, implementation) is measured on one thread pinned to the last \
         logical CPU (unless `--no-pin`), with a 64 MiB stack. Encapsulation cycles through \
         16 distinct public keys and decapsulation through 16 (secret key, ciphertext) pairs \
         (4 for Classic McEliece), prepared before timing; `exchange` is keygen + encaps + \
         decaps of a fresh key as one unit.",
    );
    blocks.push(Block::List(vec![
        vec![
            strong("Timers. "),
            text(
                "Times are from the monotonic clock, in ns. On x86-64 the TSC is read as well, \
                 with `lfence` on both sides. TSC ticks run at a constant nominal rate \
                 (about the nominal GHz) whatever the core's actual frequency: they are a finer \
                 clock, not core cycles. Cycles are core cycles counted by the hardware \
                 (`perf_event_open`), in a separate phase so counter reads never sit inside a \
                 timed sample; machines without a PMU (most VMs) say n/a. A sample times a \
                 batch of calls when one call is shorter than 100× the timer's resolution or \
                 read overhead.",
            ),
        ],
        vec![
            strong("Sample counts. "),
            text(
                "After a warm-up, samples are taken until the 95% confidence interval of the \
                 median (order statistics) is within the target precision, or the time budget \
                 is spent, never fewer than the minimum unless ten budgets pass first. The \
                 stop reason of every operation is in the latency table; those that did not \
                 stop on precision are listed below.",
            ),
        ],
        vec![
            strong("Rounds. "),
            text(format!(
                "Each budget is split into rounds; in every round all (implementation, \
                 operation) pairs take their turn in a freshly shuffled order, so each median \
                 spans the whole run. Each round's median is kept; their spread (slowest over \
                 fastest, minus one) shows how much the machine's speed moved, and spreads \
                 above {:.0}% are listed below.",
                DRIFT * 100.0
            )),
        ],
        vec![
            strong("Statistics. "),
            text(
                "Medians with a 95% bootstrap interval (2000 resamples, fixed seed); Tukey \
                 outliers are counted, never dropped; ops/s is from the median; shares are of \
                 keygen + encaps + decaps medians.",
            ),
        ],
        vec![
            strong("Memory. "),
            text(
                "Heap: kembench interposes malloc and friends, so allocations inside the C \
                 libraries count; the figure is the peak live bytes above the baseline in one \
                 call (the largest of three). Stack: the call runs on a fresh thread whose \
                 stack is painted; the deepest overwritten byte, minus the harness's own depth.",
            ),
        ],
        vec![
            strong("Comparison. "),
            text(format!(
                "Ratio of medians with a bootstrap interval; a verdict of faster or slower \
                 needs significance (p < 0.05) and a change beyond ±{:.1}%.",
                noise * 100.0
            )),
        ],
    ]));
    for kind in KINDS {
        (kind.method)(data, blocks);
    }
    for (i, input) in data.of::<Latency>().iter().enumerate() {
        run_method(blocks, i, input);
    }
    Ok(())
}

/// The timers, sampling settings and stopped or drifting operations of the `i`-th run.
fn run_method(blocks: &mut Vec<Block>, i: usize, input: &Input<LatencyRecord>) {
    let r = &input.record;
    let s = &r.config.sampler;
    h3(
        blocks,
        &format!("methodology-run-{}", i + 1),
        &run_heading(i, input),
    );
    let tm = &r.measured.timers;
    let mut facts = vec![
        (
            "clock".to_string(),
            format!(
                "resolution {}, read overhead {}",
                units::ns(tm.clock.resolution),
                units::ns(tm.clock.overhead)
            ),
        ),
        (
            "TSC".into(),
            match (&tm.tsc, tm.tsc_ticks_per_ns) {
                (Some(t), Some(rate)) => format!(
                    "resolution {:.0} ticks, read overhead {:.0} ticks, {rate:.3} ticks/ns \
                     (≈ {:.2} GHz nominal; ticks are not core cycles)",
                    t.resolution, t.overhead, rate
                ),
                (Some(t), None) => format!(
                    "resolution {:.0} ticks, read overhead {:.0} ticks",
                    t.resolution, t.overhead
                ),
                _ => "not available".into(),
            },
        ),
        (
            "hardware counters".into(),
            r.measured
                .counters_unavailable
                .as_ref()
                .map_or("measured".into(), |why| format!("unavailable: {why}")),
        ),
        (
            "sampling".into(),
            format!(
                "warm-up {}, budget {} per operation, target ±{:.1}%, {} – {} samples, \
                 {} round{}, pool of {}",
                units::ns(s.warmup_s * 1e9),
                units::ns(s.time_budget_s * 1e9),
                s.target_precision * 100.0,
                s.min_samples,
                s.max_samples,
                s.rounds,
                if s.rounds == 1 { "" } else { "s" },
                s.pool
            ),
        ),
    ];
    let ops: Vec<&OperationResult> = r.results.iter().flat_map(|b| b.operations.iter()).collect();
    if !ops.is_empty() {
        let mut counts: Vec<usize> = ops.iter().map(|o| o.samples).collect();
        counts.sort_unstable();
        let mut reasons: Vec<String> = Vec::new();
        for reason in [
            StopReason::Precision,
            StopReason::Budget,
            StopReason::MaxSamples,
            StopReason::BelowMinimum,
            StopReason::RoundsDisagree,
        ] {
            let n = ops.iter().filter(|o| o.stop_reason == reason).count();
            if n > 0 {
                reasons.push(format!("{} {n}", reason.label()));
            }
        }
        let spread = ops.iter().map(|o| o.round_spread).fold(0.0f64, f64::max);
        facts.push((
            "samples".into(),
            format!(
                "{} operations: {} – {} samples (median {}); stopped on: {}",
                ops.len(),
                counts[0],
                counts[counts.len() - 1],
                counts[counts.len() / 2],
                reasons.join(", ")
            ),
        ));
        facts.push((
            "round spread".into(),
            format!(
                "largest {:.0}%; {} of {} operations above {:.0}%",
                spread * 100.0,
                ops.iter().filter(|o| o.drifted()).count(),
                ops.len(),
                DRIFT * 100.0
            ),
        ));
    }
    blocks.push(Block::Facts(facts));
    let mut t = Table::new(
        &format!("table-stops-{}", i + 1),
        &[
            "algorithm",
            "implementation",
            "op",
            "samples#",
            "stop",
            "precision reached#",
            "round medians",
            "round spread#",
        ],
    )
    .folded();
    for b in &r.results {
        for o in &b.operations {
            if o.stop_reason == StopReason::Precision && !o.drifted() {
                continue;
            }
            let rounds: Vec<String> = o.round_medians_ns.iter().map(|m| units::ns(*m)).collect();
            let spread = pct_cell(o.round_spread);
            t.push(
                vec![
                    Cell::text(&b.algorithm),
                    Cell::text(&b.implementation),
                    op_cell(o.operation),
                    int_cell(o.samples as u64),
                    Cell::text(o.stop_reason.label()),
                    Cell::num(
                        format!("±{:.1}%", o.achieved_precision * 100.0),
                        o.achieved_precision,
                    ),
                    Cell::text(rounds.join(", ")),
                    if o.drifted() {
                        spread.marked(Mark::Warn)
                    } else {
                        spread
                    },
                ],
                tags(b),
            );
        }
    }
    if t.rows.is_empty() {
        say(
            blocks,
            "Every operation reached the target precision with rounds that agree.",
        );
    } else {
        say(
            blocks,
            format!(
                "Operations that stopped before the target precision, or whose round medians \
                 are more than {:.0}% apart:",
                DRIFT * 100.0
            ),
        );
        blocks.push(Block::Table(t));
    }
}
