//! Schedule exploration: the scheduler's pct and replay strategies and schedule files,
//! and bug finding on the corpus in examples/pthread/bugs (each bug found within 1000
//! schedules by some strategy, each correct twin bug-free, every bug replays).

mod util;

use std::path::{Path, PathBuf};
use std::process::Command;
use syncmut_mutator::interleave::Interleave;
use syncmut_oracle::explore::{self, BugKind, ExploreSettings};
use syncmut_oracle::schedules::{Por, Strategy};
use syncmut_runner::Invocation;

fn bugs_dir() -> PathBuf {
    util::example("pthread/bugs")
}

/// Builds a design into `out` and returns its metamutant.
fn build(source: &Path, out: &Path) -> syncmut_mutator::metamutant::Build {
    build_with(source, out, Interleave::Sync, &[])
}

fn build_with(
    source: &Path,
    out: &Path,
    interleave: Interleave,
    flags: &[&str],
) -> syncmut_mutator::metamutant::Build {
    let flags: Vec<String> = flags.iter().map(|f| f.to_string()).collect();
    let design = syncmut_mutator::Design::from_paths(&[source.to_path_buf()], &flags).unwrap();
    let options = syncmut_mutator::metamutant::Options {
        interleave,
        races: false,
    };
    syncmut_mutator::metamutant::build_with(&design, out, &options)
        .unwrap_or_else(|e| panic!("{}: {e}", source.display()))
}

