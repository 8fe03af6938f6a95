//! Interruption: syncmut killed with SIGKILL at several points of a run, then
//! `--resume`, ends with the same verdicts as an uninterrupted run, keeps the finished
//! runs, and takes over the stale lock.

mod util;

use assert_cmd::cargo::cargo_bin;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn example() -> PathBuf {
    util::example("systemc/redundant_sync")
}

fn syncmut(out: &Path, extra: &[&str]) -> Command {
    let mut cmd = Command::new(cargo_bin("syncmut"));
    cmd.arg("run").arg(example()).arg("-o").arg(out).args(["-j", "1"]).args(extra);
    cmd.stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null());
    cmd
}

fn verdicts(out: &Path) -> Vec<(String, String)> {
    let outcomes = util::outcomes(out);
    outcomes["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["mutant"].as_str().unwrap().to_string(), m["verdict"].as_str().unwrap().to_string()))
        .collect()
}

#[test]
fn killed_runs_resume_to_the_same_report() {
    let reference = tempfile::tempdir().unwrap();
    assert!(syncmut(reference.path(), &[]).status().unwrap().success());
    let expected = verdicts(reference.path());

    for delay_ms in [300u64, 900, 1500] {
        let out = tempfile::tempdir().unwrap();
        let mut child = syncmut(out.path(), &[]).spawn().unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        let _ = child.kill(); // SIGKILL: no cleanup, the lock stays behind
        child.wait().unwrap();
        let finished_before = std::fs::read(out.path().join("outcomes.json"))
            .ok()
            .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
            .map(|o| o["mutants"].as_array().unwrap().iter().map(|m| m["runs"].as_array().unwrap().len()).sum::<usize>())
            .unwrap_or(0);

        let status = syncmut(out.path(), &["--resume"]).status().unwrap();
        assert!(status.success() || finished_before == 0, "resume failed with {finished_before} runs saved");
        if !status.success() {
            // Killed before the catalogue was written: nothing to resume, a fresh run works.
            assert!(!out.path().join("mutants.json").exists() || finished_before == 0, "resume failed after {delay_ms} ms");
            assert!(syncmut(out.path(), &[]).status().unwrap().success());
        }
        assert_eq!(verdicts(out.path()), expected, "after a kill at {delay_ms} ms");
        assert!(!out.path().join("syncmut.lock").exists(), "lock left behind");
    }
}

#[test]
fn a_second_syncmut_on_the_same_directory_is_refused() {
    let out = tempfile::tempdir().unwrap();
    std::fs::write(out.path().join("syncmut.lock"), std::process::id().to_string()).unwrap();
    let output = syncmut(out.path(), &[]).stderr(std::process::Stdio::piped()).output().unwrap();
    assert_eq!(output.status.code(), Some(6));
    assert!(String::from_utf8_lossy(&output.stderr).contains("another syncmut"));
}
