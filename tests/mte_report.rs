//! `syncmut report DIR --format mte`: the mutation-testing-elements JSON report of a real
//! run, validated against the vendored report schema (tests/fixtures/reports/).

mod util;

use serde_json::Value;
use std::path::Path;
use util::root;

fn schema() -> jsonschema::Validator {
    let text = std::fs::read_to_string(
        root().join("tests/fixtures/reports/mutation-testing-report-schema.json"),
    )
    .unwrap();
    let schema: Value = serde_json::from_str(&text).unwrap();
    jsonschema::draft7::new(&schema).expect("the vendored schema compiles")
}

fn report(dir: &Path, format: &str) -> Vec<u8> {
    let output = util::syncmut()
        .arg("report")
        .arg(dir)
        .args(["--format", format])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    output.stdout
}

#[test]
fn the_mte_report_of_a_run_is_valid_against_the_schema_and_says_what_outcomes_says() {
    let dir = tempfile::tempdir().unwrap();
    util::syncmut()
        .arg("run")
        .arg(root().join("examples/systemc/redundant_sync"))
        .arg("-o")
        .arg(dir.path())
        .assert()
        .success();
    let outcomes = util::outcomes(dir.path());
    let report: Value =
        serde_json::from_slice(&report(dir.path(), "mte")).expect("the mte report is JSON");

    let validator = schema();
    let errors: Vec<String> = validator
        .iter_errors(&report)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "schema violations:\n{}",
        errors.join("\n")
    );
    assert_eq!(report["schemaVersion"], "1");

    // The validator is not vacuous: a status outside the schema's enum is refused.
    let mut broken = report.clone();
    let file = broken["files"]
        .as_object_mut()
        .unwrap()
        .values_mut()
        .next()
        .unwrap();
    file["mutants"][0]["status"] = "Dead".into();
    assert!(!validator.is_valid(&broken));

    // Every mutant once, with the status its verdict maps to, and a location that spans
    // the mutated call in the embedded source.
    let files = report["files"].as_object().unwrap();
    assert_eq!(files.len(), 1, "{:?}", files.keys().collect::<Vec<_>>());
    let (key, file) = files.iter().next().unwrap();
    assert_eq!(key, "redundant_sync.cpp");
    assert_eq!(file["language"], "cpp");
    let source = file["source"].as_str().unwrap();
    assert_eq!(
        source,
        std::fs::read_to_string(root().join("examples/systemc/redundant_sync/redundant_sync.cpp"))
            .unwrap()
    );
    let catalogue: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("mutants.json")).unwrap()).unwrap();
    let mutants = file["mutants"].as_array().unwrap();
    let expected = outcomes["mutants"].as_array().unwrap();
    assert_eq!(mutants.len(), expected.len());
    let test_ids: Vec<&str> = report["testFiles"]["tests.json"]["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    for (got, want) in mutants.iter().zip(expected) {
        assert_eq!(got["id"], want["mutant"]);
        assert_eq!(got["mutatorName"], want["operator"]);
        let status = match want["verdict"].as_str().unwrap() {
            "killed-by-timeout" => "Timeout",
            v if v.starts_with("killed-by-") => "Killed",
            "survived" => "Survived",
            "not-reached" => "NoCoverage",
            "error" => "RuntimeError",
            v => panic!("unknown verdict {v}"),
        };
        assert_eq!(got["status"], status, "{}", got["id"]);
        match want.get("killed_by") {
            Some(test) => assert_eq!(got["killedBy"], serde_json::json!([test])),
            None => assert!(got.get("killedBy").is_none()),
        }
        assert_eq!(got["statusReason"], want["reason"]);
        for t in got["coveredBy"].as_array().unwrap() {
            assert!(
                test_ids.contains(&t.as_str().unwrap()),
                "{t} is not in testFiles"
            );
        }
        let entry = catalogue["mutants"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["id"] == want["mutant"])
            .unwrap();
        let (start, end) = (&got["location"]["start"], &got["location"]["end"]);
        assert_eq!(start["line"], end["line"]);
        let line = source
            .lines()
            .nth(start["line"].as_u64().unwrap() as usize - 1)
            .unwrap();
        let (from, to) = (
            start["column"].as_u64().unwrap() as usize - 1,
            end["column"].as_u64().unwrap() as usize - 1,
        );
        assert_eq!(
            &line[from..to],
            entry["call"].as_str().unwrap(),
            "location of {}",
            got["id"]
        );
    }
    assert!(mutants.iter().any(|m| m["status"] == "Survived"));
    assert!(mutants.iter().any(|m| m["status"] == "Killed"));
}