fn run(binary: &Path, env: &[(&str, &str)]) -> (std::process::ExitStatus, String) {
    let out = Command::new(binary)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    (
        out.status,
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn pct_and_replay_reproduce_traces_and_schedules() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = util::fixture("verdicts/racy_counter/racy_counter.c");
    let b = build(&fixture, dir.path());
    let p = |name: &str| dir.path().join(name).display().to_string();
    let mut outputs = std::collections::BTreeSet::new();
    for seed in 1..=12 {
        let value = format!("pct:{seed}:3");
        let (s1, o1) = run(
            &b.metamutant,
            &[
                ("SYNCMUT_ACTIVE", "0:remove"),
                ("SYNCMUT_SCHEDULE", &value),
                ("SYNCMUT_PCT_STEPS", "30"),
                ("SYNCMUT_SCHEDULE_OUT", &p("a.sched")),
                ("SYNCMUT_TRACE", &p("a.jsonl")),
            ],
        );
        // The same pct value gives the same run.
        let (s2, _) = run(
            &b.metamutant,
            &[
                ("SYNCMUT_ACTIVE", "0:remove"),
                ("SYNCMUT_SCHEDULE", &value),
                ("SYNCMUT_PCT_STEPS", "30"),
                ("SYNCMUT_TRACE", &p("b.jsonl")),
            ],
        );
        assert!(s1.success() && s2.success());
        assert_eq!(
            std::fs::read(p("a.jsonl")).unwrap(),
            std::fs::read(p("b.jsonl")).unwrap(),
            "{value}"
        );
        // Replaying the recorded choices gives the same trace and the same choices.
        let replay = format!("replay:{}", p("a.sched"));
        let (s3, o3) = run(
            &b.metamutant,
            &[
                ("SYNCMUT_ACTIVE", "0:remove"),
                ("SYNCMUT_SCHEDULE", &replay),
                ("SYNCMUT_SCHEDULE_OUT", &p("c.sched")),
                ("SYNCMUT_TRACE", &p("c.jsonl")),
            ],
        );
        assert!(s3.success());
        assert_eq!(o1, o3);
        assert_eq!(
            std::fs::read(p("a.jsonl")).unwrap(),
            std::fs::read(p("c.jsonl")).unwrap(),
            "replay of {value}"
        );
        let a = syncmut_runtime::schedule::parse(&std::fs::read_to_string(p("a.sched")).unwrap())
            .unwrap();
        let c = syncmut_runtime::schedule::parse(&std::fs::read_to_string(p("c.sched")).unwrap())
            .unwrap();
        assert_eq!(a.choices, c.choices);
        assert!(!a.choices.is_empty() && a.end.as_deref() == Some("exit") && c.diverged.is_none());
        outputs.insert(o1);
    }
    // pct finds the lost update (counter < 6) under some seed, and not under every seed.
    assert!(outputs.len() > 1, "{outputs:?}");
    // Malformed values are refused with status 120.
    for bad in [
        "pct:1",
        "pct:1:0",
        "pct:x:2",
        "replay:",
        "replay:/nonexistent/file",
    ] {
        let (status, _) = run(&b.metamutant, &[("SYNCMUT_SCHEDULE", bad)]);
        assert_eq!(status.code(), Some(120), "{bad}");
    }
}

#[test]
fn a_deadlock_writes_its_schedule_and_replays() {
    let dir = tempfile::tempdir().unwrap();
    let b = build(&bugs_dir().join("lock_order.c"), dir.path());
    let p = |name: &str| dir.path().join(name).display().to_string();
    let mut deadlocked = None;
    for seed in 1..=50 {
        let value = format!("random:{seed}");
        let (status, _) = run(
            &b.metamutant,
            &[
                ("SYNCMUT_SCHEDULE", &value),
                ("SYNCMUT_SCHEDULE_OUT", &p("d.sched")),
            ],
        );
        if status.code() == Some(122) {
            deadlocked = Some(value);
            break;
        }
    }
    assert!(deadlocked.is_some(), "no random seed deadlocks lock_order");
    let text = std::fs::read_to_string(p("d.sched")).unwrap();
    assert!(text.contains("# end deadlock"), "{text}");
    let replay = format!("replay:{}", p("d.sched"));
    for _ in 0..3 {
        let (status, _) = run(&b.metamutant, &[("SYNCMUT_SCHEDULE", &replay)]);
        assert_eq!(status.code(), Some(122));
    }
}

#[test]
fn without_step_lines_a_schedule_file_has_the_same_choices() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name).display().to_string();
    let programs = [
        (
            util::root().join("tests/corpus/busywait/peterson.c"),
            Interleave::Memory,
        ),
        (
            util::fixture("verdicts/racy_counter/racy_counter.c"),
            Interleave::Sync,
        ),
    ];
    const MARKER: &str = "# steps not recorded (SYNCMUT_RECORD_STEPS=0)";
    let (mut steps, mut readied) = (0, 0);
    for (i, (source, interleave)) in programs.iter().enumerate() {
        let b = build_with(source, &dir.path().join(i.to_string()), *interleave, &[]);
        for seed in 0..=8 {
            let value = if seed == 0 {
                "default".to_string()
            } else {
                format!("random:{seed}")
            };
            let file = |record: Option<&str>, name: &str| {
                let mut env = vec![
                    ("SYNCMUT_SCHEDULE", value.as_str()),
                    ("SYNCMUT_SCHEDULE_OUT", name),
                ];
                env.extend(record.map(|r| ("SYNCMUT_RECORD_STEPS", r)));
                let (status, stdout) = run(&b.metamutant, &env);
                (status, stdout, std::fs::read_to_string(name).unwrap())
            };
            let (all, on, off) = (
                file(None, &p("all.sched")),
                file(Some("1"), &p("on.sched")),
                file(Some("0"), &p("off.sched")),
            );
            assert_eq!(
                (&all.0, &all.1),
                (&off.0, &off.1),
                "{value}: the run itself does not change"
            );
            assert_eq!(all.2, on.2, "{value}: 1 is the default");
            // Every line but the step lines, `b<k>` (run steps counted with the single
            // ones) and `# end … steps n` included, is the same.
            let kept: Vec<&str> = all
                .2
                .lines()
                .filter(|l| !l.starts_with("# step "))
                .collect();
            let written: Vec<&str> = off.2.lines().filter(|l| *l != MARKER).collect();
            assert_eq!(kept, written, "{value}:\n{}\n{}", all.2, off.2);
            assert!(
                off.2.contains(MARKER) && !all.2.contains(MARKER) && !off.2.contains("# step ")
            );
            steps += all.2.lines().filter(|l| l.starts_with("# step ")).count();
            readied += kept
                .iter()
                .filter(|l| !l.starts_with('#') && l.contains(":b"))
                .count();
            // The file replays as the full one does.
            let replayed = format!("replay:{}", p("off.sched"));
            let again = run(
                &b.metamutant,
                &[
                    ("SYNCMUT_SCHEDULE", &replayed),
                    ("SYNCMUT_SCHEDULE_OUT", &p("again.sched")),
                    ("SYNCMUT_RECORD_STEPS", "0"),
                ],
            );
            let choices = |path: &str| {
                syncmut_runtime::schedule::parse(&std::fs::read_to_string(path).unwrap())
                    .unwrap()
                    .choices
            };
            assert_eq!(
                (again.0, choices(&p("again.sched"))),
                (off.0, choices(&p("off.sched"))),
                "{value}"
            );
        }
        for bad in ["2", "yes", "00"] {
            let out = Command::new(&b.metamutant)
                .env("SYNCMUT_SCHEDULE", "default")
                .env("SYNCMUT_RECORD_STEPS", bad)
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(120), "{bad}");
            assert!(
                String::from_utf8_lossy(&out.stderr).contains("malformed SYNCMUT_RECORD_STEPS"),
                "{bad}"
            );
        }
    }
    // The runs had step lines to leave out, and choices that name run steps.
    assert!(
        steps > 0 && readied > 0,
        "{steps} step lines, {readied} choices with b<k>"
    );
}

