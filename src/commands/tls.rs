//! `kembench tls`: make the certificates, measure each (group, stack, certificate), record,
//! write the result files, print the tables.

use crate::cli::{pick, positive_seconds, OutputArgs, SessionArgs, ShardArgs, MAX_THREADS_PER_CPU};
use crate::ending::{Ending, OnInterrupt};
use crate::env::Environment;
use crate::export::Outputs;
use crate::measure::timer::Timers;
use crate::output::Width;
use crate::providers::Registry;
use crate::record::tls::TlsConfig;
use crate::record::tls::TlsRecord;
use crate::record::{AnyRecord, Benchmark, Nothing, RecordKind};
use crate::store::records;
use crate::store::{self, Recorder, Store};
use crate::tls::certs::Chain;
use crate::tls::measure::{self, Plan};
use anyhow::Context;
use std::process::ExitCode;

/// Options of `tls`.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Key-exchange groups, by TLS name or kembench's algorithm name (default: X25519,
    /// secp256r1, secp384r1, X25519MLKEM768, SecP256r1MLKEM768, MLKEM768, MLKEM1024; also
    /// secp521r1, ffdhe2048).
    #[arg(long, value_delimiter = ',')]
    pub groups: Vec<String>,
    /// TLS stacks: rustls, openssl (3.6, vendored), boringssl, openssl4 (4.0.3) (default:
    /// rustls and openssl). BoringSSL and OpenSSL 4 run in worker executables of their own,
    /// built from workers/tls-boring and workers/tls-openssl4 on first use (minutes) or named
    /// by $KEMBENCH_TLS_BORING and $KEMBENCH_TLS_OPENSSL4.
    #[arg(long = "stack", value_delimiter = ',')]
    pub stacks: Vec<String>,
    /// Shapes of the client's hello: minimal (one key share, for the group), defaults (the
    /// stack's default groups and shares), browser (Chrome's shape: GREASE, X25519MLKEM768 and
    /// X25519 shares, ALPN, permuted extensions; BoringSSL only) (default: minimal).
    #[arg(long = "hello", value_delimiter = ',')]
    pub hellos: Vec<String>,
    /// Server certificate chains: ecdsa-p256, ed25519, rsa2048, mldsa44, mldsa65, mldsa87 (root,
    /// intermediate and leaf of one algorithm), mldsa65-under-p256 (ML-DSA-65 leaf, ECDSA P-256
    /// CAs), p256-under-mldsa65 (ECDSA P-256 leaf, ML-DSA-65 CAs) (default: ecdsa-p256).
    #[arg(long = "cert", value_delimiter = ',')]
    pub certs: Vec<String>,
    /// Kinds of handshake: full, resumed, hrr (default: all three).
    #[arg(long, value_delimiter = ',')]
    pub modes: Vec<String>,
    /// Seconds of in-memory handshakes per benchmark, shared by the kinds in interleaved rounds.
    #[arg(long, default_value_t = 2.0, value_name = "SECS")]
    pub duration: f64,
    /// Thread counts for scaling (default 1 and the logical CPUs); must include 1. `0` alone
    /// skips scaling.
    #[arg(long, value_delimiter = ',', value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(0..=4096))]
    pub threads: Vec<usize>,
    /// Seconds per thread count (three repeats in rotation share it).
    #[arg(long, default_value_t = 1.5, value_name = "SECS")]
    pub scaling_duration: f64,
    /// Target handshakes per second for the cores-needed figures.
    #[arg(long, default_value_t = 70_000.0)]
    pub target_rate: f64,
    /// Network conditions to measure over loopback TCP between private network namespaces:
    /// `default` (RTT 5.6, 31.2, 78.7, 195.7 ms at 0% loss, and 31.2 ms at 1, 2, 3, 5, 10%
    /// loss), or profiles `rtt<MS>-loss<PCT>[-rate<MBIT>]` (`rtt31.2-loss3`). Needs root
    /// (network namespaces); skipped with the reason otherwise.
    #[arg(long, value_delimiter = ',', value_name = "PROFILES")]
    pub network: Vec<String>,
    /// Handshakes per network condition with loss (a tenth as many, at least 100, at 0%).
    #[arg(long, default_value_t = 1000, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(10..=100_000))]
    pub network_handshakes: usize,
    /// Most handshakes in flight at once per benchmark under a network condition, fewer at
    /// short round trips (at most 260 started per second); 1: one after another, as
    /// pq-tls-benchmark.
    #[arg(long, default_value_t = 16, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=64))]
    pub network_concurrency: usize,
    /// Benchmarks measured under network conditions at once, each in namespaces of its own
    /// (1: one after another).
    #[arg(long, default_value_t = 4, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=16))]
    pub network_parallel: usize,
    /// Whether the run is stored, and the interrupted run it completes.
    #[command(flatten)]
    pub session: SessionArgs,
    /// Every figure in its row, instead of tables that fit 120 columns.
    #[arg(long)]
    pub wide: bool,
    /// Result files.
    #[command(flatten)]
    pub output: OutputArgs,
    /// One job of a sweep.
    #[command(flatten)]
    pub shard: ShardArgs,
}

