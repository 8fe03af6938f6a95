//! Real designs that do not fit a plain run: a clocked SystemC design that never stops
//! by itself (bounded by `sim_time`, `run --sim-time`), one that reads data files its
//! test does not copy (the baseline says so), and pthread programs that wait without a
//! synchronization object: polling with `usleep`, spinning with `sched_yield`, spinning
//! on plain memory. Fixtures under tests/fixtures/designs/.

mod util;

use std::path::{Path, PathBuf};
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

/// Without any bound the clocked design's original times out; `run` probes how far it
/// simulates, runs its test to that bound, says so, and scores it. A bad `--timeout` is
/// refused.
#[test]
fn an_unbounded_clocked_design_gets_a_bound_from_a_probe() {
    let dir = tempfile::tempdir().unwrap();
    let tests = dir.path().join("tests.json");
    std::fs::write(&tests, r#"{"tests":[{"name":"forever"}]}"#).unwrap();
    let out = dir.path().join("out");
    let design = fixture("designs/clocked/clocked.cpp");
    let (code, stdout, stderr) = run(
        &design,
        &out,
        &["--tests", tests.to_str().unwrap(), "--timeout", "3"],
    );
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(
        stderr.contains("the original did not finish on forever by itself")
            && stderr.contains("of simulated time, which it reached in 0.3 s when probed"),
        "{stderr}"
    );
    assert_eq!(baseline(&out)[0]["usable"], true);
    let ran: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("tests.json")).unwrap()).unwrap();
    let bound = ran["tests"][0]["sim_time"].as_str().unwrap();
    assert!(
        ["1 us", "10 us", "100 us", "1 ms", "10 ms", "100 ms", "1 s"].contains(&bound),
        "{ran}"
    );
    assert!(stdout.contains("mutation score"), "{stdout}");
    let (code, _, stderr) = run(&design, &out, &["--timeout", "0"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("timeout must be between"), "{stderr}");
}

