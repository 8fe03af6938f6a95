//! Real designs that do not fit a plain run: a clocked SystemC design that never stops
//! by itself (bounded by `sim_time`, `run --sim-time`). Fixtures under
//! tests/fixtures/designs/.

mod util;

use std::path::Path;
use util::fixture;

/// `syncmut run --gen none` of a fixture with `extra` flags: its exit code, stdout and
/// stderr.
fn run(design: &Path, out: &Path, extra: &[&str]) -> (i32, String, String) {
    let output = util::syncmut()
        .args(["run", "--gen", "none", "-j", "2", "-o"])
        .arg(out)
        .args(extra)
        .arg(design)
        .output()
        .unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn baseline(out: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(out.join("baseline.json")).unwrap()).unwrap()
}

/// The clocked design's `sc_start()` never returns by itself; its test's `sim_time`
/// stops the simulation at 100 ns, sc_main ends normally, and the mutants are judged.
#[test]
fn a_clocked_design_that_never_stops_runs_under_its_tests_sim_time() {
    let out = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = run(&fixture("designs/clocked"), out.path(), &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let baseline = baseline(out.path());
    assert_eq!(baseline[0]["test"], "ticks");
    assert_eq!(baseline[0]["usable"], true, "{baseline}");
    assert_eq!(
        baseline[0]["status"],
        serde_json::json!({"kind": "exited", "value": 0}),
        "{baseline}"
    );
    // Both executables stop at the bound and sc_main goes on: the uninstrumented original
    // too (the baseline compares them).
    for exe in ["original", "metamutant"] {
        let ran = std::process::Command::new(out.path().join(exe))
            .env("SYNCMUT_SIM_UNTIL", "100")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&ran.stdout);
        assert!(ran.status.success(), "{exe}: {text}");
        assert!(text.contains("90 ns: count 10\n"), "{exe}: {text}");
        assert!(text.ends_with("stopped at 100 ns\n"), "{exe}: {text}");
    }
    let outcomes = util::outcomes(out.path());
    assert!(
        outcomes["score"]["mutants"].as_u64().unwrap() > 0,
        "{outcomes}"
    );
    assert!(
        outcomes["score"]["killed"].as_u64().unwrap() > 0,
        "{outcomes}"
    );
    assert!(stdout.contains("ticks"), "{stdout}");
}

/// `--sim-time` bounds the tests without their own `sim_time`.
#[test]
fn run_sim_time_bounds_tests_without_their_own() {
    let dir = tempfile::tempdir().unwrap();
    let tests = dir.path().join("tests.json");
    std::fs::write(&tests, r#"{"tests":[{"name":"unbounded"}]}"#).unwrap();
    let out = dir.path().join("out");
    let design = fixture("designs/clocked/clocked.cpp");
    let (code, stdout, stderr) = run(
        &design,
        &out,
        &["--tests", tests.to_str().unwrap(), "--sim-time", "50 ns"],
    );
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let baseline = baseline(&out);
    assert_eq!(baseline[0]["usable"], true, "{baseline}");
    // A malformed time is refused before anything runs.
    let (code, _, stderr) = run(&design, &out, &["--sim-time", "soon"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("sim_time \"soon\""), "{stderr}");
}
