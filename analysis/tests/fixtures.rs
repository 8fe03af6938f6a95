//! The transformer on small C fixtures with hand-derived preconditions. Each fixture
//! marks its sites with `syncmut_probe(k)` (which the harness tags like a rewritten
//! synchronization call: first argument = the site index).

mod common;

use common::{argc, equivalent};
use syncmut_analysis::{Reachability, SiteResult};

/// Compiles `src`, prepares the analysis copy and analyses `sites` sites.
fn run(name: &str, src: &str, sites: u32) -> (tempfile::TempDir, Vec<SiteResult>) {
    common::run(
        name,
        "#include <stdlib.h>\n#include <pthread.h>\nvoid syncmut_probe(int site);\n",
        src,
        sites,
    )
}

fn found(r: &SiteResult) -> &[String] {
    match &r.verdict {
        Reachability::TestFound { args, .. } => args,
        v => panic!("site {}: {v}", r.index),
    }
}

#[test]
fn branches() {
    let (d, r) = run(
        "branches",
        "int main(int argc, char **argv) { int x = atoi(argv[1]);
           if (x > 10) { if (x < 20) syncmut_probe(0); else syncmut_probe(1); } return 0; }",
        2,
    );
    let a = argc(1);
    assert!(equivalent(
        d.path(),
        0,
        &format!("(and {a} (bvsgt argv1 (_ bv10 32)) (bvslt argv1 (_ bv20 32)))")
    ));
    assert!(equivalent(
        d.path(),
        1,
        &format!("(and {a} (bvsge argv1 (_ bv20 32)))")
    ));
    // Must be able to fail: site 0 is not `x > 10` alone.
    assert!(!equivalent(
        d.path(),
        0,
        &format!("(and {a} (bvsgt argv1 (_ bv10 32)))")
    ));
    let x: i32 = found(&r[0])[0].parse().unwrap();
    assert!(x > 10 && x < 20);
}

#[test]
fn phi_and_select() {
    let (d, _) = run(
        "phi",
        "int main(int argc, char **argv) { int x = atoi(argv[1]); int y;
           if (x > 5) y = x * 2; else y = x + 100;
           if (y == 50) syncmut_probe(0); return 0; }",
        1,
    );
    // x = 25 (2x = 50) or x = -50 (x + 100 = 50).
    assert!(equivalent(
        d.path(),
        0,
        &format!(
            "(and {} (or (= argv1 (_ bv25 32)) (= argv1 (bvneg (_ bv50 32)))))",
            argc(1)
        )
    ));
}

#[test]
fn switch_cases_and_default() {
    let (d, _) = run(
        "switch",
        "int main(int argc, char **argv) { switch (atoi(argv[1])) {
           case 1: case 7: syncmut_probe(0); break; case 3: syncmut_probe(1); break;
           default: syncmut_probe(2); } return 0; }",
        3,
    );
    let a = argc(1);
    assert!(equivalent(
        d.path(),
        0,
        &format!("(and {a} (or (= argv1 (_ bv1 32)) (= argv1 (_ bv7 32))))")
    ));
    assert!(equivalent(
        d.path(),
        1,
        &format!("(and {a} (= argv1 (_ bv3 32)))")
    ));
    assert!(equivalent(d.path(), 2, &format!("(and {a} (distinct argv1 (_ bv1 32)) (distinct argv1 (_ bv3 32)) (distinct argv1 (_ bv7 32)))")));
}

#[test]
fn struct_fields_through_a_helper() {
    let (d, _) = run(
        "fields",
        "struct s { int a; char b; long c; } g = { 1, 2, 5 };
         static void set(struct s *p, int v) { p->a = v; }
         int main(int argc, char **argv) { g.c = atol(argv[1]); set(&g, atoi(argv[2]));
           if (g.c + g.a == 10 && g.b == 2) syncmut_probe(0); return 0; }",
        1,
    );
    // c = argv1 (64-bit), a = argv2 (32-bit, sign-extended); b keeps its initializer.
    assert!(equivalent(
        d.path(),
        0,
        &format!(
            "(and {} (= (bvadd argv1 ((_ sign_extend 32) argv2)) (_ bv10 64)))",
            argc(2)
        )
    ));
}

#[test]
fn helper_function_result() {
    let (d, _) = run(
        "helper",
        "static int twice(int v) { return v * 2; }
         int main(int argc, char **argv) { if (twice(atoi(argv[1])) == 84) syncmut_probe(0); return 0; }",
        1,
    );
    assert!(equivalent(
        d.path(),
        0,
        &format!("(and {} (= (bvmul argv1 (_ bv2 32)) (_ bv84 32)))", argc(1))
    ));
}

