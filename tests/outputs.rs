//! What the original shows and how a mutant's outputs are compared: the baseline table
//! names end states and failing or idle tests instead of calling them "ok", and a mutant
//! that changes who is blocked at the end is killed by that. Fixtures under
//! tests/fixtures/outputs/.

mod util;

use std::path::Path;
use util::fixture;

/// `syncmut run --gen none` of a fixture: its run directory and stdout.
fn run(name: &str, extra: &[&str]) -> (tempfile::TempDir, String) {
    run_with(name, extra, &[])
}

/// [`run`] with variables set in syncmut's environment.
fn run_with(name: &str, extra: &[&str], vars: &[(&str, &str)]) -> (tempfile::TempDir, String) {
    let out = tempfile::tempdir().unwrap();
    let output = util::syncmut()
        .envs(vars.iter().copied())
        .args(["run", "--gen", "none", "-j", "2", "-o"])
        .arg(out.path())
        .args(extra)
        .arg(fixture(&format!("outputs/{name}")))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "run {name}:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    (out, stdout)
}

/// The baseline table's row of a test.
fn row<'a>(stdout: &'a str, test: &str) -> &'a str {
    stdout
        .lines()
        .find(|l| l.split_whitespace().next() == Some(test))
        .unwrap_or_else(|| panic!("no row for {test}:\n{stdout}"))
}

