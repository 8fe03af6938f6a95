//! Every example's expected results are checked in (`examples/*/*/expected.json`):
//! the verdict of every mutant and the score. A changed verdict fails this test.
//! After an intended change, regenerate with `SYNCMUT_BLESS=1 cargo test --test examples`
//! and review the diff of the expected files.

mod util;

use serde_json::{json, Value};
use std::path::Path;
use std::sync::OnceLock;
use util::{example, syncmut};

/// Runs `syncmut run` on an example and returns (mutant → verdict, killed, mutants). The
/// output directory is named relatively, from its parent, as a user types `-o out` (or
/// takes the default `syncmut.out`): runs start in directories of their own, and every
/// path handed to them must still name the same file. Without runs with real threads
/// (`--native 0`): they do not repeat, and a fault that shows with real threads now and
/// then (a consumer's `lock-to-trylock` that hangs once in many runs) would make the
/// checked verdicts flaky; `verdicts.rs` and `tests/fixtures/realthreads` check them.
fn run(name: &str, jobs: &str, out: &Path) -> Value {
    let (parent, dir) = (out.parent().unwrap(), out.file_name().unwrap());
    syncmut()
        .current_dir(parent)
        .arg("run")
        .arg(example(name))
        .arg("-o")
        .arg(dir)
        .args(["-j", jobs, "--native", "0"])
        .assert()
        .success();
    util::verdicts(out)
}

fn check(name: &str) -> Value {
    check_in(name, tempfile::tempdir().unwrap().path())
}

/// Like `check`, keeping the run directory in `out` for further asserts.
fn check_in(name: &str, out: &Path) -> Value {
    let actual = run(name, "2", out);
    if std::env::var_os("SYNCMUT_BLESS").is_some() {
        std::fs::write(
            example(name).join("expected.json"),
            serde_json::to_string_pretty(&actual).unwrap() + "\n",
        )
        .unwrap();
    }
    assert_eq!(
        actual,
        util::expected(&example(name)),
        "{name}: results differ from its expected.json"
    );
    actual
}

/// The checked -j2 run of guarded_event, made once for the tests that look into it
/// (its verdicts, baseline, diff and `explain`, and the comparison across job counts).
fn guarded_event_run() -> &'static (tempfile::TempDir, Value) {
    static RUN: OnceLock<(tempfile::TempDir, Value)> = OnceLock::new();
    RUN.get_or_init(|| {
        // Under target/, as a static is never dropped to delete it.
        let out = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
        let results = check_in("systemc/guarded_event", out.path());
        (out, results)
    })
}

#[test]
fn guarded_event() {
    assert_eq!(guarded_event_run().1["mutants"], 13);
}

#[test]
fn bounded_buffer_signals_deadlock_and_waits_livelock() {
    let results = check("pthread/bounded_buffer");
    let verdict = |id: &str| results["verdicts"][id].as_str().unwrap().to_string();
    assert_eq!(verdict("put#3:remove"), "killed-by-deadlock");
    assert_eq!(verdict("get#3:remove"), "killed-by-deadlock");
    assert_eq!(verdict("put#4:remove"), "killed-by-deadlock");
}

#[test]
fn narrow_guard_is_reached_by_generated_tests() {
    let results = check("pthread/narrow_guard");
    // The worker's lock is behind x == 123457 && y > x: only a generated test reaches it.
    assert_ne!(results["verdicts"]["worker#1:remove"], "not-reached");
}

#[test]
fn fifo_pipeline_trampolines_take_effect() {
    let results = check("systemc/fifo_pipeline");
    // Removing the write starves the reader; the non-blocking read deadlocks the writer.
    assert_eq!(
        results["verdicts"]["pipeline::producer#1:remove"],
        "killed-by-deadlock"
    );
    assert_eq!(
        results["verdicts"]["pipeline::consumer#1:blocking-to-nonblocking"],
        "killed-by-deadlock"
    );
}

#[test]
fn mutex_bus_unlock_removal_deadlocks() {
    let results = check("systemc/mutex_bus");
    assert_eq!(
        results["verdicts"]["bus_system::transfer#3:remove"],
        "killed-by-deadlock"
    );
}

