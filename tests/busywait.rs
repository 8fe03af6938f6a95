//! `syncmut explore` on busy-waiting code (tests/corpus/busywait): correct mutual
//! exclusion algorithms that spin are never reported, by any strategy at either
//! interleave setting (the scheduler is fair, and a sync-level spin past the timeout is
//! explored again at memory level); each broken twin's violation is found; real
//! livelocks still are; and a bug that needs one nondet value is found with the value
//! drawn alongside the schedule, and replays.

mod util;

use std::path::{Path, PathBuf};

fn corpus(name: &str) -> PathBuf {
    util::root()
        .join("tests/corpus/busywait")
        .join(format!("{name}.c"))
}

/// `syncmut explore` on a corpus program: (exit code, stdout).
fn explore(name: &str, out: &Path, args: &[&str]) -> (i32, String) {
    let output = util::syncmut()
        .arg("explore")
        .arg(corpus(name))
        .arg("-o")
        .arg(out)
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    (
        output.status.code().unwrap_or(-1),
        format!("{stdout}\n{stderr}"),
    )
}

/// The default mix (whose 30 runs pass through every phase) at both interleave settings,
/// and each strategy alone (random, pct, round-robin, holdback) at memory level, 30
/// schedules each: no report. Before the scheduler was fair, pct reported every one of
/// the memory-level algorithms as a livelock within 3 runs. The strategies alone are not
/// repeated at sync level: a program that spins without a synchronization call is
/// explored at memory level either way.
fn never_reported(name: &str) {
    let dir = tempfile::tempdir().unwrap();
    let runs = [("sync", None), ("memory", None)]
        .into_iter()
        .chain(["random", "pct", "rr", "holdback"].map(|s| ("memory", Some(s))));
    for (interleave, strategy) in runs {
        // The default timeout (10 s): a shorter one can expire on a loaded machine
        // and would be reported as a hang at memory level.
        let mut args = vec!["--schedules", "30", "--interleave", interleave];
        if let Some(s) = strategy {
            args.extend(["--strategy", s]);
        }
        let (code, text) = explore(
            name,
            &dir.path()
                .join(format!("{interleave}-{}", strategy.unwrap_or("default"))),
            &args,
        );
        assert_eq!(
            code, 0,
            "{name}, {strategy:?} at {interleave}: a false alarm\n{text}"
        );
        assert!(text.contains("no bug found"), "{name}: {text}");
    }
}

/// Synchronizes with a mutex too, so sync level is not skipped: the consumer's spin has
/// no scheduling point there, the first run hangs, and explore starts again at memory
/// level, where it is fair.
#[test]
fn flag_handoff_is_never_reported_and_says_why_it_left_sync_level() {
    never_reported("flag_handoff");
    let dir = tempfile::tempdir().unwrap();
    let (_, text) = explore(
        "flag_handoff",
        dir.path(),
        &["--schedules", "5", "--timeout", "2"],
    );
    assert!(
        text.contains("did not end within the timeout at sync level")
            && text.contains("exploring again at memory level"),
        "{text}"
    );
}

/// Each broken twin's mutual exclusion violation, found by seeded random search.
#[test]
fn every_broken_twin_is_found_as_an_assertion() {
    let dir = tempfile::tempdir().unwrap();
    for name in [
        "peterson_bad",
        "dekker_bad",
        "bakery_bad",
        "szymanski_bad",
        "ticket_lock_bad",
        "flag_handoff_bad",
    ] {
        let out = dir.path().join(name);
        let (code, text) = explore(
            name,
            &out,
            &[
                "--strategy",
                "random",
                "--schedules",
                "500",
                "--timeout",
                "2",
            ],
        );
        assert_eq!(code, 9, "{name} not found\n{text}");
        assert!(text.contains("BUG assertion failure"), "{name}: {text}");
        // The saved counterexample replays to the same trace.
        util::syncmut().arg("replay").arg(&out).assert().success();
    }
}

