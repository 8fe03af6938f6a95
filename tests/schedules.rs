//! Verdicts across schedules: the default budget finds what real threads find (the
//! real-thread corpus in tests/fixtures/realthreads, whose `targets.txt` lists mutants
//! that fail with real threads and survive the one default schedule), and kills are
//! sound (a mutant that changes nothing observable survives every strategy; the
//! original run in place of the mutants never kills itself).

mod util;

use serde_json::Value;
use std::path::Path;
use util::{example, fixture, syncmut};

/// `syncmut run DESIGN --gen none -j 2 -o OUT EXTRA…`, which must exit with `code`;
/// returns outcomes.json.
fn run(design: &Path, out: &Path, extra: &[&str], code: i32) -> Value {
    syncmut()
        .arg("run")
        .arg(design)
        .args(["--gen", "none", "-j", "2", "-o"])
        .arg(out)
        .args(extra)
        .assert()
        .code(code);
    util::outcomes(out)
}

fn mutant<'a>(outcomes: &'a Value, id: &str) -> &'a Value {
    outcomes["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["mutant"] == id)
        .unwrap_or_else(|| panic!("no mutant {id}"))
}

fn targets(design: &Path) -> Vec<String> {
    std::fs::read_to_string(design.join("targets.txt"))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .collect()
}