/// A design that reads data files from its working directory gets none unless its test
/// lists them under `files`: when its original crashes or fails, the baseline says the
/// design's directory has data files the run did not get, and names them.
#[test]
fn a_failing_original_is_told_about_the_data_files_the_run_did_not_get() {
    let out = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = run(&fixture("designs/reads_data"), out.path(), &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let baseline = baseline(out.path());
    let hint = "the design's directory has data files the run did not get (bios.img, icache.img, in_real): if the design reads them, list them under \"files\" in tests.json";
    // Crashes without its image: set aside, the reason says why it may have.
    assert_eq!(baseline[0]["usable"], false, "{baseline}");
    let reason = baseline[0]["set_aside_because"].as_str().unwrap();
    assert!(
        reason.starts_with("the original crashed") && reason.contains(hint),
        "{reason}"
    );
    // Exits 1: usable, flagged, with the same hint.
    assert_eq!(baseline[1]["usable"], true, "{baseline}");
    assert!(
        baseline[1]["hint"].as_str().unwrap().starts_with(hint),
        "{baseline}"
    );
    let fails = stdout
        .lines()
        .find(|l| l.starts_with("fails "))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(fails.contains(hint), "{stdout}");
    // Given its image, it runs: nothing to say.
    assert_eq!(baseline[2]["usable"], true, "{baseline}");
    assert!(baseline[2].get("hint").is_none(), "{baseline}");
}

/// A pool test that waits by polling a counter with `usleep`: under the controlled
/// scheduler a sleep is a scheduling point, so the workers run while the test sleeps.
/// Scored with no flags. And a sleep there takes no real time: tasks that each sleep an
/// hour finish at once.
#[test]
fn a_pool_test_polling_with_usleep_runs_and_its_sleeps_take_no_real_time() {
    let dir = tempfile::tempdir().unwrap();
    let tests = dir.path().join("tests.json");
    std::fs::write(
        &tests,
        r#"{"tests":[{"name":"twelve","args":["12"]},{"name":"slow-tasks","args":["6","20"]}]}"#,
    )
    .unwrap();
    let out = dir.path().join("out");
    let (code, stdout, stderr) = run(
        &fixture("designs/polling_pool/pool.c"),
        &out,
        &["--tests", tests.to_str().unwrap()],
    );
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let baseline = baseline(&out);
    for test in baseline.as_array().unwrap() {
        assert_eq!(test["usable"], true, "{baseline}");
        assert_eq!(
            test["status"],
            serde_json::json!({"kind": "exited", "value": 0}),
            "{baseline}"
        );
    }
    let outcomes = util::outcomes(&out);
    assert!(
        outcomes["score"]["killed"].as_u64().unwrap() > 0,
        "{outcomes}"
    );
    // The metamutant with no mutant, under the scheduler: the hour of virtual sleep is
    // on its clock, not on the wall's.
    let ran = std::process::Command::new(out.join("metamutant"))
        .args(["3", "3600000"])
        .env("SYNCMUT_SCHEDULE", "default")
        .output()
        .unwrap();
    assert!(ran.status.success(), "{ran:?}");
    assert_eq!(
        String::from_utf8_lossy(&ran.stdout),
        "3 tasks, sum of squares 14\n"
    );
}

/// A consumer spinning on an atomic flag with `sched_yield` between looks: the yield is
/// a scheduling point, so the producer runs and the test is usable.
#[test]
fn a_spin_with_sched_yield_lets_the_thread_it_waits_for_run() {
    let out = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = run(&fixture("designs/yield_spin"), out.path(), &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let baseline = baseline(out.path());
    assert_eq!(baseline[0]["usable"], true, "{baseline}");
    assert!(stdout.contains("mutation score"), "{stdout}");
    // `explore` searches it without calling the spin a hang.
    let explored = util::syncmut()
        .arg("explore")
        .arg(fixture("designs/yield_spin/flag.c"))
        .arg("-o")
        .arg(out.path().join("explore"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&explored.stdout);
    assert_eq!(explored.status.code(), Some(0), "{text}");
    assert!(text.contains("no bug found"), "{text}");
}

/// A start-up gate spinning on a plain counter (no call in the loop) keeps the one turn
/// at sync level; the baseline sees the spin (the original timed out while one thread
/// ran outside any synchronization call and others waited) and the run is built again at
/// memory level, where it scores.
#[test]
fn a_start_up_spin_on_plain_memory_moves_the_run_to_memory_level() {
    let out = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = run(
        &fixture("designs/spin_start"),
        out.path(),
        &["--timeout", "4"],
    );
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(
        stderr.contains("building again at memory level"),
        "{stderr}"
    );
    assert_eq!(baseline(out.path())[0]["usable"], true);
    assert_eq!(interleave(out.path()), "memory");
    assert!(stdout.contains("mutation score"), "{stdout}");
}

/// The interleaving the metamutant in a run (or generation) directory was built with.
fn interleave(out: &Path) -> serde_json::Value {
    let catalogue: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("mutants.json")).unwrap()).unwrap();
    catalogue["interleave"].clone()
}

/// `syncmut COMMAND ARGS -o OUT gate.c` on a copy of the spin fixture's design without
/// its tests.json, so generation starts from the design's default invocation: the
/// temporary directory, OUT, and the exit code, stdout and stderr.
fn spin_gate_alone(
    command: &str,
    args: &[&str],
) -> (tempfile::TempDir, PathBuf, i32, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let design = dir.path().join("gate.c");
    std::fs::copy(fixture("designs/spin_start").join("gate.c"), &design).unwrap();
    let out = dir.path().join("out");
    let output = util::syncmut()
        .arg(command)
        .args(args)
        .arg("-o")
        .arg(&out)
        .arg(&design)
        .output()
        .unwrap();
    (
        dir,
        out,
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// The same start-up spin without tests: generation's first run, the design's default
/// invocation, spins at sync level, so the run is built at memory level before any test
/// is generated, and generation there keeps that invocation as a test. Neither the
/// fallback to the default invocation nor a baseline at sync level runs (each would
/// spin until its timeout again).
#[test]
fn a_start_up_spin_seen_by_generation_builds_at_memory_level_before_generating() {
    let (_dir, out, code, stdout, stderr) = spin_gate_alone("run", &["-j", "2", "--timeout", "4"]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(
        stderr.contains("did not finish at sync level on generation's first runs")
            && stderr.contains("before generating tests"),
        "{stderr}"
    );
    assert_eq!(
        stderr.matches("building again at memory level").count(),
        1,
        "{stderr}"
    );
    assert!(
        !stderr.contains("generation kept no usable test"),
        "{stderr}"
    );
    assert_eq!(interleave(&out), "memory");
    assert_eq!(baseline(&out)[0]["usable"], true);
    assert!(stdout.contains("mutation score"), "{stdout}");
}

/// `syncmut gen` alone does the same: its default invocation spins at sync level, so it
/// generates at memory level, where that invocation is a usable test (at sync level it
/// kept none, every site unknown).
#[test]
fn gen_alone_generates_at_memory_level_when_the_default_invocation_spins() {
    let (_dir, out, code, stdout, stderr) = spin_gate_alone("gen", &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(
        stderr.contains("building again at memory level") && stderr.contains("generating there"),
        "{stderr}"
    );
    assert!(
        stdout.contains("reach rate: 5 of 5 sites not proven unreachable (100%)"),
        "{stdout}"
    );
    assert_eq!(interleave(&out), "memory");
}

/// An original that stops with its own error message before any thread starts: the
/// baseline shows the message, no mutant runs, and the run prints no score and exits 7
/// (a 0% score would blame the tests for the design's configuration).
#[test]
fn an_original_failing_at_once_shows_its_stderr_and_gets_no_score() {
    let out = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = run(&fixture("designs/fails_at_once"), out.path(), &[]);
    assert_eq!(code, 7, "{stdout}\n{stderr}");
    assert!(
        stdout.contains("its stderr: Error: (E101) clock period is zero"),
        "{stdout}"
    );
    assert!(
        !stdout.lines().any(|l| l.starts_with("mutation score")),
        "{stdout}"
    );
    assert!(stdout.contains("\nno mutation score: "), "{stdout}");
    assert_eq!(
        baseline(out.path())[0]["stderr_head"],
        "Error: (E101) clock period is zero: give a positive period"
    );
}

/// A pool that prints each result as its task completes (the order is the workers') with
/// the time each took: its test compares the sorted lines with the durations masked, so
/// a mutant that only changes which worker finishes first (a signal made a broadcast)
/// is not killed by the order, and a reason quotes the lines as compared. Without its
/// predicate wait a worker can leave tasks undone, but only in runs that preempt more
/// often than the original's search covers: a difference seen, not proven, so the
/// mutant survives the controlled schedules and its reason says so. (With real threads
/// it leaves tasks undone now and then, which kills it by default; this test judges the
/// controlled schedules alone.)
#[test]
fn a_test_can_compare_sorted_lines_with_masked_parts() {
    let out = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = run(
        &fixture("designs/completion_order"),
        out.path(),
        &["--native", "0"],
    );
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert_eq!(baseline(out.path())[0]["usable"], true);
    let outcomes = util::outcomes(out.path());
    let verdict = |id: &str| util::outcome(&outcomes, id).clone();
    assert_eq!(
        verdict("Pool::submit#3:signal-to-broadcast")["verdict"],
        "survived"
    );
    let dropped = verdict("Pool::work#2:remove");
    assert_eq!(dropped["verdict"], "survived", "{dropped}");
    let reason = dropped["reason"].as_str().unwrap();
    assert!(
        reason.contains("! = ") && reason.contains('…') && !reason.contains(" us)"),
        "{reason}"
    );
    assert!(
        reason.contains("not proven against the original"),
        "{reason}"
    );
}
