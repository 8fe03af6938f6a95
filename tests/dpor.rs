//! dfs's partial-order reduction on real programs: it explores fewer schedules where
//! threads are independent, still finds a bug that needs one interleaving of memory
//! accesses, and claims exhaustion only where the full search does.
//! (The algorithm itself is tested on hand-built schedules in oracle/src/dpor/tests.rs.)

mod util;

use std::path::Path;
use syncmut_mutator::interleave::Interleave;
use syncmut_oracle::explore::{self, BugKind, ExploreSettings, Report};
use syncmut_oracle::schedules::{Por, Strategy, UNBOUNDED};
use syncmut_runner::Invocation;

fn build(source: &Path, out: &Path, interleave: Interleave) -> syncmut_mutator::metamutant::Build {
    let design = syncmut_mutator::Design::from_paths(&[source.to_path_buf()], &[]).unwrap();
    let options = syncmut_mutator::metamutant::Options {
        interleave,
        races: false,
    };
    syncmut_mutator::metamutant::build_with(&design, out, &options)
        .unwrap_or_else(|e| panic!("{}: {e}", source.display()))
}

fn explore(
    build: &syncmut_mutator::metamutant::Build,
    preemptions: u32,
    por: Por,
    budget: usize,
    work: &Path,
) -> Report {
    explore_with(build, &[], preemptions, por, budget, work)
}

/// [`explore`] with arguments for the program.
fn explore_with(
    build: &syncmut_mutator::metamutant::Build,
    args: &[String],
    preemptions: u32,
    por: Por,
    budget: usize,
    work: &Path,
) -> Report {
    let program = Invocation {
        active: Some(String::new()),
        ..Invocation::new(&build.metamutant, args)
    };
    let config = ExploreSettings {
        strategy: Strategy::Dfs { preemptions, por },
        schedules: budget,
        ..ExploreSettings::default()
    };
    explore::explore(&program, &config, work).unwrap()
}

#[test]
fn the_reduction_explores_fewer_schedules_of_independent_threads() {
    // Two threads, each taking its own mutex twice: nothing one does depends on the
    // other. With at most one preemption the full search runs 29 schedules, sleep sets
    // 19 and the reduction 1 (12 before `main`'s blocking joins and failed lock attempts
    // stopped counting as steps that act): the reduction must keep at least halving the
    // full search, and cover the same bounded space.
    let dir = tempfile::tempdir().unwrap();
    let b = build(
        &util::fixture("dpor/independent.c"),
        dir.path(),
        Interleave::Sync,
    );
    let full = explore(&b, 1, Por::None, 1000, &dir.path().join("none"));
    let reduced = explore(&b, 1, Por::Dpor, 1000, &dir.path().join("dpor"));
    assert!(full.found.is_none() && reduced.found.is_none());
    assert!(
        full.exhausted && reduced.exhausted,
        "full {} runs, reduced {} runs",
        full.runs,
        reduced.runs
    );
    assert!(
        reduced.runs * 2 <= full.runs,
        "dpor {} runs, none {}",
        reduced.runs,
        full.runs
    );
    eprintln!(
        "independent threads, one preemption: {} schedules without reduction, {} with dpor",
        full.runs, reduced.runs
    );
}

#[test]
fn the_reduction_finds_a_lost_update_and_claims_exhaustion_only_on_the_correct_twin() {
    // counter_race: two threads increment a counter without the lock; the assertion
    // fails only when one thread's load and store fall between the other's load and
    // store, an interleaving of memory accesses. Each reduction must find it before
    // it would claim to have covered the space, unbounded and under a bound.
    let dir = tempfile::tempdir().unwrap();
    let bugs = util::example("pthread/bugs");
    let bad = build(
        &bugs.join("counter_race.c"),
        &dir.path().join("bad"),
        Interleave::Memory,
    );
    for (preemptions, por) in [(2, Por::None), (2, Por::Dpor), (UNBOUNDED, Por::Dpor)] {
        let report = explore(&bad, preemptions, por, 1000, &dir.path().join("bad-work"));
        let found = report.found.as_ref().unwrap_or_else(|| {
            panic!(
                "{por:?} bound {preemptions}: no bug in {} runs (exhausted: {})",
                report.runs, report.exhausted
            )
        });
        assert_eq!(found.kind, BugKind::Assertion);
        assert!(!report.exhausted);
        eprintln!(
            "counter_race, {por:?}, bound {preemptions}: the bug at run {}",
            found.run
        );
    }
    // The twin with the lock: the reduced search ends, clean, as the full one does.
    let good = build(
        &bugs.join("counter_race_ok.c"),
        &dir.path().join("good"),
        Interleave::Memory,
    );
    for por in [Por::None, Por::Dpor] {
        let report = explore(&good, 1, por, 1000, &dir.path().join("good-work"));
        assert!(
            report.found.is_none() && report.exhausted,
            "{por:?}: {} runs",
            report.runs
        );
        eprintln!(
            "counter_race_ok, {por:?}, bound 1: exhausted in {} schedules",
            report.runs
        );
    }
}