impl Args {
    /// Runs the command on the store `spec`.
    pub fn run(self, spec: &str) -> anyhow::Result<ExitCode> {
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        command(&self.to_options(cpus)?, cpus, spec)
    }

    /// The validated options of `tls`; `cpus` sets the default thread counts.
    fn to_options(&self, cpus: usize) -> anyhow::Result<Options> {
        use crate::record::tls::Mode;
        use crate::tls::groups::{CertKind, Group, HelloShape, StackKind, GROUPS};
        positive_seconds("--duration", self.duration)?;
        positive_seconds("--scaling-duration", self.scaling_duration)?;
        if !(self.target_rate > 0.0 && self.target_rate.is_finite()) {
            crate::bail_usage!("--target-rate must be positive, got {}", self.target_rate);
        }
        let groups = pick(
            "--groups",
            &self.groups,
            GROUPS.iter().filter(|g| g.default).collect(),
            GROUPS.iter().map(|g| g.tls_name.to_string()).collect(),
            Group::find,
        )?;
        let stacks = pick(
            "--stack",
            &self.stacks,
            StackKind::ALL
                .into_iter()
                .filter(|k| k.in_process())
                .collect(),
            StackKind::ALL
                .iter()
                .map(|k| k.as_str().to_string())
                .collect(),
            StackKind::parse,
        )?;
        let certs = pick(
            "--cert",
            &self.certs,
            vec![CertKind::EcdsaP256],
            CertKind::ALL
                .iter()
                .map(|c| c.as_str().to_string())
                .collect(),
            CertKind::parse,
        )?;
        let hellos = pick(
            "--hello",
            &self.hellos,
            vec![HelloShape::Minimal],
            HelloShape::ALL
                .iter()
                .map(|h| h.as_str().to_string())
                .collect(),
            HelloShape::parse,
        )?;
        let modes = pick(
            "--modes",
            &self.modes,
            Mode::ALL.to_vec(),
            Mode::ALL.iter().map(|m| m.as_str().to_string()).collect(),
            Mode::parse,
        )?;
        let threads = if self.threads.is_empty() {
            let mut t = vec![1];
            if cpus > 1 {
                t.push(cpus);
            }
            t
        } else if self.threads == [0] {
            Vec::new()
        } else {
            self.threads.clone()
        };
        if !threads.is_empty() && !threads.contains(&1) {
            crate::bail_usage!("--threads must include 1: scaling is measured against one thread");
        }
        let most = MAX_THREADS_PER_CPU * cpus.max(1);
        if let Some(&n) = threads.iter().find(|&&n| n > most || n == 0) {
            crate::bail_usage!("--threads {n}: give 1 to {most} (or 0 alone to skip scaling)");
        }
        let network = crate::tls::conditions::parse_profiles(&self.network)
            .map_err(|e| crate::usage::Usage(format!("--network: {e}")))?;
        self.session.check("a run")?;
        let shard = self.shard.job(self.session.resume.is_some())?;
        self.output.check_dirs()?;
        Ok(Options {
            groups,
            stacks,
            certs,
            hellos,
            modes,
            duration_s: self.duration,
            threads,
            scaling_duration_s: self.scaling_duration,
            target_rate: self.target_rate,
            network,
            network_handshakes: self.network_handshakes,
            network_concurrency: self.network_concurrency,
            network_parallel: self.network_parallel,
            store: !self.session.no_store,
            outputs: self.output.files(),
            layout: Width::wide_if(self.wide),
            shard,
            resume: self.session.resume.clone(),
        })
    }
}

