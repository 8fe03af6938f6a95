//! The SystemC fixed process order: a site after `wait(e)` is reached
//! only if another process notifies `e` after the wait starts; an immediate notify made
//! before the waiter waits is lost, and the site is then unreachable (blocked).

use syncmut_analysis::{generate, smt, Options, Reachability};

const DESIGN: &str = r#"#include <systemc.h>
#include <cstdlib>
SC_MODULE(top) {
  sc_event e, f;
  int mode;
  SC_HAS_PROCESS(top);
  top(sc_module_name n, int m) : sc_module(n), mode(m) {
    SC_THREAD(first);
    SC_THREAD(second);
  }
  void first() {
    if (mode == 3) f.notify(SC_ZERO_TIME);
    e.notify();
    wait(5, SC_NS);
  }
  void second() {
    wait(f);
    wait(2, SC_NS);
    wait(e);
    wait(1, SC_NS);
  }
};
int sc_main(int argc, char *argv[]) {
  if (argc < 2) return 2;
  top m("m", std::atoi(argv[1]));
  sc_start();
  return 0;
}
"#;

#[test]
fn waits_return_only_when_notified_in_time() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("order.cpp");
    std::fs::write(&src, DESIGN).unwrap();
    let out = dir.path().join("out");
    let design = syncmut_mutator::Design::from_paths(&[src], &[]).unwrap();
    let g = generate(&design, &out, &Options::default()).unwrap();
    for s in &g.sites {
        eprintln!("site {}: {} schedule={:?}", s.index, s.verdict, s.schedule);
    }
    let at = |line: u32| {
        g.catalogue
            .sites
            .iter()
            .find(|s| s.line == line)
            .unwrap_or_else(|| panic!("no site on line {line}"))
            .index as usize
    };
    // wait(2, SC_NS) after wait(f): f is delta-notified by `first` only when mode == 3.
    let a = at(18);
    let argc = "(bvuge argc (_ bv2 32)) (bvule argc (_ bv64 32))";
    assert!(smt::equivalent(
        &out.join(format!("formulas/site{a}.smt2")),
        &format!("(and {argc} (= argv1 (_ bv3 32)))")
    )
    .unwrap());
    assert!(
        g.suite.confirmed.contains(&(a as u32)),
        "the mode == 3 test is confirmed by execution"
    );
    // (`mode` is read before `first`'s notify: module fields read after a
    // synchronization point are over-approximated.)
    // wait(1, SC_NS) after wait(e): `first` notified e immediately at its first
    // activation, before `second` (later in the order, after a yield) waits: lost.
    let b = at(20);
    match &g.sites[b].verdict {
        Reachability::Unreachable { reason } => assert!(
            reason.contains("blocked") && reason.contains("order.cpp:19"),
            "{reason}"
        ),
        v => panic!("site {b}: expected unreachable (blocked), got {v}"),
    }
    assert!(
        g.sites[b]
            .schedule
            .iter()
            .any(|s| s.contains("runs before top::second waits")),
        "{:?}",
        g.sites[b].schedule
    );
    assert_eq!(g.suite.reach_rate(), 1.0);
}
