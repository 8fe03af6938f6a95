//! End to end over the examples: with no mutant active the metamutant behaves exactly
//! like the original build, and activating each mutant makes the runtime perform that
//! operator at that site (read back from the runtime's trace).

mod util;

use std::path::Path;
use std::time::Duration;
use syncmut_mutator::Catalogue;
use syncmut_runner::exec::{execute, Limits};
use syncmut_runtime::trace;

fn build(example: &str, out: &Path) -> Catalogue {
    util::syncmut()
        .arg("mutate")
        .arg(util::example(example))
        .arg("-o")
        .arg(out)
        .assert()
        .success();
    serde_json::from_slice(&std::fs::read(out.join("mutants.json")).unwrap()).unwrap()
}

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

fn limits() -> Limits {
    Limits {
        timeout: Duration::from_secs(2),
        ..Limits::default()
    }
}

fn assert_same_as_original(out: &Path, inputs: &[Vec<String>]) {
    for input in inputs {
        let original = execute(&out.join("original"), input, &[], &limits()).unwrap();
        let meta = execute(&out.join("metamutant"), input, &[], &limits()).unwrap();
        assert_eq!(meta.status, original.status, "exit status on {input:?}");
        assert_eq!(meta.stdout, original.stdout, "stdout on {input:?}");
        assert!(
            meta.stderr.len == 0 || meta.stderr == original.stderr,
            "runtime printed: {}",
            meta.stderr.text()
        );
    }
}

/// Runs every mutant on `input` and checks its site recorded the operator's action.
/// `attempts` > 1 only for pthread designs, whose native scheduling may skip a
/// condition-variable wait on one run.
fn assert_each_operator_takes_effect(
    out: &Path,
    catalogue: &Catalogue,
    input: &[String],
    attempts: usize,
) {
    assert!(!catalogue.mutants.is_empty());
    for mutant in &catalogue.mutants {
        let site = mutant.sites[0];
        let mut seen = Vec::new();
        for _ in 0..attempts {
            let trace_file = out.join(format!("trace-{}.jsonl", site));
            let _ = std::fs::remove_file(&trace_file);
            let env = [
                ("SYNCMUT_ACTIVE", mutant.activation()),
                ("SYNCMUT_TRACE", trace_file.display().to_string()),
            ];
            let run = execute(&out.join("metamutant"), input, &env, &limits()).unwrap();
            assert!(
                !run.stderr.text().contains("syncmut runtime:"),
                "{}: {}",
                mutant.id,
                run.stderr.text()
            );
            let trace = trace::read(&trace_file).unwrap();
            seen = trace
                .events
                .iter()
                .filter(|e| e.site == site)
                .map(|e| e.action.clone())
                .collect();
            if !seen.is_empty() {
                break;
            }
        }
        assert!(
            !seen.is_empty(),
            "{}: site {site} not reached on {input:?}",
            mutant.id
        );
        assert!(
            seen.iter().all(|a| a == mutant.operator.slug()),
            "{}: expected every event at site {site} to be {}, saw {seen:?}",
            mutant.id,
            mutant.operator.slug()
        );
    }
}

#[test]
fn guarded_event_metamutant() {
    let dir = tempfile::tempdir().unwrap();
    let catalogue = build("systemc/guarded_event", dir.path());
    let calls: Vec<(u32, &str)> = catalogue
        .sites
        .iter()
        .map(|s| (s.line, s.call.as_str()))
        .collect();
    assert_eq!(
        calls,
        vec![
            (18, "wait(e)"),
            (21, "wait(10, SC_NS)"),
            (29, "e.notify()"),
            (31, "wait(10, SC_NS)")
        ]
    );
    let inputs: Vec<Vec<String>> = [["t", "f"], ["f", "f"], ["f", "t"], ["t", "t"]]
        .iter()
        .map(|i| args(i))
        .collect();
    assert_same_as_original(dir.path(), &inputs);
    // (t, t) reaches all four sites.
    assert_each_operator_takes_effect(dir.path(), &catalogue, &args(&["t", "t"]), 1);
}

#[test]
fn bounded_buffer_metamutant() {
    let dir = tempfile::tempdir().unwrap();
    let catalogue = build("pthread/bounded_buffer", dir.path());
    assert_eq!(catalogue.sites.len(), 10);
    assert_same_as_original(
        dir.path(),
        &[args(&["2", "10"]), args(&["1", "0"]), args(&["16", "100"])],
    );
    // A one-slot buffer and many items make both condition waits (almost) certain.
    assert_each_operator_takes_effect(dir.path(), &catalogue, &args(&["1", "200"]), 5);
}

/// `syncmut mutate` of one source file of the repository, into a new directory.
fn mutate(source: &str) -> tempfile::TempDir {
    let out = tempfile::tempdir().unwrap();
    util::syncmut()
        .arg("mutate")
        .arg(util::root().join(source))
        .arg("-o")
        .arg(out.path())
        .assert()
        .success();
    out
}

