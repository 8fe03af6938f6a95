//! syncmut-analysis: test generation by backward weakest precondition.
//!
//! [`prepare`] simplifies a copy of the metamutant bitcode for analysis, [`wp`] builds
//! one reachability formula per site, [`smt`] solves it with z3 or cvc5 (one process,
//! push/pop, restarted after a failure) and saves it as `formulas/site<N>.smt2`,
//! [`inputs`] turns models back into test values (argv, nondet list, named inputs),
//! and [`suite`] confirms candidate tests by running the metamutant and keeps a greedy
//! set cover as `tests.json`, which [`testcomp`] also writes as Test-Comp XML.
//! [`random`] is the baseline: random inputs over the same input vector, confirmed the
//! same way.

mod effects;
pub mod error;
pub mod inputs;
mod ir;
pub mod random;
pub mod smt;
pub mod suite;
pub mod testcomp;
pub mod wp;

pub use error::AnalysisError;
use error::Result;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Default loop unroll bound (loops with a constant trip count up to this are unrolled).
pub const DEFAULT_BOUND: u32 = 8;

/// Options of the analysis.
#[derive(Debug, Clone)]
pub struct Options {
    /// Loop unroll bound.
    pub bound: u32,
    /// The SMT solver and its per-query timeout.
    pub solver: smt::SolverConfig,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            bound: DEFAULT_BOUND,
            solver: smt::SolverConfig::default(),
        }
    }
}

/// Whether a site is reachable, as the analysis concluded: a test that reaches it, no
/// input reaches it, or undecided. In `sites.json` it is the `verdict` tag, a name the
/// file format keeps; it is unrelated to the oracle's `Verdict` on a mutant.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case", tag = "verdict")]
pub enum Reachability {
    /// The solver found inputs; `args` is argv[1..], `nondet` the values of
    /// `__VERIFIER_nondet_*` calls in call order, `inputs` the named inputs.
    TestFound {
        args: Vec<String>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        nondet: Vec<i128>,
        #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
        inputs: std::collections::BTreeMap<String, i64>,
    },
    /// Unsat with every path modelled.
    Unreachable { reason: String },
    /// Not decided, with the reason.
    Unknown { reason: String },
}

impl std::fmt::Display for Reachability {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Reachability::TestFound {
                args,
                nondet,
                inputs,
            } => {
                write!(
                    f,
                    "test found: {}",
                    if args.is_empty() {
                        "(no arguments)".to_string()
                    } else {
                        args.join(" ")
                    }
                )?;
                if !nondet.is_empty() {
                    write!(
                        f,
                        "; nondet {}",
                        nondet
                            .iter()
                            .map(|v| v.to_string())
                            .collect::<Vec<_>>()
                            .join(",")
                    )?;
                }
                for (k, v) in inputs {
                    write!(f, "; {k}={v}")?;
                }
                Ok(())
            }
            Reachability::Unreachable { reason } => write!(f, "unreachable: {reason}"),
            Reachability::Unknown { reason } => write!(f, "unknown: {reason}"),
        }
    }
}

/// The result for one site.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SiteResult {
    pub index: u32,
    pub verdict: Reachability,
    pub notes: Vec<String>,
    pub schedule: Vec<String>,
    /// Formula build + solve time in milliseconds (fractional: most sites take less
    /// than one).
    pub millis: f64,
    pub formula: Option<PathBuf>,
    /// The model behind a `TestFound` verdict, for refinement.
    #[serde(skip)]
    found: Option<Found>,
}

/// The solver model a candidate test came from: which of the site's calls, whether its
/// loops were summarised, and every input symbol's value.
#[derive(Debug, Clone)]
struct Found {
    call: usize,
    summarised: bool,
    model: std::collections::BTreeMap<String, String>,
}

