//! The main loop: baseline the original on every test, derive timeouts from it, then run
//! every reached (mutant, test) pair in parallel and judge it against the baseline.
//! Results are saved as they arrive.

use crate::diff;
use crate::error::OracleError;
use crate::explore;
use crate::mask::Mask;
use crate::observation::{Compared, Observation, Recorder};
use crate::outcome::{Baseline, LostNotifications, Outcomes, Run};
use crate::outdir::{self, OutDir};
use crate::races::SourceRace;
use crate::report;
use crate::schedules::{self as schedule_plan, Schedules, Strategy};
use crate::verdict::{self, Verdict};
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, OnceLock};
use std::time::Duration;
use syncmut_mutator::api::Family;
use syncmut_mutator::metamutant::Build;
use syncmut_mutator::{Catalogue, Mutant};
use syncmut_runtime::exec::{Execution, Limits, Status};
use syncmut_runtime::invocation::{self, Invocation};
use syncmut_runtime::test_case::TestCase;
use syncmut_runtime::trace::{self, Keep, Trace};
use syncmut_runtime::workdir::Workdir;
use syncmut_runtime::{schedule, status};

/// The schedules of one usable test and the original's executions under them.
#[derive(Debug, Clone)]
struct OriginalRuns {
    /// `SYNCMUT_SCHEDULE` values every mutant runs under: the original's (empty for dfs:
    /// each mutant's own search chooses its schedules), or, in a self-check, others.
    mutant_schedules: Vec<String>,
    /// The original's executions, one per schedule explored, each with what it showed
    /// (nothing hidden, the mask applied): compact, whatever the length of the trace.
    originals: Vec<(Execution, Observation)>,
    /// The schedule each of `originals` ran under (`default`, `random:3`, `dfs:7`).
    labels: Vec<String>,
    /// The original's runs with real threads (`--native N`): how it ends without the
    /// controlled scheduler.
    native: Vec<Execution>,
    /// dfs: the original's search covered its whole bounded space.
    exhausted: bool,
    /// pthread: the mutants' livelock bound (`SYNCMUT_MAX_STEPS`), a multiple of the
    /// original's own scheduling points on this test.
    max_steps: Option<u64>,
    /// What the original does not repeat across virtual worlds, left out of comparisons.
    mask: Mask,
    /// `run --races`: the data races of the original's runs (never kills), and whether
    /// the detector left something unchecked in them (then no race kills on this test:
    /// the original might have had the race unseen).
    races: RunRaces,
    /// The original's bounded searches on this test, by preemption bound (0 to
    /// [`FOLLOW_CHECK_PREEMPTIONS`]), each made the first time a mutant's run needs it
    /// (the original could not follow that run's interleaving to its end) and shared by
    /// every mutant; under dfs, the baseline's own search, whatever the bound.
    searched: Arc<Vec<OnceLock<Result<BoundedSearch, String>>>>,
}

/// The original's runs over every schedule within a preemption bound: what decides a
/// mutant run the original could not follow to its end.
#[derive(Debug, Clone)]
struct BoundedSearch {
    /// What each run showed, nothing hidden, the baseline's mask applied.
    observations: Vec<Observation>,
    /// The search covered every schedule within the bound (with no reduction, unless the
    /// user's own dfs search, reused here, asked for `--por sleep`).
    exhausted: bool,
    preemptions: u32,
}

/// The original's search that checks a run it could not follow covers every schedule
/// with as many preemptions as that run had, up to this many (a run with more is not
/// decided), at most `FOLLOW_CHECK_SCHEDULES` runs (not exhausted past that, and then it
/// decides nothing): a few seconds per test and bound.
const FOLLOW_CHECK_PREEMPTIONS: u32 = 2;
const FOLLOW_CHECK_SCHEDULES: usize = 600;

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
    /// none of them, nor when it follows the mutant's interleaving.
    pub strategy: Schedules,
    /// pthread: runs with real threads (no controlled scheduler) per (mutant, test),
    /// after the controlled schedules. They kill only by an absolute failure (crash,
    /// assertion, hang) that no run of the original shows.
    pub native: usize,
    /// Run the original in place of every mutant (under other seeds than the
    /// baseline's): every kill is a false one, so a sound oracle reports none.
    pub self_check: bool,
    /// Keep the (capped) traces of every run in the run directory, not only those a
    /// kill's diff needs: the survivors', the agreeing runs', the baseline's repeats.
    pub keep_traces: bool,
    /// The first limit of every mutant run in place of the one derived from the
    /// baseline (`SYNCMUT_MUTANT_TIMEOUT_MS`): a machine too loaded for the derived
    /// limit, made on purpose. A run that times out is confirmed under twice the derived
    /// limit before it kills, whatever this is.
    pub first_timeout: Option<Duration>,
}

