//! A profile as CSV: one row per (algorithm, implementation, operation).

use super::{ProfileRecord, ProfileResult};
use crate::callgrind::Primitive;
use crate::measure::counters::Counters;
use crate::units::or_empty as opt;

/// The header of profile CSV files.
pub const HEADER: &[&str] = &[
    "algorithm",
    "implementation",
    "version",
    "operation",
    "seeds",
    "instructions_min",
    "instructions_median",
    "instructions_max",
    "randomness_fixed",
    "keccak_instructions",
    "sha2_instructions",
    "aes_instructions",
    "rng_instructions",
    "bignum_instructions",
    "other_instructions",
    "sim_d1_misses",
    "sim_ll_misses",
    "sim_estimated_cycles",
    "native_instructions",
    "native_cycles",
    "hottest_self_function",
    "hottest_self_instructions",
];

/// The CSV rows of one result.
pub fn rows(_all: &ProfileRecord, r: &ProfileResult) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    for o in &r.operations {
        let a = &o.analysis;
        let share = |p: Primitive| {
            a.shares
                .iter()
                .find(|s| s.primitive == p)
                .map_or(0, |s| s.instructions)
                .to_string()
        };
        let native = match &o.native {
            Counters::Measured(v) => Some(v),
            Counters::Unavailable(_) => None,
        };
        let hottest = a.functions.iter().max_by_key(|f| f.self_instructions);
        let mut row = vec![
            r.algorithm.clone(),
            r.implementation.clone(),
            r.version.clone(),
            o.operation.as_str().to_string(),
            o.instructions.per_seed.len().to_string(),
            o.instructions.min.to_string(),
            o.instructions.median.to_string(),
            o.instructions.max.to_string(),
            r.randomness.fixed.to_string(),
        ];
        row.extend(Primitive::ALL.map(share));
        row.extend([
            opt(a.cache.as_ref().map(|c| c.d1_misses)),
            opt(a.cache.as_ref().map(|c| c.ll_misses)),
            opt(a.cache.as_ref().map(|c| c.estimated_cycles)),
            opt(native.map(|v| v.instructions)),
            opt(native.map(|v| v.cycles)),
            opt(hottest.map(|f| f.name.clone())),
            opt(hottest.map(|f| f.self_instructions)),
        ]);
        rows.push(row);
    }
    rows
}
