//! The `syncmut` command line. Only argument handling, console output and exit codes
//! live here; every stage is a library crate.

mod build_input;
mod config;
mod console;
mod design_args;
mod exit;
mod explore;
mod explore_args;
mod explore_verdict;
mod failure;
mod gates;
mod gen;
mod ilp32;
mod interrupt;
mod linked_programs;
mod merge;
mod program_union;
mod programs;
mod progress;
mod results;
mod run;
mod run_dir;
mod selection;
mod shard;
mod sim_bound;
mod strategy_help;
mod svcomp;
mod table;
mod test_cmd;
mod witness;
mod wrapper;

use anyhow::Context as _;
use clap::{Args, Parser, Subcommand};
use console::print_warnings;
use design_args::DesignArgs;
use failure::Failure;
use gates::{no_sites_check, score_gate};
use std::path::PathBuf;
use std::process::ExitCode;
use syncmut_mutator::metamutant;
use syncmut_oracle::{lab, report, strategies};

#[derive(Parser)]
#[command(
    name = "syncmut",
    version,
    about = "Mutation testing for the synchronization of pthread and SystemC designs",
    after_help = "Compiler wrapper for a project's own build: `syncmut cc ARGS…` / `syncmut c++ ARGS…` (e.g. make CC=\"syncmut cc\"); see docs/usage.md"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Compile every translation unit afresh, neither reading nor filling the compile
    /// cache (the same as SYNCMUT_CACHE=0)
    #[arg(long, global = true)]
    no_cache: bool,
}