/// A run that timed out runs again under this many times its limit before the timeout
/// counts (a mutant's timeout kill, a hang in `explore`): a run slowed by the machine's
/// load finishes then, a hang does not.
pub const TIMEOUT_CONFIRM_FACTOR: u32 = 2;

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
            native: 0,
            self_check: false,
            keep_traces: false,
            first_timeout: std::env::var("SYNCMUT_MUTANT_TIMEOUT_MS")
                .ok()
                .and_then(|ms| ms.parse().ok())
                .map(Duration::from_millis),
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
    let baselines: Vec<(Baseline, Option<OriginalRuns>)> = tests
        .iter()
        .map(|t| baseline(build, t, out, config))
        .collect::<Result<_, _>>()?;
    let fresh: Vec<&Baseline> = baselines.iter().map(|(b, _)| b).collect();
    out.write_json(outdir::BASELINE, &fresh)?;
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
        return Err(OracleError::NoUsableTest {
            path: out.path(outdir::BASELINE),
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
    let expected: HashMap<&str, usize> = catalogue
        .mutants
        .iter()
        .map(|m| {
            (
                m.id.as_str(),
                jobs.iter().filter(|(j, _)| j.id == m.id).count(),
            )
        })
        .collect();
    let expected_runs = |id: &str| expected.get(id).copied().unwrap_or(0);

    let mut runs: Vec<Run> = previous
        .into_iter()
        .filter(|r| {
            jobs.iter()
                .any(|(m, t)| m.id == r.mutant && usable[*t].0.name == r.test)
        })
        .collect();
    let todo: Vec<(&Mutant, usize)> = jobs
        .iter()
        .filter(|(m, t)| {
            !runs
                .iter()
                .any(|r| r.mutant == m.id && r.test == usable[*t].0.name)
        })
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
                let Some((mutant, test_index)) = todo.get(index) else {
                    break;
                };
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
    let outcomes = save(catalogue, &runs, &expected_runs, out)?;
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

/// How a run is observed: which sites' events are left out (a mutant's own) and what the
/// baseline masks.
#[derive(Clone, Copy)]
struct Lens<'a> {
    hidden: &'a [u32],
    mask: &'a Mask,
}

/// Runs the metamutant with `active` (empty: no mutant) under `schedule` in a private
/// working directory under `work` and observes its trace through `lens`; the working
/// directory is handed back (removed when dropped). The runtime's trace file stays at
/// `trace_file` for the caller to keep ([`keep_trace`]) or delete.
#[allow(clippy::too_many_arguments)]
fn traced(
    build: &Build,
    test: &TestCase,
    active: &str,
    schedule: &str,
    max_steps: Option<u64>,
    trace_file: &Path,
    work: &Path,
    limits: &Limits,
    lens: Lens,
) -> Result<(Execution, Observation, Workdir), Unjudged> {
    traced_in(
        build, test, active, schedule, max_steps, trace_file, None, work, limits, None, lens,
    )
}

/// [`traced`], recording the scheduler's choices in `schedule_out` (pthread), in the
/// virtual world `entropy` (`SYNCMUT_ENTROPY`; `None`: syncmut's own).
#[allow(clippy::too_many_arguments)]
fn traced_in(
    build: &Build,
    test: &TestCase,
    active: &str,
    schedule: &str,
    max_steps: Option<u64>,
    trace_file: &Path,
    schedule_out: Option<&Path>,
    work: &Path,
    limits: &Limits,
    entropy: Option<u32>,
    lens: Lens,
) -> Result<(Execution, Observation, Workdir), Unjudged> {
    if let Some(parent) = trace_file.parent() {
        std::fs::create_dir_all(parent).map_err(|e| Unjudged::from_io(parent, e))?;
    }
    let _ = std::fs::remove_file(trace_file);
    let invocation = Invocation {
        active: Some(active.to_string()),
        trace: Some(trace_file.to_path_buf()),
        schedule: (build.catalogue.kind == Family::Pthread).then(|| schedule.to_string()),
        schedule_out: schedule_out
            .filter(|_| build.catalogue.kind == Family::Pthread)
            .map(Path::to_path_buf),
        races_out: build.catalogue.races.then(|| races_file(trace_file)),
        max_steps,
        entropy,
        limits: *limits,
        work_root: Some(work.to_path_buf()),
        ..Invocation::for_test(&build.metamutant, test)
    };
    let (execution, workdir) = invocation
        .run_keeping()
        .map_err(|e| Unjudged::from_io(&build.metamutant, e))?;
    let observation = observe(&execution, trace_file, lens)?;
    Ok((execution, observation, workdir))
}

/// The observation of `execution` through `lens`, its trace read from `trace_file` event
/// by event and never held whole (a spinning mutant writes a million events).
fn observe(execution: &Execution, trace_file: &Path, lens: Lens) -> Result<Observation, Unjudged> {
    let mut recorder = Recorder::new(lens.hidden, lens.mask);
    let trace = trace::visit(trace_file, &mut |event| recorder.event(event))
        .map_err(|e| trace_error(trace_file, e))?;
    Ok(recorder.finish(execution, trace.end.as_ref()))
}

/// Where a run's data races are written (`run --races`): beside its trace, `.races`.
fn races_file(trace_file: &Path) -> std::path::PathBuf {
    trace_file.with_extension("races")
}

/// The data races of the run whose trace is `trace_file`, in source terms, and what the
/// detector's bounds left unchecked; nothing when the metamutant was not built for race
/// detection or the run wrote no race file (it was killed before it could).
fn run_races(build: &Build, trace_file: &Path) -> Result<RunRaces, Unjudged> {
    if !build.catalogue.races {
        return Ok(RunRaces::default());
    }
    let path = races_file(trace_file);
    let file = syncmut_runtime::races::read(&path).map_err(Unjudged::Run)?;
    let _ = std::fs::remove_file(&path);
    Ok(file.map(|f| RunRaces::of(build, &f)).unwrap_or_default())
}

/// One run's data races in source terms, and what the detector left unchecked.
#[derive(Debug, Clone, Default)]
struct RunRaces {
    races: Vec<SourceRace>,
    limits: Option<String>,
}

impl RunRaces {
    fn of(build: &Build, file: &syncmut_runtime::races::RaceFile) -> RunRaces {
        RunRaces {
            races: crate::races::all_in_source(&build.catalogue, &file.races),
            limits: file.limits(),
        }
    }

    /// Adds another run's races (one per key) and limits.
    fn merge(&mut self, other: RunRaces) {
        self.races.extend(other.races);
        self.races.sort();
        self.races.dedup_by(|a, b| a.key == b.key);
        if let Some(limits) = other.limits {
            self.limits.get_or_insert(limits);
        }
    }

    fn has(&self, key: &str) -> bool {
        self.races.iter().any(|r| r.key == key)
    }
}

/// Keeps a run's trace in the run directory for users: rendered as JSON Lines in place of
/// the runtime's binary file, capped ([`Keep::DEFAULT`]: the head, the tail, and the
/// events around `divergence`, where the run first left the original's; the file says
/// what was left out), so a livelocked mutant's million events cost half a megabyte, not
/// hundreds. The JSON is formatted here rather than in the design's process.
fn keep_trace(path: &Path, divergence: Option<u64>) -> Result<(), Unjudged> {
    trace::write_capped(
        path,
        path,
        &Keep {
            around: divergence,
            ..Keep::DEFAULT
        },
    )
    .map(|_| ())
    .map_err(|e| trace_error(path, e))
}

/// Why a trace at `path` could not be read or kept: a trace the runtime could not write
/// for lack of space is the disk's fault, not the design's.
fn trace_error(path: &Path, error: String) -> Unjudged {
    match disk_full(path) {
        true => Unjudged::Environment(format!("{error} (the disk is full)")),
        false => Unjudged::Run(error),
    }
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

/// Bytes of a kept run's stderr saved beside its trace (for `explain`).
const KEPT_STDERR: u64 = 1 << 20;

/// Saves the stderr of a kept run beside its trace (nothing when it is empty), at most
/// [`KEPT_STDERR`] bytes and saying how much more there was. A failure to save it costs
/// the explanation, not the verdict.
fn keep_stderr(trace_file: &Path, stderr: &syncmut_runtime::output::Output) {
    let path = outdir::stderr_file(trace_file);
    if stderr.len == 0 {
        let _ = std::fs::remove_file(&path);
        return;
    }
    let mut bytes = Vec::new();
    let _ = std::io::Read::read_to_end(
        &mut std::io::Read::take(stderr.reader(), KEPT_STDERR),
        &mut bytes,
    );
    if stderr.len > bytes.len() as u64 {
        bytes.extend_from_slice(
            format!(
                "\n… ({} more bytes not kept)\n",
                stderr.len - bytes.len() as u64
            )
            .as_bytes(),
        );
    }
    let _ = syncmut_runtime::atomic::write(&path, &bytes);
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
            Some(
                libc::ENOSPC
                | libc::EDQUOT
                | libc::EAGAIN
                | libc::ENOMEM
                | libc::EMFILE
                | libc::ENFILE,
            ) => Unjudged::Environment(message),
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
    let Ok(c_path) = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes()) else {
        return false;
    };
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

/// Runs the original on a test and decides whether the test is usable: the first
/// schedule twice (the runs must agree), then every other schedule once (dfs: a search),
/// then the uninstrumented build once.
fn baseline(
    build: &Build,
    test: &TestCase,
    out: &OutDir,
    config: &RunSettings,
) -> Result<(Baseline, Option<OriginalRuns>), OracleError> {
    let limits = Limits {
        timeout: config.baseline_timeout,
        ..config.limits
    };
    let explores = explores(build, config);
    let dfs = explores && matches!(config.strategy.strategy, Strategy::Dfs { .. });
    // The original's run length (pthread) places pct's change points and bounds the
    // mutants' steps; random and pct schedules are fixed in advance.
    let steps =
        (build.catalogue.kind == Family::Pthread).then(|| measure_steps(build, test, out, &limits));
    let mut schedules = planned_schedules(config.strategy, explores, steps, 0);
    let listed = if dfs { &schedules[..1] } else { &schedules[..] };
    let tagged = explores && !dfs;
    let (mut runs, mut set_aside, mask, mut races) = run_original_listed(
        build,
        test,
        out,
        listed,
        tagged,
        config.baseline_repeats.max(1),
        config.keep_traces,
        &limits,
    );
    let mut labels: Vec<String> = listed.to_vec();
    let mut exhausted = false;
    if dfs && set_aside.is_none() {
        // The original's own search replaces the runs above; its first run (no prefix) is
        // the default schedule already run.
        let work = tempfile::tempdir().map_err(|e| OracleError::Write {
            path: std::env::temp_dir(),
            source: e,
        })?;
        match search_original(
            build,
            test,
            config.strategy,
            &mask,
            &limits,
            work.path(),
            &mut races,
        ) {
            Ok((searched, covered, failure)) => {
                labels = (1..=searched.len()).map(dfs_tag).collect();
                (runs, exhausted) = (searched, covered);
                set_aside = failure;
            }
            Err(e) => set_aside = Some(e),
        }
        schedules.clear();
    }
    labels.truncate(runs.len());
    let Some((execution, _)) = runs.first() else {
        let reason = set_aside.unwrap_or_else(|| "the original could not be run".to_string());
        return Ok((not_started(test, reason), None));
    };
    if set_aside.is_none() {
        set_aside = fails_expectation(test, execution);
    }
    if set_aside.is_none() {
        set_aside = differs_from_original_build(build, test, execution, &mask, &limits);
    }
    let label = |site| crate::diff::site_label(&build.catalogue, site);
    let baseline = Baseline {
        nondeterministic: mask.describe(&label),
        races: races.races.clone(),
        races_unchecked: races.limits.clone(),
        ..summarise(test, &runs, set_aside)
    };
    let max_steps = steps.map(|s| s.saturating_mul(MUTANT_STEPS_FACTOR).max(MIN_MUTANT_STEPS));
    // A self-check runs the original as a mutant under schedules the baseline did not
    // sample, as a mutant that consumes the scheduler's choices differently would.
    let mutant_schedules = match config.self_check && tagged {
        true => planned_schedules(config.strategy, explores, steps, config.strategy.budget),
        false => schedules.clone(),
    };
    let native = match baseline.usable && build.catalogue.kind == Family::Pthread {
        true => run_native(build, test, "", config.native, &limits)
            .map_err(|message| OracleError::Environment { message })?,
        false => Vec::new(),
    };
    let searched: Arc<Vec<OnceLock<_>>> = Arc::new(
        (0..=FOLLOW_CHECK_PREEMPTIONS)
            .map(|_| OnceLock::new())
            .collect(),
    );
    if let (true, Strategy::Dfs { preemptions, .. }) = (dfs, config.strategy.strategy) {
        // A mutant's dfs runs have at most the same bound.
        let observations: Vec<Observation> = runs.iter().map(|(_, o)| o.clone()).collect();
        for cell in searched.iter() {
            let _ = cell.set(Ok(BoundedSearch {
                observations: observations.clone(),
                exhausted,
                preemptions,
            }));
        }
    }
    let plan = baseline.usable.then_some(OriginalRuns {
        mutant_schedules,
        originals: runs,
        labels,
        native,
        exhausted,
        max_steps,
        mask,
        races,
        searched,
    });
    Ok((baseline, plan))
}

/// The `SYNCMUT_SCHEDULE` values the original and every mutant run under: the seeded
/// strategy's values (the k-th from `skip + 1` on), else the one `default` schedule (dfs
/// starts there).
fn planned_schedules(
    schedules: Schedules,
    explores: bool,
    steps: Option<u64>,
    skip: usize,
) -> Vec<String> {
    let seeded: Option<Vec<String>> = (skip + 1..=skip + schedules.budget)
        .map(|k| schedules.strategy.seeded_value(k, steps.unwrap_or(1000)))
        .collect();
    match seeded {
        Some(values) if explores => values,
        _ => vec!["default".to_string()],
    }
}

/// `runs` runs of the metamutant with `active` and real threads: no controlled
/// scheduler, no trace. An error is a failure of the machine.
fn run_native(
    build: &Build,
    test: &TestCase,
    active: &str,
    runs: usize,
    limits: &Limits,
) -> Result<Vec<Execution>, String> {
    let invocation = Invocation {
        active: Some(active.to_string()),
        limits: *limits,
        ..Invocation::for_test(&build.metamutant, test)
    };
    (0..runs)
        .map(|_| {
            invocation
                .run()
                .map_err(|e| format!("{}: {e}", build.metamutant.display()))
        })
        .collect()
}

/// Runs the original under the first schedule `repeats` times, each repeat in another
/// virtual world (`SYNCMUT_ENTROPY`), and then under each other schedule, keeping each
/// schedule's trace in the run directory (tagged by schedule when `tagged`; the repeats'
/// only when `keep_repeats`). What differs between the repeats is masked ([`Mask`]); a
/// difference that cannot be masked makes the test unusable. Returns one run per
/// schedule, observed through the mask, why the test is unusable if it is (stopping at
/// the first reason), and the mask.
#[allow(clippy::too_many_arguments)]
fn run_original_listed(
    build: &Build,
    test: &TestCase,
    out: &OutDir,
    schedules: &[String],
    tagged: bool,
    repeats: usize,
    keep_repeats: bool,
    limits: &Limits,
) -> (
    Vec<(Execution, Observation)>,
    Option<String>,
    Mask,
    RunRaces,
) {
    let mut runs: Vec<(Execution, Observation)> = Vec::new();
    let mut mask = Mask::default();
    let mut races = RunRaces::default();
    let unmasked = Mask::default();
    let label = |site| crate::diff::site_label(&build.catalogue, site);
    let first_path = outdir::trace_file(
        out.root(),
        &test.name,
        None,
        tagged.then_some(schedules[0].as_str()),
    );
    let order = std::iter::repeat_n(&schedules[0], repeats).chain(&schedules[1..]);
    for (i, schedule) in order.enumerate() {
        let repeat_of_first = i > 0 && i < repeats;
        let path = if repeat_of_first {
            out.path(
                Path::new(outdir::TRACE_DIR)
                    .join(&test.name)
                    .join(format!("original.{}.jsonl", i + 1)),
            )
        } else {
            outdir::trace_file(
                out.root(),
                &test.name,
                None,
                tagged.then_some(schedule.as_str()),
            )
        };
        let entropy = repeat_of_first.then(|| other_world(i));
        // The first schedule's runs make the mask, so they are observed without it.
        let lens = Lens {
            hidden: &[],
            mask: if i < repeats { &unmasked } else { &mask },
        };
        let observed = traced_in(
            build,
            test,
            "",
            schedule,
            None,
            &path,
            None,
            &out.path(outdir::WORK_DIR),
            limits,
            entropy,
            lens,
        );
        let (execution, observation) = match observed {
            Ok((execution, observation, _)) => (execution, observation),
            Err(Unjudged::Environment(message)) => return (runs, Some(message), mask, races),
            Err(e) => {
                return (
                    runs,
                    Some(format!("its trace could not be read: {e}")),
                    mask,
                    races,
                )
            }
        };
        match run_races(build, &path) {
            Ok(found) => races.merge(found),
            Err(e) => {
                return (
                    runs,
                    Some(format!("its race file could not be read: {e}")),
                    mask,
                    races,
                )
            }
        }
        let mut set_aside = unusable(&execution, limits);
        if set_aside.is_none() && repeat_of_first {
            match Mask::between(&runs[0].1, &observation, &label) {
                Ok(found) => mask = mask.union(found),
                Err(what) => {
                    set_aside = Some(format!(
                        "the original is not deterministic on this test: run again under the same schedule (SYNCMUT_ENTROPY={}), {what}",
                        entropy.unwrap_or(0)
                    ))
                }
            }
        }
        if repeat_of_first {
            match keep_repeats {
                true => drop(keep_trace(&path, None)),
                false => drop(std::fs::remove_file(&path)),
            }
        } else {
            keep_stderr(&path, &execution.stderr);
            runs.push((execution, observation));
            if i > 0 {
                // A failure to keep the trace costs the diff, not the verdict.
                let _ = keep_trace(&path, None);
            }
        }
        if i < repeats && (set_aside.is_some() || i + 1 == repeats) {
            // The reference run, now observed through the mask, and its trace kept.
            if !mask.is_empty() {
                if let Ok(observation) = observe(
                    &runs[0].0,
                    &first_path,
                    Lens {
                        hidden: &[],
                        mask: &mask,
                    },
                ) {
                    runs[0].1 = observation;
                }
            }
            let _ = keep_trace(&first_path, None);
        }
        if set_aside.is_some() {
            return (runs, set_aside, mask, races);
        }
    }
    (runs, None, mask, races)
}

/// The virtual world of the original's k-th repeat: k worlds after syncmut's own
/// (`SYNCMUT_ENTROPY` in its environment, else 0), so the repeat sees another clock start
/// and random stream than the reference run and the mutants.
fn other_world(k: usize) -> u32 {
    let own: u32 = std::env::var(syncmut_runtime::env::ENTROPY)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    own.wrapping_add(k as u32)
}

/// The original's dfs search (per-run files in `work`): its runs, whether it covered the
/// bounded space, and why the test is unusable if some run made it so; an error when the
/// search itself failed.
#[allow(clippy::type_complexity)]
fn search_original(
    build: &Build,
    test: &TestCase,
    schedules: Schedules,
    mask: &Mask,
    limits: &Limits,
    work: &Path,
    races: &mut RunRaces,
) -> Result<(Vec<(Execution, Observation)>, bool, Option<String>), String> {
    let mut runs = Vec::new();
    let mut failure = None;
    // Without the test's input values, as the dfs search has always run.
    let original = Invocation {
        active: Some(String::new()),
        limits: *limits,
        ..Invocation::in_setting(&build.metamutant, test)
    };
    let search = explore::search(
        &original,
        &dfs_config(build, schedules, None),
        work,
        &mut |visit| {
            if let Some(file) = visit.races {
                races.merge(RunRaces::of(build, file));
            }
            failure = unusable(visit.execution, limits);
            runs.push((
                visit.execution.clone(),
                Observation::new(visit.execution, visit.trace, &[], mask),
            ));
            failure.is_some()
        },
    );
    match search {
        Ok(search) => Ok((
            runs,
            search.exhausted,
            failure.map(|f| format!("{f} under a dfs schedule")),
        )),
        Err(e) => Err(format!("schedule exploration failed: {e}")),
    }
}

/// The original's bounded search ([`FOLLOW_CHECK_PREEMPTIONS`]) on a test, for runs it
/// could not follow. A test with input values cannot be searched (the search runs the
/// test's arguments only), and says so.
fn search_bounded(
    build: &Build,
    test: &TestCase,
    mask: &Mask,
    limits: &Limits,
    preemptions: u32,
) -> Result<BoundedSearch, String> {
    if !test.inputs.is_empty() || !test.nondet.is_empty() {
        return Err(
            "the test carries input values, which a search of the original does not pass"
                .to_string(),
        );
    }
    let work =
        tempfile::tempdir().map_err(|e| format!("{}: {e}", std::env::temp_dir().display()))?;
    // Every schedule: a reduced search could leave out the schedule that shows the
    // mutant's observation, and the kill would be false.
    let strategy = Strategy::Dfs {
        preemptions,
        por: crate::dpor::Por::None,
    };
    let schedules = Schedules {
        strategy,
        budget: FOLLOW_CHECK_SCHEDULES,
    };
    let (runs, exhausted, failure) = search_original(
        build,
        test,
        schedules,
        mask,
        limits,
        work.path(),
        &mut RunRaces::default(),
    )?;
    if let Some(failure) = failure {
        return Err(format!("the original's search stopped: {failure}"));
    }
    Ok(BoundedSearch {
        observations: runs.into_iter().map(|(_, o)| o).collect(),
        exhausted,
        preemptions,
    })
}

/// Why the test is unusable when the original does not end with the exit status the
/// test expects: the test fails on the design as it is, so no mutant can be judged by it.
fn fails_expectation(test: &TestCase, execution: &Execution) -> Option<String> {
    let expected = Status::Exited(test.setting.expect?);
    (execution.status != expected).then(|| {
        format!(
            "the test fails on the original: it ends with {} where the test expects {expected}",
            execution.status
        )
    })
}

/// Why the test is unusable when the uninstrumented original disagrees with the
/// metamutant running no mutant (`execution`), or cannot be run: what differed, in words.
fn differs_from_original_build(
    build: &Build,
    test: &TestCase,
    execution: &Execution,
    mask: &Mask,
    limits: &Limits,
) -> Option<String> {
    let native = match (Invocation {
        limits: *limits,
        ..Invocation::for_test(&build.original, test)
    })
    .run()
    {
        Ok(native) => native,
        Err(e) => return Some(format!("{}: {e}", build.original.display())),
    };
    let what = if native.status != execution.status {
        format!(
            "ends with {} but the metamutant without a mutant with {}",
            native.status, execution.status
        )
    } else if native.outputs != execution.outputs {
        let file = native
            .outputs
            .keys()
            .chain(execution.outputs.keys())
            .find(|k| native.outputs.get(*k) != execution.outputs.get(*k));
        format!(
            "and the metamutant without a mutant write different files ({})",
            file.map(String::as_str).unwrap_or("?")
        )
    } else {
        let outputs = [
            (
                "stdout",
                Compared::whole(&native.stdout).masking(&mask.stdout_lines),
                Compared::whole(&execution.stdout).masking(&mask.stdout_lines),
            ),
            (
                "stderr",
                Compared::design_stderr(&native.stderr).masking(&mask.stderr_lines),
                Compared::design_stderr(&execution.stderr).masking(&mask.stderr_lines),
            ),
        ];
        match outputs.iter().find(|(_, a, b)| a != b).map(|(name, a, b)| crate::verdict::output_difference(name, a, b)) {
            Some(difference) => format!("and the metamutant without a mutant write different output ({difference}, the metamutant's)"),
            None => return None,
        }
    };
    Some(format!("the original build {what}: the design behaves differently when syncmut controls its synchronization"))
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
        nondeterministic: Vec::new(),
        races: Vec::new(),
        races_unchecked: None,
    }
}

/// The saved baseline of a test from the original's runs (the first one is the reference).
fn summarise(
    test: &TestCase,
    runs: &[(Execution, Observation)],
    set_aside: Option<String>,
) -> Baseline {
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
        elapsed_ms: runs
            .iter()
            .map(|(e, _)| e.elapsed.as_millis() as u64)
            .max()
            .unwrap_or(0),
        reached,
        deadlock: observation.deadlock,
        pending: observation.pending.clone(),
        lost_notifications: LostNotifications::count(&observation.lost_notifications),
        nondeterministic: Vec::new(),
        races: Vec::new(),
        races_unchecked: None,
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
    let file = out.path(
        Path::new(outdir::TRACE_DIR)
            .join(&test.name)
            .join("original.steps.schedule"),
    );
    let _ = std::fs::create_dir_all(file.parent().unwrap_or(out.root()));
    // Without the test's input values, as the measurement has always run.
    let measuring = Invocation {
        active: Some(String::new()),
        schedule: Some("default".to_string()),
        schedule_out: Some(file.clone()),
        limits: *limits,
        work_root: Some(out.path(outdir::WORK_DIR)),
        ..Invocation::in_setting(&build.metamutant, test)
    };
    let _ = measuring.run();
    let steps = std::fs::read_to_string(&file)
        .ok()
        .and_then(|t| schedule::parse(&t).ok())
        .and_then(|s| s.steps);
    let _ = std::fs::remove_file(&file);
    steps.unwrap_or(1000).max(1)
}

/// An observation of the original that mutant runs are compared with, and the run that
/// showed it.
struct OriginalRun {
    observation: Observation,
    /// `default`, `random:3`, `dfs:7`, or the original following a mutant's run.
    label: String,
}

/// What ends a run as a failure whatever its output: a signal, a deadlock, a livelock,
/// a timeout, the thread limit. Such a failure that no run of the original shows kills
/// directly; anything else must first survive the original following the mutant's
/// interleaving.
fn failure(o: &Observation) -> Option<String> {
    match o.status {
        Status::Signaled(signal) => Some(format!("signal {signal}")),
        Status::TimedOut => Some("timeout".to_string()),
        Status::Exited(status::THREAD_LIMIT) => Some("thread limit".to_string()),
        _ if o.deadlock => Some("deadlock".to_string()),
        _ if o.livelock => Some("livelock".to_string()),
        _ => None,
    }
}

/// How far a mutant's observation is from an original one, to name the closest original
/// run in a reason: a different end weighs most, then the output, then who was left
/// waiting, then each differing step.
fn distance(a: &Observation, b: &Observation) -> usize {
    let mut d = 0;
    d += 1000
        * usize::from(a.status != b.status || a.deadlock != b.deadlock || a.livelock != b.livelock);
    d += 100 * usize::from(a.stdout != b.stdout);
    d += 10 * usize::from(a.pending != b.pending);
    let empty = Vec::new();
    for thread in a
        .threads
        .keys()
        .chain(b.threads.keys().filter(|t| !a.threads.contains_key(*t)))
    {
        let (x, y) = (
            a.threads.get(thread).unwrap_or(&empty),
            b.threads.get(thread).unwrap_or(&empty),
        );
        d += (0..x.len().max(y.len()))
            .filter(|&i| x.get(i) != y.get(i))
            .count();
    }
    d
}

/// [`BoundedSearch`] as a mutant's runs are seen: its sites hidden.
struct Searched {
    observations: Vec<Observation>,
    exhausted: bool,
    preemptions: u32,
}

/// What one (mutant, test) pair showed over its schedules.
struct Tally<'a> {
    kills: usize,
    runs: usize,
    elapsed: Duration,
    /// The schedule of every run, in order, for the survivor's reason.
    tried: Vec<String>,
    /// Runs whose observation no listed run of the original showed, but the original
    /// following their interleaving did: not kills.
    refuted: usize,
    /// Runs whose observation no run of the original showed, but the original could not
    /// follow their interleaving to the end and the two agreed as far as it did: the
    /// difference may be the original's under another interleaving, so it is not claimed.
    /// The first one's schedule and the point where the original stopped following.
    unclaimed: usize,
    /// The first unclaimed run's schedule, where the original stopped following it, and
    /// why the original's search did not decide it.
    first_unclaimed: Option<(String, Partial, String)>,
    /// Runs the original could not follow, whose observation its bounded search showed.
    found_by_search: usize,
    /// The run being judged timed out and ran again under a larger limit: how that
    /// ended (empty: it finished, and is judged by that).
    timeout_confirmed: Option<String>,
    /// Runs that timed out under their first limit but finished under the larger one.
    timeouts_not_confirmed: usize,
    /// The original's bounded search on this test, shared by every mutant, and how to
    /// make it.
    shared_search: &'a [OnceLock<Result<BoundedSearch, String>>],
    search: Box<dyn Fn(u32) -> Result<BoundedSearch, String> + 'a>,
    /// Those searches' runs as this mutant's are seen (its sites hidden), by preemption
    /// bound, once needed.
    searched: HashMap<u32, Result<Searched, String>>,
    /// Verdict, reason and schedule tag of the first killing run.
    first_kill: Option<(Verdict, String, String)>,
    /// Where the first killing run's steps left the closest original's (thread, step
    /// index), for the part of its trace that is kept.
    divergence: Option<(String, usize)>,
    original: Vec<OriginalRun>,
    /// Which of the baseline's original runs (the first ones of `original`) some run of
    /// the mutant showed too: all of them, over an exhaustive search, make the mutant
    /// equivalent there.
    matched: Vec<bool>,
    /// How the original ended in its runs with real threads (`--native`).
    native_failures: Vec<String>,
    /// How many runs with real threads the original had.
    native_originals: usize,
    /// Runs with real threads that ended normally but printed what no run of the
    /// original printed: reported, not kills (no interleaving to follow).
    native_unexplained: usize,
    /// Sites whose events the mutant takes away by construction (`Catalogue::hidden_sites`).
    hidden: Vec<u32>,
    /// The baseline's mask on this test.
    mask: &'a Mask,
    /// The original's data races on this test (`run --races`), grown by the races of the
    /// original following a mutant's interleaving.
    original_races: RunRaces,
}

