//! Sweeps: N runs made by N jobs (`--shard K/N --sweep ID`), each measuring its part of one
//! plan, read back as one record. A shard's record says which sweep and shard it belongs to
//! and what the whole plan was ([`Sweep`]); [`merge`] puts the shards of one sweep together,
//! refusing runs that planned different lists and saying what is missing or mixed.

use super::{Benchmark, Kind, Record, RunStatus};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;

/// Checks a sweep id given with `--sweep`: 1 to 64 characters of letters, digits, `.`, `_`,
/// `:` and `-`, not starting with `-` (a CI run id, `nightly-2026-11-27`, `slurm:81234`).
pub fn check_sweep_id(id: &str) -> Result<(), String> {
    let ok = !id.is_empty()
        && id.len() <= 64
        && !id.starts_with('-')
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b':' | b'-'));
    if ok {
        Ok(())
    } else {
        Err(format!(
            "--sweep {id:?}: a sweep id is 1 to 64 letters, digits, '.', '_', ':' or '-' (not \
             starting with '-'), the same for every job of the sweep, e.g. \
             --sweep \"$GITHUB_RUN_ID\""
        ))
    }
}

/// SHA-256 of a plan's labels, sorted, one per line: equal for two jobs exactly when they
/// planned the same set of benchmarks.
pub fn plan_digest(labels: &[String]) -> String {
    let mut sorted: Vec<&str> = labels.iter().map(String::as_str).collect();
    sorted.sort_unstable();
    let mut h = Sha256::new();
    for l in sorted {
        h.update(l.as_bytes());
        h.update(b"\n");
    }
    hex::encode(h.finalize())
}

impl Sweep {
    /// What is wrong with a sweep section read from outside (an imported file): an id not of
    /// the form `--sweep` takes, a shard outside 1..=shards, a digest that is not its plan's.
    pub fn check(&self) -> Result<(), String> {
        check_sweep_id(&self.id).map_err(|e| format!("its sweep: {e}"))?;
        if self.shards == 0 || self.shard.is_some_and(|k| k == 0 || k > self.shards) {
            return Err(format!(
                "its sweep {} names shard {} of {}",
                self.id,
                self.shard.map_or("-".to_string(), |k| k.to_string()),
                self.shards
            ));
        }
        if plan_digest(&self.plan) != self.plan_digest {
            return Err(format!(
                "its sweep {}'s plan digest is not the digest of its plan",
                self.id
            ));
        }
        Ok(())
    }
}

/// A run's place in a sweep, in its record's header.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sweep {
    /// The sweep's id, the same for every job (`--sweep`).
    pub id: String,
    /// The shard this run measured, from 1; absent in a record that holds the whole sweep.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<u32>,
    /// How many shards the sweep has.
    pub shards: u32,
    /// SHA-256 of the whole plan's labels, sorted, one per line.
    pub plan_digest: String,
    /// The whole sweep's plan, every shard's benchmarks, in planned order.
    pub plan: Vec<String>,
    /// In a record that holds the whole sweep: the run used for each shard found.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub runs: Vec<SweepRun>,
    /// In a record that holds the whole sweep: the shards no run was found for.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing_shards: Vec<u32>,
}

/// One run of a sweep, as a merged record lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepRun {
    /// Its shard.
    pub shard: u32,
    /// Its run id.
    pub run_id: String,
    /// Its state in the store (`complete`, `interrupted`, `running`).
    pub status: String,
    /// The machine it ran on.
    pub host: String,
    /// That machine's CPU model.
    pub cpu: String,
    /// Benchmarks it holds.
    pub benchmarks: usize,
}

/// A sweep put together: the record and what a reader must be told about it.
#[derive(Debug)]
pub struct Merged<K: Kind> {
    /// One record holding every shard's results, planned as the whole sweep.
    pub record: Record<K>,
    /// Each thing that makes the sweep less than one clean run (a missing shard, a shard run
    /// twice, shards on different machines or kembench builds, other options): one line each.
    pub warnings: Vec<String>,
}

