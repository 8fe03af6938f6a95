//! One small fixture per verdict kind (tests/fixtures/verdicts/*): the named mutant must
//! get exactly that verdict, within its timeout, and leave no process behind.

mod util;

use serde_json::Value;

fn verdict_of(fixture: &str, mutant: &str) -> (String, String) {
    verdict_with(fixture, mutant, &[])
}

/// `verdict_of` with more `run` flags.
fn verdict_with(fixture: &str, mutant: &str, flags: &[&str]) -> (String, String) {
    verdicts_with(fixture, &[mutant], flags).remove(0)
}

/// The verdicts and reasons of several mutants of one `run` of `fixture` (one run: each
/// costs a build and every mutant's runs).
fn verdicts_with(fixture: &str, mutants: &[&str], flags: &[&str]) -> Vec<(String, String)> {
    let dir = util::fixture("verdicts").join(fixture);
    let out = tempfile::tempdir().unwrap();
    util::syncmut()
        .arg("run")
        .arg(&dir)
        .arg("-o")
        .arg(out.path())
        .args(flags)
        .assert()
        .success();
    let outcomes = util::outcomes(out.path());
    mutants
        .iter()
        .map(|mutant| {
            let m = outcomes["mutants"]
                .as_array()
                .unwrap()
                .iter()
                .find(|m| m["mutant"] == *mutant)
                .unwrap_or_else(|| panic!("{fixture}: no mutant {mutant}"));
            (
                m["verdict"].as_str().unwrap().to_string(),
                m["reason"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

#[test]
fn crash() {
    assert_eq!(verdict_of("crash", "main#2:remove").0, "killed-by-crash");
}

#[test]
fn assertion() {
    let (verdict, reason) = verdict_of("assertion", "main#2:remove");
    assert_eq!(verdict, "killed-by-assertion");
    assert!(reason.contains("shared != NULL"), "{reason}");
}

#[test]
fn removed_unlock_is_a_deadlock_not_a_timeout() {
    let (verdict, reason) = verdict_of("deadlock_unlock", "worker#2:remove");
    assert_eq!(verdict, "killed-by-deadlock", "{reason}");
}

#[test]
fn busy_wait_without_scheduling_points_times_out() {
    assert_eq!(
        verdict_of("timeout", "main#1:remove").0,
        "killed-by-timeout"
    );
}

#[test]
fn removed_wait_in_an_endless_systemc_thread_is_a_livelock() {
    let ids = ["ticker::run#1:remove", "ticker::run#1:time-zero"];
    for (id, (verdict, reason)) in ids.iter().zip(verdicts_with("sc_livelock", &ids, &[])) {
        assert_eq!(verdict, "killed-by-livelock", "{id}: {reason}");
    }
}

#[test]
fn removed_notify_starves_the_waiter() {
    let (verdict, reason) = verdict_of("sc_deadlock", "handshake::producer#2:remove");
    assert_eq!(verdict, "killed-by-deadlock");
    assert!(reason.contains("h.consumer"), "{reason}");
}

#[test]
fn same_output_different_synchronization_is_killed_by_trace() {
    assert_eq!(
        verdict_of("sc_trace", "timed::notifier#2:remove").0,
        "killed-by-trace"
    );
}

/// Across 20 seeded pct schedules the lost update does show: tests/run_strategies.rs,
/// `run_kills_a_removed_lock_under_pct_schedules`, checks that run's verdict, k/S with
/// its interval, the traces kept under the schedule's name and the replay. The default
/// budget (`mixed`) preempts inside the critical section too, and kills it.
#[test]
fn removed_lock_survives_the_one_default_schedule_not_the_default_budget() {
    let (verdict, reason) = verdict_with(
        "racy_counter",
        "adder#1:remove",
        &["--strategy", "default", "--races=false", "--native", "0"],
    );
    assert_eq!(verdict, "survived");
    assert!(reason.contains("survived 1 schedule: default"), "{reason}");
    let (verdict, reason) = verdict_with("racy_counter", "adder#1:remove", &["--races=false"]);
    assert!(verdict.starts_with("killed-by-"), "{verdict}: {reason}");
    assert!(reason.contains("found by schedule "), "{reason}");
    // Race detection (on by default) needs no unlucky schedule: the one default one
    // runs both unordered accesses.
    let (verdict, reason) =
        verdict_with("racy_counter", "adder#1:remove", &["--strategy", "default"]);
    assert_eq!(verdict, "killed-by-race", "{reason}");
}

/// SystemC module data members are part of the observed state: named `<module>.<member>`
/// (inherited ones too), enums by enumerator name (members and globals), and a mutant
/// whose only observable effect is a member's value at a sync point is killed by trace.
#[test]
fn a_member_value_seen_at_a_sync_point_kills_by_trace() {
    let dir = util::fixture("verdicts/sc_members");
    let out = tempfile::tempdir().unwrap();
    util::syncmut()
        .arg("run")
        .arg(&dir)
        .arg("-o")
        .arg(out.path())
        .assert()
        .success();
    let outcomes = util::outcomes(out.path());
    let m = outcomes["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["mutant"] == "pair_mod::a#2:remove")
        .unwrap();
    assert_eq!(m["verdict"], "killed-by-trace");
    let reason = m["reason"].as_str().unwrap();
    assert!(
        reason.contains("top.p.b at wait(e) @ sc_members.cpp:37 sees top.p.count=2 instead of 1"),
        "{reason}"
    );

    // The original's trace: b's first event sees the member a set before notifying.
    // The runtime wrote it in binary; the run directory keeps it as JSON Lines.
    let kept = std::fs::read_to_string(out.path().join("traces/default/original.jsonl")).unwrap();
    assert!(
        kept.starts_with("{\"syncmut_trace\":1,") && kept.contains("\"top.p.phase\":\"BUSY\""),
        "{kept}"
    );
    let trace =
        syncmut_runtime::trace::read(&out.path().join("traces/default/original.jsonl")).unwrap();
    let b = trace.events.iter().find(|e| e.thread == "top.p.b").unwrap();
    assert_eq!(b.state["top.p.count"], 1);
    assert_eq!(b.state["top.p.phase"], "BUSY");
    assert_eq!(b.state["top.p.seen"], false);
    assert_eq!(b.state["mode"], "MODE_ON");
    let last = trace
        .events
        .iter()
        .rev()
        .find(|e| e.thread == "top.p.b")
        .unwrap();
    assert_eq!(
        (
            &last.state["top.p.count"],
            &last.state["top.p.phase"],
            &last.state["top.p.seen"]
        ),
        (&Value::from(2), &Value::from("DONE"), &Value::from(true))
    );
    // Library members (the sc_event) are not recorded.
    assert!(!b.state.contains_key("top.p.e"));

    // The diff and explain show the member.
    let diff = std::fs::read_to_string(out.path().join("diff/pair_mod__a_2_remove.diff")).unwrap();
    assert!(diff.contains("top.p.count=2"), "{diff}");
    util::syncmut()
        .arg("explain")
        .arg(out.path())
        .arg("pair_mod::a#2:remove")
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "{top.p.count=1 top.p.phase=BUSY}",
        ));
}

/// At a normal exit the thread calling exit() (main returning) is ending, not waiting:
/// the end record lists no pending thread (under the controlled scheduler and without).
#[test]
fn a_normal_pthread_exit_leaves_no_thread_pending() {
    let dir = util::fixture("verdicts/racy_counter");
    let out = tempfile::tempdir().unwrap();
    util::syncmut()
        .arg("mutate")
        .arg(&dir)
        .arg("-o")
        .arg(out.path())
        .assert()
        .success();
    let limits = syncmut_runner::exec::Limits::default();
    for schedule in ["default", ""] {
        let trace_file = out.path().join(format!("trace-{schedule}.jsonl"));
        let env = [
            ("SYNCMUT_TRACE", trace_file.display().to_string()),
            ("SYNCMUT_SCHEDULE", schedule.to_string()),
        ];
        let run = syncmut_runner::exec::execute(&out.path().join("metamutant"), &[], &env, &limits)
            .unwrap();
        assert_eq!(
            run.status,
            syncmut_runner::exec::Status::Exited(0),
            "{}",
            run.stderr.text()
        );
        let end = syncmut_runtime::trace::read(&trace_file)
            .unwrap()
            .end
            .unwrap();
        assert_eq!(
            (end.kind.as_str(), end.deadlock, end.pending.len()),
            ("exit", false, 0),
            "schedule {schedule:?}: {end:?}"
        );
    }
}

#[test]
fn drop_event_runs_on_lists_of_two_and_is_refused_on_a_list_of_one() {
    let ids = [
        "lists::waiter#2:drop-event",
        "lists::watcher#1:drop-event",
        "lists::waiter#1:drop-event",
    ];
    let verdicts = verdicts_with("sc_event_lists", &ids, &[]);
    // `wait(5, SC_NS, e | f)` without `e` wakes only at `f`'s notification, two ns later.
    let (verdict, reason) = &verdicts[0];
    assert_eq!(verdict, "killed-by-output", "{reason}");
    // The method's `next_trigger(e | f)` without `e` misses the second notification of `e`.
    let (verdict, reason) = &verdicts[1];
    assert_eq!(verdict, "killed-by-output", "{reason}");
    // `e | e` holds one event: the runtime says why it cannot run the mutant, which is
    // neither killed nor survived.
    let (verdict, reason) = &verdicts[2];
    assert_eq!(verdict, "error", "{reason}");
    assert!(
        reason.contains("drop-event") && reason.contains("holds 1 event"),
        "{reason}"
    );
}

/// A timeout kill is confirmed before it is claimed. `SYNCMUT_MUTANT_TIMEOUT_MS=0` makes
/// every mutant run's first limit expire at once, as a machine too loaded for the
/// derived limit would (deterministically, not by timing): each such run runs again
/// under twice its derived limit, finishes, and is judged by that run, so the verdicts
/// are those of an unloaded run and no mutant is killed by timeout; a real hang times
/// out again, and its reason says so.
#[test]
fn a_timeout_kill_is_confirmed_under_a_larger_limit() {
    let run = |fixture: &str, first_timeout: Option<&str>| {
        let out = tempfile::tempdir().unwrap();
        let mut command = util::syncmut();
        command
            .arg("run")
            .arg(util::fixture("verdicts").join(fixture))
            // Controlled schedules alone: their verdicts repeat exactly.
            .args([
                "--gen",
                "none",
                "--strategy",
                "default",
                "--native",
                "0",
                "-j",
                "2",
            ])
            .arg("-o")
            .arg(out.path());
        if let Some(ms) = first_timeout {
            command.env("SYNCMUT_MUTANT_TIMEOUT_MS", ms);
        }
        command.assert().success();
        util::outcomes(out.path())
    };
    let verdicts = |outcomes: &Value| -> Vec<(String, String)> {
        outcomes["mutants"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                (
                    m["mutant"].as_str().unwrap().to_string(),
                    m["verdict"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    let unloaded = run("racy_counter", None);
    let loaded = run("racy_counter", Some("0"));
    assert_eq!(
        verdicts(&loaded),
        verdicts(&unloaded),
        "a run slowed by the machine is judged by its confirmation"
    );
    let survivor = loaded["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["verdict"] == "survived")
        .expect("a survivor");
    let reason = survivor["reason"].as_str().unwrap();
    assert!(
        reason.contains("timed out under the first limit but finished when run again"),
        "{reason}"
    );

    let hang = run("timeout", Some("0"));
    let m = hang["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["mutant"] == "main#1:remove")
        .unwrap();
    assert_eq!(m["verdict"], "killed-by-timeout", "{m}");
    assert!(
        m["reason"]
            .as_str()
            .unwrap()
            .contains("confirmed: the same run timed out again under"),
        "{m}"
    );
}

/// A test that assumes an order the design does not guarantee (main checks that the
/// worker it created has not started): the original passes under the default schedule
/// and fails its assertion under others. The test is kept, the failing schedules are a
/// finding (in baseline.json and the terminal, with the value that replays each), and
/// mutants are judged under the schedules where the original passes: the removed join
/// is still killed by its output.
#[test]
fn a_flaky_test_is_a_finding_and_judges_mutants_where_the_original_passes() {
    let out = tempfile::tempdir().unwrap();
    let run = util::syncmut()
        .arg("run")
        .arg(util::fixture("verdicts/flaky_order"))
        .args(["--gen", "none", "-o"])
        .arg(out.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert_eq!(run.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("flaky test: the original fails under")
            && stdout.contains("replay with SYNCMUT_SCHEDULE="),
        "{stdout}"
    );
    let baseline: Value =
        serde_json::from_slice(&std::fs::read(out.path().join("baseline.json")).unwrap()).unwrap();
    let test = &baseline[0];
    assert_eq!(test["usable"], true, "{baseline}");
    let flaky = test["flaky"].as_array().unwrap();
    assert!(!flaky.is_empty(), "{baseline}");
    assert!(
        flaky[0]["failure"].as_str().unwrap().contains("SIGABRT"),
        "{baseline}"
    );
    // The schedule named replays the failure.
    let schedule = flaky[0]["schedule"].as_str().unwrap();
    let replayed = std::process::Command::new(out.path().join("metamutant"))
        .env("SYNCMUT_SCHEDULE", schedule)
        .env("SYNCMUT_ACTIVE", "")
        .output()
        .unwrap();
    assert!(!replayed.status.success(), "{schedule} did not fail again");
    let outcomes = util::outcomes(out.path());
    let removed_join = outcomes["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["mutant"] == "main#3:remove")
        .unwrap();
    assert_eq!(
        removed_join["verdict"], "killed-by-output",
        "{removed_join}"
    );
}

/// A value only one thread reads (tests/fixtures/verdicts/private_tail): its last write
/// moved out of the critical section shows in another thread's snapshot at a lock under
/// some interleavings, but that thread never reads it, so it is no evidence. The
/// sampled strategies and exhaustive dfs agree: no kill.
#[test]
fn a_value_the_thread_never_reads_is_no_evidence_under_any_strategy() {
    let mutant = "recorder#4:shrink-critical-section";
    let only = ["--mutant", "^recorder#4:shrink-critical-section$"];
    for flags in [&[][..], &["--schedules", "100"][..]] {
        let (verdict, reason) = verdict_with("private_tail", mutant, &[flags, &only].concat());
        assert_eq!(verdict, "survived", "{flags:?}: {reason}");
    }
    let (verdict, reason) = verdict_with(
        "private_tail",
        mutant,
        &[&["--strategy", "dfs"][..], &only].concat(),
    );
    assert_eq!(verdict, "equivalent-exhaustive", "{reason}");
}

/// A dropped `give` of a declared wrapper (tests/fixtures/verdicts/late_release) that
/// every controlled schedule survives, since under the scheduler the napping thread
/// always takes the gate last, hangs with real threads, where the nap is shorter than
/// the other thread's work: plain `run` confirms survivors natively and kills it, once
/// neither the original's bounded search nor further runs of it with real threads
/// hang; `--native 0` turns that off.
#[test]
fn a_survivor_of_every_controlled_schedule_is_killed_with_real_threads() {
    let only = ["--mutant", "^late#2:remove$"];
    let (verdict, reason) = verdict_with("late_release", "late#2:remove", &only);
    assert_eq!(verdict, "killed-by-timeout", "{reason}");
    assert!(
        reason.contains("with real threads (native run "),
        "{reason}"
    );
    // Before the hang was called a kill, it was looked for in the original's search
    // within 2 preemptions, in the original's run in the order of the hanging run's
    // events and in 40 more runs of the original with real threads beside the
    // baseline's 10.
    assert!(
        reason.contains(
            "in its search of every schedule with at most 2 preemptions, 1 in the order of a run's events with real threads, 50 with real threads)"
        ),
        "{reason}"
    );
    let (verdict, reason) = verdict_with(
        "late_release",
        "late#2:remove",
        &[&["--native", "0"][..], &only].concat(),
    );
    assert_eq!(verdict, "survived", "{reason}");
    assert!(reason.contains("survived 8 schedules"), "{reason}");
}

/// Two threads that take turns at one lock with real threads (a mutant's runs pace them
/// so, tests/fixtures/verdicts/taking_turns) print ABABABAB, an order of the original
/// that needs a preemption at almost every unlock: beyond its search within 2
/// preemptions, and too rare for its runs with real threads. The original run in the
/// order of the mutant's events prints it too, so the equivalent mutant (a trylock no
/// other thread contends) survives; it was killed by that output before.
#[test]
fn an_order_of_real_threads_the_original_shows_in_that_order_kills_nothing() {
    let (verdict, reason) = verdict_with(
        "taking_turns",
        "main#3:lock-to-trylock",
        &["--mutant", "^main#3:lock-to-trylock$"],
    );
    assert_eq!(verdict, "survived", "{reason}");
    assert!(
        reason.contains("run(s) with real threads differed from the baseline's runs of the original, but its search within 2 preemptions, its run in the order of that run's events or more of its runs with real threads showed the same"),
        "{reason}"
    );
}
