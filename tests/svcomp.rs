//! `explore` with a verifier's semantics: properties (`--property`), SV-COMP task
//! definitions (`explore TASK.yml`, `--svcomp`), violation witnesses (format 2.0), on
//! the programs in tests/fixtures/svcomp, written in the shapes of SV-COMP tasks.

mod util;

use std::path::Path;

/// Runs `explore` on `design` into `out`; the exit code, stdout and stderr.
fn explore(design: &Path, out: &Path, extra: &[&str]) -> (i32, String, String) {
    let output = util::syncmut()
        .arg("explore")
        .arg(design)
        .arg("-o")
        .arg(out)
        .args(extra)
        .output()
        .unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn fixture(name: &str) -> std::path::PathBuf {
    util::fixture(&format!("svcomp/{name}"))
}

/// `abort()` in `assume_abort_if_not` discards the path under a named property; for
/// the default it is a crash.
#[test]
fn abort_as_assume_is_safe_under_unreach_call() {
    let dir = tempfile::tempdir().unwrap();
    let design = fixture("abort_assume.c");
    let (code, text, _) = explore(
        &design,
        &dir.path().join("default"),
        &["--schedules", "100"],
    );
    assert_eq!(code, 9, "{text}");
    assert!(text.contains("BUG crash"), "{text}");
    let (code, text, _) = explore(
        &design,
        &dir.path().join("unreach"),
        &["--schedules", "100", "--property", "unreach-call"],
    );
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("no bug found"), "{text}");
    assert!(
        text.contains("ended by abort(): paths the program discards"),
        "{text}"
    );
    // Every run draws its input, so the search cannot cover every value.
    assert!(
        text.contains("verdict: unknown (the program reads nondet inputs"),
        "{text}"
    );
}

/// A deadlock is a note under unreach-call (the search goes on) and the violation under
/// no-deadlock.
#[test]
fn a_lost_wakeup_is_a_note_under_unreach_call_and_a_violation_under_no_deadlock() {
    let dir = tempfile::tempdir().unwrap();
    let design = fixture("lost_wakeup.c");
    let (code, text, _) = explore(
        &design,
        &dir.path().join("unreach"),
        &["--schedules", "300", "--property", "unreach-call"],
    );
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("showed a deadlock, which unreach-call does not forbid (first: run "),
        "{text}"
    );
    assert!(text.contains("verdict: unknown"), "{text}");
    let (code, text, _) = explore(
        &design,
        &dir.path().join("deadlock"),
        &[
            "--schedules",
            "300",
            "--property",
            "no-deadlock",
            "--svcomp",
        ],
    );
    assert_eq!(code, 9, "{text}");
    assert!(text.contains("BUG deadlock"), "{text}");
    assert!(
        text.contains("SV-COMP verdict: false(no-deadlock)"),
        "{text}"
    );
    // A deadlock is not a call of the error function: the format has no target for it.
    assert!(!dir.path().join("deadlock/witness.yml").exists());
}

/// A call of an error function whose body does nothing is still the violation.
#[test]
fn calling_an_empty_error_function_violates_unreach_call() {
    let dir = tempfile::tempdir().unwrap();
    let (code, text, _) = explore(
        &fixture("empty_error_function.c"),
        dir.path(),
        &["--property", "unreach-call"],
    );
    assert_eq!(code, 9, "{text}");
    assert!(
        text.contains(
            "error function called at empty_error_function.c:20:9 in main calls reach_error"
        ),
        "{text}"
    );
    assert!(text.contains("verdict: false(unreach-call)"), "{text}");
}

/// An ILP32 task's 24-byte `pthread_mutex_t`, with a counter right after it: built as it
/// is, this machine's `pthread_mutex_init` writes 40 bytes and zeroes the counter, and
/// the task "fails" its check (the same program labelled LP64 shows it). The task's
/// pthread types are widened, said so, and no bug is claimed; a bug found is still
/// named on the original file.
#[test]
fn an_ilp32_tasks_narrow_mutex_is_widened_and_claims_no_bug() {
    let dir = tempfile::tempdir().unwrap();
    let (code, text, stderr) = explore(
        &fixture("narrow_mutex.yml"),
        &dir.path().join("ilp32"),
        &["--svcomp"],
    );
    assert_eq!(code, 0, "{text}\n{stderr}");
    assert!(!text.contains("BUG"), "{text}");
    assert!(!text.contains("SV-COMP verdict: false"), "{text}");
    assert!(
        stderr.contains("pthread_mutex_t: 24 → 40 bytes"),
        "{stderr}"
    );
    // The same input under LP64 keeps its types, and the overrun shows.
    let lp64 = dir.path().join("narrow_mutex_lp64.yml");
    let task = std::fs::read_to_string(fixture("narrow_mutex.yml")).unwrap();
    std::fs::write(&lp64, task.replace("ILP32", "LP64")).unwrap();
    std::fs::copy(fixture("narrow_mutex.i"), dir.path().join("narrow_mutex.i")).unwrap();
    let (code, text, _) = explore(&lp64, &dir.path().join("lp64"), &["--svcomp"]);
    assert_eq!(code, 9, "{text}");
    assert!(
        text.contains("error function called at narrow_mutex.i:"),
        "{text}"
    );
}