#[test]
fn the_reduction_runs_about_one_schedule_per_order_of_critical_sections() {
    // Two threads × two sections on one lock under `main`'s joins: 6 orders. A failed
    // attempt on the held lock and a join of a running thread would only block, and the
    // runtime says so (`:w`): counted as steps that act, every place they could fall made
    // an interleaving of its own (996 runs to exhaust). Exhausted in 14 runs when this
    // test was written, and the one order that needs preemptions (the assertion with an
    // argument) is found unbounded and within 2 preemptions, as the full search finds it.
    let runs = exhausted_and_checked("dpor/sections.c", 18);
    eprintln!("two threads × two sections: exhausted in {runs} runs");
}

#[test]
fn a_wait_on_a_semaphore_at_zero_is_not_a_step_that_acts() {
    // A producer posting twice for two consumers, each section under one lock: a
    // consumer's wait while the semaphore is at 0 only blocks (`:w`), like a failed
    // lock attempt. Exhausted in 38 runs when this test was written (263 with only the
    // locks and joins marked), and the order that needs the producer preempted after its
    // first post is found as the full search finds it.
    let runs = exhausted_and_checked("dpor/semaphore.c", 48);
    eprintln!("producer and two consumers: exhausted in {runs} runs");
}

#[test]
fn an_atomic_section_is_one_step_on_what_it_touches() {
    // Two threads each write two values in an atomic section, then read the other's: at
    // memory level each section is one step on its two values. Exhausted in 21 runs when
    // this test was written; the build before made the section's start a step on every
    // object and did not exhaust it in 5000 (and one that made the start act on nothing
    // without the section's accesses missed the asserted order).
    let runs = exhausted_and_checked_at("dpor/atomic_sections.c", 30, Interleave::Memory);
    eprintln!("two atomic sections: exhausted in {runs} runs");
    // Sleep sets alone (`--por sleep`) count a start they did not take as a step on every
    // object (`*`, what the section touches is not known yet), so they find the order too.
    let dir = tempfile::tempdir().unwrap();
    let b = build(
        &util::fixture("dpor/atomic_sections.c"),
        dir.path(),
        Interleave::Memory,
    );
    let check = ["check".to_string()];
    let report = explore_with(&b, &check, UNBOUNDED, Por::Sleep, 1000, dir.path());
    let found = report.found.map(|f| f.kind);
    assert_eq!(found, Some(BugKind::Assertion), "{} runs", report.runs);
}

/// Explores `fixture` with dpor, unbounded: it must exhaust its space within `most` runs
/// and find no bug; run with an argument, its assertion must fail under dpor, unbounded
/// and within 2 preemptions, and under the full search within 2. The runs it took.
fn exhausted_and_checked(fixture: &str, most: usize) -> usize {
    exhausted_and_checked_at(fixture, most, Interleave::Sync)
}

/// [`exhausted_and_checked`] with the program built at `interleave`.
fn exhausted_and_checked_at(fixture: &str, most: usize, interleave: Interleave) -> usize {
    let dir = tempfile::tempdir().unwrap();
    let b = build(&util::fixture(fixture), dir.path(), interleave);
    let clean = explore(&b, UNBOUNDED, Por::Dpor, 1000, &dir.path().join("clean"));
    assert!(
        clean.found.is_none() && clean.exhausted && clean.runs <= most,
        "{fixture}: {} runs, exhausted: {}",
        clean.runs,
        clean.exhausted
    );
    let check = ["check".to_string()];
    for (preemptions, por) in [(UNBOUNDED, Por::Dpor), (2, Por::Dpor), (2, Por::None)] {
        let report = explore_with(
            &b,
            &check,
            preemptions,
            por,
            1000,
            &dir.path().join("check"),
        );
        let found = report.found.as_ref().unwrap_or_else(|| {
            panic!(
                "{fixture}: {por:?} bound {preemptions}: not found in {} runs",
                report.runs
            )
        });
        assert_eq!(found.kind, BugKind::Assertion, "{fixture}");
    }
    clean.runs
}

/// `main` reads its settings (globals) around each thread it creates: eight reads with
/// no write of its own, but creations in between. Counted as a busy-wait, those reads
/// made `main` yield, and no schedule created every thread before a setter ran: the
/// bounded search claimed its space exhausted without the one-preemption bug (a
/// checker between a setter's two writes). A creation ends such a streak, as a
/// synchronization call does; every search finds the bug before it claims anything.
#[test]
fn reads_between_thread_creations_are_no_busy_wait() {
    let dir = tempfile::tempdir().unwrap();
    let bad = build(
        &util::fixture("dpor/creator_reads.c"),
        &dir.path().join("bad"),
        Interleave::Memory,
    );
    for (preemptions, por) in [(1, Por::None), (1, Por::Sleep), (1, Por::Dpor)] {
        let report = explore(&bad, preemptions, por, 1000, &dir.path().join("work"));
        let found = report.found.as_ref().unwrap_or_else(|| {
            panic!(
                "{por:?} bound {preemptions}: no bug in {} runs (exhausted: {})",
                report.runs, report.exhausted
            )
        });
        assert_eq!(found.kind, BugKind::Assertion);
    }
}
