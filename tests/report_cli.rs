//! CLI tests of `kembench report`: inputs made by `kembench run`, `kembench throughput` and
//! `kembench profile` (under the real valgrind) on the mock provider, the HTML and Markdown
//! reports built from them, a report of a stored profile alone, one of a tls run (the unit
//! tests' fixture, stored and as a file), clear errors for bad inputs,
//! and, where chromium is installed, the HTML page rendered by a real headless browser.

mod common;

use common::{kembench, kembench_at, write_tls_fixture, FAST, MOCK_THROUGHPUT};
use predicates::prelude::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn tempdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kembench-report-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

const FAST_RUN: [&str; 4] = ["--rounds", "1", "--include-mock", "--impl"];

/// `kembench profile` of the correct mock (one seed, under valgrind) into the tests' store and
/// `file`; its id in the store.
fn profile(file: &Path) -> String {
    let args = [
        "--include-mock",
        "--impl",
        "mock/correct",
        "--alg",
        "MockKEM",
        "--seeds",
        "1",
    ];
    let record = common::profile_record(kembench(), file, &args);
    record["run_id"].as_str().unwrap().to_string()
}

/// Result files in `dir`: a run of mock/correct (the baseline), a run of mock/correct and
/// mock/broken (which fails its correctness check), a throughput run and a profile.
fn inputs(dir: &Path) -> Vec<PathBuf> {
    let base = dir.join("base.json");
    kembench()
        .arg("run")
        .args(FAST)
        .args(FAST_RUN)
        .arg("mock/correct")
        .arg("--json")
        .arg(&base)
        .assert()
        .success();
    let later = dir.join("later.json");
    kembench()
        .arg("run")
        .args(FAST)
        .args(FAST_RUN)
        .arg("mock/correct,mock/broken")
        .arg("--json")
        .arg(&later)
        .assert()
        .code(1);
    let tp = dir.join("tp.json");
    kembench()
        .args(MOCK_THROUGHPUT)
        .args([
            "--threads",
            "1,2",
            "--duration",
            "0.05",
            "--repeats",
            "1",
            "--json",
        ])
        .arg(&tp)
        .assert()
        .success();
    let prof = dir.join("profile.json");
    profile(&prof);
    vec![base, later, tp, prof]
}

/// The ids every report of [`inputs`] has, one per chart container.
const CHART_IDS: [&str; 9] = [
    "chart-latency-test",
    "chart-size",
    "chart-shares",
    "chart-profile-shares",
    "chart-profile-flames",
    "chart-flame-1-mockkem-mock-correct-keygen",
    "chart-memory",
    "chart-throughput",
    "chart-compare-2",
];

fn html_report(dir: &Path) -> PathBuf {
    let out = dir.join("report.html");
    kembench()
        .arg("report")
        .args(inputs(dir))
        .arg("-o")
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "Report from 2 latency runs, 1 throughput run and 1 profile:",
        ));
    out
}