/// The shards of sweep `id`, as (store status, record) in the order the store recorded them,
/// put together as one record of the whole sweep. Refused (the error says why) when a run is
/// not a shard of `id`, or the runs planned different lists or different numbers of shards.
pub fn merge<K: Kind>(id: &str, runs: Vec<(String, Record<K>)>) -> Result<Merged<K>, String> {
    let Some((_, first)) = runs.first() else {
        return Err(format!("sweep {id} has no runs"));
    };
    let Some(head) = first.sweep.clone() else {
        return Err(format!("{} is not a shard of a sweep", name(first)));
    };
    for (_, r) in &runs {
        let s = r
            .sweep
            .as_ref()
            .filter(|s| s.id == id && s.shard.is_some())
            .ok_or_else(|| format!("{} is not a shard of sweep {id}", name(r)))?;
        if s.shards != head.shards || s.plan_digest != head.plan_digest {
            return Err(format!(
                "the runs of sweep {id} did not plan the same sweep: {} planned {} benchmarks in \
                 {} shards (plan {}), {} planned {} benchmarks in {} shards (plan {}). Every job of a sweep must \
                 plan the same list: the same kembench, filters and registered builds, and the \
                 same --shard count",
                name(first),
                head.plan.len(),
                head.shards,
                &head.plan_digest[..12.min(head.plan_digest.len())],
                name(r),
                s.plan.len(),
                s.shards,
                &s.plan_digest[..12.min(s.plan_digest.len())],
            ));
        }
    }
    let mut warnings = Vec::new();
    // One run per shard: a complete one over any other, then the one recorded last.
    let mut by_shard: BTreeMap<u32, Vec<(String, Record<K>)>> = BTreeMap::new();
    for (status, r) in runs {
        let shard = r.sweep.as_ref().and_then(|s| s.shard).unwrap_or(0);
        by_shard.entry(shard).or_default().push((status, r));
    }
    let mut chosen: Vec<(u32, String, Record<K>)> = Vec::new();
    for (shard, mut all) in by_shard {
        // Runs of one shard planned one part: a run that planned another is not this shard
        // (a record whose shard number was edited), and must not displace it.
        let part = |r: &Record<K>| {
            let mut v = K::planned(&r.config).to_vec();
            v.sort();
            v
        };
        if let Some((_, other)) = all.iter().find(|(_, r)| part(r) != part(&all[0].1)) {
            return Err(format!(
                "{} and {} both say they are shard {shard} of sweep {id} but planned different \
                 benchmarks ({} and {}): one of them is not shard {shard} (was a record's shard \
                 number edited?)",
                name(&all[0].1),
                name(other),
                K::planned(&all[0].1.config).len(),
                K::planned(&other.config).len()
            ));
        }
        let pick = all
            .iter()
            .rposition(|(s, _)| s == RunStatus::Complete.as_str())
            .unwrap_or(all.len() - 1);
        if all.len() > 1 {
            let others: Vec<String> = all
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != pick)
                .map(|(_, (s, r))| format!("{} ({s})", id_of(r)))
                .collect();
            warnings.push(format!(
                "shard {shard} was run {} times: run {} ({}) is used, not {}",
                all.len(),
                id_of(&all[pick].1),
                all[pick].0,
                others.join(", ")
            ));
        }
        let (status, r) = all.swap_remove(pick);
        chosen.push((shard, status, r));
    }
    let missing: Vec<u32> = (1..=head.shards)
        .filter(|k| !chosen.iter().any(|(s, _, _)| s == k))
        .collect();
    let mut record = chosen[0].2.without_results();
    for (shard, status, r) in &chosen {
        if *status != RunStatus::Complete.as_str() {
            warnings.push(format!(
                "shard {shard} ({}) is {status}: it holds {} of its {} benchmarks",
                name(r),
                r.results.iter().filter(|x| x.is_final()).count(),
                K::planned(&r.config).len()
            ));
        }
    }
    if !missing.is_empty() {
        let lacking = head
            .plan
            .iter()
            .filter(|l| {
                !chosen
                    .iter()
                    .any(|(_, _, r)| K::planned(&r.config).contains(l))
            })
            .count();
        warnings.push(format!(
            "shard(s) {} of {} not in the store: {lacking} of the sweep's {} benchmarks are \
             missing",
            shard_list(&missing),
            head.shards,
            head.plan.len()
        ));
    }
    differences(&chosen, &mut warnings);
    record.run_id = None;
    record.sweep = Some(Sweep {
        shard: None,
        runs: chosen
            .iter()
            .map(|(shard, status, r)| SweepRun {
                shard: *shard,
                run_id: r.run_id.clone().unwrap_or_default(),
                status: status.clone(),
                host: r.environment.hostname.clone(),
                cpu: r.environment.cpu.model.clone(),
                benchmarks: r.results.len(),
            })
            .collect(),
        missing_shards: missing.clone(),
        ..head.clone()
    });
    *K::planned_mut(&mut record.config) = head.plan.clone();
    record.started_at = chosen
        .iter()
        .map(|(_, _, r)| r.started_at.clone())
        .min()
        .unwrap_or_default();
    let incomplete = !missing.is_empty()
        || chosen
            .iter()
            .any(|(_, s, _)| s != RunStatus::Complete.as_str());
    record.finished_at = if incomplete {
        None
    } else {
        chosen
            .iter()
            .filter_map(|(_, _, r)| r.finished_at.clone())
            .max()
    };
    K::set_interrupted(&mut record.state, incomplete);
    for (_, _, r) in chosen {
        record.results.extend(r.results);
    }
    record.sort_as_planned();
    Ok(Merged { record, warnings })
}

