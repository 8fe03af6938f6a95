//! One library, several test programs, one score: `syncmut run ./adders ./waiter` on
//! tests/fixtures/programs, a counter (mutex and condition variable) linked into two
//! programs through `syncmut cc`. Only `waiter` waits on the counter, so only its tests
//! can notice a lost wake-up.

mod util;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use util::outcome;

/// A copy of the fixture with `adders` and `waiter` linked through `syncmut cc` (one
/// command each), and a tests file: one test for every program, one for `waiter` only.
fn built() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("programs");
    let copied = Command::new("cp")
        .arg("-r")
        .arg(util::fixture("programs"))
        .arg(&project)
        .status()
        .unwrap();
    assert!(copied.success());
    for program in ["adders", "waiter"] {
        let built = Command::new(env!("CARGO_BIN_EXE_syncmut"))
            .current_dir(&project)
            .args([
                "cc",
                "counter.c",
                &format!("{program}.c"),
                "-o",
                program,
                "-lpthread",
            ])
            .output()
            .unwrap();
        assert!(
            built.status.success(),
            "{}",
            String::from_utf8_lossy(&built.stderr)
        );
    }
    write_tests(
        &project,
        r#"{ "tests": [ { "name": "plain" }, { "name": "three", "program": "waiter", "args": ["3"] } ] }"#,
    );
    (dir, project)
}

fn write_tests(project: &Path, text: &str) {
    std::fs::write(project.join("tests.json"), text).unwrap();
}

fn run(project: &Path, args: &[&str]) -> std::process::Output {
    util::syncmut()
        .current_dir(project)
        // Controlled schedules alone, so a program's score repeats exactly after --resume.
        .args(["run", "--gen", "none", "-j", "2", "--native", "0"])
        .args(args)
        .output()
        .unwrap()
}

fn json(path: PathBuf) -> Value {
    serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap()
}