/// `kembench tls`, validated.
#[derive(Debug, Clone)]
pub struct Options {
    /// Groups.
    pub groups: Vec<&'static crate::tls::groups::Group>,
    /// Stacks.
    pub stacks: Vec<crate::tls::groups::StackKind>,
    /// Certificate keys.
    pub certs: Vec<crate::tls::groups::CertKind>,
    /// Hello shapes.
    pub hellos: Vec<crate::tls::groups::HelloShape>,
    /// Kinds of handshake.
    pub modes: Vec<crate::record::tls::Mode>,
    /// Seconds of in-memory handshakes per benchmark.
    pub duration_s: f64,
    /// Thread counts for scaling (empty: none).
    pub threads: Vec<usize>,
    /// Seconds per thread count.
    pub scaling_duration_s: f64,
    /// Target handshakes per second.
    pub target_rate: f64,
    /// Network conditions (empty: none).
    pub network: Vec<crate::record::tls::NetProfile>,
    /// Handshakes per lossy network condition.
    pub network_handshakes: usize,
    /// Handshakes in flight at once under a network condition.
    pub network_concurrency: usize,
    /// Benchmarks under network conditions at once.
    pub network_parallel: usize,
    /// Record the run in the results store.
    pub store: bool,
    /// Result files.
    pub outputs: Outputs,
    /// How much the console tables show.
    pub layout: Width,
    /// The sweep this run is one job of, if any.
    pub shard: Option<crate::shard::Job>,
    /// The tls run to resume, if any.
    pub resume: Option<String>,
}

/// The certificate chains of `certs`, made now.
fn chains(certs: &[crate::tls::groups::CertKind]) -> anyhow::Result<Vec<Chain>> {
    certs
        .iter()
        .map(|&c| Chain::generate(c).with_context(|| format!("making a {} chain", c.as_str())))
        .collect()
}

/// Every benchmark of `groups` with each hello of `hellos` on `stacks` with `chains`, in the
/// order measured.
fn plans<'a>(
    chains: &'a [Chain],
    groups: &[&'static crate::tls::groups::Group],
    hellos: &[crate::tls::groups::HelloShape],
    stacks: &[crate::tls::groups::StackKind],
) -> Vec<Plan<'a>> {
    let mut plans = Vec::new();
    for chain in chains {
        for &group in groups {
            for &hello in hellos {
                for &stack in stacks {
                    plans.push(Plan {
                        stack,
                        group,
                        chain,
                        hello,
                    });
                }
            }
        }
    }
    plans
}

/// Runs `tls`, or with `--resume` completes an interrupted one.
fn command(o: &Options, cpus: usize, store_spec: &str) -> anyhow::Result<ExitCode> {
    store::refuse_over_store(o.outputs.iter().map(|(_, p)| p.as_path()), store_spec)?;
    if let Some(sel) = &o.resume {
        return resume(sel, o, cpus, store_spec);
    }
    let chains = chains(&o.certs)?;
    let mut plans = plans(&chains, &o.groups, &o.hellos, &o.stacks);
    // Every (chain, group, stack) costs alike: the same handshakes, modes and conditions.
    let sweep = match &o.shard {
        None => None,
        Some(j) => {
            let (mine, sweep) = j.take_by(plans, Plan::label, |_| 1.0);
            eprintln!("tls: {}", j.announce(mine.len(), &sweep));
            plans = mine;
            Some(sweep)
        }
    };
    let registry = Registry::new(false);
    let kems: Vec<_> = plans
        .iter()
        .filter_map(|p| registry.get(&p.stack.kem_label(p.group)?))
        .collect();
    let run_id = store::new_run_id();
    let mut recorder = Recorder::open(store_spec, o.store, &run_id)?;
    let mut record = TlsRecord::new(
        Some(run_id.clone()),
        store::recorded_command_line(),
        TlsConfig {
            stacks: o.stacks.iter().map(|s| s.as_str().to_string()).collect(),
            groups: o.groups.iter().map(|g| g.tls_name.to_string()).collect(),
            certs: o.certs.iter().map(|c| c.as_str().to_string()).collect(),
            hellos: o.hellos.iter().map(|h| h.as_str().to_string()).collect(),
            modes: o.modes.clone(),
            duration_s: o.duration_s,
            threads: o.threads.clone(),
            scaling_duration_s: o.scaling_duration_s,
            target_rate: o.target_rate,
            network: o.network.clone(),
            network_handshakes: o.network_handshakes,
            network_concurrency: o.network_concurrency,
            network_parallel: o.network_parallel,
            planned: plans.iter().map(Plan::label).collect(),
        },
        Environment::for_implementations(&kems),
        Nothing {},
    );
    record.sweep = sweep;
    recorder.begin(records::run_row(&record));
    recorder.announce(&run_id);
    execute(record, &plans, &registry, o, cpus, recorder)
}

