//! Small generated pthread programs, and the check that the strategies of `syncmut run`
//! agree on them: no mutant killed under the default budget, random or pct is one that
//! exhaustive dfs (within two preemptions) calls equivalent, and the original in place of
//! every mutant is never killed. Shared by tests/consistency.rs (a few programs) and benches/consistency.rs
//! (hundreds).
//!
//! A program has 2 or 3 threads (the suite's, 2), 1 or 2 mutexes, 2 or 3 shared counters and perhaps a
//! condition variable: each thread runs 1 to 3 critical sections, each updating counters
//! under the mutex that guards them (so the original has no data race), some nesting the
//! second mutex inside the first (always in that order, so it cannot deadlock); with a
//! condition variable, thread 0 first waits for a flag the last thread sets and signals.
//! The updates do not commute (`x = x * 2 + 1` against `x = x + 3`), so the printed
//! counters depend on the interleaving: the original has several outputs, as real
//! programs do, and a strategy that mistakes one of them for a mutant's is caught.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

/// A seeded stream (splitmix64): the same seed gives the same program everywhere.
struct Stream(u64);

impl Stream {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number from `low` to `high`, both included.
    fn between(&mut self, low: usize, high: usize) -> usize {
        low + (self.next() % (high - low + 1) as u64) as usize
    }
}

/// The C source of program `seed`, with 2 to `max_threads` threads.
pub fn program(seed: u64, max_threads: usize) -> String {
    let mut r = Stream(seed);
    let threads = r.between(2, max_threads);
    let locks = r.between(1, 2);
    let counters = r.between(2, 3);
    let cond = r.between(0, 2) == 0;
    let guard = |counter: usize| counter % locks;
    let mut c = String::from("#include <pthread.h>\n#include <stdio.h>\n\n");
    for l in 0..locks {
        writeln!(c, "pthread_mutex_t m{l} = PTHREAD_MUTEX_INITIALIZER;").unwrap();
    }
    if cond {
        c.push_str("pthread_cond_t ready_cv = PTHREAD_COND_INITIALIZER;\nint ready;\n");
    }
    for x in 0..counters {
        writeln!(c, "int x{x} = {};", x + 1).unwrap();
    }
    for t in 0..threads {
        writeln!(c, "\nstatic void *thread{t}(void *arg) {{\n    (void)arg;").unwrap();
        if cond && t == 0 {
            c.push_str("    pthread_mutex_lock(&m0);\n    while (!ready)\n        pthread_cond_wait(&ready_cv, &m0);\n    pthread_mutex_unlock(&m0);\n");
        }
        for _ in 0..r.between(1, 3) {
            let outer = r.between(0, locks - 1);
            let nested = locks == 2 && outer == 0 && r.between(0, 2) == 0;
            let held: Vec<usize> = if nested { vec![0, 1] } else { vec![outer] };
            for l in &held {
                writeln!(c, "    pthread_mutex_lock(&m{l});").unwrap();
            }
            let guarded: Vec<usize> = (0..counters)
                .filter(|x| held.contains(&guard(*x)))
                .collect();
            for _ in 0..r.between(1, 2) {
                let x = guarded[r.between(0, guarded.len() - 1)];
                let other = guarded[r.between(0, guarded.len() - 1)];
                let update = match r.between(0, 2) {
                    0 => format!("x{x} = x{x} * 2 + 1"),
                    1 => format!("x{x} = x{x} + {}", r.between(1, 5)),
                    _ => format!("x{x} = x{other} - x{x}"),
                };
                writeln!(c, "    {update};").unwrap();
            }
            for l in held.iter().rev() {
                writeln!(c, "    pthread_mutex_unlock(&m{l});").unwrap();
            }
        }
        if cond && t == threads - 1 {
            c.push_str("    pthread_mutex_lock(&m0);\n    ready = 1;\n    pthread_cond_signal(&ready_cv);\n    pthread_mutex_unlock(&m0);\n");
        }
        c.push_str("    return 0;\n}\n");
    }
    writeln!(c, "\nint main(void) {{\n    pthread_t t[{threads}];").unwrap();
    for t in 0..threads {
        writeln!(c, "    pthread_create(&t[{t}], 0, thread{t}, 0);").unwrap();
    }
    writeln!(
        c,
        "    for (int i = 0; i < {threads}; i++)\n        pthread_join(t[i], 0);"
    )
    .unwrap();
    let format: Vec<&str> = (0..counters).map(|_| "%d").collect();
    let args: Vec<String> = (0..counters).map(|x| format!("x{x}")).collect();
    writeln!(
        c,
        "    printf(\"{}\\n\", {});\n    return 0;\n}}",
        format.join(" "),
        args.join(", ")
    )
    .unwrap();
    c
}

