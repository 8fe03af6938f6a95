//! Threads whose start routine is a value, not a function named at the creation: taken
//! from a table of start routines, looked up in a `{ name, fn }` table, returned by a
//! helper, or passed to C11 `thrd_create` (`analysis/src/wp/start_routines.rs`). Their
//! sites get tests like any thread's (before: "no path from main … to FN").
//! Designs in tests/fixtures/start_routines/.

mod util;

use serde_json::Value;
use util::{fixture, outcomes, syncmut};

/// `syncmut <command> <design> -o <fresh dir>`: the directory, the exit code and stdout.
/// `gen` analyses every site (`--analyse-all`): these tests are about the entries the
/// analysis finds, which the default invocation would otherwise bypass.
fn run(command: &str, design: &str) -> (tempfile::TempDir, i32, String) {
    let out = tempfile::tempdir().unwrap();
    let mut cmd = syncmut();
    cmd.arg(command)
        .arg(fixture("start_routines").join(design))
        .arg("-o")
        .arg(out.path());
    if command == "gen" {
        cmd.arg("--analyse-all");
    }
    let output = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    (
        out,
        output.status.code().unwrap_or(-1),
        format!("{stdout}\n{stderr}"),
    )
}

/// sites.json of a generation.
fn sites(out: &tempfile::TempDir) -> Vec<Value> {
    let text = std::fs::read(out.path().join("sites.json")).unwrap();
    serde_json::from_slice::<Value>(&text)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

/// The arguments of site `k`'s test.
fn args(sites: &[Value], k: usize) -> Vec<String> {
    assert_eq!(sites[k]["verdict"]["verdict"], "test-found", "{}", sites[k]);
    sites[k]["verdict"]["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_worker_started_from_a_table_in_a_loop_gets_the_key_its_lock_needs() {
    // workers[i % 3] with the pool's size from argv[2]: the auditor is the third role.
    let (out, code, output) = run("gen", "table_workers.c");
    assert_eq!(code, 0, "{output}");
    assert!(!output.contains("no path from main"), "{output}");
    assert!(!output.contains("NOT confirmed"), "{output}");
    assert!(
        output.contains("reach rate: 9 of 9 sites not proven unreachable (100%)"),
        "{output}"
    );
    let sites = sites(&out);
    // Site 4: the auditor's lock, behind `key == 7919`, in the third worker created:
    // the pool must hold at least three (a size outside 1..=16 means three).
    let auditor = args(&sites, 4);
    assert_eq!(auditor[0], "7919", "{}", sites[4]);
    let n: i64 = auditor[1].parse().unwrap();
    assert!(!(1..3).contains(&n), "{}", sites[4]);
    // Site 2: the consumer's lock needs a second worker only.
    let consumer = args(&sites, 2);
    let n: i64 = consumer[1].parse().unwrap();
    assert!(!(1..2).contains(&n), "{}", sites[2]);
}

#[test]
fn run_without_tests_kills_the_removal_of_the_table_worker_lock() {
    // Only the generated test reaches the auditor's lock; without it, the auditor reads
    // the report while main may be writing it: a data race (on by default), which the
    // reason names.
    let (out, code, output) = run("run", "table_workers.c");
    assert_eq!(code, 0, "{output}");
    let outcomes = outcomes(out.path());
    let remove = util::outcome(&outcomes, "auditor#1:remove");
    assert_eq!(remove["verdict"], "killed-by-race", "{remove}");
    assert!(
        remove["reason"]
            .as_str()
            .unwrap()
            .contains("T3 reads in auditor @ table_workers.c:44"),
        "{remove}"
    );
    let test = remove["runs"][0]["test"].as_str().unwrap();
    assert!(test.starts_with("wp") && test.contains("7919"), "{remove}");
}

#[test]
fn a_role_looked_up_by_name_in_a_struct_table_is_started() {
    // `run = roles[k].run` for the k whose name is argv[1]: a choice among three
    // functions; the flusher locks for a level above 100.
    let (out, code, output) = run("gen", "role_table.c");
    assert_eq!(code, 0, "{output}");
    assert!(!output.contains("NOT confirmed"), "{output}");
    let sites = sites(&out);
    let flusher = args(&sites, 0);
    assert_eq!(flusher[0], "flusher", "{}", sites[0]);
    assert!(flusher[1].parse::<i64>().unwrap() > 100, "{}", sites[0]);
}

#[test]
fn a_start_routine_not_followed_is_every_routine_shaped_function_and_is_noted() {
    // A helper's result is not followed: the checker is assumed to be started at the
    // creation, which the notes say; the input found is confirmed by running it.
    let (out, code, output) = run("gen", "routine_from_helper.c");
    assert_eq!(code, 0, "{output}");
    assert!(!output.contains("NOT confirmed"), "{output}");
    let sites = sites(&out);
    assert_eq!(args(&sites, 0), ["5"], "{}", sites[0]);
    let noted = sites[0]["notes"].as_array().unwrap().iter().any(|n| {
        n.as_str().unwrap().contains(
            "the start routine passed at routine_from_helper.c:36 is not followed to its functions within the bound",
        )
    });
    assert!(noted, "{}", sites[0]);
}

#[test]
fn a_c11_thread_started_from_a_table_is_analysed() {
    // thrd_create(&t, table[w & 1], &v): the counter is element 1.
    let (out, code, output) = run("gen", "c11_table.c");
    assert_eq!(code, 0, "{output}");
    assert!(!output.contains("NOT confirmed"), "{output}");
    let sites = sites(&out);
    let counter = args(&sites, 0);
    assert_eq!(counter[0], "31", "{}", sites[0]);
    assert_eq!(counter[1].parse::<i64>().unwrap() & 1, 1, "{}", sites[0]);
}

#[test]
fn a_callback_assumed_to_be_a_start_routine_keeps_its_calls_through_pointers() {
    // `visit` is listed as a possible start routine of a creation not followed; its
    // call through `hook` is still a context, so the input found sets argv[2] to 3 and
    // is confirmed by running it.
    let (out, code, output) = run("gen", "callback_beside.c");
    assert_eq!(code, 0, "{output}");
    assert!(!output.contains("NOT confirmed"), "{output}");
    let sites = sites(&out);
    assert_eq!(args(&sites, 0), ["9", "3"], "{}", sites[0]);
}