/// A schedule given to the uninstrumented build, whose synchronization calls never reach
/// the scheduler, is refused at once with exit 120 and says what to run instead; it used
/// to hang as soon as one thread blocked on a real lock. Without a schedule that build
/// runs natively as before.
#[test]
fn a_schedule_for_the_uninstrumented_build_is_refused_not_a_hang() {
    let dir = tempfile::tempdir().unwrap();
    let b = build(&bugs_dir().join("lock_order_ok.c"), dir.path());
    let mut child = Command::new(&b.original)
        .env("SYNCMUT_SCHEDULE", "default")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            panic!("the uninstrumented build hangs under SYNCMUT_SCHEDULE");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(120));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("this program is not instrumented")
            && String::from_utf8_lossy(&out.stderr).contains("Run the metamutant")
    );
    assert!(run(&b.original, &[]).0.success());
}

/// A value handed over through `std::promise`/`std::future` and a `std::async` task
/// (tests/fixtures/futures): the scheduler sees main blocked in `future::get` and the
/// join async makes through a pointer, so the correct program is clean under every
/// schedule tried, and its twin's lost value is a deadlock, not a hang. Before, both
/// blocked for real while holding the scheduler's turn: every run timed out.
#[test]
fn futures_and_async_are_scheduled() {
    let dir = tempfile::tempdir().unwrap();
    let explore = |name: &str| {
        let out = dir.path().join(name);
        let done = util::syncmut()
            .arg("explore")
            .arg(util::fixture(&format!("futures/{name}.cpp")))
            .arg("-o")
            .arg(&out)
            .args(["--schedules", "100"])
            .output()
            .unwrap();
        (
            done.status.code(),
            String::from_utf8_lossy(&done.stdout).into_owned()
                + &String::from_utf8_lossy(&done.stderr),
        )
    };
    let (code, text) = explore("handoff");
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("no bug found") && !text.contains("timeout"),
        "{text}"
    );
    let (code, text) = explore("handoff_bad");
    assert_eq!(code, Some(9), "{text}");
    assert!(text.contains("BUG deadlock"), "{text}");
}

/// The metamutant with no mutant active, as `explore` runs it.
fn original(metamutant: &Path) -> Invocation {
    Invocation {
        active: Some(String::new()),
        ..Invocation::new(metamutant, &[])
    }
}

fn config(strategy: Strategy, schedules: usize) -> ExploreSettings {
    ExploreSettings {
        strategy,
        schedules,
        ..ExploreSettings::default()
    }
}

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

