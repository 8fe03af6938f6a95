//! The `syncmut` command line. Only argument handling, console output and exit codes
//! live here; every stage is a library crate.

mod config;
mod console;
mod exit;
mod explore;
mod gen;
mod interrupt;
mod results;
mod run;
mod table;

use anyhow::Context as _;
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use syncmut_mutator::metamutant;
use syncmut_mutator::{Design, MutatorError};
use syncmut_oracle::{lab, report};

#[derive(Parser)]
#[command(name = "syncmut", version, about = "Mutation testing for the synchronization of pthread and SystemC designs")]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Compile every translation unit afresh, neither reading nor filling the compile
    /// cache (the same as SYNCMUT_CACHE=0)
    #[arg(long, global = true)]
    no_cache: bool,
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
        /// Test generation: `wp` (weakest precondition + SMT, the default), `random`
        /// (the random baseline) or `none` (only the tests given).
        #[arg(long, value_parser = ["wp", "random", "none"])]
        gen: Option<String>,
        #[command(flatten)]
        generation: GenFlags,
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
        /// pthread designs: explore N schedules per (mutant, test) instead of the one
        /// deterministic default schedule, and report kill fractions.
        #[arg(long, value_name = "N")]
        schedules: Option<usize>,
        /// How the N schedules are chosen: random (seeds 1…N, the default), pct
        /// (priorities with depth-1 change points) or dfs (depth-first over scheduling
        /// choices with a preemption bound; "exhaustive" when it covers the bounded space).
        #[arg(long, value_parser = syncmut_oracle::schedules::StrategyName::NAMES)]
        strategy: Option<String>,
        /// dfs: at most this many preemptions per schedule (default 2).
        #[arg(long, value_name = "K")]
        preemptions: Option<u32>,
        /// pct: bug depth d, d-1 priority change points (default 3).
        #[arg(long, value_name = "D")]
        depth: Option<u32>,
        #[command(flatten)]
        interleave: InterleaveArg,
        /// Exit with code 8 when the mutation score (percent) is below this.
        #[arg(long, value_name = "PCT")]
        fail_under: Option<f64>,
        /// Keep the trace of every run under traces/ (capped, like every kept trace), not
        /// only those the killed mutants' diffs need.
        #[arg(long)]
        keep_traces: bool,
    },
    /// Explain a killed mutant: original and mutant traces side by side per thread,
    /// the first divergence, and who was left waiting where.
    Explain {
        /// The run directory.
        dir: PathBuf,
        /// The mutant id (as in mutants.json, e.g. `top::t1#1:remove`).
        mutant: String,
    },
    /// Re-run a killed mutant on its killing test (and schedule) and check that it
    /// reproduces the saved trace exactly.
    Replay {
        /// The run directory.
        dir: PathBuf,
        /// The mutant id.
        mutant: String,
        /// The test (default: the one that killed the mutant).
        test: Option<String>,
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
        #[arg(long, default_value = "markdown", value_parser = results::parse_format)]
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
        /// `wp` (weakest precondition + SMT) or `random` (the baseline: random inputs
        /// over the same input vector, confirmed the same way).
        #[arg(long, default_value = "wp", value_parser = ["wp", "random"])]
        gen: String,
        /// Run both WP and the random baseline (into DIR/random) and print them side by
        /// side: sites reached, tests needed, executions.
        #[arg(long)]
        compare: bool,
        #[command(flatten)]
        generation: GenFlags,
    },
    /// Build the metamutant: writes design.bc, metamutant.bc, mutants.json and the
    /// `original` and `metamutant` executables into the output directory.
    Mutate {
        #[command(flatten)]
        design: DesignArgs,
        /// Output directory.
        #[arg(short, long, default_value = "syncmut.out")]
        output: PathBuf,
        #[command(flatten)]
        interleave: InterleaveArg,
    },
}

