//! `syncmut run`: the main job, from a design to verdicts and reports.

use crate::console::print_warnings;
use crate::design_args::DesignArgs;
use crate::failure::{oracle_failure, Failure};
use crate::gates::no_sites_check;
use crate::run_dir::open_run_directory;
use crate::selection::SelectArgs;
use crate::{exit, table};
use std::path::PathBuf;
use syncmut_mutator::interleave::Interleave;
use syncmut_mutator::metamutant;
use syncmut_oracle::outdir::OutDir;
use syncmut_oracle::{lab, report};

/// How a run ended when it did not fail.
pub enum Ran {
    /// The mutation score of the selected mutants, in percent, and how many were killed.
    Score { percent: f64, killed: usize },
    /// The design has no synchronization site.
    NoSites,
    /// The selection (`--file`, `--in-diff`, `--shard`, …) left no mutant: nothing to do.
    NothingSelected,
    /// No usable test reached any mutant (the original failed before its first
    /// synchronization call, say): no score.
    NoneReached,
}

/// Where a run's given tests come from.
pub struct TestSources {
    /// A test file (docs/tests-format.md).
    pub file: Option<PathBuf>,
    /// The project's own test driver (`--test-cmd`).
    pub command: Option<String>,
    /// SystemC: the simulated-time bound of tests without their own `sim_time`
    /// (`--sim-time`, `sim_time` in syncmut.toml).
    pub sim_time: Option<syncmut_runner::test_case::SimTime>,
    /// The names of the run's programs (executables linked through `syncmut cc`),
    /// which tests may name (`"program"`); empty when the design is not one.
    pub programs: Vec<String>,
    /// The program this run tests: it runs the tests naming it and those naming none.
    pub program: Option<String>,
}