#[derive(Subcommand)]
// One value, parsed once at start-up: its size does not matter.
#[allow(clippy::large_enum_variant)]
enum Command {
    /// List the synchronization sites and mutants of a design.
    List {
        #[command(flatten)]
        design: DesignArgs,
        /// Print the catalogue as JSON (the format of mutants.json).
        #[arg(long)]
        json: bool,
        /// Propose `[[sync]]` declarations for syncmut.toml: small functions whose
        /// body is essentially one synchronization call.
        #[arg(long)]
        suggest: bool,
        #[command(flatten)]
        select: selection::SelectArgs,
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
        /// The project's own test driver (`make check`), run by `sh -c` as one more
        /// test, in a copy of the current directory, with `SYNCMUT_BIN` naming the
        /// program to test (the metamutant): a mutant is killed when the driver fails
        /// or the observed behaviour differs.
        #[arg(long, value_name = "CMD")]
        test_cmd: Option<String>,
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
        #[arg(long, value_name = "N", help = strategy_help::run_schedules())]
        schedules: Option<usize>,
        #[arg(
            long,
            value_parser = strategy_help::parser(strategies::Command::Run),
            help = strategy_help::run_strategy()
        )]
        strategy: Option<String>,
        /// pthread designs: N runs with real threads (no controlled scheduler) per
        /// (mutant, test) the controlled schedules left alive; they kill by a crash, an
        /// assertion, a hang, an exit status or an output no run of the original shows
        /// (default 5; 0 turns them off).
        #[arg(long, value_name = "N")]
        native: Option<usize>,
        /// pthread designs: runs of the original's search (every schedule with at most 2
        /// preemptions) that decides whether the original can show what a mutant's run
        /// showed when following that run is no proof; a difference the search cannot
        /// decide is not claimed as a kill (default 600).
        #[arg(long, value_name = "N")]
        search_runs: Option<usize>,
        /// Run the original in place of every mutant, under other seeds than the
        /// baseline's: every kill would be a false one; exits 11 if there is any.
        #[arg(long)]
        self_check: bool,
        #[arg(
            long,
            value_name = "K",
            value_parser = explore_args::preemption_bound,
            help = strategy_help::run_preemptions()
        )]
        preemptions: Option<u32>,
        #[arg(long, value_parser = explore_args::por_name(), help = strategy_help::run_por())]
        por: Option<syncmut_oracle::schedules::Por>,
        #[arg(long, value_name = "D", help = strategy_help::run_depth())]
        depth: Option<u32>,
        #[command(flatten)]
        interleave: InterleaveArg,
        /// pthread designs: check every run for data races (shared loads and stores
        /// instrumented for a happens-before detector, no extra scheduling points); a
        /// mutant with a race the original does not have on the test is killed-by-race.
        /// On by default; `--races=false` switches it off.
        #[arg(long, value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true")]
        races: Option<bool>,
        /// Exit with code 8 when the mutation score (percent) is below this.
        #[arg(long, value_name = "PCT")]
        fail_under: Option<f64>,
        /// SystemC designs: no `sc_start` runs the simulation past this simulated time
        /// ("10 us", "500 ns", "2 ms"), for tests without their own `sim_time`; a clocked
        /// design that never stops by itself then ends.
        #[arg(long, value_name = "TIME")]
        sim_time: Option<syncmut_runner::test_case::SimTime>,
        /// `vary` (the default): the baseline repeats the original in another virtual
        /// world (clock start, random stream) and leaves what differs out of every
        /// comparison; `fixed`: every run in one world, for a design whose whole output
        /// depends on random values (`srand(time(NULL))`).
        #[arg(long, value_name = "vary|fixed")]
        entropy: Option<syncmut_oracle::lab::Entropy>,
        /// How long one run of the original may take, in seconds (default 20): a test
        /// whose original runs longer is set aside; each mutant's limit follows from the
        /// original's own time.
        #[arg(long, value_name = "SECS")]
        timeout: Option<f64>,
        #[command(flatten)]
        select: selection::SelectArgs,
        /// Keep the trace of every run under traces/ (capped, like every kept trace), not
        /// only those the killed mutants' diffs need.
        #[arg(long)]
        keep_traces: bool,
        /// End each (mutant, test) pair at its first kill under every strategy, as the
        /// default budget does: random and pct skip their remaining schedules, dfs the
        /// rest of its space, and the reason names the killing schedule instead of a kill
        /// fraction. Survivors still run every schedule (dfs's `equivalent-exhaustive`
        /// keeps its meaning).
        #[arg(long)]
        stop_at_first_kill: bool,
    },
    /// Combine the run directories of shards (`run --shard k/n`) into one: outcomes,
    /// score and reports of all their mutants.
    Merge(merge::MergeArgs),
    /// Explain a killed mutant: original and mutant traces side by side per thread,
    /// the first divergence, and who was left waiting where.
    Explain {
        /// The run directory.
        dir: PathBuf,
        /// The mutant id (as in mutants.json, e.g. `top::t1#1:remove`).
        mutant: String,
    },
    /// Re-run a killed mutant on its killing test (and schedule) and check that it
    /// reproduces the saved trace exactly; given an explore directory, replay its
    /// counterexample.
    Replay {
        /// The run directory (or an explore directory).
        dir: PathBuf,
        /// The mutant id (none for an explore directory).
        mutant: Option<String>,
        /// The test (default: the one that killed the mutant).
        test: Option<String>,
    },
    /// Look for concurrency bugs (assertions, deadlocks, crashes, livelocks) in the
    /// original program under many schedules; exit 9 when one is found, 12 when none was
    /// but runs ended at the thread limit (docs/exit-codes.md).
    Explore(explore_args::ExploreArgs),
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
        /// pthread designs: instrument shared loads and stores for the runtime's race
        /// detector (`SYNCMUT_RACES_OUT`), as `run --races` does.
        #[arg(long)]
        races: bool,
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
    /// Wall time for analysing every site, in seconds (default 60); sites not tried
    /// by then are `unknown: budget`.
    #[arg(long, value_name = "SECS")]
    gen_timeout: Option<f64>,
    /// Wall time for one site's formulas and solving, in seconds (default 15).
    #[arg(long, value_name = "SECS")]
    site_timeout: Option<f64>,
    /// Memory syncmut may use while building a formula, in MB (default 512).
    #[arg(long, value_name = "MB")]
    gen_memory: Option<u64>,
    /// Largest formula solved, in distinct terms (default 2000000).
    #[arg(long, value_name = "N")]
    formula_terms: Option<usize>,
    /// Bytes of formula files kept in `formulas/`, in MB (default 8).
    #[arg(long, value_name = "MB")]
    formula_budget: Option<u64>,
    /// Analyse every site, also those the design's default invocation (no arguments,
    /// no inputs) reaches; by default that invocation runs first, and the sites it
    /// reaches take it as their test and get no formula.
    #[arg(long)]
    analyse_all: bool,
}

