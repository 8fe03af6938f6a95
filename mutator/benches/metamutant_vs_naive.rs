//! Benchmark: time to obtain runnable mutants for every mutant of a design, one
//! metamutant build vs. one build per mutant (the naive alternative), measured side by
//! side in one run and printed as a ratio. Run: `cargo bench -p syncmut-mutator`.
//!
//! The naive side is a lower bound of what a per-mutant tool pays: for each mutant it
//! compiles the design's sources and links an executable, without even instrumenting,
//! so the ratio understates the metamutant's advantage.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use syncmut_mutator::metamutant;
use syncmut_mutator::{toolchain, Design};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn measure(name: &str, paths: &[PathBuf]) {
    let design = Design::from_paths(paths, &[]).expect("design");
    let meta_dir = tempfile::tempdir().unwrap();
    let start = Instant::now();
    let build = metamutant::build(&design, meta_dir.path()).expect("metamutant build");
    let meta = start.elapsed();
    let mutants = build.catalogue.mutants.len();

    let naive_dir = tempfile::tempdir().unwrap();
    let start = Instant::now();
    for i in 0..mutants {
        let work = naive_dir.path().join(format!("m{i}"));
        std::fs::create_dir_all(&work).unwrap();
        let bc = work.join("design.bc");
        toolchain::build_bitcode(&design, &work, &bc).expect("compile");
        toolchain::link_executable(&design, build.catalogue.kind, &bc, &[], &work.join("exe"))
            .expect("link");
    }
    let naive = start.elapsed();
    println!(
        "{name:<28} mutants {mutants:>3}  metamutant {:>7.2} s  naive {:>7.2} s  ratio {:>5.1}x",
        secs(meta),
        secs(naive),
        secs(naive) / secs(meta)
    );
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

fn main() {
    let root = root();
    println!("one metamutant build vs. one compile+link per mutant (same run, same machine)");
    measure(
        "systemc/guarded_event",
        &[root.join("examples/systemc/guarded_event")],
    );
    measure(
        "pthread/bounded_buffer",
        &[root.join("examples/pthread/bounded_buffer")],
    );
    measure(
        "fixture sc_all_apis",
        &[root.join("mutator/tests/fixtures/sc_all_apis.cpp")],
    );
}
