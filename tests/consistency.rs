//! The strategies of `syncmut run` agree on small generated pthread programs
//! (tests/util/consistency.rs): no mutant killed under the default budget, random or pct
//! is one that exhaustive dfs calls equivalent, and the original is never killed by
//! itself. The suite checks one program; `cargo bench --bench consistency` hundreds.

mod util;

#[path = "util/consistency.rs"]
mod consistency;

/// Programs checked here; the bench's seeds continue past them.
const PROGRAMS: u64 = 1;

#[test]
fn strategies_agree_with_exhaustive_dfs_on_generated_programs() {
    let syncmut = std::path::PathBuf::from(env!("CARGO_BIN_EXE_syncmut"));
    let work = tempfile::tempdir().unwrap();
    let mut killed = 0;
    for seed in 0..PROGRAMS {
        let dir = work.path().join(format!("p{seed}"));
        let agreement = consistency::check(&syncmut, &dir, seed);
        let source = consistency::program(seed);
        assert!(
            agreement.inconsistencies.is_empty(),
            "program {seed}:\n{source}\n{:?}",
            agreement.inconsistencies
        );
        assert_eq!(agreement.self_kills, 0, "program {seed}:\n{source}");
        assert!(agreement.mutants > 0, "program {seed} has mutants");
        killed += agreement.killed;
    }
    // The check compares something: dfs judged some kills.
    assert!(killed > 0, "no sampled strategy killed a mutant");
}

/// The generator gives every seed the same program, and different seeds differ.
#[test]
fn programs_are_fixed_by_their_seed() {
    assert_eq!(consistency::program(7), consistency::program(7));
    assert_ne!(consistency::program(7), consistency::program(8));
    assert!(consistency::program(7).contains("pthread_mutex_lock(&m0);"));
}