/// Rounds of refinement: a candidate that does not reach its site when run (or whose
/// run is not a usable test) is blocked and the solver asked for another input, at
/// most this many times per site.
pub const REFINE_ROUNDS: u32 = 3;

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
    let mut session = smt::Session::start(options.solver, Some(&formulas.join("session.smt2")))?;
    analyse_in(&module, &facts, &mut session, site_count, formulas, options)
}

/// [`analyse`] with the module, its facts and the solver session given, so that
/// [`refine`] can ask again in the same session.
fn analyse_in<'m>(
    module: &'m ir::Module,
    facts: &'m wp::ModuleFacts<'m>,
    session: &mut smt::Session,
    site_count: u32,
    formulas: &Path,
    options: &Options,
) -> Result<Vec<SiteResult>> {
    let sites = facts.effects.sites();
    let mut results = Vec::new();
    for index in 0..site_count {
        let started = Instant::now();
        let calls: Vec<_> = sites
            .iter()
            .filter(|(i, _)| *i == index)
            .map(|(_, c)| *c)
            .collect();
        let mut r = SiteResult {
            index,
            verdict: Reachability::Unknown {
                reason: String::new(),
            },
            notes: vec![],
            schedule: vec![],
            millis: 0.0,
            formula: None,
            found: None,
        };
        if calls.is_empty() {
            r.verdict = Reachability::Unreachable {
                reason: "dead code: the call was removed when the analysis copy was optimised"
                    .into(),
            };
        }
        for (k, call) in calls.iter().enumerate() {
            let built = wp::Wp::new(module, facts, session.builder(), options.bound).site(*call);
            let q = match built {
                Ok(q) => q,
                Err(e) => {
                    r.verdict = Reachability::Unknown {
                        reason: e.to_string(),
                    };
                    continue;
                }
            };
            let path = formulas.join(if calls.len() == 1 {
                format!("site{index}.smt2")
            } else {
                format!("site{index}.{k}.smt2")
            });
            let title = format!(
                "site {index}: {} at {}",
                call.called_function().map(|f| f.name()).unwrap_or_default(),
                call.where_()
            );
            std::fs::write(
                &path,
                smt::script(session.builder(), &q, &title, options.solver),
            )
            .map_err(|source| AnalysisError::Io {
                what: format!("write {}", path.display()),
                source,
            })?;
            r.formula = Some(path.clone());
            r.notes = q.notes.clone();
            r.schedule = q.schedule.clone();
            let mut answer = session.solve(&q);
            let mut q = q;
            // Unsat only because paths were cut at loops: ask again with those loops
            // summarised. Only then, so a formula the cuts leave satisfiable keeps the
            // exact models of the unrolled iterations. The summary takes everything the
            // loops may write as any value, so its unsat answer is a proof as well.
            let mut summarised = false;
            if matches!(answer, smt::Answer::Unsat) && !q.cut.is_empty() {
                if let Ok(s) = wp::Wp::new(module, facts, session.builder(), options.bound)
                    .summarising_loops()
                    .site(*call)
                {
                    let title = format!("{title} (loops summarised)");
                    std::fs::write(
                        &path,
                        smt::script(session.builder(), &s, &title, options.solver),
                    )
                    .map_err(|source| AnalysisError::Io {
                        what: format!("write {}", path.display()),
                        source,
                    })?;
                    answer = session.solve(&s);
                    r.notes = s.notes.iter().chain(&s.summarised).cloned().collect();
                    r.schedule = s.schedule.clone();
                    if let smt::Answer::Sat(model) = answer {
                        let t = s.inputs.to_test(&model);
                        r.verdict = Reachability::TestFound {
                            args: t.args,
                            nondet: t.nondet,
                            inputs: t.inputs,
                        };
                        r.found = Some(Found {
                            call: k,
                            summarised: true,
                            model,
                        });
                        break;
                    }
                    summarised = true;
                    q = s;
                }
            }
            // Unsat along direct calls only: ask again following the indirect calls
            // that may also reach a function on the way.
            // Built with the loops cut, as a summarised formula following every
            // indirect call of a type grows too large (tlm_lt's socket calls went past
            // 20 GB): the answer is then a proof only if no loop was cut.
            if matches!(answer, smt::Answer::Unsat) && !q.unfollowed.is_empty() {
                summarised = false;
                if let Ok(s) = wp::Wp::new(module, facts, session.builder(), options.bound)
                    .following_indirect_calls()
                    .site(*call)
                {
                    let title = format!("{title} (indirect calls followed)");
                    std::fs::write(
                        &path,
                        smt::script(session.builder(), &s, &title, options.solver),
                    )
                    .map_err(|source| AnalysisError::Io {
                        what: format!("write {}", path.display()),
                        source,
                    })?;
                    answer = session.solve(&s);
                    r.notes = s.notes.iter().chain(&s.summarised).cloned().collect();
                    r.schedule = s.schedule.clone();
                    q = s;
                }
            }
            let loops = if summarised {
                " with the loops beyond the unroll bound summarised (all they may write taken as any value)"
            } else {
                ""
            };
            r.verdict = match answer {
                smt::Answer::Sat(model) => {
                    let t = q.inputs.to_test(&model);
                    r.found = Some(Found { call: k, summarised, model });
                    Reachability::TestFound { args: t.args, nondet: t.nondet, inputs: t.inputs }
                }
                smt::Answer::Unsat if !q.cut.is_empty() => Reachability::Unknown {
                    reason: AnalysisError::LoopBoundExceeded { bound: options.bound, detail: q.cut.join("; ") }.to_string(),
                },
                smt::Answer::Unsat if !q.unfollowed.is_empty() => Reachability::Unknown {
                    reason: format!("no direct call chain reaches the site, and indirect calls were not followed: {}", q.unfollowed.join("; ")),
                },
                smt::Answer::Unsat if !q.blocking.is_empty() => Reachability::Unreachable {
                    reason: format!(
                        "the reachability formula{loops} is unsatisfiable: dead code, or blocked at a wait nobody notifies in time ({}) under the fixed process order",
                        q.blocking.join(", ")
                    ),
                },
                smt::Answer::Unsat => Reachability::Unreachable { reason: format!("the reachability formula{loops} is unsatisfiable (dead code under the modelled schedule)") },
                smt::Answer::Unknown(reason) => Reachability::Unknown { reason },
            };
            if matches!(r.verdict, Reachability::TestFound { .. }) {
                break;
            }
        }
        r.millis = started.elapsed().as_secs_f64() * 1000.0;
        results.push(r);
    }
    Ok(results)
}