/// A record's run id, for messages.
fn id_of<K: Kind>(r: &Record<K>) -> &str {
    r.run_id.as_deref().unwrap_or("without an id")
}

/// How a record is named in messages: `run ID (shard K)`.
fn name<K: Kind>(r: &Record<K>) -> String {
    let id = id_of(r);
    match r.sweep.as_ref().and_then(|s| s.shard) {
        Some(k) => format!("run {id} (shard {k})"),
        None => format!("run {id}"),
    }
}

/// One fact of a shard's record that the shards of a sweep should share.
type Fact<'a, K> = &'a dyn Fn(&Record<K>) -> String;

/// Adds a warning for each way the chosen shards differ: machine, CPU, kembench build, what
/// counted the figures, and options (named).
fn differences<K: Kind>(chosen: &[(u32, String, Record<K>)], warnings: &mut Vec<String>) {
    let facts: [(&str, Fact<K>, &str); 4] = [
        ("hosts", &|r| r.environment.hostname.clone(), ""),
        (
            "CPUs",
            &|r| r.environment.cpu.model.clone(),
            ": timings across shards compare different machines",
        ),
        (
            "kembench builds",
            &|r| {
                format!(
                    "{} ({})",
                    r.environment.build.kembench_version, r.environment.build.git_commit
                )
            },
            "",
        ),
        (
            "counters",
            &|r| K::counted_under(&r.measured).unwrap_or_default(),
            ": exact counts across shards were made by different tools",
        ),
    ];
    for (what, fact, consequence) in facts {
        let mut seen: Vec<(String, Vec<u32>)> = Vec::new();
        for (shard, _, r) in chosen {
            // Shown with control characters escaped: a host name comes from the record, which
            // an imported file may have crafted, and the warning goes to a terminal.
            let v = crate::units::visible(&fact(r));
            match seen.iter_mut().find(|(x, _)| *x == v) {
                Some((_, shards)) => shards.push(*shard),
                None => seen.push((v, vec![*shard])),
            }
        }
        if seen.len() > 1 {
            let parts: Vec<String> = seen
                .iter()
                .map(|(v, shards)| format!("{v} on shard(s) {}", shard_list(shards)))
                .collect();
            warnings.push(format!(
                "the shards ran on {} {what}: {}{consequence}",
                seen.len(),
                parts.join("; ")
            ));
        }
    }
    let options = differing_options::<K>(chosen);
    if !options.is_empty() {
        warnings.push(format!(
            "the shards were run with different options: {}",
            options.join(", ")
        ));
    }
}

