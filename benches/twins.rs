//! Benchmark: `syncmut explore` on every bad/correct twin (tests/corpus/twins and
//! tests/corpus/busywait), with each strategy (random, pct, dfs, rr, holdback and
//! explore's default, the mix) at both interleave settings. Per program and setting it
//! prints, per strategy, the run that first showed the bug (`-` not found; for a correct
//! twin `ok`, or `FALSE ALARM`), and the runs per second; then the totals: bad twins found, false alarms (must be 0).
//! It runs the `syncmut` executable as users do, so whatever `explore` does inside (a
//! fork server, partial-order reduction) is measured as it is.
//!
//! Run: `cargo bench --bench twins`. Knobs (environment): `TWINS_SCHEDULES` (budget per
//! search, default 1000, explore's own default), `TWINS_ONLY` (run only twins whose path
//! contains this text), `TWINS_STRATEGIES` (comma-separated subset of
//! `random,pct,dfs,rr,holdback,default`; `default` runs explore without `--strategy`),
//! `TWINS_INTERLEAVE` (`sync`, `memory` or both, the default).

#[path = "../tests/util/twins.rs"]
mod twins;

use std::path::PathBuf;
use twins::{Expect, TWINS};

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let syncmut = PathBuf::from(env!("CARGO_BIN_EXE_syncmut"));
    let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let schedules: usize = env("TWINS_SCHEDULES")
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let only = env("TWINS_ONLY");
    let strategies: Vec<String> = env("TWINS_STRATEGIES")
        .unwrap_or_else(|| "random,pct,dfs,rr,holdback,default".into())
        .split(',')
        .map(str::to_string)
        .collect();
    let settings: Vec<String> =
        env("TWINS_INTERLEAVE").map_or_else(|| vec!["sync".into(), "memory".into()], |v| vec![v]);
    let work = tempfile::tempdir().expect("temporary directory");

    println!("budget {schedules} schedules per search; cell: run that first showed the bug (- none) / runs per second");
    print!("| program | interleave |");
    for s in &strategies {
        print!(" {s} |");
    }
    println!();
    print!("|---|---|");
    for _ in &strategies {
        print!("---|");
    }
    println!();
    let (mut bad, mut found_by) = (0usize, vec![0usize; strategies.len()]);
    let mut found_by_any = 0usize;
    let mut false_alarms = Vec::new();
    let mut limits_missed = Vec::new();
    for twin in TWINS
        .iter()
        .filter(|t| only.as_ref().is_none_or(|o| t.path.contains(o.as_str())))
    {
        for interleave in &settings {
            print!("| {} | {interleave} |", twin.path);
            let mut any = false;
            for (i, strategy) in strategies.iter().enumerate() {
                let named = (strategy != "default").then_some(strategy.as_str());
                let out = work.path().join(format!(
                    "{}-{interleave}-{strategy}",
                    twin.path.replace('/', "-")
                ));
                let search =
                    twins::explore(&syncmut, &root, twin, named, interleave, schedules, &out);
                // Summaries print tenths of a second: a shorter search has no rate to show.
                let rate = if search.seconds >= 0.1 {
                    format!("{:.0}", search.runs as f64 / search.seconds)
                } else {
                    "-".to_string()
                };
                let cell = match twin.expect {
                    Expect::Bug => match search.found_at {
                        Some(run) if search.code == 9 => {
                            found_by[i] += 1;
                            any = true;
                            format!("{run}")
                        }
                        _ => "-".to_string(),
                    },
                    _ if search.false_alarm(twin.expect) => {
                        false_alarms.push(format!("{} {interleave} {strategy}", twin.path));
                        format!("FALSE ALARM (run {})", search.found_at.unwrap_or(0))
                    }
                    Expect::Bounded if search.as_expected(Expect::Bounded) => {
                        "thread bound".to_string()
                    }
                    Expect::Bounded => {
                        limits_missed.push(format!(
                            "{} {interleave} {strategy}: exit {}",
                            twin.path, search.code
                        ));
                        format!("exit {}", search.code)
                    }
                    Expect::Clean if search.as_expected(Expect::Clean) => "ok".to_string(),
                    Expect::Clean if search.code == 0 => "ok below the thread bound".to_string(),
                    Expect::Clean => format!("exit {}", search.code),
                };
                print!(" {cell} / {rate} |");
            }
            println!();
            if twin.expect == Expect::Bug {
                bad += 1;
                found_by_any += usize::from(any);
            }
        }
    }
    println!();
    for (i, s) in strategies.iter().enumerate() {
        println!("{s}: found {}/{bad} bad twin searches", found_by[i]);
    }
    println!("any strategy: {found_by_any}/{bad}");
    println!(
        "false alarms on correct twins: {}{}",
        false_alarms.len(),
        if false_alarms.is_empty() {
            String::new()
        } else {
            format!(" ({})", false_alarms.join("; "))
        }
    );
    if !limits_missed.is_empty() {
        println!(
            "thread-limit twins not reported as such: {}",
            limits_missed.join("; ")
        );
    }
}
