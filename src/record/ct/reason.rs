//! Why a verdict is incomplete, per implementation: the screens that did not run, grouped by
//! their reason, so that one cause (aws-lc's DRBG, a missing valgrind) reads as one sentence
//! naming every screen and operation it kept from running, not as one row per pair.

use super::{CtResult, Ran, Screen};
use crate::kem::Op;

/// One cause that kept screens from running on an implementation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gap {
    /// `not screened` or `failed`.
    pub state: &'static str,
    /// The screens it kept from running, in report order.
    pub screens: Vec<Screen>,
    /// The operations, in the order recorded (every screen of `screens` on each of them).
    pub ops: Vec<Op>,
    /// The reason, as the screen gave it.
    pub why: String,
}

impl Gap {
    /// The gap in one sentence: `timing of keygen and encaps: why`.
    pub fn sentence(&self) -> String {
        format!(
            "{} of {}: {}",
            words(self.screens.iter().map(|s| s.as_str())),
            words(self.ops.iter().map(|o| o.as_str())),
            self.why
        )
    }
}

/// `a`, `a and b`, `a, b and c`.
fn words<'a>(items: impl Iterator<Item = &'a str>) -> String {
    let v: Vec<&str> = items.collect();
    match v.split_last() {
        None => String::new(),
        Some((last, [])) => (*last).to_string(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

impl CtResult {
    /// The causes that kept screens from running, each once: the pairs with the same state and
    /// reason grouped by screen, then the screens whose operations are the same merged.
    pub fn gaps(&self) -> Vec<Gap> {
        let mut by_screen: Vec<Gap> = Vec::new();
        for s in &self.screens {
            let (state, why) = match &s.ran {
                Ran::Screened => continue,
                Ran::NotScreened(w) => ("not screened", w),
                Ran::Failed(w) => ("failed", w),
            };
            match by_screen
                .iter_mut()
                .find(|g| g.state == state && &g.why == why && g.screens == [s.screen])
            {
                Some(g) if !g.ops.contains(&s.operation) => g.ops.push(s.operation),
                Some(_) => {}
                None => by_screen.push(Gap {
                    state,
                    screens: vec![s.screen],
                    ops: vec![s.operation],
                    why: why.clone(),
                }),
            }
        }
        let mut gaps: Vec<Gap> = Vec::new();
        for g in by_screen {
            match gaps
                .iter_mut()
                .find(|x| x.state == g.state && x.why == g.why && x.ops == g.ops)
            {
                Some(x) => x.screens.extend(g.screens),
                None => gaps.push(g),
            }
        }
        for g in &mut gaps {
            g.screens
                .sort_by_key(|s| Screen::ALL.iter().position(|x| x == s));
        }
        gaps
    }

    /// Why this implementation has no complete verdict, in one sentence per cause (an error,
    /// an interruption, each group of [`gaps`](Self::gaps)); `None` when every screen ran.
    pub fn why_incomplete(&self) -> Option<String> {
        let mut causes: Vec<String> = Vec::new();
        if let Some(e) = &self.error {
            causes.push(format!("the screening stopped: {e}"));
        }
        if self.interrupted {
            causes.push("interrupted before every screen ran".into());
        }
        if self.screens.is_empty() && causes.is_empty() {
            causes.push("nothing was screened".into());
        }
        causes.extend(self.gaps().iter().map(Gap::sentence));
        (!causes.is_empty()).then(|| causes.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::ct::ScreenResult;

    fn result(screens: Vec<ScreenResult>) -> CtResult {
        CtResult {
            algorithm: "ML-KEM-768".into(),
            family: "ML-KEM".into(),
            implementation: "aws-lc".into(),
            version: "1".into(),
            build: None,
            screens,
            error: None,
            interrupted: false,
        }
    }

    fn screened(screen: Screen, op: Op) -> ScreenResult {
        ScreenResult {
            ran: Ran::Screened,
            ..ScreenResult::not_screened(screen, op, "")
        }
    }

    #[test]
    fn one_cause_reads_as_one_sentence_naming_every_pair() {
        let drbg = "aws-lc draws from its own DRBG";
        let r = result(vec![
            ScreenResult::not_screened(Screen::Timing, Op::Keygen, drbg),
            screened(Screen::SecretFlow, Op::Keygen),
            ScreenResult::not_screened(Screen::Timing, Op::Encaps, drbg),
            screened(Screen::Timing, Op::Decaps),
        ]);
        assert_eq!(r.gaps().len(), 1);
        assert_eq!(
            r.why_incomplete().as_deref(),
            Some("timing of keygen and encaps: aws-lc draws from its own DRBG")
        );
    }

    #[test]
    fn screens_with_the_same_cause_and_operations_merge_and_others_stay_apart() {
        let no = "no valgrind";
        let mut screens = Vec::new();
        for op in [Op::Keygen, Op::Encaps, Op::Decaps] {
            screens.push(ScreenResult::not_screened(Screen::SecretFlow, op, no));
            screens.push(ScreenResult::not_screened(Screen::Latency, op, no));
        }
        screens.push(ScreenResult {
            ran: Ran::Failed("the worker crashed".into()),
            ..ScreenResult::not_screened(Screen::Timing, Op::Decaps, "")
        });
        let r = result(screens);
        let gaps = r.gaps();
        assert_eq!(gaps.len(), 2, "{gaps:?}");
        assert_eq!(
            gaps[0].sentence(),
            "secret-flow and latency of keygen, encaps and decaps: no valgrind"
        );
        assert_eq!(gaps[1].state, "failed");
        assert_eq!(
            gaps[1].sentence(),
            "timing of decaps: the worker crashed"
        );
    }

    #[test]
    fn a_complete_result_has_no_reason_and_an_empty_one_says_so() {
        let r = result(vec![screened(Screen::Timing, Op::Decaps)]);
        assert_eq!(r.why_incomplete(), None);
        assert_eq!(
            result(Vec::new()).why_incomplete().as_deref(),
            Some("nothing was screened")
        );
    }
}
