//! `syncmut gen`: generate tests that reach every synchronization site (backward
//! weakest precondition + SMT, or the random baseline), confirm them by execution,
//! write `DIR/tests.json`; `--compare` runs both and prints them side by side.

use crate::exit;
use std::path::Path;
use syncmut_analysis::random::RandomSuite;
use syncmut_analysis::smt::SolverConfig;
use syncmut_analysis::{AnalysisError, Options, Reachability};
use syncmut_mutator::metamutant::{self, Build};
use syncmut_mutator::{Catalogue, Design};

/// How tests are generated (`gen` and `run`).
#[derive(Debug, Clone)]
pub enum Generation {
    /// Only the given tests.
    None,
    /// Weakest precondition + SMT; `budget` and `seed` are the random baseline's, which
    /// `run` falls back on when no generated test is usable.
    Wp {
        options: Options,
        budget: usize,
        seed: u64,
    },
    /// Random inputs over the same input vector.
    Random {
        options: Options,
        budget: usize,
        seed: u64,
    },
}

impl Generation {
    /// From the `--gen` value (`wp`, `random`, `none`) and the shared settings.
    pub fn new(
        gen: &str,
        bound: u32,
        solver: SolverConfig,
        limits: syncmut_analysis::budget::Budget,
        budget: usize,
        seed: u64,
        default_first: bool,
    ) -> Generation {
        let options = Options {
            bound,
            solver,
            budget: limits,
            default_first,
            ..Options::default()
        };
        match gen {
            "none" => Generation::None,
            "random" => Generation::Random {
                options,
                budget,
                seed,
            },
            _ => Generation::Wp {
                options,
                budget,
                seed,
            },
        }
    }
}

/// Runs test generation for `design` into `output`; returns the exit code, or the
/// error with its exit code. With `compare`, runs WP into `output` and the random
/// baseline (the plan's budget and seed) into `output/random`, and prints both.
pub fn gen_command(
    design: &Design,
    output: &Path,
    plan: &Generation,
    compare: bool,
) -> Result<i32, (i32, anyhow::Error)> {
    let fail = |e: AnalysisError| (exit::for_analysis_error(&e), anyhow::anyhow!("{e}"));
    // Held until generation ends, so a `run` or `mutate` into the same directory waits
    // its turn instead of replacing the executables under it.
    let _out = crate::run_dir::open_run_directory(output)
        .map_err(|failure| (failure.code, failure.error))?;
    let build = metamutant::build(design, output)
        .map_err(|e| (exit::for_mutator_error(&e), anyhow::anyhow!("{e}")))?;
    if build.catalogue.sites.is_empty() {
        eprintln!("syncmut: no synchronization sites in the design: nothing to generate");
        return Ok(exit::NO_SITES);
    }
    match (plan, compare) {
        (Generation::Wp { options, .. }, false) => {
            let first = Options {
                stop_when_first_runs_spin: true,
                ..options.clone()
            };
            let g = match generate_wp(&build, output, output, &first) {
                // Every candidate's confirming run would spin to its timeout as well.
                Err(AnalysisError::SpinsAtSyncLevel) => {
                    eprintln!("syncmut gen: note: the default invocation did not finish at sync level: one thread ran without a synchronization call while others waited for their turn (a busy-wait on plain memory); building again at memory level, where its loads and stores are scheduling points, and generating there");
                    let memory = metamutant::Options {
                        interleave: syncmut_mutator::interleave::Interleave::Memory,
                        ..Default::default()
                    };
                    let build = metamutant::build_with(design, output, &memory)
                        .map_err(|e| (exit::for_mutator_error(&e), anyhow::anyhow!("{e}")))?;
                    generate_wp(&build, output, output, options).map_err(fail)?
                }
                g => g.map_err(fail)?,
            };
            print_wp(&g, output, options.solver);
        }
        (
            Generation::Random {
                options,
                budget,
                seed,
            },
            false,
        ) => {
            let g = syncmut_analysis::random_for(&build, output, output, options, *budget, *seed)
                .map_err(fail)?;
            print_random(&g.catalogue, &g.baseline);
            println!(
                "{} test(s) → {}",
                g.baseline.suite.tests.len(),
                g.tests_file.display()
            );
        }
        (
            Generation::Random {
                options,
                budget,
                seed,
            },
            true,
        ) => {
            let wp = generate_wp(&build, output, output, options).map_err(fail)?;
            print_wp(&wp, output, options.solver);
            let random = syncmut_analysis::random_for(
                &build,
                output,
                &output.join("random"),
                options,
                *budget,
                *seed,
            )
            .map_err(fail)?;
            println!();
            print_random(&random.catalogue, &random.baseline);
            println!();
            print!("{}", comparison(&wp.catalogue, &wp.suite, &random.baseline));
        }
        (_, _) => {
            return Err((
                exit::USAGE,
                anyhow::anyhow!("--compare needs test generation (--gen wp or random)"),
            ))
        }
    }
    Ok(exit::OK)
}

