//! Store tests on real SQLite files (the PostgreSQL ones are in `tests/store_pg.rs`).

use super::records::{self, Storable};
use super::*;
use crate::export::fixture;
use crate::record::{AnyRecord, Benchmark, RecordKind, RunStatus};

fn temp_store(name: &str) -> (PathBuf, String) {
    let dir = std::env::temp_dir().join(format!(
        "kembench-store-{name}-{}-{:08x}",
        std::process::id(),
        rand::random::<u32>()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("results.sqlite");
    let spec = path.display().to_string();
    (path, spec)
}

fn record(id: &str, started: &str) -> crate::record::latency::LatencyRecord {
    let mut r = fixture::run();
    r.run_id = Some(id.into());
    r.started_at = started.into();
    r
}

fn save(store: &mut Store, r: &crate::record::latency::LatencyRecord) {
    store.begin(&records::run_row(r).unwrap()).unwrap();
    for b in &r.results {
        store
            .put_result(r.run_id.as_deref().unwrap(), &b.stored().unwrap())
            .unwrap();
    }
    store
        .finish(
            r.run_id.as_deref().unwrap(),
            RunStatus::Complete,
            r.finished_at.as_deref(),
            None,
        )
        .unwrap();
}

/// Start times have one-second resolution: of two runs that started within the same second,
/// `latest` is the one recorded last, whatever their random id suffixes.
#[test]
fn latest_is_the_run_recorded_last_within_one_second() {
    let (_, spec) = temp_store("same-second");
    let mut s = Store::open(&spec).unwrap();
    let first = "20261122-120000-ffffffff";
    let second = "20261122-120000-00000000";
    save(&mut s, &record(first, "2026-11-22T12:00:00Z"));
    save(&mut s, &record(second, "2026-11-22T12:00:00Z"));
    let ids: Vec<String> = s.runs().unwrap().into_iter().map(|r| r.id).collect();
    assert_eq!(ids, [second, first], "newest first");
    assert_eq!(s.resolve("latest", None).unwrap(), second);
    assert_eq!(s.resolve("latest~1", None).unwrap(), first);
}

#[test]
fn a_run_goes_in_and_comes_back_the_same() {
    let (_, spec) = temp_store("roundtrip");
    let mut s = Store::open(&spec).unwrap();
    let r = record("20261122-120000-00000001", "2026-11-22T12:00:00Z");
    save(&mut s, &r);
    let runs = s.runs().unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].status, "complete");
    assert_eq!(runs[0].results, 2);
    assert_eq!(runs[0].not_ok, 1, "the broken mock failed its check");
    assert_eq!(runs[0].host, r.environment.hostname);
    let AnyRecord::Latency(back) = records::record(&s.load(&runs[0].id).unwrap()).unwrap() else {
        panic!("a run comes back as a run")
    };
    assert_eq!(
        serde_json::to_value(&*back).unwrap(),
        serde_json::to_value(&r).unwrap(),
        "every field, raw samples included, survives the store"
    );
    // The operations table holds the medians for SQL.
    let ops =
        s.db.read(
            "SELECT operation, median_ns FROM operations ORDER BY operation",
            &[],
        )
        .unwrap();
    assert_eq!(ops.len(), 4);
    assert_eq!(ops[1][0], Val::text("encaps"));
    assert_eq!(
        ops[1][1],
        Val::Real(Some(r.results[0].operations[1].median_ns))
    );
}

#[test]
fn a_ct_run_goes_in_and_comes_back_the_same() {
    let (_, spec) = temp_store("ct");
    let mut s = Store::open(&spec).unwrap();
    let mut r = fixture::ct();
    r.run_id = Some("20261122-120000-0000000c".into());
    let (id, stored) = records::insert(&mut s, AnyRecord::from(r.clone())).unwrap();
    assert_eq!(
        (id.as_str(), stored),
        ("20261122-120000-0000000c", records::Imported::New(4))
    );
    let runs = s.runs().unwrap();
    assert_eq!(runs[0].kind, "ct");
    assert_eq!(runs[0].status, "complete");
    assert_eq!(runs[0].selection, r.config.planned.join(","));
    let AnyRecord::Ct(back) = records::record(&s.load(&id).unwrap()).unwrap() else {
        panic!("a ct run comes back as a ct run")
    };
    assert_eq!(
        serde_json::to_value(&*back).unwrap(),
        serde_json::to_value(&r).unwrap(),
        "every screen, finding and exception survives the store"
    );
}