/// The real-thread corpus's `design`: its target mutants are killed under the default
/// budget and survive the one default schedule. One test per design, so the test runner
/// runs them side by side.
fn default_budget_kills_what_real_threads_find(design: &str) {
    let design = fixture("realthreads").join(design);
    assert!(
        design.join("targets.txt").is_file(),
        "{design:?} has targets"
    );
    let name = design.file_name().unwrap().to_string_lossy().into_owned();
    // The one default schedule misses them by interleaving alone; race detection (on
    // by default) finds some there already: a removed lock's unordered accesses need
    // no unlucky interleaving.
    let out = tempfile::tempdir().unwrap();
    let standard = run(&design, out.path(), &[], 0);
    let out = tempfile::tempdir().unwrap();
    let single = run(
        &design,
        out.path(),
        &["--strategy", "default", "--races=false", "--native", "0"],
        0,
    );
    for id in targets(&design) {
        let killed = mutant(&standard, &id);
        assert!(
            killed["verdict"]
                .as_str()
                .unwrap()
                .starts_with("killed-by-"),
            "{name}: {id} under the default budget: {killed}"
        );
        let survived = mutant(&single, &id);
        assert_eq!(
            survived["verdict"], "survived",
            "{name}: {id} under the one default schedule: {survived}"
        );
        let reason = survived["reason"].as_str().unwrap();
        assert!(
            reason.contains("survived 1 schedule: default"),
            "{name}: {id}: the reason says what was tried: {reason}"
        );
    }
    // A survivor of the default budget says what it was tried on.
    for m in standard["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["verdict"] == "survived")
    {
        let reason = m["reason"].as_str().unwrap();
        assert!(
            reason.contains("schedules: default, pct×")
                || reason.contains("schedules: default, native"),
            "{name}: {reason}"
        );
    }
}

#[test]
fn the_default_budget_kills_what_real_threads_find_in_late_waiter() {
    default_budget_kills_what_real_threads_find("late_waiter");
}

#[test]
fn the_default_budget_kills_what_real_threads_find_in_ledger_pool() {
    default_budget_kills_what_real_threads_find("ledger_pool");
}

#[test]
fn the_default_budget_kills_what_real_threads_find_in_pool_shutdown() {
    default_budget_kills_what_real_threads_find("pool_shutdown");
}

#[test]
fn the_default_budget_kills_what_real_threads_find_in_start_gate() {
    default_budget_kills_what_real_threads_find("start_gate");
}

/// One condition variable with exactly one possible waiter: `signal-to-broadcast` wakes
/// the same thread on every schedule, so it must survive every strategy, although it
/// shifts seeded schedules (a signal draws a "which waiter" choice, a broadcast none).
#[test]
fn signal_to_broadcast_with_one_possible_waiter_survives_every_strategy() {
    let design = fixture("schedules/one_waiter");
    let id = "counter#4:signal-to-broadcast";
    let mut refuted_somewhere = false;
    for extra in [
        &["--schedules", "20"][..],
        &["--strategy", "pct", "--schedules", "20"],
        &[
            "--strategy",
            "dfs",
            "--schedules",
            "20",
            "--preemptions",
            "1",
        ],
        &[],
    ] {
        let out = tempfile::tempdir().unwrap();
        let only = ["--mutant", "^counter#4:signal-to-broadcast$"];
        let outcomes = run(&design, out.path(), &[extra, &only[..]].concat(), 0);
        let m = mutant(&outcomes, id);
        assert_eq!(m["verdict"], "survived", "{extra:?}: {m}");
        let reason = m["reason"].as_str().unwrap();
        assert!(reason.contains("survived "), "{extra:?}: {reason}");
        refuted_somewhere |=
            reason.contains("the original following the same interleaving did the same");
    }
    // Without following the mutant's interleaving, some of these runs would have been
    // kills: the seeded schedules did shift.
    assert!(refuted_somewhere, "the follow decided at least one run");
}

/// A kill's reason names the original run it was compared with (a kill by output or
/// trace: a race names its two accesses instead, so races are off here). Main without
/// its third unlock leaves a thread waiting where no run of the original does. (A moved
/// unlock's differing trace is no such kill: the original's search does not cover its
/// bound in 600 runs, so it is not claimed.)
#[test]
fn a_kill_names_the_closest_original_run() {
    let out = tempfile::tempdir().unwrap();
    let outcomes = run(
        &fixture("schedules/one_waiter"),
        out.path(),
        &["--schedules", "6", "--races=false"],
        0,
    );
    let shrunk = mutant(&outcomes, "counter#2:shrink-critical-section");
    assert_eq!(shrunk["verdict"], "survived", "{shrunk}");
    assert!(
        shrunk["reason"]
            .as_str()
            .unwrap()
            .contains("the mutant's own scheduling points move where the original, following it, is preempted"),
        "{shrunk}"
    );
    let m = mutant(&outcomes, "main#3:remove");
    assert!(
        m["verdict"].as_str().unwrap().starts_with("killed-by-"),
        "{m}"
    );
    assert!(
        m["reason"]
            .as_str()
            .unwrap()
            .contains("closest original run: the original "),
        "{m}"
    );
}

/// Examples whose tests carry input values, which the dfs search does not pass (it runs
/// the test's arguments only): their originals differ from the uninstrumented build
/// under dfs and every test is set aside, so dfs cannot judge them at all.
const DFS_WITHOUT_INPUTS: [&str; 2] = ["pthread/named_depth", "pthread/nondet_guard"];

/// `--self-check` on every example of `family` under `strategy` (a small budget): the
/// original in place of each mutant is never killed. The examples' tests are used, else
/// tests generated once. One test per strategy, so the test runner runs them side by
/// side.
fn self_check(family: &str, strategy: &[&str]) {
    let dfs = strategy.contains(&"dfs");
    let mut examples: Vec<String> = std::fs::read_dir(example(family))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("expected.json").is_file())
        .map(|p| format!("{family}/{}", p.file_name().unwrap().to_string_lossy()))
        .filter(|name| !(dfs && DFS_WITHOUT_INPUTS.contains(&name.as_str())))
        .collect();
    examples.sort();
    assert!(!examples.is_empty());
    for name in examples {
        let gen = tempfile::tempdir().unwrap();
        let mut tests = example(&name).join("tests.json");
        if !tests.is_file() {
            syncmut()
                .arg("gen")
                .arg(example(&name))
                .arg("-o")
                .arg(gen.path())
                .assert()
                .success();
            tests = gen.path().join("tests.json");
        }
        let out = tempfile::tempdir().unwrap();
        syncmut()
            .arg("run")
            .arg(example(&name))
            .args(["--gen", "none", "--tests"])
            .arg(&tests)
            .args(["-j", "2", "--self-check", "-o"])
            .arg(out.path())
            .args(strategy)
            .assert()
            .code(0)
            .stdout(predicates::str::contains("it was killed 0 time(s)"));
        let outcomes = util::outcomes(out.path());
        assert_eq!(outcomes["score"]["killed"], 0, "{name} {strategy:?}");
    }
}

