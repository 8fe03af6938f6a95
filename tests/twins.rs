//! `syncmut explore` on a representative subset of the bad/correct twins
//! (tests/corpus/twins; the `twins` bench runs all of them with every strategy): no
//! correct twin is ever reported, and every bad twin here is found, each with a small
//! budget and the strategy that finds it quickly. Also what SV-COMP-style programs need
//! to build: GNU89 `inline`, the non-integer nondet types, and endless thread creation
//! cut at the thread bound instead of a hang.

mod util;

use util::twins::{self, Expect, Twin, TWINS};

fn twin(path: &str) -> &'static Twin {
    TWINS
        .iter()
        .find(|t| t.path == path)
        .unwrap_or_else(|| panic!("{path} is not a twin"))
}

fn search(path: &str, strategy: Option<&str>, interleave: &str, schedules: usize) -> twins::Search {
    let dir = tempfile::tempdir().unwrap();
    let syncmut = assert_cmd::cargo::cargo_bin("syncmut");
    twins::explore(
        &syncmut,
        &util::root(),
        twin(path),
        strategy,
        interleave,
        schedules,
        &dir.path().join("out"),
    )
}

/// Each pair with the strategy that finds its bad twin: the bad twin is found, and the
/// correct twin, searched the same way, is not reported.
#[test]
fn bad_twins_are_found_and_correct_twins_never_reported() {
    let pairs = [
        // dfs reduces by partial order under its preemption bound (the default), whose
        // conservative backtracking reorders the search: found at run 464 (every schedule,
        // `--por none`: 66).
        ("twins/atomic_acquire", Some("dfs"), 600),
        ("twins/own_atomic_section", Some("dfs"), 60),
        ("twins/lazy_sum", Some("pct"), 40),
        ("twins/thread_ids", Some("dfs"), 60),
        ("twins/bounded_buffer", Some("random"), 150),
        ("twins/phases", Some("random"), 60),
        ("twins/stats_race", Some("dfs"), 30),
    ];
    let mut failures = Vec::new();
    for (pair, strategy, schedules) in pairs {
        // The correct twin's search runs its whole budget: a smaller one keeps the test short.
        for (path, expect, budget) in [
            (pair.to_string(), Expect::Clean, schedules.min(25)),
            (format!("{pair}_bad"), Expect::Bug, schedules),
        ] {
            let s = search(&path, strategy, "sync", budget);
            assert_eq!(twin(&path).expect, expect);
            if !s.as_expected(expect) {
                failures.push(format!(
                    "{path} ({strategy:?}, {budget} schedules): exit {}, expected {expect:?}\n{}",
                    s.code, s.text
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// explore's default mix finds bugs that the former default (dfs, preemption bound 2)
/// missed within 1000 schedules: the strict alternation of ten additions (round-robin,
/// `fib_bench_bad`), a checker created after ten setters running between one setter's
/// two writes (holdback, `reorder_20_bad`), and a nondet guard on a harvested constant
/// (drawn values, `magic_mode_bad`), each with a small budget; each counterexample
/// replays. Their correct twins, searched with 60 runs, are not reported.
#[test]
fn the_default_mix_finds_what_single_strategies_missed() {
    let mut failures = Vec::new();
    for (pair, budget) in [
        ("twins/fib_bench", 60),
        ("twins/reorder_20", 60),
        ("twins/magic_mode", 200),
    ] {
        for (path, expect, budget) in [
            (pair.to_string(), Expect::Clean, 60),
            (format!("{pair}_bad"), Expect::Bug, budget),
        ] {
            let dir = tempfile::tempdir().unwrap();
            let out = dir.path().join("out");
            let s = twins::explore(
                &assert_cmd::cargo::cargo_bin("syncmut"),
                &util::root(),
                twin(&path),
                None,
                "sync",
                budget,
                &out,
            );
            if !s.as_expected(expect) || !s.text.contains("strategy phased") {
                failures.push(format!(
                    "{path} (phased, {budget} schedules): exit {}, expected {expect:?}\n{}",
                    s.code, s.text
                ));
            } else if expect == Expect::Bug {
                util::syncmut()
                    .arg("replay")
                    .arg(&out)
                    .assert()
                    .success()
                    .stdout(predicates::str::contains("reproduced"));
            } else {
                // A clean search says what each phase covered.
                for phase in [
                    "default: 1 run(s)",
                    "round-robin: 15 run(s)",
                    "dfs with deepening preemption bounds",
                ] {
                    if !s.text.contains(phase) {
                        failures.push(format!("{path}: no {phase:?} in\n{}", s.text));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// A main that reads its workers' results without joining them (`unjoined_fib_bad`):
/// only the workers' strict alternation to their end, with main reading after it,
/// fails its check. Round-robin with main in the rotation never gets there (main reads
/// after its first slice); the same quanta with creators last, where a thread waits
/// while one it created can run, find it in their first run. The correct twin survives
/// every round-robin schedule.
#[test]
fn round_robin_with_creators_last_finds_a_check_made_without_joining() {
    // Round-robin's schedules with creators in the rotation: quanta 1 to 8, every phase.
    let plain = (1..=8).sum::<usize>();
    let bad = search("twins/unjoined_fib_bad", Some("rr"), "sync", 2 * plain);
    assert_eq!(bad.code, 9, "{}", bad.text);
    assert_eq!(bad.found_at, Some(plain + 1), "{}", bad.text);
    assert!(bad.text.contains("rr:1:0:creators-last"), "{}", bad.text);
    let ok = search("twins/unjoined_fib", Some("rr"), "sync", 2 * plain);
    assert_eq!(ok.code, 0, "{}", ok.text);
    assert!(
        ok.text.contains("every round-robin schedule was run"),
        "{}",
        ok.text
    );
}

/// The guard `mode == 48611` on a nondet value: the constant is harvested from the
/// program and drawn, so random search meets it within a few dozen runs (before, one
/// draw in 2^32 had it). The counterexample names the value.
#[test]
fn a_guard_on_one_specific_constant_is_found() {
    let s = search("twins/magic_mode_bad", Some("random"), "sync", 100);
    assert_eq!(s.code, 9, "{}", s.text);
    assert!(s.text.contains("returned 48611"), "{}", s.text);
    assert!(s.found_at.is_some_and(|run| run <= 100), "{}", s.text);
    let ok = search("twins/magic_mode", Some("random"), "sync", 30);
    assert_eq!(ok.code, 0, "{}", ok.text);
}

/// A non-static `inline` function without an external definition does not link under
/// C99; the build is retried with GNU89 inline semantics and says so.
#[test]
fn gnu89_inline_sources_build_and_say_how() {
    let s = search("twins/gnu_inline_bad", Some("dfs"), "sync", 50);
    assert_eq!(s.code, 9, "{}", s.text);
    assert!(
        s.text.contains("linking failed on `take_ticket`") && s.text.contains("-fgnu89-inline"),
        "{}",
        s.text
    );
    let ok = search("twins/gnu_inline", Some("dfs"), "sync", 20);
    assert_eq!(ok.code, 0, "{}", ok.text);
}

/// `__VERIFIER_nondet_pointer`, `_float`, `_double` link and run: the bad twin's null
/// handle (the first value, 0) takes the broken path.
#[test]
fn other_nondet_types_link_and_steer_the_program() {
    let s = search("twins/nondet_handles_bad", Some("dfs"), "sync", 60);
    assert_eq!(s.code, 9, "{}", s.text);
    let ok = search("twins/nondet_handles", Some("random"), "sync", 20);
    assert_eq!(ok.code, 0, "{}", ok.text);
}

/// `while (1) pthread_create(...)` has every run cut at the thread bound (64 threads by
/// default): not a hang, and "no bug found" only up to the bound; the bad twin's bug is
/// found below it.
#[test]
fn endless_thread_creation_is_cut_at_the_thread_bound() {
    let s = search("twins/spawn_forever", Some("random"), "sync", 3);
    assert_eq!(s.code, 0, "{}", s.text);
    assert!(
        s.text
            .contains("no bug found with at most 64 threads per run: 3 of 3 run(s)")
            && !s.text.contains("hang"),
        "{}",
        s.text
    );
    let bad = search("twins/spawn_forever_bad", Some("random"), "sync", 20);
    assert_eq!(bad.code, 9, "{}", bad.text);
}

/// A program whose only pthread calls are create and join is explored at memory level
/// without being asked, and says so; at that level a bug in its shared memory is found.
#[test]
fn create_and_join_only_switches_to_memory_level() {
    let s = search("twins/own_atomic_section_bad", None, "sync", 60);
    assert!(s.text.contains("no synchronization calls other than thread creation and joins: exploring at memory level"), "{}", s.text);
    assert_eq!(s.code, 9, "{}", s.text);
}
