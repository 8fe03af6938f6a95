//! Test generation as `run` and `gen` use it on designs the analysis handles only in
//! part: a run never stops for lack of generated tests, only usable tests are kept,
//! and the reach rate counts every site not proven unreachable. Designs live in
//! tests/fixtures/gen/; the analysis of SystemC processes, ports and members is in
//! generation_systemc.rs.

mod util;

use util::generation::{run_syncmut, site_verdicts, syncmut};

#[test]
fn the_default_invocation_runs_first_and_only_the_sites_it_misses_are_analysed() {
    let (out, code, stdout, stderr) = run_syncmut("gen", "default_first.c", &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(
        stderr.contains(
            "the default invocation (no arguments) reaches 2 of 4 site(s); those need no formula"
        ),
        "{stderr}"
    );
    let sites: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("sites.json")).unwrap()).unwrap();
    for site in &sites.as_array().unwrap()[..2] {
        assert_eq!(site["verdict"]["verdict"], "test-found", "{site}");
        assert!(
            site["notes"][0]
                .as_str()
                .unwrap()
                .contains("reached by the design's default invocation"),
            "{site}"
        );
    }
    let formulas = out.path().join("formulas");
    assert!(!formulas.join("site0.smt2").exists());
    assert!(formulas.join("site2.smt2").exists());
    // The guarded pair still gets the argument its guard needs.
    let tests = std::fs::read_to_string(out.path().join("tests.json")).unwrap();
    assert!(tests.contains("\"4099\""), "{tests}");
    assert!(
        stdout.contains("reach rate: 4 of 4 sites not proven unreachable (100%)"),
        "{stdout}"
    );
    // `--analyse-all` builds a formula for every site.
    let (out, code, stdout, stderr) = syncmut("gen", "default_first.c", &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(out.path().join("formulas/site0.smt2").exists());
}

#[test]
fn the_sites_a_given_test_reaches_are_not_analysed() {
    // The design reads a data file: the default invocation, in an empty directory,
    // reaches no site, and the test beside it, which copies the file in, reaches both.
    let (out, code, stdout, stderr) = syncmut("run", "data_file/levels.c", &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(
        stderr.contains("the 1 given test(s) reach 2 more site(s); those are not analysed"),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "reach rate: 2 of 2 sites not proven unreachable (100%), 2 of them by the given tests"
        ),
        "{stderr}"
    );
    let sites: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("gen/sites.json")).unwrap()).unwrap();
    for site in sites.as_array().unwrap() {
        assert_eq!(site["verdict"]["verdict"], "reached-by-given", "{site}");
        assert_eq!(site["verdict"]["test"], "with_levels", "{site}");
    }
    assert!(!out.path().join("gen/formulas/site0.smt2").exists());
    // `--analyse-all` runs nothing before the analysis, the given tests included.
    let (out, code, stdout, stderr) = syncmut("run", "data_file/levels.c", &["--analyse-all"]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(!stderr.contains("given test(s) reach"), "{stderr}");
    assert!(out.path().join("gen/formulas/site0.smt2").exists());
}

