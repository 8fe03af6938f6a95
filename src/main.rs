//! The `syncmut` command line. Only argument handling, console output and exit codes
//! live here; every stage is a library crate.

mod config;
mod console;
mod exit;
mod explore;
mod gen;
mod table;

use anyhow::Context as _;
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use syncmut_mutator::metamutant;
use syncmut_mutator::{Design, MutatorError};
use syncmut_oracle::{lab, report};
use syncmut_oracle::outdir::OutDir;

#[derive(Parser)]
#[command(name = "syncmut", version, about = "Mutation testing for the synchronization of pthread and SystemC designs")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the synchronization sites and mutants of a design.
    List {
        #[command(flatten)]
        design: DesignArgs,
        /// Print the catalogue as JSON (the format of mutants.json).
        #[arg(long)]
        json: bool,
    },
    /// The main job: build the metamutant, run the original and every mutant on the
    /// tests, and report verdicts and the mutation score.
    Run {
        #[command(flatten)]
        design: DesignArgs,
        /// Test file (docs/tests-format.md), used in addition to generated tests;
        /// default: `tests.json` in the design directory, if any.
        #[arg(long)]
        tests: Option<PathBuf>,
        /// Test generation: `wp` (weakest precondition + SMT, the default) or `none`
        /// (only the tests given).
        #[arg(long, value_parser = ["wp", "none"])]
        gen: Option<String>,
        /// Output directory (default `syncmut.out`).
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Parallel executions (default: number of cores).
        #[arg(short, long)]
        jobs: Option<usize>,
        /// Continue an interrupted run in the same output directory: finished runs are
        /// kept, not redone.
        #[arg(long)]
        resume: bool,
        /// pthread designs: explore N seeded random schedules per (mutant, test) instead
        /// of the one deterministic default schedule, and report kill fractions.
        #[arg(long, value_name = "N")]
        schedules: Option<usize>,
        /// Exit with code 8 when the mutation score (percent) is below this.
        #[arg(long, value_name = "PCT")]
        fail_under: Option<f64>,
    },
    /// Explain a killed mutant: original and mutant traces side by side per thread,
    /// the first divergence, and who was left waiting where.
    Explain {
        /// The run directory.
        dir: PathBuf,
        /// The mutant id (as in mutants.json, e.g. `top::t1#1:remove`).
        mutant: String,
    },
    /// Look for concurrency bugs (assertions, deadlocks, crashes, livelocks) in the
    /// original program under many schedules; exit 9 when one is found.
    Explore(explore::ExploreArgs),
    /// Re-render a report from a run directory's saved results (nothing is run).
    Report {
        /// The run directory (`syncmut.out` by default).
        #[arg(default_value = "syncmut.out")]
        dir: PathBuf,
        /// csv, json, junit, markdown, github (workflow annotations), mte
        /// (mutation-testing-elements JSON) or html.
        #[arg(long, default_value = "markdown", value_parser = parse_format)]
        format: report::Format,
        /// Write to this file instead of stdout.
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Generate tests that reach every synchronization site (weakest precondition +
    /// SMT), confirmed by running the metamutant; writes DIR/tests.json, DIR/formulas/,
    /// DIR/sites.json.
    Gen {
        #[command(flatten)]
        design: DesignArgs,
        /// Output directory.
        #[arg(short, long, default_value = "syncmut.gen")]
        output: PathBuf,
        /// Loop unroll bound.
        #[arg(long, default_value_t = syncmut_analysis::DEFAULT_BOUND)]
        bound: u32,
    },
    /// Build the metamutant: writes design.bc, metamutant.bc, mutants.json and the
    /// `original` and `metamutant` executables into the output directory.
    Mutate {
        #[command(flatten)]
        design: DesignArgs,
        /// Output directory.
        #[arg(short, long, default_value = "syncmut.out")]
        output: PathBuf,
    },
}

#[derive(Args)]
struct DesignArgs {
    /// C/C++ sources, a directory of sources, or an LLVM module (.bc/.ll).
    #[arg(required = true)]
    design: Vec<PathBuf>,
    /// Extra compiler flags (e.g. `-Iinclude -DN=4`); `-l`/`-L`/`-Wl,` go to the link.
    #[arg(last = true)]
    flags: Vec<String>,
}

impl DesignArgs {
    fn design(&self) -> Result<Design, MutatorError> {
        Design::from_paths(&self.design, &self.flags)
    }
}

/// A failure with the exit code it maps to.
struct Failure {
    code: i32,
    error: anyhow::Error,
}

impl From<MutatorError> for Failure {
    fn from(error: MutatorError) -> Self {
        Failure { code: exit::for_mutator_error(&error), error: error.into() }
    }
}

impl From<anyhow::Error> for Failure {
    fn from(error: anyhow::Error) -> Self {
        Failure { code: exit::INTERNAL, error }
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            // --help and --version are not errors.
            return ExitCode::from(if e.use_stderr() { exit::USAGE } else { exit::OK } as u8);
        }
    };
    match run(cli) {
        Ok(code) => ExitCode::from(code as u8),
        Err(failure) => {
            eprintln!("syncmut: error: {:#}", failure.error);
            ExitCode::from(failure.code as u8)
        }
    }
}

