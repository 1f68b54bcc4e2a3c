//! The PostgreSQL store against a real server (`scripts/setup-postgres` installs and starts
//! one; `KEMBENCH_TEST_PG` names another). Each test writes into a schema of its own, chosen
//! through the URL's `options=-c search_path=...`, and drops it afterwards.

mod common;

use assert_cmd::Command;
use common::{
    export_json, kembench_at, result_labels, runs, write_tls_fixture, FAST, MOCK_THROUGHPUT,
    TLS_FIXTURE,
};
use postgres::{Client, NoTls};
use predicates::prelude::*;

const DEFAULT_URL: &str = "postgres://kembench:kembench@localhost:5432/kembench_test";

fn base_url() -> String {
    std::env::var("KEMBENCH_TEST_PG").unwrap_or_else(|_| DEFAULT_URL.to_string())
}

/// A fresh schema, dropped when the test ends.
struct Schema {
    name: String,
    client: Client,
}

impl Schema {
    fn new(tag: &str) -> Schema {
        let mut client = Client::connect(&base_url(), NoTls).unwrap_or_else(|e| {
            panic!(
                "cannot reach the test PostgreSQL server ({e}); run `bash scripts/setup-postgres` \
                 (scripts/setup does) or set KEMBENCH_TEST_PG"
            )
        });
        let name = format!(
            "kbtest_{tag}_{}_{:08x}",
            std::process::id(),
            rand::random::<u32>()
        );
        client
            .batch_execute(&format!("CREATE SCHEMA {name}"))
            .unwrap();
        Schema { name, client }
    }

    /// The store URL that writes into this schema.
    fn url(&self) -> String {
        let base = base_url();
        let sep = if base.contains('?') { '&' } else { '?' };
        format!("{base}{sep}options=-c%20search_path%3D{}", self.name)
    }

    fn count(&mut self, sql: &str) -> i64 {
        let sql = sql.replace("$S", &self.name);
        self.client.query_one(&sql, &[]).unwrap().get(0)
    }
}

impl Drop for Schema {
    fn drop(&mut self) {
        let _ = self
            .client
            .batch_execute(&format!("DROP SCHEMA {} CASCADE", self.name));
    }
}

#[test]
fn a_fleet_of_concurrent_writers_loses_nothing() {
    let mut s = Schema::new("fleet");
    let url = s.url();
    const WRITERS: usize = 6;
    // All start at once on an empty schema: they race to create it, then to write.
    let children: Vec<_> = (0..WRITERS)
        .map(|_| {
            std::process::Command::new(assert_cmd::cargo::cargo_bin("kembench"))
                .env("KEMBENCH_STORE", &url)
                .args([
                    "run",
                    "--include-mock",
                    "--impl",
                    "mock/correct,mock/broken",
                    "--no-pin",
                ])
                .args(FAST)
                .output_async()
        })
        .collect();
    let mut ids = Vec::new();
    for c in children {
        let out = c.join().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).to_string();
        assert_eq!(
            out.status.code(),
            Some(1),
            "{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            !stdout.contains(":kembench@"),
            "a password was printed: {stdout}"
        );
        let id = stdout
            .lines()
            .find_map(|l| l.strip_prefix("Run ").and_then(|r| r.split(',').next()))
            .expect("the run id is printed")
            .to_string();
        ids.push(id);
    }
    let listed = runs(&url);
    assert_eq!(listed.len(), WRITERS);
    for id in &ids {
        let r = listed
            .iter()
            .find(|r| r["id"] == id.as_str())
            .expect("every writer's run");
        assert_eq!(r["status"], "complete");
        assert_eq!(r["results"], 2);
        assert_eq!(r["not_ok"], 1);
        // Every statistic of every writer: the correct mock's six operations (imports included).
        let ops = s.count(&format!(
            "SELECT COUNT(*) FROM $S.operations WHERE run_id = '{id}' AND implementation = 'mock/correct'"
        ));
        assert_eq!(ops, 6, "run {id}");
        let v = export_json(&url, id);
        assert_eq!(v["results"].as_array().unwrap().len(), 2);
        assert!(
            v["results"][0]["operations"][0]["raw_samples_ns"]
                .as_array()
                .unwrap()
                .len()
                >= 5
        );
    }
    assert_eq!(s.count("SELECT COUNT(*) FROM $S.kembench_schema"), 1);
    // Comparisons span the fleet's runs.
    kembench_at(&url)
        .args(["compare", &ids[0], &ids[1]])
        .assert()
        .success()
        .stdout(predicate::str::contains("MockKEM"));
}