/// A task as published: its input file, properties (one syncmut does not check, said
/// so), ILP32 (said so, built as LP64), the expected verdict beside the result, and a
/// violation witness whose target is the call of reach_error.
#[test]
fn a_task_is_explored_with_its_properties_and_gets_a_witness() {
    let dir = tempfile::tempdir().unwrap();
    let (code, text, stderr) = explore(&fixture("lost_update.yml"), dir.path(), &["--svcomp"]);
    assert_eq!(code, 9, "{text}\n{stderr}");
    assert!(
        text.contains("SV-COMP verdict: false(unreach-call) (expected false)"),
        "{text}"
    );
    assert!(
        stderr.contains("valid-memsafety.prp is not one syncmut checks"),
        "{stderr}"
    );
    assert!(stderr.contains("data model ILP32 asked"), "{stderr}");
    let witness: serde_yaml::Value =
        serde_yaml::from_slice(&std::fs::read(dir.path().join("witness.yml")).unwrap()).unwrap();
    check_witness_keys(&witness);
    let entry = &witness[0];
    let task = &entry["metadata"]["task"];
    assert_eq!(task["input_files"][0].as_str(), Some("lost_update.c"));
    assert_eq!(
        task["specification"].as_str(),
        Some("G ! call(reach_error())")
    );
    let segments = entry["content"].as_sequence().unwrap();
    let last = &segments.last().unwrap()["segment"][0]["waypoint"];
    assert_eq!(last["type"].as_str(), Some("target"));
    assert_eq!(
        last["location"]["file_name"].as_str(),
        Some("lost_update.c")
    );
    // The line of `reach_error(); /* the error location */` in the fixture.
    let source = std::fs::read_to_string(fixture("lost_update.c")).unwrap();
    let line = source
        .lines()
        .position(|l| l.contains("the error location"))
        .unwrap()
        + 1;
    assert_eq!(last["location"]["line"].as_u64(), Some(line as u64));
    assert_eq!(last["location"]["function"].as_str(), Some("main"));
}

/// The keys SV-COMP's witness format 2.0 requires of a violation witness. No JSON schema
/// of format 2.0 was at hand, so they are checked here from the format's description: a
/// list of `violation_sequence` entries; metadata with format_version "2.0", a uuid, a
/// creation time, the producer's name and version, the task (input files, their
/// SHA-256, specification, data model, language); content of segments, each one or more
/// waypoints ending in one to `follow`, the last segment's last waypoint the target.
fn check_witness_keys(witness: &serde_yaml::Value) {
    let entries = witness.as_sequence().expect("a list of entries");
    assert_eq!(entries.len(), 1);
    let entry = &entries[0];
    assert_eq!(entry["entry_type"].as_str(), Some("violation_sequence"));
    let metadata = &entry["metadata"];
    assert_eq!(metadata["format_version"].as_str(), Some("2.0"));
    let uuid = metadata["uuid"].as_str().unwrap();
    let groups: Vec<usize> = uuid.split('-').map(str::len).collect();
    assert_eq!(groups, [8, 4, 4, 4, 12], "{uuid}");
    let time = metadata["creation_time"].as_str().unwrap();
    assert!(
        time.len() == 20 && time.ends_with('Z') && &time[10..11] == "T",
        "{time}"
    );
    assert!(metadata["producer"]["name"].is_string());
    assert!(metadata["producer"]["version"].is_string());
    let task = &metadata["task"];
    for key in ["specification", "data_model", "language"] {
        assert!(task[key].is_string(), "task.{key}");
    }
    for file in task["input_files"].as_sequence().unwrap() {
        let hash = task["input_file_hashes"][file.as_str().unwrap()]
            .as_str()
            .unwrap();
        assert!(hash.len() == 64 && hash.chars().all(|c| c.is_ascii_hexdigit()));
    }
    let content = entry["content"].as_sequence().unwrap();
    assert!(!content.is_empty());
    for (i, segment) in content.iter().enumerate() {
        let waypoints = segment["segment"].as_sequence().unwrap();
        let last = &waypoints.last().unwrap()["waypoint"];
        assert_eq!(last["action"].as_str(), Some("follow"));
        for w in waypoints {
            let w = &w["waypoint"];
            let kind = w["type"].as_str().unwrap();
            assert!(["assumption", "target"].contains(&kind), "{kind}");
            assert_eq!(kind == "target", i + 1 == content.len());
            assert!(w["location"]["file_name"].is_string());
            assert!(w["location"]["line"].as_u64().unwrap() >= 1);
            if kind == "assumption" {
                assert_eq!(w["constraint"]["format"].as_str(), Some("c_expression"));
                assert!(w["constraint"]["value"].is_string());
            }
        }
    }
}

