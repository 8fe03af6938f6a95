//! `syncmut run`'s verdicts under the scheduling strategies: a removed lock around a shared
//! counter killed under pct and dfs whatever -j, and the interleaving a build keeps.

mod util;

use std::path::Path;

/// `syncmut run` on the racy counter into `out` with `args`, race detection off (these
/// tests are about the lost update the schedules show); the removed lock's kill must
/// replay. Returns outcomes.json.
fn racy_counter_run(out: &Path, args: &[&str]) -> serde_json::Value {
    util::syncmut()
        .arg("run")
        .arg(util::fixture("verdicts/racy_counter"))
        .args(["--gen", "none", "--races=false", "-o"])
        .arg(out)
        .args(args)
        .assert()
        .success();
    util::syncmut()
        .arg("replay")
        .arg(out)
        .arg("adder#1:remove")
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "reproduced: the trace is identical",
        ));
    util::outcomes(out)
}

fn removed_lock(outcomes: &serde_json::Value) -> serde_json::Value {
    outcomes["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["mutant"] == "adder#1:remove")
        .unwrap()
        .clone()
}

/// `run` judges a removed lock around a shared counter across 20 seeded schedules: k/S
/// with a 95% interval, and the kill replays. Returns the mutant's outcome.
fn removed_lock_is_killed_in_some_of_20(
    strategy: &str,
    out: &Path,
    choice: &[&str],
) -> (serde_json::Value, serde_json::Value) {
    let outcomes = racy_counter_run(out, &[choice, &["--schedules", "20", "-j", "2"]].concat());
    let m = removed_lock(&outcomes);
    assert!(
        m["verdict"].as_str().unwrap().starts_with("killed"),
        "{strategy}: {m}"
    );
    let run = &m["runs"][0];
    assert_eq!(run["schedules"], 20);
    let kills = run["kills"].as_u64().unwrap();
    assert!((1..=20).contains(&kills), "{strategy}: {kills} of 20");
    assert!(
        m["reason"]
            .as_str()
            .unwrap()
            .contains(&format!("killed in {kills} of 20 schedules (95% CI")),
        "{m}"
    );
    assert!(run["schedule"]
        .as_str()
        .unwrap()
        .starts_with(&format!("{strategy}:")));
    (outcomes, m)
}

/// Under pct (few preemptions per run, so the original's bounded search can rule the
/// lost update out; random runs preempt too often for that, and leave it unproven: see
/// tests/schedules.rs) the kill is counted, its traces kept, and -j changes nothing.
#[test]
fn run_kills_a_removed_lock_under_pct_schedules() {
    let dir = tempfile::tempdir().unwrap();
    // Controlled schedules alone: runs with real threads do not repeat exactly.
    let pct = ["--strategy", "pct", "--native", "0"];
    let (outcomes, m) = removed_lock_is_killed_in_some_of_20("pct", &dir.path().join("pct"), &pct);
    assert_eq!(m["verdict"], "killed-by-output", "{m}");
    // The kill's traces were kept under the schedule's name, for diff and explain.
    let tag = m["runs"][0]["schedule"].as_str().unwrap().replace(':', "_");
    assert!(
        dir.path()
            .join("pct")
            .join(format!("traces/default/adder_1_remove@{tag}.jsonl"))
            .is_file(),
        "{tag}"
    );
    assert!(dir.path().join("pct/diff/adder_1_remove.diff").is_file());
    // The verdicts do not depend on -j. Once is enough: seeded schedule values are fixed
    // before any run, so -j cannot change which run gets which.
    let again = racy_counter_run(
        &dir.path().join("pct-again"),
        &[&pct[..], &["--schedules", "20", "-j", "1"]].concat(),
    );
    assert_eq!(
        util::verdicts_and_reasons(&outcomes),
        util::verdicts_and_reasons(&again),
        "a repeated run with -j1 differs"
    );
}

/// Under dfs with a small bound the kill is "exhaustive", and the verdicts do not
/// depend on -j (controlled schedules alone: runs with real threads do not repeat).
#[test]
fn run_kills_a_removed_lock_exhaustively_under_dfs() {
    let dir = tempfile::tempdir().unwrap();
    let dfs = ["--strategy", "dfs", "--preemptions", "1", "--native", "0"];
    let one = racy_counter_run(&dir.path().join("dfs1"), &[&dfs[..], &["-j", "1"]].concat());
    let two = racy_counter_run(&dir.path().join("dfs2"), &[&dfs[..], &["-j", "2"]].concat());
    assert_eq!(
        util::verdicts_and_reasons(&one),
        util::verdicts_and_reasons(&two),
        "-j1 and -j2 differ"
    );
    let m = removed_lock(&one);
    assert!(m["verdict"].as_str().unwrap().starts_with("killed"), "{m}");
    assert_eq!(m["runs"][0]["exhaustive"], true);
    assert!(
        m["reason"]
            .as_str()
            .unwrap()
            .contains("(exhaustive: every schedule with at most 1 preemptions"),
        "{m}"
    );
    assert!(m["runs"][0]["schedule"]
        .as_str()
        .unwrap()
        .starts_with("dfs:"));
    // The log lock is only ever taken inside `m`, so it orders nothing: without it every
    // schedule still shows exactly the original's behaviours. Such a mutant is equivalent
    // within the bound and leaves the score's denominator; so are the region mutants of
    // the log lock and taking the two locks in the other order (the counter is
    // written before the next scheduling point after the log lock's release).
    for id in [
        "adder#2:remove",
        "adder#2:lock-to-trylock",
        "adder#2:remove-lock-pair",
        "adder#2:widen-critical-section",
        "adder#4:shrink-critical-section",
        "adder#1:swap-lock-order",
    ] {
        let m = one["mutants"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["mutant"] == id)
            .unwrap();
        assert_eq!(m["verdict"], "equivalent-exhaustive", "{m}");
        assert!(
            m["reason"]
                .as_str()
                .unwrap()
                .starts_with("equivalent (exhaustive): on each of "),
            "{m}"
        );
    }
    let score = &one["score"];
    assert_eq!(
        (score["mutants"].as_u64(), score["equivalent"].as_u64()),
        (Some(14), Some(6))
    );
    let killed = score["killed"].as_f64().unwrap();
    assert!(
        (score["percent"].as_f64().unwrap() - 100.0 * killed / 8.0).abs() < 1e-9,
        "{score}"
    );
    // The kill's trace, copied from the search's binary one, is kept as JSON Lines.
    util::assert_jsonl_names_only_json(&dir.path().join("dfs1"));
}

/// The interleaving is part of the build: recorded in mutants.json, kept by `--resume`
/// when no flag names one, and a different one is refused.
#[test]
fn resume_keeps_the_interleaving_it_was_built_with() {
    let fixture = util::fixture("verdicts/racy_counter");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let syncmut = |args: &[&str]| {
        util::syncmut()
            .arg("run")
            .arg(&fixture)
            .args(["--gen", "none", "-o"])
            .arg(&out)
            .args(args)
            .assert()
    };
    syncmut(&["--interleave", "memory", "--schedules", "5"]).success();
    let catalogue: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("mutants.json")).unwrap()).unwrap();
    assert_eq!(catalogue["interleave"], "memory");
    syncmut(&["--resume", "--schedules", "5"]).success();
    let catalogue: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("mutants.json")).unwrap()).unwrap();
    assert_eq!(catalogue["interleave"], "memory");
    syncmut(&["--resume", "--interleave", "sync", "--schedules", "5"])
        .code(2)
        .stderr(predicates::str::contains("built with --interleave memory"));
    // Refused before anything was rebuilt.
    let catalogue: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("mutants.json")).unwrap()).unwrap();
    assert_eq!(catalogue["interleave"], "memory");
}

