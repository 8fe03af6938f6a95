//! The progress of `run` in a log (stderr not a terminal): sparse lines with runs done
//! over the estimated total and the time left, a total that kills lower instead of
//! counting skipped runs as done, and a last line whose count is the runs executed; the
//! original's searches say how far they have come.
//! Nothing of it on stdout.

mod util;

use std::time::Instant;
use util::{fixture, syncmut};

/// `about 45s left`, `about 1m05s left`, `about 2h03m left`.
fn has_time_left(line: &str) -> bool {
    line.split(", ").any(|part| {
        part.strip_prefix("about ")
            .and_then(|p| p.strip_suffix(" left"))
            .is_some_and(|t| {
                t.ends_with(['s', 'm'])
                    && t[..t.len() - 1].chars().all(|c| c.is_ascii_alphanumeric())
            })
    })
}

/// `NAME: DONE/TOTAL UNIT done…` as (done, total).
fn counts(line: &str, name: &str) -> Option<(u64, u64)> {
    let rest = line.strip_prefix(&format!("syncmut: {name}: "))?;
    let (done, rest) = rest.split_once('/')?;
    let total = rest.split(' ').next()?;
    Some((done.parse().ok()?, total.parse().ok()?))
}

#[test]
fn a_log_shows_runs_done_over_an_estimate_that_kills_lower() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let started = Instant::now();
    let output = syncmut()
        .arg("run")
        .arg(fixture("progress/handoff.c"))
        .args(["--gen", "none", "--tests"])
        .arg(fixture("progress/tests.json"))
        .args(["-j", "2", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    let seconds = started.elapsed().as_secs();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stderr}");
    assert!(!stdout.contains(" done"), "progress on stdout: {stdout}");

    let baseline: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("syncmut: baseline: "))
        .collect();
    assert!(
        baseline.iter().any(
            |l| counts(l, "baseline").is_some_and(|(d, t)| d >= 1 && t == 3) && has_time_left(l)
        ),
        "{stderr}"
    );
    assert!(
        baseline
            .last()
            .is_some_and(|l| l.starts_with("syncmut: baseline: 3 tests done in ")),
        "{stderr}"
    );

    let mutants: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("syncmut: mutants: "))
        .collect();
    // The first line comes with the first estimate, before any kill lowered the total.
    let first = mutants.first().copied().unwrap_or_default();
    let (_, estimated) = counts(first, "mutants").unwrap_or_else(|| panic!("{stderr}"));
    assert!(has_time_left(first), "{first}");
    // A line at most every few seconds, plus the first and the last.
    assert!(mutants.len() as u64 <= 2 + seconds / 5, "{stderr}");

    let outcomes = util::outcomes(&out);
    let executed: u64 = outcomes["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["runs"].as_array().map_or(0, |r| r.len() as u64))
        .sum();
    let last = mutants.last().copied().unwrap_or_default();
    let rest = last
        .strip_prefix(&format!("syncmut: mutants: {executed} runs done in "))
        .unwrap_or_else(|| panic!("{executed} runs executed: {stderr}"));
    let skipped: u64 = rest
        .split_once(", ")
        .and_then(|(_, s)| s.strip_suffix(" skipped after kills"))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no run skipped: {last}"));
    assert!(skipped > 0, "{last}");
    assert_eq!(executed + skipped, estimated, "{stderr}");
}

/// The first line of `phase` in the log of `syncmut run named_depth` with `args`.
fn first_line(args: &[&str], phase: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let output = syncmut()
        .arg("run")
        .arg(util::example("pthread/named_depth"))
        .args(["--native", "0", "-j", "1"])
        .args(args)
        .arg("-o")
        .arg(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let prefix = format!("syncmut: {phase}: ");
    stderr
        .lines()
        .find(|l| l.starts_with(&prefix))
        .unwrap_or_else(|| panic!("no {phase} line: {stderr}"))
        .to_string()
}

/// A search of the original says how far it has come, a first report at once: in the
/// mutant phase, where the only mutant's first run needs one (it has 76 runs), before
/// any run is done; in the baseline, the original's own search under `--strategy dfs`,
/// before any test is done.
#[test]
fn a_log_shows_the_original_search_under_way() {
    assert_eq!(
        first_line(&["--mutant", "^consumer#2:remove$"], "mutants"),
        "syncmut: mutants: the original's search within 2 preemptions on wp0_burst1_depth12: run 1 of at most 600"
    );
    assert_eq!(
        first_line(&["--strategy", "dfs", "--mutant", "^main#3:remove$"], "baseline"),
        "syncmut: baseline: the original's search within 2 preemptions on shallow: run 1 of at most 1000"
    );
}