/// Livelocks of the program itself persist under fair scheduling and are reported by
/// every strategy: two threads that keep writing while each waits for the other, and a
/// spin on a flag nobody sets.
#[test]
fn real_livelocks_are_still_reported() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["polite_livelock", "lost_flag"] {
        for strategy in ["dfs", "random", "pct"] {
            // A generous timeout: the step budget (100,000 points, a tenth of the default:
            // a second when every point switches threads) ends the run first even on a
            // loaded machine.
            let (code, text) = explore(
                name,
                &dir.path().join(format!("{name}-{strategy}")),
                &[
                    "--strategy",
                    strategy,
                    "--schedules",
                    "5",
                    "--max-steps",
                    "100000",
                    "--timeout",
                    "120",
                ],
            );
            assert_eq!(code, 9, "{name} under {strategy}\n{text}");
            assert!(
                text.contains("BUG livelock"),
                "{name} under {strategy}: {text}"
            );
        }
    }
}

/// The bug needs `__VERIFIER_nondet_int()` to return 7 and a preemption between two
/// reads: with every value 0 (as before inputs were drawn) no schedule shows it.
#[test]
fn a_bug_needing_one_nondet_value_is_found_and_replays_with_its_values() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("found");
    let (code, text) = explore(
        "nondet_handoff",
        &out,
        &["--strategy", "random", "--schedules", "400"],
    );
    assert_eq!(code, 9, "{text}");
    assert!(
        text.contains("__VERIFIER_nondet_* returned 7 in call order")
            && text.contains("SYNCMUT_NONDET=7 "),
        "{text}"
    );
    let saved: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("counterexample.json")).unwrap()).unwrap();
    assert_eq!(saved["nondet"], serde_json::json!([7]));
    assert!(saved["nondet_seed"].as_u64().is_some(), "{saved}");
    util::syncmut().arg("replay").arg(&out).assert().success();
    // The same search gives the same run and values (seeds are fixed).
    let (_, again) = explore(
        "nondet_handoff",
        &dir.path().join("again"),
        &["--strategy", "random", "--schedules", "400"],
    );
    let line = |t: &str| {
        t.lines()
            .find(|l| l.starts_with("found by run"))
            .map(str::to_string)
    };
    assert_eq!(line(&text), line(&again));
}

/// `syncmut explore` on a program of tests/fixtures/explore: (exit code, stdout+stderr).
fn explore_fixture(name: &str, out: &Path, args: &[&str]) -> (i32, String) {
    let output = util::syncmut()
        .arg("explore")
        .arg(util::fixture(&format!("explore/{name}.c")))
        .arg("-o")
        .arg(out)
        .args(args)
        .output()
        .unwrap();
    (
        output.status.code().unwrap_or(-1),
        format!(
            "{}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ),
    )
}

/// A run past the step budget is a livelock only if a state came back: a subtractive gcd
/// that takes hundreds of millions of turns and then ends is a long run, cut there and
/// noted, not a bug.
#[test]
fn a_long_terminating_loop_is_not_a_livelock() {
    let dir = tempfile::tempdir().unwrap();
    let (code, text) = explore_fixture(
        "long_gcd",
        &dir.path().join("out"),
        &[
            "--strategy",
            "random",
            "--schedules",
            "3",
            "--max-steps",
            "20000",
        ],
    );
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("run(s) passed the step budget (--max-steps) without repeating a state")
            && !text.contains("BUG livelock"),
        "{text}"
    );
}

/// Long runs do not end the search: the runs whose input is not 3 pass the budget and are
/// noted, and the search goes on until it draws the 3 and finds the assertion.
#[test]
fn long_runs_do_not_stop_the_search_for_the_bug() {
    let dir = tempfile::tempdir().unwrap();
    let (code, text) = explore_fixture(
        "long_unless_three",
        &dir.path().join("out"),
        &[
            "--strategy",
            "random",
            "--schedules",
            "100",
            "--max-steps",
            "20000",
        ],
    );
    assert_eq!(code, 9, "{text}");
    assert!(text.contains("BUG assertion failure"), "{text}");
    assert!(
        text.contains("passed the step budget (--max-steps) without repeating a state"),
        "{text}"
    );
}

/// A spin with x86's pause hint on an atomic list head, in a program that also locks: the
/// hint is a scheduling point (a yield), so the workers run at sync level and the search
/// ends without the run that hangs until its timeout and sends explore to memory level.
#[test]
fn a_pause_spin_yields_at_sync_level() {
    let dir = tempfile::tempdir().unwrap();
    let (code, text) = explore_fixture(
        "pause_spin",
        &dir.path().join("out"),
        &["--schedules", "30", "--timeout", "3"],
    );
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("no bug found") && !text.contains("did not end within the timeout"),
        "{text}"
    );
}