/// Runs the main job on the mutants `select` picks.
#[allow(clippy::too_many_arguments)]
pub fn run_command(
    args: &DesignArgs,
    tests: TestSources,
    plan: &crate::gen::Generation,
    output: &std::path::Path,
    config: &lab::RunSettings,
    resume: bool,
    interleave: Option<Interleave>,
    races: Option<bool>,
    select: &SelectArgs,
) -> Result<Ran, Failure> {
    let mut design = args.design()?;
    design.jobs = config.jobs.max(1);
    let tests_sim_time = tests.sim_time;
    let mut given = match tests.file.or_else(|| args.project.tests_file(&args.design)) {
        Some(path) => {
            let all = syncmut_runner::test_case::load(&path).map_err(|e| oracle_failure(e.into()))?;
            let mine = crate::linked_programs::tests_for(&path, all, &tests.programs, tests.program.as_deref())?;
            crate::linked_programs::some_test(&path, &mine, tests.program.as_deref(), plan, tests.command.is_some())?;
            mine
        }
        None if !matches!(plan, crate::gen::Generation::None) || tests.command.is_some() => Vec::new(),
        None => {
            return Err(Failure {
                code: exit::USAGE,
                error: anyhow::anyhow!("no tests: with --gen none, pass --tests FILE (format: docs/tests-format.md) or put a tests.json beside the design"),
            })
        }
    };
    let out = open_run_directory(output)?;
    if let Some(command) = &tests.command {
        given.push(
            crate::test_cmd::test(command, out.root(), &given).map_err(|error| Failure {
                code: exit::USAGE,
                error,
            })?,
        );
    }
    let (previous_catalogue, previous_runs) = if resume {
        // An unreadable outcomes.json costs its runs (they are redone), not the resume.
        let runs = lab::saved_runs(&out).unwrap_or_else(|e| {
            eprintln!("syncmut: warning: {e}; its runs will be redone");
            Vec::new()
        });
        let runs = reusable_runs(runs, &out, config);
        match read_catalogue(&out) {
            Some(catalogue) => (Some(catalogue), runs),
            // Without the catalogue the saved runs cannot be matched to mutants.
            None => (None, Vec::new()),
        }
    } else {
        (None, Vec::new())
    };
    // A resumed run keeps the interrupted run's interleaving unless one is named (then a
    // different one is refused below, as the catalogues differ).
    let saved = previous_catalogue.as_ref().map(|c| c.interleave);
    if let (Some(saved), Some(asked)) = (saved, interleave) {
        if resume && saved != asked {
            // Refused before building, so the interrupted run's files stay as they were.
            return Err(Failure {
                code: exit::USAGE,
                error: anyhow::anyhow!("{}: cannot resume: the interrupted run was built with --interleave {saved}, not {asked}; run again without --resume", out.root().display()),
            });
        }
    }
    // Not chosen by the user nor by the interrupted run: a test whose original spins on
    // plain memory at sync level makes the whole run go to memory level (below).
    let may_escalate = interleave.is_none() && saved.is_none();
    let interleave = interleave.or(saved).unwrap_or_default();
    // The same for race detection (on by default): a resumed run keeps it; asking for it
    // on a run that was built without it is refused (its finished verdicts did not look
    // at races).
    let saved_races = previous_catalogue.as_ref().map(|c| c.races);
    let pthread = previous_catalogue
        .as_ref()
        .is_some_and(|c| c.kind == syncmut_mutator::api::Family::Pthread);
    if resume && saved_races == Some(false) && races == Some(true) && pthread {
        return Err(Failure {
            code: exit::USAGE,
            error: anyhow::anyhow!("{}: cannot resume with --races: the interrupted run was built without race detection; run again without --resume", out.root().display()),
        });
    }
    let by_default = races.is_none();
    let races = match (saved_races, pthread) {
        (Some(saved), true) => saved,
        _ => races.unwrap_or(true),
    };
    if let Some(previous) = &previous_catalogue {
        refuse_changed_design(&design, previous, &out, select)?;
    } else if resume {
        // Interrupted before its catalogue was written: nothing finished, so nothing is
        // lost by starting over.
        eprintln!("syncmut: note: {}: the interrupted run ended before its mutants were built; starting it afresh", out.root().display());
    }
    let mut build = metamutant::build_with(
        &design,
        out.root(),
        &metamutant::Options { interleave, races },
    )?;
    if by_default {
        // On by default means on for the designs it applies to: nothing to warn about.
        build
            .warnings
            .retain(|w| w != metamutant::RACES_NOT_PTHREAD);
    }
    print_warnings(&build.warnings);
    if build.catalogue.sites.is_empty() {
        no_sites_check(&design, &build.catalogue);
        return Ok(Ran::NoSites);
    }
    let usage = |error| Failure {
        code: exit::USAGE,
        error,
    };
    let mut split = None;
    // A record left by an earlier run here must not pass for this one's.
    let _ = std::fs::remove_file(out.path(crate::shard::FILE));
    if !select.is_empty() {
        split = crate::shard::split_of(select, &build.catalogue).map_err(usage)?;
        let (selected, summary) = select.apply(&build.catalogue).map_err(|error| Failure {
            code: exit::USAGE,
            error,
        })?;
        eprintln!("syncmut: {summary}");
        // The run's catalogue is the selection: reports, the score and `merge` read it.
        out.write_json(metamutant::layout::CATALOGUE, &selected)
            .map_err(oracle_failure)?;
        build.catalogue = selected;
        if build.catalogue.mutants.is_empty() {
            eprintln!("syncmut: no mutant selected; nothing to run");
            return Ok(Ran::NothingSelected);
        }
    }
    if build.catalogue.kind == syncmut_mutator::api::Family::Systemc
        && (config.strategy != syncmut_oracle::schedules::Schedules::STANDARD
            || config.native != syncmut_oracle::strategies::RUN_NATIVE)
    {
        eprintln!("syncmut: note: --schedules/--strategy/--native apply to pthread designs; a SystemC kernel's process order is deterministic, so each test runs once");
    }
    let mut tests = match with_generated_tests(
        plan,
        &build,
        out.root(),
        given.clone(),
        may_escalate,
    )? {
        Some(tests) => tests,
        None => {
            eprintln!("syncmut: note: the design did not finish at sync level on generation's first runs (its default invocation, the given tests): one thread ran without a synchronization call while others waited for their turn (a busy-wait on plain memory); building again at memory level, where its loads and stores are scheduling points (as with --interleave memory), before generating tests");
            (build, split) = at_memory_level(&design, &out, races, select)?;
            with_generated_tests(plan, &build, out.root(), given, false)?
                .expect("generation asked not to stop goes on")
        }
    };
    if let Some(sim_time) = tests_sim_time {
        for test in &mut tests {
            test.setting.sim_time.get_or_insert(sim_time);
        }
    }
    let progress = crate::progress::Bar::new();
    let escalating = lab::RunSettings {
        escalate_spins: may_escalate,
        bound_endless: true,
        ..config.clone()
    };
    let ran = lab::run(
        &build,
        &tests,
        &out,
        &escalating,
        &progress,
        previous_runs.clone(),
    );
    let (outcomes, baseline) = match ran {
        Err(syncmut_oracle::OracleError::NeverEnds { tests: endless }) => {
            progress.finish();
            let probed = tests.iter().find(|t| t.name == endless[0]);
            let bound = probed
                .ok_or_else(|| "the test is not in the run's list".to_string())
                .and_then(|test| crate::sim_bound::choose(&build, test, config.baseline_timeout))
                .map_err(|why| Failure {
                    code: exit::NO_USABLE_TEST,
                    error: anyhow::anyhow!(
                        "{}; no bound could be chosen for it: {why}",
                        syncmut_oracle::OracleError::NeverEnds { tests: endless.clone() }
                    ),
                })?;
            eprintln!(
                "syncmut: note: the original did not finish on {} by itself (an sc_clock keeps sc_start() busy?); its tests without \"sim_time\" run to {bound} of simulated time, which it reached in {:.1} s when probed. Give the tests a \"sim_time\" (or run with --sim-time) to choose the bound yourself",
                endless.join(", "),
                crate::sim_bound::probe_time(config.baseline_timeout).as_secs_f64()
            );
            for test in &mut tests {
                test.setting.sim_time.get_or_insert(bound);
            }
            let progress = crate::progress::Bar::new();
            let ran = lab::run(&build, &tests, &out, config, &progress, previous_runs);
            progress.finish();
            ran
        }
        Err(syncmut_oracle::OracleError::SpinsAtSyncLevel { tests: spinning }) => {
            progress.finish();
            eprintln!(
                "syncmut: note: the original did not finish on {} at sync level: one thread ran without a synchronization call while others waited for their turn (a busy-wait on plain memory); building again at memory level, where its loads and stores are scheduling points (as with --interleave memory)",
                spinning.join(", ")
            );
            (build, split) = at_memory_level(&design, &out, races, select)?;
            let progress = crate::progress::Bar::new();
            let ran = lab::run(&build, &tests, &out, config, &progress, previous_runs);
            progress.finish();
            ran
        }
        ran => {
            progress.finish();
            ran
        }
    }
    .map_err(oracle_failure)?;
    // A shard says which split it belongs to, for `merge` (crate::shard).
    if let (Some(shard), Some((catalogue, mutants))) = (select.shard, split) {
        let record = crate::shard::ShardRecord {
            format_version: 1,
            k: shard.k,
            n: shard.n,
            catalogue,
            mutants,
            observations: crate::shard::observations(&baseline),
        };
        out.write_json(crate::shard::FILE, &record)
            .map_err(oracle_failure)?;
    }
    for (name, format) in [
        ("report.html", report::Format::Html),
        ("mutation-report.json", report::Format::Mte),
    ] {
        out.write(
            name,
            &report::render_in(Some(out.root()), format, &build.catalogue, &outcomes),
        )
        .map_err(oracle_failure)?;
    }
    print!("{}", table::baseline(&build.catalogue, &baseline));
    print!("{}", table::outcomes(&outcomes));
    println!("{}", cost_line(&outcomes.score));
    println!("results in {}", out.root().display());
    if config.self_check {
        println!(
            "self-check: the original ran in place of each of {} mutants ({}); it was killed {} time(s), which must be 0",
            outcomes.score.mutants,
            config.strategy,
            outcomes.score.killed
        );
    }
    if table::none_ran(&outcomes) {
        return Ok(Ran::NoneReached);
    }
    Ok(Ran::Score {
        percent: outcomes.score.percent,
        killed: outcomes.score.killed,
    })
}