/// `phased` takes `--preemptions` as the deepest bound of its dfs phase and `--por` as its
/// reduction: on a correct twin the dfs phase stops after exhausting bound 1, well within
/// the budget, and the summary names both. Named by its old spelling, `mix`, which
/// scripts may still use.
#[test]
fn the_mix_deepens_dfs_only_to_the_bound_given_with_the_reduction_given() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("mix");
    let source = bugs_dir().join("lock_order_ok.c");
    let done = util::syncmut()
        .arg("explore")
        .arg(&source)
        .args([
            "-o",
            out.to_str().unwrap(),
            "--strategy",
            "mix",
            "--preemptions",
            "1",
            "--por",
            "sleep",
            "--schedules",
            "1000",
        ])
        .assert()
        .code(0);
    let stdout = String::from_utf8_lossy(&done.get_output().stdout).into_owned();
    assert!(
        stdout.contains("then dfs with preemption bounds deepening to 1, sleep sets"),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "exhausted every schedule with at most 1 preemptions, up to sleep-set equivalence"
        ),
        "{stdout}"
    );
    let runs: usize = stdout
        .split("explored ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("a run count");
    assert!(
        runs < 1000,
        "the dfs phase went past bound 1: {runs} runs\n{stdout}"
    );
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

#[test]
fn a_data_race_needs_memory_interleaving_and_locals_stay_one_step() {
    let dir = tempfile::tempdir().unwrap();
    let source = bugs_dir().join("counter_race.c");
    let dfs = config(
        Strategy::Dfs {
            preemptions: 2,
            por: Por::Dpor,
        },
        1000,
    );
    // At the default granularity the racy loop is one step: the whole bounded space is
    // explored and the lost update never shows.
    let sync = build(&source, &dir.path().join("sync"));
    assert_eq!(sync.shared_accesses, 0);
    let report = explore::explore(
        &original(&sync.metamutant),
        &dfs,
        &dir.path().join("sync/work"),
    )
    .unwrap();
    assert!(
        report.found.is_none() && report.exhausted,
        "{:?}",
        report.found.map(|f| f.message)
    );
    // With loads/stores of shared memory as scheduling points it does. Instrumented:
    // `counter` read and written in adder, read twice in main, and main's thread handles
    // `a`, `b` (their addresses escape to pthread_create); not the loop index `i`.
    let memory = build_with(&source, &dir.path().join("memory"), Interleave::Memory, &[]);
    assert_eq!(memory.shared_accesses, 6);
    assert_eq!(memory.catalogue.interleave, Interleave::Memory);
    let report = explore::explore(
        &original(&memory.metamutant),
        &dfs,
        &dir.path().join("memory/work"),
    )
    .unwrap();
    let found = report.found.expect("the lost update is found");
    assert_eq!(found.kind, BugKind::Assertion);
    // Memory steps are recorded in the schedule file (reads as r<k>, writes as o<k>,
    // the access as m<k>) and shown in the counterexample with their source line.
    assert!(
        found.schedule_text.lines().any(|l| l.contains(":r")),
        "{}",
        found.schedule_text
    );
    assert_eq!(memory.catalogue.accesses.len(), 6);
    let text = explore::render_counterexample(&memory.catalogue, &found);
    assert!(
        text.contains("writes shared memory in adder @ counter_race.c:17"),
        "{text}"
    );
    // The memory schedule replays to the same failure.
    let file = dir.path().join("race.schedule");
    std::fs::write(&file, &found.schedule_text).unwrap();
    let (status, _) = run(
        &memory.metamutant,
        &[("SYNCMUT_SCHEDULE", &format!("replay:{}", file.display()))],
    );
    assert_eq!(status.code(), None, "killed by SIGABRT");
}

fn verifier(name: &str) -> PathBuf {
    util::fixture("verifier").join(name)
}

#[test]
fn an_atomic_section_is_one_step() {
    let dir = tempfile::tempdir().unwrap();
    let dfs = config(
        Strategy::Dfs {
            preemptions: 2,
            por: Por::Dpor,
        },
        1000,
    );
    // Without the sections the read-modify-write spans two scheduling points: lost update.
    let plain = build_with(
        &verifier("atomic_section.c"),
        &dir.path().join("plain"),
        Interleave::Sync,
        &["-DNO_ATOMIC"],
    );
    let report = explore::explore(
        &original(&plain.metamutant),
        &dfs,
        &dir.path().join("plain/work"),
    )
    .unwrap();
    assert_eq!(report.found.map(|f| f.kind), Some(BugKind::Assertion));
    // With __VERIFIER_atomic_begin/end no other thread runs inside: every schedule with
    // at most two preemptions is clean, also with memory accesses as scheduling points.
    for interleave in [Interleave::Sync, Interleave::Memory] {
        let out = dir.path().join(interleave.to_string());
        let atomic = build_with(&verifier("atomic_section.c"), &out, interleave, &[]);
        let report =
            explore::explore(&original(&atomic.metamutant), &dfs, &out.join("work")).unwrap();
        assert!(
            report.found.is_none() && report.exhausted,
            "{interleave}: {:?}",
            report.found.map(|f| f.message)
        );
    }
}

#[test]
fn a_verifier_atomic_function_and_a_programs_own_section_are_one_step() {
    let dir = tempfile::tempdir().unwrap();
    let dfs = config(
        Strategy::Dfs {
            preemptions: 2,
            por: Por::Dpor,
        },
        1000,
    );
    let source = verifier("atomic_function.c");
    // The same function under an ordinary name loses an update.
    let plain = build_with(
        &source,
        &dir.path().join("plain"),
        Interleave::Memory,
        &["-DPLAIN"],
    );
    let report = explore::explore(
        &original(&plain.metamutant),
        &dfs,
        &dir.path().join("plain/work"),
    )
    .unwrap();
    assert_eq!(report.found.map(|f| f.kind), Some(BugKind::Assertion));
    for (name, flags) in [
        ("by-name", &[][..]),
        ("own-section", &["-DOWN_SECTION"][..]),
    ] {
        for interleave in [Interleave::Sync, Interleave::Memory] {
            let out = dir.path().join(format!("{name}-{interleave}"));
            let atomic = build_with(&source, &out, interleave, flags);
            let report =
                explore::explore(&original(&atomic.metamutant), &dfs, &out.join("work")).unwrap();
            assert!(
                report.found.is_none() && report.exhausted,
                "{name}, {interleave}: {:?}",
                report.found.map(|f| f.message)
            );
        }
    }
}

#[test]
fn explore_takes_clang_flags_after_the_separator_and_design_arguments_with_arg() {
    let dir = tempfile::tempdir().unwrap();
    let out = |name: &str| dir.path().join(name).display().to_string();
    let source = verifier("atomic_function.c").display().to_string();
    let explore = |args: &[&str]| util::syncmut().arg("explore").args(args).assert();
    // `-DPLAIN` reaches clang: the increment is no longer atomic.
    explore(&[
        &source,
        "--interleave",
        "memory",
        "-o",
        &out("plain"),
        "--",
        "-DPLAIN",
    ])
    .code(9);
    explore(&[&source, "--interleave", "memory", "-o", &out("atomic")]).code(0);
    // Design arguments: with argc > 5 the assumption holds and the assertion fails.
    let assume = verifier("assume_all.c").display().to_string();
    let vacuous = explore(&[&assume, "-o", &out("vacuous"), "--schedules", "20"]).code(0);
    let text = String::from_utf8_lossy(&vacuous.get_output().stdout).into_owned();
    assert!(
        text.contains("vacuously: all") && text.contains("ended by __VERIFIER_assume"),
        "{text}"
    );
    explore(&[
        &assume,
        "-o",
        &out("args"),
        "--schedules",
        "20",
        "--arg",
        "a",
        "--arg=-b",
        "--arg",
        "c",
        "--arg",
        "d",
        "--arg",
        "e",
    ])
    .code(9);
    explore(&[&assume, "-o", &out("zero"), "--schedules", "0"]).code(2);
}

#[test]
fn a_program_synchronizing_only_by_create_and_join_is_explored_at_memory_level() {
    let dir = tempfile::tempdir().unwrap();
    let found = util::syncmut()
        .arg("explore")
        .arg(verifier("create_join_only.c"))
        .arg("-o")
        .arg(dir.path())
        .args(["--strategy", "dfs"])
        .assert()
        .code(9);
    let stderr = String::from_utf8_lossy(&found.get_output().stderr).into_owned();
    assert!(stderr.contains("exploring at memory level"), "{stderr}");
}

#[test]
fn a_failed_assumption_ends_the_run_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let b = build(&verifier("assume.c"), dir.path());
    let report = explore::explore(
        &original(&b.metamutant),
        &config(
            Strategy::Dfs {
                preemptions: 2,
                por: Por::Dpor,
            },
            1000,
        ),
        &dir.path().join("work"),
    )
    .unwrap();
    // Schedules where main reads before the worker wrote end at the assumption (not a
    // bug); the assertion after it never fails.
    assert!(report.found.is_none() && report.exhausted);
    assert!(
        report.assumed > 0 && report.assumed < report.runs,
        "{} of {}",
        report.assumed,
        report.runs
    );
    // The default schedule keeps main running: the assumption fails, status 123, and
    // the schedule file says how the run ended.
    let sched = dir.path().join("a.schedule");
    let out = Command::new(&b.metamutant)
        .envs([
            ("SYNCMUT_SCHEDULE", "default"),
            ("SYNCMUT_SCHEDULE_OUT", sched.to_str().unwrap()),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(syncmut_runtime::status::ASSUME));
    assert!(String::from_utf8_lossy(&out.stderr).contains("__VERIFIER_assume failed"));
    assert_eq!(
        syncmut_runtime::schedule::parse(&std::fs::read_to_string(&sched).unwrap())
            .unwrap()
            .end
            .as_deref(),
        Some("assume")
    );
    // The uninstrumented build links too (the SV-COMP functions come from the runtime
    // archive) and runs natively: exit 0 or 123 depending on the real interleaving.
    let native = Command::new(&b.original).output().unwrap();
    assert!(
        matches!(native.status.code(), Some(0) | Some(123)),
        "{:?}",
        native.status
    );
}

/// `syncmut run` on the racy counter into `out` with `args`, race detection off (these
/// tests are about the lost update the schedules show); the removed lock's kill must
/// replay. Returns outcomes.json.
fn racy_counter_run(out: &Path, args: &[&str]) -> serde_json::Value {
    util::syncmut()
        .arg("run")
        .arg(util::fixture("verdicts/racy_counter"))
        .args(["--gen", "none", "--races=false", "-o"])
        .arg(out)
        .args(args)
        .assert()
        .success();
    util::syncmut()
        .arg("replay")
        .arg(out)
        .arg("adder#1:remove")
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "reproduced: the trace is identical",
        ));
    util::outcomes(out)
}

