//! What one step of the search is: sync-level and memory-level interleaving, atomic
//! sections, what memory is shared, assumptions, and the flags that reach the design's
//! build.

mod util;

use std::process::Command;
use syncmut_mutator::interleave::Interleave;
use syncmut_oracle::explore::{self, BugKind};
use syncmut_oracle::schedules::{Por, Strategy};
use util::explore::{bugs_dir, build, build_with, config, original, run, verifier};

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
