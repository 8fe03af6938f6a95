//! Benchmark: per-site analysis time (formula build + solve) with z3 and with
//! cvc5, median and max over every example; and WP test generation vs. the random
//! baseline with a fixed budget: sites reached, tests needed, sites reached per test.
//! Everything is measured side by side in one run. Run:
//! `cargo bench -p syncmut-analysis --bench wp_vs_random`.
//!
//! A site's time is also each of its mutants' time: every mutant of a site shares the
//! site's reachability formula, so it is built and solved once.

use std::path::{Path, PathBuf};
use syncmut_analysis::smt::{SolverConfig, SolverKind};
use syncmut_analysis::{random, Options};
use syncmut_mutator::{metamutant, Design};

const BUDGET: usize = 100;

fn designs() -> Vec<(String, PathBuf)> {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .join("examples");
    let mut out = Vec::new();
    for family in ["pthread", "systemc"] {
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(examples.join(family))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        dirs.sort();
        for d in dirs {
            if d.ends_with("bugs") {
                // The bug corpus: one design per file.
                let mut files: Vec<PathBuf> = std::fs::read_dir(&d)
                    .unwrap()
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|x| x == "c"))
                    .collect();
                files.sort();
                out.extend(files.into_iter().map(|f| {
                    (
                        format!("bugs/{}", f.file_stem().unwrap().to_string_lossy()),
                        f,
                    )
                }));
            } else {
                out.push((
                    format!("{family}/{}", d.file_name().unwrap().to_string_lossy()),
                    d,
                ));
            }
        }
    }
    out
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    if v.is_empty() {
        0.0
    } else if v.len() % 2 == 1 {
        v[v.len() / 2]
    } else {
        (v[v.len() / 2 - 1] + v[v.len() / 2]) / 2.0
    }
}

struct Row {
    name: String,
    sites: usize,
    wp_reachable: usize,
    wp_reached: usize,
    wp_tests: usize,
    wp_runs: usize,
    random_reached: usize,
    random_tests: usize,
    random_runs: usize,
}

