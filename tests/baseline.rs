//! The random baseline: same input vector, fixed seed, same budget,
//! reach confirmed by execution; `gen --compare` prints WP and random side by side.

mod util;

use util::example;

fn stdout_of(args: &[&str], design: &str) -> (tempfile::TempDir, String) {
    let out = tempfile::tempdir().unwrap();
    let output = util::syncmut()
        .arg("gen")
        .arg(example(design))
        .arg("-o")
        .arg(out.path())
        .args(args)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    (out, text)
}

/// The two columns of a comparison row.
fn row<'a>(text: &'a str, label: &str) -> Vec<&'a str> {
    let line = text
        .lines()
        .find(|l| l.starts_with(label))
        .unwrap_or_else(|| panic!("no {label:?} row in\n{text}"));
    line[label.len()..].split_whitespace().collect()
}

#[test]
fn narrow_guard_is_reached_by_wp_and_missed_by_random_with_the_same_budget() {
    let (out, text) = stdout_of(&["--compare", "--budget", "100"], "pthread/narrow_guard");
    // Sites 0 and 1 (the worker's lock/unlock) sit behind x == 123457 && y > x.
    assert_eq!(row(&text, "sites reached"), ["5/5", "3/5"], "{text}");
    let wp_runs: usize = row(&text, "executions")[0].parse().unwrap();
    let random_runs: usize = row(&text, "executions")[1].parse().unwrap();
    assert!(wp_runs <= random_runs && random_runs <= 100, "{text}");
    assert!(
        text.contains("reached by wp only: site 0 narrow_guard.c:19 pthread_mutex_lock(&lock)"),
        "{text}"
    );
    assert!(
        text.contains("random baseline: 100 draws, seed 1, over argv1 argv2"),
        "{text}"
    );
    // Both suites are written, each a valid tests file whose tests were executed.
    for file in ["tests.json", "random/tests.json"] {
        let tests: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.path().join(file)).unwrap()).unwrap();
        assert!(!tests["tests"].as_array().unwrap().is_empty(), "{file}");
    }
}

#[test]
fn random_draws_are_reproducible_and_reach_what_is_not_guarded() {
    // guarded_event's sites need argv[1]/argv[2] == "t" or not: fair coins find all.
    let (a, first) = stdout_of(
        &["--gen", "random", "--budget", "12", "--seed", "7"],
        "systemc/guarded_event",
    );
    let (b, second) = stdout_of(
        &["--gen", "random", "--budget", "12", "--seed", "7"],
        "systemc/guarded_event",
    );
    let strip = |t: &str| {
        t.lines()
            .filter(|l| !l.contains(" → "))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(strip(&first), strip(&second));
    assert_eq!(
        std::fs::read(a.path().join("tests.json")).unwrap(),
        std::fs::read(b.path().join("tests.json")).unwrap()
    );
    assert!(first.contains("kept test(s) reach 4/4 sites"), "{first}");
}

#[test]
fn run_uses_random_tests_and_the_narrow_site_stays_unreached() {
    let out = tempfile::tempdir().unwrap();
    let output = util::syncmut()
        .arg("run")
        .arg(example("pthread/narrow_guard"))
        .args(["--gen", "random", "--budget", "20", "-o"])
        .arg(out.path())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(String::from_utf8_lossy(&output.stderr).contains("random baseline: 20 draws (seed 1)"));
    let outcomes = util::outcomes(out.path());
    let text = outcomes.to_string();
    assert!(text.contains("random0_"), "a random test was used: {text}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("worker#1:remove") && l.contains("not-reached")),
        "{stdout}"
    );
}