impl GenFlags {
    /// The plan for `gen` (the `--gen` value), flags winning over syncmut.toml.
    fn plan(&self, gen: &str, bound: u32, file: &config::Config) -> gen::Generation {
        let solver = syncmut_analysis::smt::SolverConfig {
            kind: self.solver.or(file.solver).unwrap_or_default(),
            timeout_ms: self
                .solver_timeout
                .or(file.solver_timeout)
                .unwrap_or(syncmut_analysis::smt::DEFAULT_TIMEOUT_MS),
        };
        let budget = self
            .budget
            .or(file.budget)
            .unwrap_or(syncmut_analysis::random::DEFAULT_BUDGET);
        gen::Generation::new(
            gen,
            bound,
            solver,
            self.limits(file),
            budget,
            self.seed.unwrap_or(syncmut_analysis::random::DEFAULT_SEED),
            !self.analyse_all,
        )
    }

    /// The budgets of generation, flags winning over syncmut.toml.
    fn limits(&self, file: &config::Config) -> syncmut_analysis::budget::Budget {
        let default = syncmut_analysis::budget::Budget::default();
        let secs = |flag: Option<f64>, key: Option<f64>, default| {
            flag.or(key)
                .and_then(|s| std::time::Duration::try_from_secs_f64(s).ok())
                .unwrap_or(default)
        };
        syncmut_analysis::budget::Budget {
            total: secs(self.gen_timeout, file.gen_timeout, default.total),
            site: secs(self.site_timeout, file.site_timeout, default.site),
            memory_mb: self
                .gen_memory
                .or(file.gen_memory)
                .unwrap_or(default.memory_mb),
            max_terms: self
                .formula_terms
                .or(file.formula_terms)
                .unwrap_or(default.max_terms),
            formula_bytes: self
                .formula_budget
                .or(file.formula_budget)
                .map_or(default.formula_bytes, |mb| mb << 20),
        }
    }
}

fn parse_solver(s: &str) -> Result<syncmut_analysis::smt::SolverKind, String> {
    s.parse()
}