#[test]
fn a_tls_run_goes_in_and_comes_back_the_same() {
    let (_, spec) = temp_store("tls");
    let mut s = Store::open(&spec).unwrap();
    let mut r = fixture::tls();
    r.run_id = Some("20261122-120000-0000000a".into());
    let (id, stored) = records::insert(&mut s, AnyRecord::from(r.clone())).unwrap();
    assert_eq!(
        (id.as_str(), stored),
        ("20261122-120000-0000000a", records::Imported::New(3))
    );
    let runs = s.runs().unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].kind, RecordKind::Tls.store_kind());
    assert_eq!(runs[0].status, "complete");
    assert_eq!(runs[0].not_ok, 1, "the group the stack lacks");
    assert_eq!(runs[0].selection, r.config.planned.join(","));
    let AnyRecord::Tls(back) = records::record(&s.load(&id).unwrap()).unwrap() else {
        panic!("a tls run comes back as a tls run")
    };
    assert_eq!(
        serde_json::to_value(&*back).unwrap(),
        serde_json::to_value(&r).unwrap(),
        "every field, flights and network points included, survives the store"
    );
    // A tls run has no latency rows.
    let ops = s.db.read("SELECT COUNT(*) FROM operations", &[]).unwrap();
    assert_eq!(ops[0][0], Val::Int(Some(0)));
    // The same id again is refused and leaves the store as it was.
    let again = records::insert(&mut s, AnyRecord::from(r)).unwrap_err();
    assert!(again.to_string().contains("already in"), "{again}");
    assert_eq!(s.runs().unwrap().len(), 1);
}

#[test]
fn a_profile_stored_out_of_order_reads_back_as_planned() {
    let (_, spec) = temp_store("profile-order");
    let mut s = Store::open(&spec).unwrap();
    let mut r = fixture::profile();
    let planned = r.config.planned.clone();
    // Profiles finish in any order, and are stored as they finish.
    r.results.reverse();
    let (id, _) = records::insert(&mut s, AnyRecord::from(r)).unwrap();
    let statuses: Vec<String> = s
        .load(&id)
        .unwrap()
        .results
        .into_iter()
        .map(|(status, _)| status)
        .collect();
    assert_eq!(statuses, ["check-failed", "ok"], "the second planned first");
    let AnyRecord::Profile(back) = records::record(&s.load(&id).unwrap()).unwrap() else {
        panic!("a profile comes back as a profile")
    };
    let labels: Vec<String> = back.results.iter().map(Benchmark::label).collect();
    assert_eq!(labels, planned);
}

#[test]
fn rewriting_a_result_replaces_it() {
    let (_, spec) = temp_store("replace");
    let mut s = Store::open(&spec).unwrap();
    let mut r = record("r1", "2026-11-22T12:00:00Z");
    save(&mut s, &r);
    r.results[0].operations.truncate(1);
    s.put_result("r1", &r.results[0].stored().unwrap()).unwrap();
    let stored = s.load("r1").unwrap();
    assert_eq!(stored.results.len(), 2);
    let n = s.db.read("SELECT COUNT(*) FROM operations", &[]).unwrap();
    assert_eq!(n[0][0], Val::Int(Some(1)));
}