/// What the mutants cost: `runs per mutant: 2.4 (1,203 executions for 501 mutants; …)`,
/// with how many of them the original's searches were.
fn cost_line(score: &syncmut_oracle::outcome::Score) -> String {
    use syncmut_oracle::outcome::thousands;
    let searches = match score.search_runs {
        0 => String::new(),
        n => format!(
            ", {} of them the original's searches, made once per test and shared",
            thousands(n as u64)
        ),
    };
    format!(
        "runs per mutant: {:.1} ({} executions for {} mutants{searches}; the original's baseline runs not counted)",
        score.runs_per_mutant,
        thousands(score.executions as u64),
        score.mutants
    )
}

/// A shard's split of the mutants (`crate::shard::split_of`).
type Split = Option<(String, usize)>;

/// The design built again at memory level (after a busy-wait on plain memory at sync
/// level), with the selection applied to its catalogue as to the first build's: the
/// build and the shard's split.
fn at_memory_level(
    design: &syncmut_mutator::Design,
    out: &OutDir,
    races: bool,
    select: &SelectArgs,
) -> Result<(metamutant::Build, Split), Failure> {
    let mut build = metamutant::build_with(
        design,
        out.root(),
        &metamutant::Options {
            interleave: Interleave::Memory,
            races,
        },
    )?;
    let mut split = None;
    if !select.is_empty() {
        let usage = |error| Failure {
            code: exit::USAGE,
            error,
        };
        split = crate::shard::split_of(select, &build.catalogue).map_err(usage)?;
        let (selected, _) = select.apply(&build.catalogue).map_err(usage)?;
        out.write_json(metamutant::layout::CATALOGUE, &selected)
            .map_err(oracle_failure)?;
        build.catalogue = selected;
    }
    Ok((build, split))
}