fn main() -> ExitCode {
    // First of all, so a signal during any later step finds the handler.
    let watching = interrupt::watch();
    // `syncmut cc`/`c++` pass every argument to the compiler untouched (no parsing).
    let mut argv = std::env::args();
    if let Some(name @ ("cc" | "c++")) = argv.nth(1).as_deref() {
        return ExitCode::from(wrapper::main(name, argv.collect()) as u8);
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            // --help and --version are not errors.
            return ExitCode::from(if e.use_stderr() {
                exit::USAGE
            } else {
                exit::OK
            } as u8);
        }
    };
    if cli.no_cache {
        // Read by every compile (mutator toolchain); set before any work starts. The only
        // other thread, the signal watcher, reads no environment.
        std::env::set_var(syncmut_mutator::build_cache::CACHE_ENV, "0");
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
        Command::List {
            design,
            json,
            suggest,
            select,
        } => {
            let file = design.config()?;
            let select = select.or_file(&file.selection());
            let design = design.design_with(&file)?;
            let workdir = tempfile::tempdir().context("create a temporary build directory")?;
            let mut scan = metamutant::scan(&design, workdir.path())?;
            print_warnings(&scan.warnings);
            if !select.is_empty() {
                let (selected, summary) =
                    select.apply(&scan.catalogue).map_err(|error| Failure {
                        code: exit::USAGE,
                        error,
                    })?;
                eprintln!("syncmut: {summary}");
                scan.catalogue = selected;
            }
            if json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&scan.catalogue).context("serialise catalogue")?
                );
            } else {
                print!("{}", table::catalogue(&scan.catalogue));
                if !scan.globals.is_empty() {
                    let names: Vec<&str> = scan.globals.iter().map(|g| g.name.as_str()).collect();
                    println!(
                        "state recorded at each synchronization event: {}",
                        names.join(", ")
                    );
                }
            }
            if suggest {
                print!("{}", suggest_text(&scan.suggestions));
            }
            Ok(no_sites_check(&design, &scan.catalogue))
        }
        Command::Gen {
            design,
            output,
            bound,
            gen,
            compare,
            generation,
        } => {
            let file = design.config()?;
            let plan = generation.plan(if compare { "random" } else { &gen }, bound, &file);
            let design = design.design_with(&file)?;
            gen::gen_command(&design, &output, &plan, compare)
                .map_err(|(code, error)| Failure { code, error })
        }
        Command::Run {
            mut design,
            tests,
            test_cmd,
            gen,
            generation,
            output,
            jobs,
            resume,
            schedules,
            strategy,
            native,
            search_runs,
            self_check,
            preemptions,
            por,
            depth,
            interleave,
            races,
            fail_under,
            sim_time,
            entropy,
            timeout,
            select,
            keep_traces,
            stop_at_first_kill,
        } => {
            // Command-line flags win over syncmut.toml, which wins over defaults.
            let file = design.config()?;
            design.sync = file.sync.clone();
            config::check_limits(
                jobs.or(file.jobs),
                schedules.or(file.schedules),
                fail_under.or(file.fail_under),
            )
            .map_err(|error| Failure {
                code: exit::USAGE,
                error,
            })?;
            let settings = syncmut_oracle::strategies::Settings {
                schedules: schedules.or(file.schedules),
                preemptions: preemptions.or(file.preemptions),
                depth: depth.or(file.depth),
                por,
                native: native.or(file.native),
            };
            let usage = |error| Failure {
                code: exit::USAGE,
                error,
            };
            let run_plan =
                config::strategy(strategy.or(file.strategy.clone()).as_deref(), &settings)
                    .map_err(usage)?;
            config::check_limits(None, Some(run_plan.native), None).map_err(usage)?;
            let search_runs = search_runs.or(file.search_runs);
            config::check_search_runs(search_runs).map_err(usage)?;
            let mut config = lab::RunSettings {
                strategy: run_plan.schedules,
                native: run_plan.native,
                self_check,
                keep_traces,
                stop_at_first_kill,
                entropy: entropy.or(file.entropy).unwrap_or_default(),
                search_runs: search_runs.unwrap_or(lab::follow_check::SEARCH_RUNS),
                ..lab::RunSettings::default()
            };
            if let Some(secs) = timeout.or(file.timeout) {
                config.baseline_timeout =
                    config::original_timeout(secs).map_err(|error| Failure {
                        code: exit::USAGE,
                        error,
                    })?;
            }
            if let Some(jobs) = jobs.or(file.jobs) {
                config.jobs = jobs;
            }
            if design.flags.is_empty() {
                design.flags = file.flags.clone().unwrap_or_default();
                design.flags_from.clone_from(&file.path);
            }
            let plan = generation.plan(
                gen.as_deref().or(file.gen.as_deref()).unwrap_or("wp"),
                syncmut_analysis::DEFAULT_BOUND,
                &file,
            );
            let output = output
                .or(file.output.clone())
                .unwrap_or_else(|| PathBuf::from("syncmut.out"));
            let fail_under = fail_under.or(file.fail_under);
            let interleave = interleave.interleave.or(file.interleave);
            let select = select.or_file(&file.selection());
            let several = match design.project.compile_db {
                Some(_) => None,
                None => programs::several(&design.design)?,
            };
            let single = programs::single(&design.design)?;
            let tests = run::TestSources {
                file: tests.or(file.tests),
                command: test_cmd.or(file.test_cmd),
                sim_time: sim_time.or(file.sim_time),
                programs: single.iter().cloned().collect(),
                program: single,
            };
            // Unset here and in syncmut.toml: on, unless a resumed run was built without.
            let races = races.or(file.races);
            let ran = match several {
                Some(several) => programs::run_programs(
                    &design,
                    &several,
                    programs::Shared {
                        tests,
                        plan: &plan,
                        output: &output,
                        config: &config,
                        resume,
                        interleave,
                        races,
                        select: &select,
                    },
                )?,
                None => run::run_command(
                    &design, tests, &plan, &output, &config, resume, interleave, races, &select,
                )?,
            };
            Ok(match (ran, fail_under) {
                (run::Ran::Score { killed, .. }, _) if self_check && killed > 0 => {
                    eprintln!("syncmut: self-check failed: the original was judged different from itself {killed} time(s)");
                    exit::SELF_CHECK_FAILED
                }
                (run::Ran::Score { percent, .. }, Some(threshold)) => {
                    score_gate(percent, threshold)
                }
                (run::Ran::NoSites, _) => exit::NO_SITES,
                (run::Ran::NoneReached, _) => exit::NO_USABLE_TEST,
                _ => exit::OK,
            })
        }
        Command::Merge(args) => merge::merge_command(&args),
        Command::Report {
            dir,
            format,
            output,
        } => results::report_command(&dir, format, output.as_deref()),
        Command::Explain { dir, mutant } => results::explain_command(&dir, &mutant),
        Command::Replay {
            dir, mutant: None, ..
        } => explore::replay_counterexample(&dir),
        Command::Replay {
            dir,
            mutant: Some(mutant),
            test,
        } => results::replay_command(&dir, &mutant, test.as_deref()),
        Command::Explore(args) => {
            explore::explore_command(&args).map_err(|(code, error)| Failure { code, error })
        }
        Command::Mutate {
            design,
            output,
            interleave,
            races,
        } => {
            let file = design.config()?;
            let design = design.design_with(&file)?;
            let options = metamutant::Options {
                interleave: interleave
                    .interleave
                    .or(file.interleave)
                    .unwrap_or_default(),
                races: races || file.races.unwrap_or(false),
            };
            let out = run_dir::open_run_directory(&output)?;
            let build = metamutant::build_with(&design, out.root(), &options)?;
            print_warnings(&build.warnings);
            let accesses = match (options.interleave.is_sync(), build.catalogue.races) {
                (false, _) => format!(
                    ", {} shared-memory accesses as scheduling points",
                    build.shared_accesses
                ),
                (true, true) => format!(
                    ", {} shared-memory accesses checked for data races",
                    build.shared_accesses
                ),
                (true, false) => String::new(),
            };
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

/// `list --suggest`: the proposals as syncmut.toml text, or why there are none.
fn suggest_text(suggestions: &[syncmut_mutator::user_sync::Suggestion]) -> String {
    if suggestions.is_empty() {
        return "no function of the design looks like a synchronization wrapper (one synchronization call in a small body)\n".to_string();
    }
    let mut text = String::from("# proposed for syncmut.toml: functions whose body is essentially one synchronization call\n");
    for s in suggestions {
        text.push_str(&format!(
            "\n[[sync]]  # {} at {}:{}\nfunction = {:?}\nacts_as = \"{}\"\nargument = {}\n",
            s.call,
            s.file,
            s.line,
            s.function,
            s.acts_as.name(),
            s.argument
        ));
    }
    text
}