/// A task file is untrusted: malformed, it is refused with exit 2 and named, never a
/// panic; its input files must be regular files.
#[test]
fn malformed_tasks_are_refused_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("garbage.yml", "[: : :\n"),
        ("list.yml", "- a\n- b\n"),
        ("version.yml", "format_version: '3.0'\ninput_files: a.c\n"),
        (
            "dir.yml",
            "format_version: '2.0'\ninput_files: '.'\nproperties:\n  - property_file: unreach-call.prp\n",
        ),
        (
            "props.yml",
            "format_version: '2.0'\ninput_files: 'garbage.yml'\nproperties:\n  - property_file: valid-memsafety.prp\n",
        ),
        (
            "language.yml",
            "format_version: '2.0'\ninput_files: 'garbage.yml'\noptions:\n  language: Java\n",
        ),
    ];
    for (name, text) in cases {
        let file = dir.path().join(name);
        std::fs::write(&file, text).unwrap();
        let (code, _, stderr) = explore(&file, &dir.path().join("out"), &[]);
        assert_eq!(code, 2, "{name}: {stderr}");
        assert!(
            stderr.contains(&file.display().to_string()),
            "{name}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{name}: {stderr}");
    }
}

/// Pre-C99 code (implicit declarations, implicit int, a value-less return) that clang 16
/// rejects by default is built again with those errors as warnings, said in one line,
/// and explored.
#[test]
fn old_c_builds_with_its_errors_demoted_and_explores() {
    let dir = tempfile::tempdir().unwrap();
    let (code, text, stderr) = explore(
        &fixture("old_style.c"),
        dir.path(),
        &["--property", "unreach-call"],
    );
    let said: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("rejects this pre-C99 code"))
        .collect();
    assert_eq!(said.len(), 1, "{stderr}");
    for flag in [
        "-Wno-error=implicit-function-declaration",
        "-Wno-error=implicit-int",
        "-Wno-error=return-type",
    ] {
        assert!(said[0].contains(flag), "{stderr}");
    }
    // The two unlocked deposits can lose one: the error function is reached.
    assert_eq!(code, 9, "{text}\n{stderr}");
    assert!(text.contains("verdict: false(unreach-call)"), "{text}");
}

/// An error function whose body is `assert(0)` aborts with glibc's message naming it in
/// clang's words (`void reach_error()`); the call is what unreach-call forbids.
#[test]
fn an_assert_in_the_error_function_violates_unreach_call() {
    let dir = tempfile::tempdir().unwrap();
    let (code, text, _) = explore(
        &fixture("assert_in_error_function.c"),
        dir.path(),
        &["--property", "unreach-call"],
    );
    assert_eq!(code, 9, "{text}");
    assert!(
        text.contains("BUG assertion failure: error function called at assert_in_error_function.c:19:9 in check calls reach_error"),
        "{text}"
    );
    assert!(dir.path().join("witness.yml").exists());
}

/// A hang at sync level sends the search to memory level under a property too, as it
/// does without one: there the reader runs between the writer's stores.
#[test]
fn a_hang_at_sync_level_is_explored_again_at_memory_level_under_a_property() {
    let dir = tempfile::tempdir().unwrap();
    let (code, text, stderr) = explore(
        &fixture("spin_then_check.c"),
        dir.path(),
        &[
            "--property",
            "unreach-call",
            "--timeout",
            "1",
            "--schedules",
            "30",
        ],
    );
    assert!(
        stderr.contains("exploring again at memory level"),
        "{stderr}"
    );
    assert_eq!(code, 9, "{text}\n{stderr}");
    assert!(text.contains("verdict: false(unreach-call)"), "{text}");
}

