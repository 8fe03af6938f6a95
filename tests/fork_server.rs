//! Schedules started through a fork server give what schedules started by exec give:
//! the same runs, the same bug at the same run with the same counterexample schedule,
//! the same number of runs to exhaust a dfs; a hang is killed at the timeout and a crash
//! or an assertion is reported as by exec; a program that ends before the runtime's first
//! constructor makes the search fall back to exec, and says so; globals named like the
//! libc functions the runtime calls do not stop the server. Runs without a schedule
//! (with real threads, and SystemC runs) are served too, each with its own variables.

mod util;

use std::path::Path;
use std::time::Duration;
use syncmut_mutator::interleave::Interleave;
use syncmut_oracle::explore::{self, BugKind, ExploreSettings, Report};
use syncmut_oracle::schedules::Strategy;
use syncmut_runner::exec::{Limits, Status};
use syncmut_runner::fork_server::ForkServer;
use syncmut_runner::Invocation;

fn build(source: &Path, out: &Path, interleave: Interleave) -> std::path::PathBuf {
    let design = syncmut_mutator::Design::from_paths(&[source.to_path_buf()], &[]).unwrap();
    let options = syncmut_mutator::metamutant::Options {
        interleave,
        races: false,
    };
    syncmut_mutator::metamutant::build_with(&design, out, &options)
        .unwrap_or_else(|e| panic!("{}: {e}", source.display()))
        .metamutant
}

/// Explores `source` twice, through a fork server and by exec, each in a work directory
/// of its own.
fn both_ways(
    source: &Path,
    interleave: Interleave,
    settings: ExploreSettings,
    timeout: Duration,
) -> (Report, Report) {
    let dir = tempfile::tempdir().unwrap();
    let metamutant = build(source, dir.path(), interleave);
    let program = Invocation {
        active: Some(String::new()),
        limits: Limits {
            timeout,
            ..Limits::default()
        },
        ..Invocation::new(&metamutant, &[])
    };
    let served = explore::explore(
        &program,
        &ExploreSettings {
            fork_server: true,
            ..settings.clone()
        },
        &dir.path().join("served"),
    )
    .unwrap();
    let execd = explore::explore(
        &program,
        &ExploreSettings {
            fork_server: false,
            ..settings
        },
        &dir.path().join("execd"),
    )
    .unwrap();
    (served, execd)
}

fn dfs(schedules: usize) -> ExploreSettings {
    ExploreSettings {
        strategy: Strategy::Dfs {
            preemptions: 2,
            por: syncmut_oracle::schedules::Por::Dpor,
        },
        schedules,
        ..ExploreSettings::default()
    }
}

/// The same coverage and the same bug, found by the same run under the same schedule,
/// ending the same way with the same output.
fn assert_same(source: &str, served: &Report, execd: &Report) {
    assert_eq!(
        served.exec_fallback, None,
        "{source}: the fork server was not used"
    );
    assert!(execd.exec_fallback.is_some(), "{source}");
    assert_eq!(
        (
            served.runs,
            served.distinct,
            served.exhausted,
            served.repeats
        ),
        (execd.runs, execd.distinct, execd.exhausted, execd.repeats),
        "{source}"
    );
    match (&served.found, &execd.found) {
        (None, None) => {}
        (Some(a), Some(b)) => {
            assert_eq!(
                (&a.kind, a.run, &a.message),
                (&b.kind, b.run, &b.message),
                "{source}"
            );
            assert_eq!(
                (&a.schedule.choices, &a.schedule.end),
                (&b.schedule.choices, &b.schedule.end),
                "{source}"
            );
            assert_eq!(a.execution.status, b.execution.status, "{source}");
            assert_eq!(
                (&a.execution.stdout, &a.execution.stderr),
                (&b.execution.stdout, &b.execution.stderr),
                "{source}"
            );
            assert_eq!(a.trace.events.len(), b.trace.events.len(), "{source}");
        }
        (a, b) => panic!(
            "{source}: found {:?} through the server, {:?} by exec",
            a.as_ref().map(|f| f.kind.clone()),
            b.as_ref().map(|f| f.kind.clone())
        ),
    }
}

#[test]
fn dfs_finds_the_same_deadlock_at_the_same_run() {
    let source = util::example("pthread/bugs/lock_order.c");
    let (served, execd) = both_ways(
        &source,
        Interleave::Sync,
        dfs(1000),
        Duration::from_secs(10),
    );
    assert_eq!(
        served.found.as_ref().map(|f| f.kind.clone()),
        Some(BugKind::Deadlock)
    );
    assert_same("lock_order.c", &served, &execd);
}

