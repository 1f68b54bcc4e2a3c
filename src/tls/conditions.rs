//! The network conditions `tls --network` measures: the reference study's round-trip times
//! and a loss sweep, or profiles spelt `rtt<MS>-loss<PCT>[-rate<MBIT>]`.

use crate::record::tls::NetProfile;

/// The rate every condition is limited to unless its profile says otherwise (pq-tls-benchmark's).
pub const DEFAULT_RATE_MBIT: f64 = NetProfile::DEFAULT_RATE_MBIT;

/// Round-trip times of the reference study (Paquin, Stebila, Tamvada 2020), ms.
pub const STUDY_RTTS_MS: [f64; 4] = [5.6, 31.2, 78.7, 195.7];

/// Loss rates swept at 31.2 ms, percent.
pub const LOSS_SWEEP_PCT: [f64; 5] = [1.0, 2.0, 3.0, 5.0, 10.0];

/// The default sweep: each study RTT at 0% loss, then 31.2 ms at each loss rate.
pub fn default_profiles() -> Vec<NetProfile> {
    let mut v: Vec<NetProfile> = STUDY_RTTS_MS
        .iter()
        .map(|&r| NetProfile::new(r, 0.0, DEFAULT_RATE_MBIT))
        .collect();
    v.extend(
        LOSS_SWEEP_PCT
            .iter()
            .map(|&l| NetProfile::new(STUDY_RTTS_MS[1], l, DEFAULT_RATE_MBIT)),
    );
    v
}

/// The profiles `specs` name (`default` expands to [`default_profiles`]).
pub fn parse_profiles(specs: &[String]) -> Result<Vec<NetProfile>, String> {
    let mut out = Vec::new();
    for spec in specs {
        let spec = spec.trim();
        if spec == "default" {
            out.extend(default_profiles());
            continue;
        }
        let (mut rtt, mut loss, mut rate) = (None, 0.0, DEFAULT_RATE_MBIT);
        for part in spec.split('-') {
            let num = |prefix: &str| -> Option<f64> {
                part.strip_prefix(prefix)?
                    .parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite() && *v >= 0.0)
            };
            if let Some(v) = num("rtt") {
                rtt = Some(v);
            } else if let Some(v) = num("loss") {
                loss = v;
            } else if let Some(v) = num("rate") {
                rate = v;
            } else {
                return Err(format!(
                    "{spec:?}: cannot read {part:?}; write `default` or rtt<MS>-loss<PCT>[-rate<MBIT>], e.g. rtt31.2-loss3"
                ));
            }
        }
        let rtt = rtt.ok_or_else(|| format!("{spec:?} has no rtt<MS> part"))?;
        if rtt > 2000.0 || loss > 50.0 || rate <= 0.0 {
            return Err(format!(
                "{spec:?}: RTT up to 2000 ms, loss up to 50%, a positive rate"
            ));
        }
        out.push(NetProfile::new(rtt, loss, rate));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_sweep_has_the_study_rtts_and_the_loss_points() {
        let d = default_profiles();
        assert_eq!(d.len(), 9);
        assert_eq!(d[1].name, "rtt31.2-loss0");
        assert_eq!(d[6].name, "rtt31.2-loss3");
    }

    #[test]
    fn profiles_parse_and_bad_ones_say_how_to_write_them() {
        let p = parse_profiles(&["rtt31.2-loss3".into(), "rtt5-loss0-rate100".into()]).unwrap();
        assert_eq!(
            (p[0].rtt_ms, p[0].loss_pct, p[0].rate_mbit),
            (31.2, 3.0, 1000.0)
        );
        assert_eq!(p[1].name, "rtt5-loss0-rate100");
        assert!(parse_profiles(&["loss3".into()])
            .unwrap_err()
            .contains("no rtt"));
        assert!(parse_profiles(&["rtt10-jitter3".into()])
            .unwrap_err()
            .contains("e.g."));
        assert!(parse_profiles(&["rtt10-loss80".into()]).is_err());
    }
}
