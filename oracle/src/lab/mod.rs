//! The main loop: baseline the original on every test, derive timeouts from it, then run
//! every reached (mutant, test) pair in parallel and judge it against the baseline.
//! Results are saved as they arrive.
//!
//! This file holds the loop, its settings, what the rest of syncmut reads back from a run
//! directory, and the few helpers both sides share. The rest is split by concern, one
//! private module each: `baseline` runs the original on each test and decides which tests
//! are usable (`set_aside` says why one is not), `mutant` runs one mutant on one test and
//! gives its verdict, `tally` judges each of those runs against the original's, `follow`
//! runs the original along a mutant run's interleaving, and `traces` runs a program and
//! observes, keeps or reads what it left behind.

mod baseline;
mod follow;
pub mod follow_check;
mod journal;
mod mutant;
mod original_build;
mod run_length;
mod set_aside;
mod tally;
mod traces;

use crate::diff;
use crate::error::OracleError;
use crate::explore;
use crate::outcome::{Baseline, Outcomes, Run};
use crate::outdir::{self, OutDir};
use crate::report;
use crate::schedules::{Schedules, Strategy};
use baseline::{baseline, OriginalRuns};
use journal::Journal;
use mutant::run_mutant;
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;
use syncmut_mutator::api::Family;
use syncmut_mutator::interleave::Interleave;
use syncmut_mutator::metamutant::Build;
use syncmut_mutator::{Catalogue, Mutant};
use syncmut_runner::exec::{Execution, Limits, Status};
use syncmut_runner::fork_server::{self, ForkServer};
use syncmut_runner::invocation::Invocation;
use syncmut_runner::test_case::TestCase;
use syncmut_runtime::trace;

pub use crate::timeout::TIMEOUT_CONFIRM_FACTOR;

/// A test's baseline, with the original's runs when the test is usable.
type TestBaseline = (Baseline, Option<OriginalRuns>);

/// A test the baseline kept, with the original's runs on it.
type UsableTest<'a> = (&'a TestCase, &'a Baseline, &'a OriginalRuns);

/// What the functions that run a program on one test pass down unchanged: the build,
/// the test, the run directory and the run's settings, the limits of a run, and which
/// program runs. A caller that runs something else (the original beside a mutant) or
/// under other limits passes a changed copy (`Lab { limits: &longer, ..*lab }`).
#[derive(Clone, Copy)]
struct Lab<'a> {
    build: &'a Build,
    test: &'a TestCase,
    out: &'a OutDir,
    settings: &'a RunSettings,
    /// The limits of a run: the baseline's for the original, the ones derived from the
    /// baseline for a mutant.
    limits: &'a Limits,
    /// `SYNCMUT_ACTIVE`: the mutant's activation (empty: none, the original runs).
    active: &'a str,
    /// The livelock bound (`SYNCMUT_MAX_STEPS`; `None`: the runtime's own default).
    max_steps: Option<u64>,
    /// The fork server this test's runs go through (`None`: by exec, with
    /// `SYNCMUT_NO_FORK_SERVER=1`).
    server: Option<&'a RefCell<ForkServer>>,
}