/// Runs the original along a mutant run's interleaving: the run's execution, what it
/// showed (through the tally's lens), how closely it followed and its data races, or
/// `None` when the run recorded no interleaving.
type Follow<'f> = dyn FnMut(Lens) -> Result<Option<FollowedRun>, Unjudged> + 'f;

impl<'a> Tally<'a> {
    fn new(
        build: &Build,
        mutant: &'a Mutant,
        plan: &'a OriginalRuns,
        search: Box<dyn Fn(u32) -> Result<BoundedSearch, String> + 'a>,
    ) -> Tally<'a> {
        let hidden = build.catalogue.hidden_sites(mutant);
        let original = plan
            .originals
            .iter()
            .zip(&plan.labels)
            .map(|((_, o), label)| OriginalRun {
                observation: o.hiding(&hidden),
                label: format!("the original under {label}"),
            })
            .collect::<Vec<_>>();
        let matched = vec![false; original.len()];
        let native_failures = plan
            .native
            .iter()
            .filter_map(|e| failure(&Observation::new(e, &Trace::default(), &[], &plan.mask)))
            .collect();
        Tally {
            kills: 0,
            runs: 0,
            elapsed: Duration::ZERO,
            tried: Vec::new(),
            refuted: 0,
            unclaimed: 0,
            first_unclaimed: None,
            found_by_search: 0,
            timeout_confirmed: None,
            timeouts_not_confirmed: 0,
            shared_search: &plan.searched,
            search,
            searched: HashMap::new(),
            first_kill: None,
            divergence: None,
            original,
            matched,
            native_failures,
            native_originals: plan.native.len(),
            native_unexplained: 0,
            hidden,
            mask: &plan.mask,
            original_races: plan.races.clone(),
        }
    }

    /// The original's search of every schedule with at most `preemptions` preemptions on
    /// this test, its runs seen as this mutant's: made (once per test and bound) the first
    /// time it is needed.
    fn searched(&mut self, preemptions: u32) -> Result<&Searched, String> {
        let Some(cell) = self.shared_search.get(preemptions as usize) else {
            return Err(format!("the mutant's run preempted {preemptions} times, more than the original's search covers ({FOLLOW_CHECK_PREEMPTIONS})"));
        };
        if !self.searched.contains_key(&preemptions) {
            let shared = cell.get_or_init(|| (self.search)(preemptions));
            let hidden = &self.hidden;
            let seen = shared.as_ref().map_err(Clone::clone).map(|b| Searched {
                observations: b.observations.iter().map(|o| o.hiding(hidden)).collect(),
                exhausted: b.exhausted,
                preemptions: b.preemptions,
            });
            self.searched.insert(preemptions, seen);
        }
        self.searched[&preemptions].as_ref().map_err(Clone::clone)
    }

    /// How this tally observes a run of the mutant.
    fn lens(&self) -> Lens<'_> {
        Lens {
            hidden: &self.hidden,
            mask: self.mask,
        }
    }

    /// Whether some run of the original ended with the failure `what`.
    fn original_fails_so(&self, what: &str) -> bool {
        self.original
            .iter()
            .any(|o| failure(&o.observation).as_deref() == Some(what))
            || self.native_failures.iter().any(|f| f == what)
    }

    /// Judges one run under the controlled scheduler; true when it kills. A kill is an
    /// observation no run of the original shows: not one of the listed runs' (those of
    /// the baseline), and, unless it is a failure the original never shows, not the
    /// original's when it follows this run's interleaving (`follow`), which is then one
    /// more original run compared with later ones.
    ///
    /// A run that no verdict but killed-by-trace kills is killed by a data race
    /// (`races`, `run --races`) that no run of the original had, the original following
    /// it included.
    fn add(
        &mut self,
        build: &Build,
        execution: &Execution,
        observed: &Observation,
        races: &RunRaces,
        tag: &str,
        follow: &mut Follow,
    ) -> Result<bool, Unjudged> {
        self.runs += 1;
        self.elapsed += execution.elapsed;
        self.tried.push(tag.to_string());
        let mut shown = false;
        for (i, original) in self.original.iter().enumerate() {
            if original.observation == *observed {
                shown = true;
                if let Some(matched) = self.matched.get_mut(i) {
                    *matched = true;
                }
            }
        }
        let mut followed_yet = false;
        if shown {
            return self.add_races(races, tag, followed_yet, follow);
        }
        let observed = observed.clone();
        let absolute = failure(&observed).is_some_and(|what| !self.original_fails_so(&what));
        // Where the original stopped following this run, and what differed before.
        let mut partial = None;
        if !absolute {
            followed_yet = true;
            if let Some(followed) = follow(self.lens())? {
                self.elapsed += followed.execution.elapsed;
                self.original_races.merge(followed.races);
                let same = followed.observation == observed;
                self.original.push(OriginalRun {
                    observation: followed.observation,
                    label: followed.label,
                });
                if same {
                    self.refuted += 1;
                    return self.add_races(races, tag, followed_yet, follow);
                }
                partial = followed.partial;
            }
        }
        let closest = self
            .original
            .iter()
            .min_by_key(|o| distance(&o.observation, &observed))
            .expect("the baseline ran the original");
        let label = |site| crate::diff::site_label(&build.catalogue, site);
        let (verdict, reason) = verdict::judge(&closest.observation, &observed, &label);
        let closest_label = closest.label.clone();
        let divergence = closest.observation.first_step_index(&observed);
        // A new data race says more than a difference in synchronization behaviour: it
        // names the two unordered accesses.
        if matches!(verdict, Verdict::Survived | Verdict::KilledByTrace)
            && self.add_races(races, tag, followed_yet, follow)?
        {
            return Ok(true);
        }
        if verdict == Verdict::Survived {
            return Ok(false); // differs only in what no verdict looks at
        }
        // A difference in synchronization alone (the steps, the values they see, who is
        // left waiting) depends on the interleaving: when the original could not take the
        // mutant's to its end and the two agree as far as it did, the follow shows
        // nothing. The original's bounded search decides: it shows this observation (no
        // kill), or it covered its whole bound without it (a kill, within that bound), or
        // it could not tell (no claim). An output or exit-status difference is asked the
        // same question, but when the search cannot tell it is still claimed, as what no
        // run of the original tried shows, and the reason says it was not proven.
        let mut beyond_follow = None;
        let searchable = matches!(verdict, Verdict::KilledByTrace | Verdict::KilledByOutput);
        if let Some(p) = partial.clone().filter(|p| p.before.is_none() && searchable) {
            let decided = match self.searched(p.preemptions) {
                Ok(s) if s.observations.contains(&observed) => Ok(None),
                Ok(s) if s.exhausted => Ok(Some(format!(
                    "the original could not follow the mutant's interleaving past {}, and none of the {} runs of its search with at most {} preemptions (every such schedule, up to sleep-set equivalence; the mutant's run had {}) shows this",
                    p.point(),
                    s.observations.len(),
                    s.preemptions,
                    p.preemptions
                ))),
                Ok(s) => Err(format!("the original's search with at most {} preemptions did not finish within {} schedules", s.preemptions, s.observations.len())),
                Err(why) => Err(why),
            };
            match decided {
                // Its races were judged above.
                Ok(None) => {
                    self.found_by_search += 1;
                    return Ok(false);
                }
                Ok(Some(note)) => beyond_follow = Some(note),
                Err(why) if verdict == Verdict::KilledByOutput => {
                    beyond_follow = Some(format!(
                        "not proven: the original could not follow the mutant's interleaving past {}, and {why}; no run of the original tried shows this output",
                        p.point()
                    ))
                }
                Err(why) => {
                    self.unclaimed += 1;
                    self.first_unclaimed.get_or_insert_with(|| (tag.to_string(), p, why));
                    return Ok(false);
                }
            }
        }
        self.kills += 1;
        if self.first_kill.is_none() {
            let mut reason = match self.original.len() {
                1 => reason,
                n if absolute => format!("{reason}; no run of the original ends so ({n} runs)"),
                _ => format!("{reason}; closest original run: {closest_label}"),
            };
            if let Some(Partial {
                before: Some(difference),
                ..
            }) = &partial
            {
                let point = partial.as_ref().map(Partial::point).unwrap_or_default();
                reason.push_str(&format!(
                    "; the original followed the mutant's interleaving only up to {point}, and already before it: {difference}"
                ));
            }
            if let Some(note) = beyond_follow {
                reason.push_str(&format!("; {note}"));
            }
            if let Some(note) = self
                .timeout_confirmed
                .as_ref()
                .filter(|n| !n.is_empty() && verdict == Verdict::KilledByTimeout)
            {
                reason.push_str(&format!("; {note}"));
            }
            self.divergence = divergence;
            self.first_kill = Some((verdict, reason, tag.to_string()));
        }
        Ok(true)
    }

    /// Judges a run's data races (the run otherwise kills nothing, or only by trace);
    /// true when it kills:
    /// a race whose pair of source locations no run of the original had, also after the
    /// original followed this run's interleaving (`follow`, unless `followed_yet`).
    fn add_races(
        &mut self,
        races: &RunRaces,
        tag: &str,
        followed_yet: bool,
        follow: &mut Follow,
    ) -> Result<bool, Unjudged> {
        // A detector bound in the original's runs could hide the race there: no kill.
        if self.original_races.limits.is_some() {
            return Ok(false);
        }
        let fresh = |known: &RunRaces| races.races.iter().filter(|r| !known.has(&r.key)).count();
        if fresh(&self.original_races) == 0 {
            return Ok(false);
        }
        if !followed_yet {
            if let Some(followed) = follow(self.lens())? {
                self.elapsed += followed.execution.elapsed;
                self.original_races.merge(followed.races);
            }
        }
        let new: Vec<&SourceRace> = races
            .races
            .iter()
            .filter(|r| !self.original_races.has(&r.key))
            .collect();
        let Some(first) = new.first() else {
            return Ok(false);
        };
        self.kills += 1;
        if self.first_kill.is_none() {
            let others = match new.len() {
                1 => String::new(),
                n => format!(" (and {} more)", n - 1),
            };
            let reason = format!("data race the original does not have: {first}{others}");
            self.first_kill = Some((Verdict::KilledByRace, reason, tag.to_string()));
        }
        Ok(true)
    }

    /// Judges one run with real threads (the `run`-th); true when it kills. Without a
    /// recorded interleaving the original cannot follow it, so only a failure that no run
    /// of the original showed (controlled or native) kills.
    fn add_native(&mut self, build: &Build, execution: &Execution, run: usize) -> bool {
        self.runs += 1;
        self.elapsed += execution.elapsed;
        self.tried.push("native".to_string());
        let observed = Observation::new(execution, &Trace::default(), &self.hidden, self.mask);
        match failure(&observed) {
            Some(what) if !self.original_fails_so(&what) => {}
            Some(_) => return false,
            None => {
                let printed =
                    |o: &Observation| o.status == observed.status && o.stdout == observed.stdout;
                if !self.original.iter().any(|o| printed(&o.observation)) {
                    self.native_unexplained += 1;
                }
                return false;
            }
        }
        let label = |site| crate::diff::site_label(&build.catalogue, site);
        let (verdict, reason) = verdict::judge(&self.original[0].observation, &observed, &label);
        if verdict == Verdict::Survived {
            return false;
        }
        self.kills += 1;
        if self.first_kill.is_none() {
            let reason = format!(
                "{reason} with real threads (native run {run}); no run of the original showed it ({} under the scheduler, {} with real threads)",
                self.original.len(),
                self.native_originals
            );
            self.first_kill = Some((verdict, reason, "native".to_string()));
        }
        true
    }
}

