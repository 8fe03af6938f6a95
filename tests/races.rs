//! Data races as bugs and verdicts: the runtime's happens-before detector reached through
//! `syncmut explore --races` (a racy program prints both accesses, its twin with a lock
//! prints nothing, synchronization the runtime models orders accesses) and through
//! `syncmut run` (races on by default: a mutant's new race kills it; the original's own races never do).

mod util;

use std::path::Path;

fn explore(design: &Path, out: &Path, extra: &[&str]) -> (i32, String) {
    let output = util::syncmut()
        .arg("explore")
        .arg(design)
        .args(["--races", "-o"])
        .arg(out)
        .args(extra)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    (output.status.code().unwrap_or(-1), stdout)
}

#[test]
fn explore_reports_a_race_with_both_accesses_and_its_locked_twin_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (code, text) = explore(
        &util::example("pthread/bugs/counter_race.c"),
        &dir.path().join("race"),
        &["--strategy", "dfs"],
    );
    assert_eq!(code, 9, "{text}");
    assert!(text.contains("BUG data race: 2 pair(s)"), "{text}");
    // Found in the first schedule (dfs starts without preemptions; the lost update needs
    // one): no unlucky interleaving is needed.
    assert!(text.contains("found by run 1 "), "{text}");
    assert!(text.contains("T1 writes in adder @ counter_race.c:17:12 holding no lock\n  T2 writes in adder @ counter_race.c:17:12 holding no lock"), "{text}");
    assert!(
        text.contains("T2 reads in adder @ counter_race.c:17:12"),
        "{text}"
    );
    let saved = std::fs::read_to_string(dir.path().join("race/counterexample.txt")).unwrap();
    assert!(saved.starts_with("data race"), "{saved}");

    let (code, text) = explore(
        &util::example("pthread/bugs/counter_race_ok.c"),
        &dir.path().join("twin"),
        &["--strategy", "dfs", "--preemptions", "1"],
    );
    assert_eq!(code, 0, "{text}");
    // (The hint after an exhausted sync-level search names data races as what memory
    // level adds; no race is reported.)
    assert!(
        text.contains("no bug found")
            && !text.contains("BUG data race")
            && !text.contains("writes in"),
        "{text}"
    );
}

#[test]
fn a_race_names_the_lock_one_side_held_and_needs_no_memory_scheduling_points() {
    let dir = tempfile::tempdir().unwrap();
    let (code, text) = explore(
        &util::fixture("races/half_locked.c"),
        &dir.path().join("half"),
        &["--strategy", "dfs"],
    );
    assert_eq!(code, 9, "{text}");
    assert!(
        text.contains("T1 writes in careful @ half_locked.c:12:10 holding the lock taken by pthread_mutex_lock(&m) @ half_locked.c:11\n  T2 writes in careless @ half_locked.c:19:10 holding no lock\n    no common lock"),
        "{text}"
    );
    // The accesses were observed, not scheduled: no memory steps in the counterexample.
    assert!(!text.contains("memory steps at choice points"), "{text}");
}

#[test]
fn synchronization_the_runtime_models_orders_accesses() {
    // Atomics (C11 and builtins), a semaphore, a barrier, a condition variable and its
    // mutex, an SV-COMP atomic function, create and join: no race in any schedule.
    let dir = tempfile::tempdir().unwrap();
    let (code, text) = explore(
        &util::fixture("races/ordered.c"),
        &dir.path().join("dfs"),
        &["--strategy", "dfs", "--preemptions", "1"],
    );
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("the bounded space is exhausted"), "{text}");
    let (code, text) = explore(
        &util::fixture("races/ordered.c"),
        &dir.path().join("memory"),
        &[
            "--strategy",
            "random",
            "--schedules",
            "20",
            "--interleave",
            "memory",
        ],
    );
    assert_eq!(code, 0, "{text}");
}

#[test]
fn the_pthread_examples_originals_have_no_race() {
    let dir = tempfile::tempdir().unwrap();
    for name in [
        "bank_transfer",
        "bounded_buffer",
        "critical_sections",
        "barrier_phases",
        "rwlock_cache",
        "dining_philosophers",
    ] {
        let (code, text) = explore(
            &util::example(&format!("pthread/{name}")),
            &dir.path().join(name),
            &["--strategy", "random", "--schedules", "10"],
        );
        assert_eq!(code, 0, "{name}: {text}");
    }
}

