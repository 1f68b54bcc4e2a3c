//! `--shard K/N`: one of N jobs of a sweep measures its part of the planned list.
//!
//! Every job of a sweep plans the same list (same kembench, filters and registered builds),
//! then keeps the benchmarks this function assigns to its shard. The assignment is
//! deterministic and depends only on the set of labels and their expected costs, never on
//! the order the list came in or on anything measured: N jobs on N machines agree on it
//! without talking to each other, the union of their parts is the plan and no benchmark is
//! measured twice. Parts are balanced by expected cost with the longest-processing-time rule
//! (the costliest benchmark first, each to the shard with the least cost so far), which keeps
//! the costliest shard within one benchmark's cost of the cheapest.
//!
//! The expected cost is a proxy, stated here because it decides only who measures what and
//! never appears as a figure: one unit per benchmark (a run's time budget per operation, or
//! valgrind's start-up under `profile`) plus one unit per 50,000 bytes of public key, secret
//! key and ciphertext (the catalog's sizes), which is where Classic McEliece's and FrodoKEM's
//! larger work shows.

use std::fmt;
use std::str::FromStr;

/// One shard of N: `index` counts from 1, as `--shard 1/4` … `--shard 4/4`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// This shard, 1 to `count`.
    pub index: u32,
    /// How many shards the sweep has.
    pub count: u32,
}

/// The most shards a sweep may have.
pub const MAX_SHARDS: u32 = 10_000;

impl FromStr for Shard {
    type Err = String;

    /// Parses `K/N` with 1 ≤ K ≤ N ≤ [`MAX_SHARDS`].
    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || {
            format!(
                "--shard takes K/N, shard K of N counted from 1 (1/4 … 4/4), got '{s}'; a \
                 scheduler that counts from 0 (a Slurm array 0-3, a Kubernetes indexed Job) \
                 gives $((INDEX + 1))/N"
            )
        };
        let (k, n) = s.trim().split_once('/').ok_or_else(bad)?;
        let k: u32 = k.trim().parse().map_err(|_| bad())?;
        let n: u32 = n.trim().parse().map_err(|_| bad())?;
        if n == 0 || n > MAX_SHARDS {
            return Err(format!(
                "--shard {s}: the number of shards is 1 to {MAX_SHARDS}, got {n}"
            ));
        }
        if k == 0 || k > n {
            return Err(if k == 0 {
                format!("--shard {s}: shards count from 1 (1/{n} … {n}/{n}); 0 is no shard")
            } else {
                format!("--shard {s}: there is no shard {k} of {n}")
            });
        }
        Ok(Shard { index: k, count: n })
    }
}