/// Runs one mutant on one test under every schedule and judges it.
///
/// An error is a failure of the machine ([`Unjudged::Environment`]): the run stops.
fn run_mutant(
    build: &Build,
    mutant: &Mutant,
    test: &TestCase,
    baseline: &Baseline,
    plan: &OriginalRuns,
    out: &OutDir,
    config: &RunSettings,
) -> Result<Run, String> {
    let limits = Limits {
        timeout: invocation::timeout_after(Duration::from_millis(baseline.elapsed_ms)),
        ..config.limits
    };
    let explores = explores(build, config);
    let dfs = explores && matches!(config.strategy.strategy, Strategy::Dfs { .. });
    // A budget chosen to find faults stops at the first kill; a named sampling strategy
    // runs every schedule, for its kill fraction.
    let stop_at_kill = !explores || matches!(config.strategy.strategy, Strategy::Mixed { .. });
    let active = if config.self_check {
        String::new()
    } else {
        mutant.activation()
    };
    let search_limits = Limits {
        timeout: config.baseline_timeout,
        ..config.limits
    };
    let search = Box::new(move |preemptions| {
        search_bounded(build, test, &plan.mask, &search_limits, preemptions)
    });
    let mut tally = Tally::new(build, mutant, plan, search);
    let mut exhaustive = false;
    let mut ran = if dfs {
        search_mutant(
            build,
            mutant,
            &active,
            test,
            plan,
            out,
            config.strategy,
            &limits,
            &mut tally,
        )
        .map(|covered| exhaustive = covered && plan.exhausted)
    } else {
        let schedules: &[String] = if explores {
            &plan.mutant_schedules
        } else {
            &plan.mutant_schedules[..1]
        };
        run_mutant_listed(
            build,
            mutant,
            &active,
            test,
            schedules,
            explores,
            stop_at_kill,
            plan.max_steps,
            out,
            config.keep_traces,
            &limits,
            config.first_timeout,
            &mut tally,
        )
    };
    if ran.is_ok() && tally.first_kill.is_none() && build.catalogue.kind == Family::Pthread {
        for run in 1..=config.native {
            let execution = match run_native(build, test, &active, 1, &limits) {
                Ok(mut runs) => runs.remove(0),
                Err(message) => {
                    ran = Err(Unjudged::Environment(message));
                    break;
                }
            };
            if tally.add_native(build, &execution, run) {
                break;
            }
        }
    }
    match ran {
        Err(Unjudged::Environment(message)) => return Err(message),
        Err(Unjudged::Run(reason)) => return Ok(error_run(mutant, test, reason, tally.elapsed)),
        Ok(()) => {}
    }
    let (kills, total) = (tally.kills, tally.runs);
    let tried = schedule_plan::summarise(&tally.tried);
    // Every behaviour of the mutant is one of the original's and every one of the
    // original's is the mutant's, over both whole bounded spaces: equivalent there. A run
    // only the original following it explains is outside the original's search: no claim.
    let equivalent = exhaustive
        && kills == 0
        && tally.refuted == 0
        && tally.unclaimed == 0
        && tally.native_unexplained == 0
        && tally.matched.iter().all(|m| *m);
    let (verdict, reason, schedule) = match tally.first_kill {
        Some((v, r, s)) if explores && !stop_at_kill => (
            v,
            format!(
                "{r}; {}",
                kill_fraction(config.strategy.strategy, kills, total, exhaustive)
            ),
            Some(s),
        ),
        Some((v, r, s)) if explores || s == "native" => (
            v,
            format!(
                "{r}; found by schedule {s}, the {} of {tried}",
                ordinal(total)
            ),
            Some(s),
        ),
        Some((v, r, _)) => (v, r, None),
        None if equivalent => {
            let Strategy::Dfs { preemptions, por } = config.strategy.strategy else {
                unreachable!("exhaustive only under dfs")
            };
            let originals: Vec<&Observation> = tally
                .matched
                .iter()
                .zip(&tally.original)
                .map(|(_, o)| &o.observation)
                .collect();
            let reason = format!(
                "equivalent (exhaustive): on each of {total} schedules ({}) the mutant showed one of the original's behaviours, and all {} of them",
                schedule_plan::dfs_space(preemptions, por),
                distinct(&originals)
            );
            (Verdict::EquivalentExhaustive, reason, None)
        }
        None => (
            Verdict::Survived,
            survived_reason(build, &tally, config.strategy.strategy, exhaustive, &tried),
            None,
        ),
    };
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
        unclaimed: tally.unclaimed,
    })
}