/// Generates tests into `DIR/gen/` (per `plan`) and puts them after the given ones (a
/// generated test whose arguments equal a given test's is dropped). `None` when
/// `stop_when_first_runs_spin` and one of generation's first runs (the default
/// invocation, a given test) busy-waits on plain memory at sync level: the caller builds
/// at memory level and generates there.
fn with_generated_tests(
    plan: &crate::gen::Generation,
    build: &metamutant::Build,
    root: &std::path::Path,
    mut tests: Vec<syncmut_runner::test_case::TestCase>,
    stop_when_first_runs_spin: bool,
) -> Result<Option<Vec<syncmut_runner::test_case::TestCase>>, Failure> {
    let mut default_run = None;
    match crate::gen::for_run(plan, build, root, &tests, stop_when_first_runs_spin) {
        Err(syncmut_analysis::AnalysisError::SpinsAtSyncLevel) => return Ok(None),
        Ok(None) => {}
        Ok(Some(generated)) => {
            let found = syncmut_runner::test_case::load(&generated.tests_file).unwrap_or_default();
            eprintln!("syncmut: {}", generated.summary);
            default_run = generated.default_run;
            for test in found {
                if !tests.iter().any(|t| {
                    t.args == test.args && t.nondet == test.nondet && t.inputs == test.inputs
                }) {
                    let name = if tests.iter().any(|t| t.name == test.name) {
                        format!("gen-{}", test.name)
                    } else {
                        test.name
                    };
                    tests.push(syncmut_runner::test_case::TestCase { name, ..test });
                }
            }
        }
        // A missing or broken solver costs the generated tests, not the run: the given
        // tests still judge every mutant they reach.
        Err(e) if !tests.is_empty() => {
            eprintln!("syncmut: warning: test generation skipped: {e}; using the given tests only")
        }
        Err(e) => {
            return Err(Failure {
                code: exit::for_analysis_error(&e),
                error: anyhow::anyhow!("test generation: {e}"),
            })
        }
    }
    // Generation finding nothing is no reason not to run the design: what its default
    // invocation and random inputs reach is still judged. Only a run with nothing to
    // run at all stops here.
    if tests.is_empty() && !matches!(plan, crate::gen::Generation::None) {
        let (fallback, report) =
            crate::gen::fallback(plan, build, root, default_run).map_err(|e| Failure {
                code: exit::for_analysis_error(&e),
                error: anyhow::anyhow!("{e}"),
            })?;
        eprintln!("syncmut: {report}");
        tests = fallback;
    }
    if tests.is_empty() {
        return Err(Failure {
            code: exit::NO_USABLE_TEST,
            error: anyhow::anyhow!("no tests: the tests file holds none (--tests FILE)"),
        });
    }
    Ok(Some(tests))
}

