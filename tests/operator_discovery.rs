//! Where the operators on critical sections and initial counts are generated, and where
//! they are not: `syncmut list --json` on examples and on `tests/fixtures/operators`.
//! Their verdicts are in the examples' expected.json (tests/examples.rs).

mod util;

use serde_json::Value;
use std::path::Path;
use util::{example, fixture, syncmut, verdicts};

fn catalogue(design: &Path) -> Value {
    let out = syncmut()
        .arg("list")
        .arg(design)
        .arg("--json")
        .assert()
        .success();
    serde_json::from_slice(&out.get_output().stdout).unwrap()
}

/// The mutant `id`, or `None`.
fn mutant<'a>(catalogue: &'a Value, id: &str) -> Option<&'a Value> {
    catalogue["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] == id)
}

/// The source lines of a mutant's sites.
fn site_lines(catalogue: &Value, id: &str) -> Vec<u64> {
    let m = mutant(catalogue, id).unwrap_or_else(|| panic!("no mutant {id}"));
    m["sites"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            catalogue["sites"]
                .as_array()
                .unwrap()
                .iter()
                .find(|site| site["index"] == *s)
                .unwrap()["line"]
                .as_u64()
                .unwrap()
        })
        .collect()
}

#[test]
fn lock_pairs_and_nested_acquisitions_span_two_sites() {
    let c = catalogue(&example("pthread/bank_transfer"));
    // lock(&first->lock) at 33 is released at 42; lock(&second->lock) at 34 at 41.
    assert_eq!(site_lines(&c, "transfer#1:remove-lock-pair"), [33, 42]);
    assert_eq!(site_lines(&c, "transfer#2:remove-lock-pair"), [34, 41]);
    assert_eq!(site_lines(&c, "transfer#1:swap-lock-order"), [33, 34]);
    // The second lock is followed by no other acquisition.
    assert!(mutant(&c, "transfer#2:swap-lock-order").is_none());
    // An unlock has no pair of its own.
    assert!(mutant(&c, "transfer#3:remove-lock-pair").is_none());
}

#[test]
fn critical_sections_move_over_shared_statements() {
    let c = catalogue(&example("pthread/critical_sections"));
    let description = |id: &str| {
        mutant(&c, id).unwrap_or_else(|| panic!("no mutant {id}"))["description"]
            .as_str()
            .unwrap()
            .to_string()
    };
    // mover: lock 25; left = … 26; right = … 27; unlock 28.
    assert!(
        description("mover#1:split-critical-section").ends_with("before line 27"),
        "{}",
        description("mover#1:split-critical-section")
    );
    assert!(description("mover#2:shrink-critical-section").ends_with("above line 27"));
    // auditor: audits = … 37; lock 38.
    assert!(description("auditor#1:widen-critical-section").ends_with("above line 37"));
    assert_eq!(site_lines(&c, "mover#1:split-critical-section"), [25]);
    // The auditor's region is one `if`, in other blocks than its lock and unlock.
    assert!(mutant(&c, "auditor#1:split-critical-section").is_none());
    assert!(mutant(&c, "auditor#2:shrink-critical-section").is_none());
    // The mover's lock is the first statement of its loop body: nothing to widen over.
    assert!(mutant(&c, "mover#1:widen-critical-section").is_none());
}

#[test]
fn initial_counts_change_by_one_but_not_below_their_floor() {
    let barrier = catalogue(&example("pthread/barrier_phases"));
    assert_eq!(site_lines(&barrier, "main#1:barrier-count-up"), [41]);
    assert_eq!(site_lines(&barrier, "main#1:barrier-count-down"), [41]);
    assert!(
        mutant(&barrier, "main#1:remove").is_none(),
        "an initialisation is not removed"
    );

    let pool = catalogue(&example("systemc/semaphore_pool"));
    assert_eq!(site_lines(&pool, "pool::pool#1:semaphore-count-up"), [8]);
    assert_eq!(site_lines(&pool, "pool::pool#1:semaphore-count-down"), [8]);

    // sem_init(&reported, 0, 0): a semaphore cannot start below 0.
    let sections = catalogue(&example("pthread/critical_sections"));
    assert_eq!(site_lines(&sections, "main#1:semaphore-count-up"), [49]);
    assert!(mutant(&sections, "main#1:semaphore-count-down").is_none());
}

