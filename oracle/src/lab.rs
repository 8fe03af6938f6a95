//! The main loop: baseline the original on every test, derive timeouts from it, then run
//! every reached (mutant, test) pair in parallel and judge it against the baseline.
//! Results are saved as they arrive.

use crate::diff;
use crate::error::OracleError;
use crate::explore;
use crate::observation::{Observation, Recorder};
use crate::outcome::{Baseline, LostNotifications, Outcomes, Run};
use crate::outdir::{self, OutDir};
use crate::report;
use crate::schedules::{Schedules, Strategy};
use crate::verdict::{self, Verdict};
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;
use syncmut_mutator::metamutant::Build;
use syncmut_mutator::api::Family;
use syncmut_mutator::{Catalogue, Mutant};
use syncmut_runtime::exec::{Execution, Limits, Status};
use syncmut_runtime::invocation::{self, Invocation};
use syncmut_runtime::test_case::TestCase;
use syncmut_runtime::trace::{self, Keep};
use syncmut_runtime::{schedule, status};

/// The schedules of one usable test and the original's executions under them.
#[derive(Debug, Clone)]
struct OriginalRuns {
    /// `SYNCMUT_SCHEDULE` values every mutant runs under, the same as the original's
    /// (empty for dfs: each mutant's own search chooses its schedules).
    schedules: Vec<String>,
    /// The original's executions, one per schedule explored, each with what it showed
    /// (nothing hidden): compact, whatever the length of the trace.
    originals: Vec<(Execution, Observation)>,
    /// dfs: the original's search covered its whole bounded space.
    exhausted: bool,
    /// pthread: the mutants' livelock bound (`SYNCMUT_MAX_STEPS`), a multiple of the
    /// original's own scheduling points on this test.
    max_steps: Option<u64>,
}

/// A mutant that takes this many times the original's scheduling points (at least
/// `MIN_MUTANT_STEPS`) is a livelock. A bound relative to the original ends a spinning
/// mutant in milliseconds, long before its timeout, so the verdict does not depend on
/// how loaded the machine is (the runtime's fixed 10M-step default could lose that race).
const MUTANT_STEPS_FACTOR: u64 = 100;
const MIN_MUTANT_STEPS: u64 = 100_000;

/// A test the baseline kept, with the original's runs on it.
type UsableTest<'a> = (&'a TestCase, &'a Baseline, &'a OriginalRuns);

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
    /// none of them, and the kill fraction is reported.
    pub strategy: Schedules,
    /// Keep the (capped) traces of every run in the run directory, not only those a
    /// kill's diff needs: the survivors', the agreeing runs', the baseline's repeats.
    pub keep_traces: bool,
}

impl Default for RunSettings {
    fn default() -> Self {
        RunSettings {
            jobs: std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
            baseline_repeats: 2,
            baseline_timeout: Duration::from_secs(20),
            limits: Limits::default(),
            strategy: Schedules::DEFAULT,
            keep_traces: false,
        }
    }
}

/// Receives progress, for a console progress bar.
pub trait Progress: Sync {
    fn baseline_started(&self, _tests: usize) {}
    fn runs_started(&self, _runs: usize) {}
    fn run_finished(&self, _run: &Run) {}
}