#[test]
fn run_kills_a_new_race_and_lists_the_originals_own_races_once_without_killing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    // No flag: race detection is on by default for pthread designs.
    let run = util::syncmut()
        .arg("run")
        .arg(util::fixture("races/racy_original.c"))
        .args(["-j", "2", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{stdout}");
    // The original's race on `progress` (line 14): in the baseline, each pair once.
    let baseline: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("baseline.json")).unwrap()).unwrap();
    let keys: Vec<&str> = baseline[0]["races"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["key"].as_str().unwrap())
        .collect();
    assert_eq!(
        keys,
        [
            "racy_original.c:14:12 write / racy_original.c:14:12 write",
            "racy_original.c:14:12 write / racy_original.c:14:14 read"
        ]
    );
    assert!(stdout.contains("data race of the original (kills no mutant): T1 writes in worker @ racy_original.c:14:12"), "{stdout}");
    let outcomes = util::outcomes(&out);
    let mutants = outcomes["mutants"].as_array().unwrap();
    let of = |id: &str| mutants.iter().find(|m| m["mutant"] == id).unwrap();
    // The lock on `total` removed: a race on line 16 the original does not have.
    let removed = of("worker#1:remove");
    assert_eq!(removed["verdict"], "killed-by-race", "{removed}");
    let reason = removed["reason"].as_str().unwrap();
    assert!(reason.contains("data race the original does not have: T1 writes in worker @ racy_original.c:16:9 holding no lock"), "{reason}");
    // Only with a lock on one side: the reason names it.
    let trylock = of("worker#1:lock-to-trylock");
    assert!(
        trylock["reason"]
            .as_str()
            .unwrap()
            .contains("holding the lock taken by pthread_mutex_lock(&m) @ racy_original.c:15"),
        "{trylock}"
    );
    // The original's own race kills nothing.
    for m in mutants {
        assert!(
            !m["reason"]
                .as_str()
                .unwrap_or("")
                .contains("does not have: T1 writes in worker @ racy_original.c:14"),
            "{m}"
        );
    }
    // Every report format names the verdict.
    for format in ["csv", "json", "junit", "markdown", "mte"] {
        let report = util::syncmut()
            .args(["report", "--format", format])
            .arg(&out)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&report.stdout);
        let wanted = if format == "mte" {
            "Killed"
        } else {
            "killed-by-race"
        };
        assert!(text.contains(wanted), "{format}: {text}");
    }
    assert!(std::fs::read_to_string(out.join("report.html"))
        .unwrap()
        .contains("killed-by-race"));
    assert!(stdout.contains("killed-by-race 4"), "{stdout}");
}

#[test]
fn without_races_the_same_mutant_is_not_judged_by_races() {
    // Switched off, by flag or by syncmut.toml: the metamutant has no access hooks and
    // no race kills.
    let dir = tempfile::tempdir().unwrap();
    let design = dir.path().join("design");
    std::fs::create_dir(&design).unwrap();
    std::fs::copy(
        util::fixture("races/racy_original.c"),
        design.join("racy_original.c"),
    )
    .unwrap();
    std::fs::write(design.join("syncmut.toml"), "races = false\n").unwrap();
    let off_by_flag = (
        util::fixture("races/racy_original.c"),
        vec!["--races=false"],
    );
    let off_by_file = (design.join("racy_original.c"), vec![]);
    for (i, (program, flags)) in [off_by_flag, off_by_file].into_iter().enumerate() {
        let out = dir.path().join(format!("out{i}"));
        util::syncmut()
            .arg("run")
            .arg(&program)
            .args(["--strategy", "default", "-o"])
            .arg(&out)
            .args(flags)
            .assert()
            .success();
        let text = std::fs::read_to_string(out.join("outcomes.json")).unwrap();
        assert!(!text.contains("killed-by-race"), "{text}");
        let catalogue = std::fs::read_to_string(out.join("mutants.json")).unwrap();
        assert!(!catalogue.contains("\"accesses\""), "{catalogue}");
    }
}

#[test]
fn freed_memory_is_forgotten_so_a_reused_address_is_a_new_object() {
    // A frees a block, B mallocs one at the same address: only the allocator orders the
    // two writes, and they are to two objects, so no race. One run under the `default`
    // schedule (A runs to its end before B starts) shows the reuse itself; a search over
    // every schedule within one preemption reports no race; a real race on a heap block
    // still shows.
    let dir = tempfile::tempdir().unwrap();
    let fixture = util::fixture("races/reused_heap.c");
    let design = syncmut_mutator::Design::from_paths(std::slice::from_ref(&fixture), &[]).unwrap();
    let options = syncmut_mutator::metamutant::Options {
        interleave: syncmut_mutator::interleave::Interleave::Sync,
        races: true,
    };
    let build =
        syncmut_mutator::metamutant::build_with(&design, &dir.path().join("build"), &options)
            .unwrap();
    let races_file = dir.path().join("run.races");
    let run = syncmut_runner::Invocation {
        active: Some(String::new()),
        schedule: Some("default".into()),
        races_out: Some(races_file.clone()),
        ..syncmut_runner::Invocation::new(&build.metamutant, &[])
    }
    .run()
    .unwrap();
    assert_eq!(run.stdout.text(), "reused\n", "{}", run.stderr.text());
    let found = syncmut_runtime::races::read(&races_file)
        .unwrap()
        .expect("the race file");
    assert!(found.races.is_empty() && found.complete, "{found:?}");

    let (code, text) = explore(
        &fixture,
        &dir.path().join("reused"),
        &["--strategy", "dfs", "--preemptions", "1"],
    );
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("the bounded space is exhausted") && !text.contains("BUG"),
        "{text}"
    );
    let (code, text) = explore(
        &fixture,
        &dir.path().join("race"),
        &["--strategy", "dfs", "--cflag=-DRACE"],
    );
    assert_eq!(code, 9, "{text}");
    assert!(text.contains("BUG data race"), "{text}");
    assert!(
        text.contains("reused_heap.c:32:") && text.contains("reused_heap.c:46:"),
        "{text}"
    );
}

/// On by default means on where it applies: a SystemC run says nothing about races
/// unless they were asked for, and then it says they do not apply.
#[test]
fn systemc_runs_mention_races_only_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    for (i, flags) in [vec![], vec!["--races"]].into_iter().enumerate() {
        let run = util::syncmut()
            .arg("run")
            .arg(util::fixture("verdicts/sc_deadlock"))
            .args(["--gen", "none", "-o"])
            .arg(dir.path().join(format!("out{i}")))
            .args(&flags)
            .output()
            .unwrap();
        assert!(run.status.success(), "{run:?}");
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(
            stderr.contains("race detection applies to pthread designs only"),
            !flags.is_empty(),
            "{flags:?}: {stderr}"
        );
    }
}