/// WP generation with its progress shown.
fn generate_wp(
    build: &Build,
    build_dir: &Path,
    out: &Path,
    options: &Options,
) -> Result<syncmut_analysis::Generation, AnalysisError> {
    let bar = crate::console::GenBar::new();
    let g = syncmut_analysis::generate_for(build, build_dir, out, options, &bar);
    bar.finish();
    g
}

/// Sites left `unknown` by a solver failure.
fn solver_failures(sites: &[syncmut_analysis::SiteResult]) -> usize {
    sites.iter().filter(|r| matches!(&r.verdict, Reachability::Unknown { reason } if syncmut_analysis::smt::is_solver_failure(reason))).count()
}

fn file_line(catalogue: &Catalogue, site: u32, width: usize) -> String {
    let s = &catalogue.sites[site as usize];
    format!("{}:{} {}", s.file, s.line, s.call)
        .chars()
        .take(width)
        .collect()
}

fn print_wp(g: &syncmut_analysis::Generation, output: &Path, solver: SolverConfig) {
    println!(
        "{:>4}  {:<36}  {:>7}  result ({}, timeout {} ms per query)",
        "site", "location", "time", solver.kind, solver.timeout_ms
    );
    for r in &g.sites {
        let confirmed = match &r.verdict {
            Reachability::TestFound { .. } if !g.suite.confirmed.contains(&r.index) => {
                "  [NOT confirmed by execution]"
            }
            _ => "",
        };
        println!(
            "{:>4}  {:<36}  {:>5.0}ms  {}{}",
            r.index,
            file_line(&g.catalogue, r.index, 36),
            r.millis,
            r.verdict,
            confirmed
        );
    }
    let failed = solver_failures(&g.sites);
    if failed > 0 {
        eprintln!("syncmut: warning: {failed} site(s) unknown because of solver failures (see the reasons above)");
    }
    println!(
        "{} test(s) → {} (Test-Comp test cases in {}, formulas in {})",
        g.suite.tests.len(),
        g.tests_file.display(),
        output.join("tests").display(),
        output.join("formulas").display()
    );
    for (values, why) in &g.suite.unusable {
        println!("candidate {} not kept: {why}", describe_values(values));
    }
    println!("{}", reach_rate(g));
}

/// Unknown sites named one by one in the reach-rate line; the rest are counted.
const MAX_LISTED: usize = 10;

/// The reach rate over every site not proven unreachable, and the sites left unknown
/// that no test reached, with where they are.
fn reach_rate(g: &syncmut_analysis::Generation) -> String {
    let s = &g.suite;
    let mut line = format!(
        "reach rate: {} of {} sites not proven unreachable ({:.0}%)",
        s.confirmed.len(),
        s.open.len(),
        100.0 * s.reach_rate()
    );
    let by_given = g
        .sites
        .iter()
        .filter(|r| matches!(r.verdict, Reachability::ReachedByGiven { .. }))
        .count();
    if by_given > 0 {
        line.push_str(&format!(", {by_given} of them by the given tests"));
    }
    let unknown: Vec<String> = g
        .sites
        .iter()
        .filter(|r| {
            matches!(r.verdict, Reachability::Unknown { .. }) && !s.confirmed.contains(&r.index)
        })
        .map(|r| {
            format!(
                "site {} ({})",
                r.index,
                file_line(&g.catalogue, r.index, 60)
            )
        })
        .collect();
    if !unknown.is_empty() {
        let mut causes = std::collections::BTreeMap::new();
        for r in &g.sites {
            if let Some(cause) = r
                .unknown_cause()
                .filter(|_| !s.confirmed.contains(&r.index))
            {
                *causes.entry(cause).or_insert(0) += 1;
            }
        }
        let causes: Vec<String> = causes.iter().map(|(c, n)| format!("{n} {c}")).collect();
        let more = unknown.len().saturating_sub(MAX_LISTED);
        let mut listed = unknown[..unknown.len().min(MAX_LISTED)].join(", ");
        if more > 0 {
            listed.push_str(&format!(" and {more} more (gen/sites.json)"));
        }
        line.push_str(&format!(
            "; {} unknown ({}): {listed}",
            unknown.len(),
            causes.join(", ")
        ));
    }
    line
}