/// A progress sink that shows nothing.
pub struct Quiet;
impl Progress for Quiet {}

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
    let baselines: Vec<(Baseline, Option<OriginalRuns>)> =
        tests.iter().map(|t| baseline(build, t, out, config)).collect::<Result<_, _>>()?;
    let fresh: Vec<&Baseline> = baselines.iter().map(|(b, _)| b).collect();
    out.write_json(outdir::BASELINE, &fresh)?;
    // Earlier verdicts were judged against the earlier baseline; keep them only if the
    // original behaves the same now (timing aside).
    let same_behaviour = |old: &Vec<Baseline>| {
        old.len() == fresh.len()
            && old.iter().zip(&fresh).all(|(a, b)| Baseline { elapsed_ms: 0, ..a.clone() } == Baseline { elapsed_ms: 0, ..(*b).clone() })
    };
    let previous = if saved_baselines.as_ref().is_some_and(same_behaviour) { previous } else { Vec::new() };

    let usable: Vec<UsableTest> = tests
        .iter()
        .zip(&baselines)
        .filter_map(|(t, (b, runs))| runs.as_ref().filter(|_| b.usable).map(|r| (t, b, r)))
        .collect();
    if usable.is_empty() {
        return Err(OracleError::NoUsableTest { path: out.path(outdir::BASELINE) });
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
    let expected: HashMap<&str, usize> = catalogue
        .mutants
        .iter()
        .map(|m| (m.id.as_str(), jobs.iter().filter(|(j, _)| j.id == m.id).count()))
        .collect();
    let expected_runs = |id: &str| expected.get(id).copied().unwrap_or(0);

    let mut runs: Vec<Run> =
        previous.into_iter().filter(|r| jobs.iter().any(|(m, t)| m.id == r.mutant && usable[*t].0.name == r.test)).collect();
    let todo: Vec<(&Mutant, usize)> = jobs
        .iter()
        .filter(|(m, t)| !runs.iter().any(|r| r.mutant == m.id && r.test == usable[*t].0.name))
        .copied()
        .collect();
    progress.runs_started(todo.len());
    let next = AtomicUsize::new(0);
    let (sender, receiver) = mpsc::channel::<Result<Run, String>>();
    std::thread::scope(|scope| -> Result<(), OracleError> {
        // One worker per job at most: `-j` is an upper bound, not a thread count to spawn.
        for _ in 0..config.jobs.clamp(1, todo.len().max(1)) {
            let sender = sender.clone();
            let (next, todo, usable) = (&next, &todo, &usable);
            scope.spawn(move || loop {
                let index = next.fetch_add(1, Ordering::SeqCst);
                let Some((mutant, test_index)) = todo.get(index) else { break };
                let (test, baseline, plan) = usable[*test_index];
                let run = run_mutant(build, mutant, test, baseline, plan, out, config);
                if sender.send(run).is_err() {
                    break;
                }
            });
        }
        drop(sender);
        for run in receiver {
            // Returning drops the receiver: the workers stop at their next send.
            let run = run.map_err(|message| OracleError::Environment { message })?;
            progress.run_finished(&run);
            runs.push(run);
            save(catalogue, &runs, &expected_runs, out)?;
        }
        Ok(())
    })?;
    // Outcomes must not depend on which worker finished first.
    let order: HashMap<(&str, &str), usize> =
        jobs.iter().enumerate().map(|(i, (m, t))| ((m.id.as_str(), usable[*t].0.name.as_str()), i)).collect();
    runs.sort_by_key(|r| order.get(&(r.mutant.as_str(), r.test.as_str())).copied().unwrap_or(usize::MAX));
    let outcomes = save(catalogue, &runs, &expected_runs, out)?;
    for outcome in outcomes.mutants.iter().filter(|m| m.verdict.is_killed()) {
        let (Some(mutant), Some(test)) = (catalogue.mutant(&outcome.mutant), outcome.killed_by.as_deref()) else { continue };
        let schedule = outcome.runs.iter().find(|r| r.test == test).and_then(|r| r.schedule.as_deref());
        let original = trace::read(&outdir::trace_file(out.root(), test, None, schedule)).unwrap_or_default();
        let mutated = trace::read(&outdir::trace_file(out.root(), test, Some(&mutant.id), schedule)).unwrap_or_default();
        let text = diff::render(catalogue, mutant, test, &original, &mutated, &outcome.reason);
        out.write(Path::new(outdir::DIFF_DIR).join(format!("{}.diff", outdir::file_name(&mutant.id))), text.as_bytes())?;
    }
    Ok((outcomes, baselines.into_iter().map(|(b, _)| b).collect()))
}

/// The settings that change verdicts, as saved in `settings.json`: a resumed run keeps
/// earlier runs only when these are the same.
pub fn verdict_settings(config: &RunSettings) -> serde_json::Value {
    serde_json::json!({ "schedules": config.strategy.to_string() })
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
}

fn read_baselines(out: &OutDir) -> Option<Vec<Baseline>> {
    serde_json::from_slice(&std::fs::read(out.path(outdir::BASELINE)).ok()?).ok()
}

/// Writes outcomes.json and report.csv for the runs so far.
fn save(catalogue: &Catalogue, runs: &[Run], expected_runs: &dyn Fn(&str) -> usize, out: &OutDir) -> Result<Outcomes, OracleError> {
    let outcomes = Outcomes::summarise(catalogue, runs, expected_runs);
    out.write_json(outdir::OUTCOMES, &outcomes)?;
    out.write(outdir::REPORT_CSV, &report::render(report::Format::Csv, catalogue, &outcomes))?;
    Ok(outcomes)
}

