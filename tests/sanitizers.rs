//! The runtime library under AddressSanitizer and UndefinedBehaviorSanitizer
//! (`SYNCMUT_SANITIZE=1`): every mutant of two fixtures that call every wrapper the
//! runtime has (pthread and SystemC), and two examples, run with the sanitized runtime;
//! any sanitizer report that involves the runtime fails the test. The examples must also
//! give exactly their checked-in verdicts, so the sanitized build behaves like the plain
//! one.

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `syncmut run` with the sanitized runtime; reports go to files under `logs`.
fn sanitized_run(design: &Path, extra: &[&str], out: &Path, logs: &Path) {
    let symbolizer = ["/usr/lib/llvm-16/bin/llvm-symbolizer", "/usr/bin/llvm-symbolizer-16"]
        .into_iter()
        .find(|p| Path::new(p).is_file())
        .expect("llvm-symbolizer of LLVM 16 (package llvm-16), to name the frames of a report");
    Command::cargo_bin("syncmut")
        .unwrap()
        .arg("run")
        .arg(design)
        .args(extra)
        .args(["-j", "2", "-o"])
        .arg(out)
        .env("SYNCMUT_SANITIZE", "1")
        .env("ASAN_OPTIONS", format!("log_path={}/asan:detect_leaks=1", logs.display()))
        .env("UBSAN_OPTIONS", format!("log_path={}/ubsan:print_stacktrace=1", logs.display()))
        .env("ASAN_SYMBOLIZER_PATH", symbolizer)
        .timeout(std::time::Duration::from_secs(300))
        .assert()
        .success();
    // The runtime linked in is the instrumented one (both archives: C and SystemC).
    for name in ["libsyncmut_rt.a", "libsyncmut_rt_sc.a"] {
        let archive = std::fs::read(out.join("build/runtime").join(name)).unwrap();
        assert!(contains(&archive, b"__asan_report_load") && contains(&archive, b"__ubsan_handle_"), "{}: {name} is not instrumented", out.display());
    }
    let metamutant = std::fs::read(out.join("metamutant")).unwrap();
    assert!(contains(&metamutant, b"AddressSanitizer"), "the metamutant was not linked with the sanitizers");
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// A report involves the runtime when one of its frames is in the runtime's sources or
/// functions (reports are symbolized with the debug info of `-g`).
fn involves_runtime(report: &str) -> bool {
    report.contains("runtime-lib/src/") || report.contains(" in syncmut_") || report.contains(" in syncmut::")
}

/// The reports written under `logs`: (file, text).
fn reports(logs: &Path) -> Vec<(PathBuf, String)> {
    let mut found: Vec<(PathBuf, String)> = std::fs::read_dir(logs)
        .unwrap()
        .flatten()
        .map(|e| (e.path(), std::fs::read_to_string(e.path()).unwrap_or_default()))
        .collect();
    found.sort();
    found
}

fn verdicts(out: &Path) -> Value {
    let outcomes: Value = serde_json::from_slice(&std::fs::read(out.join("outcomes.json")).unwrap()).unwrap();
    let verdicts: serde_json::Map<String, Value> = outcomes["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["mutant"].as_str().unwrap().to_string(), m["verdict"].clone()))
        .collect();
    serde_json::json!({ "verdicts": verdicts, "killed": outcomes["score"]["killed"], "mutants": outcomes["score"]["mutants"] })
}

#[test]
fn the_runtime_is_clean_under_asan_and_ubsan() {
    let logs = tempfile::tempdir().unwrap();
    let fixtures = root().join("tests/fixtures/sanitize");
    let tests = fixtures.join("tests.json");
    for design in ["every_pthread_call.c", "every_systemc_call.cpp"] {
        let out = tempfile::tempdir().unwrap();
        sanitized_run(&fixtures.join(design), &["--gen", "none", "--tests", tests.to_str().unwrap()], out.path(), logs.path());
        let baseline: Value = serde_json::from_slice(&std::fs::read(out.path().join("baseline.json")).unwrap()).unwrap();
        assert!(baseline.as_array().unwrap().iter().all(|t| t["usable"] == true), "{design}: {baseline}");
        let outcomes: Value = serde_json::from_slice(&std::fs::read(out.path().join("outcomes.json")).unwrap()).unwrap();
        let errors: Vec<&Value> = outcomes["mutants"].as_array().unwrap().iter().filter(|m| m["verdict"] == "error").collect();
        assert!(errors.is_empty(), "{design}: {errors:?}");
    }
    for example in ["systemc/guarded_event", "pthread/narrow_guard"] {
        let out = tempfile::tempdir().unwrap();
        let dir = root().join("examples").join(example);
        sanitized_run(&dir, &[], out.path(), logs.path());
        let expected: Value = serde_json::from_slice(&std::fs::read(dir.join("expected.json")).unwrap()).unwrap();
        assert_eq!(verdicts(out.path()), expected, "{example}: the sanitized runtime changed the verdicts");
    }
    let all = reports(logs.path());
    for (file, text) in &all {
        eprintln!("sanitizer report {}:\n{text}", file.display());
    }
    let runtime: Vec<&PathBuf> = all.iter().filter(|(_, text)| involves_runtime(text)).map(|(file, _)| file).collect();
    assert!(runtime.is_empty(), "sanitizer reports involving the runtime: {runtime:?}");
}

#[test]
fn reports_are_attributed_to_the_runtime_by_their_frames() {
    let ours = "==1==ERROR: AddressSanitizer: heap-buffer-overflow\n    #0 0x55 in syncmut_trace_event /w/runtime-lib/src/trace.c:120:5\n";
    let theirs = "==1==ERROR: LeakSanitizer: detected memory leaks\n    #0 0x55 in malloc\n    #1 0x56 in sc_core::sc_simcontext::init()\n";
    assert!(involves_runtime(ours));
    assert!(!involves_runtime(theirs));
}
