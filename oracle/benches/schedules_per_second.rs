//! Benchmark: schedules per second of `explore`'s searches on small programs, by plain
//! exec one run at a time (how every schedule was started before the fork server), with
//! the fork server one run at a time, and with the fork server on several lanes
//! (`explore -j`), measured side by side in one process (the three alternate, A B C A B
//! C, and each figure is the median of the rounds), then where the time of one schedule
//! goes. Run: `cargo bench -p syncmut-oracle --bench schedules_per_second`.
//!
//! `SCHEDULES` (default 150) runs per search, `ROUNDS` (default 3) rounds and `LANES`
//! (default: the number of cores) can be set in the environment.

mod util;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use syncmut_mutator::interleave::Interleave;
use syncmut_mutator::{metamutant, Design};
use syncmut_oracle::explore::{self, ExploreSettings};
use syncmut_oracle::schedules::Strategy;
use syncmut_runner::exec::{execute, Limits};
use syncmut_runner::Invocation;
use syncmut_runtime::{schedule, trace};
use util::{cpu, median, root, setting};

/// (program, interleaving it is explored at)
const PROGRAMS: &[(&str, Interleave)] = &[
    ("tests/corpus/busywait/peterson.c", Interleave::Memory),
    ("tests/corpus/busywait/ticket_lock.c", Interleave::Memory),
    ("examples/c11/bugs/lock_order.c", Interleave::Sync),
    ("examples/pthread/bugs/lock_order_ok.c", Interleave::Sync),
    (
        "examples/pthread/bugs/check_then_act_ok.c",
        Interleave::Sync,
    ),
    (
        "tests/fixtures/verdicts/racy_counter/racy_counter.c",
        Interleave::Sync,
    ),
];

fn program(binary: &Path) -> Invocation {
    Invocation {
        active: Some(String::new()),
        limits: Limits {
            timeout: Duration::from_secs(10),
            ..Limits::default()
        },
        ..Invocation::new(binary, &[])
    }
}

/// Schedules per second of a random search of `schedules` runs (none stops it).
fn search(binary: &Path, schedules: usize, fork_server: bool, lanes: usize, work: &Path) -> f64 {
    let config = ExploreSettings {
        strategy: Strategy::Random,
        schedules,
        fork_server,
        lanes,
        ..ExploreSettings::default()
    };
    let started = Instant::now();
    let found = explore::search(&program(binary), &config, work, &mut |_| false).expect("search");
    assert_eq!(
        found.exec_fallback.is_none(),
        fork_server,
        "{}: {:?}",
        binary.display(),
        found.exec_fallback
    );
    found.runs as f64 / started.elapsed().as_secs_f64()
}

/// Median wall microseconds per call of `f` over `n` calls, and mean CPU microseconds
/// (this process and every process it started and reaped, `finish` included).
fn micros(n: usize, mut f: impl FnMut(), finish: impl FnOnce()) -> (f64, f64) {
    let before = cpu();
    let wall = median(
        (0..n)
            .map(|_| {
                let started = Instant::now();
                f();
                started.elapsed().as_secs_f64() * 1e6
            })
            .collect(),
    );
    finish();
    (wall, (cpu() - before) * 1e6 / n as f64)
}

