//! Helpers shared by the end-to-end tests (`mod util;` in each test file).
//!
//! Each test binary compiles this module on its own and uses only some of it.
#![allow(dead_code)]

use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// The repository's root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// An example design: `example("systemc/guarded_event")`.
pub fn example(rel: &str) -> PathBuf {
    root().join("examples").join(rel)
}

/// A file or directory under tests/fixtures.
pub fn fixture(rel: &str) -> PathBuf {
    root().join("tests/fixtures").join(rel)
}

/// The `syncmut` binary of this build.
pub fn syncmut() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("syncmut").unwrap()
}

/// A run directory's outcomes.json.
pub fn outcomes(out: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(out.join("outcomes.json")).unwrap()).unwrap()
}

/// A mutant's entry in a run's outcomes (`outcomes(dir)`); panics naming the id.
pub fn outcome<'a>(outcomes: &'a Value, id: &str) -> &'a Value {
    outcomes["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["mutant"] == id)
        .unwrap_or_else(|| panic!("no outcome for {id} in {outcomes}"))
}

/// (mutant, verdict, reason) of every mutant of an outcomes.json: what two runs that must
/// agree are compared on.
pub fn verdicts_and_reasons(outcomes: &Value) -> Vec<(String, String, String)> {
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

/// What an example's expected.json holds: mutant → verdict, killed, mutants.
pub fn verdicts(out: &Path) -> Value {
    let outcomes = outcomes(out);
    let verdicts: serde_json::Map<String, Value> = outcomes["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["mutant"].as_str().unwrap().to_string(),
                m["verdict"].clone(),
            )
        })
        .collect();
    json!({ "verdicts": verdicts, "killed": outcomes["score"]["killed"], "mutants": outcomes["score"]["mutants"] })
}

/// An example's checked-in expected results.
pub fn expected(example_dir: &Path) -> Value {
    let file = example_dir.join("expected.json");
    serde_json::from_slice(
        &std::fs::read(&file)
            .unwrap_or_else(|e| panic!("{}: {e}; create it with SYNCMUT_BLESS=1", file.display())),
    )
    .unwrap()
}

/// Every file under `dir` named `.jsonl` is JSON Lines, not the runtime's binary trace
/// (whose magic starts with byte 0x89); returns how many `.bin` traces there are.
pub fn assert_jsonl_names_only_json(dir: &Path) -> usize {
    let mut binaries = 0;
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "jsonl") {
                let bytes = std::fs::read(&path).unwrap();
                assert!(
                    bytes.first() != Some(&0x89),
                    "{}: a binary trace named .jsonl",
                    path.display()
                );
            } else if path.extension().is_some_and(|e| e == "bin") {
                binaries += 1;
            }
        }
    }
    binaries
}

pub mod explore;
pub mod generation;
pub mod twins;
