//! Benchmark: rendering the counterexample of a long run. Two threads that each wait,
//! taking and releasing a mutex, for the other to finish first (a livelock under every
//! schedule) are explored at memory level with one random schedule; the run ends at the
//! step bound with about as many choice points and tens of thousands of trace events,
//! and `render_counterexample` reads every choice against the trace. Run:
//! `cargo bench -p syncmut-oracle --bench counterexample`.
//!
//! `STEPS` (default 1,000,000) is the step bound, `REPEATS` (default 3) how many times
//! the rendering is timed (the median is printed).

mod util;

use std::time::{Duration, Instant};
use syncmut_mutator::interleave::Interleave;
use syncmut_mutator::{metamutant, Design};
use syncmut_oracle::explore::{self, ExploreSettings};
use syncmut_oracle::schedules::Strategy;
use syncmut_runner::exec::Limits;
use syncmut_runner::Invocation;
use util::{median, setting};

const PROGRAM: &str = r#"#include <pthread.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int done1, done2, retries1, retries2;

void *thr1(void *_)
{
    for (;;) {
        pthread_mutex_lock(&m);
        int other = done2;
        retries1++;
        pthread_mutex_unlock(&m);
        if (other)
            break;
    }
    done1 = 1;
    return 0;
}

void *thr2(void *_)
{
    for (;;) {
        pthread_mutex_lock(&m);
        int other = done1;
        retries2++;
        pthread_mutex_unlock(&m);
        if (other)
            break;
    }
    done2 = 1;
    return 0;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, 0, thr1, 0);
    pthread_create(&b, 0, thr2, 0);
    pthread_join(a, 0);
    pthread_join(b, 0);
    return 0;
}
"#;

fn main() {
    let steps = setting("STEPS", 1_000_000) as u64;
    let repeats = setting("REPEATS", 3).max(1);
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("mutex_livelock.c");
    std::fs::write(&source, PROGRAM).unwrap();
    let design = Design::from_paths(&[source], &[]).unwrap();
    let build = metamutant::build_with(
        &design,
        &dir.path().join("build"),
        &metamutant::Options {
            interleave: Interleave::Memory,
            races: false,
        },
    )
    .expect("build");
    let program = Invocation {
        active: Some(String::new()),
        limits: Limits {
            timeout: Duration::from_secs(120),
            ..Limits::default()
        },
        ..Invocation::new(&build.metamutant, &[])
    };
    let config = ExploreSettings {
        strategy: Strategy::Random,
        schedules: 1,
        max_steps: steps,
        ..ExploreSettings::default()
    };
    let started = Instant::now();
    let report = explore::explore(&program, &config, &dir.path().join("work")).expect("explore");
    let run = started.elapsed();
    let found = report.found.expect("the livelock is found");
    let mut times = Vec::new();
    let mut bytes = 0;
    for _ in 0..repeats {
        let started = Instant::now();
        bytes = explore::render_counterexample(&build.catalogue, &found).len();
        times.push(started.elapsed().as_secs_f64());
    }
    println!(
        "{}: {} choice points, {} trace events{}; the run and reading its files {:.1} s; rendering {:.3} s (median of {repeats}), {bytes} bytes",
        found.kind,
        found.schedule.choices.len(),
        found.trace.events.len(),
        if found.trace.truncated { " (truncated)" } else { "" },
        run.as_secs_f64(),
        median(times),
    );
}