#[test]
fn dfs_exhausts_a_correct_program_in_the_same_number_of_runs() {
    let source = util::example("pthread/bugs/lock_order_ok.c");
    let (served, execd) = both_ways(
        &source,
        Interleave::Sync,
        dfs(1000),
        Duration::from_secs(10),
    );
    assert!(
        served.exhausted && served.found.is_none(),
        "{} runs",
        served.runs
    );
    assert_same("lock_order_ok.c", &served, &execd);
}

#[test]
fn an_assertion_at_memory_level_is_found_at_the_same_run() {
    let source = util::root().join("tests/corpus/busywait/peterson_bad.c");
    let (served, execd) = both_ways(
        &source,
        Interleave::Memory,
        dfs(1000),
        Duration::from_secs(10),
    );
    let found = served.found.as_ref().expect("peterson_bad's assertion");
    assert_eq!(found.kind, BugKind::Assertion);
    assert_eq!(found.execution.status, Status::Signaled(libc::SIGABRT));
    assert_same("peterson_bad.c", &served, &execd);
}

#[test]
fn random_and_pct_draw_the_same_schedules() {
    let source = util::example("pthread/bugs/check_then_act.c");
    for strategy in [Strategy::Random, Strategy::Pct { depth: 2 }] {
        let settings = ExploreSettings {
            strategy,
            schedules: 200,
            redraw_repeats: true,
            draw_inputs: true,
            ..ExploreSettings::default()
        };
        let (served, execd) =
            both_ways(&source, Interleave::Sync, settings, Duration::from_secs(10));
        assert!(served.found.is_some(), "{strategy:?}");
        assert_same(&format!("check_then_act.c {strategy:?}"), &served, &execd);
    }
}

#[test]
fn a_crash_in_a_served_run_is_reported_as_by_exec() {
    let source = util::fixture("fork_server/crash.c");
    let (served, execd) = both_ways(&source, Interleave::Sync, dfs(100), Duration::from_secs(10));
    let found = served.found.as_ref().expect("the NULL read");
    assert_eq!(
        (found.kind.clone(), found.execution.status),
        (BugKind::Crash, Status::Signaled(libc::SIGSEGV))
    );
    assert_same("crash.c", &served, &execd);
}

#[test]
fn a_hang_in_a_served_run_is_killed_at_the_timeout() {
    let source = util::fixture("fork_server/hang.c");
    let (served, execd) = both_ways(&source, Interleave::Sync, dfs(3), Duration::from_secs(1));
    let found = served.found.as_ref().expect("the spin");
    assert_eq!(
        (found.kind.clone(), found.execution.status, found.run),
        (BugKind::Hang, Status::TimedOut, 1)
    );
    assert!(
        found.execution.elapsed < Duration::from_secs(9),
        "killed after {:?}",
        found.execution.elapsed
    );
    assert_same("hang.c", &served, &execd);
}

#[test]
fn globals_named_like_the_runtimes_libc_calls_keep_the_fork_server() {
    // The program's own `send`, `write`, `close` and `open` are ints: had the runtime's
    // calls bound to them, the server would die calling an int and every run go by exec.
    let source = util::fixture("fork_server/libc_names.c");
    let (served, execd) = both_ways(&source, Interleave::Sync, dfs(100), Duration::from_secs(10));
    assert_eq!(served.exec_fallback, None);
    let found = served.found.as_ref().expect("the receiver first");
    assert_eq!(found.kind, BugKind::Assertion);
    assert_same("libc_names.c", &served, &execd);
}

#[test]
fn a_program_that_ends_before_the_runtime_starts_falls_back_to_exec() {
    let source = util::fixture("fork_server/exits_early.c");
    let (served, execd) = both_ways(&source, Interleave::Sync, dfs(5), Duration::from_secs(10));
    let reason = served
        .exec_fallback
        .as_deref()
        .expect("no fork server could start");
    assert!(
        reason.contains("did not start its fork server") && reason.contains("exit 3"),
        "{reason}"
    );
    // Every run went by exec and ended as the program ends.
    assert_eq!(
        (served.runs, served.distinct, served.found.is_some()),
        (execd.runs, execd.distinct, execd.found.is_some())
    );
    assert!(served.runs >= 1);
}

