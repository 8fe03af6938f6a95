//! Bug finding: the corpus in examples/pthread/bugs (each bug found within 1000 schedules
//! by some strategy, each correct twin bug-free, every bug replays), the `explore`
//! command's report and exit codes, C++20 waits, and what a counterexample names.

mod util;

use syncmut_mutator::interleave::Interleave;
use syncmut_oracle::explore::{self, BugKind};
use syncmut_oracle::schedules::{Por, Strategy};
use util::explore::{bugs_dir, build_with, config, original, run};

/// Every bug of the corpus is found within its budget and replays, and its correct twin
/// is clean: one test per bug, so that they spread over the test threads.
mod every_bug_is_found_and_replays_and_every_twin_is_clean {
    use super::*;

    /// `program: kind of bug it has, scheduling points it needs;`
    macro_rules! bugs {
        ($($name:ident: $kind:ident, $interleave:ident;)*) => {$(
            #[test]
            fn $name() {
                found_replayed_and_twin_clean(stringify!($name), BugKind::$kind, Interleave::$interleave);
            }
        )*};
    }

    bugs! {
        lock_order: Deadlock, Sync;
        lost_signal: Deadlock, Sync;
        check_then_act: Assertion, Sync;
        order_violation: Assertion, Sync;
        self_deadlock: Deadlock, Sync;
        double_unlock: Assertion, Sync;
        missing_join: Assertion, Sync;
        barrier_mismatch: Deadlock, Sync;
        missing_recheck: Assertion, Sync;
        sem_overpost: Assertion, Sync;
        counter_race: Assertion, Memory;
        rw_starvation: Assertion, Sync;
    }
}

fn found_replayed_and_twin_clean(name: &str, kind: BugKind, interleave: Interleave) {
    let dir = tempfile::tempdir().unwrap();
    // The bug.
    let out = dir.path().join(name);
    let b = build_with(&bugs_dir().join(format!("{name}.c")), &out, interleave, &[]);
    // Cheapest first; every budget is within 1000 schedules.
    let strategies = [
        (Strategy::Pct { depth: 3 }, 100),
        (Strategy::Random, 100),
        (
            Strategy::Dfs {
                preemptions: 2,
                por: Por::Dpor,
            },
            1000,
        ),
    ];
    let mut found = None;
    for (strategy, budget) in strategies {
        let report = explore::explore(
            &original(&b.metamutant),
            &config(strategy, budget),
            &out.join("work"),
        )
        .unwrap();
        if let Some(f) = report.found {
            eprintln!("{name}: {} by {strategy} in run {}", f.kind, f.run);
            found = Some(f);
            break;
        }
    }
    let found = found.unwrap_or_else(|| panic!("{name}: no strategy found the bug"));
    assert_eq!(found.kind, kind, "{name}: {}", found.message);
    let text = explore::render_counterexample(&b.catalogue, &found);
    assert!(
        text.contains(&format!("{name}.c:")),
        "{name}: counterexample names no source line:\n{text}"
    );
    // The saved schedule replays to the same trace and the same bug.
    let file = out.join("found.schedule");
    std::fs::write(&file, &found.schedule_text).unwrap();
    let trace = out.join("replay.jsonl");
    let value = format!("replay:{}", file.display());
    let execution = syncmut_runner::exec::execute(
        &b.metamutant,
        &[],
        &[
            ("SYNCMUT_SCHEDULE", value),
            ("SYNCMUT_TRACE", trace.display().to_string()),
        ],
        &syncmut_runner::exec::Limits::default(),
    )
    .unwrap();
    let replayed = syncmut_runtime::trace::read(&trace).unwrap();
    assert_eq!(
        replayed.events, found.trace.events,
        "{name}: replay gives another trace"
    );
    assert_eq!(
        explore::classify(&execution, &replayed).map(|(k, _)| k),
        Some(kind),
        "{name}: replay"
    );

    // The correct twin: every schedule with at most one preemption (dfs with sleep
    // sets exhausts the bounded space), and random schedules, are clean. (Under a bound
    // the partial-order reduction gives up sleep sets and adds backtrack points, and
    // runs more than sleep sets on rw_starvation_ok and sem_overpost_ok: BENCHMARKS.md.)
    let twin_out = dir.path().join(format!("{name}_ok"));
    let twin = build_with(
        &bugs_dir().join(format!("{name}_ok.c")),
        &twin_out,
        interleave,
        &[],
    );
    let report = explore::explore(
        &original(&twin.metamutant),
        &config(
            Strategy::Dfs {
                preemptions: 1,
                por: Por::Sleep,
            },
            500,
        ),
        &twin_out.join("work"),
    )
    .unwrap();
    assert!(
        report.found.is_none(),
        "{name}_ok: {}",
        report
            .found
            .map(|f| explore::render_counterexample(&twin.catalogue, &f))
            .unwrap_or_default()
    );
    assert!(
        report.exhausted,
        "{name}_ok: dfs did not exhaust the bounded space ({} runs)",
        report.runs
    );
    eprintln!(
        "{name}_ok: clean, bounded space exhausted in {} distinct dfs schedules",
        report.distinct
    );
    let report = explore::explore(
        &original(&twin.metamutant),
        &config(Strategy::Random, 50),
        &twin_out.join("work"),
    )
    .unwrap();
    assert!(report.found.is_none(), "{name}_ok (random)");
}

