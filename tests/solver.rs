//! Solvers: z3 and cvc5 reach the same verdicts; a missing solver is a clear error
//! naming the fix (exit 5); a solver that crashes, hangs or prints garbage costs only
//! the query in flight (`unknown` with the reason), is restarted, and leaves no
//! process behind. Fake solvers live in tests/fixtures/solver/.

mod util;

use predicates::str::contains;
use serde_json::Value;
use std::path::{Path, PathBuf};
use util::example;

fn fixture(name: &str) -> PathBuf {
    util::fixture("solver").join(name)
}

/// A PATH holding every tool of /usr/bin except `hidden`.
fn path_without(dir: &Path, hidden: &[&str]) -> String {
    for entry in std::fs::read_dir("/usr/bin").unwrap().flatten() {
        if !hidden.iter().any(|h| entry.file_name() == *h) {
            let _ = std::os::unix::fs::symlink(entry.path(), dir.join(entry.file_name()));
        }
    }
    dir.display().to_string()
}

/// `syncmut gen` into a fresh directory; returns it and sites.json's verdicts.
fn gen(
    design: &Path,
    args: &[&str],
    env: &[(&str, &str)],
) -> (tempfile::TempDir, Vec<Value>, String) {
    let out = tempfile::tempdir().unwrap();
    let mut cmd = util::syncmut();
    cmd.arg("gen")
        .arg(design)
        .arg("-o")
        .arg(out.path())
        .args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let output = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let sites: Vec<Value> =
        serde_json::from_slice(&std::fs::read(out.path().join("sites.json")).unwrap()).unwrap();
    let verdicts = sites.iter().map(|s| s["verdict"].clone()).collect();
    (out, verdicts, stdout)
}

fn kind(v: &Value) -> &str {
    v["verdict"].as_str().unwrap()
}

#[test]
fn missing_solver_says_how_to_install_it() {
    let bin = tempfile::tempdir().unwrap();
    let path = path_without(bin.path(), &["z3", "cvc5"]);
    for (solver, hint) in [
        ("z3", "apt-get install z3"),
        ("cvc5", "apt-get install cvc5"),
    ] {
        let out = tempfile::tempdir().unwrap();
        util::syncmut()
            .env("PATH", &path)
            .args(["gen", "--solver", solver])
            .arg(example("pthread/narrow_guard"))
            .arg("-o")
            .arg(out.path())
            .assert()
            .code(5)
            .stderr(contains(hint));
    }
}

#[test]
fn cvc5_reaches_the_same_verdicts_as_z3() {
    for design in [fixture("verdicts.c"), example("systemc/guarded_event")] {
        let (_, z3, _) = gen(&design, &["--solver", "z3"], &[]);
        let (out, cvc5, stdout) = gen(&design, &["--solver", "cvc5"], &[]);
        assert!(
            stdout.contains("(cvc5, timeout 5000 ms per query)"),
            "{stdout}"
        );
        let kinds = |v: &[Value]| v.iter().map(|v| kind(v).to_string()).collect::<Vec<_>>();
        assert_eq!(kinds(&z3), kinds(&cvc5), "{}", design.display());
        assert!(
            stdout.contains("reach rate: ") && stdout.contains("(100%)"),
            "{stdout}"
        );
        // The saved formulas (per site and per mutant) are for cvc5, and cvc5 accepts
        // them as they are.
        let catalogue: Value =
            serde_json::from_slice(&std::fs::read(out.path().join("mutants.json")).unwrap())
                .unwrap();
        let mutant = catalogue["mutants"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["sites"][0] == 0)
            .unwrap()["id"]
            .as_str()
            .unwrap()
            .to_string();
        let name: String = mutant
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let formula = out.path().join(format!("formulas/{name}.smt2"));
        let text = std::fs::read_to_string(&formula).unwrap();
        assert!(
            text.starts_with(&format!("; mutant {mutant} ("))
                && text.contains("(set-option :tlimit-per 5000)"),
            "{text}"
        );
        let run = std::process::Command::new("cvc5")
            .arg("--lang=smt2")
            .arg(&formula)
            .output()
            .unwrap();
        assert!(
            String::from_utf8_lossy(&run.stdout).starts_with("sat\n"),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
    }
    // Every kind of verdict is compared: found (non-linear arithmetic, strings) and
    // unreachable (unsat, decided by the solver, not by the optimiser).
    let (_, v, _) = gen(&fixture("verdicts.c"), &["--solver", "cvc5"], &[]);
    assert_eq!(
        v.iter().map(kind).collect::<Vec<_>>(),
        ["test-found", "unreachable", "test-found", "test-found"]
    );
    assert!(v[1]["reason"].as_str().unwrap().contains("unsatisfiable"));
    assert_eq!(v[0]["args"][0], "37");
}

/// Processes whose environment holds `marker` (the fake solver and its children).
fn processes_with(marker: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        if let Ok(env) = std::fs::read(entry.path().join("environ")) {
            if String::from_utf8_lossy(&env).contains(marker) {
                found.push(entry.file_name().to_string_lossy().into_owned());
            }
        }
    }
    found
}