/// A safe task whose main creates threads forever: every run is cut at the thread bound
/// (all 50 runs end), and the verdict says it holds up to that bound only (also when a
/// time limit ends the search); the same program's bug is found below the bound.
#[test]
fn endless_thread_creation_is_explored_up_to_the_thread_bound() {
    let dir = tempfile::tempdir().unwrap();
    let (code, text, err) = explore(
        &fixture("spawn_forever.yml"),
        &dir.path().join("safe"),
        &["--svcomp", "--threads", "4", "--schedules", "50"],
    );
    assert_eq!(code, 0, "{text}{err}");
    assert!(
        text.contains("no bug found with at most 4 threads per run: 50 of 50 run(s)"),
        "{text}"
    );
    assert!(
        text.contains("SV-COMP verdict: unknown (expected true)"),
        "{text}"
    );
    assert!(
        err.contains("unknown: bound: 50 run(s) asked for more than 4 threads"),
        "{err}"
    );
    // Under a time limit the search goes on to it, and the verdict names both bounds.
    let (code, text, err) = explore(
        &fixture("spawn_forever.yml"),
        &dir.path().join("timed"),
        &["--svcomp", "--threads", "4", "--time-limit", "3"],
    );
    assert_eq!(code, 0, "{text}{err}");
    assert!(
        text.contains("no bug found before the time limit"),
        "{text}"
    );
    assert!(
        text.contains("no bug found with at most 4 threads per run"),
        "{text}"
    );
    assert!(
        err.contains("unknown: bound: the time limit (--time-limit) ran out")
            && err.contains("; and ")
            && err.contains("asked for more than 4 threads"),
        "{err}"
    );
    // The bad twin's lost increment needs only two workers.
    let (code, text, _) = explore(
        &util::root().join("tests/corpus/twins/spawn_forever_bad.c"),
        &dir.path().join("bad"),
        &["--svcomp", "--property", "unreach-call", "--threads", "4"],
    );
    assert_eq!(code, 9, "{text}");
    assert!(
        text.contains("SV-COMP verdict: false(unreach-call)"),
        "{text}"
    );
}

/// A program with neither synchronization calls nor shared memory, whose bug needs only
/// nondet values, is explored over its inputs (one thread, one schedule) and found,
/// instead of being refused as having no schedule to explore.
#[test]
fn a_bug_in_the_inputs_alone_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let (code, text, err) = explore(
        &fixture("nondet_only.c"),
        &dir.path().join("out"),
        &["--svcomp", "--property", "unreach-call"],
    );
    assert_eq!(code, 9, "{text}{err}");
    assert!(
        err.contains(
            "no synchronization calls and no shared memory accesses: exploring its nondet inputs"
        ),
        "{err}"
    );
    assert!(
        text.contains("SV-COMP verdict: false(unreach-call)"),
        "{text}"
    );
}

/// A bug that needs both a small nonzero input and an exact interleaving (one worker
/// drawn, main preempted at its last read of the count) is found by the mix's dfs passes
/// over drawn inputs: the seeded runs draw inputs but schedules at random, and the dfs
/// pass with every value 0 only sees main discard its path. Its replay names it an
/// assertion failure, as explore does.
#[test]
fn dfs_goes_on_over_drawn_inputs_after_the_pass_with_every_value_0() {
    let dir = tempfile::tempdir().unwrap();
    let (code, text, err) = explore(
        &fixture("drawn_workers.c"),
        &dir.path().join("out"),
        &["--svcomp", "--property", "unreach-call"],
    );
    assert_eq!(code, 9, "{text}{err}");
    assert!(
        text.contains("SV-COMP verdict: false(unreach-call)"),
        "{text}"
    );
    assert!(
        text.contains("with every input value 0\n  dfs over drawn input values: "),
        "{text}"
    );
    assert!(text.contains("dfs prefix)"), "found by a dfs run:\n{text}");
    assert!(text.contains("__VERIFIER_nondet_* returned 1"), "{text}");
    // The replay names the bug as explore did, not by the signal that ended the run.
    util::syncmut()
        .arg("replay")
        .arg(dir.path().join("out"))
        .assert()
        .success()
        .stdout(predicates::str::contains(": assertion failure: "))
        .stdout(predicates::str::contains("reproduced"));
}