/// Knobs of a run.
#[derive(Debug, Clone)]
pub struct RunSettings {
    /// Parallel executions.
    pub jobs: usize,
    /// Baseline executions per test (they must agree for the test to be usable).
    pub baseline_repeats: usize,
    /// Timeout of a baseline execution. A mutant's is derived from the baseline's time
    /// (`invocation::timeout_after`).
    pub baseline_timeout: Duration,
    /// Limits other than time, for every execution.
    pub limits: Limits,
    /// The schedules every pthread test runs under. With several, a mutant is killed on
    /// a test when under some schedule it shows a behaviour the original shows under
    /// none of them, nor when it follows the mutant's interleaving.
    pub strategy: Schedules,
    /// pthread: runs with real threads (no controlled scheduler) per (mutant, test),
    /// after the controlled schedules. They kill by a failure (crash, assertion, hang), or
    /// an exit status or output, that no run of the original shows; by the latter only
    /// while the original's own runs with real threads agree with each other.
    pub native: usize,
    /// Run the original in place of every mutant (under other seeds than the
    /// baseline's): every kill is a false one, so a sound oracle reports none.
    pub self_check: bool,
    /// Keep the (capped) traces of every run in the run directory, not only those a
    /// kill's diff needs: the survivors', the agreeing runs', the baseline's repeats.
    pub keep_traces: bool,
    /// Every strategy ends a (mutant, test) pair at its first kill, as the default
    /// budget does: random and pct leave their other schedules unrun and dfs the rest of
    /// its space, so a kill's reason names the schedule that found it instead of a kill
    /// fraction. A survivor still runs every schedule, and dfs's `equivalent-exhaustive`
    /// is still decided over the whole bounded space.
    pub stop_at_first_kill: bool,
    /// The first limit of every mutant run in place of the one derived from the
    /// baseline (`SYNCMUT_MUTANT_TIMEOUT_MS`): a machine too loaded for the derived
    /// limit, made on purpose. A run that times out is confirmed under twice the derived
    /// limit before it kills, whatever this is.
    pub first_timeout: Option<Duration>,
    /// Stop after the baseline with [`OracleError::SpinsAtSyncLevel`] when a pthread test
    /// timed out at sync level while one thread ran design code and others waited for
    /// the turn (a busy-wait on plain memory), so the caller can build at memory level.
    /// Off when the user chose the interleaving.
    pub escalate_spins: bool,
    /// Stop after the baseline with [`OracleError::NeverEnds`] when the original of a
    /// SystemC test without `sim_time` timed out, so the caller can choose a bound.
    pub bound_endless: bool,
    /// Which virtual worlds (clock start, random stream) the original's repeats run in.
    pub entropy: Entropy,
    /// Runs of the original's search (every schedule within a few preemptions) that
    /// decides a mutant run the original could not follow (`run --search-runs`); a kill
    /// it cannot decide is not claimed.
    pub search_runs: usize,
}

/// `run --entropy`: the baseline repeats the original in another virtual world (`vary`,
/// the default) to find the output that depends on the clock or on random values (the
/// repeat also starts by exec, so output that depends on addresses shows too) and leave
/// it out of every comparison; `fixed` runs everything in one world, for designs
/// whose whole output depends on random values (a testbench seeding `srand(time(NULL))`)
/// and so could not be scored otherwise.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Entropy {
    /// Each repeat of the original runs in another virtual world.
    #[default]
    Vary,
    /// Every run is in the same virtual world.
    Fixed,
}

impl std::str::FromStr for Entropy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "vary" => Ok(Entropy::Vary),
            "fixed" => Ok(Entropy::Fixed),
            _ => Err(format!("`{s}`: expected vary or fixed")),
        }
    }
}

impl Default for RunSettings {
    fn default() -> Self {
        RunSettings {
            jobs: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1),
            baseline_repeats: 2,
            baseline_timeout: Duration::from_secs(20),
            limits: Limits::default(),
            strategy: Schedules::STANDARD,
            native: crate::strategies::RUN_NATIVE,
            self_check: false,
            keep_traces: false,
            stop_at_first_kill: false,
            first_timeout: std::env::var("SYNCMUT_MUTANT_TIMEOUT_MS")
                .ok()
                .and_then(|ms| ms.parse().ok())
                .map(Duration::from_millis),
            escalate_spins: false,
            bound_endless: false,
            entropy: Entropy::Vary,
            search_runs: follow_check::SEARCH_RUNS,
        }
    }
}

/// Receives progress, for a console progress bar.
/// Called from the workers' threads as well as the caller's.
pub trait Progress: Sync {
    /// The baseline starts running `tests` tests.
    fn baseline_started(&self, _tests: usize) {}
    /// The original's runs on one test are over (in any order when `-j` > 1).
    fn baseline_finished(&self, _baseline: &Baseline) {}
    /// `runs` more (mutant, test) runs are planned.
    fn runs_started(&self, _runs: usize) {}
    /// One (mutant, test) run has its verdict.
    fn run_finished(&self, _run: &Run) {}
    /// Runs counted in `runs_started` that a kill made unnecessary.
    fn runs_skipped(&self, _runs: usize) {}
    /// A search of the original is under way (at most one report a second per worker).
    fn search_ran(&self, _search: &SearchTick) {}
}