/// Runs the metamutant with `active` (empty: no mutant) under `schedule` and observes its
/// trace, events at `hidden` sites left out. The trace is read event by event and never
/// held whole (a spinning mutant writes a million events); the runtime's file stays at
/// `trace_file` for the caller to keep ([`keep_trace`]) or delete.
#[allow(clippy::too_many_arguments)]
fn traced(build: &Build, test: &TestCase, active: &str, schedule: &str, max_steps: Option<u64>, hidden: &[u32], trace_file: &Path, limits: &Limits) -> Result<(Execution, Observation), Unjudged> {
    if let Some(parent) = trace_file.parent() {
        std::fs::create_dir_all(parent).map_err(|e| Unjudged::from_io(parent, e))?;
    }
    let _ = std::fs::remove_file(trace_file);
    let invocation = Invocation {
        active: Some(active.to_string()),
        trace: Some(trace_file.to_path_buf()),
        schedule: (build.catalogue.kind == Family::Pthread).then(|| schedule.to_string()),
        max_steps,
        limits: *limits,
        ..Invocation::for_test(&build.metamutant, test)
    };
    let execution = invocation.run().map_err(|e| Unjudged::from_io(&build.metamutant, e))?;
    let mut recorder = Recorder::new(hidden);
    // A trace the runtime could not write for lack of space is the disk's fault, not the
    // design's.
    let trace = trace::visit(trace_file, &mut |event| recorder.event(event)).map_err(|e| match disk_full(trace_file) {
        true => Unjudged::Environment(format!("{e} (the disk is full)")),
        false => Unjudged::Run(e),
    })?;
    let observation = recorder.finish(&execution, trace.end.as_ref());
    Ok((execution, observation))
}

/// Keeps a run's trace in the run directory for users: rendered as JSON Lines in place of
/// the runtime's binary file, capped ([`Keep::DEFAULT`]: the head, the tail, and the
/// events around `divergence`, where the run first left the original's; the file says
/// what was left out), so a livelocked mutant's million events cost half a megabyte, not
/// hundreds. The JSON is formatted here rather than in the design's process.
fn keep_trace(path: &Path, divergence: Option<u64>) -> Result<(), Unjudged> {
    trace::write_capped(path, path, &Keep { around: divergence, ..Keep::DEFAULT }).map(|_| ()).map_err(|e| match disk_full(path) {
        true => Unjudged::Environment(format!("{e} (the disk is full)")),
        false => Unjudged::Run(e),
    })
}

/// The seq of the `index`-th event of `thread` outside the `hidden` sites in the trace at
/// `path` (its last event when it has fewer): where a kill's divergence sits in the file.
fn divergence_seq(path: &Path, hidden: &[u32], (thread, index): &(String, usize)) -> Option<u64> {
    let (mut seen, mut found, mut last) = (0usize, None, None);
    trace::visit(path, &mut |event| {
        if found.is_none() && event.thread == *thread && !hidden.contains(&event.site) {
            if seen == *index {
                found = Some(event.seq);
            }
            last = Some(event.seq);
            seen += 1;
        }
    })
    .ok()?;
    found.or(last)
}

/// Why a run could not be judged.
#[derive(Debug)]
enum Unjudged {
    /// The machine, not the design: a full disk, no process, memory or file descriptor
    /// left. The whole run stops with this message (finished results are kept), so a
    /// `--resume` retries once it is fixed, instead of an `error` verdict that depends on
    /// what else the machine was doing.
    Environment(String),
    /// Something about this design or run: an `error` verdict with the reason.
    Run(String),
}

impl Unjudged {
    fn from_io(path: &Path, error: std::io::Error) -> Unjudged {
        let message = format!("{}: {error}", path.display());
        match error.raw_os_error() {
            Some(libc::ENOSPC | libc::EDQUOT | libc::EAGAIN | libc::ENOMEM | libc::EMFILE | libc::ENFILE) => Unjudged::Environment(message),
            _ => Unjudged::Run(message),
        }
    }
}

impl From<String> for Unjudged {
    fn from(reason: String) -> Self {
        Unjudged::Run(reason)
    }
}

impl std::fmt::Display for Unjudged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unjudged::Environment(m) | Unjudged::Run(m) => f.write_str(m),
        }
    }
}

/// Whether the filesystem holding `path` has (almost) no space left for syncmut.
fn disk_full(path: &Path) -> bool {
    let dir = path.parent().unwrap_or(path);
    let Ok(c_path) = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes()) else { return false };
    // SAFETY: statvfs writes only into the struct we pass, and reads a valid C string.
    let mut stats: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(c_path.as_ptr(), &mut stats) } != 0 {
        return false;
    }
    (stats.f_bavail as u64).saturating_mul(stats.f_frsize as u64) < 1024 * 1024
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
        format!("replay:{}", schedule_file(root, test, mutant, tag).display())
    } else {
        tag.to_string()
    }
}