/// Shard numbers as a list: `1, 3`.
pub fn shard_list(shards: &[u32]) -> String {
    shards
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// A record's configuration without its plan, as JSON: what must agree across shards.
fn options_value<K: Kind>(r: &Record<K>) -> serde_json::Value {
    let mut c = r.config.clone();
    K::planned_mut(&mut c).clear();
    let mut v = serde_json::to_value(&c).unwrap_or_default();
    if let Some(o) = v.as_object_mut() {
        // The selection names the shard's own part when the plan is its default.
        o.remove("selection");
    }
    v
}

/// The names of the options that differ between the chosen shards.
fn differing_options<K: Kind>(chosen: &[(u32, String, Record<K>)]) -> Vec<String> {
    let values: Vec<serde_json::Value> = chosen
        .iter()
        .map(|(_, _, r)| options_value::<K>(r))
        .collect();
    let mut keys: Vec<String> = values
        .iter()
        .filter_map(|v| v.as_object())
        .flat_map(|o| o.keys().cloned())
        .collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter(|k| values.iter().any(|v| v.get(k) != values[0].get(k)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::fixture;
    use crate::record::latency::{Latency, LatencyRecord};

    /// Shard `k` of `n` of a sweep whose plan is the fixture run's, holding the results at
    /// `holds` (indices into the fixture's results).
    fn shard(k: u32, n: u32, holds: &[usize], id: &str) -> LatencyRecord {
        let whole = fixture::run();
        let plan: Vec<String> = whole.results.iter().map(|r| r.label()).collect();
        let mut r = whole.without_results();
        r.run_id = Some(format!("20261127-1200{k:02}-0000000{k}"));
        r.config.planned = holds.iter().map(|i| plan[*i].clone()).collect();
        r.results = holds.iter().map(|i| whole.results[*i].clone()).collect();
        r.sweep = Some(Sweep {
            id: id.into(),
            shard: Some(k),
            shards: n,
            plan_digest: plan_digest(&plan),
            plan,
            runs: Vec::new(),
            missing_shards: Vec::new(),
        });
        r
    }

    fn complete(r: LatencyRecord) -> (String, LatencyRecord) {
        ("complete".into(), r)
    }

    #[test]
    fn two_shards_read_back_as_the_run_they_split() {
        let whole = fixture::run();
        // Stored in the other order: the merged record is still in planned order.
        let m = merge::<Latency>(
            "s",
            vec![
                complete(shard(2, 2, &[1], "s")),
                complete(shard(1, 2, &[0], "s")),
            ],
        )
        .unwrap();
        assert!(m.warnings.is_empty(), "{:?}", m.warnings);
        let labels = |r: &LatencyRecord| r.results.iter().map(|x| x.label()).collect::<Vec<_>>();
        assert_eq!(labels(&m.record), labels(&whole));
        assert_eq!(m.record.config.planned, labels(&whole));
        assert_eq!(m.record.run_id, None);
        assert!(!m.record.interrupted());
        assert!(m.record.finished_at.is_some());
        let sw = m.record.sweep.unwrap();
        assert_eq!(sw.shard, None);
        assert_eq!(
            sw.runs.iter().map(|r| r.shard).collect::<Vec<_>>(),
            vec![1, 2]
        );
        assert!(sw.missing_shards.is_empty());
    }

    #[test]
    fn a_missing_shard_is_said_and_the_sweep_is_not_complete() {
        let m = merge::<Latency>(
            "s",
            vec![
                complete(shard(1, 3, &[0], "s")),
                complete(shard(2, 3, &[1], "s")),
            ],
        )
        .unwrap();
        assert_eq!(m.record.sweep.as_ref().unwrap().missing_shards, vec![3]);
        assert!(m.record.interrupted());
        assert_eq!(m.record.finished_at, None);
        assert!(
            m.warnings
                .iter()
                .any(|w| w.contains("shard(s) 3 of 3 not in the store")),
            "{:?}",
            m.warnings
        );
    }

    #[test]
    fn a_shard_run_twice_counts_once_and_the_complete_run_is_used() {
        let mut retry = shard(1, 2, &[0], "s");
        retry.run_id = Some("20261127-130000-0000000a".into());
        let m = merge::<Latency>(
            "s",
            vec![
                complete(shard(1, 2, &[0], "s")),
                ("running".into(), retry),
                complete(shard(2, 2, &[1], "s")),
            ],
        )
        .unwrap();
        assert_eq!(m.record.results.len(), 2);
        let sw = m.record.sweep.as_ref().unwrap();
        assert_eq!(sw.runs[0].run_id, "20261127-120001-00000001");
        assert!(
            m.warnings
                .iter()
                .any(|w| w.contains("shard 1 was run 2 times")
                    && w.contains("20261127-130000-0000000a (running)")),
            "{:?}",
            m.warnings
        );
    }

    #[test]
    fn shards_that_planned_different_lists_are_refused() {
        let mut other = shard(2, 2, &[1], "s");
        let sw = other.sweep.as_mut().unwrap();
        sw.plan.pop();
        sw.plan_digest = plan_digest(&sw.plan);
        let e = merge::<Latency>("s", vec![complete(shard(1, 2, &[0], "s")), complete(other)])
            .unwrap_err();
        assert!(e.contains("did not plan the same sweep"), "{e}");
        assert!(e.contains("shard 1") && e.contains("shard 2"), "{e}");
        // Another shard count is another sweep too.
        let e = merge::<Latency>(
            "s",
            vec![
                complete(shard(1, 2, &[0], "s")),
                complete(shard(2, 3, &[1], "s")),
            ],
        )
        .unwrap_err();
        assert!(e.contains("in 3 shards"), "{e}");
        // A run of another sweep is not a shard of this one.
        let e = merge::<Latency>(
            "s",
            vec![
                complete(shard(1, 2, &[0], "s")),
                complete(shard(2, 2, &[1], "t")),
            ],
        )
        .unwrap_err();
        assert!(e.contains("is not a shard of sweep s"), "{e}");
    }

    #[test]
    fn a_run_that_planned_another_shards_part_does_not_displace_the_shard() {
        // Shard 2's run numbered 1: same sweep, same plan, another part.
        let mut renumbered = shard(2, 2, &[1], "s");
        renumbered.sweep.as_mut().unwrap().shard = Some(1);
        renumbered.run_id = Some("20261127-130000-0000000b".into());
        let e = merge::<Latency>(
            "s",
            vec![
                complete(shard(1, 2, &[0], "s")),
                complete(renumbered),
                complete(shard(2, 2, &[1], "s")),
            ],
        )
        .unwrap_err();
        assert!(
            e.contains("both say they are shard 1 of sweep s but planned different"),
            "{e}"
        );
        assert!(e.contains("20261127-130000-0000000b"), "{e}");
    }

    #[test]
    fn a_sweep_section_read_from_outside_is_checked() {
        let good = shard(1, 2, &[0], "s");
        good.check().unwrap();
        let bad = |f: &dyn Fn(&mut Sweep)| {
            let mut r = good.clone();
            f(r.sweep.as_mut().unwrap());
            r.check().unwrap_err()
        };
        assert!(bad(&|s| s.id = "a b".into()).contains("a sweep id is"));
        assert!(bad(&|s| s.shard = Some(3)).contains("names shard 3 of 2"));
        assert!(bad(&|s| s.shard = Some(0)).contains("names shard 0 of 2"));
        assert!(bad(&|s| s.shards = 0).contains("of 0"));
        assert!(bad(&|s| s.plan.push("X@y".into())).contains("not the digest of its plan"));
    }

    #[test]
    fn shards_on_different_cpus_or_options_are_said() {
        let mut b = shard(2, 2, &[1], "s");
        b.environment.cpu.model = "Another CPU".into();
        b.config.sampler.time_budget_s *= 2.0;
        let m = merge::<Latency>("s", vec![complete(shard(1, 2, &[0], "s")), complete(b)]).unwrap();
        let all = m.warnings.join("\n");
        assert!(
            all.contains("2 CPUs") && all.contains("Another CPU on shard(s) 2"),
            "{all}"
        );
        assert!(all.contains("compare different machines"), "{all}");
        assert!(
            all.contains("different options") && all.contains("sampler"),
            "{all}"
        );
    }

    #[test]
    fn a_host_name_with_escape_sequences_is_shown_escaped() {
        let mut b = shard(2, 2, &[1], "s");
        b.environment.hostname = "evil\u{1b}]0;owned\u{7}".into();
        let m = merge::<Latency>("s", vec![complete(shard(1, 2, &[0], "s")), complete(b)]).unwrap();
        let all = m.warnings.join("\n");
        assert!(all.contains("ran on 2 hosts"), "{all}");
        assert!(!all.chars().any(|c| c.is_control() && c != '\n'), "{all:?}");
        assert!(all.contains("evil\\u{1b}]0;owned\\u{7}"), "{all}");
    }
}