#[test]
fn selectors_name_runs_by_id_prefix_latest_and_environment() {
    let (_, spec) = temp_store("select");
    let mut s = Store::open(&spec).unwrap();
    save(
        &mut s,
        &record("20261120-100000-aaaa0001", "2026-11-20T10:00:00Z"),
    );
    let mut other = record("20261121-100000-bbbb0002", "2026-11-21T10:00:00Z");
    other.environment.hostname = "fleet-7".into();
    save(&mut s, &other);
    save(
        &mut s,
        &record("20261122-100000-cccc0003", "2026-11-22T10:00:00Z"),
    );
    assert_eq!(
        s.resolve("latest", Some(RecordKind::Latency)).unwrap(),
        "20261122-100000-cccc0003"
    );
    assert_eq!(
        s.resolve("latest~2", Some(RecordKind::Latency)).unwrap(),
        "20261120-100000-aaaa0001"
    );
    assert_eq!(
        s.resolve("20261121", Some(RecordKind::Latency)).unwrap(),
        "20261121-100000-bbbb0002"
    );
    assert_eq!(
        s.resolve("aaaa0001", Some(RecordKind::Latency)).unwrap(),
        "20261120-100000-aaaa0001"
    );
    assert_eq!(
        s.resolve("host:fleet-7", Some(RecordKind::Latency))
            .unwrap(),
        "20261121-100000-bbbb0002"
    );
    let e = s
        .resolve("2026112", Some(RecordKind::Latency))
        .unwrap_err()
        .to_string();
    assert!(e.contains("matches 3 runs"), "{e}");
    let e = s
        .resolve("latest~9", Some(RecordKind::Latency))
        .unwrap_err()
        .to_string();
    assert!(e.contains("only 3 latency runs"), "{e}");
    let e = s
        .resolve("nope", Some(RecordKind::Latency))
        .unwrap_err()
        .to_string();
    assert!(e.contains("kembench runs"), "{e}");
    assert!(s.resolve("latest", Some(RecordKind::Throughput)).is_err());
}

#[test]
fn an_older_schema_is_migrated_forward_and_keeps_its_runs() {
    let (path, spec) = temp_store("migrate");
    {
        // A version-1 store: no operations table.
        drop(Store::open_at(&spec, 1).unwrap());
        let r = record("old-run", "2026-01-01T00:00:00Z");
        let row = records::run_row(&r).unwrap();
        let conn = rusqlite::Connection::open(&path).unwrap();
        // The run row as schema 1 has it (today's `begin` writes schema 3's columns).
        conn.execute(
            "INSERT INTO runs (id, kind, status, started_at, finished_at, host, cpu, selection,
                 kembench_version, git_commit, command_line, header_json)
             VALUES (?1, ?2, 'running', ?3, NULL, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            rusqlite::params![
                row.id,
                row.kind,
                row.started_at,
                row.host,
                row.cpu,
                row.selection,
                row.kembench_version,
                row.git_commit,
                row.command_line,
                row.header_json
            ],
        )
        .unwrap();
        for (seq, b) in r.results.iter().enumerate() {
            conn.execute(
                "INSERT INTO results VALUES ('old-run', ?1, ?2, ?3, ?4, '2026-01-01T00:00:01Z', ?5)",
                rusqlite::params![
                    b.algorithm,
                    b.implementation,
                    seq as i64,
                    b.status().as_str(),
                    serde_json::to_string(b).unwrap()
                ],
            )
            .unwrap();
        }
        let v: i64 = conn
            .query_row("SELECT version FROM kembench_schema", [], |r| r.get(0))
            .unwrap();
        assert_eq!(v, 1);
        assert!(conn
            .query_row("SELECT COUNT(*) FROM operations", [], |r| r
                .get::<_, i64>(0))
            .is_err());
    }
    let mut s = Store::open(&spec).unwrap();
    let v =
        s.db.read("SELECT version FROM kembench_schema", &[])
            .unwrap();
    assert_eq!(v[0][0], Val::Int(Some(schema::LATEST)));
    assert_eq!(s.runs().unwrap()[0].id, "old-run");
    let ops =
        s.db.read(
            "SELECT COUNT(*) FROM operations WHERE run_id = 'old-run'",
            &[],
        )
        .unwrap();
    assert_eq!(
        ops[0][0],
        Val::Int(Some(4)),
        "operations backfilled from JSON"
    );
    // Opening again is a no-op.
    drop(s);
    Store::open(&spec).unwrap();
}

#[test]
fn a_store_from_a_newer_kembench_is_refused_untouched() {
    let (path, spec) = temp_store("newer");
    drop(Store::open(&spec).unwrap());
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute("UPDATE kembench_schema SET version = 99", [])
            .unwrap();
        conn.pragma_update(None, "journal_mode", "DELETE").unwrap();
    }
    let before = std::fs::read(&path).unwrap();
    let e = format!("{:#}", Store::open(&spec).err().unwrap());
    assert!(e.contains("newer kembench"), "{e}");
    assert!(e.contains("99"), "{e}");
    assert!(
        std::fs::read(&path).unwrap() == before,
        "the store file changed"
    );
}