#[test]
fn the_explore_command_reports_a_bug_with_exit_9_and_a_clean_twin_with_0() {
    let syncmut = |args: &[&str]| util::syncmut().arg("explore").args(args).assert();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("bug");
    syncmut(&[
        bugs_dir().join("lock_order.c").to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--strategy",
        "dfs",
    ])
    .code(9);
    let text = std::fs::read_to_string(out.join("counterexample.txt")).unwrap();
    assert!(text.starts_with("deadlock"), "{text}");
    assert!(
        text.contains("lock_order.c:12") || text.contains("lock_order.c:22"),
        "{text}"
    );
    let schedule = out.join("counterexample.schedule");
    let (status, _) = run(
        &out.join("metamutant"),
        &[(
            "SYNCMUT_SCHEDULE",
            &format!("replay:{}", schedule.display()),
        )],
    );
    assert_eq!(status.code(), Some(122));
    assert!(
        syncmut_runtime::trace::read(&out.join("counterexample.jsonl"))
            .unwrap()
            .end
            .unwrap()
            .deadlock
    );
    // `replay` takes the explore directory itself.
    util::syncmut()
        .arg("replay")
        .arg(&out)
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "reproduced: the trace is identical",
        ));
    // The runs' raw traces are binary and named so; the counterexample's is JSON Lines.
    assert!(out.join("explore/run.bin").is_file());
    assert!(util::assert_jsonl_names_only_json(&out) >= 1);

    // The same bug written with C11 threads.
    let out = dir.path().join("c11");
    syncmut(&[
        util::example("c11/bugs/lock_order.c").to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--strategy",
        "dfs",
    ])
    .code(9);
    let text = std::fs::read_to_string(out.join("counterexample.txt")).unwrap();
    assert!(text.starts_with("deadlock"), "{text}");
    assert!(text.contains("mtx_lock(&"), "{text}");

    // The same bug written with two std::lock_guards; one std::scoped_lock avoids it.
    let out = dir.path().join("cpp");
    syncmut(&[
        util::example("cpp/bugs/lock_order.cpp").to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--strategy",
        "dfs",
    ])
    .code(9);
    let text = std::fs::read_to_string(out.join("counterexample.txt")).unwrap();
    assert!(text.starts_with("deadlock"), "{text}");
    assert!(
        text.contains("second(b) @ lock_order.cpp:14")
            && text.contains("second(a) @ lock_order.cpp:20"),
        "{text}"
    );
    let out = dir.path().join("cpp_twin");
    syncmut(&[
        util::example("cpp/bugs/lock_order_ok.cpp")
            .to_str()
            .unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--strategy",
        "pct",
        "--schedules",
        "50",
    ])
    .code(0);

    let out = dir.path().join("twin");
    syncmut(&[
        bugs_dir().join("lock_order_ok.c").to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--strategy",
        "pct",
        "--schedules",
        "50",
    ])
    .code(0);
    assert!(!out.join("counterexample.schedule").exists());

    // The data race: its only synchronization is create and join, so explore goes to
    // memory level by itself, as with --interleave memory.
    let race = bugs_dir().join("counter_race.c");
    let out = dir.path().join("race");
    let auto = syncmut(&[
        race.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--strategy",
        "random",
        "--schedules",
        "50",
    ])
    .code(9);
    assert!(
        String::from_utf8_lossy(&auto.get_output().stderr).contains("exploring at memory level")
    );
    syncmut(&[
        race.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--strategy",
        "random",
        "--schedules",
        "50",
        "--interleave",
        "memory",
    ])
    .code(9);
    let text = std::fs::read_to_string(out.join("counterexample.txt")).unwrap();
    assert!(
        text.contains("`mem` lines: the memory steps chosen at choice points"),
        "{text}"
    );
    // The memory steps stand among the synchronization events, in the order they ran:
    // the racing accesses of the adders come between main's two joins.
    let lines: Vec<&str> = text.lines().collect();
    let join_a = lines
        .iter()
        .position(|l| l.contains("pthread_join(a, NULL)"))
        .expect("join a");
    let join_b = lines
        .iter()
        .position(|l| l.contains("pthread_join(b, NULL)"))
        .expect("join b");
    assert!(
        lines[join_a..join_b]
            .iter()
            .any(|l| l.trim_start().starts_with("mem")
                && l.contains("writes shared memory in adder")),
        "{text}"
    );
    syncmut(&[race.to_str().unwrap(), "--interleave", "bytes"]).code(2);
}
/// C++20 primitives block in libstdc++'s futex waits, which run under the controlled
/// scheduler: every strategy finishes, and a wait nobody can end is a deadlock.
#[test]
fn a_deadlock_through_a_latch_and_a_semaphore_is_found_by_every_strategy() {
    let syncmut = |args: &[&str]| util::syncmut().arg("explore").args(args).assert();
    let dir = tempfile::tempdir().unwrap();
    let bug = util::example("cpp/bugs/startup_latch.cpp");
    for strategy in ["dfs", "random", "pct"] {
        let out = dir.path().join(strategy);
        syncmut(&[
            bug.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--strategy",
            strategy,
            "--schedules",
            "200",
            "--",
            "-std=c++20",
        ])
        .code(9);
        let text = std::fs::read_to_string(out.join("counterexample.txt")).unwrap();
        assert!(text.starts_with("deadlock"), "{strategy}: {text}");
        assert!(
            text.contains("start.arrive_and_wait()  @ startup_latch.cpp:16")
                && text.contains("token.acquire()  @ startup_latch.cpp:21"),
            "{strategy}: {text}"
        );
    }
    let out = dir.path().join("twin");
    let twin = util::example("cpp/bugs/startup_latch_ok.cpp");
    syncmut(&[
        twin.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--strategy",
        "dfs",
        "--",
        "-std=c++20",
    ])
    .code(0);
    let out = dir.path().join("twin_memory");
    syncmut(&[
        twin.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--interleave",
        "memory",
        "--schedules",
        "100",
        "--",
        "-std=c++20",
    ])
    .code(0);
}
/// A lock taken through a pointer parameter is named by what the other thread's calls
/// show: the choice points record the object each pending call acts on.
#[test]
fn a_counterexample_names_the_mutex_a_pointer_parameter_points_to() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("ptr");
    util::syncmut()
        .arg("explore")
        .arg(util::fixture("explore/pointer_lock_order.c"))
        .arg("-o")
        .arg(&out)
        .assert()
        .code(9);
    let text = std::fs::read_to_string(out.join("counterexample.txt")).unwrap();
    assert!(text.starts_with("deadlock"), "{text}");
    assert!(
        text.contains("pthread_mutex_lock(first)  (first is &a)"),
        "{text}"
    );
    assert!(
        text.contains("pthread_mutex_lock(second)  (second is &b)"),
        "{text}"
    );
    // Calls that name their lock themselves get no note.
    assert!(!text.contains("(&b is"), "{text}");
    // Each choice point records the events before it.
    let schedule = syncmut_runtime::schedule::parse(
        &std::fs::read_to_string(out.join("counterexample.schedule")).unwrap(),
    )
    .unwrap();
    assert!(
        schedule.choices.iter().all(|c| c.events.is_some()),
        "{schedule:?}"
    );
    assert!(schedule
        .choices
        .windows(2)
        .all(|w| w[0].events <= w[1].events));
}
