//! Helpers of the test-generation tests (`generation.rs`, `generation_systemc.rs`,
//! `gen_budget.rs`): running `syncmut gen` or `run` on a design of tests/fixtures/gen/
//! and reading what it decided per site.

use assert_cmd::Command;
use std::path::PathBuf;

pub fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/gen")
        .join(name)
}

/// Runs `syncmut <command> <design> -o <fresh dir>`; returns the directory, exit code,
/// stdout and stderr. `gen` analyses every site (`--analyse-all`): most tests here are
/// about what the analysis decides, which the default invocation would otherwise
/// decide first for the sites it reaches.
pub fn syncmut(
    command: &str,
    design: &str,
    args: &[&str],
) -> (tempfile::TempDir, i32, String, String) {
    let analyse_all: &[&str] = if command == "gen" {
        &["--analyse-all"]
    } else {
        &[]
    };
    run_syncmut(command, design, &[analyse_all, args].concat())
}

pub fn run_syncmut(
    command: &str,
    design: &str,
    args: &[&str],
) -> (tempfile::TempDir, i32, String, String) {
    let out = tempfile::tempdir().unwrap();
    let output = Command::cargo_bin("syncmut")
        .unwrap()
        .arg(command)
        .arg(fixture(design))
        .arg("-o")
        .arg(out.path())
        .args(args)
        .output()
        .unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (
        out,
        output.status.code().unwrap_or(-1),
        text(&output.stdout),
        text(&output.stderr),
    )
}

/// The verdict of every site `gen` wrote to sites.json, in site order.
pub fn site_verdicts(out: &tempfile::TempDir) -> Vec<serde_json::Value> {
    let sites: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("sites.json")).unwrap()).unwrap();
    sites
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["verdict"].clone())
        .collect()
}
