//! The strategies of `syncmut run` agree on small generated pthread programs
//! (tests/util/consistency.rs): no mutant killed under the default budget, random or pct
//! is one that exhaustive dfs calls equivalent, and the original is never killed by
//! itself. The suite checks one generated program whole, three former false kills alone
//! and one kill that lies beyond dfs's bound of two; `cargo bench --bench consistency`
//! checks 200.

#[path = "util/consistency.rs"]
mod consistency;

/// Programs checked here, with two threads each (the bench's have up to three: dfs with
/// two preemptions over three threads takes 30–75 s a program). Each further program
/// costs the suite 5–25 s; program 1's former false kill and program 13's are checked
/// alone below.
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

/// Program 1's mutant that moves thread 1's write to `x1` out of its critical section:
/// `main`'s snapshot at `pthread_join(t[0])`, taken at the call and holding every counter
/// `main` ever reads, showed `x1` half-updated while thread 1 ran on, and the default
/// budget killed a mutant exhaustive dfs calls equivalent. A join's snapshot now holds
/// what the thread loads until its next event, and `main` loads the counters only after
/// the second join, when thread 1 is done.
#[test]
fn a_snapshot_at_a_join_holds_nothing_main_loads_only_after_the_next_join() {
    let syncmut = std::path::PathBuf::from(env!("CARGO_BIN_EXE_syncmut"));
    let dir = tempfile::tempdir().unwrap();
    write_program(dir.path(), &consistency::program(1, THREADS));
    let outcome = |name: &str, extra: &[&str]| verdict(&syncmut, dir.path(), name, extra, SHRUNK);
    assert_eq!(outcome("dfs", &consistency::DFS).0, "equivalent-exhaustive");
    let (verdict, reason) = outcome("default", &["--native", "0"]);
    assert_eq!(verdict, "survived", "{reason}");
}

/// Without instrumented accesses (`--races=false`) a join's snapshot is taken at the
/// call, of what the routine can read at all, and shows the half-updated counter. The
/// original following the mutant's run ends otherwise (its preemption cannot fall where
/// the mutant's did), but its search within 2 preemptions shows the same half-updated
/// counter: no kill, and the reason says why.
#[test]
fn without_instrumented_accesses_the_original_search_refutes_a_snapshot_at_a_join() {
    let syncmut = std::path::PathBuf::from(env!("CARGO_BIN_EXE_syncmut"));
    let dir = tempfile::tempdir().unwrap();
    write_program(dir.path(), &consistency::program(1, THREADS));
    let (verdict, reason) = verdict(
        &syncmut,
        dir.path(),
        "default",
        &["--native", "0", "--races=false"],
        SHRUNK,
    );
    assert_eq!(verdict, "survived", "{reason}");
    assert!(
        reason.contains("but its search within at most 2 preemptions showed the same"),
        "{reason}"
    );
}

/// A value `main` does load after a join still kills: the filler's removed condition wait
/// lets it write `level` before the starter does, and `main` loads `level` after the
/// joins without printing it (tests/fixtures/verdicts/join_read).
#[test]
fn a_value_main_loads_after_a_join_still_kills() {
    let syncmut = std::path::PathBuf::from(env!("CARGO_BIN_EXE_syncmut"));
    let dir = tempfile::tempdir().unwrap();
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/verdicts/join_read/prog.c");
    write_program(dir.path(), &std::fs::read_to_string(fixture).unwrap());
    let only = "^filler#2:remove$";
    for (name, extra) in [
        ("default", &["--native", "0"][..]),
        ("dfs", &consistency::DFS[..]),
    ] {
        let (verdict, reason) = verdict(&syncmut, dir.path(), name, extra, only);
        assert_eq!(verdict, "killed-by-trace", "{name}: {reason}");
        assert!(reason.contains("T0 at pthread_join"), "{name}: {reason}");
        assert!(reason.contains("level=3 instead of 10"), "{name}: {reason}");
    }
}

/// The mutant of program 1 that moves thread 1's write to `x1` out of its critical
/// section.
const SHRUNK: &str = "^thread1#4:shrink-critical-section$";