/// A search of the original under way: on which test, within how many preemptions, and
/// how many of its runs are made.
#[derive(Debug, Clone)]
pub struct SearchTick {
    /// The test it runs the original on.
    pub test: String,
    /// Its preemption bound.
    pub preemptions: u32,
    /// Runs made so far.
    pub runs: usize,
    /// Its budget: it makes at most this many runs, fewer when it covers its bound or
    /// finds it cannot.
    pub budget: usize,
}

/// The least time between two reports of a worker's search.
const SEARCH_TICK_EVERY: Duration = Duration::from_secs(1);

/// Passes a worker's search reports on to `report`, the first at once, then at most one
/// every [`SEARCH_TICK_EVERY`].
fn throttled(report: impl Fn(SearchTick)) -> impl Fn(SearchTick) {
    let last = std::cell::Cell::new(None::<std::time::Instant>);
    move |search| {
        if last
            .get()
            .is_none_or(|at| at.elapsed() >= SEARCH_TICK_EVERY)
        {
            last.set(Some(std::time::Instant::now()));
            report(search);
        }
    }
}

/// What a worker reports: a (mutant, test) run, runs a kill made unnecessary, that it
/// finished a mutant, or how far a search of the original has come.
enum Done<'a> {
    Ran(Run),
    Skipped(usize),
    Mutant(&'a str),
    Searching(SearchTick),
}

/// A worker's fork servers, one per test it ran last (a server runs one program with
/// one test's arguments and environment; which mutant, schedule and trace is chosen per
/// run, after the fork). At most [`SERVERS_PER_WORKER`] idle servers per worker.
#[derive(Default)]
struct Servers(Vec<(usize, RefCell<ForkServer>)>);

const SERVERS_PER_WORKER: usize = 4;

impl Servers {
    /// The server of test `test` (`None` when `SYNCMUT_NO_FORK_SERVER=1`).
    fn of(&mut self, test: usize) -> Option<&RefCell<ForkServer>> {
        if !fork_server::enabled() {
            return None;
        }
        match self.0.iter().position(|(t, _)| *t == test) {
            Some(i) => {
                let entry = self.0.remove(i);
                self.0.push(entry);
            }
            None => {
                if self.0.len() == SERVERS_PER_WORKER {
                    self.0.remove(0);
                }
                self.0.push((test, RefCell::new(ForkServer::new())));
            }
        }
        self.0.last().map(|(_, s)| s)
    }
}

/// Runs `invocation` through the test's fork `server` when given (and the invocation
/// can be served), else by exec; its working directory is removed afterwards.
fn run_served(
    invocation: &Invocation,
    server: Option<&RefCell<ForkServer>>,
) -> std::io::Result<Execution> {
    let mut server = server.map(|s| s.borrow_mut());
    invocation
        .run_keeping_with(server.as_deref_mut())
        .map(|(execution, _)| execution)
}

/// Whether a kill ends a mutant's remaining tests. `SYNCMUT_NO_PRUNE=1` runs every
/// (mutant, test) pair, as before the pruning: the tests that prove it safe compare the
/// two.
fn pruning() -> bool {
    std::env::var_os("SYNCMUT_NO_PRUNE").is_none_or(|v| v != "1")
}