/// Where the choices of a dfs run are saved: beside its trace, `.schedule`.
fn schedule_file(root: &Path, test: &str, mutant: Option<&str>, tag: &str) -> std::path::PathBuf {
    outdir::trace_file(root, test, mutant, Some(tag)).with_extension("schedule")
}

/// The exploration settings of a dfs search in the lab.
fn dfs_config(schedules: Schedules, max_steps: Option<u64>) -> explore::ExploreSettings {
    explore::ExploreSettings {
        strategy: schedules.strategy,
        schedules: schedules.budget.max(1),
        // The original runs under the runtime's own default, mutants under their plan's.
        max_steps: max_steps.unwrap_or(10_000_000),
    }
}

/// Runs the original on a test and decides whether the test is usable: the first
/// schedule twice (the runs must agree), then every other schedule once (dfs: a search),
/// then the uninstrumented build once.
fn baseline(build: &Build, test: &TestCase, out: &OutDir, config: &RunSettings) -> Result<(Baseline, Option<OriginalRuns>), OracleError> {
    let limits = Limits { timeout: config.baseline_timeout, ..config.limits };
    let explores = explores(build, config);
    let dfs = explores && matches!(config.strategy.strategy, Strategy::Dfs { .. });
    // The original's run length (pthread) places pct's change points and bounds the
    // mutants' steps; random and pct schedules are fixed in advance.
    let steps = (build.catalogue.kind == Family::Pthread).then(|| measure_steps(build, test, out, &limits));
    let mut schedules = planned_schedules(config.strategy, explores, steps);
    let listed = if dfs { &schedules[..1] } else { &schedules[..] };
    let tagged = explores && !dfs;
    let (mut runs, mut set_aside) = run_original_listed(build, test, out, listed, tagged, config.baseline_repeats.max(1), config.keep_traces, &limits);
    let mut exhausted = false;
    if dfs && set_aside.is_none() {
        // The original's own search replaces the runs above; its first run (no prefix) is
        // the default schedule already run.
        let work = tempfile::tempdir().map_err(|e| OracleError::Write { path: std::env::temp_dir(), source: e })?;
        match search_original(build, test, config.strategy, &limits, work.path()) {
            Ok((searched, covered, failure)) => {
                (runs, exhausted) = (searched, covered);
                set_aside = failure;
            }
            Err(e) => set_aside = Some(e),
        }
        schedules.clear();
    }
    let Some((execution, _)) = runs.first() else {
        let reason = set_aside.unwrap_or_else(|| "the original could not be run".to_string());
        return Ok((not_started(test, reason), None));
    };
    if set_aside.is_none() {
        set_aside = differs_from_original_build(build, test, execution, &limits);
    }
    let baseline = summarise(test, &runs, set_aside);
    let max_steps = steps.map(|s| s.saturating_mul(MUTANT_STEPS_FACTOR).max(MIN_MUTANT_STEPS));
    let plan = baseline.usable.then_some(OriginalRuns { schedules, originals: runs, exhausted, max_steps });
    Ok((baseline, plan))
}

/// The `SYNCMUT_SCHEDULE` values the original and every mutant run under: the seeded
/// strategy's values, else the one `default` schedule (dfs starts there).
fn planned_schedules(schedules: Schedules, explores: bool, steps: Option<u64>) -> Vec<String> {
    let seeded: Option<Vec<String>> = (1..=schedules.budget).map(|k| schedules.strategy.seeded_value(k, steps.unwrap_or(1000))).collect();
    match seeded {
        Some(values) if explores => values,
        _ => vec!["default".to_string()],
    }
}

