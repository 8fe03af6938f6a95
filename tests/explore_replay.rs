//! Schedule files and replay: the scheduler's pct and replay strategies reproduce traces
//! and schedules, a deadlock's schedule replays, a schedule is refused by the
//! uninstrumented build, and futures and `std::async` run under the scheduler.

mod util;

use std::process::Command;
use syncmut_mutator::interleave::Interleave;
use util::explore::{bugs_dir, build, build_with, run};

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

/// A recording setting other than 0 or 1 ends the run with status 120, naming it.
fn refuses_malformed(binary: &std::path::Path, variable: &str) {
    for bad in ["2", "yes", "00"] {
        let out = Command::new(binary)
            .env("SYNCMUT_SCHEDULE", "default")
            .env(variable, bad)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(120), "{variable}={bad}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(&format!("malformed {variable}")),
            "{variable}={bad}"
        );
    }
}

/// The schedules the recording tests run: `default`, then eight random seeds.
fn schedules() -> impl Iterator<Item = String> {
    std::iter::once("default".to_string()).chain((1..=8).map(|seed| format!("random:{seed}")))
}

/// `binary` under `schedule`, its choices recorded in `file`, with one more setting.
fn recorded(
    binary: &std::path::Path,
    schedule: &str,
    file: &str,
    setting: Option<(&str, &str)>,
) -> (std::process::ExitStatus, String) {
    let mut env = vec![
        ("SYNCMUT_SCHEDULE", schedule),
        ("SYNCMUT_SCHEDULE_OUT", file),
    ];
    env.extend(setting);
    run(binary, &env)
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
        for value in schedules() {
            let file = |record: Option<&str>, name: &str| {
                let setting = record.map(|r| ("SYNCMUT_RECORD_STEPS", r));
                let (status, stdout) = recorded(&b.metamutant, &value, name, setting);
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
        refuses_malformed(&b.metamutant, "SYNCMUT_RECORD_STEPS");
    }
    // The runs had step lines to leave out, and choices that name run steps.
    assert!(
        steps > 0 && readied > 0,
        "{steps} step lines, {readied} choices with b<k>"
    );
}

/// With `SYNCMUT_RECORD_DETAIL=0` (how `run` records a mutant's runs) a schedule file
/// names each option by its thread alone (consecutive ones as one range), and holds the
/// same points as the detailed file: the same threads chosen, among the same threads,
/// from the same running thread, after the same events; it replays to the same choices.
/// A value other than 0 or 1 is refused.
#[test]
fn a_schedule_file_without_detail_has_the_same_choices_by_thread() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name).display().to_string();
    let source = util::fixture("verdicts/racy_counter/racy_counter.c");
    let b = build_with(&source, dir.path(), Interleave::Sync, &[]);
    let choices = |path: &str| {
        syncmut_runtime::schedule::parse(&std::fs::read_to_string(path).unwrap())
            .unwrap()
            .choices
    };
    // What a point is when only its threads are known.
    let by_thread = |path: &str| -> Vec<_> {
        choices(path)
            .into_iter()
            .map(|c| {
                let mut ids: Vec<u32> = c.options.iter().map(|(id, _)| *id).collect();
                ids.sort();
                (c.chosen, c.kind, c.current, ids, c.events)
            })
            .collect()
    };
    let (mut points, mut ranges) = (0, 0);
    for value in schedules() {
        let record = |detail: Option<&str>, name: &str| {
            let setting = detail.map(|d| ("SYNCMUT_RECORD_DETAIL", d));
            recorded(&b.metamutant, &value, name, setting)
        };
        let full = record(None, &p("full.sched"));
        assert_eq!(full, record(Some("1"), &p("one.sched")), "{value}");
        assert_eq!(
            std::fs::read_to_string(p("full.sched")).unwrap(),
            std::fs::read_to_string(p("one.sched")).unwrap(),
            "{value}: 1 is the default"
        );
        assert_eq!(
            full,
            record(Some("0"), &p("ids.sched")),
            "{value}: the run is the same"
        );
        let text = std::fs::read_to_string(p("ids.sched")).unwrap();
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let options = line.split(' ').nth(3).unwrap();
            // Threads alone, consecutive ones as one range: `0-2,4`.
            assert!(
                options
                    .split(',')
                    .all(|o| o.split('-').all(|id| id.parse::<u32>().is_ok())),
                "{value}: {line}"
            );
            ranges += usize::from(options.contains('-'));
        }
        assert_eq!(
            by_thread(&p("full.sched")),
            by_thread(&p("ids.sched")),
            "{value}"
        );
        points += choices(&p("ids.sched")).len();
        let replayed = format!("replay:{}", p("ids.sched"));
        let again = run(
            &b.metamutant,
            &[
                ("SYNCMUT_SCHEDULE", &replayed),
                ("SYNCMUT_SCHEDULE_OUT", &p("again.sched")),
                ("SYNCMUT_RECORD_DETAIL", "0"),
            ],
        );
        assert_eq!(again, full, "{value}");
        assert_eq!(by_thread(&p("again.sched")), by_thread(&p("ids.sched")));
    }
    assert!(
        points > 0 && ranges > 0,
        "{points} points, {ranges} with a range"
    );
    refuses_malformed(&b.metamutant, "SYNCMUT_RECORD_DETAIL");
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