/// (mutant, verdict, reason) of every mutant.
fn verdicts(outcomes: &serde_json::Value) -> Vec<(String, String, String)> {
    outcomes["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["mutant"].as_str().unwrap().to_string(),
                m["verdict"].as_str().unwrap().to_string(),
                m["reason"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

fn removed_lock(outcomes: &serde_json::Value) -> serde_json::Value {
    outcomes["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["mutant"] == "adder#1:remove")
        .unwrap()
        .clone()
}

/// `run` judges a removed lock around a shared counter across 20 seeded schedules: k/S
/// with a 95% interval, and the kill replays. Returns the mutant's outcome.
fn removed_lock_is_killed_in_some_of_20(
    strategy: &str,
    out: &Path,
    choice: &[&str],
) -> (serde_json::Value, serde_json::Value) {
    let outcomes = racy_counter_run(out, &[choice, &["--schedules", "20", "-j", "2"]].concat());
    let m = removed_lock(&outcomes);
    assert!(
        m["verdict"].as_str().unwrap().starts_with("killed"),
        "{strategy}: {m}"
    );
    let run = &m["runs"][0];
    assert_eq!(run["schedules"], 20);
    let kills = run["kills"].as_u64().unwrap();
    assert!((1..=20).contains(&kills), "{strategy}: {kills} of 20");
    assert!(
        m["reason"]
            .as_str()
            .unwrap()
            .contains(&format!("killed in {kills} of 20 schedules (95% CI")),
        "{m}"
    );
    assert!(run["schedule"]
        .as_str()
        .unwrap()
        .starts_with(&format!("{strategy}:")));
    (outcomes, m)
}

/// Under pct (few preemptions per run, so the original's bounded search can rule the
/// lost update out; random runs preempt too often for that, and leave it unproven: see
/// tests/schedules.rs) the kill is counted, its traces kept, and -j changes nothing.
#[test]
fn run_kills_a_removed_lock_under_pct_schedules() {
    let dir = tempfile::tempdir().unwrap();
    // Controlled schedules alone: runs with real threads do not repeat exactly.
    let pct = ["--strategy", "pct", "--native", "0"];
    let (outcomes, m) = removed_lock_is_killed_in_some_of_20("pct", &dir.path().join("pct"), &pct);
    assert_eq!(m["verdict"], "killed-by-output", "{m}");
    // The kill's traces were kept under the schedule's name, for diff and explain.
    let tag = m["runs"][0]["schedule"].as_str().unwrap().replace(':', "_");
    assert!(
        dir.path()
            .join("pct")
            .join(format!("traces/default/adder_1_remove@{tag}.jsonl"))
            .is_file(),
        "{tag}"
    );
    assert!(dir.path().join("pct/diff/adder_1_remove.diff").is_file());
    // The verdicts do not depend on -j. Once is enough: seeded schedule values are fixed
    // before any run, so -j cannot change which run gets which.
    let again = racy_counter_run(
        &dir.path().join("pct-again"),
        &[&pct[..], &["--schedules", "20", "-j", "1"]].concat(),
    );
    assert_eq!(
        verdicts(&outcomes),
        verdicts(&again),
        "a repeated run with -j1 differs"
    );
}

/// Under dfs with a small bound the kill is "exhaustive", and the verdicts do not
/// depend on -j.
#[test]
fn run_kills_a_removed_lock_exhaustively_under_dfs() {
    let dir = tempfile::tempdir().unwrap();
    let one = racy_counter_run(
        &dir.path().join("dfs1"),
        &["--strategy", "dfs", "--preemptions", "1", "-j", "1"],
    );
    let two = racy_counter_run(
        &dir.path().join("dfs2"),
        &["--strategy", "dfs", "--preemptions", "1", "-j", "2"],
    );
    assert_eq!(verdicts(&one), verdicts(&two), "-j1 and -j2 differ");
    let m = removed_lock(&one);
    assert!(m["verdict"].as_str().unwrap().starts_with("killed"), "{m}");
    assert_eq!(m["runs"][0]["exhaustive"], true);
    assert!(
        m["reason"]
            .as_str()
            .unwrap()
            .contains("(exhaustive: every schedule with at most 1 preemptions"),
        "{m}"
    );
    assert!(m["runs"][0]["schedule"]
        .as_str()
        .unwrap()
        .starts_with("dfs:"));
    // The log lock is only ever taken inside `m`, so it orders nothing: without it every
    // schedule still shows exactly the original's behaviours. Such a mutant is equivalent
    // within the bound and leaves the score's denominator; so are the region mutants of
    // the log lock and taking the two locks in the other order (the counter is
    // written before the next scheduling point after the log lock's release).
    for id in [
        "adder#2:remove",
        "adder#2:lock-to-trylock",
        "adder#2:remove-lock-pair",
        "adder#2:widen-critical-section",
        "adder#4:shrink-critical-section",
        "adder#1:swap-lock-order",
    ] {
        let m = one["mutants"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["mutant"] == id)
            .unwrap();
        assert_eq!(m["verdict"], "equivalent-exhaustive", "{m}");
        assert!(
            m["reason"]
                .as_str()
                .unwrap()
                .starts_with("equivalent (exhaustive): on each of "),
            "{m}"
        );
    }
    let score = &one["score"];
    assert_eq!(
        (score["mutants"].as_u64(), score["equivalent"].as_u64()),
        (Some(14), Some(6))
    );
    let killed = score["killed"].as_f64().unwrap();
    assert!(
        (score["percent"].as_f64().unwrap() - 100.0 * killed / 8.0).abs() < 1e-9,
        "{score}"
    );
    // The kill's trace, copied from the search's binary one, is kept as JSON Lines.
    util::assert_jsonl_names_only_json(&dir.path().join("dfs1"));
}

/// The interleaving is part of the build: recorded in mutants.json, kept by `--resume`
/// when no flag names one, and a different one is refused.
#[test]
fn resume_keeps_the_interleaving_it_was_built_with() {
    let fixture = util::fixture("verdicts/racy_counter");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let syncmut = |args: &[&str]| {
        util::syncmut()
            .arg("run")
            .arg(&fixture)
            .args(["--gen", "none", "-o"])
            .arg(&out)
            .args(args)
            .assert()
    };
    syncmut(&["--interleave", "memory", "--schedules", "5"]).success();
    let catalogue: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("mutants.json")).unwrap()).unwrap();
    assert_eq!(catalogue["interleave"], "memory");
    syncmut(&["--resume", "--schedules", "5"]).success();
    let catalogue: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("mutants.json")).unwrap()).unwrap();
    assert_eq!(catalogue["interleave"], "memory");
    syncmut(&["--resume", "--interleave", "sync", "--schedules", "5"])
        .code(2)
        .stderr(predicates::str::contains("built with --interleave memory"));
    // Refused before anything was rebuilt.
    let catalogue: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("mutants.json")).unwrap()).unwrap();
    assert_eq!(catalogue["interleave"], "memory");
}