#[derive(Args)]
struct InterleaveArg {
    /// pthread designs: scheduling points are synchronization calls (`sync`, the
    /// default) or also every load/store of possibly shared memory (`memory`: globals,
    /// memory reached through pointers), so data races and spin-waits are explored.
    #[arg(long, value_parser = syncmut_mutator::interleave::Interleave::parse)]
    interleave: Option<syncmut_mutator::interleave::Interleave>,
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

/// Settings of test generation shared by `gen` and `run` (also in syncmut.toml).
#[derive(Args)]
struct GenFlags {
    /// SMT solver for `wp`: `z3` (default) or `cvc5`.
    #[arg(long, value_parser = parse_solver)]
    solver: Option<syncmut_analysis::smt::SolverKind>,
    /// Per-query solver timeout in milliseconds (default 5000).
    #[arg(long, value_name = "MS")]
    solver_timeout: Option<u32>,
    /// Random baseline: number of random draws (default 100).
    #[arg(long, value_name = "N")]
    budget: Option<usize>,
    /// Random baseline: seed of the draws (default 1).
    #[arg(long)]
    seed: Option<u64>,
}

impl GenFlags {
    /// The plan for `gen` (the `--gen` value), flags winning over syncmut.toml.
    fn plan(&self, gen: &str, bound: u32, file: &config::Config) -> gen::Generation {
        let solver = syncmut_analysis::smt::SolverConfig {
            kind: self.solver.or(file.solver).unwrap_or_default(),
            timeout_ms: self.solver_timeout.or(file.solver_timeout).unwrap_or(syncmut_analysis::smt::DEFAULT_TIMEOUT_MS),
        };
        let budget = self.budget.or(file.budget).unwrap_or(syncmut_analysis::random::DEFAULT_BUDGET);
        gen::Generation::new(gen, bound, solver, budget, self.seed.unwrap_or(syncmut_analysis::random::DEFAULT_SEED))
    }
}

fn parse_solver(s: &str) -> Result<syncmut_analysis::smt::SolverKind, String> {
    s.parse()
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
    // First of all, so a signal during any later step finds the handler.
    let watching = interrupt::watch();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            // --help and --version are not errors.
            return ExitCode::from(if e.use_stderr() { exit::USAGE } else { exit::OK } as u8);
        }
    };
    if cli.no_cache {
        // Read by every compile (mutator toolchain); set before any work starts. The only
        // other thread, the signal watcher, reads no environment.
        std::env::set_var(syncmut_mutator::toolchain::CACHE_ENV, "0");
    }
    if let Err(e) = watching {
        eprintln!("syncmut: warning: cannot watch for SIGINT/SIGTERM ({e}); an interrupted run may leave temporary files");
    }
    let result = run(cli);
    interrupt::defer_to_watcher();
    match result {
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
                if !scan.globals.is_empty() {
                    let names: Vec<&str> = scan.globals.iter().map(|g| g.name.as_str()).collect();
                    println!("state recorded at each synchronization event: {}", names.join(", "));
                }
            }
            Ok(no_sites_check(&design, &scan.catalogue))
        }
        Command::Gen { design, output, bound, gen, compare, generation } => {
            let file = config::load(&design.design).map_err(|error| Failure { code: exit::USAGE, error })?;
            let plan = generation.plan(if compare { "random" } else { &gen }, bound, &file);
            let design = design.design()?;
            gen::gen_command(&design, &output, &plan, compare).map_err(|(code, error)| Failure { code, error })
        }
        Command::Run { mut design, tests, gen, generation, output, jobs, resume, schedules, strategy, preemptions, depth, interleave, fail_under, keep_traces } => {
            // Command-line flags win over syncmut.toml, which wins over defaults.
            let file = config::load(&design.design).map_err(|error| Failure { code: exit::USAGE, error })?;
            config::check_limits(jobs.or(file.jobs), schedules.or(file.schedules), fail_under.or(file.fail_under))
                .map_err(|error| Failure { code: exit::USAGE, error })?;
            let strategy = config::strategy(
                strategy.or(file.strategy.clone()).as_deref(),
                schedules.or(file.schedules),
                preemptions.or(file.preemptions),
                depth.or(file.depth),
            )
            .map_err(|error| Failure { code: exit::USAGE, error })?;
            let mut config = lab::RunSettings { strategy, keep_traces, ..lab::RunSettings::default() };
            if let Some(jobs) = jobs.or(file.jobs) {
                config.jobs = jobs;
            }
            if design.flags.is_empty() {
                design.flags = file.flags.clone().unwrap_or_default();
            }
            let plan = generation.plan(gen.as_deref().or(file.gen.as_deref()).unwrap_or("wp"), syncmut_analysis::DEFAULT_BOUND, &file);
            let output = output.or(file.output).unwrap_or_else(|| PathBuf::from("syncmut.out"));
            let fail_under = fail_under.or(file.fail_under);
            let interleave = interleave.interleave.or(file.interleave);
            let score = run::run_command(&design, tests.or(file.tests), &plan, &output, &config, resume, interleave)?;
            Ok(match (score, fail_under) {
                (Some(score), Some(threshold)) if score < threshold => {
                    eprintln!("syncmut: mutation score {score:.1}% is below --fail-under {threshold}%");
                    exit::SCORE_BELOW_THRESHOLD
                }
                (None, _) => exit::NO_SITES,
                _ => exit::OK,
            })
        }
        Command::Report { dir, format, output } => results::report_command(&dir, format, output.as_deref()),
        Command::Explain { dir, mutant } => results::explain_command(&dir, &mutant),
        Command::Replay { dir, mutant, test } => results::replay_command(&dir, &mutant, test.as_deref()),
        Command::Explore(args) => explore::explore_command(&args).map_err(|(code, error)| Failure { code, error }),
        Command::Mutate { design, output, interleave } => {
            let design_paths = design.design.clone();
            let design = design.design()?;
            let file = config::load(&design_paths).map_err(|error| Failure { code: exit::USAGE, error })?;
            let options = metamutant::Options { interleave: interleave.interleave.or(file.interleave).unwrap_or_default() };
            let out = run::open_run_directory(&output)?;
            let build = metamutant::build_with(&design, out.root(), &options)?;
            print_warnings(&build.warnings);
            let accesses = if options.interleave.is_sync() { String::new() } else { format!(", {} shared-memory accesses as scheduling points", build.shared_accesses) };
            println!(
                "{} sites, {} mutants{accesses} → {}",
                build.catalogue.sites.len(),
                build.catalogue.mutants.len(),
                output.display()
            );
            Ok(no_sites_check(&design, &build.catalogue))
        }
    }
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