/// `alternating` (by its old spelling, `mixed`, which syncmut.toml files may still use)
/// with one run with real threads covers default, pct, random and native in one run (a
/// self-check's seeded schedules are those after the baseline's).
#[test]
fn the_original_never_kills_itself_on_the_pthread_examples() {
    self_check(
        "pthread",
        &["--strategy", "mixed", "--schedules", "4", "--native", "1"],
    );
}

#[test]
fn the_original_never_kills_itself_under_dfs_on_the_pthread_examples() {
    self_check(
        "pthread",
        &[
            "--strategy",
            "dfs",
            "--schedules",
            "6",
            "--preemptions",
            "1",
        ],
    );
}

#[test]
fn the_original_never_kills_itself_on_the_systemc_examples() {
    self_check("systemc", &["--strategy", "default"]);
}

/// The output directory named relatively, as `syncmut run design -o out` from a shell
/// does: the runs start in directories of their own, and the original's follow of a
/// mutant's recorded interleaving must still find that file. It once could not, every
/// follow failed, and the self-check here counted 13 false kills of 13.
#[test]
fn the_original_never_kills_itself_with_a_relative_output_directory() {
    let cwd = tempfile::tempdir().unwrap();
    syncmut()
        .current_dir(cwd.path())
        .arg("run")
        .arg(util::fixture("schedules/signal_count"))
        .args(["-j", "2", "--self-check", "-o", "out"])
        .assert()
        .code(0)
        .stdout(predicates::str::contains("it was killed 0 time(s)"));
}

/// racy_counter's `swap-lock-order` takes the log lock before the counter's: the
/// mutant's thread can hold one lock where the original's would wait for it, so the
/// original cannot follow such a run to its end, and what a join sees afterwards is no
/// evidence (dfs finds the mutant equivalent within 1 and 2 preemptions). Random runs
/// that differ only past that point were once killed by trace (24 of 50); they are not
/// claimed now, and the reason, outcomes.json and the Markdown summary say so. Runs with
/// real threads are off (`--native 0`) in these tests of the controlled schedules: there
/// a thread can read the counter between the other's release of the log lock and its
/// write, a lost update no synchronization call separates, and a true kill.
#[test]
fn a_difference_only_past_a_partial_follow_is_not_claimed() {
    let design = fixture("verdicts/racy_counter");
    let id = "adder#1:swap-lock-order";
    let out = tempfile::tempdir().unwrap();
    let outcomes = run(
        &design,
        out.path(),
        &[
            "--races=false",
            "--mutant",
            "swap-lock-order",
            "--strategy",
            "random",
            "--schedules",
            "50",
            "--native",
            "0",
        ],
        0,
    );
    let m = mutant(&outcomes, id);
    assert_eq!(m["verdict"], "survived", "{m}");
    let reason = m["reason"].as_str().unwrap();
    assert!(reason.contains("only past the point where the original could no longer follow the mutant's interleaving"), "{reason}");
    assert!(reason.contains("not claimed as kills"), "{reason}");
    let unclaimed = m["unclaimed"].as_u64().unwrap_or(0);
    assert!(
        unclaimed > 0,
        "outcomes.json counts the unclaimed runs: {m}"
    );
    assert_eq!(m["runs"][0]["unclaimed"].as_u64(), Some(unclaimed), "{m}");
    let markdown = syncmut()
        .arg("report")
        .arg(out.path())
        .args(["--format", "markdown"])
        .output()
        .unwrap();
    let markdown = String::from_utf8_lossy(&markdown.stdout);
    assert!(
        markdown.contains(&format!("`{id}`: {unclaimed} run(s) differed")),
        "{markdown}"
    );
    // dfs agrees: within 1 preemption the mutant shows exactly the original's behaviours.
    let out = tempfile::tempdir().unwrap();
    let outcomes = run(
        &design,
        out.path(),
        &[
            "--races=false",
            "--mutant",
            "swap-lock-order",
            "--strategy",
            "dfs",
            "--preemptions",
            "1",
            "--schedules",
            "500",
            "--native",
            "0",
        ],
        0,
    );
    assert_eq!(
        mutant(&outcomes, id)["verdict"],
        "equivalent-exhaustive",
        "{}",
        mutant(&outcomes, id)
    );
}