/// `--stop-at-first-kill` ends a pair at its first kill under a named strategy too: dfs
/// leaves the rest of its space and pct its other schedules unrun, and the reason names
/// the killing schedule (the kill still replays); a mutant without a kill still runs
/// dfs's whole space and stays `equivalent-exhaustive`. The run directory records the
/// setting, so a resumed run keeps it.
#[test]
fn stop_at_first_kill_ends_dfs_and_pct_at_the_kill() {
    let dir = tempfile::tempdir().unwrap();
    let only = ["--mutant", "^adder#(1|2):remove$", "--native", "0"];
    let full = racy_counter_run(
        &dir.path().join("full"),
        &[&only[..], &["--strategy", "dfs", "--preemptions", "1"]].concat(),
    );
    let dfs = racy_counter_run(
        &dir.path().join("dfs"),
        &[
            &only[..],
            &[
                "--strategy",
                "dfs",
                "--preemptions",
                "1",
                "--stop-at-first-kill",
            ],
        ]
        .concat(),
    );
    let (all, first) = (
        &removed_lock(&full)["runs"][0],
        &removed_lock(&dfs)["runs"][0],
    );
    // Without the option dfs counts more than one kill over its whole space.
    assert!(all["kills"].as_u64().unwrap() > 1, "{all}");
    assert_eq!(first["kills"], 1, "{first}");
    let tag = first["schedule"].as_str().unwrap();
    assert_eq!(
        tag,
        all["schedule"].as_str().unwrap(),
        "the same first kill"
    );
    let n = tag.strip_prefix("dfs:").unwrap();
    assert_eq!(first["schedules"].to_string(), n, "{first}");
    assert_ne!(first["exhaustive"], true, "{first}");
    let reason = first["reason"].as_str().unwrap();
    assert!(
        reason.contains(&format!("found by schedule {tag}, the ")),
        "{reason}"
    );
    assert!(!reason.contains("killed in"), "{reason}");
    for outcomes in [&full, &dfs] {
        let m = outcomes["mutants"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["mutant"] == "adder#2:remove")
            .unwrap();
        assert_eq!(m["verdict"], "equivalent-exhaustive", "{m}");
    }
    let settings: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("dfs/settings.json")).unwrap())
            .unwrap();
    assert_eq!(settings["stop_at_first_kill"], true, "{settings}");

    let pct = racy_counter_run(
        &dir.path().join("pct"),
        &[
            &only[..],
            &[
                "--strategy",
                "pct",
                "--schedules",
                "20",
                "--stop-at-first-kill",
            ],
        ]
        .concat(),
    );
    let m = removed_lock(&pct);
    let run = &m["runs"][0];
    assert_eq!(run["kills"], 1, "{m}");
    assert!(run["schedules"].as_u64().unwrap() < 20, "{m}");
    let reason = m["reason"].as_str().unwrap();
    assert!(reason.contains("found by schedule pct:"), "{reason}");
}