#[test]
fn served_runs_keep_both_outputs_whole_and_see_the_environment_exec_gives() {
    // Each run signals its parent (the server blocks the signals and goes on serving);
    // 200 KB on each stream, written in turns: read by one poll loop while the run goes
    // on, byte for byte what the exec'd run gave. The server's LD_BIND_NOW (set so that
    // it resolves symbols once) is not in the run's environment.
    let source = util::fixture("fork_server/loud.c");
    let (served, execd) = both_ways(&source, Interleave::Sync, dfs(100), Duration::from_secs(10));
    let found = served.found.as_ref().expect("the worker first");
    assert_eq!(found.execution.status, Status::Signaled(libc::SIGABRT));
    assert!(
        found.execution.stdout.len > 200_000 && found.execution.stderr.len > 200_000,
        "{} {}",
        found.execution.stdout.len,
        found.execution.stderr.len
    );
    assert!(
        found
            .execution
            .stdout
            .text()
            .starts_with("LD_BIND_NOW unset\n"),
        "{}",
        &found.execution.stdout.text()[..40]
    );
    assert_same("loud.c", &served, &execd);
}

/// The events of a traced run, as text.
fn events(trace: &Path) -> Vec<String> {
    let mut events = Vec::new();
    syncmut_runtime::trace::visit(trace, &mut |event| events.push(format!("{event:?}"))).unwrap();
    events
}

/// Runs `invocation` through `server`, then by exec, traced into `dir`; the two runs'
/// stdout and events.
fn served_then_execd(
    invocation: &Invocation,
    server: &mut ForkServer,
    dir: &Path,
) -> [(String, Vec<String>); 2] {
    let mut run = |served: bool| {
        let trace = dir.join(if served {
            "served.trace"
        } else {
            "execd.trace"
        });
        let traced = Invocation {
            trace: Some(trace.clone()),
            ..invocation.clone()
        };
        let execution = match served {
            true => traced.run_with(server),
            false => traced.run(),
        }
        .unwrap();
        assert_eq!(execution.status, Status::Exited(0), "{execution:?}");
        (execution.stdout.text().to_string(), events(&trace))
    };
    [run(true), run(false)]
}

#[test]
fn runs_with_real_threads_are_served_with_their_own_variables() {
    // One server serves a controlled run, then runs without a schedule: those run with
    // real threads (SYNCMUT_SCHEDULE is not left over from the run before), and write
    // and record what their exec'd runs do.
    let dir = tempfile::tempdir().unwrap();
    let metamutant = build(
        &util::fixture("fork_server/modes.c"),
        dir.path(),
        Interleave::Sync,
    );
    let native = Invocation {
        active: Some(String::new()),
        ..Invocation::new(&metamutant, &[])
    };
    let controlled = Invocation {
        schedule: Some("random:7".to_string()),
        ..native.clone()
    };
    let mut server = ForkServer::new();
    let scheduled = controlled.run_with(&mut server).unwrap();
    assert_eq!(scheduled.stdout.text(), "served, scheduled, 200\n");
    let [(served, served_events), (execd, execd_events)] =
        served_then_execd(&native, &mut server, dir.path());
    assert_eq!(server.fallback(), None);
    assert_eq!(served, "served, real threads, 200\n");
    assert_eq!(execd, "exec'd, real threads, 200\n");
    // 400 lock and unlock calls and more, in whatever order the threads took.
    assert_eq!(served_events.len(), execd_events.len());
    assert!(served_events.len() > 400, "{}", served_events.len());
}

#[test]
fn systemc_runs_are_served_and_trace_what_exec_gives() {
    let dir = tempfile::tempdir().unwrap();
    let metamutant = build(
        &util::fixture("fork_server/sc_modes.cpp"),
        dir.path(),
        Interleave::Sync,
    );
    let run = Invocation {
        active: Some(String::new()),
        ..Invocation::new(&metamutant, &[])
    };
    let mut server = ForkServer::new();
    let [(served, served_events), (execd, execd_events)] =
        served_then_execd(&run, &mut server, dir.path());
    assert_eq!(server.fallback(), None);
    assert!(
        served.starts_with("served, woken 3 times at 13 ns"),
        "{served}"
    );
    assert_eq!(served.replacen("served", "exec'd", 1), execd);
    // The kernel is deterministic: the same events, in the same order, at the same times.
    assert_eq!(served_events, execd_events);
    assert!(served_events.len() >= 5, "{served_events:?}");
}