#[test]
fn run_keeps_the_default_invocation_when_the_analysis_decides_nothing() {
    // Every site is unknown to the analysis; running the design with no arguments
    // reaches both, before the analysis starts.
    let (_out, code, stdout, stderr) = syncmut("run", "hex_level.c", &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(
        stderr.contains(
            "generated 1 test(s); reach rate: 2 of 2 sites not proven unreachable (100%)"
        ),
        "{stderr}"
    );
    assert!(
        !stderr.contains("generation kept no usable test"),
        "{stderr}"
    );
}

/// Generation keeps no test of a design that aborts before any thread starts; `run`
/// falls back to the design's default invocation as generation already ran it (a design
/// that hangs would otherwise pay the timeout twice), and the baseline sets it aside.
#[test]
fn the_fallback_reuses_generations_run_of_the_default_invocation() {
    let (_out, code, stdout, stderr) = syncmut("run", "aborts_first.c", &[]);
    assert_eq!(code, 7, "{stdout}\n{stderr}");
    assert!(
        stderr.contains("generation kept no usable test; using the design's default invocation"),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "default (no arguments, as generation ran it) reaches no site (the run crashed"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("default: the original crashed"), "{stderr}");
}

#[test]
fn a_test_ending_by_an_assumption_is_not_kept_and_unreached_sites_count() {
    let (out, code, stdout, stderr) = syncmut("gen", "assume_after.c", &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    // Every input reaching sites 0 and 1 ends by __VERIFIER_assume(x < 5).
    assert!(
        stdout.contains("not kept: the run ended by __VERIFIER_assume (status 123)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("reach rate: 2 of 4 sites not proven unreachable (50%)"),
        "{stdout}"
    );
    let tests: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("tests.json")).unwrap()).unwrap();
    for t in tests["tests"].as_array().unwrap() {
        let x: i64 = t["args"][0].as_str().unwrap().parse().unwrap();
        assert!(x < 5, "{t}");
    }
}

#[test]
fn reasons_are_words_not_debug_output() {
    // A merge of argv[1] and getenv's result is left free, and the note says so in words.
    let (out, code, stdout, stderr) = syncmut("gen", "pointer_merge.c", &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let sites: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("sites.json")).unwrap()).unwrap();
    let notes: Vec<&str> = sites[0]["notes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|n| n.as_str())
        .collect();
    let merge = notes
        .iter()
        .find(|n| n.contains("on one path and"))
        .unwrap_or_else(|| panic!("{notes:?}"));
    assert!(
        merge.contains("the string argv[1]")
            && merge.contains("memory returned by getenv at pointer_merge.c:10"),
        "{merge}"
    );
    assert!(
        stdout.contains("reach rate: 2 of 2 sites not proven unreachable (100%)"),
        "{stdout}"
    );
    // An unknown site's reason and the summary line.
    let (out, _, stdout, _) = syncmut("gen", "hex_level.c", &[]);
    let sites: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("sites.json")).unwrap()).unwrap();
    let reason = sites[0]["verdict"]["reason"].as_str().unwrap();
    assert!(
        reason.contains("strtol with base 16: not supported yet, hex_level.c:10"),
        "{reason}"
    );
    for text in [*merge, reason] {
        for debug in ["ArgStr(", "Loc {", "Opaque(", "Value(0x", "!dbg"] {
            assert!(!text.contains(debug), "{text}");
        }
    }
    assert!(stdout.contains("reach rate: 0 of 2 sites not proven unreachable (0%); 2 unknown (2 not modelled): site 0 (hex_level.c:11"), "{stdout}");
}

#[test]
fn a_loop_beyond_the_unroll_bound_is_summarised_not_cut() {
    // 16 pthread_mutex_init calls in main (bound 8) before every site.
    let (out, code, stdout, stderr) = syncmut("gen", "mutex_array.c", &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(!stdout.contains("loop bound"), "{stdout}");
    assert!(
        stdout.contains("reach rate: 5 of 5 sites not proven unreachable (100%)"),
        "{stdout}"
    );
    let sites: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("sites.json")).unwrap()).unwrap();
    // The guard of site 2 is `mode == 7`.
    assert_eq!(sites[2]["verdict"]["args"][0], "7", "{}", sites[2]);
    assert!(
        sites[2]["notes"].as_array().unwrap().iter().any(|n| n
            .as_str()
            .unwrap()
            .contains("loop at mutex_array.c:19 summarised")),
        "{}",
        sites[2]
    );
}

