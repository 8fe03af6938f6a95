//! The runtime library under AddressSanitizer and UndefinedBehaviorSanitizer
//! (`SYNCMUT_SANITIZE=1`): every mutant of two fixtures that call every wrapper the
//! runtime has (pthread and SystemC), and of one example of each kind, run with the
//! sanitized runtime; any sanitizer report that involves the runtime fails the test.
//! Those two examples must also give exactly their checked-in verdicts, so the sanitized
//! build behaves like the plain one (tests/examples.rs checks every example's verdicts
//! with the plain runtime). Every other example's metamutant runs once, with no mutant
//! active, under the sanitizers: its own mix of calls, at a fraction of the cost of all
//! its mutants. The runtime's own input parsers (`SYNCMUT_ACTIVE`, `SYNCMUT_SCHEDULE` with
//! replay files, the step budgets, the output paths) are fed spoiled values (proptest,
//! fixed seed) on the sanitized metamutant: refused with status 120 or run, never a
//! crash or a report.

mod util;

use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestRunner};
use serde_json::Value;
use std::path::{Path, PathBuf};
use util::{root, syncmut};

/// The examples whose every mutant runs under the sanitizers: one SystemC design, and
/// the pthread design that also reads SV-COMP inputs and assumptions (inputs.c and
/// verifier.c of the runtime, which the fixtures do not call).
const FULL: [&str; 2] = ["systemc/guarded_event", "pthread/nondet_guard"];

/// `syncmut` with the sanitized runtime; reports go to files under `logs`.
fn sanitized(command: &str, design: &Path, logs: &Path) -> assert_cmd::Command {
    let mut cmd = syncmut();
    cmd.arg(command)
        .arg(design)
        .env("SYNCMUT_SANITIZE", "1")
        .env("ASAN_SYMBOLIZER_PATH", symbolizer());
    sanitizer_logs(&mut cmd, logs);
    cmd
}

fn symbolizer() -> &'static str {
    [
        "/usr/lib/llvm-16/bin/llvm-symbolizer",
        "/usr/bin/llvm-symbolizer-16",
    ]
    .into_iter()
    .find(|p| Path::new(p).is_file())
    .expect("llvm-symbolizer of LLVM 16 (package llvm-16), to name the frames of a report")
}

fn sanitizer_logs(cmd: &mut assert_cmd::Command, logs: &Path) {
    cmd.env(
        "ASAN_OPTIONS",
        format!("log_path={}/asan:detect_leaks=1", logs.display()),
    )
    .env(
        "UBSAN_OPTIONS",
        format!("log_path={}/ubsan:print_stacktrace=1", logs.display()),
    );
}

/// `syncmut run` with the sanitized runtime.
fn sanitized_run(design: &Path, extra: &[&str], out: &Path, logs: &Path) {
    sanitized_run_with(design, extra, out, logs, true);
}

/// [`sanitized_run`], with LeakSanitizer on or off.
fn sanitized_run_with(design: &Path, extra: &[&str], out: &Path, logs: &Path, leaks: bool) {
    let mut cmd = sanitized("run", design, logs);
    if !leaks {
        cmd.env(
            "ASAN_OPTIONS",
            format!("log_path={}/asan:detect_leaks=0", logs.display()),
        );
    }
    cmd.args(extra)
        .args(["-j", "2", "-o"])
        .arg(out)
        .timeout(std::time::Duration::from_secs(300))
        .assert()
        .success();
    assert_sanitized_build(out);
}