#[test]
fn a_crashing_hanging_or_garbage_solver_costs_one_query_and_is_restarted() {
    let design = example("pthread/narrow_guard");
    let (_, healthy, _) = gen(&design, &[], &[]);
    let program = fixture("faulty.sh");
    for (fault, reason) in [
        ("crash", "z3 died during the query"),
        ("hang", "z3 gave no answer within 2000 ms and was killed"),
        (
            "garbage",
            "not the expected SMT-LIB: Unexpected result from solver: banana",
        ),
    ] {
        let state = tempfile::tempdir().unwrap();
        let env = [
            ("SYNCMUT_SOLVER_PROGRAM", program.to_str().unwrap()),
            ("FAULT", fault),
            ("FAULT_STATE", state.path().to_str().unwrap()),
        ];
        let (_, verdicts, stdout) = gen(&design, &["--solver-timeout", "1000"], &env);
        // The second query (site 1) meets the fault; every other site is answered by
        // the restarted solver exactly as by a healthy one.
        for (i, (got, want)) in verdicts.iter().zip(&healthy).enumerate() {
            if i == 1 {
                assert_eq!(kind(got), "unknown", "{fault}: {stdout}");
                let why = got["reason"].as_str().unwrap();
                assert!(
                    why.contains(reason) && why.contains("restarted"),
                    "{fault}: {why}"
                );
            } else {
                assert_eq!(got, want, "{fault}, site {i}: {stdout}");
            }
        }
        assert!(
            processes_with(state.path().to_str().unwrap()).is_empty(),
            "{fault}: solver processes left behind"
        );
    }
}

#[test]
fn a_solver_printing_only_garbage_costs_only_the_generated_tests() {
    let state = tempfile::tempdir().unwrap();
    let program = fixture("faulty.sh");
    let env = [
        ("SYNCMUT_SOLVER_PROGRAM", program.to_str().unwrap()),
        ("FAULT", "always"),
        ("FAULT_STATE", state.path().to_str().unwrap()),
    ];
    // gen: after three failed starts in a row the solver is not started again.
    let (_, verdicts, _) = gen(&example("pthread/narrow_guard"), &[], &env);
    assert!(verdicts.iter().all(|v| kind(v) == "unknown"));
    assert!(verdicts[3]["reason"]
        .as_str()
        .unwrap()
        .starts_with("not attempted: the solver failed to start 3 times in a row"));
    // run: the given tests still judge the mutants.
    let out = tempfile::tempdir().unwrap();
    let mut cmd = util::syncmut();
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.arg("run")
        .arg(example("pthread/narrow_guard"))
        .arg("-o")
        .arg(out.path())
        .assert()
        .success()
        .stderr(contains("site(s) unknown because of solver failures"));
    assert!(out.path().join("outcomes.json").is_file());
}
