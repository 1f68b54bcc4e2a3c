//! One implementation through the screens asked for: the two valgrind screens side by side
//! (each is one process on one core), then the timing screen alone (a quiet machine), then the
//! exception lists over every finding, into one [`CtResult`].

use super::exceptions::Exceptions;
use super::{latency, secret_flow, timing, Context};
use crate::kem::Kem;
use crate::kem::Op;
use crate::record::ct::{CtResult, Ran, Screen, ScreenResult};

/// What `ct` screens, the same for every implementation.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The screens, in the order asked.
    pub screens: Vec<Screen>,
    /// The operations.
    pub ops: Vec<Op>,
}

/// Screens `k` as `plan` says and explains its findings from `exceptions`. `stop` (Ctrl-C,
/// SIGTERM) is asked between the screens: a result cut short is marked interrupted.
pub fn screen_one(
    ctx: &Context,
    plan: &Plan,
    k: &dyn Kem,
    exceptions: &Exceptions,
    stop: &dyn Fn() -> bool,
) -> CtResult {
    let m = k.meta();
    let wants = |s: Screen| plan.screens.contains(&s);
    let (flow, lat) = std::thread::scope(|s| {
        let flow = wants(Screen::SecretFlow).then(|| s.spawn(|| secret_flow::screen(ctx, k, &plan.ops)));
        let lat = wants(Screen::Latency).then(|| s.spawn(|| latency::screen(ctx, k, &plan.ops)));
        (joined(flow, Screen::SecretFlow, &plan.ops), joined(lat, Screen::Latency, &plan.ops))
    });
    let mut screens: Vec<ScreenResult> = flow.into_iter().chain(lat).collect();
    let mut interrupted = stop();
    if wants(Screen::Timing) && !interrupted {
        screens.extend(timing::screen(ctx, k, &plan.ops));
        interrupted = stop();
    }
    for s in &mut screens {
        exceptions.explain(m.algorithm.name, &m.implementation, s);
    }
    // Operations first, then the screens in their order.
    screens.sort_by_key(|s| {
        (
            plan.ops.iter().position(|o| *o == s.operation),
            Screen::ALL.iter().position(|x| *x == s.screen),
        )
    });
    CtResult {
        algorithm: m.algorithm.name.to_string(),
        family: m.algorithm.family.to_string(),
        implementation: m.implementation.clone(),
        version: m.version.clone(),
        build: k.build().map(|b| format!("{} {} ({})", b.compiler, b.flags, b.source)),
        screens,
        error: None,
        interrupted,
    }
}

/// The results of a screen's thread; a panic becomes a failed screen of every operation.
fn joined(
    h: Option<std::thread::ScopedJoinHandle<'_, Vec<ScreenResult>>>,
    screen: Screen,
    ops: &[Op],
) -> Vec<ScreenResult> {
    match h.map(|h| h.join()) {
        None => Vec::new(),
        Some(Ok(v)) => v,
        Some(Err(_)) => ops
            .iter()
            .map(|&op| ScreenResult {
                ran: Ran::Failed("the screen panicked".into()),
                ..ScreenResult::not_screened(screen, op, "")
            })
            .collect(),
    }
}