/// `--time-limit` ends a search whose runs each hang (a spin on a local copy of a shared
/// turn that counts its rounds) with what it covered and an `unknown` that names the
/// bound, instead of being killed by an outer limit with nothing said; the task file is
/// in format 1.0, which many published tasks still carry.
#[test]
fn the_time_limit_ends_the_search_with_an_unknown() {
    let dir = tempfile::tempdir().unwrap();
    let (code, text, err) = explore(
        &fixture("counting_spin.yml"),
        &dir.path().join("out"),
        &["--svcomp", "--timeout", "1", "--time-limit", "4"],
    );
    assert_eq!(code, 0, "{text}{err}");
    assert!(
        text.contains("no bug found before the time limit (--time-limit 4)"),
        "{text}"
    );
    assert!(
        text.contains("SV-COMP verdict: unknown (expected true)"),
        "{text}"
    );
    assert!(
        err.contains("unknown: bound: the time limit (--time-limit) ran out"),
        "{err}"
    );
    // The first run hangs in the counting spin: it is said as cut, not as none at all.
    assert!(
        text.contains("(and one more cut at the time limit, not judged)"),
        "{text}"
    );
}

/// No run goes past `--time-limit`: a run that hangs when less time is left than its
/// timeout is cut at the limit and not judged (the build before ran it for its whole
/// timeout, confirmed it under twice that, and reported a hang, far past the limit).
#[test]
fn a_run_is_cut_at_the_time_limit_and_not_judged() {
    let dir = tempfile::tempdir().unwrap();
    let (code, text, err) = explore(
        &fixture("counting_spin.yml"),
        &dir.path().join("out"),
        &["--svcomp", "--timeout", "30", "--time-limit", "4"],
    );
    assert_eq!(code, 0, "{text}{err}");
    assert!(!text.contains("hang"), "{text}");
    assert!(
        err.contains("unknown: bound: the time limit (--time-limit) ran out"),
        "{err}"
    );
}

/// A spin on a local copy of a shared turn never ends once entered, and no longer hangs:
/// the run ends as an endless loop when no other thread can go on, which unreach-call
/// does not forbid, and the search covers every schedule and answers `true` (the build
/// before hung in each such run until the timeout).
#[test]
fn a_spin_on_a_local_copy_ends_its_run_and_the_task_gets_a_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let (code, text, err) = explore(
        &fixture("local_spin.yml"),
        &dir.path().join("out"),
        &["--svcomp", "--timeout", "60"],
    );
    assert_eq!(code, 0, "{text}{err}");
    assert!(
        text.contains("showed an endless loop, which unreach-call does not forbid"),
        "{text}"
    );
    assert!(text.contains("loops forever at local_spin.c:15"), "{text}");
    assert!(
        text.contains("SV-COMP verdict: true (expected true)"),
        "{text}"
    );
}

/// Under `termination` the same endless loop is the violation, named where it loops.
#[test]
fn an_endless_loop_violates_termination() {
    let dir = tempfile::tempdir().unwrap();
    let (code, text, err) = explore(
        &fixture("local_spin.c"),
        &dir.path().join("out"),
        &["--property", "termination", "--timeout", "60"],
    );
    assert_eq!(code, 9, "{text}{err}");
    assert!(
        text.contains(
            "BUG endless loop: syncmut runtime: livelock: T1 loops forever at local_spin.c:15"
        ),
        "{text}"
    );
}

/// An endless loop inside an atomic section ends the run at once: no other thread may run
/// until the section ends, which it never does.
#[test]
fn an_endless_loop_in_an_atomic_section_ends_the_run_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let (code, text, err) = explore(
        &fixture("atomic_spin.c"),
        &dir.path().join("out"),
        &["--property", "termination", "--timeout", "60"],
    );
    assert_eq!(code, 9, "{text}{err}");
    assert!(
        text.contains("loops forever at atomic_spin.c:15")
            && text.contains("it is inside an atomic section, so no other thread may run"),
        "{text}"
    );
}