#[test]
fn semaphore_pool_post_removal_starves_the_workers() {
    let results = check("systemc/semaphore_pool");
    assert_eq!(
        results["verdicts"]["pool::use#3:remove"],
        "killed-by-deadlock"
    );
}

#[test]
fn redundant_sync_has_survivors() {
    let results = check("systemc/redundant_sync");
    let survived = results["verdicts"]
        .as_object()
        .unwrap()
        .values()
        .filter(|v| *v == "survived")
        .count();
    assert!(survived >= 1);
}

#[test]
fn tlm_lt_annotated_delays_are_mutated_in_target_and_initiator() {
    let out = tempfile::tempdir().unwrap();
    let results = check_in("systemc/tlm_lt", out.path());
    let verdict = |id: &str| results["verdicts"][id].as_str().unwrap().to_string();
    // Sites inside b_transport (called through the socket) and in the initiator's
    // thread are mutated, and their mutants change the printed times.
    assert_eq!(verdict("memory::b_transport#2:remove"), "killed-by-output");
    assert_eq!(
        verdict("memory::b_transport#2:time-zero"),
        "killed-by-output"
    );
    assert_eq!(verdict("cpu::run#1:remove"), "killed-by-output");
    assert_eq!(verdict("cpu::run#2:time-double"), "killed-by-output");
    // The doorbell is notified at the annotated time: an immediate notify rings early,
    // a removed one leaves the service process waiting.
    assert_eq!(
        verdict("memory::b_transport#1:notify-immediate"),
        "killed-by-output"
    );
    assert_eq!(
        verdict("memory::b_transport#1:remove"),
        "killed-by-deadlock"
    );
    // The limit the README states: the socket's virtual calls lead the analysis into
    // b_transport, but not past the generic payload's pointer test against null
    // (tlm_gp.h); the design's default invocation reaches both sites before the
    // analysis would try them.
    let catalogue: Value =
        serde_json::from_slice(&std::fs::read(out.path().join("mutants.json")).unwrap()).unwrap();
    let sites: Value =
        serde_json::from_slice(&std::fs::read(out.path().join("gen/sites.json")).unwrap()).unwrap();
    let target_sites: Vec<u64> = catalogue["sites"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["function"] == "memory::b_transport")
        .map(|s| s["index"].as_u64().unwrap())
        .collect();
    assert_eq!(target_sites.len(), 2);
    for index in target_sites {
        let generated = &sites.as_array().unwrap()[index as usize];
        assert_eq!(
            generated["verdict"]["verdict"], "test-found",
            "site {index}"
        );
        assert!(
            generated["notes"][0]
                .as_str()
                .unwrap()
                .contains("reached by the design's default invocation"),
            "{generated}"
        );
    }
}

#[test]
fn bank_transfer_removed_account_lock_breaks_the_total() {
    let results = check("pthread/bank_transfer");
    let verdict = |id: &str| results["verdicts"][id].as_str().unwrap().to_string();
    assert_eq!(verdict("transfer#1:remove"), "killed-by-assertion");
    assert_eq!(verdict("transfer#2:remove"), "killed-by-assertion");
    // The journal counter has no scheduling point inside, so the trace differs only past
    // the point where the original can no longer follow the mutant, which is no kill;
    // the two unordered writes of the counter are a data race the original never has.
    assert_eq!(verdict("journal#1:remove"), "killed-by-race");
    assert_eq!(verdict("transfer#3:remove"), "killed-by-deadlock");
}

#[test]
fn dining_philosophers_shared_forks_and_starvation() {
    let results = check("pthread/dining_philosophers");
    let verdict = |id: &str| results["verdicts"][id].as_str().unwrap().to_string();
    // Shared forks: two philosophers use one fork with nothing ordering them. The
    // fork-conflict exit their random runs show preempts more often than the original's
    // search covers (unproven); the race on the fork is proven in any one run.
    assert_eq!(verdict("philosopher#1:remove"), "killed-by-race");
    assert_eq!(verdict("philosopher#2:lock-to-trylock"), "killed-by-race");
    // The kitchen's decrement has no scheduling point inside: no trace kill, but a race.
    assert_eq!(verdict("philosopher#3:remove"), "killed-by-race");
    assert_eq!(verdict("philosopher#5:remove"), "killed-by-deadlock");
    // Taking the two forks in the other order: the first fork is taken, and used, only
    // after the second: shared forks.
    assert_eq!(verdict("philosopher#1:swap-lock-order"), "killed-by-race");
    // The second fork's lock moved above the use of the first fork, which the first fork's
    // lock already guards: equivalent.
    assert_eq!(verdict("philosopher#2:widen-critical-section"), "survived");
}