/// Memory reached through a thread's argument (main's stack frame, the heap) is shared;
/// the thread's own locals (loop index, the argument's copy) are not scheduling points.
#[test]
fn memory_reached_through_pointers_is_shared() {
    let dir = tempfile::tempdir().unwrap();
    let source = util::fixture("interleave/pointer_race.c");
    let dfs = config(
        Strategy::Dfs {
            preemptions: 2,
            por: Por::Dpor,
        },
        500,
    );
    for (variant, flags) in [("heap", &[][..]), ("stack", &["-DSTACK_ONLY"][..])] {
        let out = dir.path().join(variant);
        let b = build_with(&source, &out, Interleave::Memory, flags);
        let in_adder: Vec<(u32, bool)> = b
            .catalogue
            .accesses
            .iter()
            .filter(|a| a.function == "adder")
            .map(|a| (a.line, a.write))
            .collect();
        let expected: &[(u32, bool)] = if variant == "heap" {
            &[
                (16, false),
                (16, true),
                (18, false),
                (18, false),
                (18, true),
            ]
        } else {
            &[(16, false), (16, true)]
        };
        assert_eq!(
            in_adder, expected,
            "{variant}: only the accesses through the argument, not `i` or `s`"
        );
        let report = explore::explore(&original(&b.metamutant), &dfs, &out.join("work")).unwrap();
        assert_eq!(
            report.found.map(|f| f.kind),
            Some(BugKind::Assertion),
            "{variant}"
        );
    }
}