/// How many of `observations` differ from each other.
fn distinct(observations: &[&Observation]) -> usize {
    observations
        .iter()
        .enumerate()
        .filter(|(i, o)| !observations[..*i].contains(o))
        .count()
}

/// What a survivor was tried on: `survived 24 schedules: default, pct×12, random×11`.
fn survived_reason(
    build: &Build,
    tally: &Tally,
    strategy: Strategy,
    exhaustive: bool,
    tried: &str,
) -> String {
    if build.catalogue.kind == Family::Systemc {
        return "survived its one run (a SystemC kernel's process order is deterministic: one run is every schedule)".to_string();
    }
    let total = tally.runs;
    let mut reason = format!(
        "survived {total} schedule{}: {tried}",
        if total == 1 { "" } else { "s" }
    );
    if let Strategy::Dfs { preemptions, por } = strategy {
        reason.push_str(&match exhaustive {
            true => format!(
                " (exhaustive: {})",
                schedule_plan::dfs_space(preemptions, por)
            ),
            false => " (not exhaustive: the budget ended the search)".to_string(),
        });
    }
    if tally.refuted > 0 {
        reason.push_str(&format!(
            "; {} of them differed from every listed run of the original, but the original following the same interleaving did the same",
            tally.refuted
        ));
    }
    if tally.timeouts_not_confirmed > 0 {
        reason.push_str(&format!(
            "; {} run(s) timed out under the first limit but finished when run again under {TIMEOUT_CONFIRM_FACTOR}× it (the machine was slow, not the mutant), judged by that run",
            tally.timeouts_not_confirmed
        ));
    }
    if tally.found_by_search > 0 {
        reason.push_str(&format!(
            "; {} of them the original could not follow to the end, but its search within as many preemptions showed the same",
            tally.found_by_search
        ));
    }
    if let Some((schedule, partial, why)) = &tally.first_unclaimed {
        reason.push_str(&format!(
            "; {} of them differed from every run of the original tried, but only past the point where the original could no longer follow the mutant's interleaving (first: schedule {schedule}, from {}), agreeing with it up to there, and {why}: not claimed as kills",
            tally.unclaimed,
            partial.point()
        ));
    }
    if tally.native_unexplained > 0 {
        reason.push_str(&format!(
            "; {} run(s) with real threads ended with an exit status or output no run of the original showed, which is no kill: the original cannot follow a run the scheduler did not control",
            tally.native_unexplained
        ));
    }
    reason
}