/// `--resume` of a design whose mutants changed is refused before anything in the run
/// directory is rebuilt: the catalogue is computed in a scratch directory and compared
/// with the interrupted run's, so its executables and `mutants.json` stay those its
/// verdicts were obtained with.
fn refuse_changed_design(
    design: &syncmut_mutator::Design,
    previous: &syncmut_mutator::Catalogue,
    out: &OutDir,
    select: &SelectArgs,
) -> Result<(), Failure> {
    let scratch = tempfile::tempdir().map_err(|e| Failure {
        code: exit::INTERNAL,
        error: anyhow::anyhow!("create a temporary build directory: {e}"),
    })?;
    let now = metamutant::scan(design, scratch.path())?.catalogue;
    let now = if select.is_empty() {
        now
    } else {
        select
            .apply(&now)
            .map_err(|error| Failure {
                code: exit::USAGE,
                error,
            })?
            .0
    };
    if now.kind == previous.kind && now.sites == previous.sites && now.mutants == previous.mutants {
        return Ok(());
    }
    Err(Failure {
        code: exit::USAGE,
        error: anyhow::anyhow!("{}: cannot resume: the design's mutants differ from the interrupted run's; run again without --resume", out.root().display()),
    })
}

/// The saved runs a resume may keep: none when they were obtained under other schedules
/// (their verdicts would not be this run's), and never a run that ended in an error,
/// which is retried (a full disk or a process limit may be gone now).
fn reusable_runs(
    mut runs: Vec<syncmut_oracle::outcome::Run>,
    out: &OutDir,
    config: &lab::RunSettings,
) -> Vec<syncmut_oracle::outcome::Run> {
    let now = lab::verdict_settings(config);
    if let Some(saved) = lab::saved_settings(out).filter(|saved| *saved != now) {
        eprintln!(
            "syncmut: note: the interrupted run used other settings ({} instead of {}); its runs are redone",
            saved["schedules"].as_str().unwrap_or("?"),
            now["schedules"].as_str().unwrap_or("?")
        );
        return Vec::new();
    }
    runs.retain(|run| run.verdict != syncmut_oracle::Verdict::Error);
    runs
}

fn read_catalogue(out: &OutDir) -> Option<syncmut_mutator::Catalogue> {
    serde_json::from_slice(&std::fs::read(out.path(metamutant::layout::CATALOGUE)).ok()?).ok()
}