/// The strategies whose kills exhaustive dfs checks, on the controlled schedules alone
/// (`--native 0`, in dfs too): with real threads a thread can be preempted between any
/// two instructions, and the lost updates that shows are true kills that dfs's
/// equivalence, within synchronization granularity, does not speak of. The self-check
/// keeps the defaults, real threads included. Random and pct stop at a mutant's first
/// kill: each schedule is judged on its own, so the mutants they kill are the same as
/// over all 30, and the kill fraction is not what is checked.
pub const SAMPLED: [(&str, &[&str]); 3] = [
    ("default budget", &["--native", "0"]),
    (
        "random",
        &[
            "--strategy",
            "random",
            "--schedules",
            "30",
            "--native",
            "0",
            "--stop-at-first-kill",
        ],
    ),
    (
        "pct",
        &[
            "--strategy",
            "pct",
            "--schedules",
            "30",
            "--native",
            "0",
            "--stop-at-first-kill",
        ],
    ),
];

/// dfs over every schedule with at most two preemptions, without reduction: it exhausts
/// these programs' spaces within its budget. One is too few: a thread that must finish
/// a critical section, be preempted at its next lock, and find the lock held by a
/// thread preempted inside its own needs two. Sleep sets are left out: under a bound
/// they skip schedules (DESIGN.md), on program 2 the one where a `lock-to-trylock`
/// mutant's trylock fails, and call equivalent a mutant the full search kills. A mutant
/// stops at its first kill: only `equivalent-exhaustive` is checked, and that verdict
/// still needs the whole space, while a mutant spinning to the livelock bound (a removed
/// condition wait) made each of its 2000 runs parse a long trace, minutes a program.
pub const DFS: [&str; 11] = [
    "--strategy",
    "dfs",
    "--preemptions",
    "2",
    "--por",
    "none",
    "--schedules",
    "2000",
    "--native",
    "0",
    "--stop-at-first-kill",
];

/// What one program showed.
#[derive(Debug, Default)]
pub struct Agreement {
    /// Mutants of the program.
    pub mutants: usize,
    /// Mutants some sampled strategy killed: dfs judged each of them.
    pub killed: usize,
    /// `mutant: equivalent under dfs, but strategy: verdict (reason)` for each kill of
    /// a mutant dfs calls equivalent.
    pub inconsistencies: Vec<String>,
    /// Inconsistencies whose mutant dfs within three preemptions does not call equivalent:
    /// the kill may lie beyond the bound of two.
    pub beyond_bound: usize,
    /// Of those, the ones dfs within three preemptions kills: the kill lies beyond the
    /// bound of two, and is no inconsistency.
    pub killed_within_3: usize,
    /// Kills of the original by itself (`--self-check` under the default budget).
    pub self_kills: u64,
    /// `mutant: verdict (reason)` of each of them: with real threads they rarely repeat.
    pub self_kill_reasons: Vec<String>,
}

/// `syncmut run` (the executable `syncmut`) on the program in `dir` (`prog.c` and its
/// `tests.json`) with `extra`; its outcomes.json.
pub fn run(syncmut: &Path, dir: &Path, name: &str, extra: &[&str]) -> serde_json::Value {
    let out = dir.join(name);
    let output = Command::new(syncmut)
        .arg("run")
        .arg(dir.join("prog.c"))
        .args(["--gen", "none", "--tests"])
        .arg(dir.join("tests.json"))
        .args(["-j", "2", "-o"])
        .arg(&out)
        .args(extra)
        .output()
        .expect("run syncmut");
    // A self-check that judged the original different from itself exits 11: its
    // outcomes are what the check counts.
    let self_killed = extra.contains(&"--self-check") && output.status.code() == Some(11);
    assert!(
        output.status.success() || self_killed,
        "{} {extra:?}: exit {:?}\n{}",
        dir.display(),
        output.status.code(),
        String::from_utf8_lossy(&output.stderr)
    );
    let text = std::fs::read(out.join("outcomes.json")).expect("outcomes.json");
    serde_json::from_slice(&text).expect("outcomes.json is JSON")
}