/// `1st`, `2nd`, `3rd`, `4th`…
fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// The original's run along a mutant run's interleaving ([`follow_original`]).
struct FollowedRun {
    execution: Execution,
    observation: Observation,
    /// Which original run it is, in words.
    label: String,
    races: RunRaces,
    /// Where the original stopped following, when it could not follow to the end.
    partial: Option<Partial>,
}

/// An original that could not follow a mutant's interleaving to its end: from the
/// choice point `diverged` (1-based) of the mutant's `all`, it ran other threads than the
/// mutant's. Its run is still the original's, but past that point it is not the
/// mutant's interleaving, so a difference there says nothing about the mutant.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Partial {
    diverged: usize,
    all: usize,
    /// How the mutant's steps differ from the original's before `diverged`, where both
    /// ran the same interleaving: a difference there is one the original cannot
    /// produce under that interleaving, the same claim as a full follow's.
    before: Option<String>,
    /// Preemptions in the mutant's run: the original's search that decides it needs as
    /// many.
    preemptions: u32,
}

impl Partial {
    /// `choice 9 of 25`.
    fn point(&self) -> String {
        format!("choice {} of {}", self.diverged, self.all)
    }
}

/// The original along the interleaving a mutant's run recorded in `choices` (its
/// `SYNCMUT_SCHEDULE_OUT` file), beside the mutant's trace `mutant_trace`. `None` for
/// SystemC or when the run recorded nothing.
#[allow(clippy::too_many_arguments)]
fn follow_original(
    build: &Build,
    test: &TestCase,
    choices: &Path,
    mutant_trace: &Path,
    work: &Path,
    limits: &Limits,
    lens: Lens,
) -> Result<Option<FollowedRun>, Unjudged> {
    if build.catalogue.kind != Family::Pthread || !choices.is_file() {
        return Ok(None);
    }
    let trace_file = mutant_trace.with_extension("followed.jsonl");
    let followed_file = mutant_trace.with_extension("followed.schedule");
    let value = schedule::follow_value(choices);
    let (execution, observation, _) = traced_in(
        build,
        test,
        "",
        &value,
        None,
        &trace_file,
        Some(&followed_file),
        work,
        limits,
        None,
        lens,
    )?;
    let races = run_races(build, &trace_file)?;
    let read = |path: &Path| {
        std::fs::read_to_string(path)
            .ok()
            .and_then(|t| schedule::parse(&t).ok())
    };
    let (mutant_schedule, original_schedule) = (read(choices), read(&followed_file));
    // The runtime counts a recorded choice as taken even when the original first had to
    // decide other points by default (the recorded thread could not run yet), so whether
    // it followed exactly is read from the two recorded files, choice by choice.
    let partial = match (&mutant_schedule, &original_schedule) {
        (Some(mutant), Some(original)) if !same_choices(mutant, original) => {
            let label = |site| crate::diff::site_label(&build.catalogue, site);
            Some(
                partial_follow(
                    mutant,
                    original,
                    mutant_trace,
                    &trace_file,
                    &execution,
                    lens,
                    &label,
                )
                .map_err(|e| trace_error(&trace_file, e))?,
            )
        }
        _ => None,
    };
    let _ = std::fs::remove_file(&trace_file);
    let _ = std::fs::remove_file(&followed_file);
    let label = match (&mutant_schedule, &partial) {
        (_, Some(p)) => format!("the original following the mutant's interleaving up to {} (it could not take that choice)", p.point()),
        (Some(mutant), None) => format!("the original following the mutant's interleaving (all {} choices)", mutant.choices.len()),
        _ => "the original following the mutant's interleaving".to_string(),
    };
    Ok(Some(FollowedRun {
        execution,
        observation,
        label,
        races,
        partial,
    }))
}

