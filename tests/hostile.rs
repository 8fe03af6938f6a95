//! Mutants that misbehave (fork into a new session, flood stdout, eat memory, close
//! stdout, crash) get a verdict; syncmut finishes normally and leaves no process behind.

use assert_cmd::Command;
use serde_json::Value;
use std::path::PathBuf;

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hostile/hostile.c")
}

fn verdict_with(act: u32) -> String {
    let out = tempfile::tempdir().unwrap();
    let tests = fixture().with_file_name("tests.json");
    Command::cargo_bin("syncmut")
        .unwrap()
        .arg("run")
        .arg(fixture())
        .arg("--tests")
        .arg(&tests)
        .args(["--gen", "none", "-o"])
        .arg(out.path())
        .arg("--")
        .arg(format!("-DACT={act}"))
        .timeout(std::time::Duration::from_secs(120))
        .assert()
        .success();
    let outcomes: Value = serde_json::from_slice(&std::fs::read(out.path().join("outcomes.json")).unwrap()).unwrap();
    let m = outcomes["mutants"].as_array().unwrap().iter().find(|m| m["mutant"] == "main#1:remove").unwrap();
    m["verdict"].as_str().unwrap().to_string()
}

/// Processes still running the fixture's binaries (the design is named after its file).
fn leftovers() -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let text = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if text.contains("/metamutant") && text.contains(".tmp") {
            found.push(text);
        }
    }
    found
}

#[test]
fn misbehaving_mutants_get_verdicts_and_leave_nothing_behind() {
    assert_eq!(verdict_with(1), "killed-by-output"); // forks a sleeper into a new session
    assert_eq!(verdict_with(2), "killed-by-timeout"); // flood: capped, then timed out
    assert_eq!(verdict_with(3), "killed-by-crash"); // malloc fails under the memory limit
    assert_eq!(verdict_with(4), "killed-by-output"); // closed stdout
    assert_eq!(verdict_with(5), "killed-by-crash");
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert_eq!(leftovers(), Vec::<String>::new());
}