impl Shard {
    /// [`FromStr`] for clap's value parser.
    pub fn from_str_arg(s: &str) -> Result<Shard, String> {
        s.parse()
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

pub use crate::record::sweep::{check_sweep_id, plan_digest};

/// The expected cost of a benchmark of an algorithm with these sizes (see the module's
/// documentation): 1 + (pk + sk + ct bytes) / 50,000.
pub fn expected_cost(pk_len: usize, sk_len: usize, ct_len: usize) -> f64 {
    1.0 + (pk_len + sk_len + ct_len) as f64 / 50_000.0
}

/// Which shard (0-based) each of `costs` goes to: the longest-processing-time rule over the
/// items ordered by cost (highest first) and then by label, so the answer depends only on
/// the set of (label, cost) pairs, not on their order. `labels` and `costs` have one entry
/// per item; labels are distinct.
pub fn assign(labels: &[String], costs: &[f64], shards: u32) -> Vec<u32> {
    assert_eq!(labels.len(), costs.len(), "one cost per label");
    let mut order: Vec<usize> = (0..labels.len()).collect();
    order.sort_by(|&a, &b| {
        costs[b]
            .total_cmp(&costs[a])
            .then_with(|| labels[a].cmp(&labels[b]))
    });
    let mut load = vec![0.0f64; shards.max(1) as usize];
    let mut to = vec![0u32; labels.len()];
    for i in order {
        let (least, _) = load
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.total_cmp(b.1).then(a.0.cmp(&b.0)))
            .expect("at least one shard");
        load[least] += costs[i];
        to[i] = least as u32;
    }
    to
}

/// The items of `items` that `shard` measures, in their planned order, and the labels of the
/// whole plan they were taken from, in order. `label` and `cost` describe an item.
pub fn take<T>(
    items: Vec<T>,
    shard: Shard,
    label: impl Fn(&T) -> String,
    cost: impl Fn(&T) -> f64,
) -> (Vec<T>, Vec<String>) {
    let labels: Vec<String> = items.iter().map(&label).collect();
    let costs: Vec<f64> = items.iter().map(&cost).collect();
    let to = assign(&labels, &costs, shard.count);
    let mine = items
        .into_iter()
        .zip(to)
        .filter(|(_, s)| *s + 1 == shard.index)
        .map(|(item, _)| item)
        .collect();
    (mine, labels)
}

/// The expected cost of a benchmark of `k` ([`expected_cost`] of its algorithm's sizes).
pub fn cost_of(k: &std::sync::Arc<dyn crate::kem::Kem>) -> f64 {
    let a = k.meta().algorithm;
    expected_cost(a.pk_len, a.sk_len, a.ct_len)
}

/// `impls` as a command measures them: all of them, or with `job` this job's part, said on
/// standard error (`command` names who says it), and the sweep section of its record.
pub fn split(
    job: Option<&Job>,
    impls: Vec<std::sync::Arc<dyn crate::kem::Kem>>,
    command: &str,
) -> (
    Vec<std::sync::Arc<dyn crate::kem::Kem>>,
    Option<crate::record::sweep::Sweep>,
) {
    match job {
        None => (impls, None),
        Some(j) => {
            let (mine, sweep) = j.take(impls);
            eprintln!("{command}: {}", j.announce(mine.len(), &sweep));
            (mine, Some(sweep))
        }
    }
}

/// The expected cost of the benchmark labelled `label` (`ALGORITHM@implementation`) in a
/// sweep made by `command`, as the jobs weighed it when they split the plan: `tls` weighs
/// every plan the same, the other commands by the algorithm's sizes ([`cost_of`]). `None`
/// when the sizes cannot be known from the label (an algorithm added with `add`, which the
/// catalog does not hold).
pub fn label_cost(command: &str, label: &str) -> Option<f64> {
    if command == "tls" {
        return Some(1.0);
    }
    let name = label.split('@').next()?;
    let a = if name == crate::kem::catalog::MOCK.name {
        &crate::kem::catalog::MOCK
    } else {
        crate::kem::catalog::find(name)?
    };
    Some(expected_cost(a.pk_len, a.sk_len, a.ct_len))
}

/// Checks that `planned`, the list a shard's record says it measured, is the part of the
/// sweep's `plan` that `shard` gets ([`take`] with each label's `cost`): a record whose
/// shard number was edited would otherwise stand in for the real shard when the sweep is read
/// back. The error names the shard the list belongs to, when it is another's. When a cost
/// is unknown, only that every planned benchmark is in the plan is checked.
pub fn check_part(
    plan: &[String],
    planned: &[String],
    shard: Shard,
    cost: impl Fn(&str) -> Option<f64>,
) -> Result<(), String> {
    if let Some(l) = planned.iter().find(|l| !plan.contains(l)) {
        return Err(format!(
            "it planned {l}, which is not in its sweep's plan of {} benchmarks",
            plan.len()
        ));
    }
    let costs: Option<Vec<f64>> = plan.iter().map(|l| cost(l)).collect();
    let Some(costs) = costs else {
        return Ok(());
    };
    let to = assign(plan, &costs, shard.count);
    let part = |k: u32| -> Vec<&String> {
        let mut v: Vec<&String> = plan
            .iter()
            .zip(&to)
            .filter(|(_, s)| **s + 1 == k)
            .map(|(l, _)| l)
            .collect();
        v.sort();
        v
    };
    let mut mine: Vec<&String> = planned.iter().collect();
    mine.sort();
    if mine == part(shard.index) {
        return Ok(());
    }
    let whose = (1..=shard.count)
        .find(|&k| part(k) == mine)
        .map_or("no shard's part".to_string(), |k| {
            format!("the part of shard {k}/{}", shard.count)
        });
    Err(format!(
        "it says it is shard {shard} but planned {} benchmarks that are {whose}, not the {} of \
         shard {shard} of its sweep's plan (was the record's shard number edited?)",
        planned.len(),
        part(shard.index).len()
    ))
}

/// One job of a sweep: its shard and the sweep's id (`--shard K/N --sweep ID`).
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    /// Its shard.
    pub shard: Shard,
    /// The sweep's id.
    pub sweep: String,
}

