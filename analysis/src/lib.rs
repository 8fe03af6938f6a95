//! syncmut-analysis: test generation by backward weakest precondition.
//!
//! [`prepare`] simplifies a copy of the metamutant bitcode for analysis, `wp` builds
//! one reachability formula per site, [`smt`] solves it with z3 or cvc5 (one process,
//! push/pop, restarted after a failure) and saves it as `formulas/site<N>.smt2`,
//! [`inputs`] turns models back into test values (argv, nondet list, named inputs),
//! and [`suite`] confirms candidate tests by running the metamutant and keeps a greedy
//! set cover as `tests.json`, which [`testcomp`] also writes as Test-Comp XML.
//! [`random`] is the baseline: random inputs over the same input vector, confirmed the
//! same way.

// The CLI and tests read this crate's public items: each says what it is for.
#![warn(missing_docs)]

pub mod budget;
mod effects;
mod error;
pub mod inputs;
mod ir;
pub mod random;
mod reachability;
mod sharing;
pub mod smt;
pub mod suite;
pub mod testcomp;
mod wp;

pub use error::AnalysisError;
use error::Result;
use reachability::PriorRun;
pub use reachability::{Progress, Quiet, Reachability, SiteResult};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Default loop unroll bound (loops with a constant trip count up to this are unrolled).
pub const DEFAULT_BOUND: u32 = 8;

/// Options of the analysis.
#[derive(Debug, Clone)]
pub struct Options {
    /// Loop unroll bound.
    pub bound: u32,
    /// The SMT solver and its per-query timeout.
    pub solver: smt::SolverConfig,
    /// How long, how much memory and how large a formula generation may take.
    pub budget: budget::Budget,
    /// Run the design's default invocation (no arguments, no inputs) before the
    /// analysis, and give the sites it reaches that invocation as their test instead
    /// of a formula. Off, every site is analysed (`--analyse-all`).
    pub default_first: bool,
    /// Tests the user gave (`run`): run before the analysis (unless `default_first` is
    /// off), with their setting, and the sites they reach are not analysed. Generated
    /// tests are only for the rest.
    pub given: Vec<syncmut_runner::test_case::TestCase>,
    /// Candidate tests confirmed (run) this many at a time.
    pub jobs: usize,
    /// Stop with [`AnalysisError::SpinsAtSyncLevel`] when a first run (the default
    /// invocation, a given test) spins on plain memory at sync level (`run`, which then
    /// builds at memory level): every candidate's confirming run would spin until its
    /// timeout too.
    pub stop_when_first_runs_spin: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            bound: DEFAULT_BOUND,
            solver: smt::SolverConfig::default(),
            budget: budget::Budget::default(),
            default_first: true,
            given: Vec::new(),
            jobs: std::thread::available_parallelism().map_or(1, |n| n.get()),
            stop_when_first_runs_spin: false,
        }
    }
}

/// Rounds of refinement: a candidate that does not reach its site when run (or whose
/// run is not a usable test) is blocked and the solver asked for another input, at
/// most this many times per site.
pub(crate) const REFINE_ROUNDS: u32 = 3;

/// Copies of a loop body kept, each with its own exit test, for loops `prepare` cannot
/// unroll fully (a trip count read from the inputs, or above the bound). Paths leaving
/// such a loop after 0, 1 or 2 iterations then exist without following a back edge. The
/// cost of the path condition grows exponentially with nested copies: 4 took 7 s on
/// bounded_buffer, 8 ran out of memory.
const PARTIAL_UNROLL: u32 = 3;