/// Each mutant's verdict and its reason.
fn verdicts(outcomes: &serde_json::Value) -> BTreeMap<String, (String, String)> {
    outcomes["mutants"]
        .as_array()
        .expect("mutants")
        .iter()
        .map(|m| {
            let text = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_string();
            (
                text(&m["mutant"]),
                (text(&m["verdict"]), text(&m["reason"])),
            )
        })
        .collect()
}

/// Writes program `seed` (2 to `max_threads` threads) under `dir` and checks every kill of the sampled strategies
/// with dfs, which runs on the killed mutants only (a kill ends a mutant's search, so
/// dfs is dear only where it disagrees).
pub fn check(syncmut: &Path, dir: &Path, seed: u64, max_threads: usize) -> Agreement {
    std::fs::create_dir_all(dir).expect("program directory");
    std::fs::write(dir.join("prog.c"), program(seed, max_threads)).expect("write prog.c");
    std::fs::write(dir.join("tests.json"), r#"{"tests":[{"name":"once"}]}"#)
        .expect("write tests.json");
    let mut kills: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut mutants = 0;
    for (name, extra) in SAMPLED {
        let sampled = verdicts(&run(syncmut, dir, &name.replace(' ', "-"), extra));
        mutants = sampled.len();
        for (mutant, (verdict, reason)) in sampled {
            if verdict.starts_with("killed") {
                kills
                    .entry(mutant)
                    .or_default()
                    .push(format!("{name}: {verdict} ({reason})"));
            }
        }
    }
    let mut agreement = Agreement {
        mutants,
        killed: kills.len(),
        ..Agreement::default()
    };
    if !kills.is_empty() {
        let ids: Vec<&str> = kills.keys().map(String::as_str).collect();
        let only = format!("^({})$", ids.join("|"));
        let dfs = verdicts(&run(
            syncmut,
            dir,
            "dfs",
            &[&DFS[..], &["--mutant", &only]].concat(),
        ));
        let equivalent: Vec<&String> = kills
            .keys()
            .filter(|m| dfs.get(*m).map(|(v, _)| v.as_str()) == Some("equivalent-exhaustive"))
            .collect();
        // Each is an inconsistency as it stands; dfs within three preemptions says
        // whether the kill lies beyond dfs's bound (random runs preempt far more often
        // than twice) or the mutant stays equivalent there too.
        let wider = match equivalent.is_empty() {
            true => BTreeMap::new(),
            false => {
                let ids: Vec<&str> = equivalent.iter().map(|m| m.as_str()).collect();
                let only = format!("^({})$", ids.join("|"));
                let mut args = DFS.to_vec();
                assert_eq!(args[2], "--preemptions");
                args[3] = "3";
                verdicts(&run(
                    syncmut,
                    dir,
                    "dfs-3",
                    &[&args[..], &["--mutant", &only]].concat(),
                ))
            }
        };
        for mutant in equivalent {
            let (verdict, _) = &wider[mutant];
            if verdict != "equivalent-exhaustive" {
                agreement.beyond_bound += 1;
            }
            if verdict.starts_with("killed") {
                agreement.killed_within_3 += 1;
            }
            agreement.inconsistencies.push(format!(
                "{mutant}: equivalent under dfs, but {}; within 3 preemptions dfs says {verdict}",
                kills[mutant].join(", ")
            ));
        }
    }
    let own = run(syncmut, dir, "self-check", &["--self-check"]);
    agreement.self_kills = own["score"]["killed"].as_u64().unwrap_or(u64::MAX);
    agreement.self_kill_reasons = verdicts(&own)
        .into_iter()
        .filter(|(_, (verdict, _))| verdict.starts_with("killed"))
        .map(|(mutant, (verdict, reason))| format!("{mutant}: {verdict} ({reason})"))
        .collect();
    agreement
}