/// A mutant's (verdict, reason) in outcomes.json.
fn outcome(out: &Path, mutant: &str) -> (String, String) {
    let outcomes = util::outcomes(out);
    let m = outcomes["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["mutant"] == mutant)
        .unwrap_or_else(|| panic!("no {mutant}"));
    (
        m["verdict"].as_str().unwrap().to_string(),
        judged(m["reason"].as_str().unwrap_or("")),
    )
}

/// A reason without what the schedules add after it (which original run it was compared
/// with, which schedule found it): the difference itself.
fn judged(reason: &str) -> String {
    let cut = [
        "; closest original run:",
        "; no run of the original",
        "; found by schedule",
    ]
    .iter()
    .filter_map(|s| reason.find(s))
    .min();
    reason[..cut.unwrap_or(reason.len())].to_string()
}

#[test]
fn a_bounded_simulation_ending_with_blocked_processes_says_who_and_where() {
    let (out, stdout) = run("sc_blocked_end", &[]);
    let bounded = row(&stdout, "bounded");
    assert!(
        bounded.contains(
            "ends with 2 processes blocked: p.producer at queue.write(i) @ blocked_end.cpp:23, p.waiter at wait(never) @ blocked_end.cpp:30"
        ),
        "{stdout}"
    );
    assert!(!bounded.ends_with(" ok"), "{stdout}");
    // Removing the producer's write leaves the consumer blocked instead: the only
    // difference is who is blocked where when the simulation stops.
    let (verdict, reason) = outcome(out.path(), "pipe::producer#1:remove");
    assert_eq!(verdict, "killed-by-trace");
    assert!(
        reason.starts_with(
            "blocked at the end: p.consumer waits at queue.read() @ blocked_end.cpp:27"
        ),
        "{reason}"
    );
}

#[test]
fn a_test_whose_original_fails_or_reaches_nothing_is_flagged() {
    let (_out, stdout) = run("exit_one", &[]);
    assert!(
        row(&stdout, "fails").ends_with("original ends with exit 1"),
        "{stdout}"
    );
    assert!(
        row(&stdout, "idle").ends_with("reaches no synchronization call: no mutant runs on it"),
        "{stdout}"
    );
    assert!(
        !stdout.lines().take(3).any(|l| l.ends_with(" ok")),
        "{stdout}"
    );
}

/// The reason of a mutant's run on one test.
fn run_reason(out: &Path, mutant: &str, test: &str) -> (String, String) {
    let outcomes = util::outcomes(out);
    let m = outcomes["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["mutant"] == mutant)
        .unwrap_or_else(|| panic!("no {mutant}"));
    let r = m["runs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["test"] == test)
        .unwrap_or_else(|| panic!("{mutant} not run on {test}"));
    (
        r["verdict"].as_str().unwrap().to_string(),
        judged(r["reason"].as_str().unwrap_or("")),
    )
}

/// Outputs are compared whole and byte for byte: one byte, 0x81 instead of 0x80 (not
/// UTF-8), kills by output, whether it is the first line or comes after 4.7 MB; the reason
/// names the line, its byte offset and both bytes. The deadlocking mutant's stderr is kept
/// and `explain` shows it.
#[test]
fn one_non_utf8_byte_after_megabytes_of_output_kills() {
    // Both tests kill the mutant; a kill would end its remaining tests.
    let (out, _) = run_with("late_byte", &[], &[("SYNCMUT_NO_PRUNE", "1")]);
    assert_eq!(
        run_reason(out.path(), "main#1:remove", "byte"),
        (
            "killed-by-output".to_string(),
            r#"stdout line 1 (byte 0): "\x80" instead of "\x81""#.to_string()
        )
    );
    assert_eq!(
        run_reason(out.path(), "main#1:remove", "big"),
        (
            "killed-by-output".to_string(),
            r#"stdout line 100001 (byte 4700000): "\x80" instead of "\x81""#.to_string()
        )
    );
    let explain = util::syncmut()
        .arg("explain")
        .arg(out.path())
        .arg("worker#2:remove")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&explain.stdout);
    assert!(
        text.contains("\nstderr of the mutant:\n  syncmut runtime: deadlock detected"),
        "{text}"
    );
}

/// `__VERIFIER_error()` is an assertion failure for `run` (killed-by-assertion) and for
/// `explore` (an assertion failure bug), named the same way.
#[test]
fn the_sv_comp_error_call_is_an_assertion_in_run_and_in_explore() {
    let (out, _) = run("verifier_error", &[]);
    let (verdict, reason) = outcome(out.path(), "main#1:remove");
    assert_eq!(verdict, "killed-by-assertion");
    assert_eq!(
        reason,
        "assertion failed: __VERIFIER_error: assertion failure (error location reached)"
    );

    let dir = tempfile::tempdir().unwrap();
    util::syncmut()
        .arg("explore")
        .arg(fixture("outputs/verifier_error_unjoined/unjoined.c"))
        .arg("-o")
        .arg(dir.path())
        .assert()
        .code(9);
    let text = std::fs::read_to_string(dir.path().join("counterexample.txt")).unwrap();
    assert!(
        text.starts_with(
            "assertion failure: __VERIFIER_error: assertion failure (error location reached)\n"
        ),
        "{text}"
    );
}

/// The test's entry in baseline.json.
fn baseline(out: &Path, test: &str) -> serde_json::Value {
    let all: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("baseline.json")).unwrap()).unwrap();
    all.as_array()
        .unwrap()
        .iter()
        .find(|b| b["test"] == test)
        .unwrap_or_else(|| panic!("no baseline for {test}"))
        .clone()
}