fn main() {
    let schedules = setting("SCHEDULES", 150);
    let rounds = setting("ROUNDS", 3);
    let dir = tempfile::tempdir().unwrap();
    let mut binaries = Vec::new();
    for (i, (source, interleave)) in PROGRAMS.iter().enumerate() {
        let design = Design::from_paths(&[root().join(source)], &[]).unwrap();
        let out = dir.path().join(i.to_string());
        let build = metamutant::build_with(
            &design,
            &out,
            &metamutant::Options {
                interleave: *interleave,
                races: false,
            },
        )
        .expect("build");
        binaries.push((source, build.metamutant, out));
    }

    let lanes = setting(
        "LANES",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
    );
    println!("schedules per second, random strategy, {schedules} schedules a search, median of {rounds} rounds (the three ways alternate)");
    println!(
        "{:<52} {:>8} {:>12} {:>7} {:>14} {:>7}",
        "program",
        "exec",
        "fork server",
        "ratio",
        format!("{lanes} lanes"),
        "ratio"
    );
    let (mut ratios, mut lane_ratios) = (Vec::new(), Vec::new());
    for (source, binary, out) in &binaries {
        let (mut execd, mut served, mut laned) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..rounds {
            execd.push(search(binary, schedules, false, 1, &out.join("execd")));
            served.push(search(binary, schedules, true, 1, &out.join("served")));
            laned.push(search(binary, schedules, true, lanes, &out.join("laned")));
        }
        let (e, s, l) = (median(execd), median(served), median(laned));
        ratios.push(s / e);
        lane_ratios.push(l / e);
        println!(
            "{source:<52} {e:>8.0} {s:>12.0} {:>6.1}x {l:>14.0} {:>6.1}x",
            s / e,
            l / e
        );
    }
    println!(
        "{:<52} {:>28.1}x {:>21.1}x",
        "median ratio to exec",
        median(ratios),
        median(lane_ratios)
    );

    // Where one schedule's time goes, on the first program, each step adding one thing.
    let (source, binary, out) = &binaries[0];
    let n = schedules;
    println!("\nwhere one schedule's time goes ({source}; median µs of {n} runs each)");
    let c = |name: &str, flags: &[&str]| -> PathBuf {
        let src = dir.path().join("empty.c");
        std::fs::write(&src, "int main(void) { return 0; }\n").unwrap();
        let exe = dir.path().join(name);
        let status = std::process::Command::new("clang-16")
            .arg(&src)
            .arg("-o")
            .arg(&exe)
            .args(flags)
            .status()
            .expect("clang-16");
        assert!(status.success());
        exe
    };
    let empty = c("empty", &[]);
    let empty_cxx = c("empty_cxx", &["-Wl,--no-as-needed", "-lstdc++", "-lm"]);
    let limits = Limits::default();
    let exec_empty = micros(
        n,
        || drop(execute(&empty, &[], &[], &limits).unwrap()),
        || (),
    );
    let exec_cxx = micros(
        n,
        || drop(execute(&empty_cxx, &[], &[], &limits).unwrap()),
        || (),
    );
    let native = micros(n, || drop(program(binary).run().unwrap()), || ());
    let work = out.join("steps");
    std::fs::create_dir_all(&work).unwrap();
    let mut k = 0;
    let files = |k: usize| Invocation {
        schedule: Some(format!("random:{k}")),
        schedule_out: Some(work.join("run.schedule")),
        trace: Some(work.join(trace::binary_name("run"))),
        max_steps: Some(1_000_000),
        ..program(binary)
    };
    let scheduled = micros(
        n,
        || {
            k += 1;
            drop(
                Invocation {
                    schedule_out: None,
                    trace: None,
                    ..files(k)
                }
                .run()
                .unwrap(),
            )
        },
        || (),
    );
    let recorded = micros(
        n,
        || {
            k += 1;
            drop(files(k).run().unwrap())
        },
        || (),
    );
    let parse = micros(
        n,
        || {
            let text = std::fs::read_to_string(work.join("run.schedule")).unwrap();
            schedule::parse(&text).unwrap();
            trace::read(&work.join(trace::binary_name("run"))).unwrap();
        },
        || (),
    );
    // The forked runs' CPU time reaches this process when the server is reaped (its drop).
    let server = std::cell::RefCell::new(Some(syncmut_runner::fork_server::ForkServer::new()));
    let forked = micros(
        n,
        || {
            k += 1;
            drop(
                files(k)
                    .run_with(server.borrow_mut().as_mut().unwrap())
                    .unwrap(),
            )
        },
        || drop(server.borrow_mut().take()),
    );
    let rows = [
        (
            "exec of an empty C program (libc only), contained",
            exec_empty,
        ),
        (
            "exec of an empty C program linked with libstdc++ and libm",
            exec_cxx,
        ),
        (
            "the metamutant, native (runtime linked, no scheduler)",
            native,
        ),
        ("under the scheduler (random:k)", scheduled),
        ("+ writing its schedule file and binary trace", recorded),
        ("reading both back (Rust, in process)", parse),
        (
            "the same run as the one before last, forked by the fork server",
            forked,
        ),
    ];
    println!("{:<66} {:>10} {:>10}", "step", "wall µs", "CPU µs");
    for (name, (wall, cpu)) in rows {
        println!("{name:<66} {wall:>10.0} {cpu:>10.0}");
    }
}