impl Job {
    /// The part of `impls` this job measures, and the sweep section of its record.
    pub fn take(
        &self,
        impls: Vec<std::sync::Arc<dyn crate::kem::Kem>>,
    ) -> (
        Vec<std::sync::Arc<dyn crate::kem::Kem>>,
        crate::record::sweep::Sweep,
    ) {
        self.take_by(impls, |k| k.meta().label(), cost_of)
    }

    /// The part of `items` this job measures (named by `label`, weighed by `cost`), and the
    /// sweep section of its record.
    pub fn take_by<T>(
        &self,
        items: Vec<T>,
        label: impl Fn(&T) -> String,
        cost: impl Fn(&T) -> f64,
    ) -> (Vec<T>, crate::record::sweep::Sweep) {
        let (mine, plan) = take(items, self.shard, label, cost);
        let sweep = crate::record::sweep::Sweep {
            id: self.sweep.clone(),
            shard: Some(self.shard.index),
            shards: self.shard.count,
            plan_digest: plan_digest(&plan),
            plan,
            runs: Vec::new(),
            missing_shards: Vec::new(),
        };
        (mine, sweep)
    }

    /// What the job says before it measures: `shard 2/4 of sweep ID: 7 of the 27 planned
    /// benchmarks`.
    pub fn announce(&self, mine: usize, sweep: &crate::record::sweep::Sweep) -> String {
        let mut s = format!(
            "shard {} of sweep {}: {mine} of the {} planned benchmarks",
            self.shard,
            self.sweep,
            sweep.plan.len()
        );
        if mine == 0 {
            s.push_str(
                " (the plan has fewer benchmarks than shards: this shard records an empty run, \
                 so that the sweep is seen whole)",
            );
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan() -> (Vec<String>, Vec<f64>) {
        // Sizes of a realistic mix: McEliece, Frodo, ML-KEM and classical ones.
        let sizes = [
            ("Classic-McEliece-348864@liboqs", 261_120, 6_492, 96),
            ("Classic-McEliece-6688128@liboqs", 1_044_992, 13_932, 208),
            ("FrodoKEM-1344-AES@liboqs", 21_520, 43_088, 21_632),
            ("FrodoKEM-640-AES@liboqs", 9_616, 19_888, 9_720),
            ("ML-KEM-512@liboqs", 800, 1_632, 768),
            ("ML-KEM-768@liboqs", 1_184, 2_400, 1_088),
            ("ML-KEM-1024@liboqs", 1_568, 3_168, 1_568),
            ("ML-KEM-768@aws-lc", 1_184, 2_400, 1_088),
            ("X25519@aws-lc", 32, 32, 32),
            ("P-256@aws-lc", 65, 32, 65),
            ("HQC-128@liboqs", 2_249, 2_305, 4_433),
        ];
        sizes
            .iter()
            .map(|(l, p, s, c)| (l.to_string(), expected_cost(*p, *s, *c)))
            .unzip()
    }

    #[test]
    fn the_shards_together_are_the_plan_with_nothing_twice() {
        let (labels, costs) = plan();
        for n in 1..=14u32 {
            let mut seen: Vec<String> = Vec::new();
            for k in 1..=n {
                let shard = Shard { index: k, count: n };
                let (mine, whole) = take(labels.clone(), shard, String::clone, |l| {
                    costs[labels.iter().position(|x| x == l).unwrap()]
                });
                assert_eq!(whole, labels);
                // Each part keeps the planned order.
                let positions: Vec<usize> = mine
                    .iter()
                    .map(|l| labels.iter().position(|x| x == l).unwrap())
                    .collect();
                assert!(positions.windows(2).all(|w| w[0] < w[1]), "{positions:?}");
                seen.extend(mine);
            }
            let mut sorted = seen.clone();
            sorted.sort();
            sorted.dedup();
            assert_eq!(sorted.len(), seen.len(), "{n} shards: a benchmark twice");
            let mut want = labels.clone();
            want.sort();
            assert_eq!(sorted, want, "{n} shards: the union is not the plan");
        }
    }

    #[test]
    fn parts_are_balanced_by_cost_within_one_benchmark() {
        let (labels, costs) = plan();
        let largest = costs.iter().copied().fold(0.0, f64::max);
        for n in 1..=5u32 {
            let to = assign(&labels, &costs, n);
            let mut load = vec![0.0; n as usize];
            for (i, s) in to.iter().enumerate() {
                load[*s as usize] += costs[i];
            }
            let (lo, hi) = (
                load.iter().copied().fold(f64::MAX, f64::min),
                load.iter().copied().fold(0.0, f64::max),
            );
            assert!(hi - lo <= largest + 1e-9, "{n} shards: loads {load:?}");
        }
        // The two McEliece sets, the costliest by far, go to different shards of two.
        let to = assign(&labels, &costs, 2);
        assert_ne!(to[0], to[1]);
        // An even split by count would be wrong: the shard with the larger McEliece set
        // holds fewer benchmarks.
        let n0 = to.iter().filter(|s| **s == to[1]).count();
        assert!(n0 < labels.len() - n0, "{to:?}");
    }

    #[test]
    fn the_assignment_does_not_depend_on_the_order_of_the_list() {
        let (labels, costs) = plan();
        let to = assign(&labels, &costs, 3);
        let mut rev_labels = labels.clone();
        let mut rev_costs = costs.clone();
        rev_labels.reverse();
        rev_costs.reverse();
        let mut rev_to = assign(&rev_labels, &rev_costs, 3);
        rev_to.reverse();
        assert_eq!(to, rev_to);
        assert_eq!(plan_digest(&labels), plan_digest(&rev_labels));
        let mut other = labels.clone();
        other.pop();
        assert_ne!(plan_digest(&labels), plan_digest(&other));
    }

    #[test]
    fn a_planned_list_must_be_its_shards_part_of_the_plan() {
        let (labels, costs) = plan();
        let cost = |l: &str| Some(costs[labels.iter().position(|x| x == l).unwrap()]);
        let part = |k: u32| {
            take(
                labels.clone(),
                Shard { index: k, count: 3 },
                String::clone,
                |l| cost(l).unwrap(),
            )
            .0
        };
        let second = Shard { index: 2, count: 3 };
        check_part(&labels, &part(2), second, cost).unwrap();
        // Shard 3's list under shard 2's number: named as shard 3's.
        let e = check_part(&labels, &part(3), second, cost).unwrap_err();
        assert!(
            e.contains("shard 2/3") && e.contains("the part of shard 3/3"),
            "{e}"
        );
        // Part of a list, or a benchmark the plan does not hold.
        let mut short = part(2);
        short.pop();
        let e = check_part(&labels, &short, second, cost).unwrap_err();
        assert!(e.contains("no shard's part"), "{e}");
        let e = check_part(&labels, &["X@y".to_string()], second, |_| None).unwrap_err();
        assert!(e.contains("X@y, which is not in its sweep's plan"), "{e}");
        // Costs unknown: only membership is checked.
        check_part(&labels, &part(3), second, |_| None).unwrap();
        assert_eq!(label_cost("tls", "anything"), Some(1.0));
        assert_eq!(
            label_cost("run", "MockKEM@mock/correct"),
            Some(expected_cost(32, 32, 32))
        );
        assert_eq!(label_cost("run", "NoSuchKEM@x"), None);
    }

    #[test]
    fn shard_and_sweep_ids_are_checked() {
        assert_eq!("2/4".parse::<Shard>(), Ok(Shard { index: 2, count: 4 }));
        assert_eq!("1/1".parse::<Shard>().unwrap().to_string(), "1/1");
        for bad in ["0/4", "5/4", "4", "a/4", "1/0", "-1/4", "1/10001", ""] {
            let e = bad.parse::<Shard>().unwrap_err();
            assert!(e.contains("--shard"), "{bad}: {e}");
        }
        assert!("0/4".parse::<Shard>().unwrap_err().contains("count from 1"));
        for good in ["1234567890", "nightly-2026-11-27", "slurm:81234", "a.b_c"] {
            check_sweep_id(good).unwrap();
        }
        for bad in ["", "-x", "a b", "a/b", "ü", &"x".repeat(65)] {
            assert!(check_sweep_id(bad).is_err(), "{bad}");
        }
    }
}