#[test]
fn a_candidate_that_misses_its_site_is_blocked_and_the_solver_asked_again() {
    // The guard calls toupper, which has no body: its result is unknown to the
    // analysis, so a model may pick an x that does not reach the site when run.
    let (out, code, stdout, stderr) = syncmut("gen", "refine.c", &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(
        stdout.contains("reach rate: 2 of 2 sites not proven unreachable (100%)"),
        "{stdout}"
    );
    let sites: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("sites.json")).unwrap()).unwrap();
    assert_eq!(sites[0]["verdict"]["args"][0], "2", "{}", sites[0]);
    assert!(
        sites[0]["notes"].as_array().unwrap().iter().any(|n| n
            .as_str()
            .unwrap()
            .starts_with("refinement round 1: the candidate (test found: ")),
        "{}",
        sites[0]
    );
}

#[test]
fn a_value_only_another_thread_writes_is_traced_to_that_thread_store() {
    // The reader's site needs `level >= 5`; only the writer, started in mode "w",
    // stores argv[2] there.
    let (out, code, stdout, stderr) = syncmut("gen", "writer_value.c", &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let sites: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("sites.json")).unwrap()).unwrap();
    let args = &sites[4]["verdict"]["args"];
    assert_eq!(args[0], "w", "{}", sites[4]);
    assert!(
        args[1].as_str().unwrap().parse::<i64>().unwrap() >= 5,
        "{}",
        sites[4]
    );
    assert!(
        sites[4]["notes"]
            .to_string()
            .contains("the value stored at writer_value.c:16"),
        "{}",
        sites[4]
    );
    // Found by the first question, not by refinement rounds.
    assert!(
        !sites[4]["notes"].to_string().contains("refinement round"),
        "{}",
        sites[4]
    );
    assert!(stdout.contains("reach rate: 8 of 8 sites"), "{stdout}");
}