#[test]
fn a_corrupt_store_is_an_error_and_is_never_overwritten() {
    let (path, spec) = temp_store("corrupt");
    let garbage: Vec<u8> = (0..8192u32).map(|i| (i * 7 + 3) as u8).collect();
    std::fs::write(&path, &garbage).unwrap();
    let e = format!("{:#}", Store::open(&spec).err().unwrap());
    assert!(e.contains("not a readable SQLite database"), "{e}");
    assert!(e.contains("left untouched"), "{e}");
    assert!(
        std::fs::read(&path).unwrap() == garbage,
        "the corrupt file changed"
    );

    // A valid SQLite file that is someone else's database is not ours to write either.
    let (other, other_spec) = temp_store("foreign");
    rusqlite::Connection::open(&other)
        .unwrap()
        .execute("CREATE TABLE accounts (id INTEGER)", [])
        .unwrap();
    let e = format!("{:#}", Store::open(&other_spec).err().unwrap());
    assert!(e.contains("not a kembench store"), "{e}");
}

#[test]
fn concurrent_writers_to_one_sqlite_file_lose_nothing() {
    let (_, spec) = temp_store("concurrent");
    let writers: Vec<_> = (0..4)
        .map(|w| {
            let spec = spec.clone();
            std::thread::spawn(move || {
                let mut s = Store::open(&spec).unwrap();
                for i in 0..5 {
                    let mut r = record(&format!("w{w}-r{i}"), "2026-11-22T12:00:00Z");
                    r.results[1].implementation = format!("mock/w{w}");
                    save(&mut s, &r);
                }
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    let mut s = Store::open(&spec).unwrap();
    let runs = s.runs().unwrap();
    assert_eq!(runs.len(), 20);
    assert!(runs
        .iter()
        .all(|r| r.results == 2 && r.status == "complete"));
}

#[test]
fn run_ids_are_time_ordered_and_distinct() {
    let a = new_run_id();
    let b = new_run_id();
    assert_eq!(a.len(), "20261122-182512-9f3a0c1e".len(), "{a}");
    assert_ne!(a, b);
    assert!(a[..15] <= b[..15]);
}

#[test]
fn recorded_command_lines_hold_no_password() {
    let args = [
        "kembench",
        "run",
        "--store",
        "postgres://ci:hunter2@db:5432/bench",
        "--store=postgresql://ci:hunter2@db/bench",
        "--alg",
        "ML-KEM-768",
    ]
    .map(String::from);
    let out = redact_args(args).join(" ");
    assert!(!out.contains("hunter2"), "{out}");
    assert!(
        out.contains("--store postgres://ci:***@db:5432/bench"),
        "{out}"
    );
    assert!(
        out.contains("--store=postgresql://ci:***@db/bench"),
        "{out}"
    );
    assert!(out.ends_with("--alg ML-KEM-768"));
}

/// Processes that start on one new store at the same moment all get it: the switch to WAL,
/// which SQLite refuses at once while another connection reads, is tried again (before, about
/// one round in fifteen here lost a writer to "database is locked").
#[test]
fn writers_opening_one_new_store_at_once_all_get_it() {
    let mut errors = Vec::new();
    for round in 0..60 {
        let (_, spec) = temp_store("opening");
        let opening: Vec<_> = (0..6)
            .map(|_| {
                let spec = spec.clone();
                std::thread::spawn(move || {
                    Store::open(&spec).map(drop).map_err(|e| format!("{e:#}"))
                })
            })
            .collect();
        for o in opening {
            if let Err(e) = o.join().unwrap() {
                errors.push(format!("round {round}: {e}"));
            }
        }
    }
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

/// A store that failed part-way holds the run's row and some of its results, and the fallback
/// file holds the whole run: importing the file completes the stored run (its results read back
/// as the file's), and is refused, leaving the store as it was, when the stored run is complete,
/// of another kind or start, or holds a benchmark the file lacks.
#[test]
fn importing_the_fallback_file_completes_a_partly_stored_run() {
    let (_, spec) = temp_store("complete");
    let mut s = Store::open(&spec).unwrap();
    let mut whole = fixture::tls();
    whole.run_id = Some("20261122-120000-0000000b".into());
    let id = whole.run_id.clone().unwrap();
    assert_eq!(whole.results.len(), 3);
    // What a recorder that failed after the run's row and one result leaves.
    let mut part = whole.clone();
    part.results.truncate(1);
    records::insert(&mut s, AnyRecord::from(part)).unwrap();
    s.finish(&id, RunStatus::Running, None, None).unwrap();
    let held_before = s.load(&id).unwrap();
    assert_eq!(held_before.results.len(), 1);

    // A file that lacks a benchmark the store holds is refused.
    let mut other = whole.clone();
    other.results.remove(0);
    let e = records::insert(&mut s, AnyRecord::from(other)).unwrap_err();
    assert!(e.to_string().contains("which the file lacks"), "{e}");
    // So is another run under the same id.
    let mut later = whole.clone();
    later.started_at = "2026-11-23T00:00:00Z".into();
    let e = records::insert(&mut s, AnyRecord::from(later)).unwrap_err();
    assert!(e.to_string().contains("as another run"), "{e}");
    let unchanged = s.load(&id).unwrap();
    assert_eq!(unchanged.results, held_before.results);
    assert_eq!(unchanged.summary.status, "running");

    let (got, done) = records::insert(&mut s, AnyRecord::from(whole.clone())).unwrap();
    assert_eq!(got, id);
    assert_eq!(done, records::Imported::Completed { held: 1, added: 2 });
    let AnyRecord::Tls(back) = records::record(&s.load(&id).unwrap()).unwrap() else {
        panic!("a tls run comes back as a tls run")
    };
    assert_eq!(
        serde_json::to_value(&*back).unwrap(),
        serde_json::to_value(&whole).unwrap()
    );
    assert_eq!(s.runs().unwrap()[0].status, "complete");
    // Complete now: the same file again is refused.
    let e = records::insert(&mut s, AnyRecord::from(whole)).unwrap_err();
    assert!(e.to_string().contains("already in"), "{e}");
}

/// A run still `running` with nothing stored (in progress elsewhere, or killed before its
/// first benchmark) is not `latest`: a real run is, and the empty one is still named by its id.
#[test]
fn latest_passes_over_a_running_run_with_nothing_in_it() {
    let (_, spec) = temp_store("latest-empty");
    let mut s = Store::open(&spec).unwrap();
    let real = "20261122-120000-0000aaaa";
    let empty = "20261122-130000-0000bbbb";
    save(&mut s, &record(real, "2026-11-22T12:00:00Z"));
    let mut e = record(empty, "2026-11-22T13:00:00Z");
    e.results.clear();
    s.begin(&records::run_row(&e).unwrap()).unwrap();
    assert_eq!(s.resolve("latest", None).unwrap(), real);
    assert_eq!(
        s.resolve("latest", Some(RecordKind::Latency)).unwrap(),
        real
    );
    assert_eq!(s.resolve(empty, None).unwrap(), empty);
    let why = format!("{:#}", s.resolve("latest~1", None).unwrap_err());
    assert!(
        why.contains("only 1 runs") && why.contains(&format!("not counting {empty}")),
        "{why}"
    );
    // Once it holds a result, it is the latest.
    s.put_result(empty, &fixture::run().results[0].stored().unwrap())
        .unwrap();
    assert_eq!(s.resolve("latest", None).unwrap(), empty);
}

/// A run taken back before it measured anything ([`Recorder::abandon`]) leaves nothing in the
/// store.
#[test]
fn an_abandoned_run_leaves_nothing_in_the_store() {
    let (_, spec) = temp_store("abandon");
    let id = "20261122-120000-0000cccc";
    let mut recorder = Recorder::open(&spec, true, id).unwrap();
    let mut e = record(id, "2026-11-22T12:00:00Z");
    e.results.clear();
    recorder.begin(records::run_row(&e));
    assert_eq!(Store::open(&spec).unwrap().runs().unwrap().len(), 1);
    let said = recorder.abandon();
    assert!(
        said.contains(&format!("run {id} is not recorded")),
        "{said}"
    );
    assert!(Store::open(&spec).unwrap().runs().unwrap().is_empty());
}
