//! Benchmark: WP test generation on the third-party-style corpus (tests/corpus/),
//! designs written in styles the examples do not use. Per design: sites, sites proven
//! unreachable, sites WP reaches (confirmed by execution), sites the random baseline
//! reaches with as many draws as WP spent executions, unknown sites with their
//! reasons, per-site analysis time (formula build + solve, median and max) and the
//! whole generation's wall time (analysis + confirming runs; the metamutant build is
//! printed apart). Totals: the share of sites not proven unreachable that WP reaches,
//! and the designs that got no test. A design that fails to build or generate is kept
//! in the table with its error. Run:
//! `cargo bench -p syncmut-analysis --bench corpus`.

use std::path::{Path, PathBuf};
use std::time::Instant;
use syncmut_analysis::{random, Options, Reachability};
use syncmut_mutator::{metamutant, Design};

/// Every corpus design: a `.c`/`.cpp` file, or a directory holding a multi-file design.
fn designs() -> Vec<(String, PathBuf)> {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .join("tests/corpus");
    let mut out = Vec::new();
    for family in ["systemc", "pthread"] {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(corpus.join(family))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_dir() || p.extension().is_some_and(|x| x == "c" || x == "cpp"))
            .collect();
        entries.sort();
        for p in entries {
            let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
            out.push((format!("{family}/{stem}"), p));
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

#[derive(Default)]
struct Row {
    name: String,
    sites: usize,
    unreachable: usize,
    open: usize,
    wp_reached: usize,
    wp_tests: usize,
    wp_runs: usize,
    random_reached: usize,
    random_runs: usize,
    /// (site, reason) of every `unknown` site.
    unknown: Vec<(u32, String)>,
    /// Open sites WP neither reached nor left unknown (a candidate found but not
    /// confirmed by its run).
    unconfirmed: Vec<u32>,
    /// Every site's analysis time, ms.
    times: Vec<f64>,
    median_ms: f64,
    max_ms: f64,
    build_s: f64,
    gen_s: f64,
    error: Option<String>,
}

fn short(s: &str, n: usize) -> String {
    let one_line = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= n {
        one_line
    } else {
        format!("{}…", one_line.chars().take(n).collect::<String>())
    }
}

fn measure(name: &str, path: &Path) -> Row {
    let mut row = Row {
        name: name.to_string(),
        ..Row::default()
    };
    let design = match Design::from_paths(&[path.to_path_buf()], &[]) {
        Ok(d) => d,
        Err(e) => {
            row.error = Some(format!("design: {e}"));
            return row;
        }
    };
    let dir = tempfile::tempdir().unwrap();
    let t = Instant::now();
    let build = match metamutant::build(&design, dir.path()) {
        Ok(b) => b,
        Err(e) => {
            row.error = Some(format!("build: {e}"));
            return row;
        }
    };
    row.build_s = t.elapsed().as_secs_f64();
    row.sites = build.catalogue.sites.len();
    if row.sites == 0 {
        row.error = Some("no synchronization sites".into());
        return row;
    }
    let t = Instant::now();
    let g = match syncmut_analysis::generate_for(
        &build,
        dir.path(),
        &dir.path().join("wp"),
        // Every site analysed: the bench measures the analysis against random inputs.
        &Options {
            default_first: false,
            ..Options::default()
        },
        &syncmut_analysis::Quiet,
    ) {
        Ok(g) => g,
        Err(e) => {
            row.error = Some(format!("wp generation: {e}"));
            return row;
        }
    };
    row.gen_s = t.elapsed().as_secs_f64();
    let mut times: Vec<f64> = g.sites.iter().map(|s| s.millis).collect();
    row.max_ms = times.iter().copied().fold(0.0, f64::max);
    row.median_ms = median(&mut times);
    row.times = times;
    for s in &g.sites {
        match &s.verdict {
            Reachability::Unreachable { .. } => row.unreachable += 1,
            Reachability::Unknown { reason } => row.unknown.push((s.index, reason.clone())),
            Reachability::TestFound { .. } | Reachability::ReachedByGiven { .. } => {}
        }
    }
    let suite = &g.suite;
    row.open = suite.open.len();
    row.wp_reached = suite.confirmed.len();
    row.wp_tests = suite.tests.len();
    row.wp_runs = suite.executions;
    let unknown: Vec<u32> = row.unknown.iter().map(|(i, _)| *i).collect();
    row.unconfirmed = suite
        .open
        .iter()
        .copied()
        .filter(|i| !suite.confirmed.contains(i) && !unknown.contains(i))
        .collect();
    // Random with as many draws as WP spent executions (identical draws run once).
    match syncmut_analysis::random_for(
        &build,
        dir.path(),
        &dir.path().join("random"),
        &Options::default(),
        suite.executions.max(1),
        random::DEFAULT_SEED,
    ) {
        Ok(r) => {
            row.random_reached = r.baseline.suite.confirmed.len();
            row.random_runs = r.baseline.suite.executions;
        }
        Err(e) => row.error = Some(format!("random: {e}")),
    }
    row
}

fn main() {
    let total = Instant::now();
    let rows: Vec<Row> = designs()
        .iter()
        .map(|(name, path)| {
            let r = measure(name, path);
            eprintln!("measured {name}");
            r
        })
        .collect();

    println!("WP (z3, default bound) on tests/corpus vs random with as many draws as WP's executions (seed {}); reach confirmed by execution", random::DEFAULT_SEED);
    println!(
        "{:<30} {:>5} {:>6} {:>5}  {:>9} {:>5} {:>4}  {:>10} {:>4}  {:>7}  {:>8} {:>8}  {:>7} {:>6}",
        "design", "sites", "unrch", "open", "wp reach", "tests", "runs", "rnd reach", "runs", "unknown", "med ms", "max ms", "build s", "gen s"
    );
    for r in &rows {
        if let Some(e) = &r.error {
            println!("{:<30} {:>5}  ERROR: {}", r.name, r.sites, short(e, 200));
            continue;
        }
        println!(
            "{:<30} {:>5} {:>6} {:>5}  {:>9} {:>5} {:>4}  {:>10} {:>4}  {:>7}  {:>8.2} {:>8.2}  {:>7.2} {:>6.2}",
            r.name,
            r.sites,
            r.unreachable,
            r.open,
            r.wp_reached,
            r.wp_tests,
            r.wp_runs,
            r.random_reached,
            r.random_runs,
            r.unknown.len(),
            r.median_ms,
            r.max_ms,
            r.build_s,
            r.gen_s
        );
    }
    println!();
    println!("unknown sites:");
    let mut any = false;
    for r in &rows {
        for (i, reason) in &r.unknown {
            any = true;
            println!("  {} site {i}: {}", r.name, short(reason, 220));
        }
    }
    if !any {
        println!("  none");
    }
    println!("open sites WP found a candidate for but did not confirm:");
    let unconfirmed: Vec<String> = rows
        .iter()
        .flat_map(|r| {
            r.unconfirmed
                .iter()
                .map(move |i| format!("{} site {i}", r.name))
        })
        .collect();
    println!(
        "  {}",
        if unconfirmed.is_empty() {
            "none".to_string()
        } else {
            unconfirmed.join(", ")
        }
    );
    println!();

    let ok: Vec<&Row> = rows.iter().filter(|r| r.error.is_none()).collect();
    let sum = |f: fn(&Row) -> usize| ok.iter().map(|r| f(r)).sum::<usize>();
    let (sites, unreachable, open, wp_reached, wp_tests, wp_runs, rnd_reached, rnd_runs, unknown) = (
        sum(|r| r.sites),
        sum(|r| r.unreachable),
        sum(|r| r.open),
        sum(|r| r.wp_reached),
        sum(|r| r.wp_tests),
        sum(|r| r.wp_runs),
        sum(|r| r.random_reached),
        sum(|r| r.random_runs),
        sum(|r| r.unknown.len()),
    );
    let mut all_ms: Vec<f64> = ok.iter().flat_map(|r| r.times.iter().copied()).collect();
    let all_median = median(&mut all_ms);
    let mut max_ms = (0.0, String::new());
    for r in &ok {
        if r.max_ms > max_ms.0 {
            max_ms = (r.max_ms, r.name.clone());
        }
    }
    let mut gen: Vec<f64> = ok.iter().map(|r| r.gen_s).collect();
    let gen_total: f64 = gen.iter().sum();
    let gen_median = median(&mut gen);
    let gen_max = ok
        .iter()
        .map(|r| (r.gen_s, r.name.clone()))
        .fold((0.0, String::new()), |a, b| if b.0 > a.0 { b } else { a });
    let zero: Vec<&str> = ok
        .iter()
        .filter(|r| r.wp_tests == 0)
        .map(|r| r.name.as_str())
        .collect();
    let failed: Vec<&str> = rows
        .iter()
        .filter(|r| r.error.is_some())
        .map(|r| r.name.as_str())
        .collect();
    println!(
        "total: {} designs ({} failed), {sites} sites, {unreachable} proven unreachable, {open} open, {unknown} unknown",
        rows.len(),
        failed.len()
    );
    println!(
        "WP reaches {wp_reached} of {open} open sites ({:.1}%) with {wp_tests} tests in {wp_runs} executions; random with the same budget reaches {rnd_reached} in {rnd_runs} executions",
        100.0 * wp_reached as f64 / open.max(1) as f64
    );
    println!(
        "per-site analysis time over all {} sites: median {all_median:.2} ms, max {:.2} ms ({})",
        all_ms.len(),
        max_ms.0,
        max_ms.1
    );
    println!("generation wall time per design: median {gen_median:.2} s, max {:.2} s ({}), sum {gen_total:.1} s", gen_max.0, gen_max.1);
    println!(
        "designs with zero tests: {}",
        if zero.is_empty() {
            "none".to_string()
        } else {
            zero.join(", ")
        }
    );
    println!(
        "designs that failed: {}",
        if failed.is_empty() {
            "none".to_string()
        } else {
            failed.join(", ")
        }
    );
    println!("bench wall time {:.1} s", total.elapsed().as_secs_f64());
}