/// Runs the original under the first schedule `repeats` times (the runs must agree) and
/// then under each other one, keeping each schedule's trace in the run directory (tagged
/// by schedule when `tagged`; the repeats' only when `keep_repeats`). Returns one run per schedule and why the test is unusable,
/// if it is; stops at the first reason.
fn run_original_listed(
    build: &Build,
    test: &TestCase,
    out: &OutDir,
    schedules: &[String],
    tagged: bool,
    repeats: usize,
    keep_repeats: bool,
    limits: &Limits,
) -> (Vec<(Execution, Observation)>, Option<String>) {
    let mut runs: Vec<(Execution, Observation)> = Vec::new();
    let order = std::iter::repeat_n(&schedules[0], repeats).chain(&schedules[1..]);
    for (i, schedule) in order.enumerate() {
        let repeat_of_first = i > 0 && i < repeats;
        let path = if repeat_of_first {
            out.path(Path::new(outdir::TRACE_DIR).join(&test.name).join(format!("original.{}.jsonl", i + 1)))
        } else {
            outdir::trace_file(out.root(), &test.name, None, tagged.then_some(schedule.as_str()))
        };
        let kept = match traced(build, test, "", schedule, None, &[], &path, limits) {
            Ok(r) if repeat_of_first && !keep_repeats => {
                let _ = std::fs::remove_file(&path);
                Ok(r)
            }
            Ok(r) => keep_trace(&path, None).map(|()| r),
            Err(e) => Err(e),
        };
        let (execution, observation) = match kept {
            Ok(r) => r,
            Err(Unjudged::Environment(message)) => return (runs, Some(message)),
            Err(e) => return (runs, Some(format!("its trace could not be read: {e}"))),
        };
        let mut set_aside = unusable(&execution, limits);
        if set_aside.is_none() && repeat_of_first {
            if runs[0].1 != observation {
                set_aside = Some("the original is not deterministic on this test (two runs under the same schedule behaved differently)".to_string());
            }
        }
        if !repeat_of_first || runs.is_empty() {
            runs.push((execution, observation));
        }
        if set_aside.is_some() {
            return (runs, set_aside);
        }
    }
    (runs, None)
}

/// The original's dfs search (per-run files in `work`): its runs, whether it covered the
/// bounded space, and why the test is unusable if some run made it so; an error when the
/// search itself failed.
#[allow(clippy::type_complexity)]
fn search_original(
    build: &Build,
    test: &TestCase,
    schedules: Schedules,
    limits: &Limits,
    work: &Path,
) -> Result<(Vec<(Execution, Observation)>, bool, Option<String>), String> {
    let mut runs = Vec::new();
    let mut failure = None;
    // Without the test's input values, as the dfs search has always run.
    let original = Invocation { active: Some(String::new()), limits: *limits, ..Invocation::new(&build.metamutant, &test.args) };
    let search = explore::search(&original, &dfs_config(schedules, None), work, &mut |visit| {
        failure = unusable(visit.execution, limits);
        runs.push((visit.execution.clone(), Observation::new(visit.execution, visit.trace, &[])));
        failure.is_some()
    });
    match search {
        Ok(search) => Ok((runs, search.exhausted, failure.map(|f| format!("{f} under a dfs schedule")))),
        Err(e) => Err(format!("schedule exploration failed: {e}")),
    }
}

/// Why the test is unusable when the uninstrumented original disagrees with the
/// metamutant running no mutant (`execution`), or cannot be run.
fn differs_from_original_build(build: &Build, test: &TestCase, execution: &Execution, limits: &Limits) -> Option<String> {
    match (Invocation { limits: *limits, ..Invocation::for_test(&build.original, test) }).run() {
        Ok(native) if native.status != execution.status => Some(format!(
            "the original build ends with {} but the metamutant without a mutant with {}: the design behaves differently when syncmut controls its synchronization",
            native.status, execution.status
        )),
        Ok(native) if native.stdout != execution.stdout => Some(format!(
            "the original build and the metamutant without a mutant print different output ({}): the design behaves differently when syncmut controls its synchronization",
            crate::verdict::output_difference(&native.stdout, &execution.stdout)
        )),
        Ok(_) => None,
        Err(e) => Some(format!("{}: {e}", build.original.display())),
    }
}

/// The baseline of a test on which the original could not even start (its trace never
/// appeared): set aside, with status 127, what a shell reports for a program it could
/// not run.
fn not_started(test: &TestCase, reason: String) -> Baseline {
    Baseline {
        test: test.name.clone(),
        args: test.args.clone(),
        usable: false,
        set_aside_because: Some(reason),
        status: Status::Exited(127),
        elapsed_ms: 0,
        reached: Vec::new(),
        deadlock: false,
        pending: Vec::new(),
        lost_notifications: LostNotifications::default(),
    }
}

/// The saved baseline of a test from the original's runs (the first one is the reference).
fn summarise(test: &TestCase, runs: &[(Execution, Observation)], set_aside: Option<String>) -> Baseline {
    let (execution, observation) = &runs[0];
    let mut reached: Vec<u32> = runs.iter().flat_map(|(_, o)| o.reached()).collect();
    reached.sort_unstable();
    reached.dedup();
    Baseline {
        test: test.name.clone(),
        args: test.args.clone(),
        usable: set_aside.is_none(),
        set_aside_because: set_aside,
        status: execution.status,
        elapsed_ms: runs.iter().map(|(e, _)| e.elapsed.as_millis() as u64).max().unwrap_or(0),
        reached,
        deadlock: observation.deadlock,
        pending: observation.pending.clone(),
        lost_notifications: LostNotifications::count(&observation.lost_notifications),
    }
}

