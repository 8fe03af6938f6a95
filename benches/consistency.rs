//! Benchmark: the strategies of `syncmut run` against exhaustive dfs on generated small
//! pthread programs (tests/util/consistency.rs). Per program: mutants, those a sampled
//! strategy killed (each checked by dfs), inconsistencies (a kill under the default
//! budget, random or pct of a mutant dfs calls equivalent) and the original's kills of
//! itself; then the totals. Both must be 0.
//!
//! Run: `cargo bench --bench consistency`. Knobs (environment): `CONSISTENCY_PROGRAMS`
//! (how many, default 200), `CONSISTENCY_FIRST` (the first seed, default 0),
//! `CONSISTENCY_THREADS` (at most this many threads a program, 2 or 3, default 3),
//! `CONSISTENCY_SYNCMUT` (the syncmut executable to check, default the one built here: a
//! copy keeps a long run on one build while the target directory is rebuilt).

#[path = "../tests/util/consistency.rs"]
mod consistency;

use std::path::PathBuf;

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
    let syncmut = std::env::var_os("CONSISTENCY_SYNCMUT")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_syncmut")));
    let work = tempfile::tempdir().expect("temporary directory");
    let started = std::time::Instant::now();
    let (mut mutants, mut killed, mut inconsistent, mut self_kills) = (0, 0, 0, 0);
    println!("| seed | mutants | killed (checked by dfs) | inconsistencies | self-kills |");
    println!("|---|---|---|---|---|");
    for seed in first..first + programs {
        let a = consistency::check(&syncmut, &work.path().join(seed.to_string()), seed, threads);
        println!(
            "| {seed} | {} | {} | {} | {} |",
            a.mutants,
            a.killed,
            a.inconsistencies.len(),
            a.self_kills
        );
        for line in &a.inconsistencies {
            println!("  inconsistent: {line}");
        }
        mutants += a.mutants;
        killed += a.killed;
        inconsistent += a.inconsistencies.len();
        self_kills += a.self_kills;
    }
    println!(
        "{programs} programs, {mutants} mutants, {killed} killed and checked by dfs: {inconsistent} inconsistencies, {self_kills} self-kills, {} s",
        started.elapsed().as_secs()
    );
}