#[test]
fn barrier_phases_removed_barriers_change_the_result() {
    let results = check("pthread/barrier_phases");
    // Without its barrier a worker reads what another writes in the same phase.
    assert_eq!(results["verdicts"]["worker#1:remove"], "killed-by-race");
    assert_eq!(results["verdicts"]["worker#2:remove"], "killed-by-race");
    // One party too many or too few: the workers never all pass (or pass without one).
    assert_eq!(
        results["verdicts"]["main#1:barrier-count-up"],
        "killed-by-deadlock"
    );
    assert_eq!(
        results["verdicts"]["main#1:barrier-count-down"],
        "killed-by-deadlock"
    );
}

#[test]
fn c11_ticket_queue_threads_run_under_the_scheduler() {
    let results = check("c11/ticket_queue");
    let verdict = |id: &str| results["verdicts"][id].as_str().unwrap().to_string();
    assert_eq!(verdict("producer#3:remove"), "killed-by-deadlock");
    assert_eq!(verdict("consumer#2:remove"), "killed-by-livelock");
    // The consumer's result comes back through thrd_join; without the join it is 0.
    assert_eq!(verdict("main#2:remove"), "killed-by-output");
}

#[test]
fn critical_sections_moved_and_split_regions_expose_units_in_flight() {
    let dir = tempfile::tempdir().unwrap();
    let results = check_in("pthread/critical_sections", dir.path());
    let verdict = |id: &str| results["verdicts"][id].as_str().unwrap().to_string();
    // The auditor runs between the two statements: a failed audit, exit 1. But the split
    // places scheduling points the original lacks, so following the mutant's run is no
    // proof, and the random runs preempt more often than the original's search covers:
    // not claimed.
    assert_eq!(verdict("mover#1:split-critical-section"), "survived");
    let outcomes = util::outcomes(dir.path());
    let split = outcomes["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["mutant"] == "mover#1:split-critical-section")
        .unwrap();
    let reason = split["reason"].as_str().unwrap();
    assert!(reason.contains("exit 1 instead of exit 0"), "{reason}");
    assert!(
        reason.contains("the mutant's own scheduling points move where the original, following it, is preempted, and the mutant's run preempted 23 times, more than the original's search covers (2)"),
        "{reason}"
    );
    // A token before any mover reported: main reads the counters while a mover may
    // still write them.
    assert_eq!(verdict("main#1:semaphore-count-up"), "killed-by-race");
    assert_ne!(verdict("mover#2:shrink-critical-section"), "survived");
    // Two statements with no scheduling point between them: without the lock the trace
    // differs only where the original cannot follow the mutant, which is no kill; the
    // movers' unordered writes are a race.
    assert_eq!(verdict("mover#1:remove-lock-pair"), "killed-by-race");
}

/// The same split and the widened audit, under pct (few preemptions) on the one-step
/// test, with a search long enough to cover the original's every schedule within 2
/// preemptions (8,606 runs): the split's failed audit comes from a run with one
/// preemption, the widened audit's trace from one with two, and no run of the original
/// within two shows either. Both are proven kills (the split's by the search within two,
/// asked first because it also covers every schedule within one).
#[test]
fn critical_sections_moved_sections_are_killed_once_the_search_covers_their_bound() {
    let dir = tempfile::tempdir().unwrap();
    let tests = dir.path().join("tests.json");
    std::fs::write(
        &tests,
        r#"{ "tests": [ { "name": "one_step", "args": ["1"] } ] }"#,
    )
    .unwrap();
    let out = dir.path().join("out");
    syncmut()
        .arg("run")
        .arg(example("pthread/critical_sections"))
        .arg("--tests")
        .arg(&tests)
        .args(["--gen", "none", "--native", "0", "--search-runs", "10000"])
        .args(["--strategy", "pct", "--schedules", "20"])
        .args([
            "--mutant",
            "^(mover#1:split|auditor#1:widen)-critical-section$",
        ])
        .arg("-o")
        .arg(&out)
        .assert()
        .success();
    let outcomes = util::outcomes(&out);
    let mutant = |id: &str| {
        let m = outcomes["mutants"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["mutant"] == id)
            .unwrap()
            .clone();
        (
            m["verdict"].as_str().unwrap().to_string(),
            m["reason"].as_str().unwrap().to_string(),
        )
    };
    let (verdict, reason) = mutant("mover#1:split-critical-section");
    assert_eq!(verdict, "killed-by-output", "{reason}");
    assert!(reason.contains("exit 1 instead of exit 0"), "{reason}");
    assert!(reason.contains("none of the 8606 runs of its search with at most 2 preemptions (every such schedule; the mutant's run had 1) shows this"), "{reason}");
    let (verdict, reason) = mutant("auditor#1:widen-critical-section");
    assert_eq!(verdict, "killed-by-trace", "{reason}");
    assert!(
        reason.contains("none of the 8606 runs of the original's search with at most 2 preemptions (every such schedule) shows this"),
        "{reason}"
    );
}

/// A search too small to cover its bound stops as soon as the schedules it has left
/// outnumber its budget, and the survivor says how many there are at least: on
/// named_depth's generated test the original has 76 schedules within 2 preemptions, so
/// with a budget of 75 the removed second wait survives (the default budget proves it
/// killed) with at least 76 schedules named, and the search stops short of its 75 runs.
#[test]
fn a_search_that_cannot_cover_its_bound_stops_early_and_says_how_many_schedules_it_needs() {
    let search = |runs: &str| {
        let dir = tempfile::tempdir().unwrap();
        syncmut()
            .arg("run")
            .arg(example("pthread/named_depth"))
            .args([
                "--native",
                "0",
                "--search-runs",
                runs,
                "--mutant",
                "^consumer#2:remove$",
            ])
            .arg("-o")
            .arg(dir.path())
            .assert()
            .success();
        let outcomes = util::outcomes(dir.path());
        let mutant = &outcomes["mutants"][0];
        (
            mutant["verdict"].as_str().unwrap().to_string(),
            mutant["reason"].as_str().unwrap().to_string(),
            outcomes["score"]["search_runs"].as_u64().unwrap(),
        )
    };
    let (verdict, reason, _) = search("76");
    assert_eq!(verdict, "killed-by-trace", "{reason}");
    assert!(
        reason.contains("none of the 76 runs of its search with at most 2 preemptions"),
        "{reason}"
    );
    let (verdict, reason, search_runs) = search("75");
    assert_eq!(verdict, "survived", "{reason}");
    assert!(
        reason.contains("the original's search with at most 2 preemptions could not cover them: they are at least 76 schedules, more than --search-runs allows"),
        "{reason}"
    );
    // Only the search within two preemptions is made (the runs that differ had two),
    // and it stops before its 75th run.
    assert!(
        search_runs < 75,
        "{search_runs} runs of the original's searches"
    );
}

#[test]
fn hit_counter_removed_locks_are_killed_by_a_race_in_one_schedule() {
    let dir = tempfile::tempdir().unwrap();
    let results = check_in("pthread/hit_counter", dir.path());
    let verdict = |id: &str| results["verdicts"][id].as_str().unwrap().to_string();
    assert_eq!(verdict("worker#1:remove"), "killed-by-race");
    assert_eq!(verdict("worker#3:remove"), "killed-by-race");
    let outcomes = util::outcomes(dir.path());
    let removed = outcomes["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["mutant"] == "worker#1:remove")
        .unwrap();
    let reason = removed["reason"].as_str().unwrap();
    assert!(reason.contains("T1 writes in worker @ hit_counter.c:22:10 holding no lock; T2 writes in worker @ hit_counter.c:22:10"), "{reason}");
    // One schedule, as syncmut.toml asks, and no flag: race detection is on by default,
    // and the race needs no unlucky interleaving.
    assert_eq!(removed["runs"][0]["schedule"], Value::Null, "{removed}");
}

#[test]
fn rwlock_cache_write_lock_matters_and_backend_lock_is_redundant() {
    let results = check("pthread/rwlock_cache");
    let verdict = |id: &str| results["verdicts"][id].as_str().unwrap().to_string();
    // Without the write lock a reader reads the entry the writer is filling in.
    assert_eq!(verdict("lookup#3:remove"), "killed-by-race");
    // An unlock without its read lock corrupts glibc's reader count: later writers hang.
    assert_eq!(verdict("lookup#1:remove"), "killed-by-deadlock");
    assert_eq!(verdict("backend_load#1:remove"), "survived");
}

#[test]
fn verdicts_are_identical_across_runs_and_job_counts() {
    let name = "systemc/guarded_event";
    let (shared, first) = guarded_event_run();
    let dirs: Vec<tempfile::TempDir> = (0..2).map(|_| tempfile::tempdir().unwrap()).collect();
    assert_eq!(&run(name, "1", dirs[0].path()), first, "-j1 vs -j2");
    assert_eq!(&run(name, "2", dirs[1].path()), first, "second -j2 run");
    // The CSV report holds no timings, so it must be byte-identical.
    let csv = |dir: &Path| std::fs::read_to_string(dir.join("report.csv")).unwrap();
    assert_eq!(csv(dirs[0].path()), csv(shared.path()));
    assert_eq!(csv(dirs[1].path()), csv(shared.path()));
}

#[test]
fn guarded_event_baseline_and_diff_explain_the_deadlock() {
    let out = guarded_event_run().0.path();
    let baseline: Value =
        serde_json::from_slice(&std::fs::read(out.join("baseline.json")).unwrap()).unwrap();
    let test = |name: &str| {
        baseline
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["test"] == name)
            .unwrap()
            .clone()
    };
    // (t, f): T1 blocks on e forever, at its wait(e) (site 0).
    assert_eq!(test("t_f")["deadlock"], true);
    assert_eq!(test("t_f")["pending"], json!([["m.t1", 0]]));
    // (f, t): T2's notify (site 2) finds nobody waiting.
    assert_eq!(
        test("f_t")["lost_notifications"],
        json!({"total": 1, "sites": [[2, 1]]})
    );
    assert_eq!(test("f_f")["deadlock"], false);
    assert_eq!(
        test("t_t")["lost_notifications"],
        json!({"total": 0, "sites": []})
    );

    // Removing T1's wait(e) is killed by (t, f), and the diff shows where T1 stopped.
    let diff = std::fs::read_to_string(out.join("diff/top__t1_1_remove.diff")).unwrap();
    assert!(diff.contains("killed by test t_f"), "{diff}");
    assert!(
        diff.contains("-still waiting: m.t1 at wait(e) @ guarded_event.cpp:18"),
        "{diff}"
    );

    // `explain` shows the same side by side, with the wait-for picture.
    let explain = syncmut()
        .arg("explain")
        .arg(out)
        .arg("top::t1#1:remove")
        .output()
        .unwrap();
    let text = String::from_utf8(explain.stdout).unwrap();
    assert!(explain.status.success());
    assert!(
        text.contains("first divergence at event 2 of m.t1"),
        "{text}"
    );
    assert!(
        text.contains("m.t1 waits at wait(e) @ guarded_event.cpp:18 since 0 s"),
        "{text}"
    );
    assert!(text.contains("end of the mutant:   normal exit"), "{text}");
}

#[test]
fn nondet_guard_is_reached_through_sv_comp_nondet_inputs() {
    let results = check("pthread/nondet_guard");
    // Only generated nondet values (a - b == 42; a > 1000, b == 7) reach these locks.
    assert_ne!(results["verdicts"]["worker#1:remove"], "not-reached");
    assert_ne!(results["verdicts"]["main#1:remove"], "not-reached");
}

#[test]
fn named_depth_is_reached_through_named_inputs() {
    let results = check("pthread/named_depth");
    // The second sem_wait needs burst = 1 and depth >= 12: only a generated test.
    assert_ne!(results["verdicts"]["consumer#2:remove"], "not-reached");
}

#[test]
fn irq_dispatch_dropped_events_are_killed_by_generated_tests() {
    let out = tempfile::tempdir().unwrap();
    let results = check_in("systemc/irq_dispatch", out.path());
    assert_eq!(
        results["verdicts"]["dispatcher::handler#1:drop-event"],
        "killed-by-deadlock"
    );
    assert_eq!(
        results["verdicts"]["dispatcher::handler#2:drop-event"],
        "killed-by-output"
    );
    // The checked-in test raises the uart line and starts no burst: the kills are the
    // generated tests' (named `wp…`); on `uart` the or-list mutant survives.
    let outcomes = util::outcomes(out.path());
    for id in [
        "dispatcher::handler#1:drop-event",
        "dispatcher::handler#2:drop-event",
    ] {
        let m = outcomes["mutants"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["mutant"] == id)
            .unwrap();
        assert!(
            m["killed_by"].as_str().unwrap().starts_with("wp"),
            "{id}: {m}"
        );
        for run in m["runs"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["test"] == "uart")
        {
            assert_eq!(run["verdict"], "survived", "{id}: {run}");
        }
    }
    // The generator's candidate runs keep their binary traces as `.bin` (gen/gen-traces).
    assert!(util::assert_jsonl_names_only_json(out.path()) >= 1);
}

#[test]
fn cpp_producer_consumer_std_threads_run_under_the_scheduler() {
    let results = check("cpp/producer_consumer");
    let verdict = |id: &str| results["verdicts"][id].as_str().unwrap().to_string();
    // A consumer without its wait spins on the empty queue.
    assert_eq!(verdict("BoundedQueue::take#2:remove"), "killed-by-livelock");
    // Without the notification of a put, the consumers wait forever.
    assert_eq!(verdict("BoundedQueue::put#4:remove"), "killed-by-deadlock");
    // A std::thread destroyed while joinable calls std::terminate.
    assert_eq!(verdict("main#1:remove"), "killed-by-crash");
    // The bound of the queue is not observable: the deque grows instead.
    assert_eq!(verdict("BoundedQueue::put#2:remove"), "survived");
}

#[test]
fn cpp_thread_pool_guards_and_notifications_matter() {
    let results = check("cpp/thread_pool");
    let verdict = |id: &str| results["verdicts"][id].as_str().unwrap().to_string();
    // Without the idle wait main prints the total before the tasks ran.
    assert_eq!(
        verdict("ThreadPool::wait_idle#2:remove"),
        "killed-by-output"
    );
    // Without the stop notification the workers sleep through the destructor's joins.
    assert_eq!(
        verdict("ThreadPool::~ThreadPool#3:remove"),
        "killed-by-deadlock"
    );
    assert_eq!(
        verdict("ThreadPool::~ThreadPool#4:remove"),
        "killed-by-crash"
    );
}

#[test]
fn cpp20_phased_pipeline_semaphores_latch_barrier_and_atomic_waits() {
    let results = check("cpp/phased_pipeline");
    let verdict = |id: &str| results["verdicts"][id].as_str().unwrap().to_string();
    // Without the wait for a free slot main overwrites an item nobody took.
    assert_eq!(verdict("Ring::put#1:remove"), "killed-by-output");
    // Without the release of a filled slot the workers wait forever.
    assert_eq!(verdict("Ring::put#4:remove"), "killed-by-deadlock");
    // A barrier expecting a fourth party never completes; one of two ends a phase early.
    assert_eq!(
        verdict("Shared::Shared#2:barrier-count-up"),
        "killed-by-deadlock"
    );
    assert_eq!(
        verdict("Shared::Shared#2:barrier-count-down"),
        "killed-by-output"
    );
    // notify_all woken as notify_one leaves one of the two report waiters asleep.
    assert_eq!(
        verdict("worker#3:broadcast-to-signal"),
        "killed-by-deadlock"
    );
    // Main's wait for the report: without it main prints the report before it exists.
    assert_eq!(verdict("main#3:remove"), "killed-by-output");
}