/// Why a run of the original makes its test unusable, if it does.
fn unusable(execution: &Execution, limits: &Limits) -> Option<String> {
    match execution.status {
        Status::TimedOut => Some(format!("the original did not finish within {} ms", limits.timeout.as_millis())),
        Status::Signaled(_) => Some(format!("the original crashed ({})", execution.status)),
        Status::Exited(syncmut_runtime::status::THREAD_LIMIT) => {
            Some("the original hit the runtime's thread limit (more than 1024 threads alive or unjoined at once)".to_string())
        }
        _ => None,
    }
}

/// Scheduling points of the original's `default` run on a test (pct's run-length
/// estimate, the mutants' livelock bound), 1000 if it cannot be measured.
fn measure_steps(build: &Build, test: &TestCase, out: &OutDir, limits: &Limits) -> u64 {
    let file = out.path(Path::new(outdir::TRACE_DIR).join(&test.name).join("original.steps.schedule"));
    let _ = std::fs::create_dir_all(file.parent().unwrap_or(out.root()));
    // Without the test's input values, as the measurement has always run.
    let measuring = Invocation {
        active: Some(String::new()),
        schedule: Some("default".to_string()),
        schedule_out: Some(file.clone()),
        limits: *limits,
        ..Invocation::new(&build.metamutant, &test.args)
    };
    let _ = measuring.run();
    let steps = std::fs::read_to_string(&file).ok().and_then(|t| schedule::parse(&t).ok()).and_then(|s| s.steps);
    let _ = std::fs::remove_file(&file);
    steps.unwrap_or(1000).max(1)
}

/// What one (mutant, test) pair showed over its schedules.
struct Tally {
    kills: usize,
    runs: usize,
    elapsed: Duration,
    /// Verdict, reason and schedule tag of the first killing run.
    first_kill: Option<(Verdict, String, String)>,
    /// Where the first killing run's steps left the original's (thread, step index), for
    /// the part of its trace that is kept.
    divergence: Option<(String, usize)>,
    original: Vec<Observation>,
    /// Which of the original's observations some run of the mutant showed too.
    matched: Vec<bool>,
    /// Random/pct: the original's i-th run had the same schedule as the mutant's (the
    /// verdict's reason compares those two); dfs: the searches differ, compare with the
    /// original's first (default) run.
    paired: bool,
}

impl Tally {
    /// Judges one run; true when it kills.
    fn add(&mut self, build: &Build, execution: &Execution, observed: &Observation, tag: &str) -> bool {
        self.runs += 1;
        self.elapsed += execution.elapsed;
        // A behaviour the original shows under some schedule is not a kill.
        let mut shown = false;
        for (original, matched) in self.original.iter().zip(&mut self.matched) {
            if original == observed {
                *matched = true;
                shown = true;
            }
        }
        if shown {
            return false;
        }
        self.kills += 1;
        if self.first_kill.is_none() {
            let label = |site| crate::diff::site_label(&build.catalogue, site);
            let closest = self.original.get(if self.paired { self.runs - 1 } else { 0 }).unwrap_or(&self.original[0]);
            let (v, r) = verdict::judge(closest, observed, &execution.stderr, &label);
            self.first_kill = Some((v, r, tag.to_string()));
            self.divergence = closest.first_step_index(observed);
        }
        true
    }
}