fn write_program(dir: &std::path::Path, source: &str) {
    std::fs::write(dir.join("prog.c"), source).unwrap();
    std::fs::write(dir.join("tests.json"), r#"{"tests":[{"name":"once"}]}"#).unwrap();
}

/// The verdict and reason of the one mutant `only` names.
fn verdict(
    syncmut: &std::path::Path,
    dir: &std::path::Path,
    name: &str,
    extra: &[&str],
    only: &str,
) -> (String, String) {
    let outcomes = consistency::run(syncmut, dir, name, &[extra, &["--mutant", only]].concat());
    let m = &outcomes["mutants"][0];
    let text = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_string();
    (text(&m["verdict"]), text(&m["reason"]))
}

/// Program 13's mutant without thread 1's first `m0` pair: pct's first schedule preempts
/// once, thread 1 runs its first section while thread 0 holds `m0`, and the original
/// cannot follow. Its search within that one preemption lacks the observation, but the
/// original shows it within two (where the mutant's thread ran on, the original's must
/// be preempted), and dfs calls the mutant equivalent: no kill.
#[test]
fn a_removed_lock_pair_is_not_killed_by_what_the_original_shows_with_one_more_preemption() {
    let syncmut = std::path::PathBuf::from(env!("CARGO_BIN_EXE_syncmut"));
    let dir = tempfile::tempdir().unwrap();
    write_program(dir.path(), &consistency::program(13, THREADS));
    let pct = ["--strategy", "pct", "--schedules", "30", "--native", "0"];
    let (verdict, reason) = verdict(
        &syncmut,
        dir.path(),
        "pct",
        &pct,
        "^thread1#1:remove-lock-pair$",
    );
    assert_eq!(verdict, "survived", "{reason}");
    assert!(
        reason.contains("but its search within at most 2 preemptions showed the same"),
        "{reason}"
    );
}

/// Program 147's mutant that splits thread 1's first `m1` section (an unlock and a lock
/// between its two writes to `x1`): a random schedule of the default budget preempts
/// thread 1 at the new lock, and the original, following, takes that choice at thread 1's
/// next point, after the whole section. The two runs differed before the follow ended,
/// by where the preemption fell alone, and the difference was claimed as a kill; thread
/// 0 touches only `x0`, so running it before the section shows the same, and dfs calls
/// the mutant equivalent within 3 preemptions. The original's search decides: no kill.
#[test]
fn a_split_section_is_not_killed_by_where_the_follow_put_its_preemption() {
    let syncmut = std::path::PathBuf::from(env!("CARGO_BIN_EXE_syncmut"));
    let dir = tempfile::tempdir().unwrap();
    write_program(dir.path(), &consistency::program(147, THREADS));
    let (verdict, reason) = verdict(
        &syncmut,
        dir.path(),
        "default",
        &["--native", "0"],
        "^thread1#1:split-critical-section$",
    );
    assert_eq!(verdict, "survived", "{reason}");
    assert!(
        reason.contains("but its search within at most 2 preemptions showed the same"),
        "{reason}"
    );
}

/// Program 41's mutant that splits thread 1's second `m0` section: the default budget
/// kills it by a random schedule that preempts nine times, and dfs within 2 preemptions
/// calls it equivalent. dfs within 3 decides: a run with 3 preemptions shows what none of
/// the original's schedules with at most 3 does (its own search, which covers the bound,
/// decides the run the original could not follow), so the kill lies beyond dfs's bound
/// of 2, not against it.
#[test]
fn dfs_within_three_preemptions_decides_a_run_with_three_by_its_own_search() {
    let syncmut = std::path::PathBuf::from(env!("CARGO_BIN_EXE_syncmut"));
    let dir = tempfile::tempdir().unwrap();
    write_program(dir.path(), &consistency::program(41, THREADS));
    let mut dfs = consistency::DFS.to_vec();
    assert_eq!(dfs[2], "--preemptions");
    dfs[3] = "3";
    let (verdict, reason) = verdict(
        &syncmut,
        dir.path(),
        "dfs-3",
        &dfs,
        "^thread1#3:split-critical-section$",
    );
    assert_eq!(verdict, "killed-by-trace", "{reason}");
    assert!(
        reason.contains("runs of its search with at most 3 preemptions (every such schedule; the mutant's run had 3) shows this"),
        "{reason}"
    );
}