/// Another candidate for a site whose candidate `r` did not reach it when run: the
/// site's formula with every model tried so far for it (`blocked`, to which `r`'s is
/// added) excluded, solved again. None when the solver finds no other input or the
/// formula cannot be built.
fn refine<'m>(
    module: &'m ir::Module,
    facts: &'m wp::ModuleFacts<'m>,
    session: &mut smt::Session,
    options: &Options,
    r: &SiteResult,
    blocked: &mut std::collections::HashMap<u32, Vec<std::collections::BTreeMap<String, String>>>,
) -> Option<SiteResult> {
    let found = r.found.as_ref()?;
    let tried = blocked.entry(r.index).or_default();
    tried.push(found.model.clone());
    let call = facts
        .effects
        .sites()
        .into_iter()
        .filter(|(i, _)| *i == r.index)
        .map(|(_, c)| c)
        .nth(found.call)?;
    let mut wp = wp::Wp::new(module, facts, session.builder(), options.bound);
    if found.summarised {
        wp = wp.summarising_loops();
    }
    let mut q = wp.site(call).ok()?;
    let ctx = session.builder();
    let declared: std::collections::HashSet<String> = q
        .inputs
        .declarations()
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    for model in tried.iter() {
        // argc only says how many arguments there are: a model differing in it alone
        // is the same test.
        let same: Vec<_> = model
            .iter()
            .filter(|(n, _)| *n != "argc" && declared.contains(*n))
            .map(|(n, v)| ctx.eq(ctx.atom(n), ctx.atom(v)))
            .collect();
        let expr = ctx.not(same.into_iter().fold(ctx.true_(), |acc, e| ctx.and(acc, e)));
        q.conjuncts.push(wp::Conjunct {
            comment: "inputs differ from a candidate that did not reach the site when run".into(),
            expr,
        });
    }
    match session.solve(&q) {
        smt::Answer::Sat(model) => {
            let t = q.inputs.to_test(&model);
            let verdict = Reachability::TestFound {
                args: t.args,
                nondet: t.nondet,
                inputs: t.inputs,
            };
            Some(SiteResult {
                verdict,
                found: Some(Found {
                    call: found.call,
                    summarised: found.summarised,
                    model,
                }),
                ..r.clone()
            })
        }
        _ => None,
    }
}