/// The runtime linked in is the instrumented one (both archives: C and SystemC).
fn assert_sanitized_build(out: &Path) {
    // The archives are installed in the build cache's runtime directory, one per set of
    // archives (named by their hash), or in the run directory with the cache off.
    let cache = std::env::var_os("SYNCMUT_CACHE_DIR").map(PathBuf::from);
    let dirs: Vec<PathBuf> = match cache.filter(|c| c.join("runtime").is_dir()) {
        Some(cache) => std::fs::read_dir(cache.join("runtime"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect(),
        None => vec![out.join("build/runtime")],
    };
    let instrumented = |dir: &PathBuf| {
        ["libsyncmut_rt.a", "libsyncmut_rt_sc.a"]
            .iter()
            .all(|name| {
                std::fs::read(dir.join(name)).is_ok_and(|archive| {
                    contains(&archive, b"__asan_report_load")
                        && contains(&archive, b"__ubsan_handle_")
                })
            })
    };
    assert!(
        dirs.iter().any(instrumented),
        "{}: no instrumented runtime archives in {dirs:?}",
        out.display()
    );
    let metamutant = std::fs::read(out.join("metamutant")).unwrap();
    assert!(
        contains(&metamutant, b"AddressSanitizer"),
        "the metamutant was not linked with the sanitizers"
    );
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// A report involves the runtime when one of its frames is in the runtime's sources or
/// functions (reports are symbolized with the debug info of `-g`).
fn involves_runtime(report: &str) -> bool {
    report.contains("runtime-lib/src/")
        || report.contains(" in syncmut_")
        || report.contains(" in syncmut::")
}

/// Every example with checked-in results (`examples/*/*/expected.json`), in order.
fn examples() -> Vec<String> {
    let mut found: Vec<String> = ["systemc", "pthread"]
        .iter()
        .flat_map(|kind| {
            std::fs::read_dir(root().join("examples").join(kind))
                .unwrap()
                .flatten()
                .map(move |e| format!("{kind}/{}", e.file_name().to_string_lossy()))
        })
        .filter(|name| util::example(name).join("expected.json").is_file())
        .collect();
    found.sort();
    assert!(
        found.len() >= 14,
        "examples with expected results: {found:?}"
    );
    found
}

/// The command-line arguments of the example's first checked-in test, if it has any.
fn first_test_args(dir: &Path) -> Vec<String> {
    let Ok(text) = std::fs::read(dir.join("tests.json")) else {
        return Vec::new();
    };
    let tests: Value = serde_json::from_slice(&text).unwrap();
    tests["tests"][0]["args"]
        .as_array()
        .map(|a| a.iter().map(|v| v.as_str().unwrap().to_string()).collect())
        .unwrap_or_default()
}

/// The reports written under `logs`: (file, text).
fn reports(logs: &Path) -> Vec<(PathBuf, String)> {
    let mut found: Vec<(PathBuf, String)> = std::fs::read_dir(logs)
        .unwrap()
        .flatten()
        .map(|e| {
            (
                e.path(),
                std::fs::read_to_string(e.path()).unwrap_or_default(),
            )
        })
        .collect();
    found.sort();
    found
}

/// Fails on any sanitizer report under `logs` that involves the runtime; prints them all.
fn assert_no_runtime_reports(logs: &Path) {
    let all = reports(logs);
    for (file, text) in &all {
        eprintln!("sanitizer report {}:\n{text}", file.display());
    }
    let runtime: Vec<&PathBuf> = all
        .iter()
        .filter(|(_, text)| involves_runtime(text))
        .map(|(file, _)| file)
        .collect();
    assert!(
        runtime.is_empty(),
        "sanitizer reports involving the runtime: {runtime:?}"
    );
}

/// Every mutant of a fixture that calls every wrapper of its kind, sanitized.
fn every_wrapper(design: &str) {
    let logs = tempfile::tempdir().unwrap();
    let fixtures = util::fixture("sanitize");
    let tests = fixtures.join("tests.json");
    let out = tempfile::tempdir().unwrap();
    sanitized_run(
        &fixtures.join(design),
        &["--gen", "none", "--tests", tests.to_str().unwrap()],
        out.path(),
        logs.path(),
    );
    let baseline: Value =
        serde_json::from_slice(&std::fs::read(out.path().join("baseline.json")).unwrap()).unwrap();
    assert!(
        baseline
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["usable"] == true),
        "{design}: {baseline}"
    );
    let outcomes = util::outcomes(out.path());
    let errors: Vec<&Value> = outcomes["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["verdict"] == "error")
        .collect();
    assert!(errors.is_empty(), "{design}: {errors:?}");
    if design.ends_with(".c") {
        spoiled_runtime_inputs(&out.path().join("metamutant"), logs.path());
    }
    assert_no_runtime_reports(logs.path());
}

#[test]
fn every_pthread_wrapper_is_clean_under_asan_and_ubsan() {
    every_wrapper("every_pthread_call.c");
}

#[test]
fn every_systemc_wrapper_is_clean_under_asan_and_ubsan() {
    every_wrapper("every_systemc_call.cpp");
}

/// Whether LeakSanitizer itself failed in some run: its tracer crashed ("Tracer caught
/// signal 11 … LeakSanitizer has encountered a fatal error"), seen on one kernel at the
/// exit of a SystemC process whose coroutines were still blocked (a deadlocked test).
/// That is the tool failing, not a finding, and it changes the exit status the
/// baseline compares.
fn leak_checker_failed(logs: &Path) -> bool {
    reports(logs)
        .iter()
        .any(|(_, text)| text.contains("LeakSanitizer has encountered a fatal error"))
}

/// Every mutant of an example, sanitized: clean, and the checked-in verdicts. Where
/// LeakSanitizer cannot run on this machine, the verdicts are compared with it off
/// (AddressSanitizer and UBSan still on), and the test says so.
fn full_example(name: &str) {
    let dir = util::example(name);
    let mut logs = tempfile::tempdir().unwrap();
    let mut out = tempfile::tempdir().unwrap();
    sanitized_run(&dir, &[], out.path(), logs.path());
    if leak_checker_failed(logs.path()) {
        eprintln!("{name}: LeakSanitizer failed on this machine; verdicts compared without it");
        logs = tempfile::tempdir().unwrap();
        out = tempfile::tempdir().unwrap();
        sanitized_run_with(&dir, &[], out.path(), logs.path(), false);
    }
    assert_eq!(
        util::verdicts(out.path()),
        util::expected(&dir),
        "{name}: the sanitized runtime changed the verdicts"
    );
    assert_no_runtime_reports(logs.path());
}

#[test]
fn a_systemc_example_keeps_its_verdicts_under_the_sanitizers() {
    full_example(FULL[0]);
}

#[test]
fn a_pthread_example_with_inputs_keeps_its_verdicts_under_the_sanitizers() {
    full_example(FULL[1]);
}

#[test]
fn every_other_example_runs_clean_under_the_sanitizers() {
    let logs = tempfile::tempdir().unwrap();
    for name in examples()
        .into_iter()
        .filter(|name| !FULL.contains(&name.as_str()))
    {
        let dir = util::example(&name);
        let out = tempfile::tempdir().unwrap();
        sanitized("mutate", &dir, logs.path())
            .arg("-o")
            .arg(out.path())
            .assert()
            .success();
        assert_sanitized_build(out.path());
        let mut metamutant = assert_cmd::Command::new(out.path().join("metamutant"));
        metamutant.args(first_test_args(&dir));
        sanitizer_logs(&mut metamutant, logs.path());
        // Whatever the design's own exit status: it must end, not die of a signal;
        // any report is judged below.
        let status = metamutant
            .timeout(std::time::Duration::from_secs(60))
            .output()
            .unwrap()
            .status;
        assert!(
            status.code().is_some(),
            "{name}: the sanitized metamutant ended with {status:?}"
        );
    }
    assert_no_runtime_reports(logs.path());
}

/// Runs the sanitized pthread metamutant with spoiled runtime inputs.
fn spoiled_runtime_inputs(metamutant: &Path, logs: &Path) {
    let work = tempfile::tempdir().unwrap();
    let recorded = work.path().join("recorded.schedule");
    let status = std::process::Command::new(metamutant)
        .env("SYNCMUT_SCHEDULE", "random:3")
        .env("SYNCMUT_SCHEDULE_OUT", &recorded)
        .env("ASAN_OPTIONS", format!("log_path={}/asan", logs.display()))
        .output()
        .unwrap();
    assert!(status.status.success(), "{status:?}");
    let schedule = std::fs::read(&recorded).unwrap();
    let replay = work.path().join("replay.schedule");
    let text = |values: &'static [&'static str]| prop::sample::select(values);
    let strategy = (
        text(&[
            "",
            "0:remove",
            "3:remove",
            "-1:remove",
            "4294967296:remove",
            "0:",
            ":remove",
            "0:nonsense",
            "3:lock-to-trylock,4:remove",
            "1:x1:x1:x1:x",
        ]),
        text(&[
            "default",
            "random:",
            "random:-1",
            "random:99999999999999999999999",
            "pct:1",
            "pct:1:0",
            "pct:1:99999999",
            "pct::",
            "replay:",
            "replay:/nonexistent",
            "dfs",
            // A spoiled replay file, most often: the parser with the most to get wrong.
            "replay:SPOILED",
            "replay:SPOILED",
            "replay:SPOILED",
            "replay:SPOILED",
            "replay:SPOILED",
            "replay:SPOILED",
        ]),
        text(&["", "0", "-1", "1", "99999999999999999999999", "x"]),
        text(&["", "/nonexistent/dir/trace.jsonl", "TRACE"]),
        prop::collection::vec(
            (
                any::<prop::sample::Index>(),
                0usize..30,
                text(&[
                    "",
                    "-1",
                    "99999999999",
                    "\n",
                    " ",
                    "x",
                    "\u{ff}",
                    "#",
                    ":::",
                ]),
            ),
            0..5,
        ),
    );
    let config = Config {
        cases: 64,
        rng_seed: RngSeed::Fixed(20_260_502),
        failure_persistence: None,
        ..Config::default()
    };
    TestRunner::new(config)
        .run(&strategy, |(active, sched, steps, trace, edits)| {
            let mut spoiled = schedule.clone();
            for (at, cut, insert) in edits {
                let i = at.index(spoiled.len() + 1);
                let end = (i + cut).min(spoiled.len());
                spoiled.splice(i..end, insert.bytes());
            }
            std::fs::write(&replay, &spoiled).unwrap();
            let sched = sched.replace("SPOILED", replay.to_str().unwrap());
            let trace = trace.replace("TRACE", work.path().join("t.jsonl").to_str().unwrap());
            let out = std::process::Command::new(metamutant)
                .env("SYNCMUT_ACTIVE", active)
                .env("SYNCMUT_SCHEDULE", &sched)
                .env("SYNCMUT_MAX_STEPS", steps)
                .env("SYNCMUT_TRACE", trace)
                .env("ASAN_OPTIONS", format!("log_path={}/asan", logs.display()))
                .env(
                    "UBSAN_OPTIONS",
                    format!("log_path={}/ubsan:print_stacktrace=1", logs.display()),
                )
                .output()
                .unwrap();
            // Refused (120), ran (0), or stopped as a deadlock/livelock by a spoiled
            // replay or budget (121, 122): never a crash.
            prop_assert!(
                matches!(out.status.code(), Some(0 | 120 | 121 | 122)),
                "{active:?} {sched:?} {steps:?}: {:?}\n{}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            );
            Ok(())
        })
        .unwrap();
}

#[test]
fn reports_are_attributed_to_the_runtime_by_their_frames() {
    let ours = "==1==ERROR: AddressSanitizer: heap-buffer-overflow\n    #0 0x55 in syncmut_trace_event /w/runtime-lib/src/trace.c:120:5\n";
    let theirs = "==1==ERROR: LeakSanitizer: detected memory leaks\n    #0 0x55 in malloc\n    #1 0x56 in sc_core::sc_simcontext::init()\n";
    assert!(involves_runtime(ours));
    assert!(!involves_runtime(theirs));
}