/// `Command::output` on a thread, so that several run at once.
trait OutputAsync {
    fn output_async(&mut self) -> std::thread::JoinHandle<std::process::Output>;
}

impl OutputAsync for std::process::Command {
    fn output_async(&mut self) -> std::thread::JoinHandle<std::process::Output> {
        let child = self
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::spawn(move || child.wait_with_output().unwrap())
    }
}

#[test]
fn throughput_runs_and_show_work_on_postgres() {
    let s = Schema::new("tp");
    let url = s.url();
    // The URL, password included, on the command line: it must not be recorded.
    Command::cargo_bin("kembench")
        .unwrap()
        .env_remove("KEMBENCH_STORE")
        .args(["--store", &url])
        .args(MOCK_THROUGHPUT)
        .args([
            "--threads",
            "1",
            "--duration",
            "0.05",
            "--repeats",
            "1",
            "--ops",
            "keygen",
        ])
        .assert()
        .success();
    let listed = runs(&url);
    assert_eq!(listed[0]["kind"], "throughput");
    assert_eq!(listed[0]["selection"], "MockKEM@mock/correct");
    kembench_at(&url)
        .args(["show", "latest"])
        .assert()
        .success()
        .stdout(predicate::str::contains("(throughput, complete)"))
        .stdout(predicate::str::contains("--store postgres://kembench:***@"))
        .stdout(predicate::str::contains(":kembench@").not());
    let text = export_json(&url, "latest").to_string();
    assert!(text.contains("kembench:***@"), "{text}");
    assert!(!text.contains(":kembench@"), "a password was recorded");
}

#[test]
fn a_tls_run_is_imported_shown_and_exported_the_same_on_postgres() {
    let s = Schema::new("tls");
    let url = s.url();
    let file = std::env::temp_dir().join(format!("kembench-pg-tls-{}.json", std::process::id()));
    write_tls_fixture(&file);
    kembench_at(&url)
        .arg("import")
        .arg(&file)
        .assert()
        .success();
    let listed = runs(&url);
    assert_eq!(listed[0]["kind"], "tls");
    assert_eq!(listed[0]["results"], 3);
    assert_eq!(listed[0]["not_ok"], 1);
    let back = export_json(&url, "latest");
    let mut want: serde_json::Value = serde_json::from_str(TLS_FIXTURE).unwrap();
    want["run_id"] = back["run_id"].clone();
    assert_eq!(back, want, "every field survives the server");
    kembench_at(&url)
        .args(["show", "latest"])
        .assert()
        .success()
        .stdout(predicate::str::contains("(tls, complete)"))
        .stdout(predicate::str::contains("X25519MLKEM768"));
    let _ = std::fs::remove_file(file);
}

#[test]
fn a_newer_schema_on_the_server_is_refused() {
    let mut s = Schema::new("newer");
    let url = s.url();
    // A read command creates nothing: a store comes from a run.
    kembench_at(&url)
        .arg("runs")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no kembench store"));
    kembench_at(&url)
        .args(MOCK_THROUGHPUT)
        .args(["--threads", "1", "--duration", "0.05", "--repeats", "1"])
        .assert()
        .success();
    assert_eq!(runs(&url).len(), 1);
    let name = s.name.clone();
    s.client
        .batch_execute(&format!("UPDATE {name}.kembench_schema SET version = 99"))
        .unwrap();
    kembench_at(&url)
        .arg("runs")
        .assert()
        .code(3)
        .stderr(predicate::str::contains("newer kembench"));
    assert_eq!(s.count("SELECT version FROM $S.kembench_schema"), 99);
}

