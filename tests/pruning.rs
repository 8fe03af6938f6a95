//! Cost per mutant: every run says what its mutants cost (`runs per mutant` on the
//! console, `score.executions` and `score.runs_per_mutant` in outcomes.json), and the
//! pruning that lowers it changes no verdict: a kill ends a mutant's remaining tests
//! (the verdict is the first killing test's in suite order, which no later test can
//! change). Each design runs pruned from fork servers, then unpruned by exec
//! (`SYNCMUT_NO_PRUNE=1`, `SYNCMUT_NO_FORK_SERVER=1`) on the same tests, and every
//! mutant's verdict, killing test and reason must be the same.

mod util;

#[path = "../benches/synth/mod.rs"]
mod synth;

use serde_json::Value;
use std::path::Path;
use synth::Shape;
use util::{example, syncmut};

/// Runs `design` into `out` (pruned unless `unpruned`), on `tests` when given (else the
/// generated ones); returns what it printed.
fn run(design: &Path, out: &Path, tests: Option<&Path>, unpruned: bool) -> String {
    let mut cmd = syncmut();
    // Controlled schedules alone: runs with real threads do not repeat exactly, and the
    // claim is that pruning changes no verdict.
    cmd.arg("run")
        .arg(design)
        .args(["-j", "2", "--native", "0", "-o"])
        .arg(out);
    if let Some(tests) = tests {
        cmd.args(["--gen", "none", "--tests"]).arg(tests);
    }
    // The unpruned run also goes by exec, as runs did before they started from fork
    // servers: the same verdicts show that neither changes one.
    if unpruned {
        cmd.env("SYNCMUT_NO_PRUNE", "1")
            .env("SYNCMUT_NO_FORK_SERVER", "1");
    } else {
        cmd.env_remove("SYNCMUT_NO_PRUNE")
            .env_remove("SYNCMUT_NO_FORK_SERVER");
    }
    let output = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).to_string();
    assert!(
        stdout.contains("mutation score:"),
        "{}: {stdout}\n{}",
        design.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// mutant → (verdict, killed_by, reason).
fn verdicts(outcomes: &Value) -> Vec<(String, Value, Value, Value)> {
    outcomes["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["mutant"].as_str().unwrap().to_string(),
                m["verdict"].clone(),
                m["killed_by"].clone(),
                m["reason"].clone(),
            )
        })
        .collect()
}

/// Runs `design` pruned and unpruned on the same tests; asserts identical verdicts and
/// returns the executions of each.
fn pruned_and_unpruned(design: &Path) -> (u64, u64) {
    let dir = tempfile::tempdir().unwrap();
    let (pruned, unpruned) = (dir.path().join("pruned"), dir.path().join("unpruned"));
    let printed = run(design, &pruned, None, false);
    run(design, &unpruned, Some(&pruned.join("tests.json")), true);
    let (a, b) = (util::outcomes(&pruned), util::outcomes(&unpruned));
    assert_eq!(a["complete"], true);
    assert_eq!(b["complete"], true);
    for (p, u) in verdicts(&a).iter().zip(verdicts(&b)) {
        assert_eq!(*p, u, "{}: pruned vs unpruned", design.display());
    }
    assert_eq!(a["score"]["killed"], b["score"]["killed"]);
    let executions = |o: &Value| o["score"]["executions"].as_u64().unwrap();
    let mutants = a["score"]["mutants"].as_f64().unwrap();
    let per = a["score"]["runs_per_mutant"].as_f64().unwrap();
    assert!(
        (per - executions(&a) as f64 / mutants).abs() < 1e-9,
        "{per}"
    );
    assert!(
        printed.contains(&format!("runs per mutant: {per:.1} (")),
        "{printed}"
    );
    let (p, u) = (executions(&a), executions(&b));
    assert!(
        p > 0 && p <= u,
        "{}: {p} pruned, {u} unpruned",
        design.display()
    );
    (p, u)
}

#[test]
fn pruning_keeps_every_verdict_of_the_examples() {
    let mut saved = false;
    for name in [
        "pthread/named_depth",
        "pthread/narrow_guard",
        "pthread/barrier_phases",
    ] {
        let (p, u) = pruned_and_unpruned(&example(name));
        saved |= p < u;
    }
    assert!(saved, "a kill ended some mutant's tests early");
}

#[test]
fn pruning_keeps_every_verdict_of_generated_designs() {
    let dir = tempfile::tempdir().unwrap();
    let mut saved = Vec::new();
    for (name, shape, pairs) in [
        ("one_per_test.c", Shape::OnePerTest, 6),
        ("shared.c", Shape::Shared { threads: 2 }, 8),
    ] {
        let design = dir.path().join(name);
        std::fs::write(&design, synth::design(shape, pairs)).unwrap();
        let (p, u) = pruned_and_unpruned(&design);
        saved.push(p < u);
    }
    // The join is reached by every test of the first design, and its removal is killed
    // on the first: the other tests need not run.
    assert!(saved[0], "{saved:?}");
}