/// Output and trace values that follow the clock and the random stream are masked (the
/// baseline's repeat runs in another virtual world) and listed in baseline.json and the
/// table; what does not vary still kills.
#[test]
fn observations_that_vary_with_the_virtual_world_are_masked_and_listed() {
    let (out, stdout) = run("entropy_varies", &[]);
    let b = baseline(out.path(), "default");
    assert_eq!(b["usable"], true, "{b}");
    let listed: Vec<&str> = b["nondeterministic"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(listed[0], "stdout line 1", "{listed:?}");
    assert!(
        // main reads the token (the worker only writes it, so its snapshots leave it out).
        listed.contains(&"token seen by T0 at pthread_mutex_unlock(&lock) @ entropy_varies.c:34"),
        "{listed:?}"
    );
    assert!(
        listed
            .iter()
            .all(|l| *l == "stdout line 1" || l.starts_with("token seen by")),
        "only the token varies: {listed:?}"
    );
    assert!(
        row(&stdout, "default")
            .contains("nondeterministic, not compared: stdout line 1, token seen by"),
        "{stdout}"
    );
    // Without the join main prints before the worker ran: the token line differs too, but
    // it is masked; the kill is by the update count.
    assert_eq!(
        outcome(out.path(), "main#1:remove"),
        (
            "killed-by-output".to_string(),
            r#"stdout line 2 (byte 8): "updates 0" instead of "updates 1""#.to_string()
        )
    );
}

/// A printed thread id changes with the address layout, so between processes but not
/// between the children of one fork server: the baseline's repeat starts a fresh process,
/// so the line is masked (before, every run but the uninstrumented build's was forked, and
/// the test was set aside as if instrumenting had changed the design); the rest of the
/// output still kills.
#[test]
fn a_printed_thread_id_is_masked_as_differing_between_processes() {
    let randomized = std::fs::read_to_string("/proc/sys/kernel/randomize_va_space")
        .is_ok_and(|v| v.trim() != "0");
    if !randomized {
        eprintln!("address layout randomization is off here: thread ids do not vary");
        return;
    }
    let (out, stdout) = run("thread_ids", &[]);
    let b = baseline(out.path(), "default");
    assert_eq!(b["usable"], true, "{b}");
    assert_eq!(
        b["nondeterministic"],
        serde_json::json!(["stdout line 1"]),
        "{b}"
    );
    assert!(
        row(&stdout, "default").contains("nondeterministic, not compared: stdout line 1"),
        "{stdout}"
    );
    // Without the join main prints before the worker counted.
    let (verdict, reason) = outcome(out.path(), "main#1:remove");
    assert_eq!(verdict, "killed-by-output");
    assert!(
        reason.starts_with("stdout line 2 (")
            && reason.ends_with(r#""count 0" instead of "count 1""#),
        "{reason}"
    );
    // No kill by the thread id.
    assert!(!stdout.contains("stdout line 1 ("), "{stdout}");
}

/// The original prints how often it checked a flag before its worker set it: under the
/// scheduler a count the schedule fixes, with real threads one its timing does, so its
/// own runs with real threads disagree. The uninstrumented build's count, unlike any of
/// the metamutant's, sets the test aside no more (they disagree among themselves too:
/// before, every run of syncmut ended with exit 7 saying the instrumentation changed
/// the design), and a mutant's run with real threads printing a count none of the
/// original's did is no kill: the difference is counted as seen but not proven, and the
/// reason says why.
#[test]
fn output_that_real_threads_vary_for_the_original_kills_no_mutant() {
    let (out, stdout) = run("timing_count", &[]);
    let b = baseline(out.path(), "default");
    assert_eq!(b["usable"], true, "{b}");
    // Usually no run of the metamutant prints the uninstrumented build's count, and the
    // note says the output follows timing. Under load the build's main can be held off
    // until its worker is done and print a count a controlled schedule or another run
    // with real threads prints too: then that is the note, or none is needed.
    let hint = b["hint"].as_str().unwrap_or_default();
    assert!(
        hint.is_empty()
            || hint.contains("wrote differently from each other too")
            || hint.contains("and so did the metamutant without a mutant"),
        "{b}"
    );
    let outcomes = util::outcomes(out.path());
    let mutants = outcomes["mutants"].as_array().unwrap();
    assert!(
        mutants.iter().all(|m| m["verdict"] != "killed-by-output"),
        "{stdout}"
    );
    let rule = "the original's own runs with real threads end or write differently from each other";
    assert!(
        mutants
            .iter()
            .any(|m| m["verdict"] == "survived" && m["reason"].as_str().unwrap().contains(rule)),
        "{stdout}"
    );
}

/// A difference that cannot be masked (another number of lines) sets the test aside with
/// what differed and where it comes from (the clock or random values), not with a request
/// to report a bug; with `--entropy fixed` every run is in one world and the design is
/// scored.
#[test]
fn an_unmaskable_difference_sets_the_test_aside_saying_what_differed() {
    let out = tempfile::tempdir().unwrap();
    util::syncmut()
        .args(["run", "--gen", "none", "-o"])
        .arg(out.path())
        .arg(fixture("outputs/entropy_lines"))
        .assert()
        .code(7)
        .stderr(predicates::str::contains("no usable test"));
    let b = baseline(out.path(), "default");
    assert_eq!(b["usable"], false);
    let why = b["set_aside_because"].as_str().unwrap();
    assert!(
        why.starts_with("the original's output depends on the clock, on random values or on addresses: run again under the same schedule in another virtual world (SYNCMUT_ENTROPY=1) and address layout, its stdout had ")
            && why.contains(" lines in one run and ")
            && why.contains("(line ")
            && why.ends_with("--entropy fixed runs every run in one world, so a design whose output depends only on the clock or random values can be scored"),
        "{why}"
    );
    assert!(!why.contains("report"), "{why}");

    let fixed = tempfile::tempdir().unwrap();
    util::syncmut()
        .args(["run", "--gen", "none", "--entropy", "fixed", "-o"])
        .arg(fixed.path())
        .arg(fixture("outputs/entropy_lines"))
        .assert()
        .code(0)
        .stdout(predicates::str::contains("mutation score"));
    assert_eq!(baseline(fixed.path(), "default")["usable"], true);
}

/// An output file that differs between the uninstrumented original and the metamutant in
/// a few bytes of its header only (the process id) sets the test aside naming the file
/// and those bytes, not as a design that behaves differently under syncmut.
#[test]
fn a_stamp_in_an_output_file_is_named_by_its_bytes() {
    let out = tempfile::tempdir().unwrap();
    util::syncmut()
        .args(["run", "--gen", "none", "-o"])
        .arg(out.path())
        .arg(fixture("outputs/stamped_file"))
        .assert()
        .code(7);
    let b = baseline(out.path(), "stamped");
    let why = b["set_aside_because"].as_str().unwrap();
    assert!(
        why.starts_with("the original build and the metamutant without a mutant write out.bin differently in byte")
            && why.contains("(from 0) only: a time stamp, process id or address")
            && why.ends_with("leave out.bin out of the test's \"outputs\""),
        "{why}"
    );
    // The bytes named are within the 4-byte id at 4 to 7.
    let bytes = why.split(" in byte").nth(1).unwrap();
    assert!(
        ["s 4", " 4", " 5", " 6", " 7", "s 5", "s 6"]
            .iter()
            .any(|start| bytes.starts_with(start)),
        "{why}"
    );
    assert!(!why.contains("controls its synchronization"), "{why}");
}

/// A test whose original build writes with real threads what no controlled run of the
/// original shows is kept when the metamutant without a mutant, run with real threads
/// too, writes the same: the instrumentation did not change the design, the controlled
/// schedules just do not reach that behaviour, and the baseline says so.
#[test]
fn what_only_real_threads_show_keeps_the_test_with_a_note() {
    let (out, stdout) = run("real_threads_only", &["--mutant", "^main#1:remove$"]);
    let b = baseline(out.path(), "timing");
    assert_eq!(b["usable"], true, "{b}");
    let hint = b["hint"].as_str().unwrap();
    assert!(
        hint.starts_with("with real threads the original build wrote what none of the controlled runs of the original did, and so did the metamutant without a mutant"),
        "{hint}"
    );
    assert!(
        row(&stdout, "timing").contains("with real threads"),
        "{stdout}"
    );
    assert!(stdout.contains("mutation score"), "{stdout}");
    // Without runs with real threads, the note does not promise them.
    let (out, _) = run(
        "real_threads_only",
        &["--mutant", "^main#1:remove$", "--native", "0"],
    );
    let hint = baseline(out.path(), "timing")["hint"].to_string();
    assert!(
        hint.ends_with("with --native 0 no mutant is judged on it\""),
        "{hint}"
    );
}

/// A test whose original build wrote, by its timing, what a rare interleaving writes
/// (the reader's look right after the writer's fifth of eight steps) is kept when the
/// original's bounded search shows it, though none of the sampled schedules and none of
/// the metamutant's runs with real threads did: the search is the same one the mutants'
/// follow checks use, so the baseline hands it on.
///
/// Removing the writer's join (`main#1`) also changes the output, "7 steps" instead of
/// 8, but the original writes that too under another schedule: the kill is by trace,
/// and its evidence is the writer left waiting, not the output.
#[test]
fn a_rare_interleaving_of_the_original_build_is_found_by_the_search() {
    let (out, stdout) = run("rare_interleaving", &["--mutant", "^main#[12]:remove$"]);
    let b = baseline(out.path(), "look");
    assert_eq!(b["usable"], true, "{b}");
    let hint = b["hint"].as_str().unwrap();
    assert!(
        hint.starts_with("with real threads the original build wrote what none of the sampled schedules of the original did; the original's search of every schedule with at most 2 preemptions"),
        "{hint}"
    );
    let (verdict, reason) = outcome(out.path(), "main#2:remove");
    assert_eq!(verdict, "killed-by-output", "{reason}");
    let (verdict, reason) = outcome(out.path(), "main#1:remove");
    assert_eq!(verdict, "killed-by-trace", "{reason}");
    assert!(
        reason.contains("its output the original writes too") && !reason.contains("stdout"),
        "{reason}"
    );
    assert!(stdout.contains("mutation score: 100.0%"), "{stdout}");
}

/// A test whose original build's first run took an interleaving nothing else shows (the
/// threads taking turns after every letter), neither the metamutant's sampled schedules,
/// its runs with real threads nor the original's bounded search, is kept when a later
/// run of the original build writes as the metamutant does: the design's output depends
/// on timing, and the instrumentation did not change it.
#[test]
fn a_rare_first_run_of_the_original_build_is_checked_by_running_it_again() {
    let marks = tempfile::tempdir().unwrap();
    let mark = marks.path().join("first-run");
    let (out, stdout) = run_with(
        "rare_first_run",
        &["--mutant", "^main#2:remove$", "--native", "0"],
        &[("RARE_FIRST_RUN_MARK", mark.to_str().unwrap())],
    );
    assert!(mark.exists(), "the original build never ran");
    let b = baseline(out.path(), "turns");
    assert_eq!(b["usable"], true, "{b}");
    let hint = b["hint"].as_str().unwrap();
    assert!(
        hint.starts_with("with real threads the original build's first run wrote what no run of the metamutant without a mutant did, but its run 1 of 10 more wrote as one of them does"),
        "{hint}"
    );
    let (verdict, reason) = outcome(out.path(), "main#2:remove");
    assert_eq!(verdict, "killed-by-output", "{reason}");
    assert!(stdout.contains("mutation score: 100.0%"), "{stdout}");
}

/// A killed mutant's working directory is kept capped, as traces are: the 3 MiB dump
/// its run wrote keeps its first MiB, the note beside the directory gives its full size,
/// and a small file is kept whole.
#[test]
fn a_large_file_in_a_kept_working_directory_is_capped() {
    let (out, _) = run("large_dump", &["--mutant", "main#1:remove"]);
    let (verdict, reason) = outcome(out.path(), "main#1:remove");
    assert!(verdict.starts_with("killed-by-"), "{verdict}: {reason}");
    let kept = out.path().join("workdirs/dump/main_1_remove");
    let dump = std::fs::read(kept.join("dump.bin")).unwrap();
    assert_eq!(dump.len(), 1 << 20);
    assert!(dump.iter().all(|b| *b == 0), "the mutant's dump, its head");
    assert_eq!(
        std::fs::read_to_string(kept.join("summary.txt")).unwrap(),
        "value 0\n"
    );
    let note =
        std::fs::read_to_string(out.path().join("workdirs/dump/main_1_remove.capped.txt")).unwrap();
    assert!(
        note.contains("dump.bin: 3145728 bytes, the first 1048576 kept"),
        "{note}"
    );
}
