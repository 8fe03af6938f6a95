//! `syncmut gen` on every design of tests/corpus/ (third-party-style code the examples
//! do not cover): each design builds, gets at least one test, and no site's reason
//! carries Rust debug output. Ignored by default for its time: it runs test generation
//! on 27 designs, about a minute with a warm compile cache on a shared 2-core machine
//! and longer cold (each SystemC design costs seconds of compiling); run with
//! `cargo test --release --test corpus -- --ignored`. BENCHMARKS.md ("Test generation
//! on the corpus") lists the designs it fails on today.

use assert_cmd::Command;
use std::path::{Path, PathBuf};

fn corpus_designs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut out = Vec::new();
    for family in ["systemc", "pthread"] {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(root.join(family))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_dir() || p.extension().is_some_and(|x| x == "c" || x == "cpp"))
            .collect();
        entries.sort();
        out.extend(entries);
    }
    out
}

/// What is wrong with one design's generation, if anything.
fn problems(design: &Path) -> Vec<String> {
    let out = tempfile::tempdir().unwrap();
    let output = Command::cargo_bin("syncmut")
        .unwrap()
        .arg("gen")
        .arg(design)
        .arg("-o")
        .arg(out.path())
        .output()
        .unwrap();
    let name = design.file_name().unwrap().to_string_lossy().into_owned();
    if !output.status.success() {
        return vec![format!(
            "{name}: gen exited {:?}: {}",
            output.status.code(),
            String::from_utf8_lossy(&output.stderr)
        )];
    }
    let mut found = Vec::new();
    let tests: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("tests.json")).unwrap()).unwrap();
    if tests["tests"].as_array().map_or(0, |t| t.len()) == 0 {
        found.push(format!("{name}: no test generated"));
    }
    let sites: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("sites.json")).unwrap()).unwrap();
    for site in sites.as_array().unwrap() {
        if let Some(reason) = site["verdict"]["reason"].as_str() {
            for debug in ["Value(0x", "Loc {", "ArgStr(", "Opaque("] {
                if reason.contains(debug) {
                    found.push(format!(
                        "{name} site {}: debug output in the reason: {reason}",
                        site["index"]
                    ));
                }
            }
        }
    }
    found
}

#[test]
#[ignore = "runs test generation on every corpus design (about a minute)"]
fn every_corpus_design_gets_a_test_and_reasons_in_words() {
    let designs = corpus_designs();
    assert!(designs.len() >= 25, "corpus has {} designs", designs.len());
    let found: Vec<String> = designs.iter().flat_map(|d| problems(d)).collect();
    assert!(found.is_empty(), "{}", found.join("\n"));
}
