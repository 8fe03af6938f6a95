//! Inputs other than argv (docs/inputs.md): `__VERIFIER_nondet_<type>()` values in call
//! order and named inputs, on small C fixtures with hand-derived answers. Sites are
//! marked with `syncmut_probe(k)` as in fixtures.rs.

use std::collections::BTreeMap;
mod common;

use syncmut_analysis::{smt, Reachability, SiteResult};

const PRELUDE: &str = "void syncmut_probe(int site);
int __VERIFIER_nondet_int(void); unsigned char __VERIFIER_nondet_uchar(void); _Bool __VERIFIER_nondet_bool(void);
char __VERIFIER_nondet_char(void);
int syncmut_input_int(const char *name, int lo, int hi); int syncmut_input_bool(const char *name);
";

fn run(name: &str, src: &str, sites: u32) -> (tempfile::TempDir, Vec<SiteResult>) {
    common::run(name, PRELUDE, src, sites)
}

fn values(r: &SiteResult) -> (&[i128], &BTreeMap<String, i64>) {
    match &r.verdict {
        Reachability::TestFound { nondet, inputs, .. } => (nondet, inputs),
        v => panic!("site {}: {v}", r.index),
    }
}

#[test]
fn nondet_values_in_call_order() {
    let (_d, r) = run(
        "order",
        "int main(void) { int x = __VERIFIER_nondet_int(); int y = __VERIFIER_nondet_int();
           if (x == 3 && y == x + 1) syncmut_probe(0); return 0; }",
        1,
    );
    assert_eq!(values(&r[0]).0, [3, 4]);
}

#[test]
fn call_counter_follows_the_path_and_helpers() {
    // Position 1 is the helper's call when a > 5, else c's; c is read as unsigned.
    let (_d, r) = run(
        "counter",
        "static int helper(void) { return __VERIFIER_nondet_int(); }
         int main(void) { int a = __VERIFIER_nondet_int(); int b = 0;
           if (a > 5) b = helper();
           unsigned char c = __VERIFIER_nondet_uchar();
           if (b == 7 && c == 200) syncmut_probe(0);
           if (a <= 5 && c == 9) syncmut_probe(1);
           return 0; }",
        2,
    );
    let n = values(&r[0]).0;
    assert_eq!(n.len(), 3, "{n:?}");
    assert!(n[0] > 5 && n[1] == 7 && n[2] == 200, "{n:?}");
    let n = values(&r[1]).0;
    assert_eq!(n.len(), 2, "{n:?}");
    assert!(n[0] <= 5 && n[1] == 9, "{n:?}");
}

#[test]
fn nondet_types_narrower_than_int() {
    let (_d, r) = run(
        "narrow",
        "int main(void) { char c = __VERIFIER_nondet_char(); _Bool b = __VERIFIER_nondet_bool();
           if (c < -100 && b) syncmut_probe(0); return 0; }",
        1,
    );
    let n = values(&r[0]).0;
    assert!(n[0] < -100 && n[0] >= -128 && n[1] == 1, "{n:?}");
}

#[test]
fn named_input_within_its_range() {
    let (d, r) = run(
        "named",
        "int main(void) { int depth = syncmut_input_int(\"depth\", 0, 10);
           if (depth * 3 == 27) syncmut_probe(0);
           if (depth > 10) syncmut_probe(1);
           if (syncmut_input_bool(\"fast\") && depth == 2) syncmut_probe(2);
           return 0; }",
        3,
    );
    assert_eq!(values(&r[0]).1["depth"], 9);
    let argc = "(bvuge argc (_ bv1 32)) (bvule argc (_ bv64 32))";
    assert!(smt::equivalent(
        &d.path().join("formulas/site0.smt2"),
        &format!("(and {argc} (= |input:depth| (_ bv9 32)))")
    )
    .unwrap());
    assert!(!smt::equivalent(
        &d.path().join("formulas/site0.smt2"),
        &format!("(and {argc})")
    )
    .unwrap());
    assert!(
        matches!(r[1].verdict, Reachability::Unreachable { .. }),
        "{}",
        r[1].verdict
    );
    let inputs = values(&r[2]).1;
    assert_eq!((inputs["fast"], inputs["depth"]), (1, 2));
}

#[test]
fn assumptions_are_path_conditions() {
    let (d, r) = run(
        "assume",
        "void __VERIFIER_assume(int cond);
         int main(void) { int x = __VERIFIER_nondet_int(); __VERIFIER_assume(x > 100);
           if (x < 103) syncmut_probe(0);
           __VERIFIER_assume(x < 50);
           syncmut_probe(1); return 0; }",
        2,
    );
    let x = values(&r[0]).0[0];
    assert!(x > 100 && x < 103, "{x}");
    // x > 100 and x < 50 cannot both hold: site 1 is never reached.
    assert!(
        matches!(r[1].verdict, Reachability::Unreachable { .. }),
        "{}",
        r[1].verdict
    );
    let argc = "(bvuge argc (_ bv1 32)) (bvule argc (_ bv64 32))";
    let x0 = "((_ extract 31 0) nd0)";
    assert!(smt::equivalent(
        &d.path().join("formulas/site0.smt2"),
        &format!(
            "(and {argc} (= ndi0 (_ bv0 32)) (bvsgt {x0} (_ bv100 32)) (bvslt {x0} (_ bv103 32)))"
        )
    )
    .unwrap());
}

#[test]
fn nondet_in_concurrent_threads_is_an_over_approximation() {
    // Both threads call nondet: which call comes k-th depends on the schedule, so the
    // worker's position is unknown and the formula says so.
    let (_d, r) = run(
        "threads",
        "#include <pthread.h>
         static void *worker(void *arg) { (void)arg; if (__VERIFIER_nondet_int() == 5) syncmut_probe(0); return 0; }
         int main(void) { pthread_t t; pthread_create(&t, 0, worker, 0);
           int x = __VERIFIER_nondet_int(); pthread_join(t, 0); return x; }",
        1,
    );
    assert!(
        r[0].notes
            .iter()
            .any(|n| n.contains("number of __VERIFIER_nondet_* calls")),
        "{:?}",
        r[0].notes
    );
    let n = values(&r[0]).0;
    assert!(
        n.contains(&5) && n.len() <= syncmut_analysis::inputs::MAX_NONDET as usize,
        "{n:?}"
    );
}
