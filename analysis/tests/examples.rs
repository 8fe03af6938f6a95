//! End-to-end: generate tests for the examples and check formulas with the solver.

use std::path::{Path, PathBuf};
use syncmut_analysis::{generate, Options, Reachability};

fn example(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("examples")
        .join(rel)
}

fn gen(rel: &str) -> (tempfile::TempDir, syncmut_analysis::Generation) {
    let out = tempfile::tempdir().unwrap();
    let design = syncmut_mutator::Design::from_paths(&[example(rel)], &[]).unwrap();
    let g = generate(&design, out.path(), &Options::default()).unwrap();
    for s in &g.sites {
        eprintln!(
            "site {}: {} ({} ms) notes={:?}",
            s.index, s.verdict, s.millis, s.notes
        );
    }
    for t in &g.suite.tests {
        eprintln!("test {:?} reaches {:?}", t.args, t.reached);
    }
    (out, g)
}

fn equivalent(formula: &Path, expected: &str) -> bool {
    syncmut_analysis::smt::equivalent(formula, expected).unwrap()
}

#[test]
fn guarded_event() {
    let (out, g) = gen("systemc/guarded_event");
    assert_eq!(g.sites.len(), 4);
    for s in &g.sites {
        assert!(
            matches!(s.verdict, Reachability::TestFound { .. }),
            "site {}: {}",
            s.index,
            s.verdict
        );
    }
    let formulas = out.path().join("formulas");
    // argc ≥ 3 is part of every formula (sc_main returns early otherwise).
    let argc = "(bvuge argc (_ bv3 32))";
    assert!(equivalent(
        &formulas.join("site0.smt2"),
        &format!("(and {argc} (bvule argc (_ bv64 32)) |argv1==\"t\"|)")
    ));
    assert!(equivalent(
        &formulas.join("site2.smt2"),
        &format!("(and {argc} (bvule argc (_ bv64 32)) |argv2==\"t\"|)")
    ));
    // Must be able to fail: site 0 is not reached for every input, nor when cs1 = f.
    assert!(!equivalent(
        &formulas.join("site0.smt2"),
        &format!("(and {argc} (bvule argc (_ bv64 32)))")
    ));
    assert!(!equivalent(
        &formulas.join("site0.smt2"),
        &format!("(and {argc} (bvule argc (_ bv64 32)) (not |argv1==\"t\"|))")
    ));
    // Site 3 (T2's timed wait) needs only argc ≥ 3. Site 1 (T1's timed wait) comes
    // after T1's wait(e) when cs1 = t: under the fixed process order (T1 first) that
    // wait returns only if T2 then notifies e, i.e. cs2 = t; with cs1 = t, cs2 = f,
    // T1 blocks forever in wait(e), which nobody notifies.
    assert!(equivalent(
        &formulas.join("site3.smt2"),
        &format!("(and {argc} (bvule argc (_ bv64 32)))")
    ));
    assert!(equivalent(
        &formulas.join("site1.smt2"),
        &format!("(and {argc} (bvule argc (_ bv64 32)) (or (not |argv1==\"t\"|) |argv2==\"t\"|))")
    ));
    assert!(!equivalent(
        &formulas.join("site1.smt2"),
        &format!("(and {argc} (bvule argc (_ bv64 32)))")
    ));
    let schedule = g.sites[1].schedule.join("\n");
    assert!(
        schedule.contains("returns only if another process notifies")
            && schedule.contains("registration order"),
        "{schedule}"
    );
    assert_eq!(
        g.suite.confirmed.len(),
        4,
        "all four sites confirmed by execution"
    );
    assert_eq!(g.suite.reach_rate(), 1.0);
    let tests: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&g.tests_file).unwrap()).unwrap();
    assert!(!tests["tests"].as_array().unwrap().is_empty());
}

#[test]
fn narrow_guard_reached_by_wp() {
    let (out, g) = gen("pthread/narrow_guard");
    // Sites 0 and 1: the worker's lock/unlock behind `x == 123457 && y > x`.
    for i in [0, 1] {
        let Reachability::TestFound { args, .. } = &g.sites[i].verdict else {
            panic!("site {i}: {}", g.sites[i].verdict)
        };
        let x: i64 = args[0].parse().unwrap();
        let y: i64 = args[1].parse().unwrap();
        assert!(x == 123457 && y > x, "{args:?}");
    }
    let argc = "(bvuge argc (_ bv3 32)) (bvule argc (_ bv64 32))";
    assert!(equivalent(
        &out.path().join("formulas/site0.smt2"),
        &format!("(and {argc} (= argv1 (_ bv123457 32)) (bvsgt argv2 argv1))")
    ));
    assert_eq!(g.suite.reach_rate(), 1.0);
    assert_eq!(g.suite.confirmed.len(), g.sites.len());
}

#[test]
fn bounded_buffer_all_sites_confirmed() {
    let (_out, g) = gen("pthread/bounded_buffer");
    assert_eq!(g.suite.confirmed.len(), g.sites.len());
    assert_eq!(g.suite.reach_rate(), 1.0);
}
