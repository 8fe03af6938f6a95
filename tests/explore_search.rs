//! How the search is sized and how it treats slow runs: `phased`'s bound and reduction,
//! pct's own depth and budget, and a timeout confirmed before it is a hang.

mod util;

use util::explore::bugs_dir;

/// `phased` takes `--preemptions` as the deepest bound of its dfs phase and `--por` as its
/// reduction: on a correct twin the dfs phase stops after exhausting bound 1, well within
/// the budget, and the summary names both. Named by its old spelling, `mix`, which
/// scripts may still use.
#[test]
fn the_mix_deepens_dfs_only_to_the_bound_given_with_the_reduction_given() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("mix");
    let source = bugs_dir().join("lock_order_ok.c");
    let done = util::syncmut()
        .arg("explore")
        .arg(&source)
        .args([
            "-o",
            out.to_str().unwrap(),
            "--strategy",
            "mix",
            "--preemptions",
            "1",
            "--por",
            "sleep",
            "--schedules",
            "1000",
        ])
        .assert()
        .code(0);
    let stdout = String::from_utf8_lossy(&done.get_output().stdout).into_owned();
    assert!(
        stdout.contains("then dfs with preemption bounds deepening to 1, sleep sets"),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "exhausted every schedule with at most 1 preemptions, up to sleep-set equivalence"
        ),
        "{stdout}"
    );
    let runs: usize = stdout
        .split("explored ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("a run count");
    assert!(
        runs < 1000,
        "the dfs phase went past bound 1: {runs} runs\n{stdout}"
    );
}
/// pct without --depth or --schedules chooses both from a first run and says what the
/// runs covered; given values are kept; a repeated schedule is drawn again, so the budget
/// counts distinct schedules.
#[test]
fn pct_chooses_depth_and_budget_and_says_what_it_covered() {
    let dir = tempfile::tempdir().unwrap();
    let twin = bugs_dir().join("lock_order_ok.c");
    let explore = |out: &str, extra: &[&str]| {
        let out = dir.path().join(out);
        let args = [
            &[
                twin.to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
                "--strategy",
                "pct",
            ],
            extra,
        ]
        .concat();
        let done = util::syncmut().arg("explore").args(args).assert().code(0);
        String::from_utf8_lossy(&done.get_output().stdout).to_string()
    };
    let number = |text: &str, after: &str, before: &str| -> usize {
        let tail = text
            .split(after)
            .nth(1)
            .unwrap_or_else(|| panic!("no {after:?} in {text}"));
        tail.split(before)
            .next()
            .unwrap()
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{after:?}…{before:?} in {text}"))
    };
    // Three threads (main and two workers), a first run of k scheduling points: depth 3
    // would need over 1000 runs for a 95% bound, so depth 2 and the runs its bound asks.
    let chosen = explore("chosen", &[]);
    assert!(chosen.contains("strategy pct (depth 2)"), "{chosen}");
    assert!(chosen.contains("pct depth 2 (chosen), budget"), "{chosen}");
    assert!(
        chosen.contains("schedules (chosen), for 3 thread(s) and"),
        "{chosen}"
    );
    let k = number(&chosen, "thread(s) and ", " scheduling point(s)");
    let per_run = number(&chosen, "1/(n·k^(d-1)) = 1/", ";");
    assert_eq!(per_run, 3 * k, "{chosen}");
    let runs = number(&chosen, "explored ", " run(s)");
    let draws = number(&chosen, "the probability that all ", " pct runs");
    assert_eq!(draws, runs - 1, "{chosen}");
    let bound: f64 = chosen
        .split("missed it is at most ")
        .nth(1)
        .unwrap()
        .split('%')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let expected = 100.0 * (1.0 - 1.0 / per_run as f64).powf(draws as f64);
    assert!(
        (bound - expected).abs() < 0.06,
        "{bound} vs {expected}: {chosen}"
    );
    // Repeats are redrawn: fewer distinct schedules than runs, and the count says so.
    let distinct = number(&chosen, "run(s), ", " distinct");
    let redrawn = number(
        &chosen,
        "distinct schedule(s) (",
        " repeated draw(s) redrawn)",
    );
    assert_eq!(distinct + redrawn, runs, "{chosen}");

    // Given values are kept, and the budget is one of distinct schedules.
    let given = explore("given", &["--depth", "3", "--schedules", "40"]);
    assert!(
        given.contains("pct depth 3, budget 40 distinct schedules, for 3 thread(s)"),
        "{given}"
    );
    assert_eq!(number(&given, "run(s), ", " distinct"), 40, "{given}");
}
/// Explores the slow-once fixture (the run that creates its marker sleeps 1.5 s past a
/// 1 s limit, every other run is quick) at `interleave`: exit code, stdout, stderr.
fn explore_slow_first_run(interleave: &str) -> (Option<i32>, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("marker").display().to_string();
    let done = util::syncmut()
        .arg("explore")
        .arg(util::fixture("explore/slow_first_run.c"))
        .arg("-o")
        .arg(dir.path().join("out"))
        .args([
            "--strategy",
            "random",
            "--schedules",
            "3",
            "--timeout",
            "1",
            "--interleave",
            interleave,
            "--arg",
            &marker,
        ])
        .output()
        .unwrap();
    (
        done.status.code(),
        String::from_utf8_lossy(&done.stdout).into_owned(),
        String::from_utf8_lossy(&done.stderr).into_owned(),
    )
}

/// A run that outlives the timeout is run again under twice the limit before it is a
/// hang: at memory level the fixture's slow run times out, its second try is quick, so
/// explore reports no bug and says one run was slow. A program that really hangs is
/// still reported (tests/busywait.rs: a spin no thread ends).
#[test]
fn a_run_slow_only_once_is_not_a_hang() {
    let (code, stdout, stderr) = explore_slow_first_run("memory");
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(
        stdout.contains("no bug found") && !stdout.contains("hang"),
        "{stdout}"
    );
    // One run is slow by design; on a loaded machine a quick run may also pass 1 s.
    assert!(
        stderr.contains(
            " run(s) timed out under the limit of 1 s but ended when run again under 2× it"
        ),
        "{stderr}"
    );
}

/// At sync level a timeout is not confirmed: it is never reported there, it sends the
/// search to memory level (whose runs confirm theirs), so the slow run does that
/// at once, and the search there finds no bug.
#[test]
fn a_timeout_at_sync_level_goes_to_memory_level_unconfirmed() {
    let (code, stdout, stderr) = explore_slow_first_run("sync");
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    // Which run is the slow one depends on which lane creates the marker first.
    assert!(
        stderr.contains("did not end within the timeout at sync level")
            && stderr.contains("exploring again at memory level"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("ended when run again"),
        "the sync-level timeout was confirmed: {stderr}"
    );
    assert!(stdout.contains("no bug found"), "{stdout}");
}