#[test]
fn loop_within_the_bound() {
    let (d, r) = run(
        "loop3",
        "int main(int argc, char **argv) { int x = atoi(argv[1]), s = 0;
           for (int i = 0; i < 3; i++) s += x;
           if (s == 30) syncmut_probe(0); return 0; }",
        1,
    );
    assert!(equivalent(
        d.path(),
        0,
        &format!("(and {} (= (bvmul argv1 (_ bv3 32)) (_ bv30 32)))", argc(1))
    ));
    assert!(matches!(r[0].verdict, Reachability::TestFound { .. }));
}

/// A loop above the bound that writes what the guard reads is summarised: the guard
/// then reads an unknown value, the model is a candidate (execution decides), and the
/// notes say which loop was summarised.
#[test]
fn loop_beyond_the_bound_is_summarised() {
    let (_d, r) = run(
        "loop100",
        "int main(int argc, char **argv) { int x = atoi(argv[1]); volatile int s = 0;
           for (int i = 0; i < 100; i++) s += x;
           if (s == 300) syncmut_probe(0); return 0; }",
        1,
    );
    assert!(
        matches!(r[0].verdict, Reachability::TestFound { .. }),
        "{}",
        r[0].verdict
    );
    assert!(
        r[0].notes
            .iter()
            .any(|n| n.contains("summarised") && n.contains("loop at loop100.c:")),
        "{:?}",
        r[0].notes
    );
}

#[test]
fn unsat_site_is_unreachable() {
    // x*x = 2 (mod 2^32) has no solution: 2 is not a square modulo 8.
    let (_d, r) = run(
        "unsat",
        "int main(int argc, char **argv) { unsigned x = atoi(argv[1]);
           if (x * x == 2u) syncmut_probe(0); return 0; }",
        1,
    );
    assert!(
        matches!(r[0].verdict, Reachability::Unreachable { .. }),
        "{}",
        r[0].verdict
    );
}

#[test]
fn unreachable_site() {
    let (_d, r) = run(
        "dead",
        "int main(int argc, char **argv) { int x = atoi(argv[1]);
           if (x > 5 && x < 3) syncmut_probe(0); return 0; }",
        1,
    );
    assert!(
        matches!(
            r[0].verdict,
            Reachability::Unreachable { .. } | Reachability::Unknown { .. }
        ),
        "{}",
        r[0].verdict
    );
    assert!(!matches!(r[0].verdict, Reachability::TestFound { .. }));
}

#[test]
fn thread_start_routine_reads_its_argument() {
    let (d, r) = run(
        "thread",
        "static void *worker(void *arg) { long v = (long)arg; if (v == 77) syncmut_probe(0); return 0; }
         int main(int argc, char **argv) { pthread_t t;
           pthread_create(&t, 0, worker, (void *)(long)atoi(argv[1])); pthread_join(t, 0); return 0; }",
        1,
    );
    assert!(equivalent(
        d.path(),
        0,
        &format!("(and {} (= argv1 (_ bv77 32)))", argc(1))
    ));
    assert_eq!(found(&r[0]), ["77"]);
    assert!(
        r[0].schedule.iter().any(|s| s.contains("worker")),
        "{:?}",
        r[0].schedule
    );
}

#[test]
fn strcmp_choice() {
    let (d, r) = run(
        "strcmp",
        "#include <string.h>
         int main(int argc, char **argv) { if (argc > 2 && strcmp(argv[2], \"go\") == 0) syncmut_probe(0); return 0; }",
        1,
    );
    assert!(equivalent(
        d.path(),
        0,
        &format!("(and {} (bvsgt argc (_ bv2 32)) |argv2==\"go\"|)", argc(2))
    ));
    assert_eq!(found(&r[0]), ["0", "go"]);
}

#[test]
fn unsupported_is_unknown_with_location() {
    let (_d, r) = run(
        "nondet_pointer",
        "void *__VERIFIER_nondet_pointer(void);
         int main(void) { if (__VERIFIER_nondet_pointer() == 0) syncmut_probe(0); return 0; }",
        1,
    );
    match &r[0].verdict {
        Reachability::Unknown { reason } => assert!(
            reason.contains("only integer types") && reason.contains("nondet_pointer.c:"),
            "{reason}"
        ),
        v => panic!("expected unknown, got {v}"),
    }
}