/// pct without --depth or --schedules chooses both from a first run and says what the
/// runs covered; given values are kept; a repeated schedule is drawn again, so the budget
/// counts distinct schedules.
#[test]
fn pct_chooses_depth_and_budget_and_says_what_it_covered() {
    let dir = tempfile::tempdir().unwrap();
    let twin = bugs_dir().join("lock_order_ok.c");
    let explore = |out: &str, extra: &[&str]| {
        let out = dir.path().join(out);
        let args = [
            &[
                twin.to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
                "--strategy",
                "pct",
            ],
            extra,
        ]
        .concat();
        let done = util::syncmut().arg("explore").args(args).assert().code(0);
        String::from_utf8_lossy(&done.get_output().stdout).to_string()
    };
    let number = |text: &str, after: &str, before: &str| -> usize {
        let tail = text
            .split(after)
            .nth(1)
            .unwrap_or_else(|| panic!("no {after:?} in {text}"));
        tail.split(before)
            .next()
            .unwrap()
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{after:?}…{before:?} in {text}"))
    };
    // Three threads (main and two workers), a first run of k scheduling points: depth 3
    // would need over 1000 runs for a 95% bound, so depth 2 and the runs its bound asks.
    let chosen = explore("chosen", &[]);
    assert!(chosen.contains("strategy pct (depth 2)"), "{chosen}");
    assert!(chosen.contains("pct depth 2 (chosen), budget"), "{chosen}");
    assert!(
        chosen.contains("schedules (chosen), for 3 thread(s) and"),
        "{chosen}"
    );
    let k = number(&chosen, "thread(s) and ", " scheduling point(s)");
    let per_run = number(&chosen, "1/(n·k^(d-1)) = 1/", ";");
    assert_eq!(per_run, 3 * k, "{chosen}");
    let runs = number(&chosen, "explored ", " run(s)");
    let draws = number(&chosen, "the probability that all ", " pct runs");
    assert_eq!(draws, runs - 1, "{chosen}");
    let bound: f64 = chosen
        .split("missed it is at most ")
        .nth(1)
        .unwrap()
        .split('%')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let expected = 100.0 * (1.0 - 1.0 / per_run as f64).powf(draws as f64);
    assert!(
        (bound - expected).abs() < 0.06,
        "{bound} vs {expected}: {chosen}"
    );
    // Repeats are redrawn: fewer distinct schedules than runs, and the count says so.
    let distinct = number(&chosen, "run(s), ", " distinct");
    let redrawn = number(
        &chosen,
        "distinct schedule(s) (",
        " repeated draw(s) redrawn)",
    );
    assert_eq!(distinct + redrawn, runs, "{chosen}");

    // Given values are kept, and the budget is one of distinct schedules.
    let given = explore("given", &["--depth", "3", "--schedules", "40"]);
    assert!(
        given.contains("pct depth 3, budget 40 distinct schedules, for 3 thread(s)"),
        "{given}"
    );
    assert_eq!(number(&given, "run(s), ", " distinct"), 40, "{given}");
}