/// A dfs that covered every schedule within its preemption bound has not covered every
/// schedule: the answer is `unknown`, naming the bound, never `true` (relay.c's error
/// needs seven switches between its threads).
#[test]
fn a_bounded_dfs_never_answers_true() {
    let dir = tempfile::tempdir().unwrap();
    let (code, text, err) = explore(
        &fixture("relay.c"),
        &dir.path().join("out"),
        &[
            "--svcomp",
            "--property",
            "unreach-call",
            "--strategy",
            "dfs",
            "--preemptions",
            "1",
        ],
    );
    assert_eq!(code, 0, "{text}{err}");
    assert!(text.contains("the bounded space is exhausted"), "{text}");
    assert!(
        err.contains("unknown: bound: every schedule with at most 1 preemption(s) was covered"),
        "{err}"
    );
    assert!(text.contains("SV-COMP verdict: unknown"), "{text}");
}

/// With a time limit and no run budget given, dfs goes on past the 1000 runs: a bug that
/// needs seven switches between two threads' atomic steps is beyond the bounded passes,
/// round-robin and the seeded phases, and only the unbounded pass finds it.
#[test]
fn the_time_limit_lets_dfs_go_past_the_run_budget() {
    let dir = tempfile::tempdir().unwrap();
    let (code, text, err) = explore(
        &fixture("relay.c"),
        &dir.path().join("out"),
        &[
            "--svcomp",
            "--property",
            "unreach-call",
            "--time-limit",
            "100",
        ],
    );
    assert_eq!(code, 9, "{text}{err}");
    assert!(
        text.contains("SV-COMP verdict: false(unreach-call)"),
        "{text}"
    );
    let runs: usize = text
        .split("explored ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap();
    assert!(runs > 1000, "{text}");
}

/// Runs `explore` under unreach-call on the default schedule alone (dfs's first run): one
/// deterministic run. Its exit code and stdout.
fn explore_default_schedule(name: &str, out: &Path) -> (i32, String) {
    let (code, text, _) = explore(
        &fixture(name),
        out,
        &[
            "--property",
            "unreach-call",
            "--strategy",
            "dfs",
            "--schedules",
            "1",
        ],
    );
    (code, text)
}

/// A failed assumption at the start of an atomic function (SV-COMP's blocking acquire)
/// makes its thread wait there while the others go on, instead of ending the run: on the
/// default schedule the contender tries while the holder is inside, and only then does
/// the watcher run and reach the error location.
#[test]
fn a_failed_assumption_in_an_atomic_function_waits_and_the_others_go_on() {
    let dir = tempfile::tempdir().unwrap();
    let (code, text) = explore_default_schedule("atomic_wait.c", dir.path());
    assert_eq!(code, 9, "{text}");
    assert!(text.contains("in watcher calls reach_error"), "{text}");
}

/// An atomic function that changed something another thread sees before its guard
/// failed does not wait there: its path is discarded, so the watcher never sees a
/// half-done section and no bug is reported.
#[test]
fn an_atomic_function_that_acted_before_its_failed_guard_is_discarded() {
    let dir = tempfile::tempdir().unwrap();
    let (code, text) = explore_default_schedule("atomic_wait_safe.c", &dir.path().join("one"));
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("1 run(s) ended by abort()"), "{text}");
    // Nor on any schedule within a small budget.
    let (code, text, _) = explore(
        &fixture("atomic_wait_safe.c"),
        &dir.path().join("many"),
        &["--property", "unreach-call", "--schedules", "300"],
    );
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("no bug found"), "{text}");
}

/// `abort()` outside an atomic section still discards its path, but its thread first lets
/// the others go on: on the default schedule the discarding thread runs first, and the
/// reader it leaves to run reaches the error location.
#[test]
fn a_thread_about_to_discard_its_path_lets_the_others_go_first() {
    let dir = tempfile::tempdir().unwrap();
    let (code, text) = explore_default_schedule("discard_last.c", dir.path());
    assert_eq!(code, 9, "{text}");
    assert!(text.contains("in reader calls reach_error"), "{text}");
}

/// A waiting thread does not try again within its run, so everyone else may end up
/// blocked on it (here main releases the lock and joins the worker): that run is
/// discarded, never a deadlock, which even explore's default (every bug a violation)
/// would report.
#[test]
fn a_run_stuck_behind_a_waiting_thread_is_discarded_not_a_deadlock() {
    let dir = tempfile::tempdir().unwrap();
    let (code, text, _) = explore(
        &fixture("atomic_wait_join.c"),
        dir.path(),
        &["--strategy", "dfs", "--schedules", "1"],
    );
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("(1 ended by __VERIFIER_assume: not bugs)") && !text.contains("deadlock"),
        "{text}"
    );
}
