//! Benchmark: cost of syncmut's instrumentation on synchronization-heavy designs. The
//! native build and the metamutant (no mutant active; without a trace, to separate the
//! wrappers' cost, and with tracing on; pthread designs also under the controlled
//! scheduler, and then also recording its choices, as a mutant run of `syncmut run`
//! does) run alternately, several times each, in one process,
//! and the ratio of medians is printed (each trace goes to a new file, as in the oracle),
//! with the median of the ratios pair by pair beside it: on a shared machine whose speed
//! drifts during the run, the two differ, and nine pairs moved the ratio of medians by a
//! tenth from one run of the bench to the next. Run: `cargo bench -p syncmut-oracle`.

use std::path::{Path, PathBuf};
use std::time::Duration;
use syncmut_mutator::{metamutant, Design};
use syncmut_runner::exec::{execute, Limits};
use syncmut_runtime::env;

const REPEATS: usize = 21;

fn median(mut v: Vec<Duration>) -> f64 {
    v.sort();
    v[v.len() / 2].as_secs_f64()
}

/// The median of `a[i] / b[i]`: each run against the native run made just before it.
fn median_of_pairs(a: &[Duration], b: &[Duration]) -> f64 {
    let mut ratios: Vec<f64> = a
        .iter()
        .zip(b)
        .map(|(a, b)| a.as_secs_f64() / b.as_secs_f64())
        .collect();
    ratios.sort_by(f64::total_cmp);
    ratios[ratios.len() / 2]
}

/// CPU time (user + system) of the children this process has waited for so far. On a
/// shared machine it moves much less than wall time, so both ratios are printed.
fn children_cpu() -> Duration {
    // SAFETY: getrusage only writes into the struct it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage);
        usage
    };
    let time = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    time(usage.ru_utime) + time(usage.ru_stime)
}

/// Runs `program` and returns its wall and CPU time.
fn timed(
    program: &Path,
    args: &[String],
    env: &[(&str, String)],
    limits: &Limits,
    name: &str,
) -> (Duration, Duration) {
    let before = children_cpu();
    let run = execute(program, args, env, limits).unwrap();
    assert_eq!(
        run.status,
        syncmut_runner::exec::Status::Exited(0),
        "{name}: {}",
        run.stderr.text()
    );
    (run.elapsed, children_cpu() - before)
}

fn bench(name: &str, source: &Path, args: &[&str], scheduled: bool) {
    let out = tempfile::tempdir().unwrap();
    let design = Design::from_paths(&[source.to_path_buf()], &[]).unwrap();
    let build = metamutant::build(&design, out.path()).expect("build");
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let limits = Limits {
        timeout: Duration::from_secs(120),
        ..Limits::default()
    };
    let trace = out.path().join("trace.bin");
    let choices = out.path().join("trace.schedule");
    let variants: Vec<(&str, Vec<(&str, String)>)> = {
        // The metamutant without a trace: what the wrappers alone cost.
        let mut v = vec![
            ("untraced", vec![]),
            ("traced", vec![(env::TRACE, trace.display().to_string())]),
        ];
        if scheduled {
            v.push((
                "traced+scheduled",
                vec![
                    (env::TRACE, trace.display().to_string()),
                    (env::SCHEDULE, "default".to_string()),
                ],
            ));
            // What a mutant run of `syncmut run` pays: its choices are recorded too, each
            // option by its thread alone.
            v.push((
                "+schedule file",
                vec![
                    (env::TRACE, trace.display().to_string()),
                    (env::SCHEDULE, "default".to_string()),
                    (env::SCHEDULE_OUT, choices.display().to_string()),
                    (env::RECORD_DETAIL, "0".to_string()),
                ],
            ));
        }
        v
    };
    let (mut native, mut native_cpu) = (Vec::new(), Vec::new());
    let mut instrumented: Vec<(Vec<Duration>, Vec<Duration>)> =
        vec![(Vec::new(), Vec::new()); variants.len()];
    for _ in 0..REPEATS {
        let (wall, cpu) = timed(&build.original, &args, &[], &limits, name);
        native.push(wall);
        native_cpu.push(cpu);
        for (i, (_, env)) in variants.iter().enumerate() {
            // Each oracle run writes a fresh trace file; overwriting the last run's would
            // add truncating it, and ext4 then flushes the new one on close
            // (auto_da_alloc), which no oracle run pays.
            let _ = std::fs::remove_file(&trace);
            let _ = std::fs::remove_file(&choices);
            let (wall, cpu) = timed(&build.metamutant, &args, env, &limits, name);
            instrumented[i].0.push(wall);
            instrumented[i].1.push(cpu);
        }
    }
    let (base, base_cpu) = (median(native.clone()), median(native_cpu.clone()));
    // What the runtime wrote (binary), and the JSON Lines form the oracle renders from it
    // for the traces it keeps: the rendering is the oracle's cost, not the design's.
    let bytes = std::fs::read(&trace).unwrap();
    let started = std::time::Instant::now();
    let parsed = syncmut_runtime::trace::parse_bytes(&bytes).unwrap();
    let read = started.elapsed().as_secs_f64();
    let jsonl = syncmut_runtime::trace::to_jsonl(&parsed);
    let rendered = started.elapsed().as_secs_f64();
    let again = syncmut_runtime::trace::parse_bytes(&jsonl).unwrap();
    let read_jsonl = started.elapsed().as_secs_f64() - rendered;
    assert_eq!(again, parsed);
    println!(
        "{name:<34} trace: {} events, {} bytes binary ({} as JSON Lines); oracle: reads binary {read:.3} s, renders JSON Lines {:.3} s (reading JSON Lines: {read_jsonl:.3} s)",
        parsed.events.len(),
        bytes.len(),
        jsonl.len(),
        rendered - read
    );
    for ((label, _), (walls, cpus)) in variants.iter().zip(instrumented) {
        let (wall_pairs, cpu_pairs) = (
            median_of_pairs(&walls, &native),
            median_of_pairs(&cpus, &native_cpu),
        );
        let (t, c) = (median(walls), median(cpus));
        println!(
            "{name:<34} native {base:>6.3} s  {label:<17} {t:>6.3} s  ratio {:>5.2}x (pairs {wall_pairs:.2}x)   (cpu: native {base_cpu:>6.3} s, {c:>6.3} s, ratio {:>5.2}x (pairs {cpu_pairs:.2}x))",
            t / base,
            c / base_cpu
        );
    }
}

fn main() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benches/designs");
    println!("median of {REPEATS} alternating runs each; same machine, same run; wall and user+system CPU time");
    // 50k rounds = 100k waits + 100k notifies.
    bench(
        "systemc pingpong (100k wait/notify)",
        &dir.join("sc_pingpong.cpp"),
        &["50000"],
        false,
    );
    // 4 × 25k × (lock + unlock) = 200k mutex operations.
    bench(
        "pthread counter (200k mutex ops)",
        &dir.join("pthread_counter.c"),
        &["25000"],
        true,
    );
}