/// Writes `analysis.bc`: `metamutant` simplified with
/// `mem2reg,sroa,instcombine,simplifycfg,loop-unroll` (loops with a constant trip count
/// up to `bound` unrolled fully), then every remaining loop unrolled `PARTIAL_UNROLL`
/// times with its exit tests kept (no runtime remainder loop).
pub fn prepare(metamutant: &Path, out: &Path, bound: u32) -> Result<()> {
    let full =
        "mem2reg,sroa,instcombine,simplifycfg,loop-unroll<O2;full-unroll-max=BOUND>,simplifycfg"
            .replace("BOUND", &bound.to_string());
    opt(
        metamutant,
        out,
        &[
            format!("-passes={full}"),
            format!("-unroll-threshold={}", 50 * bound.max(1)),
        ],
    )?;
    // A second opt: `-unroll-count` applies to every loop of a run, and would stop the
    // first from unrolling a constant trip count between PARTIAL_UNROLL and `bound` fully.
    let partial = out.with_extension("partial.bc");
    opt(
        out,
        &partial,
        &[
            "-passes=loop-unroll<O2>,simplifycfg".to_string(),
            format!("-unroll-count={PARTIAL_UNROLL}"),
            "-unroll-allow-partial".into(),
            "-unroll-runtime=false".into(),
            // The same size limit as the first run's: at O2's default (150) a loop
            // over argv that compares each word and allocates an object (three
            // `strcmp`/`new` arms) is left rolled, and no path through it is followed.
            format!("-unroll-threshold={}", 50 * bound.max(1)),
        ],
    )?;
    std::fs::rename(&partial, out).map_err(|source| AnalysisError::Io {
        what: format!("rename {} to {}", partial.display(), out.display()),
        source,
    })
}

fn opt(input: &Path, out: &Path, args: &[String]) -> Result<()> {
    let output = std::process::Command::new("opt-16")
        .args(args)
        .arg(input)
        .arg("-o")
        .arg(out)
        .output()
        .map_err(|source| AnalysisError::Io {
            what: "run opt-16 (apt-get install llvm-16)".into(),
            source,
        })?;
    if !output.status.success() {
        return Err(AnalysisError::Opt {
            path: input.to_path_buf(),
            why: String::from_utf8_lossy(&output.stderr).into_owned(),
        });
    }
    Ok(())
}

/// Analyses every site of `bitcode` (an analysis copy from [`prepare`]); writes each
/// formula to `formulas/site<N>.smt2` and the solver session to `formulas/session.smt2`.
pub fn analyse(
    bitcode: &Path,
    site_count: u32,
    formulas: &Path,
    options: &Options,
) -> Result<Vec<SiteResult>> {
    std::fs::create_dir_all(formulas).map_err(|source| AnalysisError::Io {
        what: format!("create {}", formulas.display()),
        source,
    })?;
    let module = ir::Module::load(bitcode)?;
    let facts = wp::ModuleFacts::new(&module);
    let mut session = smt::Session::start(
        options.solver,
        Some(&formulas.join("session.smt2")),
        &options.budget,
    )?;
    let mut sites = reachability::Sites::new(&module, &facts, &mut session, options);
    let labels = sites.labels(site_count);
    sites.analyse_all(&labels, &Default::default(), formulas, &Quiet)
}

/// The inputs the design reads on the way to any site (the union over every site's
/// formula), without solving: the input vector the random baseline draws over.
pub(crate) fn input_vector(bitcode: &Path, options: &Options) -> Result<inputs::Inputs> {
    let module = ir::Module::load(bitcode)?;
    let facts = wp::ModuleFacts::new(&module);
    let builder = easy_smt::ContextBuilder::new()
        .build()
        .expect("a context without a solver cannot fail to build");
    let mut all = inputs::Inputs::default();
    for (_, call) in facts.effects.sites() {
        // A site whose formula cannot be built contributes nothing it could name.
        if let Ok(q) = wp::Wp::new(&module, &facts, &builder, options.bound).site(call) {
            all.merge(&q.inputs);
        }
    }
    Ok(all)
}

/// The outcome of `syncmut gen`.
pub struct Generation {
    /// The metamutant's sites and mutants.
    pub catalogue: syncmut_mutator::Catalogue,
    /// What the analysis concluded for each site.
    pub sites: Vec<SiteResult>,
    /// The confirmed tests kept.
    pub suite: suite::Suite,
    /// Where the tests were written (`tests.json`).
    pub tests_file: PathBuf,
    /// The design's default invocation, generation's first run (none with
    /// `default_first` off).
    pub default_run: Option<suite::Run>,
}