fn main() {
    let mut times: [(SolverKind, Vec<f64>, f64, String); 2] = [
        (SolverKind::Z3, vec![], 0.0, String::new()),
        (SolverKind::Cvc5, vec![], 0.0, String::new()),
    ];
    let mut mutants = 0;
    let mut disagreements = Vec::new();
    let mut random_only = Vec::new();
    let mut rows = Vec::new();
    for (name, path) in designs() {
        let design = Design::from_paths(&[path], &[]).expect("design");
        let dir = tempfile::tempdir().unwrap();
        let build = metamutant::build(&design, dir.path()).expect("metamutant build");
        if build.catalogue.sites.is_empty() {
            continue;
        }
        mutants += build.catalogue.mutants.len();
        let mut wp = None;
        let mut verdicts: Vec<Vec<String>> = Vec::new();
        for (kind, all, max, at) in times.iter_mut() {
            let options = Options {
                solver: SolverConfig {
                    kind: *kind,
                    ..SolverConfig::default()
                },
                // Every site analysed: the bench compares the solvers on each.
                default_first: false,
                ..Options::default()
            };
            let g = syncmut_analysis::generate_for(
                &build,
                dir.path(),
                &dir.path().join(kind.program()),
                &options,
                &syncmut_analysis::Quiet,
            )
            .expect("wp generation");
            for s in &g.sites {
                all.push(s.millis);
                if s.millis > *max {
                    *max = s.millis;
                    *at = format!("{name} site {}", s.index);
                }
            }
            verdicts.push(
                g.sites
                    .iter()
                    .map(|s| {
                        serde_json::to_value(&s.verdict).unwrap()["verdict"]
                            .as_str()
                            .unwrap()
                            .to_string()
                    })
                    .collect(),
            );
            wp.get_or_insert(g.suite);
        }
        if verdicts[0] != verdicts[1] {
            disagreements.push(format!(
                "{name}: z3 {:?} vs cvc5 {:?}",
                verdicts[0], verdicts[1]
            ));
        }
        let wp = wp.unwrap();
        let r = syncmut_analysis::random_for(
            &build,
            dir.path(),
            &dir.path().join("random"),
            &Options::default(),
            BUDGET,
            random::DEFAULT_SEED,
        )
        .expect("random");
        let b = r.baseline.suite;
        random_only.extend(
            b.confirmed
                .difference(&wp.confirmed)
                .map(|s| format!("{name} site {s}")),
        );
        rows.push(Row {
            name,
            sites: build.catalogue.sites.len(),
            wp_reachable: wp.reachable.len(),
            wp_reached: wp.confirmed.len(),
            wp_tests: wp.tests.len(),
            wp_runs: wp.executions,
            random_reached: b.confirmed.len(),
            random_tests: b.tests.len(),
            random_runs: b.executions,
        });
    }

    println!(
        "per-site analysis time (formula build + solve), {} sites, {mutants} mutants, {} designs:",
        times[0].1.len(),
        rows.len()
    );
    let z3_median = median(&mut times[0].1.clone());
    for (kind, all, max, at) in times.iter_mut() {
        let m = median(all);
        println!(
            "  {:<5} median {:>7.2} ms  max {:>8.2} ms ({at})  median vs z3 {:.2}x",
            kind.program(),
            m,
            max,
            m / z3_median
        );
    }
    println!();
    println!(
        "WP (z3) vs random (budget {BUDGET} draws, seed {}), reach confirmed by execution:",
        random::DEFAULT_SEED
    );
    println!(
        "{:<28} {:>5}  {:>9} {:>10} {:>5} {:>5}  {:>10} {:>5} {:>5}",
        "design",
        "sites",
        "reachable",
        "wp reached",
        "tests",
        "runs",
        "rnd reached",
        "tests",
        "runs"
    );
    for r in &rows {
        println!(
            "{:<28} {:>5}  {:>9} {:>10} {:>5} {:>5}  {:>10} {:>5} {:>5}",
            r.name,
            r.sites,
            r.wp_reachable,
            r.wp_reached,
            r.wp_tests,
            r.wp_runs,
            r.random_reached,
            r.random_tests,
            r.random_runs
        );
    }
    let sum = |f: fn(&Row) -> usize| rows.iter().map(f).sum::<usize>();
    let (sites, wp_reached, wp_tests, wp_runs) = (
        sum(|r| r.sites),
        sum(|r| r.wp_reached),
        sum(|r| r.wp_tests),
        sum(|r| r.wp_runs),
    );
    let (rnd_reached, rnd_tests, rnd_runs) = (
        sum(|r| r.random_reached),
        sum(|r| r.random_tests),
        sum(|r| r.random_runs),
    );
    let full = rows
        .iter()
        .filter(|r| r.random_reached >= r.wp_reached)
        .count();
    println!(
        "total: sites {sites}; wp reached {wp_reached} with {wp_tests} tests ({:.2} sites/test, {wp_runs} runs); random reached {rnd_reached} with {rnd_tests} tests ({:.2} sites/test, {rnd_runs} runs)",
        wp_reached as f64 / wp_tests.max(1) as f64,
        rnd_reached as f64 / rnd_tests.max(1) as f64
    );
    println!(
        "full reach (every site the solver found reachable, confirmed): wp {}/{} designs; random reaches every site WP reaches in {full}/{} designs",
        rows.iter().filter(|r| r.wp_reached == r.wp_reachable).count(),
        rows.len(),
        rows.len()
    );
    println!(
        "sites with different verdict kinds, z3 vs cvc5: {}",
        if disagreements.is_empty() {
            "none".to_string()
        } else {
            disagreements.join("; ")
        }
    );
    println!(
        "sites reached by random but not by WP: {}",
        if random_only.is_empty() {
            "none".to_string()
        } else {
            random_only.join(", ")
        }
    );
}