/// Whether two recorded runs made the same choices, in the same order.
fn same_choices(a: &schedule::Schedule, b: &schedule::Schedule) -> bool {
    a.choices.len() == b.choices.len()
        && a.choices
            .iter()
            .zip(&b.choices)
            .all(|(x, y)| same_point(x, y))
}

/// Whether two runs are at the same point of one interleaving: the same kind of choice
/// among the same threads, from the same running thread, and the same one chosen. The
/// same chosen thread alone is not enough: where one program's thread is blocked and the
/// other's ready, the steps between two choice points differ.
fn same_point(a: &schedule::Choice, b: &schedule::Choice) -> bool {
    let ids = |c: &schedule::Choice| c.options.iter().map(|(id, _)| *id).collect::<Vec<_>>();
    a.chosen == b.chosen && a.kind == b.kind && a.current == b.current && ids(a) == ids(b)
}

/// Where the original (`original`, its recorded choices when following) first made
/// another choice than the mutant (`mutant`), and whether the two runs' steps already
/// differ before that point: each run's trace is read up to the events recorded before
/// that choice, and each thread's steps are compared as far as both runs have them
/// (`execution` is the original's; only the steps are compared).
#[allow(clippy::too_many_arguments)]
fn partial_follow(
    mutant: &schedule::Schedule,
    original: &schedule::Schedule,
    mutant_trace: &Path,
    original_trace: &Path,
    execution: &Execution,
    lens: Lens,
    label: &dyn Fn(u32) -> String,
) -> Result<Partial, String> {
    let k = mutant
        .choices
        .iter()
        .zip(&original.choices)
        .take_while(|(a, b)| same_point(a, b))
        .count();
    let before = |schedule: &schedule::Schedule| {
        schedule
            .choices
            .get(k)
            .and_then(|c| c.events)
            .unwrap_or(u64::MAX)
    };
    let prefix = |path: &Path, limit: u64| -> Result<Observation, String> {
        let mut recorder = Recorder::new(lens.hidden, lens.mask);
        trace::visit(path, &mut |event| {
            if event.seq < limit {
                recorder.event(event)
            }
        })?;
        Ok(recorder.finish(execution, None))
    };
    let (mut m, mut o) = (
        prefix(mutant_trace, before(mutant))?,
        prefix(original_trace, before(original))?,
    );
    // Past the shorter of a thread's two prefixes nothing is known of the other run.
    for (thread, steps) in m.threads.iter_mut() {
        let theirs = o.threads.entry(thread.clone()).or_default();
        let common = steps.len().min(theirs.len());
        steps.truncate(common);
        theirs.truncate(common);
    }
    o.threads.retain(|thread, _| m.threads.contains_key(thread));
    m.threads.retain(|_, steps| !steps.is_empty());
    o.threads.retain(|_, steps| !steps.is_empty());
    let before = o.first_step_difference(&m, label);
    let preemptions = mutant
        .choices
        .iter()
        .filter(|c| c.preempts(c.chosen))
        .count() as u32;
    Ok(Partial {
        diverged: k + 1,
        all: mutant.choices.len(),
        before,
        preemptions,
    })
}