/// Runs one mutant on one test under every schedule and judges it.
///
/// An error is a failure of the machine ([`Unjudged::Environment`]): the run stops.
fn run_mutant(build: &Build, mutant: &Mutant, test: &TestCase, baseline: &Baseline, plan: &OriginalRuns, out: &OutDir, config: &RunSettings) -> Result<Run, String> {
    let limits = Limits { timeout: invocation::timeout_after(Duration::from_millis(baseline.elapsed_ms)), ..config.limits };
    let original: Vec<Observation> = plan.originals.iter().map(|(_, o)| o.hiding(&mutant.sites)).collect();
    let matched = vec![false; original.len()];
    let explores = explores(build, config);
    let dfs = explores && matches!(config.strategy.strategy, Strategy::Dfs { .. });
    let mut tally = Tally { kills: 0, runs: 0, elapsed: Duration::ZERO, first_kill: None, divergence: None, original, matched, paired: !dfs };
    let mut exhaustive = false;
    let ran = if dfs {
        search_mutant(build, mutant, test, plan, out, config.strategy, &limits, &mut tally)
            .map(|covered| exhaustive = covered && plan.exhausted)
            .map_err(Unjudged::from)
    } else {
        let schedules: &[String] = if explores { &plan.schedules } else { &plan.schedules[..1] };
        run_mutant_listed(build, mutant, test, schedules, explores, plan.max_steps, out, config.keep_traces, &limits, &mut tally)
    };
    match ran {
        Err(Unjudged::Environment(message)) => return Err(message),
        Err(Unjudged::Run(reason)) => return Ok(error_run(mutant, test, reason, tally.elapsed)),
        Ok(()) => {}
    }
    let (kills, total) = (tally.kills, tally.runs);
    // Every behaviour of the mutant is one of the original's and every one of the
    // original's is the mutant's, over both whole bounded spaces: equivalent there.
    let equivalent = exhaustive && tally.kills == 0 && tally.matched.iter().all(|m| *m);
    let (verdict, mut reason, schedule) = match tally.first_kill {
        Some((v, r, s)) => (v, r, explores.then_some(s)),
        None if equivalent => {
            let Strategy::Dfs { preemptions, .. } = config.strategy.strategy else { unreachable!("exhaustive only under dfs") };
            let reason = format!(
                "equivalent (exhaustive): on each of {} schedules (every schedule with at most {preemptions} preemptions, up to sleep-set equivalence) the mutant showed one of the original's behaviours, and all {} of them",
                tally.runs,
                distinct(&tally.original)
            );
            (Verdict::EquivalentExhaustive, reason, None)
        }
        None => (Verdict::Survived, String::new(), None),
    };
    if explores && !equivalent {
        let fraction = kill_fraction(config.strategy.strategy, kills, total, exhaustive);
        reason = if reason.is_empty() { fraction } else { format!("{reason}; {fraction}") };
    }
    Ok(Run {
        mutant: mutant.id.clone(),
        test: test.name.clone(),
        verdict,
        reason,
        elapsed_ms: tally.elapsed.as_millis() as u64,
        schedule,
        kills: explores.then_some(kills),
        schedules: explores.then_some(total),
        exhaustive,
    })
}

/// The mutant's own dfs search, each run judged into `tally`; the first kill's trace and
/// choices are kept, and the original re-run under them for the diff. Returns whether the
/// search covered its bounded space, or why the pair cannot be judged.
#[allow(clippy::too_many_arguments)]
fn search_mutant(
    build: &Build,
    mutant: &Mutant,
    test: &TestCase,
    plan: &OriginalRuns,
    out: &OutDir,
    schedules: Schedules,
    limits: &Limits,
    tally: &mut Tally,
) -> Result<bool, String> {
    let work = tempfile::tempdir().map_err(|e| format!("temporary directory: {e}"))?;
    // Without the test's input values, as the dfs search has always run.
    let program = Invocation { active: Some(mutant.activation()), limits: *limits, ..Invocation::new(&build.metamutant, &test.args) };
    let search = explore::search(&program, &dfs_config(schedules, plan.max_steps), work.path(), &mut |visit| {
        let tag = dfs_tag(visit.run);
        let first = tally.first_kill.is_none();
        let observed = Observation::new(visit.execution, visit.trace, &mutant.sites);
        if tally.add(build, visit.execution, &observed, &tag) && first {
            // Keep the kill: its trace (capped around where it diverged) and the choices
            // that replay it.
            let path = outdir::trace_file(out.root(), &test.name, Some(&mutant.id), Some(&tag));
            let _ = std::fs::create_dir_all(path.parent().unwrap_or(out.root()));
            let around = tally.divergence.as_ref().and_then(|d| divergence_seq(visit.trace_file, &mutant.sites, d));
            let _ = trace::write_capped(visit.trace_file, &path, &Keep { around, ..Keep::DEFAULT });
            let _ = std::fs::write(schedule_file(out.root(), &test.name, Some(&mutant.id), &tag), visit.schedule_text);
        }
        false
    });
    let covered = match search {
        Err(explore::ExploreError::Runtime(e)) => return Err(format!("the runtime rejected the mutant: {e}")),
        Err(e) => return Err(e.to_string()),
        Ok(search) => search.exhausted,
    };
    if let Some((_, _, tag)) = &tally.first_kill {
        // The original under the kill's choices, for the diff and `explain`.
        let value = schedule_value(out.root(), &test.name, Some(&mutant.id), tag);
        let path = outdir::trace_file(out.root(), &test.name, None, Some(tag));
        if traced(build, test, "", &value, None, &[], &path, limits).is_ok() {
            let _ = keep_trace(&path, None);
        }
    }
    Ok(covered)
}

