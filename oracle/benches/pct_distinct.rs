//! Benchmark: distinct schedules among PCT's runs on small correct programs (twins in
//! examples/pthread/bugs, where no bug stops the search). Per program, side by side:
//! pct depth 3 with a budget of 1000 runs counted as before (every run counts), the same
//! with repeated schedules redrawn (the budget counts distinct schedules), and the depth
//! and budget `explore` chooses from a first run. Run:
//! `cargo bench -p syncmut-oracle --bench pct_distinct`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use syncmut_mutator::interleave::Interleave;
use syncmut_mutator::{metamutant, Design};
use syncmut_oracle::explore::{self, Choose, ExploreSettings};
use syncmut_oracle::schedules::Strategy;
use syncmut_runner::exec::Limits;
use syncmut_runner::Invocation;

const TWINS: &[&str] = &["lock_order_ok", "lost_signal_ok", "order_violation_ok"];
const BUDGET: usize = 1000;

fn build(source: &Path, out: &Path) -> metamutant::Build {
    let design = Design::from_paths(&[source.to_path_buf()], &[]).unwrap();
    metamutant::build_with(
        &design,
        out,
        &metamutant::Options {
            interleave: Interleave::Sync,
            races: false,
        },
    )
    .expect("build")
}

/// (runs, distinct, repeats, saturated, depth, seconds) of one exploration.
fn explore(
    binary: &Path,
    config: &ExploreSettings,
    work: &Path,
) -> (usize, usize, usize, bool, u32, f64) {
    let program = Invocation {
        active: Some(String::new()),
        limits: Limits {
            timeout: Duration::from_secs(5),
            ..Limits::default()
        },
        ..Invocation::new(binary, &[])
    };
    let started = Instant::now();
    let r = explore::explore(&program, config, work).unwrap();
    assert!(r.found.is_none());
    let depth = match r.strategy {
        Strategy::Pct { depth } => depth,
        _ => 0,
    };
    (
        r.runs,
        r.distinct,
        r.repeats,
        r.saturated,
        depth,
        started.elapsed().as_secs_f64(),
    )
}

fn main() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/pthread/bugs");
    let tmp = tempfile::tempdir().unwrap();
    println!("distinct schedules / runs; + = stopped after 200 repeats in a row");
    println!(
        "{:<20} {:>16} {:>16} {:>7} {:>22}",
        "twin", "pct d=3, 1000 runs", "redrawn, 1000", "ratio", "chosen (d, budget)"
    );
    for twin in TWINS {
        let out = tmp.path().join(twin);
        let b = build(&dir.join(format!("{twin}.c")), &out);
        let pct3 = Strategy::Pct { depth: 3 };
        let counted = ExploreSettings {
            strategy: pct3,
            schedules: BUDGET,
            ..ExploreSettings::default()
        };
        let redrawn = ExploreSettings {
            redraw_repeats: true,
            ..counted.clone()
        };
        let chosen = ExploreSettings {
            choose: Choose {
                depth: true,
                schedules: true,
            },
            ..redrawn.clone()
        };
        let (r0, d0, _, _, _, _) = explore(&b.metamutant, &counted, &out.join("work"));
        let (r1, d1, _, s1, _, _) = explore(&b.metamutant, &redrawn, &out.join("work"));
        let (r2, d2, _, s2, depth, _) = explore(&b.metamutant, &chosen, &out.join("work"));
        let mark = |s: bool| if s { "+" } else { "" };
        println!(
            "{twin:<20} {:>16} {:>16} {:>6.2}x {:>22}",
            format!("{d0}/{r0}"),
            format!("{d1}/{r1}{}", mark(s1)),
            d1 as f64 / d0.max(1) as f64,
            format!("d={depth}: {d2}/{r2}{}", mark(s2))
        );
    }
}
