//! Benchmark: bug finding on the corpus (examples/pthread/bugs). Per program, in one
//! process on one machine: how many of 100 plain native executions show the bug, against
//! 100 runs of each strategy (random, pct depth 3, dfs with a preemption bound of 2 and
//! sleep sets), the run that first shows it, and runs per second; then the sleep sets'
//! reduction (dfs schedules needed to exhaust each correct twin's bounded space, with
//! and without). Run: `cargo bench -p syncmut-oracle --bench exploration`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use syncmut_mutator::interleave::Interleave;
use syncmut_mutator::{metamutant, Design};
use syncmut_oracle::explore::{self, ExploreSettings};
use syncmut_oracle::schedules::{Por, Strategy, UNBOUNDED};
use syncmut_runner::exec::{execute, Limits, Status};
use syncmut_runner::Invocation;

const RUNS: usize = 100;

/// (program, interleaving it needs)
const CORPUS: &[(&str, Interleave)] = &[
    ("lock_order", Interleave::Sync),
    ("lost_signal", Interleave::Sync),
    ("check_then_act", Interleave::Sync),
    ("order_violation", Interleave::Sync),
    ("self_deadlock", Interleave::Sync),
    ("double_unlock", Interleave::Sync),
    ("missing_join", Interleave::Sync),
    ("barrier_mismatch", Interleave::Sync),
    ("missing_recheck", Interleave::Sync),
    ("sem_overpost", Interleave::Sync),
    ("counter_race", Interleave::Memory),
    ("rw_starvation", Interleave::Sync),
];

fn build(source: &Path, out: &Path, interleave: Interleave) -> metamutant::Build {
    let design = Design::from_paths(&[source.to_path_buf()], &[]).unwrap();
    metamutant::build_with(
        &design,
        out,
        &metamutant::Options {
            interleave,
            races: false,
        },
    )
    .expect("build")
}

/// Bugs among `RUNS` native executions (the OS schedules; a deadlock is a hang, stopped
/// by the short timeout), the first one, and runs per second.
fn native(binary: &Path) -> (usize, Option<usize>, f64) {
    let limits = Limits {
        timeout: Duration::from_millis(300),
        ..Limits::default()
    };
    let (mut bugs, mut first) = (0, None);
    let started = Instant::now();
    for run in 1..=RUNS {
        let e = execute(binary, &[], &[], &limits).unwrap();
        if !matches!(e.status, Status::Exited(0)) {
            bugs += 1;
            first.get_or_insert(run);
        }
    }
    (bugs, first, RUNS as f64 / started.elapsed().as_secs_f64())
}

/// Bugs among (at most) `RUNS` runs of a strategy, the first one, runs made, runs/s.
fn strategy(binary: &Path, strategy: Strategy, work: &Path) -> (usize, Option<usize>, usize, f64) {
    let config = ExploreSettings {
        strategy,
        schedules: RUNS,
        ..ExploreSettings::default()
    };
    let program = Invocation {
        active: Some(String::new()),
        limits: Limits {
            timeout: Duration::from_secs(5),
            ..Limits::default()
        },
        ..Invocation::new(binary, &[])
    };
    let (mut bugs, mut first) = (0, None);
    let started = Instant::now();
    let search = explore::search(&program, &config, work, &mut |visit| {
        if explore::classify(visit.execution, visit.trace).is_some() {
            bugs += 1;
            first.get_or_insert(visit.run);
        }
        false
    })
    .unwrap();
    (
        bugs,
        first,
        search.runs,
        search.runs as f64 / started.elapsed().as_secs_f64(),
    )
}

fn cell(bugs: usize, first: Option<usize>, runs: usize) -> String {
    format!(
        "{bugs:>3}/{runs:<3} #{:<4}",
        first.map(|f| f.to_string()).unwrap_or_else(|| "-".into())
    )
}

fn main() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/pthread/bugs");
    let tmp = tempfile::tempdir().unwrap();
    println!("bugs found in {RUNS} runs (bugs/runs, #first run with the bug), runs per second");
    println!(
        "{:<17} {:<15} {:<15} {:<15} {:<15}  runs/s native random pct dfs",
        "program", "native", "random", "pct (d=3)", "dfs (k=2)"
    );
    let mut twins = Vec::new();
    for (name, interleave) in CORPUS {
        let out = tmp.path().join(name);
        let b = build(&dir.join(format!("{name}.c")), &out, *interleave);
        let (nb, nf, nrate) = native(&b.original);
        let mut cells = vec![cell(nb, nf, RUNS)];
        let mut rates = vec![nrate];
        for s in [
            Strategy::Random,
            Strategy::Pct { depth: 3 },
            Strategy::Dfs {
                preemptions: 2,
                por: Por::Dpor,
            },
        ] {
            let (bugs, first, runs, rate) = strategy(&b.metamutant, s, &out.join("work"));
            cells.push(cell(bugs, first, runs));
            rates.push(rate);
        }
        let rates: Vec<String> = rates.iter().map(|r| format!("{r:.0}")).collect();
        println!("{name:<17} {}  {}", cells.join(" "), rates.join(" "));
        twins.push((format!("{name}_ok"), *interleave));
    }
    println!("\ndfs schedules to exhaust each twin's space (budget 3000, + = not exhausted), by reduction");
    println!(
        "{:<20} {:>6} {:>6} {:>6} {:>6}  {:>6} {:>6} {:>6}",
        "twin", "k=1", "none", "sleep", "dpor", "k=inf", "sleep", "dpor"
    );
    for (twin, interleave) in twins {
        let out = tmp.path().join(&twin);
        let b = build(&dir.join(format!("{twin}.c")), &out, interleave);
        let mut cells = Vec::new();
        for (preemptions, pors) in [
            (1, &[Por::None, Por::Sleep, Por::Dpor][..]),
            (UNBOUNDED, &[Por::Sleep, Por::Dpor][..]),
        ] {
            if preemptions == UNBOUNDED {
                cells.push(String::new());
            }
            for por in pors {
                let config = ExploreSettings {
                    strategy: Strategy::Dfs {
                        preemptions,
                        por: *por,
                    },
                    schedules: 3000,
                    ..ExploreSettings::default()
                };
                let program = Invocation {
                    active: Some(String::new()),
                    ..Invocation::new(&b.metamutant, &[])
                };
                let r = explore::explore(&program, &config, &out.join("work")).unwrap();
                assert!(r.found.is_none(), "{twin}");
                cells.push(format!(
                    "{}{}",
                    r.distinct,
                    if r.exhausted { "" } else { "+" }
                ));
            }
        }
        let cells: Vec<String> = cells.iter().map(|c| format!("{c:>6}")).collect();
        println!("{twin:<20} {:>6} {}", "", cells.join(" "));
    }
}
