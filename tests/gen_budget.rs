//! Test generation that always finishes: every stage within a budget, a site that runs
//! out is `unknown: budget` with its own reason and generation goes on; formulas stay
//! as small as the program; a formula is never ill-sorted. Designs live in
//! tests/fixtures/gen/; each reproduces, in small, a shape of a real design that used to
//! crash generation, fill the disk or keep it busy in silence.

mod util;

use serde_json::Value;
use std::path::Path;

/// `syncmut gen <fixture> -o <fresh dir> ARGS`: the directory, exit code, stdout, stderr.
fn gen(design: &str, args: &[&str]) -> (tempfile::TempDir, i32, String, String) {
    util::generation::run_syncmut("gen", design, args)
}

fn sites(out: &Path) -> Vec<Value> {
    let v: Value = serde_json::from_slice(&std::fs::read(out.join("sites.json")).unwrap()).unwrap();
    v.as_array().unwrap().clone()
}

fn reason(site: &Value) -> &str {
    site["verdict"]["reason"].as_str().unwrap_or("")
}

#[test]
fn a_site_that_outruns_its_budget_is_unknown_and_generation_goes_on() {
    // Five thousand branches before the lock: building and solving its formula takes
    // far longer than half a second.
    let (out, code, stdout, stderr) = gen("long_path.c", &["--site-timeout", "0.5"]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let sites = sites(out.path());
    assert_eq!(sites.len(), 2);
    for s in &sites {
        assert!(
            reason(s).starts_with("budget: the site's time budget of 0.5 s ran out")
                && reason(s).contains("--site-timeout"),
            "{s}"
        );
    }
    // Each site said so as it ended, and the summary counts them by cause.
    assert_eq!(stderr.matches("syncmut gen: site ").count(), 2, "{stderr}");
    assert!(stdout.contains("2 unknown (2 budget)"), "{stdout}");
    // Generation went on to the end: the tests file is written.
    assert!(out.path().join("tests.json").is_file());
}

#[test]
fn when_the_whole_budget_is_spent_the_sites_not_tried_say_so() {
    let (out, code, stdout, stderr) = gen("shared_terms.c", &["--gen-timeout", "0"]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    for s in sites(out.path()) {
        assert!(
            reason(&s).starts_with("budget: generation's time budget of 0 s ran out")
                && reason(&s).ends_with("before this site was tried"),
            "{s}"
        );
    }
}

#[test]
fn a_memory_budget_below_what_syncmut_uses_stops_the_formula() {
    let (out, code, stdout, stderr) = gen("long_path.c", &["--gen-memory", "1"]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    for s in sites(out.path()) {
        assert!(
            reason(&s).contains("over the budget of 1 MB (--gen-memory)"),
            "{s}"
        );
    }
}

#[test]
fn a_value_used_twice_at_every_step_gives_a_formula_as_small_as_the_program() {
    // Written out as a tree the formula has 2^32 leaves; with every shared term named
    // once it is a few kilobytes, and the solver finds the input.
    let (out, code, stdout, stderr) = gen("shared_terms.c", &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let formula = out.path().join("formulas/site0.smt2");
    let size = std::fs::metadata(&formula).unwrap().len();
    assert!(size < 64 * 1024, "{} is {size} bytes", formula.display());
    assert!(std::fs::read_to_string(&formula)
        .unwrap()
        .contains("(let (("));
    assert!(
        stdout.contains("reach rate: 2 of 2 sites not proven unreachable (100%)"),
        "{stdout}"
    );
}

#[test]
fn a_formula_over_the_size_budget_is_not_solved() {
    let (out, code, stdout, stderr) = gen("shared_terms.c", &["--formula-terms", "10"]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    for s in sites(out.path()) {
        assert!(
            reason(&s).starts_with("budget: the reachability formula has ")
                && reason(&s).contains("over the budget of 10 (--formula-terms)"),
            "{s}"
        );
    }
}

#[test]
fn formula_files_stop_at_their_byte_budget_and_say_so() {
    // A budget of 0 MB: every formula file keeps its comments and says what it left out.
    let (out, code, stdout, stderr) = gen("shared_terms.c", &["--formula-budget", "0"]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let text = std::fs::read_to_string(out.path().join("formulas/site0.smt2")).unwrap();
    assert!(text.starts_with("; site 0:"), "{text}");
    assert!(
        text.contains("not written: the formula files of this generation reached their budget"),
        "{text}"
    );
    assert!(!text.contains("(assert"), "{text}");
    // The tests are generated all the same.
    assert!(stdout.contains("(100%)"), "{stdout}");
}

#[test]
fn memory_written_as_an_integer_and_read_as_a_pointer_gives_a_well_sorted_formula() {
    // The solver used to reject the formula ("Sorts (_ BitVec 32) and (_ BitVec 64) are
    // incompatible"); now the pointer is one the analysis does not track, and the
    // generated input reaches the lock.
    let (out, code, stdout, stderr) = gen("mixed_widths.c", &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    for s in sites(out.path()) {
        assert_eq!(s["verdict"]["verdict"], "test-found", "{s}");
    }
    assert!(!stdout.contains("solver failure"), "{stdout}");
    assert!(
        stdout.contains("reach rate: 2 of 2 sites not proven unreachable (100%)"),
        "{stdout}"
    );
}
