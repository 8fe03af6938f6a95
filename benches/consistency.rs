//! Benchmark: the strategies of `syncmut run` against exhaustive dfs on generated small
//! pthread programs (tests/util/consistency.rs). Per program: mutants, those a sampled
//! strategy killed (each checked by dfs), inconsistencies (a kill under the default
//! budget, random or pct of a mutant dfs calls equivalent) and the original's kills of
//! itself; then the totals. Both must be 0.
//!
//! Run: `cargo bench --bench consistency`. Knobs (environment): `CONSISTENCY_PROGRAMS`
//! (how many, default 200), `CONSISTENCY_FIRST` (the first seed, default 0),
//! `CONSISTENCY_THREADS` (at most this many threads a program, 2 or 3, default 3),
//! `CONSISTENCY_PARALLEL` (programs checked at a time, default 1; rows then come in the
//! order programs finish), `CONSISTENCY_SYNCMUT` (the syncmut executable to check,
//! default the one built here: a copy keeps a long run on one build while the target
//! directory is rebuilt).

#[path = "../tests/util/consistency.rs"]
mod consistency;

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

fn main() {
    let env = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let programs = env("CONSISTENCY_PROGRAMS", 200);
    let first = env("CONSISTENCY_FIRST", 0);
    let threads = env("CONSISTENCY_THREADS", 3) as usize;
    let parallel = env("CONSISTENCY_PARALLEL", 1).max(1);
    let syncmut = std::env::var_os("CONSISTENCY_SYNCMUT")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_syncmut")));
    let work = tempfile::tempdir().expect("temporary directory");
    let started = std::time::Instant::now();
    let next = AtomicU64::new(first);
    let totals = Mutex::new(Totals::default());
    println!("| seed | mutants | killed (checked by dfs) | inconsistencies | self-kills | s |");
    println!("|---|---|---|---|---|---|");
    std::thread::scope(|scope| {
        for _ in 0..parallel {
            scope.spawn(|| loop {
                let seed = next.fetch_add(1, Ordering::SeqCst);
                if seed >= first + programs {
                    break;
                }
                let dir = work.path().join(seed.to_string());
                let start = std::time::Instant::now();
                // A failed run of syncmut is a finding too: said, counted, and the other
                // programs still checked.
                let checked =
                    std::panic::catch_unwind(|| consistency::check(&syncmut, &dir, seed, threads));
                let seconds = start.elapsed().as_secs_f64();
                let mut totals = totals.lock().unwrap();
                match &checked {
                    Ok(a) => {
                        println!(
                            "| {seed} | {} | {} | {} | {} | {seconds:.1} |",
                            a.mutants,
                            a.killed,
                            a.inconsistencies.len(),
                            a.self_kills
                        );
                        for line in &a.inconsistencies {
                            println!("  inconsistent: {line}");
                        }
                        for line in &a.self_kill_reasons {
                            println!("  self-kill: {line}");
                        }
                        totals.mutants += a.mutants;
                        totals.killed += a.killed;
                        totals.inconsistent += a.inconsistencies.len();
                        totals.beyond_bound += a.beyond_bound;
                        totals.killed_within_3 += a.killed_within_3;
                        totals.self_kills += a.self_kills;
                    }
                    Err(_) => {
                        println!("| {seed} | failed (above) | | | | {seconds:.1} |");
                        totals.failed += 1;
                    }
                }
                // A program without findings is not looked at again (its seed gives it back).
                if matches!(&checked, Ok(a) if a.inconsistencies.is_empty() && a.self_kills == 0) {
                    let _ = std::fs::remove_dir_all(&dir);
                }
            });
        }
    });
    let t = totals.into_inner().unwrap();
    if t.inconsistent > 0 || t.self_kills > 0 || t.failed > 0 {
        // The run directories of the programs with findings, for a look at the reasons.
        println!("kept: {}", work.keep().display());
    }
    println!(
        "{programs} programs ({parallel} at a time), {} mutants, {} killed and checked by dfs: {} inconsistencies ({} of them not equivalent within 3 preemptions, {} of those killed there), {} self-kills, {} failed, {} s",
        t.mutants,
        t.killed,
        t.inconsistent,
        t.beyond_bound,
        t.killed_within_3,
        t.self_kills,
        t.failed,
        started.elapsed().as_secs()
    );
}

/// The counts over every program checked.
#[derive(Default)]
struct Totals {
    mutants: usize,
    killed: usize,
    inconsistent: usize,
    beyond_bound: usize,
    killed_within_3: usize,
    self_kills: u64,
    failed: usize,
}
