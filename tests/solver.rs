//! Solver problems: a missing z3 is a clear error naming the fix; a broken one costs
//! only the generated tests, and the run completes with the given tests.

use assert_cmd::Command;
use predicates::str::contains;
use std::path::{Path, PathBuf};

fn example() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/systemc/guarded_event")
}

/// A PATH holding every tool of /usr/bin except z3, plus `extra` files.
fn path_without_z3(dir: &Path, fake_z3: Option<&str>) -> String {
    for entry in std::fs::read_dir("/usr/bin").unwrap().flatten() {
        if entry.file_name() != "z3" {
            let _ = std::os::unix::fs::symlink(entry.path(), dir.join(entry.file_name()));
        }
    }
    if let Some(script) = fake_z3 {
        let z3 = dir.join("z3");
        std::fs::write(&z3, script).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&z3, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    dir.display().to_string()
}

#[test]
fn missing_solver_says_how_to_install_it() {
    let bin = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    Command::cargo_bin("syncmut")
        .unwrap()
        .env("PATH", path_without_z3(bin.path(), None))
        .arg("gen")
        .arg(example())
        .arg("-o")
        .arg(out.path())
        .assert()
        .code(5)
        .stderr(contains("apt-get install z3"));
}

#[test]
fn a_solver_printing_garbage_costs_only_the_generated_tests() {
    let bin = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    Command::cargo_bin("syncmut")
        .unwrap()
        .env("PATH", path_without_z3(bin.path(), Some("#!/bin/sh\necho 'garbage (((('\n")))
        .arg("run")
        .arg(example())
        .arg("-o")
        .arg(out.path())
        .assert()
        .success()
        .stderr(contains("test generation skipped"));
    assert!(out.path().join("outcomes.json").is_file());
}