/// Runs the whole oracle for a built design; returns the outcomes and the baseline
/// of every test (also saved as outcomes.json and baseline.json). `previous` holds runs finished by an
/// interrupted earlier run on the same design and tests (`--resume`); they are kept,
/// not redone, provided the original still behaves as it did then.
pub fn run(
    build: &Build,
    tests: &[TestCase],
    out: &OutDir,
    config: &RunSettings,
    progress: &dyn Progress,
    previous: Vec<Run>,
) -> Result<(Outcomes, Vec<Baseline>), OracleError> {
    let saved_baselines = read_baselines(out);
    out.write_json(outdir::TESTS, &serde_json::json!({ "tests": tests }))?;
    out.write_json(outdir::SETTINGS, &verdict_settings(config))?;
    progress.baseline_started(tests.len());
    let baselines = baselines_in_parallel(build, tests, out, config, progress)?;
    let fresh: Vec<&Baseline> = baselines.iter().map(|(b, _)| b).collect();
    out.write_json(outdir::BASELINE, &fresh)?;
    if config.escalate_spins
        && build.catalogue.interleave == Interleave::Sync
        && build.catalogue.kind == Family::Pthread
    {
        let spinning: Vec<String> = fresh
            .iter()
            .filter(|b| b.spins_outside_sync())
            .map(|b| b.test.clone())
            .collect();
        if !spinning.is_empty() {
            return Err(OracleError::SpinsAtSyncLevel { tests: spinning });
        }
    }
    if config.bound_endless && build.catalogue.kind == Family::Systemc {
        let endless: Vec<String> = fresh
            .iter()
            .zip(tests)
            .filter(|(b, t)| b.status == Status::TimedOut && t.setting.sim_time.is_none())
            .map(|(b, _)| b.test.clone())
            .collect();
        if !endless.is_empty() {
            return Err(OracleError::NeverEnds { tests: endless });
        }
    }
    // Earlier verdicts were judged against the earlier baseline; keep them only if the
    // original behaves the same now (timing aside).
    let same_behaviour = |old: &Vec<Baseline>| {
        old.len() == fresh.len()
            && old.iter().zip(&fresh).all(|(a, b)| {
                Baseline {
                    elapsed_ms: 0,
                    ..a.clone()
                } == Baseline {
                    elapsed_ms: 0,
                    ..(*b).clone()
                }
            })
    };
    let previous = if saved_baselines.as_ref().is_some_and(same_behaviour) {
        previous
    } else {
        Vec::new()
    };

    let usable: Vec<UsableTest> = tests
        .iter()
        .zip(&baselines)
        .filter_map(|(t, (b, runs))| runs.as_ref().filter(|_| b.usable).map(|r| (t, b, r)))
        .collect();
    if usable.is_empty() {
        let first = fresh
            .first()
            .map(|b| {
                format!(
                    "{}: {}",
                    b.test,
                    b.set_aside_because.as_deref().unwrap_or("set aside")
                )
            })
            .unwrap_or_default();
        return Err(OracleError::NoUsableTest {
            path: out.path(outdir::BASELINE),
            first,
        });
    }

    let catalogue = &build.catalogue;
    let mut jobs = Vec::new();
    for mutant in &catalogue.mutants {
        for (i, (_, baseline, _)) in usable.iter().enumerate() {
            if mutant.sites.iter().any(|s| baseline.reached.contains(s)) {
                jobs.push((mutant, i));
            }
        }
    }
    // Until a mutant is done, it is expected on every test that reaches it; once done,
    // on the tests it ran (fewer when a kill ended its tests early).
    let mut expected: HashMap<&str, usize> = catalogue
        .mutants
        .iter()
        .map(|m| {
            (
                m.id.as_str(),
                jobs.iter().filter(|(j, _)| j.id == m.id).count(),
            )
        })
        .collect();

    let mut runs: Vec<Run> = previous
        .into_iter()
        .filter(|r| {
            jobs.iter()
                .any(|(m, t)| m.id == r.mutant && usable[*t].0.name == r.test)
        })
        .collect();
    let prune = pruning();
    // Per mutant, its tests in suite order; each worker takes a whole mutant, so a kill
    // can end its tests (the verdict is the first killing test's, in suite order, and
    // no later test can change it).
    let mut todo: Vec<(&Mutant, Vec<usize>)> = Vec::new();
    for mutant in &catalogue.mutants {
        let tests: Vec<usize> = jobs
            .iter()
            .filter(|(m, _)| m.id == mutant.id)
            .map(|(_, t)| *t)
            .collect();
        let done = |t: &usize| {
            runs.iter()
                .find(|r| r.mutant == mutant.id && r.test == usable[*t].0.name)
        };
        let mut left = Vec::new();
        for t in &tests {
            match done(t) {
                Some(r) if prune && r.verdict.is_killed() => break,
                Some(_) => {}
                None => left.push(*t),
            }
        }
        if left.is_empty() {
            let ran = runs.iter().filter(|r| r.mutant == mutant.id).count();
            expected.insert(mutant.id.as_str(), ran);
        } else {
            todo.push((mutant, left));
        }
    }
    progress.runs_started(todo.iter().map(|(_, t)| t.len()).sum());
    // The runs kept from an interrupted run are in outcomes.json before their journal
    // goes.
    let expected_runs = |id: &str| expected.get(id).copied().unwrap_or(0);
    save(catalogue, &runs, &expected_runs, out)?;
    let mut journal = Journal::start(out);
    let next = AtomicUsize::new(0);
    let (sender, receiver) = mpsc::channel::<Result<Done, String>>();
    std::thread::scope(|scope| -> Result<(), OracleError> {
        // One worker per mutant at most: `-j` is an upper bound, not a thread count.
        for _ in 0..config.jobs.clamp(1, todo.len().max(1)) {
            let sender = sender.clone();
            let (next, todo, usable) = (&next, &todo, &usable);
            scope.spawn(move || {
                let mut servers = Servers::default();
                let tick = throttled(|search| {
                    let _ = sender.send(Ok(Done::Searching(search)));
                });
                loop {
                    let index = next.fetch_add(1, Ordering::SeqCst);
                    let Some((mutant, tests)) = todo.get(index) else {
                        break;
                    };
                    for (k, test_index) in tests.iter().enumerate() {
                        let server = servers.of(*test_index);
                        let test = usable[*test_index];
                        let run = run_mutant(build, mutant, test, out, config, server, &tick);
                        let killed = run.as_ref().is_ok_and(|r| r.verdict.is_killed());
                        let failed = run.is_err();
                        if sender.send(run.map(Done::Ran)).is_err() || failed {
                            return;
                        }
                        if prune && killed {
                            let _ = sender.send(Ok(Done::Skipped(tests.len() - k - 1)));
                            break;
                        }
                    }
                    if sender.send(Ok(Done::Mutant(&mutant.id))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        for done in receiver {
            // Returning drops the receiver: the workers stop at their next send.
            match done.map_err(|message| OracleError::Environment { message })? {
                Done::Ran(run) => {
                    progress.run_finished(&run);
                    journal.record(&run)?;
                    runs.push(run);
                }
                Done::Skipped(n) => progress.runs_skipped(n),
                Done::Searching(search) => progress.search_ran(&search),
                Done::Mutant(id) => {
                    let ran = runs.iter().filter(|r| r.mutant == id).count();
                    expected.insert(id, ran);
                }
            }
            if journal.save_due() {
                let expected_runs = |id: &str| expected.get(id).copied().unwrap_or(0);
                save(catalogue, &runs, &expected_runs, out)?;
            }
        }
        Ok(())
    })?;
    // Outcomes must not depend on which worker finished first.
    let order: HashMap<(&str, &str), usize> = jobs
        .iter()
        .enumerate()
        .map(|(i, (m, t))| ((m.id.as_str(), usable[*t].0.name.as_str()), i))
        .collect();
    runs.sort_by_key(|r| {
        order
            .get(&(r.mutant.as_str(), r.test.as_str()))
            .copied()
            .unwrap_or(usize::MAX)
    });
    let expected_runs = |id: &str| expected.get(id).copied().unwrap_or(0);
    let outcomes = save(catalogue, &runs, &expected_runs, out)?;
    journal.close();
    for outcome in outcomes.mutants.iter().filter(|m| m.verdict.is_killed()) {
        let (Some(mutant), Some(test)) = (
            catalogue.mutant(&outcome.mutant),
            outcome.killed_by.as_deref(),
        ) else {
            continue;
        };
        let schedule = outcome
            .runs
            .iter()
            .find(|r| r.test == test)
            .and_then(|r| r.schedule.as_deref());
        let original =
            trace::read(&outdir::trace_file(out.root(), test, None, schedule)).unwrap_or_default();
        let mutated = trace::read(&outdir::trace_file(
            out.root(),
            test,
            Some(&mutant.id),
            schedule,
        ))
        .unwrap_or_default();
        let text = diff::render(
            catalogue,
            mutant,
            test,
            &original,
            &mutated,
            &outcome.reason,
        );
        out.write(
            Path::new(outdir::DIFF_DIR).join(format!("{}.diff", outdir::file_name(&mutant.id))),
            text.as_bytes(),
        )?;
    }
    // Every run's working directory is gone by now; the empty parent goes too.
    let _ = std::fs::remove_dir(out.path(outdir::WORK_DIR));
    Ok((outcomes, baselines.into_iter().map(|(b, _)| b).collect()))
}

/// The baseline of every test, in suite order, `config.jobs` tests at a time: each test's
/// runs of the original are its own (their directories, their searches), so tests need
/// not wait for each other; a design with hundreds of generated tests spent most of its
/// baseline waiting.
fn baselines_in_parallel(
    build: &Build,
    tests: &[TestCase],
    out: &OutDir,
    config: &RunSettings,
    progress: &dyn Progress,
) -> Result<Vec<TestBaseline>, OracleError> {
    let next = AtomicUsize::new(0);
    let mut done: Vec<Option<Result<TestBaseline, OracleError>>> =
        (0..tests.len()).map(|_| None).collect();
    let slots = std::sync::Mutex::new(&mut done);
    std::thread::scope(|scope| {
        for _ in 0..config.jobs.clamp(1, tests.len().max(1)) {
            let (next, slots) = (&next, &slots);
            let tick = throttled(|search| progress.search_ran(&search));
            scope.spawn(move || loop {
                let index = next.fetch_add(1, Ordering::SeqCst);
                let Some(test) = tests.get(index) else {
                    break;
                };
                let result = baseline(build, test, out, config, &tick);
                if let Ok((done, _)) = &result {
                    progress.baseline_finished(done);
                }
                let failed = result.is_err();
                slots.lock().unwrap_or_else(|e| e.into_inner())[index] = Some(result);
                if failed {
                    // Later tests are not needed: the first error in suite order stops
                    // the run, as it did one test at a time.
                    next.fetch_add(tests.len(), Ordering::SeqCst);
                }
            });
        }
    });
    done.into_iter().map_while(|d| d).collect()
}

/// The settings that change verdicts, as saved in `settings.json`: a resumed run keeps
/// earlier runs only when these are the same.
pub fn verdict_settings(config: &RunSettings) -> serde_json::Value {
    let mut settings = serde_json::json!({ "schedules": config.strategy.to_string() });
    if config.native > 0 {
        settings["native"] = config.native.into();
    }
    if config.self_check {
        settings["self_check"] = true.into();
    }
    if config.stop_at_first_kill {
        settings["stop_at_first_kill"] = true.into();
    }
    if config.search_runs != follow_check::SEARCH_RUNS {
        settings["search_runs"] = config.search_runs.into();
    }
    settings
}

/// The settings saved by an earlier run in this directory, if any.
pub fn saved_settings(out: &OutDir) -> Option<serde_json::Value> {
    serde_json::from_slice(&std::fs::read(out.path(outdir::SETTINGS)).ok()?).ok()
}

/// The runs saved in a run directory's outcomes.json, for `--resume` (none when it does
/// not exist yet; an error naming the file when it cannot be read back).
pub fn saved_runs(out: &OutDir) -> Result<Vec<Run>, String> {
    let path = out.path(outdir::OUTCOMES);
    match std::fs::read(&path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(format!("{}: cannot read: {e}", path.display())),
        Ok(bytes) => serde_json::from_slice::<Outcomes>(&bytes)
            .map(|o| o.mutants.into_iter().flat_map(|m| m.runs).collect())
            .map_err(|e| format!("{}: not a saved outcomes file: {e}", path.display())),
    }
    .map(|mut saved: Vec<Run>| {
        // Runs finished after outcomes.json was last written.
        for run in journal::read(out) {
            if !saved
                .iter()
                .any(|r| r.mutant == run.mutant && r.test == run.test)
            {
                saved.push(run);
            }
        }
        saved
    })
}

fn read_baselines(out: &OutDir) -> Option<Vec<Baseline>> {
    serde_json::from_slice(&std::fs::read(out.path(outdir::BASELINE)).ok()?).ok()
}

/// Writes outcomes.json and report.csv for the runs so far.
fn save(
    catalogue: &Catalogue,
    runs: &[Run],
    expected_runs: &dyn Fn(&str) -> usize,
    out: &OutDir,
) -> Result<Outcomes, OracleError> {
    let outcomes = Outcomes::summarise(catalogue, runs, expected_runs);
    out.write_json(outdir::OUTCOMES, &outcomes)?;
    out.write(
        outdir::REPORT_CSV,
        &report::render(report::Format::Csv, catalogue, &outcomes),
    )?;
    Ok(outcomes)
}

/// Whether a design's tests run under several schedules (pthread, not `Default`).
fn explores(build: &Build, config: &RunSettings) -> bool {
    build.catalogue.kind == Family::Pthread && config.strategy.strategy != Strategy::Default
}

/// The tag of a dfs schedule: the k-th run of a search (its choices are saved beside
/// the trace, see `schedule_value`).
fn dfs_tag(k: usize) -> String {
    format!("dfs:{k}")
}

/// The `SYNCMUT_SCHEDULE` value that reproduces a saved run's schedule `tag` (as in
/// outcomes.json): a dfs tag names the choices saved beside the mutant's trace.
pub fn schedule_value(root: &Path, test: &str, mutant: Option<&str>, tag: &str) -> String {
    if tag.starts_with("dfs:") {
        format!(
            "replay:{}",
            schedule_file(root, test, mutant, tag).display()
        )
    } else {
        tag.to_string()
    }
}

/// Where the choices of a dfs run are saved: beside its trace, `.schedule`.
fn schedule_file(root: &Path, test: &str, mutant: Option<&str>, tag: &str) -> std::path::PathBuf {
    outdir::trace_file(root, test, mutant, Some(tag)).with_extension("schedule")
}

/// The exploration settings of a dfs search in the lab.
fn dfs_config(
    build: &Build,
    schedules: Schedules,
    max_steps: Option<u64>,
) -> explore::ExploreSettings {
    explore::ExploreSettings {
        strategy: schedules.strategy,
        schedules: schedules.budget.max(1),
        // The original runs under the runtime's own default, mutants under their plan's.
        max_steps: max_steps.unwrap_or(10_000_000),
        // A test carries its own input values.
        draw_inputs: false,
        races: build.catalogue.races,
        ..explore::ExploreSettings::default()
    }
}

/// 95% Wilson score interval of a proportion k/n.
pub(crate) fn wilson_interval(k: usize, n: usize) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let (k, n, z) = (k as f64, n as f64, 1.96f64);
    let p = k / n;
    let denominator = 1.0 + z * z / n;
    let center = (p + z * z / (2.0 * n)) / denominator;
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / denominator;
    ((center - half).max(0.0), (center + half).min(1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_interval_matches_known_values() {
        let (lo, hi) = wilson_interval(5, 10);
        assert!(
            (lo - 0.2366).abs() < 1e-3 && (hi - 0.7634).abs() < 1e-3,
            "{lo} {hi}"
        );
        let (lo, hi) = wilson_interval(0, 20);
        assert_eq!(lo, 0.0);
        assert!((hi - 0.1611).abs() < 1e-3, "{hi}");
        let (lo, hi) = wilson_interval(20, 20);
        assert!((lo - 0.8389).abs() < 1e-3 && hi == 1.0, "{lo}");
    }
}