#[test]
fn a_site_reached_only_through_a_function_pointer_is_analysed() {
    // op_append and op_clear are called only as `o->run(7)` through a table.
    let (out, code, stdout, stderr) = syncmut("gen", "fn_pointer.c", &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let verdicts = site_verdicts(&out);
    assert_eq!(verdicts[0]["verdict"], "test-found", "{stdout}");
    // op_clear locks only when the journal is non-zero, which it never is when called.
    assert_eq!(verdicts[2]["verdict"], "unreachable", "{stdout}");
    assert!(
        stdout.contains("reach rate: 3 of 3 sites not proven unreachable (100%)"),
        "{stdout}"
    );
}

#[test]
fn a_site_in_a_virtual_override_gets_the_input_its_guard_needs() {
    let (out, code, stdout, stderr) = syncmut("gen", "virtual_worker.cpp", &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let verdicts = site_verdicts(&out);
    // Doubler::step locks only for 40 < level < 50.
    assert_eq!(verdicts[2]["verdict"], "test-found", "{stdout}");
    let level: i64 = verdicts[2]["args"][0].as_str().unwrap().parse().unwrap();
    assert!(level > 40 && level < 50, "{}", verdicts[2]);
    assert!(
        stdout.contains("reach rate: 6 of 6 sites not proven unreachable (100%)"),
        "{stdout}"
    );
}

#[test]
fn a_function_also_called_through_a_pointer_is_not_proven_dead_by_its_direct_calls() {
    // The only direct call is under argc > 1000; the pointer call always runs. Along
    // direct calls alone the formula is unsatisfiable: the analysis asks again
    // following the indirect calls of flush's type.
    let (out, code, stdout, stderr) = syncmut("gen", "direct_and_pointer.c", &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let sites: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("sites.json")).unwrap()).unwrap();
    assert_eq!(sites[0]["verdict"]["verdict"], "test-found", "{}", sites[0]);
    assert!(
        sites[0]["notes"].as_array().unwrap().iter().any(|n| n
            .as_str()
            .unwrap()
            .contains("indirect call at direct_and_pointer.c:26 is assumed to reach flush")),
        "{}",
        sites[0]
    );
    assert!(
        stdout.contains("reach rate: 2 of 2 sites not proven unreachable (100%)"),
        "{stdout}"
    );
}

#[test]
fn locks_taken_in_address_order_are_compared_by_offset_within_one_array() {
    // `a < b` between two elements of one array is the order of their indices; the dead
    // branch after it is then proven unreachable instead of staying unknown.
    let (out, code, stdout, stderr) = syncmut("gen", "address_order.c", &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let verdicts = site_verdicts(&out);
    for k in [0, 1, 2, 3] {
        assert_eq!(verdicts[k]["verdict"], "test-found", "{stdout}");
        let first: i64 = verdicts[k]["args"][0].as_str().unwrap().parse().unwrap();
        let second: i64 = verdicts[k]["args"][1].as_str().unwrap().parse().unwrap();
        // Sites 0–1 are the `a < b` arm, 2–3 the other.
        assert_eq!(first < second, k < 2, "{}", verdicts[k]);
    }
    assert_eq!(verdicts[4]["verdict"], "unreachable", "{stdout}");
    assert!(
        stdout.contains("reach rate: 6 of 6 sites not proven unreachable (100%)"),
        "{stdout}"
    );
}

#[test]
fn an_object_created_with_new_keeps_what_its_constructor_stored() {
    // Each job's class (its vtable pointer) and fields are the constructor's stores
    // into the object `new` returned: `limit` is 40, so the lock needs level > 40, and
    // Quiet's `noisy` is false, so its lock is dead.
    let (out, code, stdout, stderr) = syncmut("gen", "heap_objects.cpp", &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let verdicts = site_verdicts(&out);
    for k in [0, 1] {
        assert_eq!(verdicts[k]["verdict"], "test-found", "{stdout}");
        let level: i64 = verdicts[k]["args"][0].as_str().unwrap().parse().unwrap();
        assert!(level > 40, "{}", verdicts[k]);
    }
    assert_eq!(verdicts[2]["verdict"], "unreachable", "{stdout}");
    assert_eq!(verdicts[3]["verdict"], "unreachable", "{stdout}");
    assert!(!stdout.contains("NOT confirmed"), "{stdout}");
    assert!(
        stdout.contains("reach rate: 4 of 4 sites not proven unreachable (100%)"),
        "{stdout}"
    );
}

#[test]
fn std_thread_workers_and_atomic_updates_are_analysed() {
    // libstdc++ starts a std::thread in `_State_impl<…>::_M_run()`, reached only through
    // the state object's vtable: the construction of the std::thread is the creation
    // (before: "no path from main … to worker"). The worker's atomic fetch_add is an
    // atomicrmw instruction, whose read value is any value and whose write clobbers
    // the counter (before: "unknown: instruction `atomicrmw …`").
    let (out, code, stdout, stderr) = syncmut("gen", "std_threads.cpp", &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let verdicts = site_verdicts(&out);
    assert_eq!(verdicts.len(), 6, "{stdout}");
    for v in &verdicts {
        assert_eq!(v["verdict"], "test-found", "{stdout}");
    }
    let level = |k: usize| {
        verdicts[k]["args"][0]
            .as_str()
            .unwrap()
            .parse::<i64>()
            .unwrap()
    };
    assert!(level(0) > 500, "{}", verdicts[0]);
    assert!(level(2) < -3, "{}", verdicts[2]);
    let sites = std::fs::read_to_string(out.path().join("sites.json")).unwrap();
    assert!(
        sites.contains("std::thread started at std_threads.cpp:26"),
        "{sites}"
    );
    assert!(!stdout.contains("NOT confirmed"), "{stdout}");
}

#[test]
fn workers_chosen_by_argv_words_in_a_loop_are_started() {
    // A loop over argv compares each word and creates a worker with `new`; its
    // iterations are unrolled (copies with their exit tests) and each copy reads
    // argv[1], argv[2]… at a constant index. (A corpus design.)
    let (_out, code, stdout, stderr) =
        syncmut("gen", "../../corpus/pthread/virtual_workers.cpp", &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(!stdout.contains("unknown"), "{stdout}");
    assert!(
        stdout.contains("reach rate: 7 of 7 sites not proven unreachable (100%)"),
        "{stdout}"
    );
}

#[test]
fn letters_searched_with_strchr_are_put_in_the_argument() {
    // `strchr(flags, 'w') && !strchr(flags, 'q')` on `argc > 1 ? argv[1] : ""`: the
    // argument is built from the letters the solver chooses. A library pointer taken
    // as never null made sites 2–3 "unreachable" before.
    let (out, code, stdout, stderr) = syncmut("gen", "letters.c", &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let verdicts = site_verdicts(&out);
    let word = |k: usize| verdicts[k]["args"][0].as_str().unwrap().to_string();
    assert!(word(0).contains('r'), "{}", verdicts[0]);
    assert!(
        word(2).contains('w') && !word(2).contains('q'),
        "{}",
        verdicts[2]
    );
    assert!(!stdout.contains("NOT confirmed"), "{stdout}");
    assert!(
        stdout.contains("reach rate: 4 of 4 sites not proven unreachable (100%)"),
        "{stdout}"
    );
}

#[test]
fn a_summarised_loop_that_cannot_reach_a_site_proves_it_unreachable() {
    // step() is called from a loop beyond the unrolled copies with mode `i % 2`: the
    // summary takes `i` as any value, and `i % 2 == 3` is still false, so the mode-3
    // branch is dead (before: "unknown: loop bound"). The branch after the loop needs
    // more iterations than the copies and keeps its test.
    let (out, code, stdout, stderr) = syncmut("gen", "loop_dead.c", &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let verdicts = site_verdicts(&out);
    assert_eq!(verdicts[1]["verdict"], "unreachable", "{stdout}");
    assert!(
        verdicts[1]["reason"]
            .as_str()
            .unwrap()
            .contains("loops beyond the unroll bound summarised"),
        "{}",
        verdicts[1]
    );
    assert_eq!(verdicts[3]["verdict"], "test-found", "{stdout}");
    assert!(!stdout.contains("loop bound"), "{stdout}");
    assert!(
        stdout.contains("reach rate: 4 of 4 sites not proven unreachable (100%)"),
        "{stdout}"
    );
}

#[test]
fn a_pointer_returned_by_a_library_function_without_a_model_may_be_null() {
    // `getenv(...) == NULL` guards both sites: with getenv's result taken as never
    // null they were "unreachable"; the run (variable unset) reaches them.
    let (out, code, stdout, stderr) = syncmut("gen", "getenv_default.c", &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let verdicts = site_verdicts(&out);
    for v in &verdicts {
        assert_eq!(v["verdict"], "test-found", "{stdout}");
    }
    let sites = std::fs::read_to_string(out.path().join("sites.json")).unwrap();
    assert!(
        sites.contains("memory returned by getenv at getenv_default.c:12 may be null"),
        "{sites}"
    );
    assert!(
        stdout.contains("reach rate: 2 of 2 sites not proven unreachable (100%)"),
        "{stdout}"
    );
}

#[test]
fn options_parsed_with_getopt_are_put_in_the_arguments() {
    // getopt returns the option at its position in the option list; the arguments are
    // the options the solver chooses (before: no arguments, the sites needing -x -q
    // not reached).
    let (out, code, stdout, stderr) = syncmut("gen", "getopt_flags.c", &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let verdicts = site_verdicts(&out);
    let args: Vec<&str> = verdicts[0]["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert!(
        args.contains(&"-x") && args.contains(&"-q"),
        "{}",
        verdicts[0]
    );
    assert!(!stdout.contains("NOT confirmed"), "{stdout}");
    assert!(
        stdout.contains("reach rate: 4 of 4 sites not proven unreachable (100%)"),
        "{stdout}"
    );
}
