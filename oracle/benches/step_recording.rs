//! Benchmark: what recording the single-option run points (`# step` lines of the schedule
//! file, `SYNCMUT_RECORD_STEPS`) costs a served run. The same runs (`random:1..N`, so the
//! same interleavings) go through a fork server with the lines recorded (A) and without
//! (B), alternating A B A B in one process; each figure is the median of the rounds. A
//! run here is what explore does per schedule: the served run with its schedule file and
//! binary trace, then reading the schedule file back. Run:
//! `cargo bench -p syncmut-oracle --bench step_recording`.
//!
//! `RUNS` (default 200) runs per round and `ROUNDS` (default 5) can be set in the
//! environment.

mod util;

use std::path::Path;
use std::time::{Duration, Instant};
use syncmut_mutator::interleave::Interleave;
use syncmut_mutator::{metamutant, Design};
use syncmut_runner::exec::Limits;
use syncmut_runner::fork_server::ForkServer;
use syncmut_runner::Invocation;
use syncmut_runtime::{schedule, trace};
use util::{cpu, median, root, setting};

/// (program, interleaving it is explored at)
const PROGRAMS: &[(&str, Interleave)] = &[
    ("tests/corpus/busywait/peterson.c", Interleave::Memory),
    ("tests/corpus/busywait/ticket_lock.c", Interleave::Memory),
    ("examples/pthread/bugs/lock_order_ok.c", Interleave::Sync),
    (
        "tests/fixtures/verdicts/racy_counter/racy_counter.c",
        Interleave::Sync,
    ),
];

/// One round's figures, per run.
struct Round {
    cpu_us: f64,
    wall_us: f64,
    bytes: f64,
    lines: f64,
}

/// `runs` served runs `random:1..=runs` with the step lines recorded or not. The forked
/// runs' CPU time reaches this process when the server is reaped (its drop), so each
/// round has a server of its own.
fn round(binary: &Path, work: &Path, runs: usize, record_steps: bool) -> Round {
    let out = work.join("run.schedule");
    let before = cpu();
    let started = Instant::now();
    let mut server = ForkServer::new();
    let (mut bytes, mut lines) = (0usize, 0usize);
    for k in 1..=runs {
        let run = Invocation {
            active: Some(String::new()),
            schedule: Some(format!("random:{k}")),
            schedule_out: Some(out.clone()),
            record_steps: Some(record_steps),
            trace: Some(work.join(trace::binary_name("run"))),
            max_steps: Some(1_000_000),
            limits: Limits {
                timeout: Duration::from_secs(10),
                ..Limits::default()
            },
            ..Invocation::new(binary, &[])
        };
        run.run_with(&mut server).unwrap();
        let text = std::fs::read_to_string(&out).unwrap();
        schedule::parse(&text).unwrap();
        bytes += text.len();
        lines += text.lines().count();
    }
    assert!(
        server.fallback().is_none(),
        "{}: {:?}",
        binary.display(),
        server.fallback()
    );
    drop(server);
    let n = runs as f64;
    Round {
        cpu_us: (cpu() - before) * 1e6 / n,
        wall_us: started.elapsed().as_secs_f64() * 1e6 / n,
        bytes: bytes as f64 / n,
        lines: lines as f64 / n,
    }
}

fn main() {
    let runs = setting("RUNS", 200);
    let rounds = setting("ROUNDS", 5);
    let dir = tempfile::tempdir().unwrap();
    println!("served runs with `# step` lines recorded (A) and without (B), random:1..{runs}, median of {rounds} rounds A B A B");
    println!(
        "{:<52} {:>9} {:>9} {:>7} {:>9} {:>9} {:>10} {:>10} {:>7} {:>7}",
        "program",
        "A CPU µs",
        "B CPU µs",
        "B/A",
        "A wall µs",
        "B wall µs",
        "A bytes",
        "B bytes",
        "A lines",
        "B lines"
    );
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
        let work = out.join("work");
        std::fs::create_dir_all(&work).unwrap();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for _ in 0..rounds {
            a.push(round(&build.metamutant, &work, runs, true));
            b.push(round(&build.metamutant, &work, runs, false));
        }
        let m = |rounds: &[Round], f: fn(&Round) -> f64| median(rounds.iter().map(f).collect());
        let (ca, cb) = (m(&a, |r| r.cpu_us), m(&b, |r| r.cpu_us));
        println!(
            "{:<52} {ca:>9.0} {cb:>9.0} {:>7.3} {:>9.0} {:>9.0} {:>10.0} {:>10.0} {:>7.0} {:>7.0}",
            format!("{source} ({interleave:?})"),
            cb / ca,
            m(&a, |r| r.wall_us),
            m(&b, |r| r.wall_us),
            m(&a, |r| r.bytes),
            m(&b, |r| r.bytes),
            m(&a, |r| r.lines),
            m(&b, |r| r.lines),
        );
    }
}