#[test]
fn html_report_from_real_runs_is_self_contained_and_complete() {
    let dir = tempdir("html");
    let out = html_report(&dir);
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    for id in CHART_IDS {
        assert!(html.contains(&format!("id=\"{id}\"")), "{id} missing");
    }
    assert!(html.contains("MockKEM"));
    assert!(html.contains("<svg"), "charts are inline SVG");
    assert!(
        html.contains(">FAIL<"),
        "the failed implementation is visible"
    );
    assert!(html.contains("later.json against base.json"));
    assert!(html.contains("Methodology") && html.contains("TSC ticks"));
    assert!(html.contains("Where the time goes") && html.contains("hot paths of keygen"));
    assert!(
        html.contains(
            "<img alt=\"MockKEM · mock/correct · keygen\" src=\"data:image/svg+xml;base64,"
        ),
        "flame graphs are data: images"
    );
    assert_eq!(
        html.matches("<script").count(),
        1,
        "only the page's own script"
    );
    for external in ["<link", "src=\"http", "href=\"http", "@import", "url("] {
        assert!(
            !html.contains(external),
            "{external}: the page must need no network"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn markdown_report_writes_report_md_and_one_svg_per_chart() {
    let dir = tempdir("md");
    let out = dir.join("md/nested");
    kembench()
        .arg("report")
        .args(inputs(&dir))
        .args(["--format", "markdown", "-o"])
        .arg(&out)
        .assert()
        .success();
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.starts_with("# kembench report"));
    assert!(md.contains("| MockKEM | mock/correct |"));
    let images: Vec<&str> = md
        .match_indices("](")
        .filter_map(|(i, _)| md[i + 2..].split(')').next())
        .filter(|f| f.ends_with(".svg"))
        .collect();
    for name in [
        "latency-test.svg",
        "size.svg",
        "shares.svg",
        "memory.svg",
        "compare-2.svg",
        "profile-shares.svg",
        "flame-1-mockkem-mock-correct-keygen.svg",
    ] {
        assert!(images.contains(&name), "{name} not referenced: {images:?}");
    }
    assert!(images.iter().any(|n| n.starts_with("throughput-1-mockkem")));
    for name in images {
        let svg = std::fs::read_to_string(out.join(name)).unwrap();
        // plotters' charts start with the element, inferno's flame graphs with the XML
        // declaration.
        assert!(
            svg.starts_with("<svg") || svg.starts_with("<?xml"),
            "{name}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_stored_profile_alone_makes_a_report() {
    let dir = tempdir("profile-only");
    let id = profile(&dir.join("p.json"));
    let out = dir.join("only.html");
    kembench()
        .args(["report", &id, "-o"])
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains("Report from 1 profile:"));
    let html = std::fs::read_to_string(&out).unwrap();
    for id in [
        "chart-profile-shares",
        "table-profile",
        "chart-flame-1-mockkem-mock-correct-keygen",
        "chart-flame-2-mockkem-mock-correct-encaps",
        "chart-flame-3-mockkem-mock-correct-decaps",
        "environment-profile-1",
    ] {
        assert!(html.contains(&format!("id=\"{id}\"")), "{id} missing");
    }
    assert!(
        html.contains("No latency run given"),
        "the run sections say there is none"
    );
    let md = dir.join("md");
    kembench()
        .args(["report", &id, "--format", "markdown", "-o"])
        .arg(&md)
        .assert()
        .success();
    let text = std::fs::read_to_string(md.join("report.md")).unwrap();
    assert!(text.contains("## Where the time goes"));
    assert!(text.contains("**MockKEM · mock/correct: hot paths of keygen, encaps, decaps**"));
    let flame =
        std::fs::read_to_string(md.join("flame-1-mockkem-mock-correct-keygen.svg")).unwrap();
    assert!(flame.contains("MockKEM@mock/correct keygen"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The charts and tables of the tls section of the fixture.
const TLS_IDS: [&str; 12] = [
    "tls",
    "chart-tls-rate",
    "chart-tls-cpu",
    "chart-tls-flights",
    "chart-tls-rtt",
    "chart-tls-loss",
    "table-tls-cpu",
    "table-tls-capacity",
    "table-tls-flights",
    "table-tls-network",
    "table-tls-decision",
    "environment-tls-1",
];

#[test]
fn a_tls_run_makes_a_report_with_its_section_and_charts() {
    let dir = tempdir("tls");
    let file = dir.join("tls.json");
    write_tls_fixture(&file);
    let out = dir.join("tls.html");
    kembench()
        .args(["report", "-o"])
        .arg(&out)
        .arg(&file)
        .assert()
        .success()
        .stdout(predicate::str::contains("Report from 1 tls run:"));
    let html = std::fs::read_to_string(&out).unwrap();
    for id in TLS_IDS {
        assert!(html.contains(&format!("id=\"{id}\"")), "{id} missing");
    }
    assert!(
        html.contains("href=\"#tls\""),
        "the contents link to the section"
    );
    assert!(html.contains("<svg"), "charts are inline SVG");
    assert!(html.contains("initial window (10 segments)"));
    assert!(html.contains("OpenSSL 3.0.0 has no &lt;MLKEM1024&gt; group"));
    assert!(
        !html.contains("<MLKEM1024>"),
        "names from the file are escaped"
    );

    // Stored, then reported by id, in Markdown.
    let store = dir.join("s.sqlite");
    kembench_at(&store)
        .arg("import")
        .arg(&file)
        .assert()
        .success();
    let md = dir.join("md");
    kembench_at(&store)
        .args(["report", "latest", "--format", "markdown", "-o"])
        .arg(&md)
        .assert()
        .success();
    let text = std::fs::read_to_string(md.join("report.md")).unwrap();
    assert!(text.contains("## TLS handshakes"), "{text}");
    assert!(text.contains("**CPU per handshake**"), "{text}");
    for chart in ["tls-rate", "tls-cpu", "tls-flights", "tls-rtt", "tls-loss"] {
        let svg = std::fs::read_to_string(md.join(format!("{chart}.svg"))).unwrap();
        assert!(svg.starts_with("<svg"), "{chart}");
        assert!(
            text.contains(&format!("{chart}.svg")),
            "{chart} not referenced"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_inputs_are_refused_with_clear_errors() {
    let dir = tempdir("bad");
    let broken = dir.join("broken.json");
    std::fs::write(&broken, "{\"kind\": ").unwrap();
    kembench()
        .arg("report")
        .arg(&broken)
        .arg("-o")
        .arg(dir.join("r.html"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("broken.json is not JSON"));
    let newer = dir.join("newer.json");
    std::fs::write(
        &newer,
        "{\"kind\": \"kembench-run\", \"schema_version\": 99}",
    )
    .unwrap();
    kembench()
        .arg("report")
        .arg(&newer)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("newer kembench"));
    let other = dir.join("other.json");
    std::fs::write(
        &other,
        "{\"kind\": \"something-else\", \"schema_version\": 1}",
    )
    .unwrap();
    kembench()
        .arg("report")
        .arg(&other)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("'something-else'"));
    kembench()
        .args(["report", "/nonexistent/kembench-run.json"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot read"));
    // No RUN and a store with no run in it (a store of this test's own: the other tests of
    // this file record runs in the shared one while this one runs).
    kembench_at(dir.join("empty.sqlite"))
        .current_dir(&dir)
        .arg("report")
        .assert()
        .code(2);
    assert!(
        !dir.join("report.html").exists(),
        "nothing written on error"
    );
    assert!(!dir.join("r.html").exists(), "nothing written on error");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn help_says_the_report_reads_stored_runs_profiles_and_files() {
    kembench()
        .args(["report", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Runs and profiles in the store"))
        .stdout(predicate::str::contains(
            "`run`, `throughput`, `profile` or `tls`",
        ))
        .stdout(predicate::str::contains("result files"))
        .stdout(predicate::str::contains("--format"))
        .stdout(predicate::str::contains("markdown"));
}

/// The first chromium binary on PATH.
fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser"].iter().find_map(|name| {
        std::env::split_paths(&path)
            .map(|d| d.join(name))
            .find(|p| p.is_file())
    })
}

/// Runs chromium headless on `url` with `extra` arguments, killed after two minutes; returns
/// (stdout, stderr).
fn headless(bin: &Path, profile: &Path, url: &str, extra: &[String]) -> (String, String) {
    let out_path = profile.with_extension("out");
    let err_path = profile.with_extension("err");
    let mut child = std::process::Command::new(bin)
        .args([
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--enable-logging=stderr",
            "--v=0",
            "--no-first-run",
            "--no-default-browser-check",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(url)
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .expect("starting chromium");
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish within two minutes");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    (
        std::fs::read_to_string(&out_path).unwrap_or_default(),
        std::fs::read_to_string(&err_path).unwrap_or_default(),
    )
}

/// Console messages chromium logged that report an error (a Content-Security-Policy refusal
/// included).
fn console_errors(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.contains("CONSOLE"))
        .filter(|l| {
            ["Uncaught", "Error", "Refused", "Content Security Policy"]
                .iter()
                .any(|w| l.contains(w))
        })
        .collect()
}

#[test]
fn chromium_renders_the_report_without_console_errors() {
    let Some(bin) = chromium() else {
        kembench::missing::skip(
            "chromium_renders_the_report_without_console_errors",
            "chromium",
            "`apt-get install chromium`, which scripts/setup does",
        );
        return;
    };
    let dir = tempdir("chromium");
    let report = html_report(&dir);
    let url = format!("file://{}", report.canonicalize().unwrap().display());

    let png = dir.join("report.png");
    let (_, stderr) = headless(
        &bin,
        &dir.join("profile-shot"),
        &url,
        &[
            format!("--screenshot={}", png.display()),
            "--window-size=1400,4000".into(),
        ],
    );
    let size = std::fs::metadata(&png).map(|m| m.len()).unwrap_or(0);
    assert!(size > 0, "no screenshot; chromium said:\n{stderr}");
    assert!(console_errors(&stderr).is_empty(), "{stderr}");

    let (dom, stderr) = headless(&bin, &dir.join("profile-dom"), &url, &["--dump-dom".into()]);
    for id in CHART_IDS {
        assert!(dom.contains(&format!("id=\"{id}\"")), "{id} not in the DOM");
    }
    assert!(dom.contains("<svg"), "inline SVG in the DOM");
    assert!(
        dom.contains("tabindex=\"0\""),
        "the sorting script ran (it makes headers focusable)"
    );
    assert!(console_errors(&stderr).is_empty(), "{stderr}");

    // Sorting and filtering in the real browser: a copy of the page with a script that clicks
    // a header twice and picks an implementation in the filter, then logs what it saw.
    let html = std::fs::read_to_string(&report).unwrap();
    let probe = dir.join("probe.html");
    std::fs::write(
        &probe,
        html.replace("</body>", &format!("<script>{SELF_TEST}</script></body>")),
    )
    .unwrap();
    let url = format!("file://{}", probe.canonicalize().unwrap().display());
    let (_, stderr) = headless(
        &bin,
        &dir.join("profile-probe"),
        &url,
        &["--dump-dom".into()],
    );
    assert!(console_errors(&stderr).is_empty(), "{stderr}");
    assert!(
        stderr
            .lines()
            .any(|l| l.contains("CONSOLE") && l.contains("SELFTEST passed")),
        "{stderr}"
    );
    assert!(
        stderr
            .lines()
            .any(|l| l.contains("CONSOLE") && l.contains("FLAMES shown 3")),
        "the flame graph is a decoded image: {stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Exercises the page's sorting and filtering; logs `SELFTEST passed` or what went wrong. Once
/// the page has loaded, logs `FLAMES shown N` when the N flame-graph images decoded.
const SELF_TEST: &str = r#"
window.addEventListener('load', function () {
  var imgs = document.querySelectorAll('#chart-profile-flames img');
  var shown = imgs.length > 0 && Array.prototype.every.call(imgs, function (i) {
    return i.complete && i.naturalWidth > 0;
  });
  console.log('FLAMES ' + (shown ? 'shown ' + imgs.length : 'not shown (' + imgs.length + ')'));
});
(function () {
  function medians(t) {
    return Array.prototype.map.call(t.tBodies[0].rows, function (r) {
      return parseFloat(r.cells[5].getAttribute('data-sort'));
    });
  }
  function sorted(v, dir) {
    return v.every(function (x, i) { return i === 0 || dir * (x - v[i - 1]) >= 0; });
  }
  var t = document.getElementById('table-latency');
  var th = t.tHead.rows[0].cells[5];
  th.click();
  var asc = sorted(medians(t), 1) && th.getAttribute('aria-sort') === 'ascending';
  th.click();
  var desc = sorted(medians(t), -1) && th.getAttribute('aria-sort') === 'descending';
  var sel = document.getElementById('f-impl');
  sel.value = 'mock/broken';
  sel.dispatchEvent(new Event('change'));
  var shown = Array.prototype.filter.call(
    document.querySelectorAll('#table-correctness tbody tr'), function (r) { return !r.hidden; });
  var filtered = shown.length === 1 && shown[0].getAttribute('data-impl') === 'mock/broken';
  document.getElementById('f-reset').click();
  var reset = Array.prototype.every.call(
    document.querySelectorAll('#table-correctness tbody tr'), function (r) { return !r.hidden; });
  var ok = asc && desc && filtered && reset;
  console.log('SELFTEST ' + (ok ? 'passed' : 'went wrong: ' +
    JSON.stringify({ asc: asc, desc: desc, filtered: filtered, shown: shown.length, reset: reset })));
})();
"#;

#[test]
fn console_error_lines_are_recognised() {
    let sample = "[1:2:INFO:CONSOLE(3)] \"Uncaught ReferenceError: x is not defined\", source: file:///r.html (3)\n\
                  [1:2:INFO:CONSOLE(4)] \"hello\", source: file:///r.html (4)\n\
                  [1:2:INFO:CONSOLE:5] \"Loading the image 'data:x' violates the following Content Security Policy directive: \\\"default-src 'none'\\\". The action has been blocked.\", source: file:///r.html (5)\n\
                  [1:2:ERROR:gpu_init.cc(1)] not a console line";
    assert_eq!(console_errors(sample).len(), 2);
}

/// Real data through the CLI, no mock: two latency runs of real ML-KEM-768 and X25519
/// implementations compared, a throughput run and real TLS handshakes, reported together.
/// Checked independently of the code under test: each stored median is the median of the run's
/// own raw samples, recomputed here; the sizes the report prints are FIPS 203's and RFC 7748's.
#[test]
fn real_runs_a_comparison_throughput_and_tls_make_one_report() {
    let dir = tempdir("real");
    let run = |name: &str| {
        let file = dir.join(name);
        kembench()
            .args([
                "run",
                "--alg",
                "ML-KEM-768,X25519",
                "--impl",
                "aws-lc,rustcrypto",
            ])
            .args([
                "--time-budget",
                "0.05",
                "--rounds",
                "1",
                "--no-store",
                "--json",
            ])
            .arg(&file)
            .assert()
            .success();
        file
    };
    let (a, b) = (run("a.json"), run("b.json"));
    let v: Value = serde_json::from_slice(&std::fs::read(&a).unwrap()).unwrap();
    let results = v["results"].as_array().unwrap();
    assert!(results.len() >= 3, "{v}");
    for r in results {
        for o in r["operations"].as_array().unwrap() {
            let mut raw: Vec<f64> = o["raw_samples_ns"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap())
                .collect();
            raw.sort_by(f64::total_cmp);
            let n = raw.len();
            assert_eq!(n as u64, o["samples"].as_u64().unwrap());
            let median = if n % 2 == 1 {
                raw[n / 2]
            } else {
                (raw[n / 2 - 1] + raw[n / 2]) / 2.0
            };
            let stored = o["median_ns"].as_f64().unwrap();
            assert!(
                (median - stored).abs() <= 1e-9 * stored,
                "{median} vs {stored}: {o}"
            );
        }
    }
    let out = kembench().arg("compare").arg(&a).arg(&b).assert().success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        text.contains("ML-KEM-768") && text.contains("aws-lc"),
        "{text}"
    );

    let tp = dir.join("tp.json");
    kembench()
        .args([
            "throughput",
            "--alg",
            "X25519",
            "--impl",
            "aws-lc",
            "--threads",
            "1,2",
        ])
        .args([
            "--duration",
            "0.1",
            "--repeats",
            "1",
            "--ops",
            "encaps",
            "--no-store",
            "--json",
        ])
        .arg(&tp)
        .assert()
        .success();
    let tls = dir.join("tls.json");
    kembench()
        .args([
            "tls",
            "--groups",
            "X25519,X25519MLKEM768",
            "--duration",
            "0.2",
        ])
        .args([
            "--threads",
            "1",
            "--scaling-duration",
            "0.1",
            "--no-store",
            "--json",
        ])
        .arg(&tls)
        .assert()
        .success();

    let html = dir.join("real.html");
    kembench()
        .arg("report")
        .args([&a, &b, &tp, &tls])
        .arg("-o")
        .arg(&html)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "Report from 2 latency runs, 1 throughput run and 1 tls run:",
        ));
    let page = std::fs::read_to_string(&html).unwrap();
    for needle in [
        "ML-KEM-768",
        "aws-lc",
        "rustcrypto",
        "X25519MLKEM768",
        "href=\"#tls\"",
        "id=\"chart-throughput\"",
        "id=\"chart-compare-2\"",
    ] {
        assert!(page.contains(needle), "{needle} missing from the report");
    }
    // FIPS 203: ML-KEM-768's encapsulation key is 1,184 bytes, its ciphertext 1,088; RFC 7748:
    // an X25519 public key is 32 bytes.
    let md = dir.join("md");
    kembench()
        .arg("report")
        .args([&a, &tp, &tls])
        .args(["--format", "markdown", "-o"])
        .arg(&md)
        .assert()
        .success();
    let text = std::fs::read_to_string(md.join("report.md")).unwrap();
    let sizes = format!(
        "| ML-KEM-768 | module-lattice | 3 | {:.2} KiB | {:.2} KiB |",
        1184.0 / 1024.0,
        1088.0 / 1024.0
    );
    assert!(text.contains(&sizes), "{sizes} not in {text}");
    let x25519 = "| X25519 | elliptic-curve | classical | 32 B | 32 B |";
    assert!(text.contains(x25519), "{x25519} not in {text}");
    let _ = std::fs::remove_dir_all(&dir);
}
