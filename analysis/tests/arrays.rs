//! Arrays indexed by values computed at run time: loads expand over the object's
//! elements, stores through a symbolic index are conditional. Preconditions derived by
//! hand and checked by the solver (formula ⇔ expected is valid).

mod common;

use common::{argc, equivalent, run};
use syncmut_analysis::Reachability;

const PRELUDE: &str = "#include <stdlib.h>\nvoid syncmut_probe(int site);\n";

#[test]
fn global_and_stack_arrays_with_symbolic_indices() {
    let (d, r) = run(
        "arrays",
        PRELUDE,
        "int table[4] = {3, 5, 7, 9};
         int main(int argc, char **argv) {
           int i = atoi(argv[1]), v = atoi(argv[2]);
           if (i < 0 || i > 3) return 1;
           if (table[i] == 7) syncmut_probe(0);
           table[i] = v;
           if (table[1] == 100) syncmut_probe(1);
           int local[3];
           local[0] = v; local[1] = v * 2; local[2] = v * 3;
           if (i <= 2 && local[i] == 12) syncmut_probe(2);
           return 0; }",
        3,
    );
    let a = argc(2);
    // table[i] == 7 with 0 ≤ i ≤ 3 and table = {3,5,7,9}: i = 2 (argv[2] not read).
    let a1 = argc(1);
    assert!(equivalent(
        d.path(),
        0,
        &format!("(and {a1} (= argv1 (_ bv2 32)))")
    ));
    assert!(!equivalent(
        d.path(),
        0,
        &format!("(and {a1} (bvsge argv1 (_ bv0 32)) (bvsle argv1 (_ bv3 32)))")
    ));
    // After table[i] = v: table[1] is v when i = 1, else still 5.
    assert!(equivalent(
        d.path(),
        1,
        &format!("(and {a} (= argv1 (_ bv1 32)) (= argv2 (_ bv100 32)))")
    ));
    // local[i] == 12 for i ≤ 2: v = 12 (i = 0), 2v = 12 (i = 1), 3v = 12 (i = 2).
    assert!(equivalent(
        d.path(),
        2,
        &format!(
            "(and {a} (or (and (= argv1 (_ bv0 32)) (= argv2 (_ bv12 32)))
                         (and (= argv1 (_ bv1 32)) (= (bvmul argv2 (_ bv2 32)) (_ bv12 32)))
                         (and (= argv1 (_ bv2 32)) (= argv2 (_ bv4 32)))))"
        )
    ));
    for s in &r {
        assert!(
            matches!(s.verdict, Reachability::TestFound { .. }),
            "site {}: {}",
            s.index,
            s.verdict
        );
    }
}