/// A candidate's inputs in words.
fn describe_values(values: &syncmut_analysis::inputs::TestValues) -> String {
    let mut parts = vec![if values.args.is_empty() {
        "(no arguments)".to_string()
    } else {
        values.args.join(" ")
    }];
    if !values.nondet.is_empty() {
        parts.push(format!(
            "nondet {}",
            values
                .nondet
                .iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(",")
        ));
    }
    parts.extend(values.inputs.iter().map(|(k, v)| format!("{k}={v}")));
    parts.join("; ")
}

fn print_random(catalogue: &Catalogue, b: &RandomSuite) {
    println!(
        "random baseline: {} draws, seed {}, over {} (integers log-uniform up to ±2^{}, choices fair coins)",
        b.draws,
        b.seed,
        syncmut_analysis::random::describe(&b.symbols),
        syncmut_analysis::random::MAX_BITS
    );
    println!("{:>4}  {:<36}  reached by random", "site", "location");
    for (i, _) in catalogue.sites.iter().enumerate() {
        let yes = if b.suite.confirmed.contains(&(i as u32)) {
            "yes"
        } else {
            "no"
        };
        println!(
            "{:>4}  {:<36}  {}",
            i,
            file_line(catalogue, i as u32, 36),
            yes
        );
    }
    println!(
        "random: {} distinct run(s), {} kept test(s) reach {}/{} sites",
        b.suite.executions,
        b.suite.tests.len(),
        b.suite.confirmed.len(),
        catalogue.sites.len()
    );
}

/// WP vs random, side by side.
fn comparison(
    catalogue: &Catalogue,
    wp: &syncmut_analysis::suite::Suite,
    random: &RandomSuite,
) -> String {
    use std::fmt::Write as _;
    let n = catalogue.sites.len();
    let mut s = String::new();
    let _ = writeln!(s, "comparison          {:>10}  {:>10}", "wp", "random");
    let _ = writeln!(
        s,
        "sites reached       {:>10}  {:>10}",
        format!("{}/{n}", wp.confirmed.len()),
        format!("{}/{n}", random.suite.confirmed.len())
    );
    let _ = writeln!(
        s,
        "tests needed        {:>10}  {:>10}",
        wp.tests.len(),
        random.suite.tests.len()
    );
    let _ = writeln!(
        s,
        "executions          {:>10}  {:>10}",
        wp.executions, random.suite.executions
    );
    for site in wp.confirmed.difference(&random.suite.confirmed) {
        let _ = writeln!(
            s,
            "reached by wp only: site {site} {}",
            file_line(catalogue, *site, 60)
        );
    }
    for site in random.suite.confirmed.difference(&wp.confirmed) {
        let _ = writeln!(
            s,
            "reached by random only: site {site} {}",
            file_line(catalogue, *site, 60)
        );
    }
    s
}

/// What `run`'s generation step made: the tests file, a one-line summary, and the
/// design's default invocation as WP generation ran it first (for [`fallback`], which
/// then need not run it again: a design that hangs would pay its timeout twice).
pub struct ForRun {
    /// The generated `tests.json`.
    pub tests_file: std::path::PathBuf,
    /// What was generated, in one line.
    pub summary: String,
    /// Generation's run of the default invocation (none under `--gen random` or
    /// `--analyse-all`).
    pub default_run: Option<syncmut_analysis::suite::Run>,
}