/// A kill past a partial follow still stands when the original's bounded search shows
/// the difference is the mutant's: the racy counter without its lock loses an update
/// (an output the original never prints: claimed, and the reason says what the search
/// of the original could and could not show), and a removed join lets main see the
/// counter before the threads ran, which the search of the original within the run's
/// preemptions never shows; that reason names the bound.
#[test]
fn a_kill_past_a_partial_follow_stands_on_evidence() {
    let out = tempfile::tempdir().unwrap();
    let outcomes = run(
        &fixture("verdicts/racy_counter"),
        out.path(),
        &[
            "--races=false",
            "--mutant",
            "adder#1:remove$",
            "--mutant",
            "main#1:remove",
        ],
        0,
    );
    let lost = mutant(&outcomes, "adder#1:remove");
    assert_eq!(lost["verdict"], "killed-by-output", "{lost}");
    let reason = lost["reason"].as_str().unwrap();
    assert!(
        reason.contains("could not follow the mutant's interleaving past choice"),
        "{reason}"
    );
    assert!(
        reason.contains("preemptions (every such schedule"),
        "{reason}"
    );
    let join = mutant(&outcomes, "main#1:remove");
    assert_eq!(join["verdict"], "killed-by-trace", "{join}");
    let reason = join["reason"].as_str().unwrap();
    assert!(
        reason.contains("could not follow the mutant's interleaving past choice")
            && reason.contains("preemptions (every such schedule"),
        "{reason}"
    );
}

/// An output difference past a partial follow that the original's search cannot decide
/// is seen, not proven: random runs of the racy counter without its lock print a lost
/// update, but each of them preempts more often than the original's search covers, so
/// nothing shows the original cannot print it. The mutant is not counted killed, and
/// the reason says what differed and why it is not claimed. (Races off: the detector
/// would kill it by the two unordered accesses instead; real threads off: they would
/// kill it by the lost update.)
#[test]
fn an_output_difference_the_search_cannot_decide_is_not_a_kill() {
    let id = "adder#1:remove";
    let out = tempfile::tempdir().unwrap();
    let outcomes = run(
        &fixture("verdicts/racy_counter"),
        out.path(),
        &[
            "--races=false",
            "--mutant",
            "adder#1:remove$",
            "--strategy",
            "random",
            "--schedules",
            "5",
            "--native",
            "0",
        ],
        0,
    );
    let m = mutant(&outcomes, id);
    assert_eq!(m["verdict"], "survived", "{m}");
    assert_eq!(outcomes["score"]["killed"], 0, "{outcomes}");
    assert_eq!(m["unclaimed"], 5, "{m}");
    let reason = m["reason"].as_str().unwrap();
    assert!(
        reason.contains("a difference from the original was seen but not proven"),
        "{reason}"
    );
    assert!(
        reason.contains("\"counter 3, log 6\" instead of \"counter 6, log 6\""),
        "{reason}"
    );
    assert!(
        reason.contains("more than the original's search covers (2)"),
        "{reason}"
    );
    assert!(!reason.contains("killed"), "{reason}");
}

/// A kill fraction counts the proven runs only: of 8 pct runs of the same mutant, the
/// one whose lost update the original's search rules out within its preemptions kills;
/// the runs it cannot decide are said apart, not counted (controlled schedules alone).
#[test]
fn a_kill_fraction_counts_proven_runs_only() {
    let out = tempfile::tempdir().unwrap();
    let outcomes = run(
        &fixture("verdicts/racy_counter"),
        out.path(),
        &[
            "--races=false",
            "--mutant",
            "adder#1:remove$",
            "--strategy",
            "pct",
            "--schedules",
            "8",
            "--native",
            "0",
        ],
        0,
    );
    let m = mutant(&outcomes, "adder#1:remove");
    assert_eq!(m["verdict"], "killed-by-output", "{m}");
    let run = &m["runs"][0];
    let (kills, unclaimed) = (
        run["kills"].as_u64().unwrap(),
        run["unclaimed"].as_u64().unwrap(),
    );
    assert!(
        kills >= 1 && unclaimed >= 1 && kills + unclaimed <= 8,
        "{run}"
    );
    let reason = m["reason"].as_str().unwrap();
    assert!(
        reason.contains(&format!("killed in {kills} of 8 schedules")),
        "{reason}"
    );
    assert!(
        reason.contains(&format!(
            "; {unclaimed} more differed from every run of the original tried"
        )),
        "{reason}"
    );
    assert!(
        reason.contains("not proven against the original"),
        "{reason}"
    );
}