/// `tls --resume RUN`: measures, with the run's own configuration, the planned benchmarks it
/// has no final result for, into the same run. A planned benchmark this build cannot make
/// (a group, stack or certificate it does not know) is refused by name, and the run stays
/// resumable.
fn resume(selector: &str, o: &Options, cpus: usize, store_spec: &str) -> anyhow::Result<ExitCode> {
    use crate::tls::groups::{CertKind, Group, HelloShape, StackKind};
    let mut st = Store::open_existing(store_spec)?;
    let (id, mut record) =
        crate::resume::load(&mut st, selector, RecordKind::Tls, "tls", |r| match r {
            AnyRecord::Tls(r) => Some(r),
            _ => None,
        })?;
    let c = &record.config;
    let known = |what: &str, names: &[String], found: &dyn Fn(&str) -> bool| match names
        .iter()
        .find(|n| !found(n))
    {
        Some(n) => crate::bail_usage!(
            "run {id} cannot be resumed here: its {what} {n} is unknown to this build. \
                 The run stays resumable."
        ),
        None => anyhow::Ok(()),
    };
    known("group", &c.groups, &|n| Group::find(n).is_some())?;
    known("stack", &c.stacks, &|n| StackKind::parse(n).is_some())?;
    known("certificate", &c.certs, &|n| CertKind::parse(n).is_some())?;
    known("hello shape", &c.hellos, &|n| {
        HelloShape::parse(n).is_some()
    })?;
    let hellos: Vec<_> = c
        .hellos
        .iter()
        .filter_map(|n| HelloShape::parse(n))
        .collect();
    let groups: Vec<_> = c.groups.iter().filter_map(|n| Group::find(n)).collect();
    let stacks: Vec<_> = c
        .stacks
        .iter()
        .filter_map(|n| StackKind::parse(n))
        .collect();
    let certs: Vec<_> = c.certs.iter().filter_map(|n| CertKind::parse(n)).collect();
    let chains = chains(&certs)?;
    let all = plans(&chains, &groups, &hellos, &stacks);
    let (todo, missing) = record.unfinished(|label| all.iter().position(|p| p.label() == label));
    if !missing.is_empty() {
        crate::bail_usage!(
            "run {id} cannot be resumed here: {} planned benchmark(s) are not among those its \
             configuration makes in this build: {}. The run stays resumable.",
            missing.len(),
            missing.join(", ")
        );
    }
    println!(
        "Resuming tls run {id}: {} of {} benchmarks to measure",
        todo.len(),
        record.config.planned.len()
    );
    let mut todo = todo;
    todo.sort_unstable();
    let plans: Vec<Plan> = all
        .into_iter()
        .enumerate()
        .filter(|(i, _)| todo.binary_search(i).is_ok())
        .map(|(_, p)| p)
        .collect();
    // The unfinished results are measured again from the start.
    record.results.retain(|r| r.is_final());
    record.state.interrupted = false;
    record.state.resumed_at.push(crate::record::now_rfc3339());
    let registry = Registry::new(false);
    execute(*record, &plans, &registry, o, cpus, Recorder::with(st, &id))
}