/// The mutant's own dfs search, each run judged into `tally`; the first kill's trace and
/// choices are kept, and the original re-run under them for the diff. Returns whether the
/// search covered its bounded space, or why the pair cannot be judged.
#[allow(clippy::too_many_arguments)]
fn search_mutant(
    build: &Build,
    mutant: &Mutant,
    active: &str,
    test: &TestCase,
    plan: &OriginalRuns,
    out: &OutDir,
    schedules: Schedules,
    limits: &Limits,
    tally: &mut Tally,
) -> Result<bool, Unjudged> {
    let work = tempfile::tempdir().map_err(|e| Unjudged::from_io(&std::env::temp_dir(), e))?;
    let choices = work.path().join("mutant.schedule");
    // Without the test's input values, as the dfs search has always run.
    let program = Invocation {
        active: Some(active.to_string()),
        limits: *limits,
        ..Invocation::in_setting(&build.metamutant, test)
    };
    let mut failed = None;
    let search = explore::search(
        &program,
        &dfs_config(build, schedules, plan.max_steps),
        &work.path().join("search"),
        &mut |visit| {
            let tag = dfs_tag(visit.run);
            let first = tally.first_kill.is_none();
            let mut follow = |lens: Lens| {
                std::fs::write(&choices, visit.schedule_text)
                    .map_err(|e| Unjudged::from_io(&choices, e))?;
                follow_original(
                    build,
                    test,
                    &choices,
                    visit.trace_file,
                    &out.path(outdir::WORK_DIR),
                    limits,
                    lens,
                )
            };
            let observed =
                Observation::new(visit.execution, visit.trace, &tally.hidden, tally.mask);
            let races = visit
                .races
                .map(|f| RunRaces::of(build, f))
                .unwrap_or_default();
            match tally.add(build, visit.execution, &observed, &races, &tag, &mut follow) {
                Ok(true) if first => {
                    // Keep the kill: its trace (capped around where it diverged) and the
                    // choices that replay it.
                    let path =
                        outdir::trace_file(out.root(), &test.name, Some(&mutant.id), Some(&tag));
                    let _ = std::fs::create_dir_all(path.parent().unwrap_or(out.root()));
                    // The search's file is the runtime's binary trace: kept as JSON Lines.
                    let around = tally
                        .divergence
                        .as_ref()
                        .and_then(|d| divergence_seq(visit.trace_file, &tally.hidden, d));
                    let _ = trace::write_capped(
                        visit.trace_file,
                        &path,
                        &Keep {
                            around,
                            ..Keep::DEFAULT
                        },
                    );
                    keep_stderr(&path, &visit.execution.stderr);
                    let _ = std::fs::write(
                        schedule_file(out.root(), &test.name, Some(&mutant.id), &tag),
                        visit.schedule_text,
                    );
                    false
                }
                Ok(_) => false,
                Err(e) => {
                    failed = Some(e);
                    true
                }
            }
        },
    );
    if let Some(e) = failed {
        return Err(e);
    }
    let covered = match search {
        Err(explore::ExploreError::Runtime(e)) => {
            return Err(Unjudged::Run(format!(
                "the runtime rejected the mutant: {e}"
            )))
        }
        Err(e) => return Err(Unjudged::Run(e.to_string())),
        Ok(search) => search.exhausted,
    };
    if let Some((_, _, tag)) = &tally.first_kill {
        // The original under the kill's choices, for the diff and `explain`.
        let value = schedule_value(out.root(), &test.name, Some(&mutant.id), tag);
        let path = outdir::trace_file(out.root(), &test.name, None, Some(tag));
        let nothing = Mask::default();
        if let Ok((execution, _, _)) = traced(
            build,
            test,
            "",
            &value,
            None,
            &path,
            &out.path(outdir::WORK_DIR),
            limits,
            Lens {
                hidden: &[],
                mask: &nothing,
            },
        ) {
            keep_stderr(&path, &execution.stderr);
            let _ = keep_trace(&path, None);
        }
    }
    Ok(covered)
}

/// Runs the mutant (`active`) under each of `schedules`, judged into `tally`, each run
/// recording its interleaving for the original to follow; only the first killing run's
/// trace is kept. With `stop_at_kill`, the first kill ends the runs. An error says why
/// the pair cannot be judged.
#[allow(clippy::too_many_arguments)]
fn run_mutant_listed(
    build: &Build,
    mutant: &Mutant,
    active: &str,
    test: &TestCase,
    schedules: &[String],
    tagged: bool,
    stop_at_kill: bool,
    max_steps: Option<u64>,
    out: &OutDir,
    keep_all: bool,
    limits: &Limits,
    first_timeout: Option<Duration>,
    tally: &mut Tally,
) -> Result<(), Unjudged> {
    for schedule in schedules {
        let path = outdir::trace_file(
            out.root(),
            &test.name,
            Some(&mutant.id),
            tagged.then_some(schedule.as_str()),
        );
        let choices = path.with_extension("schedule");
        let first = Limits {
            timeout: first_timeout.unwrap_or(limits.timeout),
            ..*limits
        };
        let (mut execution, mut observed, mut workdir) = traced_in(
            build,
            test,
            active,
            schedule,
            max_steps,
            &path,
            Some(&choices),
            &out.path(outdir::WORK_DIR),
            &first,
            None,
            tally.lens(),
        )?;
        tally.timeout_confirmed = None;
        if execution.status == Status::TimedOut {
            // A run can time out for the machine's load alone: the same run (mutant,
            // test, schedule) under a larger limit tells a slow machine from a hang.
            let longer = Limits {
                timeout: limits.timeout * TIMEOUT_CONFIRM_FACTOR,
                ..*limits
            };
            let waited = execution.elapsed;
            drop(workdir);
            (execution, observed, workdir) = traced_in(
                build,
                test,
                active,
                schedule,
                max_steps,
                &path,
                Some(&choices),
                &out.path(outdir::WORK_DIR),
                &longer,
                None,
                tally.lens(),
            )?;
            tally.elapsed += waited;
            tally.timeout_confirmed = Some(match execution.status {
                Status::TimedOut => format!(
                    "confirmed: the same run timed out again under {} ms, {TIMEOUT_CONFIRM_FACTOR}× its limit of {} ms",
                    longer.timeout.as_millis(),
                    limits.timeout.as_millis()
                ),
                _ => String::new(),
            });
            if execution.status != Status::TimedOut {
                tally.timeouts_not_confirmed += 1;
            }
        }
        if execution.status == Status::Exited(status::CONFIG_ERROR) {
            let _ = std::fs::remove_file(&choices);
            return Err(Unjudged::Run(format!(
                "the runtime rejected the mutant: {}",
                execution.stderr.text().trim()
            )));
        }
        let first = tally.first_kill.is_none();
        let races = run_races(build, &path)?;
        let killed = tally.add(
            build,
            &execution,
            &observed,
            &races,
            schedule,
            &mut |lens| {
                follow_original(
                    build,
                    test,
                    &choices,
                    &path,
                    &out.path(outdir::WORK_DIR),
                    limits,
                    lens,
                )
            },
        );
        let _ = std::fs::remove_file(&choices);
        if killed? && first {
            // Keep this trace, it explains the kill (capped around where it diverged);
            // and what the run left behind.
            let around = tally
                .divergence
                .as_ref()
                .and_then(|d| divergence_seq(&path, &tally.hidden, d));
            keep_trace(&path, around)?;
            keep_stderr(&path, &execution.stderr);
            let _ = workdir.keep(&outdir::kept_workdir(out.root(), &test.name, &mutant.id));
            if stop_at_kill {
                return Ok(());
            }
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

/// How often the mutant was killed, for the reason: dfs says whether the search was
/// exhaustive, sampled strategies give a 95% Wilson interval.
fn kill_fraction(strategy: Strategy, kills: usize, total: usize, exhaustive: bool) -> String {
    match strategy {
        Strategy::Dfs { preemptions, por } if exhaustive => {
            format!("killed in {kills} of {total} schedules (exhaustive: {})", schedule_plan::dfs_space(preemptions, por))
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
        unclaimed: 0,
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
        for errno in [
            libc::ENOSPC,
            libc::EDQUOT,
            libc::EAGAIN,
            libc::ENOMEM,
            libc::EMFILE,
            libc::ENFILE,
        ] {
            assert!(
                matches!(
                    Unjudged::from_io(path, std::io::Error::from_raw_os_error(errno)),
                    Unjudged::Environment(_)
                ),
                "{errno}"
            );
        }
        for errno in [libc::ENOENT, libc::EACCES, libc::ENOEXEC] {
            assert!(
                matches!(
                    Unjudged::from_io(path, std::io::Error::from_raw_os_error(errno)),
                    Unjudged::Run(_)
                ),
                "{errno}"
            );
        }
        assert!(
            !disk_full(&std::env::temp_dir().join("file")),
            "the test machine's temporary directory is not full"
        );
    }

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