/// The outcome of `syncmut gen --gen random`.
pub struct RandomGeneration {
    /// The metamutant's sites and mutants.
    pub catalogue: syncmut_mutator::Catalogue,
    /// The random baseline's suite and draws.
    pub baseline: random::RandomSuite,
    /// Where the tests were written (`tests.json`).
    pub tests_file: PathBuf,
}

/// `syncmut gen`: builds the metamutant into `out`, analyses every site, confirms the
/// candidate tests by execution and writes `out/tests.json`.
pub fn generate(
    design: &syncmut_mutator::Design,
    out: &Path,
    options: &Options,
) -> Result<Generation> {
    let build = syncmut_mutator::metamutant::build(design, out)?;
    generate_for(&build, out, out, options, &Quiet)
}

fn is_pthread(build: &syncmut_mutator::metamutant::Build) -> bool {
    build.catalogue.kind != syncmut_mutator::api::Family::Systemc
}

/// Test generation for an already built metamutant (`build_dir` holds its
/// `metamutant.bc`); everything generated goes to `out`. Runs on a thread with a
/// large stack (`ANALYSIS_STACK`), as printing a formula recurses as deep as the
/// formula is.
pub fn generate_for(
    build: &syncmut_mutator::metamutant::Build,
    build_dir: &Path,
    out: &Path,
    options: &Options,
    progress: &dyn Progress,
) -> Result<Generation> {
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("syncmut-gen".into())
            .stack_size(ANALYSIS_STACK)
            .spawn_scoped(scope, || {
                generate_here(build, build_dir, out, options, progress)
            })
            .map_err(|source| AnalysisError::Io {
                what: "start the test generation thread".into(),
                source,
            })?
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

/// Wall time the given tests may take before the analysis: past it, the tests not yet
/// run are left out (their sites are analysed).
const GIVEN_TESTS_TIME: std::time::Duration = std::time::Duration::from_secs(30);

/// Runs the given tests (within [`GIVEN_TESTS_TIME`]) and adds the sites each usable
/// run reaches to `reached`, naming the test. Returns how many tests ran.
fn reach_of_given(
    build: &syncmut_mutator::metamutant::Build,
    given: &[syncmut_runner::test_case::TestCase],
    scratch: &Path,
    reached: &mut BTreeMap<u32, PriorRun>,
    stop_on_spin: bool,
) -> Result<usize> {
    let started = std::time::Instant::now();
    let mut ran = 0;
    for test in given {
        if started.elapsed() >= GIVEN_TESTS_TIME {
            break;
        }
        let trace = scratch.join(syncmut_runtime::trace::binary_name(&format!("given{ran}")));
        let run = suite::run_given(&build.metamutant, test, is_pthread(build), &trace)
            .map_err(|source| confirming(&build.metamutant, scratch, source))?;
        ran += 1;
        if run.spins && stop_on_spin {
            return Err(AnalysisError::SpinsAtSyncLevel);
        }
        if run.unusable.is_none() {
            for site in run.reached {
                reached
                    .entry(site)
                    .or_insert_with(|| PriorRun::Given(test.name.clone()));
            }
        }
    }
    Ok(ran)
}

/// Whether a first run that spins stops generation ([`Options::stop_when_first_runs_spin`]):
/// only at sync level, where a busy-wait on plain memory keeps the one turn.
fn stops_on_spin(build: &syncmut_mutator::metamutant::Build, options: &Options) -> bool {
    options.stop_when_first_runs_spin
        && build.catalogue.interleave == syncmut_mutator::interleave::Interleave::Sync
}

/// Stack of the generation thread: address space reserved, used only as deep as the
/// formulas go (the WP transformer itself grows its stack on the heap, `budget::deep`).
const ANALYSIS_STACK: usize = 1 << 30;

fn generate_here(
    build: &syncmut_mutator::metamutant::Build,
    build_dir: &Path,
    out: &Path,
    options: &Options,
    progress: &dyn Progress,
) -> Result<Generation> {
    std::fs::create_dir_all(out).map_err(|source| AnalysisError::Io {
        what: format!("create {}", out.display()),
        source,
    })?;
    // The default invocation first: on a design that reads no inputs it reaches every
    // site it can in one run, leaving the analysis only the sites it missed, and its
    // test is on disk before the analysis starts.
    let scratch = out.join("gen-traces");
    std::fs::create_dir_all(&scratch).map_err(|source| AnalysisError::Io {
        what: format!("create {}", scratch.display()),
        source,
    })?;
    let seed = if options.default_first {
        let seed = suite::Seed::run(&build.metamutant, is_pthread(build), &scratch)
            .map_err(|source| confirming(&build.metamutant, &scratch, source))?;
        if seed.run.spins && stops_on_spin(build, options) {
            return Err(AnalysisError::SpinsAtSyncLevel);
        }
        progress.default_run(
            seed.reached().len(),
            build.catalogue.sites.len(),
            seed.run.unusable.as_deref(),
        );
        Some(seed)
    } else {
        None
    };
    let default_run = seed.as_ref().map(|seed| seed.run.clone());
    let mut reached: BTreeMap<u32, PriorRun> = seed
        .as_ref()
        .map(suite::Seed::reached)
        .unwrap_or_default()
        .into_iter()
        .map(|site| (site, PriorRun::Default))
        .collect();
    let before = reached.len();
    // `--analyse-all` makes no run before the analysis: the given tests' neither.
    let given: &[syncmut_runner::test_case::TestCase] = match options.default_first {
        true => &options.given,
        false => &[],
    };
    let ran = reach_of_given(
        build,
        given,
        &scratch,
        &mut reached,
        stops_on_spin(build, options),
    )?;
    if ran > 0 {
        progress.given_run(ran, reached.len() - before);
    }
    let tests_file = out.join("tests.json");
    if let Some(test) = seed.as_ref().and_then(suite::Seed::test) {
        suite::write_tests(&[test], "wp", &tests_file).map_err(|source| AnalysisError::Io {
            what: format!("write {}", tests_file.display()),
            source,
        })?;
    }
    let analysis_bc = out.join("analysis.bc");
    prepare(
        &build_dir.join(syncmut_mutator::metamutant::layout::METAMUTANT_BC),
        &analysis_bc,
        options.bound,
    )?;
    let formulas = out.join("formulas");
    std::fs::create_dir_all(&formulas).map_err(|source| AnalysisError::Io {
        what: format!("create {}", formulas.display()),
        source,
    })?;
    let module = ir::Module::load(&analysis_bc)?;
    let facts = wp::ModuleFacts::new(&module);
    let mut session = smt::Session::start(
        options.solver,
        Some(&formulas.join("session.smt2")),
        &options.budget,
    )?;
    let mut sites = reachability::Sites::new(&module, &facts, &mut session, options);
    let labels: Vec<String> = build
        .catalogue
        .sites
        .iter()
        .map(|s| format!("{}:{} {}", s.file, s.line, s.call))
        .collect();
    let mut results = sites.analyse_all(&labels, &reached, &formulas, progress)?;
    write_mutant_formulas(&build.catalogue, &results, &formulas, &mut sites.files)?;
    let candidates = results
        .iter()
        .filter(|r| matches!(r.verdict, Reachability::TestFound { .. }))
        .filter(|r| !reached.contains_key(&r.index))
        .count();
    progress.confirming(candidates);
    let mut blocked = std::collections::HashMap::new();
    let suite = suite::build_refined(
        &mut results,
        &build.metamutant,
        is_pthread(build),
        &scratch,
        seed,
        suite::Refining {
            rounds: REFINE_ROUNDS,
            jobs: options.jobs,
        },
        |r| sites.refine(r, &mut blocked),
    )
    .map_err(|source| confirming(&build.metamutant, &scratch, source))?;
    suite::write(&suite, "wp", &tests_file).map_err(|source| AnalysisError::Io {
        what: format!("write {}", tests_file.display()),
        source,
    })?;
    // The same tests as Test-Comp test cases, next to the JSON (tests/<name>.xml).
    if let Some(first) = build.catalogue.sites.first() {
        let entry = if is_pthread(build) { "main" } else { "sc_main" };
        let file = build.catalogue.source_path(&first.file);
        let program = testcomp::Program { file: &file, entry };
        let dir = out.join("tests");
        testcomp::write(&suite.tests, &suite::names(&suite, "wp"), &program, &dir).map_err(
            |source| AnalysisError::Io {
                what: format!("write the Test-Comp test cases in {}", dir.display()),
                source,
            },
        )?;
    }
    let sites_file = out.join("sites.json");
    serde_json::to_vec_pretty(&results)
        .map_err(std::io::Error::from)
        .and_then(|bytes| syncmut_runtime::atomic::write(&sites_file, &bytes))
        .map_err(|source| AnalysisError::Io {
            what: format!("write {}", sites_file.display()),
            source,
        })?;
    Ok(Generation {
        catalogue: build.catalogue.clone(),
        sites: results,
        suite,
        tests_file,
        default_run,
    })
}

/// The random baseline for an already built metamutant: `budget` draws with `seed`
/// over the input vector of the WP formulas (built, not solved: no solver needed);
/// writes `out/tests.json`.
pub fn random_for(
    build: &syncmut_mutator::metamutant::Build,
    build_dir: &Path,
    out: &Path,
    options: &Options,
    budget: usize,
    seed: u64,
) -> Result<RandomGeneration> {
    std::fs::create_dir_all(out).map_err(|source| AnalysisError::Io {
        what: format!("create {}", out.display()),
        source,
    })?;
    let analysis_bc = out.join("analysis.bc");
    prepare(
        &build_dir.join(syncmut_mutator::metamutant::layout::METAMUTANT_BC),
        &analysis_bc,
        options.bound,
    )?;
    let inputs = input_vector(&analysis_bc, options)?;
    let scratch = out.join("gen-traces");
    std::fs::create_dir_all(&scratch).map_err(|source| AnalysisError::Io {
        what: format!("create {}", scratch.display()),
        source,
    })?;
    let baseline = random::run(
        &inputs,
        &build.metamutant,
        is_pthread(build),
        &scratch,
        budget,
        seed,
    )
    .map_err(|source| confirming(&build.metamutant, &scratch, source))?;
    let tests_file = out.join("tests.json");
    suite::write(&baseline.suite, "random", &tests_file).map_err(|source| AnalysisError::Io {
        what: format!("write {}", tests_file.display()),
        source,
    })?;
    Ok(RandomGeneration {
        catalogue: build.catalogue.clone(),
        baseline,
        tests_file,
    })
}

/// A failure while running candidate tests on the metamutant to confirm them.
fn confirming(metamutant: &Path, scratch: &Path, source: std::io::Error) -> AnalysisError {
    AnalysisError::Io {
        what: format!(
            "run {} to confirm tests (traces in {})",
            metamutant.display(),
            scratch.display()
        ),
        source,
    }
}

/// Writes `formulas/<mutant>.smt2` for every mutant whose site has a formula: the
/// site's formula under a header naming the mutant. A mutant is reached exactly when
/// its site is (all mutants of a site share one formula, solved once); the file name
/// is the mutant id with every character other than ASCII letters, digits and `-`
/// replaced by `_`, as in the run directory's `diff/`.
fn write_mutant_formulas(
    catalogue: &syncmut_mutator::Catalogue,
    sites: &[SiteResult],
    dir: &Path,
    files: &mut reachability::FormulaFiles,
) -> Result<()> {
    for m in &catalogue.mutants {
        let Some(site) = m.sites.first() else {
            continue;
        };
        let Some(formula) = sites
            .iter()
            .find(|r| r.index == *site)
            .and_then(|r| r.formula.as_ref())
        else {
            continue;
        };
        let text = std::fs::read_to_string(formula).map_err(|source| AnalysisError::Io {
            what: format!("read {}", formula.display()),
            source,
        })?;
        let name: String =
            m.id.chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '-' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
        let header = format!(
            "; mutant {} ({}): reached when site {site} is reached\n",
            m.id, m.description
        );
        let path = dir.join(format!("{name}.smt2"));
        files.write(&path, &(header + &text))?;
    }
    Ok(())
}