fn run(cli: Cli) -> Result<i32, Failure> {
    match cli.command {
        Command::List { design, json } => {
            let design = design.design()?;
            let workdir = tempfile::tempdir().context("create a temporary build directory")?;
            let scan = metamutant::scan(&design, workdir.path())?;
            print_warnings(&scan.warnings);
            if json {
                println!("{}", serde_json::to_string_pretty(&scan.catalogue).context("serialise catalogue")?);
            } else {
                print!("{}", table::catalogue(&scan.catalogue));
            }
            Ok(no_sites_check(&design, &scan.catalogue))
        }
        Command::Gen { design, output, bound } => {
            let design = design.design()?;
            gen::gen_command(&design, &output, bound).map_err(|(code, error)| Failure { code, error })
        }
        Command::Run { mut design, tests, gen, output, jobs, resume, schedules, fail_under } => {
            // Command-line flags win over syncmut.toml, which wins over defaults.
            let file = config::load(&design.design).map_err(|error| Failure { code: exit::USAGE, error })?;
            let mut config = lab::Config::default().with_schedules(schedules.or(file.schedules).unwrap_or(1));
            if let Some(jobs) = jobs.or(file.jobs) {
                config.jobs = jobs.max(1);
            }
            if design.flags.is_empty() {
                design.flags = file.flags.unwrap_or_default();
            }
            let generate = gen.or(file.gen).map_or(true, |g| g == "wp");
            let output = output.or(file.output).unwrap_or_else(|| PathBuf::from("syncmut.out"));
            let fail_under = fail_under.or(file.fail_under);
            let score = run_command(&design, tests.or(file.tests), generate, &output, &config, resume)?;
            Ok(match (score, fail_under) {
                (Some(score), Some(threshold)) if score < threshold => {
                    eprintln!("syncmut: mutation score {score:.1}% is below --fail-under {threshold}%");
                    exit::SCORE_BELOW_THRESHOLD
                }
                (None, _) => exit::NO_SITES,
                _ => exit::OK,
            })
        }
        Command::Report { dir, format, output } => report_command(&dir, format, output.as_deref()),
        Command::Explain { dir, mutant } => explain_command(&dir, &mutant),
        Command::Explore(args) => explore::explore_command(&args).map_err(|(code, error)| Failure { code, error }),
        Command::Mutate { design, output } => {
            let design = design.design()?;
            let build = metamutant::build(&design, &output)?;
            print_warnings(&build.warnings);
            println!(
                "{} sites, {} mutants → {}",
                build.catalogue.sites.len(),
                build.catalogue.mutants.len(),
                output.display()
            );
            Ok(no_sites_check(&design, &build.catalogue))
        }
    }
}