#[test]
fn limits_of_the_region_operators() {
    let c = catalogue(&fixture("operators/limits.c"));
    let ids: Vec<&str> = c["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    let has = |id: &str| ids.contains(&id);
    // Two regions one after the other are not nested.
    assert!(!has("sequential#1:swap-lock-order") && !has("sequential#3:swap-lock-order"));
    assert!(has("sequential#1:remove-lock-pair") && has("sequential#3:remove-lock-pair"));
    // The second lock's address depends on a store between the two acquisitions.
    assert!(!has("moving_index#1:swap-lock-order"));
    assert!(has("fixed_index#1:swap-lock-order"));
    // Only stack slots nobody else reaches around the region.
    for op in ["widen-critical-section", "split-critical-section"] {
        assert!(!has(&format!("empty_region#1:{op}")), "{op}");
    }
    assert!(!has("empty_region#2:shrink-critical-section"));
    // pthread_barrier_init(&single, 0, 1) and sem_init(&empty, 0, 0) are at their floor.
    assert!(has("main#1:barrier-count-up") && !has("main#1:barrier-count-down"));
    assert!(has("main#2:semaphore-count-up") && !has("main#2:semaphore-count-down"));
}

#[test]
fn c11_thread_calls_are_sites_with_the_pthread_operators() {
    let c = catalogue(&example("c11/ticket_queue"));
    assert_eq!(site_lines(&c, "producer#1:lock-to-trylock"), [18]);
    assert_eq!(site_lines(&c, "producer#1:remove-lock-pair"), [18, 24]);
    assert_eq!(site_lines(&c, "consumer#2:wait-to-timedwait"), [35]);
    assert_eq!(site_lines(&c, "consumer#3:signal-to-broadcast"), [39]);
    assert_eq!(site_lines(&c, "main#2:remove"), [55]);
    let callees: Vec<&str> = c["sites"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["callee"].as_str().unwrap())
        .collect();
    assert!(
        callees.contains(&"mtx_lock")
            && callees.contains(&"cnd_wait")
            && callees.contains(&"thrd_join"),
        "{callees:?}"
    );
    // thrd_create is observed (the scheduler sees the thread), never a site.
    assert!(!callees.contains(&"thrd_create"));
}

#[test]
fn nested_lock_guards_swap_and_guard_scopes_move() {
    let c = catalogue(&fixture("operators/guards.cpp"));
    let description = |id: &str| {
        mutant(&c, id).unwrap_or_else(|| panic!("no mutant {id}"))["description"]
            .as_str()
            .unwrap()
            .to_string()
    };
    // move(): `outer(first.lock)` at 22 and `inner(second.lock)` at 23, one statement
    // after the other; audit() takes the same two in the same order at 29 and 30.
    assert_eq!(site_lines(&c, "move#1:swap-lock-order"), [22, 23]);
    assert_eq!(site_lines(&c, "audit#1:swap-lock-order"), [29, 30]);
    // The end of `inner`'s scope (its destruction, line 26) moves above line 25.
    assert_eq!(
        description("move#3:shrink-critical-section"),
        "the end of inner(second.lock)'s scope moved up above line 25"
    );
    // count(): the guard over `tally` widens over `moves++` at 35.
    assert!(description("count#1:widen-critical-section").ends_with("above line 35"));
    // note(): `held.unlock()` at 44 moves up; the end of `held`'s scope does not, as
    // the guard no longer owns its mutex there.
    assert!(description("note#2:shrink-critical-section").ends_with("above line 43"));
    assert!(mutant(&c, "note#3:shrink-critical-section").is_none());
}

/// Swapped, move() takes the higher ledger first while audit() takes the lower first:
/// a deadlock the original never has. Every other guard mutant runs too, so a copy that
/// left a guard's state wrong in the original's runs would show as a crash or a hang
/// of the original.
#[test]
fn swapped_lock_guards_deadlock() {
    let out = tempfile::tempdir().unwrap();
    syncmut()
        .arg("run")
        .arg(fixture("operators/guards.cpp"))
        .arg("-o")
        .arg(out.path())
        .assert()
        .success();
    let v = verdicts(out.path());
    assert_eq!(
        v["verdicts"]["move#1:swap-lock-order"], "killed-by-deadlock",
        "{v}"
    );
    assert_eq!(
        v["verdicts"]["audit#1:swap-lock-order"], "killed-by-deadlock",
        "{v}"
    );
    // The counter's update moved out of its guard races with the other thread's: named
    // as a data race (on by default) before the trace difference.
    assert_eq!(
        v["verdicts"]["count#2:shrink-critical-section"], "killed-by-race",
        "{v}"
    );
    let baseline: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("baseline.json")).unwrap()).unwrap();
    assert_eq!(baseline[0]["usable"], true, "{baseline}");
    assert_eq!(baseline[0]["deadlock"], false, "{baseline}");
}