/// Measures `plans` into `record`, storing and writing each result as it finishes, then
/// prints the tables. Ctrl-C or SIGTERM stops after the step in progress: what was measured
/// is kept and the run is interrupted, resumable.
fn execute(
    record: TlsRecord,
    plans: &[Plan],
    registry: &Registry,
    o: &Options,
    cpus: usize,
    recorder: Recorder,
) -> anyhow::Result<ExitCode> {
    let timers = Timers::calibrate();
    // A group a stack does not offer is reported, not a failure of the run.
    let mut end = Ending::start(record, recorder, &o.outputs, "the benchmark in progress")?
        .failed_when(|r| r.error.is_some())
        .on_interrupt(OnInterrupt::Resume("tls"));
    let config = end.record().config.clone();
    // Every benchmark is checked first; then their handshakes are timed in rounds that take
    // turns, so the machine's changing speed affects every group and stack alike.
    // Stacks in workers of their own (BoringSSL) measure their plans there, with the same code.
    let (plans, outside): (Vec<_>, Vec<_>) = plans.iter().partition(|p| p.stack.in_process());
    let mut benches: Vec<_> = plans
        .iter()
        .map(|p| {
            let kem = p.stack.kem_label(p.group).and_then(|l| registry.get(&l));
            measure::start(p, &config, kem)
        })
        .collect();
    for round in 1..=measure::ROUNDS {
        if crate::interrupt::requested() {
            break;
        }
        eprintln!(
            "tls: round {round} of {} over {} benchmarks ...",
            measure::ROUNDS,
            benches.iter().filter(|b| b.live()).count()
        );
        for b in benches.iter_mut() {
            if crate::interrupt::requested() {
                break;
            }
            measure::round(b, &config, &timers);
        }
    }
    // In-memory figures first: each result is stored as it is made (the store keeps it even if
    // the network part never ends); files get each result once, whole.
    let mut pending = Vec::new();
    for (i, (plan, b)) in plans.iter().zip(benches).enumerate() {
        eprintln!("tls: {} ({} of {}) ...", plan.label(), i + 1, plans.len());
        let r = measure::finish(b, &config, cpus, &crate::interrupt::requested);
        let networked = !config.network.is_empty()
            && r.error.is_none()
            && r.unavailable.is_none()
            && !r.interrupted;
        if networked {
            end.store(&r);
            pending.push((plan, r));
        } else {
            end.put(r);
        }
    }
    // Each worker's plans in one job, the workers one after another (BoringSSL's, OpenSSL 4's).
    for w in &crate::tls::worker::WORKERS {
        let mine: Vec<&Plan> = outside
            .iter()
            .copied()
            .filter(|p| p.stack == w.kind)
            .collect();
        for r in outside_results(w, &mine, &config, cpus) {
            end.put(r);
        }
    }
    // Network conditions: several benchmarks at once, each in testbeds of its own, so one
    // condition's slowest handshakes (the retransmission tails) overlap another's.
    let (tx, rx) = std::sync::mpsc::channel();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let config = &config;
    std::thread::scope(|s| {
        let pending = &pending;
        for _ in 0..config.network_parallel.min(pending.len()) {
            let tx = tx.clone();
            let next = &next;
            s.spawn(move || loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some((plan, r)) = pending.get(i) else {
                    return;
                };
                let mut r = r.clone();
                eprintln!("tls: {} under network conditions ...", plan.label());
                crate::tls::network::measure(plan, config, &mut r, &crate::interrupt::requested);
                if tx.send(r).is_err() {
                    return;
                }
            });
        }
        drop(tx);
        for r in rx {
            end.put(r);
        }
    });
    end.finish(crate::interrupt::requested(), o.layout, |_, _| Ok(()))
}

/// The results of the plans whose stack runs in the worker `w` (BoringSSL's, OpenSSL 4's):
/// measured there by kembench's own code, or each plan unavailable with the reason when the
/// worker cannot be built or run.
fn outside_results(
    w: &crate::tls::worker::Worker,
    plans: &[&Plan],
    config: &crate::record::tls::TlsConfig,
    cpus: usize,
) -> Vec<crate::record::tls::TlsResult> {
    use crate::tls::worker;
    if plans.is_empty() || crate::interrupt::requested() {
        return Vec::new();
    }
    let mut chains: Vec<worker::JobChain> = Vec::new();
    for p in plans {
        if !chains.iter().any(|c| c.cert == p.chain.kind.as_str()) {
            chains.push(worker::JobChain::of(p.chain));
        }
    }
    let job = worker::Job {
        config: config.clone(),
        plans: plans
            .iter()
            .map(|p| worker::JobPlan {
                group: p.group.tls_name.to_string(),
                cert: p.chain.kind.as_str().to_string(),
                hello: p.hello.as_str().to_string(),
            })
            .collect(),
        chains,
        cpus,
    };
    let target = crate::providers::built::manifest::dir().join(w.dir);
    let got = worker::stack_worker(w, &target, &crate::interrupt::requested)
        .and_then(|exe| worker::run(&exe, &job));
    match got {
        Ok(rs) if rs.len() == plans.len() => rs,
        Ok(rs) => unavailable(
            plans,
            config,
            &format!(
                "{}'s worker gave {} results for {} benchmarks",
                w.name,
                rs.len(),
                plans.len()
            ),
        ),
        Err(why) => unavailable(plans, config, &why),
    }
}

/// Each of `plans` unavailable because of `why`.
fn unavailable(
    plans: &[&Plan],
    config: &crate::record::tls::TlsConfig,
    why: &str,
) -> Vec<crate::record::tls::TlsResult> {
    plans
        .iter()
        .map(|p| {
            let mut r = measure::start_with(p, config, None, Err(why.to_string())).result;
            r.version = "absent".into();
            r
        })
        .collect()
}