/// Each trace event carries a snapshot of the design's globals, decoded by type: signed
/// and unsigned integers, bools, pointers as null/non-null (fixture shared with the
/// mutator's golden test).
#[test]
fn trace_events_carry_a_state_snapshot_of_the_globals() {
    let out = mutate("mutator/tests/fixtures/globals.c");
    let trace_file = out.path().join("trace.jsonl");
    let env = [
        ("SYNCMUT_TRACE", trace_file.display().to_string()),
        ("SYNCMUT_SCHEDULE", "default".to_string()),
    ];
    let run = execute(&out.path().join("metamutant"), &[], &env, &limits()).unwrap();
    assert_eq!(
        run.status,
        syncmut_runner::exec::Status::Exited(0),
        "{}",
        run.stderr.text()
    );
    // The runtime writes binary; the golden is the JSON Lines users read.
    let text = String::from_utf8(trace::to_jsonl(&trace::read(&trace_file).unwrap())).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[1],
        r#"{"seq":0,"site":0,"action":"original","thread":"T0","state":{"buffer":"null","counter":0,"done":false,"flags":0,"hits":0,"level":-3}}"#
    );
    assert_eq!(
        lines[2],
        r#"{"seq":1,"site":1,"action":"original","thread":"T0","state":{"buffer":"non-null","counter":7,"done":true,"flags":1,"hits":18446744073709551615,"level":-3}}"#
    );
    let trace = trace::read(&trace_file).unwrap();
    assert_eq!(
        trace.events[1].state["hits"],
        serde_json::Value::from(u64::MAX)
    );
    // No trace requested: no snapshot machinery, same behaviour as the original.
    let plain = execute(&out.path().join("metamutant"), &[], &[], &limits()).unwrap();
    assert_eq!(plain.status, syncmut_runner::exec::Status::Exited(0));
}

/// The trace of one run of `out`'s metamutant with real threads (no mutant, no
/// scheduler), which must exit 0.
fn traced_run(out: &Path, args: &[String]) -> trace::Trace {
    traced_run_with_output(out, args).0
}

/// The sites in `function` of the design mutated into `out`.
fn sites_in(out: &Path, function: &str) -> Vec<u32> {
    let catalogue: Catalogue =
        serde_json::from_slice(&std::fs::read(out.join("mutants.json")).unwrap()).unwrap();
    catalogue
        .sites
        .iter()
        .filter(|s| s.function == function)
        .map(|s| s.index)
        .collect()
}

/// Whether every event's seq is its place in the trace: none missing, none repeated.
fn numbered_in_order(trace: &trace::Trace) -> bool {
    trace
        .events
        .iter()
        .enumerate()
        .all(|(i, e)| e.seq == i as u64)
}

/// [`traced_run`], with what the run wrote to stdout.
fn traced_run_with_output(out: &Path, args: &[String]) -> (trace::Trace, String) {
    let trace_file = out.join("trace.bin");
    let env = [("SYNCMUT_TRACE", trace_file.display().to_string())];
    let run = execute(
        &out.join("metamutant"),
        args,
        &env,
        // Thread creation is slow on a loaded machine; the limit only stops a hang.
        &Limits {
            timeout: Duration::from_secs(60),
            ..Limits::default()
        },
    )
    .unwrap();
    assert_eq!(
        run.status,
        syncmut_runner::exec::Status::Exited(0),
        "{}",
        run.stderr.text()
    );
    (
        trace::read(&trace_file).unwrap(),
        run.stdout.text().to_string(),
    )
}

/// Every thread encodes its events into chunks of its own: a run of 3,000 short threads
/// (with real threads, no scheduler) keeps every event, in seq order, untruncated (an
/// arena with room for a few hundred threads' chunks lost most of them).
#[test]
fn a_trace_of_thousands_of_threads_keeps_every_event_in_order() {
    let out = mutate("tests/fixtures/traces/many_threads.c");
    let trace = traced_run(out.path(), &["3000".to_string()]);
    assert!(!trace.truncated);
    // Per thread a join in main, a lock and an unlock in the thread.
    assert_eq!(trace.events.len(), 9_000);
    assert!(trace
        .events
        .iter()
        .enumerate()
        .all(|(i, e)| e.seq == i as u64));
    let threads: std::collections::BTreeSet<&str> =
        trace.events.iter().map(|e| e.thread.as_str()).collect();
    assert_eq!(threads.len(), 3_001);
}