/// Runs the main job; returns the mutation score, or None when there is nothing to
/// mutate.
fn run_command(
    args: &DesignArgs,
    tests: Option<PathBuf>,
    generate: bool,
    output: &std::path::Path,
    config: &lab::Config,
    resume: bool,
) -> Result<Option<f64>, Failure> {
    let design = args.design()?;
    let given = match tests.or_else(|| default_tests_file(&args.design)) {
        Some(path) => syncmut_oracle::test_case::load(&path).map_err(oracle_failure)?,
        None if generate => Vec::new(),
        None => {
            return Err(Failure {
                code: exit::USAGE,
                error: anyhow::anyhow!("no tests: with --gen none, pass --tests FILE (format: docs/tests-format.md) or put a tests.json beside the design"),
            })
        }
    };
    let out = OutDir::open(output).map_err(oracle_failure)?;
    let (previous_catalogue, previous_runs) = if resume {
        (read_catalogue(&out), lab::saved_runs(&out))
    } else {
        (None, Vec::new())
    };
    let build = metamutant::build(&design, out.root())?;
    if resume && previous_catalogue.as_ref() != Some(&build.catalogue) {
        return Err(Failure {
            code: exit::USAGE,
            error: anyhow::anyhow!(
                "{}: cannot resume: the design's mutants differ from the interrupted run's (or it left no mutants.json); run again without --resume",
                out.root().display()
            ),
        });
    }
    print_warnings(&build.warnings);
    if build.catalogue.sites.is_empty() {
        no_sites_check(&design, &build.catalogue);
        return Ok(None);
    }
    let tests = if generate { with_generated_tests(&build, out.root(), given)? } else { given };
    let progress = console::Bar::new();
    let outcomes = lab::run(&build, &tests, &out, config, &progress, previous_runs).map_err(oracle_failure)?;
    progress.finish();
    for (name, format) in [("report.html", report::Format::Html), ("mutation-report.json", report::Format::Mte)] {
        out.write(name, &report::render_in(Some(out.root()), format, &build.catalogue, &outcomes)).map_err(oracle_failure)?;
    }
    let baseline: Vec<syncmut_oracle::outcome::Baseline> =
        serde_json::from_slice(&std::fs::read(out.path(syncmut_oracle::outdir::BASELINE)).context("read baseline.json")?)
            .context("parse baseline.json")?;
    print!("{}", table::baseline(&build.catalogue, &baseline));
    print!("{}", table::outcomes(&outcomes));
    println!("results in {}", out.root().display());
    Ok(Some(outcomes.score.percent))
}

/// Reads the catalogue and outcomes saved in a run directory.
fn saved_results(dir: &std::path::Path) -> Result<(syncmut_mutator::Catalogue, syncmut_oracle::Outcomes), Failure> {
    fn load<T: serde::de::DeserializeOwned>(dir: &std::path::Path, name: &str) -> anyhow::Result<T> {
        let path = dir.join(name);
        let bytes = std::fs::read(&path)
            .with_context(|| format!("{}: cannot read (is {} a syncmut run directory?)", path.display(), dir.display()))?;
        serde_json::from_slice(&bytes).with_context(|| format!("{}: not a valid {name}", path.display()))
    }
    let usage = |error: anyhow::Error| Failure { code: exit::USAGE, error };
    let catalogue = load(dir, metamutant::layout::CATALOGUE).map_err(usage)?;
    let outcomes = load(dir, syncmut_oracle::outdir::OUTCOMES).map_err(usage)?;
    Ok((catalogue, outcomes))
}

