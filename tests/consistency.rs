//! The strategies of `syncmut run` agree on small generated pthread programs
//! (tests/util/consistency.rs): no mutant killed under the default budget, random or pct
//! is one that exhaustive dfs calls equivalent, and the original is never killed by
//! itself. The suite checks two small programs; `cargo bench --bench consistency`
//! more.

#[path = "util/consistency.rs"]
mod consistency;

/// Programs checked here, with two threads each (the bench's have up to three: a dfs
/// with two preemptions over three threads takes minutes per program). Program 1 shows
/// the known limit below.
const PROGRAMS: [u64; 1] = [0];
const THREADS: usize = 2;

#[test]
fn strategies_agree_with_exhaustive_dfs_on_generated_programs() {
    let syncmut = std::path::PathBuf::from(env!("CARGO_BIN_EXE_syncmut"));
    let work = tempfile::tempdir().unwrap();
    let mut killed = 0;
    for seed in PROGRAMS {
        let dir = work.path().join(format!("p{seed}"));
        let agreement = consistency::check(&syncmut, &dir, seed, THREADS);
        let source = consistency::program(seed, THREADS);
        assert!(
            agreement.inconsistencies.is_empty(),
            "program {seed}:\n{source}\n{:?}",
            agreement.inconsistencies
        );
        assert_eq!(agreement.self_kills, 0, "program {seed}:\n{source}");
        assert!(agreement.mutants > 0, "program {seed} has mutants");
        killed += agreement.killed;
    }
    // The check compares something: dfs judged some kills.
    assert!(killed > 0, "no sampled strategy killed a mutant");
}

/// The generator gives every seed the same program, and different seeds differ.
#[test]
fn programs_are_fixed_by_their_seed() {
    let program = |seed| consistency::program(seed, 3);
    assert_eq!(program(7), program(7));
    assert_ne!(program(7), program(8));
    assert!(program(7).contains("pthread_mutex_lock(&m0);"));
    assert!(!consistency::program(7, 2).contains("thread2"));
}

/// The limit the check finds (program 1). A snapshot holds only the globals its thread
/// can read (tests/verdicts.rs, `a_value_the_thread_never_reads_is_no_evidence_under_any_strategy`),
/// but `main` reads every counter, after the joins: its snapshot at a `pthread_join`
/// call, taken while the joined thread or the other one may still run, shows a value
/// half-way through thread 1's updates once thread 1's write to `x1` leaves its critical
/// section. Exhaustive dfs, which compares whole runs with the original's set of runs,
/// calls the mutant equivalent; the default budget, which compares a run with the
/// original following its interleaving, kills it. When a snapshot holds only what its
/// thread reads from that event on, this test fails and program 1 joins the checked ones.
#[test]
fn limit_a_snapshot_at_a_join_of_values_main_reads_after_it_still_kills() {
    let syncmut = std::path::PathBuf::from(env!("CARGO_BIN_EXE_syncmut"));
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("prog.c"), consistency::program(1, THREADS)).unwrap();
    std::fs::write(
        dir.path().join("tests.json"),
        r#"{"tests":[{"name":"once"}]}"#,
    )
    .unwrap();
    let only = ["--mutant", "^thread1#4:shrink-critical-section$"];
    let outcome = |name: &str, extra: &[&str]| {
        let outcomes = consistency::run(&syncmut, dir.path(), name, &[extra, &only].concat());
        let m = &outcomes["mutants"][0];
        let text = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_string();
        (text(&m["verdict"]), text(&m["reason"]))
    };
    assert_eq!(outcome("dfs", &consistency::DFS).0, "equivalent-exhaustive");
    let (verdict, reason) = outcome("default", &[]);
    assert_eq!(verdict, "killed-by-trace", "{reason}");
    assert!(reason.contains("T0 at pthread_join"), "{reason}");
}