/// The inputs the design reads on the way to any site (the union over every site's
/// formula), without solving: the input vector the random baseline draws over.
pub fn input_vector(bitcode: &Path, options: &Options) -> Result<inputs::Inputs> {
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
    pub catalogue: syncmut_mutator::Catalogue,
    pub sites: Vec<SiteResult>,
    pub suite: suite::Suite,
    pub tests_file: PathBuf,
}

/// The outcome of `syncmut gen --gen random`.
pub struct RandomGeneration {
    pub catalogue: syncmut_mutator::Catalogue,
    pub baseline: random::RandomSuite,
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
    generate_for(&build, out, out, options)
}

fn is_pthread(build: &syncmut_mutator::metamutant::Build) -> bool {
    build.catalogue.kind != syncmut_mutator::api::Family::Systemc
}

/// Test generation for an already built metamutant (`build_dir` holds its
/// `metamutant.bc`); everything generated goes to `out`.
pub fn generate_for(
    build: &syncmut_mutator::metamutant::Build,
    build_dir: &Path,
    out: &Path,
    options: &Options,
) -> Result<Generation> {
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
    let formulas = out.join("formulas");
    std::fs::create_dir_all(&formulas).map_err(|source| AnalysisError::Io {
        what: format!("create {}", formulas.display()),
        source,
    })?;
    let module = ir::Module::load(&analysis_bc)?;
    let facts = wp::ModuleFacts::new(&module);
    let mut session = smt::Session::start(options.solver, Some(&formulas.join("session.smt2")))?;
    let mut sites = analyse_in(
        &module,
        &facts,
        &mut session,
        build.catalogue.sites.len() as u32,
        &formulas,
        options,
    )?;
    write_mutant_formulas(&build.catalogue, &sites, &formulas)?;
    let scratch = out.join("gen-traces");
    std::fs::create_dir_all(&scratch).map_err(|source| AnalysisError::Io {
        what: format!("create {}", scratch.display()),
        source,
    })?;
    let mut blocked = std::collections::HashMap::new();
    let suite = suite::build_refined(
        &mut sites,
        &build.metamutant,
        is_pthread(build),
        &scratch,
        REFINE_ROUNDS,
        |r| refine(&module, &facts, &mut session, options, r, &mut blocked),
    )
    .map_err(|source| confirming(&build.metamutant, &scratch, source))?;
    let tests_file = out.join("tests.json");
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
    serde_json::to_vec_pretty(&sites)
        .map_err(std::io::Error::from)
        .and_then(|bytes| syncmut_runtime::atomic::write(&sites_file, &bytes))
        .map_err(|source| AnalysisError::Io {
            what: format!("write {}", sites_file.display()),
            source,
        })?;
    Ok(Generation {
        catalogue: build.catalogue.clone(),
        sites,
        suite,
        tests_file,
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
        syncmut_runtime::atomic::write(&path, (header + &text).as_bytes()).map_err(|source| {
            AnalysisError::Io {
                what: format!("write {}", path.display()),
                source,
            }
        })?;
    }
    Ok(())
}