/// `run`'s generation step for an already built metamutant. The sites the `given` tests
/// reach are not analysed.
pub fn for_run(
    plan: &Generation,
    build: &Build,
    root: &Path,
    given: &[syncmut_runner::test_case::TestCase],
    stop_when_first_runs_spin: bool,
) -> Result<Option<ForRun>, AnalysisError> {
    let out = root.join("gen");
    Ok(match plan {
        Generation::None => None,
        Generation::Wp { options, .. } => {
            let options = Options {
                given: given.to_vec(),
                stop_when_first_runs_spin,
                ..options.clone()
            };
            let g = generate_wp(build, root, &out, &options)?;
            let failed = solver_failures(&g.sites);
            let mut line = format!(
                "generated {} test(s); {}",
                g.suite.tests.len(),
                reach_rate(&g)
            );
            if failed > 0 {
                line.push_str(&format!(
                    "; {failed} site(s) unknown because of solver failures (see gen/sites.json)"
                ));
            }
            Some(ForRun {
                tests_file: g.tests_file,
                summary: line,
                default_run: g.default_run,
            })
        }
        Generation::Random {
            options,
            budget,
            seed,
        } => {
            let g = syncmut_analysis::random_for(build, root, &out, options, *budget, *seed)?;
            let b = &g.baseline;
            let line = format!(
                "random baseline: {} draws (seed {}), {} kept test(s) reaching {}/{} sites",
                b.draws,
                b.seed,
                b.suite.tests.len(),
                b.suite.confirmed.len(),
                g.catalogue.sites.len()
            );
            Some(ForRun {
                tests_file: g.tests_file,
                summary: line,
                default_run: None,
            })
        }
    })
}

/// `run`'s fallback when generation kept no test and none were given: the design's
/// default invocation (no arguments, no inputs; `default_run` when generation ran it
/// already) and, after WP generation, the random baseline's kept tests (the plan's
/// budget and seed, into `DIR/gen/random`). Returns the tests and a report of what each
/// reaches.
pub fn fallback(
    plan: &Generation,
    build: &Build,
    root: &Path,
    default_run: Option<syncmut_analysis::suite::Run>,
) -> Result<(Vec<syncmut_runner::test_case::TestCase>, String), AnalysisError> {
    use std::fmt::Write as _;
    let pthread = build.catalogue.kind != syncmut_mutator::api::Family::Systemc;
    let scratch = root.join("gen").join("gen-traces");
    std::fs::create_dir_all(&scratch).map_err(|source| AnalysisError::Io {
        what: format!("create {}", scratch.display()),
        source,
    })?;
    let (run, label, verb) = match default_run {
        Some(run) => (run, "default (no arguments, as generation ran it)", "using"),
        None => (
            syncmut_analysis::suite::run_candidate(
                &build.metamutant,
                &syncmut_analysis::inputs::TestValues::default(),
                pthread,
                &scratch.join(syncmut_runtime::trace::binary_name("default")),
                None,
            )
            .map_err(|source| AnalysisError::Io {
                what: format!("run {}", build.metamutant.display()),
                source,
            })?,
            "default (no arguments)",
            "running",
        ),
    };
    let mut report = format!(
        "generation kept no usable test; {verb} the design's default invocation (no arguments)"
    );
    let mut tests = vec![syncmut_runner::test_case::TestCase {
        name: "default".into(),
        args: vec![],
        nondet: vec![],
        inputs: Default::default(),
        program: None,
        setting: Default::default(),
    }];
    let mut reached = vec![(label.to_string(), run.reached, run.unusable)];
    if let Generation::Wp {
        options,
        budget,
        seed,
    } = plan
    {
        let random = syncmut_analysis::random_for(
            build,
            root,
            &root.join("gen").join("random"),
            options,
            *budget,
            *seed,
        )?;
        let suite = &random.baseline.suite;
        let before = tests.len();
        for (t, name) in suite
            .tests
            .iter()
            .zip(syncmut_analysis::suite::names(suite, "random"))
        {
            if t.args.is_empty() && t.nondet.is_empty() && t.inputs.is_empty() {
                continue;
            }
            let values = syncmut_analysis::inputs::TestValues {
                args: t.args.clone(),
                nondet: t.nondet.clone(),
                inputs: t.inputs.clone(),
            };
            reached.push((
                format!("{name}: {}", describe_values(&values)),
                t.reached.clone(),
                None,
            ));
            tests.push(syncmut_runner::test_case::TestCase {
                name,
                args: t.args.clone(),
                nondet: t.nondet.clone(),
                inputs: t.inputs.clone(),
                program: None,
                setting: Default::default(),
            });
        }
        let _ = write!(
            report,
            " and the random baseline's {} other test(s) ({budget} draws, seed {seed})",
            tests.len() - before
        );
    }
    report.push_str(" instead");
    for (what, sites, unusable) in reached {
        let sites = if sites.is_empty() {
            "no site".to_string()
        } else {
            format!(
                "site(s) {}",
                sites
                    .iter()
                    .map(|s| s.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        let _ = write!(report, "\n  {what} reaches {sites}");
        if let Some(why) = unusable {
            let _ = write!(report, " ({why})");
        }
    }
    Ok((tests, report))
}
