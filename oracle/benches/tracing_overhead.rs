//! Benchmark: cost of syncmut's instrumentation on synchronization-heavy designs. The
//! native build and the metamutant (no mutant active, tracing on; pthread designs also
//! under the controlled scheduler) run alternately, several times each, in one process,
//! and the ratio of medians is printed (each trace goes to a new file, as in the oracle). Run: `cargo bench -p syncmut-oracle`.

use std::path::{Path, PathBuf};
use std::time::Duration;
use syncmut_mutator::{metamutant, Design};
use syncmut_oracle::exec::{execute, Limits};

const REPEATS: usize = 9;

fn median(mut v: Vec<Duration>) -> f64 {
    v.sort();
    v[v.len() / 2].as_secs_f64()
}

fn bench(name: &str, source: &Path, args: &[&str], scheduled: bool) {
    let out = tempfile::tempdir().unwrap();
    let design = Design::from_paths(&[source.to_path_buf()], &[]).unwrap();
    let build = metamutant::build(&design, out.path()).expect("build");
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let limits = Limits { timeout: Duration::from_secs(120), ..Limits::default() };
    let trace = out.path().join("trace.jsonl");
    let variants: Vec<(&str, Vec<(&str, String)>)> = {
        let mut v = vec![("traced", vec![("SYNCMUT_TRACE", trace.display().to_string())])];
        if scheduled {
            v.push((
                "traced+scheduled",
                vec![("SYNCMUT_TRACE", trace.display().to_string()), ("SYNCMUT_SCHEDULE", "default".to_string())],
            ));
        }
        v
    };
    let mut native = Vec::new();
    let mut instrumented: Vec<Vec<Duration>> = vec![Vec::new(); variants.len()];
    for _ in 0..REPEATS {
        let run = execute(&build.original, &args, &[], &limits).unwrap();
        native.push(run.elapsed);
        for (i, (_, env)) in variants.iter().enumerate() {
            // Each oracle run writes a fresh trace file; overwriting the last run's would
            // add truncating it, and ext4 then flushes the new one on close
            // (auto_da_alloc), which no oracle run pays.
            let _ = std::fs::remove_file(&trace);
            let run = execute(&build.metamutant, &args, env, &limits).unwrap();
            assert_eq!(run.status, syncmut_oracle::exec::Status::Exited(0), "{name}: {}", run.stderr);
            instrumented[i].push(run.elapsed);
        }
    }
    let base = median(native);
    for ((label, _), times) in variants.iter().zip(instrumented) {
        let t = median(times);
        println!("{name:<34} native {base:>7.3} s  {label:<17} {t:>7.3} s  ratio {:>5.2}x", t / base);
    }
}

fn main() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benches/designs");
    println!("median of {REPEATS} alternating runs each; same machine, same run");
    // 50k rounds = 100k waits + 100k notifies.
    bench("systemc pingpong (100k wait/notify)", &dir.join("sc_pingpong.cpp"), &["50000"], false);
    // 4 × 25k × (lock + unlock) = 200k mutex operations.
    bench("pthread counter (200k mutex ops)", &dir.join("pthread_counter.c"), &["25000"], true);
}