/// A sync-level search that covered its space without a bug points at memory-level
/// interleaving; at memory level it does not.
#[test]
fn an_exhausted_sync_level_search_suggests_memory_interleaving() {
    let dir = tempfile::tempdir().unwrap();
    let twin = bugs_dir().join("lock_order_ok.c");
    let hint = "--interleave memory makes every load and store of shared memory a scheduling point";
    let explore = |out: &str, extra: &[&str]| {
        let out = dir.path().join(out);
        let args = [
            &[
                twin.to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
                "--strategy",
                "dfs",
                "--preemptions",
                "1",
            ],
            extra,
        ]
        .concat();
        let done = util::syncmut().arg("explore").args(args).assert().code(0);
        String::from_utf8_lossy(&done.get_output().stdout).to_string()
    };
    let sync = explore("sync", &[]);
    assert!(
        sync.contains("the bounded space is exhausted") && sync.contains(hint),
        "{sync}"
    );
    let memory = explore("memory", &["--interleave", "memory", "--schedules", "30"]);
    assert!(!memory.contains(hint), "{memory}");
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

/// Explores the slow-once fixture (the run that creates its marker sleeps 1.5 s past a
/// 1 s limit, every other run is quick) at `interleave`: exit code, stdout, stderr.
fn explore_slow_first_run(interleave: &str) -> (Option<i32>, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("marker").display().to_string();
    let done = util::syncmut()
        .arg("explore")
        .arg(util::fixture("explore/slow_first_run.c"))
        .arg("-o")
        .arg(dir.path().join("out"))
        .args([
            "--strategy",
            "random",
            "--schedules",
            "3",
            "--timeout",
            "1",
            "--interleave",
            interleave,
            "--arg",
            &marker,
        ])
        .output()
        .unwrap();
    (
        done.status.code(),
        String::from_utf8_lossy(&done.stdout).into_owned(),
        String::from_utf8_lossy(&done.stderr).into_owned(),
    )
}

/// A run that outlives the timeout is run again under twice the limit before it is a
/// hang: at memory level the fixture's slow run times out, its second try is quick, so
/// explore reports no bug and says one run was slow. A program that really hangs is
/// still reported (tests/busywait.rs: a spin no thread ends).
#[test]
fn a_run_slow_only_once_is_not_a_hang() {
    let (code, stdout, stderr) = explore_slow_first_run("memory");
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(
        stdout.contains("no bug found") && !stdout.contains("hang"),
        "{stdout}"
    );
    // One run is slow by design; on a loaded machine a quick run may also pass 1 s.
    assert!(
        stderr.contains(
            " run(s) timed out under the limit of 1 s but ended when run again under 2× it"
        ),
        "{stderr}"
    );
}

/// At sync level a timeout is not confirmed: it is never reported there, it sends the
/// search to memory level (whose runs confirm theirs), so the slow run does that
/// at once, and the search there finds no bug.
#[test]
fn a_timeout_at_sync_level_goes_to_memory_level_unconfirmed() {
    let (code, stdout, stderr) = explore_slow_first_run("sync");
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    // Which run is the slow one depends on which lane creates the marker first.
    assert!(
        stderr.contains("did not end within the timeout at sync level")
            && stderr.contains("exploring again at memory level"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("ended when run again"),
        "the sync-level timeout was confirmed: {stderr}"
    );
    assert!(stdout.contains("no bug found"), "{stdout}");
}