#[test]
fn a_search_path_naming_a_missing_schema_is_said_and_nothing_is_measured() {
    let missing = format!("kbtest_nosuch_{}", std::process::id());
    let base = base_url();
    let sep = if base.contains('?') { '&' } else { '?' };
    let url = format!("{base}{sep}options=-c%20search_path%3D{missing}");
    let says = format!("the schema {missing} does not exist");
    for args in [&["runs"][..], &["show", "latest"], &["export", "latest"]] {
        kembench_at(&url)
            .args(args)
            .assert()
            .code(3)
            .stderr(predicate::str::contains(&says))
            .stderr(predicate::str::contains(format!("CREATE SCHEMA {missing}")))
            .stderr(predicate::str::contains("no kembench store").not());
    }
    let cwd = std::env::temp_dir().join(format!("kembench-pg-nosuch-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&cwd);
    std::fs::create_dir_all(&cwd).unwrap();
    kembench_at(&url)
        .current_dir(&cwd)
        .args(["run", "--include-mock", "--impl", "mock/correct"])
        .args(FAST)
        .assert()
        .code(3)
        .stderr(predicate::str::contains(&says))
        .stderr(predicate::str::contains("no schema has been selected").not())
        .stdout(predicate::str::contains("mock/correct").not());
    assert_eq!(
        std::fs::read_dir(&cwd).unwrap().count(),
        0,
        "nothing was measured, so nothing was saved"
    );
    let _ = std::fs::remove_dir_all(&cwd);
}

#[test]
fn connection_errors_never_show_the_password() {
    let base = base_url();
    let bad = base.replacen("kembench:kembench@", "kembench:wrong-secret-123@", 1);
    assert_ne!(bad, base, "the default URL carries a password to replace");
    kembench_at(&bad)
        .arg("runs")
        .assert()
        .code(3)
        .stderr(predicate::str::contains(
            "cannot connect to the PostgreSQL store",
        ))
        .stderr(predicate::str::contains("wrong-secret-123").not());
}

#[test]
fn connection_errors_name_the_cause_and_never_a_password() {
    let base = base_url();
    let wrong = base.replacen("kembench:kembench@", "kembench:Wr0ng-pw-77@", 1);
    kembench_at(&wrong)
        .arg("runs")
        .assert()
        .code(3)
        .stderr(predicate::str::contains("password authentication failed"))
        .stderr(predicate::str::contains("Wr0ng-pw-77").not());
    let (head, _db) = base.rsplit_once('/').unwrap();
    kembench_at(format!("{head}/kembench_no_such_db"))
        .arg("runs")
        .assert()
        .code(3)
        .stderr(predicate::str::contains("does not exist"));
    // An unencoded '@' in the password: refused, and no part of the password is shown.
    let at = base.replacen("kembench:kembench@", "kembench:Sec@ret-55@", 1);
    kembench_at(&at)
        .arg("runs")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("percent-encoded"))
        .stderr(predicate::str::contains("ret-55").not())
        .stderr(predicate::str::contains("Sec").not());
}

#[path = "common/v1_store.rs"]
mod v1_store;

impl Schema {
    /// Writes a schema-1 store holding `runs` into this schema, as kembench did.
    fn write_v1_store(&mut self, runs: &[v1_store::Run]) {
        let name = self.name.clone();
        let c = &mut self.client;
        c.batch_execute(&format!("SET search_path TO {name}"))
            .unwrap();
        for sql in v1_store::DDL {
            c.batch_execute(sql).unwrap();
        }
        for run in runs {
            let row = run.row();
            let params: Vec<&(dyn postgres::types::ToSql + Sync)> = row
                .iter()
                .map(|v| v as &(dyn postgres::types::ToSql + Sync))
                .collect();
            c.execute(v1_store::INSERT_RUN, &params).unwrap();
            for (alg, imp, seq, status, at, json) in run.result_rows() {
                c.execute(
                    v1_store::INSERT_RESULT,
                    &[&run.id, &alg, &imp, &seq, &status, &at, &json],
                )
                .unwrap();
            }
        }
    }
}

#[test]
fn a_store_of_the_oldest_schema_opens_with_every_run_result_and_operation_on_postgres() {
    let mut s = Schema::new("schema1");
    let url = s.url();
    let runs = v1_store::runs();
    s.write_v1_store(&runs);
    v1_store::check_every_run(&url, &runs);
    assert_eq!(
        s.count("SELECT version FROM $S.kembench_schema"),
        kembench::store::schema::LATEST
    );
    let sql = format!(
        "SELECT run_id, algorithm, implementation, operation, median_ns, ci95_low_ns,
             ci95_high_ns, p25_ns, p75_ns, samples, stop_reason FROM {}.operations",
        s.name
    );
    let mut ops: Vec<v1_store::OpRow> = s
        .client
        .query(&sql, &[])
        .unwrap()
        .iter()
        .map(|r| {
            (
                r.get(0),
                r.get(1),
                r.get(2),
                r.get(3),
                r.get(4),
                r.get(5),
                r.get(6),
                r.get(7),
                r.get(8),
                r.get(9),
                r.get(10),
            )
        })
        .collect();
    ops.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let want = v1_store::expected_operations(&runs);
    assert_eq!(want.len(), 16);
    assert_eq!(ops, want);
}

#[test]
fn a_schema_1_row_the_migration_cannot_read_stops_it_on_postgres() {
    let mut s = Schema::new("schema1bad");
    let url = s.url();
    let (runs, run, bench) = v1_store::with_unreadable_row();
    s.write_v1_store(&runs);
    kembench_at(&url)
        .arg("runs")
        .assert()
        .code(3)
        .stderr(predicate::str::contains(format!(
            "run {run}, benchmark {bench}"
        )))
        .stderr(predicate::str::contains("field median_ns"));
    // Rolled back whole: still schema 1, no operations table, every row where it was.
    assert_eq!(s.count("SELECT version FROM $S.kembench_schema"), 1);
    assert_eq!(
        s.count(
            "SELECT COUNT(*) FROM information_schema.tables \
             WHERE table_schema = '$S' AND table_name = 'operations'"
        ),
        0
    );
    assert_eq!(s.count("SELECT COUNT(*) FROM $S.results"), 9);
}

#[test]
fn a_sweep_of_four_concurrent_shards_measures_the_plan_once_and_reads_back_as_one_run() {
    let mut s = Schema::new("sweep");
    let url = s.url();
    // Real implementations (and the mock): nine benchmarks, a McEliece-free mix of sizes.
    let select = [
        "--include-mock",
        "--alg",
        "MockKEM,ML-KEM-*,X25519,P-256",
        "--impl",
        "mock/correct,aws-lc,liboqs",
        "--no-pin",
        "--rounds",
        "1",
    ];
    // The plan without shards, measured as one run into the same store.
    let whole = kembench_at(&url)
        .arg("run")
        .args(select)
        .args(FAST)
        .output()
        .unwrap();
    assert!(
        whole.status.success(),
        "{}",
        String::from_utf8_lossy(&whole.stderr)
    );
    let unsharded_id = runs(&url)[0]["id"].as_str().unwrap().to_string();
    let unsharded = export_json(&url, &unsharded_id);
    let plan: Vec<String> = {
        let mut p: Vec<String> = unsharded["config"]["planned"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l.as_str().unwrap().to_string())
            .collect();
        p.sort();
        p
    };
    assert_eq!(plan.len(), 9, "{plan:?}");
    assert_eq!(result_labels(&unsharded), plan);

    // Four jobs at once, as a CI matrix would start them, into one PostgreSQL store.
    const N: u32 = 4;
    let jobs: Vec<_> = (1..=N)
        .map(|k| {
            std::process::Command::new(assert_cmd::cargo::cargo_bin("kembench"))
                .env("KEMBENCH_STORE", &url)
                .arg("run")
                .args(select)
                .args(FAST)
                .args(["--shard", &format!("{k}/{N}"), "--sweep", "ci-1234"])
                .output_async()
        })
        .collect();
    for (k, j) in jobs.into_iter().enumerate() {
        let out = j.join().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "shard {}: {err}", k + 1);
        assert!(
            err.contains(&format!("shard {}/{N} of sweep ci-1234:", k + 1))
                && err.contains("of the 9 planned benchmarks"),
            "{err}"
        );
    }
    let listed = runs(&url);
    let shard_runs: Vec<&serde_json::Value> =
        listed.iter().filter(|r| r["sweep"] == "ci-1234").collect();
    assert_eq!(shard_runs.len(), N as usize);
    // Each shard planned and measured its own part; together they are the plan, once each.
    let mut measured = Vec::new();
    let mut planned = Vec::new();
    for r in &shard_runs {
        let record = export_json(&url, r["id"].as_str().unwrap());
        assert_eq!(record["sweep"]["plan"].as_array().unwrap().len(), 9);
        let part: Vec<String> = record["config"]["planned"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l.as_str().unwrap().to_string())
            .collect();
        assert!(!part.is_empty() && part.len() < 9, "{part:?}");
        planned.extend(part);
        measured.extend(result_labels(&record));
    }
    planned.sort();
    measured.sort();
    assert_eq!(planned, plan, "the shards' parts are not the plan");
    assert_eq!(measured, plan, "a benchmark measured twice or not at all");
    assert_eq!(
        s.count("SELECT COUNT(DISTINCT (algorithm, implementation)) FROM $S.results r JOIN $S.runs u ON u.id = r.run_id WHERE u.sweep = 'ci-1234'"),
        9
    );
    assert_eq!(
        s.count("SELECT COUNT(*) FROM $S.results r JOIN $S.runs u ON u.id = r.run_id WHERE u.sweep = 'ci-1234'"),
        9
    );

    // Read back as one run: export, show, compare and the report take `sweep:ID`.
    let merged = export_json(&url, "sweep:ci-1234");
    assert_eq!(result_labels(&merged), plan);
    assert_eq!(
        merged["sweep"]["runs"].as_array().unwrap().len(),
        N as usize
    );
    assert!(merged.get("run_id").is_none());
    assert!(
        merged["finished_at"].is_string(),
        "a complete sweep has an end"
    );
    // A plain sweep id names it too, when no run answers to it.
    assert_eq!(result_labels(&export_json(&url, "ci-1234")), plan);
    let bmf = kembench_at(&url)
        .args(["export", "sweep:ci-1234", "--format", "bmf"])
        .output()
        .unwrap();
    assert!(
        bmf.status.success(),
        "{}",
        String::from_utf8_lossy(&bmf.stderr)
    );
    let bmf: serde_json::Value = serde_json::from_slice(&bmf.stdout).unwrap();
    assert!(bmf.get("ML-KEM-768@liboqs/keygen").is_some(), "{bmf}");
    assert!(bmf.get("P-256@aws-lc/exchange").is_some(), "{bmf}");
    kembench_at(&url)
        .args(["show", "sweep:ci-1234"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "Sweep ci-1234: 4 of 4 shards, 9 planned benchmarks",
        ))
        .stdout(predicate::str::contains("ML-KEM-1024"));
    kembench_at(&url)
        .args(["compare", &unsharded_id, "sweep:ci-1234"])
        .assert()
        .success()
        .stdout(predicate::str::contains("ML-KEM-768"))
        .stdout(predicate::str::contains("X25519"));
    let report = std::env::temp_dir().join(format!("kembench-pg-sweep-{}", std::process::id()));
    kembench_at(&url)
        .args(["report", "sweep:ci-1234", "--format", "markdown", "-o"])
        .arg(&report)
        .assert()
        .success();
    let md = std::fs::read_to_string(report.join("report.md")).unwrap();
    let _ = std::fs::remove_dir_all(&report);
    for l in &plan {
        let (alg, _) = l.split_once('@').unwrap();
        assert!(md.contains(alg), "{alg} missing from the report");
    }
    assert!(
        md.contains("sweep ci-1234"),
        "the report does not name the sweep"
    );
}