fn explain_command(dir: &std::path::Path, id: &str) -> Result<i32, Failure> {
    let (catalogue, outcomes) = saved_results(dir)?;
    let usage = |message: String| Failure { code: exit::USAGE, error: anyhow::anyhow!(message) };
    let mutant = catalogue.mutant(id).ok_or_else(|| usage(format!("{}: no mutant {id:?} (see mutants.json)", dir.display())))?;
    let outcome = outcomes.mutants.iter().find(|m| m.mutant == id).ok_or_else(|| usage(format!("{id}: not run yet")))?;
    let Some(test) = outcome.killed_by.as_deref() else {
        println!("mutant {id}: {} — {}
only killed mutants keep their traces; nothing to compare", outcome.verdict, outcome.reason);
        return Ok(exit::OK);
    };
    let schedule = outcome.runs.iter().find(|r| r.test == test).and_then(|r| r.schedule.as_deref());
    let trace_of = |mutant: Option<&str>| -> Result<syncmut_oracle::trace::Trace, Failure> {
        syncmut_oracle::trace::read(&syncmut_oracle::outdir::trace_file(dir, test, mutant, schedule)).map_err(usage)
    };
    let original = trace_of(None)?;
    let mutated = trace_of(Some(id))?;
    let verdict_line = format!("{}: {}", outcome.verdict, outcome.reason);
    print!("{}", syncmut_oracle::explain::render(&catalogue, mutant, test, &verdict_line, &original, &mutated));
    Ok(exit::OK)
}

fn report_command(dir: &std::path::Path, format: report::Format, output: Option<&std::path::Path>) -> Result<i32, Failure> {
    let (catalogue, outcomes) = saved_results(dir)?;
    let bytes = report::render_in(Some(dir), format, &catalogue, &outcomes);
    match output {
        Some(path) => syncmut_mutator::atomic::write(path, &bytes)?,
        None => {
            use std::io::Write;
            std::io::stdout().write_all(&bytes).context("write the report")?;
        }
    }
    Ok(exit::OK)
}

fn parse_format(name: &str) -> Result<report::Format, String> {
    report::Format::ALL.iter().find(|(n, _)| *n == name).map(|(_, f)| *f).ok_or_else(|| {
        let names: Vec<&str> = report::Format::ALL.iter().map(|(n, _)| *n).collect();
        format!("unknown format {name:?}; one of: {}", names.join(", "))
    })
}

/// Generates tests into `DIR/gen/` and puts them after the given ones (a generated
/// test whose arguments equal a given test's is dropped).
fn with_generated_tests(
    build: &metamutant::Build,
    root: &std::path::Path,
    mut tests: Vec<syncmut_oracle::TestCase>,
) -> Result<Vec<syncmut_oracle::TestCase>, Failure> {
    let options = syncmut_analysis::Options { bound: syncmut_analysis::DEFAULT_BOUND };
    match syncmut_analysis::generate_for(build, root, &root.join("gen"), &options) {
        Ok(generated) => {
            let found = syncmut_oracle::test_case::load(&generated.tests_file).unwrap_or_default();
            eprintln!(
                "syncmut: generated {} test(s) reaching {}/{} reachable sites (confirmed by execution)",
                found.len(),
                generated.suite.confirmed.len(),
                generated.suite.reachable.len()
            );
            for test in found {
                if !tests.iter().any(|t| t.args == test.args) {
                    let name = if tests.iter().any(|t| t.name == test.name) { format!("gen-{}", test.name) } else { test.name };
                    tests.push(syncmut_oracle::TestCase { name, args: test.args });
                }
            }
        }
        // A missing or broken solver costs the generated tests, not the run: the given
        // tests still judge every mutant they reach.
        Err(e) if !tests.is_empty() => eprintln!("syncmut: warning: test generation skipped: {e}; using the given tests only"),
        Err(e) => {
            let solver = e.downcast_ref::<syncmut_analysis::AnalysisError>().is_some_and(|a| matches!(a, syncmut_analysis::AnalysisError::Solver(_)));
            return Err(Failure { code: if solver { exit::TOOL_MISSING } else { exit::INTERNAL }, error: anyhow::anyhow!("test generation: {e}") });
        }
    }
    if tests.is_empty() {
        return Err(Failure {
            code: exit::NO_USABLE_TEST,
            error: anyhow::anyhow!("no tests: generation found none and none were given (--tests FILE)"),
        });
    }
    Ok(tests)
}

fn read_catalogue(out: &OutDir) -> Option<syncmut_mutator::Catalogue> {
    serde_json::from_slice(&std::fs::read(out.path(metamutant::layout::CATALOGUE)).ok()?).ok()
}

fn default_tests_file(design: &[PathBuf]) -> Option<PathBuf> {
    design.iter().filter(|p| p.is_dir()).map(|d| d.join("tests.json")).find(|p| p.is_file())
}

fn oracle_failure(error: syncmut_oracle::OracleError) -> Failure {
    let code = match &error {
        syncmut_oracle::OracleError::Mutator(e) => exit::for_mutator_error(e),
        syncmut_oracle::OracleError::BadTestFile { .. } | syncmut_oracle::OracleError::Read { .. } => exit::USAGE,
        syncmut_oracle::OracleError::Locked { .. } => exit::LOCKED,
        syncmut_oracle::OracleError::NoUsableTest { .. } => exit::NO_USABLE_TEST,
        _ => exit::INTERNAL,
    };
    Failure { code, error: error.into() }
}

fn print_warnings(warnings: &[String]) {
    for warning in warnings {
        eprintln!("syncmut: warning: {warning}");
    }
}

/// A design without sites is not an error of the build, but nothing can be tested:
/// say so and return the documented code.
fn no_sites_check(design: &Design, catalogue: &syncmut_mutator::Catalogue) -> i32 {
    if catalogue.sites.is_empty() {
        let names: Vec<String> = design.inputs.iter().map(|i| i.path.display().to_string()).collect();
        eprintln!(
            "syncmut: {}: no synchronization calls found in user code (pthread or SystemC); nothing to mutate",
            names.join(", ")
        );
        exit::NO_SITES
    } else {
        exit::OK
    }
}