#[test]
fn two_programs_give_one_catalogue_and_a_higher_score_than_one() {
    let (_dir, project) = built();
    let started = std::time::Instant::now();
    let both = run(&project, &["./adders", "./waiter", "-o", "both"]);
    eprintln!("syncmut run ./adders ./waiter: {:?}", started.elapsed());
    assert!(
        both.status.success(),
        "{}",
        String::from_utf8_lossy(&both.stderr)
    );
    let catalogue = json(project.join("both/mutants.json"));
    let keys: Vec<&str> = catalogue["sites"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["key"].as_str().unwrap())
        .collect();
    // The library's sites once, each program's own `main` told apart by its program.
    for key in [
        "counter_add#2",
        "counter_wait#2",
        "adders/main#1",
        "waiter/main#1",
    ] {
        assert_eq!(
            keys.iter().filter(|k| **k == key).count(),
            1,
            "{key} in {keys:?}"
        );
    }
    assert!(!keys.contains(&"main#1"), "{keys:?}");
    let mutants = catalogue["mutants"].as_array().unwrap();
    let mut ids: Vec<&str> = mutants.iter().map(|m| m["id"].as_str().unwrap()).collect();
    let listed = ids.len();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), listed, "mutant ids repeat");
    let programs_of =
        |id: &str| mutants.iter().find(|m| m["id"] == id).unwrap()["programs"].clone();
    assert_eq!(
        programs_of("counter_add#2:remove"),
        serde_json::json!(["adders", "waiter"])
    );
    assert_eq!(
        programs_of("waiter/main#1:remove"),
        serde_json::json!(["waiter"])
    );

    // The lost wake-up (the broadcast removed): only `waiter` has a thread waiting.
    let outcomes = json(project.join("both/outcomes.json"));
    assert_eq!(outcomes["complete"], true);
    let lost_wakeup = outcome(&outcomes, "counter_add#2:remove");
    assert!(
        lost_wakeup["verdict"]
            .as_str()
            .unwrap()
            .starts_with("killed"),
        "{lost_wakeup}"
    );
    assert!(
        lost_wakeup["killed_by"]
            .as_str()
            .unwrap()
            .starts_with("waiter/"),
        "{lost_wakeup}"
    );
    // The waiter-only test ran with `waiter` alone.
    let tests: Vec<String> = json(project.join("both/baseline.json"))
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["test"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(tests, ["adders/plain", "waiter/plain", "waiter/three"]);

    // `adders` alone (the tests file's `waiter` test is skipped: that program is beside it).
    let one = run(&project, &["./adders", "-o", "one"]);
    assert!(
        one.status.success(),
        "{}",
        String::from_utf8_lossy(&one.stderr)
    );
    let alone = json(project.join("one/outcomes.json"));
    assert_eq!(
        outcome(&alone, "counter_add#2:remove")["verdict"],
        "survived"
    );
    let score = |o: &Value| o["score"]["percent"].as_f64().unwrap();
    assert!(
        score(&outcomes) > score(&alone),
        "{} <= {}",
        score(&outcomes),
        score(&alone)
    );

    // The run directory reads like any other: reports, and explain through the program's traces.
    let csv = util::syncmut()
        .args(["report", "--format", "csv"])
        .arg(project.join("both"))
        .output()
        .unwrap();
    assert!(csv.status.success());
    assert!(String::from_utf8_lossy(&csv.stdout).contains("waiter/three"));
    let explained = util::syncmut()
        .arg("explain")
        .arg(project.join("both"))
        .arg("counter_add#2:remove")
        .output()
        .unwrap();
    assert!(
        explained.status.success(),
        "{}",
        String::from_utf8_lossy(&explained.stderr)
    );
    assert!(String::from_utf8_lossy(&explained.stdout).contains("pthread_cond_wait"));

    // --resume keeps a finished program's runs and redoes only the program that had not run.
    let before = std::fs::read(project.join("both/programs/adders/outcomes.json")).unwrap();
    std::fs::remove_dir_all(project.join("both/programs/waiter")).unwrap();
    let resumed = run(
        &project,
        &["./adders", "./waiter", "-o", "both", "--resume"],
    );
    assert!(
        resumed.status.success(),
        "{}",
        String::from_utf8_lossy(&resumed.stderr)
    );
    let after = std::fs::read(project.join("both/programs/adders/outcomes.json")).unwrap();
    assert_eq!(before, after, "the finished program's runs were redone");
    let again = json(project.join("both/outcomes.json"));
    assert_eq!(again["score"], outcomes["score"]);
}

#[test]
fn what_is_not_several_programs_is_refused_saying_what_to_do() {
    let (_dir, project) = built();
    let refused = |args: &[&str], says: &[&str]| {
        let output = run(&project, args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        for s in says {
            assert!(stderr.contains(s), "{args:?}: {stderr}");
        }
    };
    refused(
        &["./adders", "counter.c"],
        &["counter.c", "sources and executables together"],
    );
    let plain = Command::new("clang-16")
        .current_dir(&project)
        .args(["counter.c", "adders.c", "-o", "plain", "-lpthread"])
        .status()
        .unwrap();
    assert!(plain.success());
    refused(
        &["./adders", "./plain"],
        &[
            "./plain",
            "not linked through `syncmut cc`",
            "CC=\"syncmut cc\"",
        ],
    );
    write_tests(
        &project,
        r#"{ "tests": [ { "name": "t", "program": "nosuch" } ] }"#,
    );
    refused(
        &["./adders", "./waiter"],
        &["tests.json", "\"nosuch\"", "adders, waiter"],
    );
    // Without generated tests, a program without a test is refused before any is built.
    write_tests(
        &project,
        r#"{ "tests": [ { "name": "t", "program": "adders" } ] }"#,
    );
    refused(
        &["./adders", "./waiter"],
        &["tests.json", "no test for program waiter"],
    );
    assert!(!project.join("syncmut.out/programs").exists());
}