/// The first thread to record counts the events' seqs with plain loads and stores
/// until a second thread records; the turn to locked adds must not lose or repeat a
/// number when it comes in the middle of the first thread's events. With real threads,
/// several runs: every event of both threads once, numbered in order.
#[test]
fn a_second_thread_recording_alongside_the_first_gets_seqs_of_its_own() {
    let out = mutate("tests/fixtures/traces/two_counting_threads.c");
    let rounds = 20_000;
    for _ in 0..10 {
        let trace = traced_run(out.path(), &[rounds.to_string()]);
        assert!(!trace.truncated);
        // Per round a lock and an unlock in each thread, and main's join.
        assert_eq!(trace.events.len(), 4 * rounds + 1);
        assert!(numbered_in_order(&trace));
    }
}

/// A signal handler's synchronization call is recorded while its thread may be in the
/// middle of recording another: it goes to a chunk of its own, so the trace reads back
/// whole. Every lock and unlock of the loop is there, the seqs run without a gap or a
/// repeat, and every post of the handler is there unless the trace says it left some
/// out (a handler that interrupts the taking of a seq).
#[test]
fn a_signal_handler_recording_inside_a_record_leaves_the_trace_whole() {
    let out = mutate("tests/fixtures/traces/timer_posts.c");
    let in_handler = sites_in(out.path(), "on_tick");
    let rounds = 100_000;
    for _ in 0..3 {
        let (trace, stdout) = traced_run_with_output(out.path(), &[rounds.to_string()]);
        let handled: usize = stdout.trim().parse().unwrap();
        let posts = trace
            .events
            .iter()
            .filter(|e| in_handler.contains(&e.site))
            .count();
        // sem_init, then a lock and an unlock a round.
        assert_eq!(trace.events.len() - posts, 1 + 2 * rounds);
        assert!(
            posts == handled || (trace.truncated && posts < handled),
            "{posts} posts recorded, {handled} made"
        );
        assert!(numbered_in_order(&trace));
    }
}

/// With real threads and a trace, a C11 thread is named by creation order, as a pthread
/// is and as the scheduler numbers both, so a native run's order of events can be
/// followed by name: T1 is the thread created first, even when the second one's events
/// come first.
#[test]
fn c11_threads_traced_with_real_threads_are_named_by_creation() {
    let out = mutate("tests/fixtures/traces/c11_creation_order.c");
    let trace = traced_run(out.path(), &[]);
    let first_event_of = |function: &str| {
        let sites = sites_in(out.path(), function);
        let event = trace.events.iter().find(|e| sites.contains(&e.site));
        let event = event.unwrap_or_else(|| panic!("no event of {function}"));
        (event.seq, event.thread.clone())
    };
    let (first_seq, first_name) = first_event_of("first");
    let (second_seq, second_name) = first_event_of("second");
    assert!(
        second_seq < first_seq,
        "the flag orders second's events first"
    );
    assert_eq!((first_name.as_str(), second_name.as_str()), ("T1", "T2"));
}

/// The original under the scheduler in the order of a run with real threads' events
/// (`events:`, how `run` checks a native run's difference) writes what that run wrote:
/// with real threads a lock's event is recorded once the lock is taken, so the trace
/// holds the order of acquisitions, and a thread's events wait for its creation. Recorded
/// at the call, a thread that lost the race for the lock came first, and a quarter of
/// such runs of this fixture were followed into another order of its five critical
/// sections, which prints other numbers.
#[test]
fn the_order_of_a_native_runs_events_reproduces_its_output() {
    let out = mutate("tests/fixtures/traces/turns_at_one_lock.c");
    let metamutant = out.path().join("metamutant");
    let native_trace = out.path().join("native.bin");
    let events = out.path().join("native.events");
    let in_order_trace = out.path().join("in-order.bin");
    let mut outputs = std::collections::BTreeSet::new();
    let mut differ = Vec::new();
    for _ in 0..150 {
        let _ = std::fs::remove_file(&native_trace);
        let native = execute(
            &metamutant,
            &[],
            &[("SYNCMUT_TRACE", native_trace.display().to_string())],
            &limits(),
        )
        .unwrap();
        let order: String = trace::read(&native_trace)
            .unwrap()
            .events
            .iter()
            .map(|e| format!("{}\n", e.thread.trim_start_matches('T')))
            .collect();
        std::fs::write(&events, order).unwrap();
        let _ = std::fs::remove_file(&in_order_trace);
        let in_order = execute(
            &metamutant,
            &[],
            &[
                ("SYNCMUT_SCHEDULE", format!("events:{}", events.display())),
                ("SYNCMUT_TRACE", in_order_trace.display().to_string()),
            ],
            &limits(),
        )
        .unwrap();
        outputs.insert(native.stdout.text());
        if in_order.stdout.text() != native.stdout.text() {
            differ.push(format!(
                "{:?} in order {:?}",
                native.stdout.text(),
                in_order.stdout.text()
            ));
        }
    }
    assert!(
        differ.is_empty(),
        "{} of 150 differ: {differ:?}",
        differ.len()
    );
    eprintln!("outputs with real threads: {outputs:?}");
}
