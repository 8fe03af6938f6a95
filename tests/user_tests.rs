//! Tests as users write them: stdin, files copied into a private working directory,
//! a command line around the program, the exit status it expects and output files
//! compared after the run; and the private directory keeping a design away from the
//! user's own files.

mod util;

use std::path::Path;

fn run(design: &Path, tests: &Path, cwd: &Path, out: &str) {
    util::syncmut()
        .current_dir(cwd)
        .arg("run")
        .arg(design)
        .arg("--tests")
        .arg(tests)
        .args(["--gen", "none", "-o", out])
        .timeout(std::time::Duration::from_secs(300))
        .assert()
        .success();
}

#[test]
fn stdin_files_a_command_and_output_files_make_a_test() {
    let fixture = util::fixture("user_tests");
    let cwd = tempfile::tempdir().unwrap();
    run(
        &fixture.join("handoff.c"),
        &fixture.join("tests.json"),
        cwd.path(),
        "out",
    );
    let out = cwd.path().join("out");
    let baseline: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("baseline.json")).unwrap()).unwrap();
    // The design read its stdin and its data file, and `test -s result.txt` passed.
    assert_eq!(baseline[0]["usable"], true, "{baseline}");
    // The original exits 0: a test expecting 1 fails on it and cannot judge mutants.
    assert_eq!(baseline[1]["usable"], false);
    assert!(
        baseline[1]["set_aside_because"]
            .as_str()
            .unwrap()
            .contains("where the test expects exit 1"),
        "{baseline}"
    );
    // Without the wait, main reads the value before the producer wrote it: only
    // result.txt shows it.
    let outcomes = util::outcomes(&out);
    let wait = outcomes["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["mutant"] == "main#2:remove")
        .unwrap();
    assert_eq!(wait["verdict"], "killed-by-output", "{wait}");
    assert!(
        wait["reason"]
            .as_str()
            .unwrap()
            .starts_with("output file result.txt has 2 bytes instead of 3"),
        "{wait}"
    );
    // What the killing run left is kept; nothing landed in the caller's directory or
    // the fixture's, and no working directory is left over.
    assert_eq!(
        std::fs::read_to_string(out.join("workdirs/handoff/main_2_remove/result.txt")).unwrap(),
        "0\n"
    );
    assert!(!cwd.path().join("result.txt").exists() && !fixture.join("result.txt").exists());
    assert!(
        !out.join("work").exists(),
        "working directories are left over"
    );
}

#[test]
fn a_design_that_deletes_its_working_directory_leaves_the_callers_untouched() {
    let fixture = util::fixture("user_tests");
    let cwd = tempfile::tempdir().unwrap();
    std::fs::write(cwd.path().join("precious.txt"), "mine").unwrap();
    let tests = cwd.path().join("tests.json");
    // `from` stays inside the test file's directory (docs/tests-format.md).
    let scratch = cwd.path().join("scratch.txt");
    std::fs::copy(fixture.join("scratch.txt"), &scratch).unwrap();
    std::fs::write(
        &tests,
        r#"{"tests":[{"name":"wipe","files":[{"from":"scratch.txt","to":"scratch.txt"}]}]}"#,
    )
    .unwrap();
    // Relative run directory: inside the very directory the design would wipe if it ran there.
    run(&fixture.join("wipe.c"), &tests, cwd.path(), "syncmut.out");
    assert_eq!(
        std::fs::read_to_string(cwd.path().join("precious.txt")).unwrap(),
        "mine"
    );
    assert!(tests.exists() && scratch.exists());
    let outcomes = util::outcomes(&cwd.path().join("syncmut.out"));
    assert!(outcomes["score"]["mutants"].as_u64().unwrap() > 0);
    // It did delete something (the copy of scratch.txt in its own directory): the lock
    // inside its removal callback was reached.
    let reached = outcomes["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["mutant"] == "remove_one#1:remove")
        .unwrap();
    assert_ne!(reached["verdict"], "not-reached", "{reached}");
}

#[test]
fn a_projects_own_test_driver_judges_the_mutants() {
    let project = tempfile::tempdir().unwrap();
    for file in ["main.c", "threads.c", "threads.h", "syncmut.toml"] {
        std::fs::copy(
            util::fixture("user_sync").join(file),
            project.path().join(file),
        )
        .unwrap();
    }
    // The project's check: run the program, compare what it prints.
    std::fs::write(project.path().join("check.sh"), "out=$(\"$SYNCMUT_BIN\") || exit 2\n[ \"$out\" = \"result 42\" ] || { echo \"FAIL: $out\"; exit 1; }\necho PASS\n").unwrap();
    util::syncmut()
        .current_dir(project.path())
        .args([
            "run",
            ".",
            "--gen",
            "none",
            "--test-cmd",
            "sh check.sh",
            "-o",
            "syncmut.out",
        ])
        .timeout(std::time::Duration::from_secs(300))
        .assert()
        .success();
    let out = project.path().join("syncmut.out");
    let baseline: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("baseline.json")).unwrap()).unwrap();
    assert_eq!(baseline[0]["test"], "test-cmd");
    assert_eq!(baseline[0]["usable"], true, "{baseline}");
    let outcomes = util::outcomes(&out);
    let wait = outcomes["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["mutant"] == "main#2:remove")
        .unwrap();
    // The driver failed: its exit status and what it printed differ from the original's.
    assert_eq!(wait["verdict"], "killed-by-output", "{wait}");
    assert_eq!(wait["killed_by"], "test-cmd");
    assert!(
        wait["reason"]
            .as_str()
            .unwrap()
            .starts_with("exit 1 instead of exit 0"),
        "{wait}"
    );
    // The run directory was not copied into the driver's directory, nor anything left in the project.
    assert!(!out
        .join("workdirs/test-cmd/main_2_remove/syncmut.out")
        .exists());
    assert!(out
        .join("workdirs/test-cmd/main_2_remove/check.sh")
        .exists());
}
