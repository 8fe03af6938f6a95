//! Reports re-rendered from a run directory, and the CI gate.

mod util;

use predicates::str::contains;
use std::path::{Path, PathBuf};

fn example() -> PathBuf {
    util::example("systemc/redundant_sync")
}

fn run(out: &Path, extra: &[&str]) -> assert_cmd::assert::Assert {
    util::syncmut()
        .arg("run")
        .arg(example())
        .arg("-o")
        .arg(out)
        .args(extra)
        .assert()
}

fn report(out: &Path, format: &str) -> String {
    let output = util::syncmut()
        .arg("report")
        .arg(out)
        .args(["--format", format])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn reports_render_from_the_saved_results_alone() {
    let dir = tempfile::tempdir().unwrap();
    run(dir.path(), &[]).success();
    let outcomes = util::outcomes(dir.path());
    let survived = outcomes["score"]["survived"].as_u64().unwrap() as usize;
    let mutants = outcomes["score"]["mutants"].as_u64().unwrap() as usize;
    assert!(survived > 0);

    // Remove what the run built: reports need only mutants.json and outcomes.json.
    for name in ["metamutant", "original", "design.bc", "metamutant.bc"] {
        std::fs::remove_file(dir.path().join(name)).unwrap();
    }

    let junit = report(dir.path(), "junit");
    let doc = roxmltree::Document::parse(&junit).expect("well-formed JUnit XML");
    let cases: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    assert_eq!(cases.len(), mutants);
    let failures = cases
        .iter()
        .filter(|c| c.children().any(|n| n.has_tag_name("failure")))
        .count();
    assert_eq!(failures, survived);
    let suite = doc
        .descendants()
        .find(|n| n.has_tag_name("testsuite"))
        .unwrap();
    assert_eq!(
        suite.attribute("failures"),
        Some(survived.to_string().as_str())
    );

    let csv = report(dir.path(), "csv");
    assert!(csv.starts_with("mutant,operator,file,line,test,verdict"));
    assert_eq!(
        csv,
        std::fs::read_to_string(dir.path().join("report.csv")).unwrap()
    );

    let md = report(dir.path(), "markdown");
    assert!(
        md.contains("mutation score") && md.contains("Survived"),
        "{md}"
    );

    let github = report(dir.path(), "github");
    let errors = outcomes["score"]["errors"].as_u64().unwrap() as usize;
    assert_eq!(github.lines().count(), survived + errors);
    let warnings: Vec<_> = github
        .lines()
        .filter(|l| l.starts_with("::warning file="))
        .collect();
    assert_eq!(warnings.len(), survived, "{github}");
    assert!(warnings
        .iter()
        .all(|l| l.contains("redundant_sync.cpp,line=")));
    // Each survivor's annotation carries the reason the other reports give.
    for m in outcomes["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["verdict"] == "survived")
    {
        let reason = m["reason"].as_str().unwrap();
        assert!(
            !reason.is_empty()
                && warnings.iter().any(|l| l.contains(&format!(
                    "mutant {} survived",
                    m["mutant"].as_str().unwrap()
                )) && l.contains(reason)),
            "{github}"
        );
    }

    let json = report(dir.path(), "json");
    let back: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(back, outcomes);
}

#[test]
fn fail_under_gates_the_exit_code_both_ways() {
    let dir = tempfile::tempdir().unwrap();
    run(dir.path(), &["--fail-under", "99"])
        .code(8)
        .stderr(contains("below --fail-under 99"));
    let dir = tempfile::tempdir().unwrap();
    run(dir.path(), &["--fail-under", "10"]).success();
}

#[test]
fn report_on_a_directory_without_results_says_what_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    util::syncmut()
        .arg("report")
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(contains("mutants.json: cannot read"));
}