/// Runs the mutant under each of `schedules` (the original's), judged into `tally`; only
/// the first killing run's trace is kept (every run's with `keep_all`), capped. An error
/// says why the pair cannot be judged.
#[allow(clippy::too_many_arguments)]
fn run_mutant_listed(
    build: &Build,
    mutant: &Mutant,
    test: &TestCase,
    schedules: &[String],
    tagged: bool,
    max_steps: Option<u64>,
    out: &OutDir,
    keep_all: bool,
    limits: &Limits,
    tally: &mut Tally,
) -> Result<(), Unjudged> {
    for schedule in schedules {
        let path = outdir::trace_file(out.root(), &test.name, Some(&mutant.id), tagged.then_some(schedule.as_str()));
        let (execution, observed) = traced(build, test, &mutant.activation(), schedule, max_steps, &mutant.sites, &path, limits)?;
        if execution.status == Status::Exited(status::CONFIG_ERROR) {
            return Err(Unjudged::Run(format!("the runtime rejected the mutant: {}", execution.stderr.trim())));
        }
        let first = tally.first_kill.is_none();
        if tally.add(build, &execution, &observed, schedule) && first {
            // Keep this trace: it explains the kill.
            let around = tally.divergence.as_ref().and_then(|d| divergence_seq(&path, &mutant.sites, d));
            keep_trace(&path, around)?;
        } else if keep_all {
            keep_trace(&path, None)?;
        } else {
            // Only killing runs are explained by a diff; spinning mutants write traces of
            // a million events, which must not pile up on disk.
            let _ = std::fs::remove_file(&path);
        }
    }
    Ok(())
}

/// How many of `observations` differ from each other.
fn distinct(observations: &[Observation]) -> usize {
    observations.iter().enumerate().filter(|(i, o)| !observations[..*i].contains(o)).count()
}

/// How often the mutant was killed, for the reason: dfs says whether the search was
/// exhaustive, sampled strategies give a 95% Wilson interval.
fn kill_fraction(strategy: Strategy, kills: usize, total: usize, exhaustive: bool) -> String {
    match strategy {
        Strategy::Dfs { preemptions, .. } if exhaustive => {
            format!("killed in {kills} of {total} schedules (exhaustive: every schedule with at most {preemptions} preemptions, up to sleep-set equivalence)")
        }
        Strategy::Dfs { .. } => format!("killed in {kills} of {total} dfs schedules (not exhaustive: the budget ended the search)"),
        _ => {
            let (lo, hi) = wilson_interval(kills, total);
            format!("killed in {kills} of {total} schedules (95% CI {:.0}–{:.0}%)", lo * 100.0, hi * 100.0)
        }
    }
}

fn error_run(mutant: &Mutant, test: &TestCase, reason: String, elapsed: Duration) -> Run {
    Run {
        mutant: mutant.id.clone(),
        test: test.name.clone(),
        verdict: Verdict::Error,
        reason,
        elapsed_ms: elapsed.as_millis() as u64,
        schedule: None,
        kills: None,
        schedules: None,
        exhaustive: false,
    }
}

/// 95% Wilson score interval of a proportion k/n.
pub fn wilson_interval(k: usize, n: usize) -> (f64, f64) {
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
    fn a_full_disk_or_no_process_left_is_the_machine_and_anything_else_the_run() {
        let path = Path::new("/x");
        for errno in [libc::ENOSPC, libc::EDQUOT, libc::EAGAIN, libc::ENOMEM, libc::EMFILE, libc::ENFILE] {
            assert!(matches!(Unjudged::from_io(path, std::io::Error::from_raw_os_error(errno)), Unjudged::Environment(_)), "{errno}");
        }
        for errno in [libc::ENOENT, libc::EACCES, libc::ENOEXEC] {
            assert!(matches!(Unjudged::from_io(path, std::io::Error::from_raw_os_error(errno)), Unjudged::Run(_)), "{errno}");
        }
        assert!(!disk_full(&std::env::temp_dir().join("file")), "the test machine's temporary directory is not full");
    }

    #[test]
    fn wilson_interval_matches_known_values() {
        let (lo, hi) = wilson_interval(5, 10);
        assert!((lo - 0.2366).abs() < 1e-3 && (hi - 0.7634).abs() < 1e-3, "{lo} {hi}");
        let (lo, hi) = wilson_interval(0, 20);
        assert_eq!(lo, 0.0);
        assert!((hi - 0.1611).abs() < 1e-3, "{hi}");
        let (lo, hi) = wilson_interval(20, 20);
        assert!((lo - 0.8389).abs() < 1e-3 && hi == 1.0, "{lo}");
    }
}
