//! The main loop: baseline the original on every test, derive timeouts from it, then run
//! every reached (mutant, test) pair in parallel and judge it against the baseline.
//! Results are saved as they arrive.

use crate::diff;
use crate::error::OracleError;
use crate::exec::{self, Execution, Limits, Status};
use crate::observation::Observation;
use crate::outcome::{Baseline, Outcomes, Run};
use crate::outdir::{self, OutDir};
use crate::report;
use crate::test_case::TestCase;
use crate::trace::{self, Trace};
use crate::verdict::{self, Verdict};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;
use syncmut_mutator::metamutant::Build;
use syncmut_mutator::api::Family;
use syncmut_mutator::{Catalogue, Mutant};

/// Knobs of a run.
#[derive(Debug, Clone)]
pub struct Config {
    /// Parallel executions.
    pub jobs: usize,
    /// Baseline executions per test (they must agree for the test to be usable).
    pub baseline_repeats: usize,
    /// Timeout of a baseline execution.
    pub baseline_timeout: Duration,
    /// Mutant timeout = baseline time × multiplier + margin.
    pub timeout_multiplier: u32,
    pub timeout_margin: Duration,
    /// Limits other than time, for every execution.
    pub limits: Limits,
    /// Scheduler for pthread designs (`SYNCMUT_SCHEDULE`): `default` or `random:<seed>`.
    /// SystemC designs need none: the kernel's process order is deterministic.
    pub schedule: String,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            jobs: std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
            baseline_repeats: 2,
            baseline_timeout: Duration::from_secs(20),
            timeout_multiplier: 5,
            timeout_margin: Duration::from_secs(2),
            limits: Limits::default(),
            schedule: "default".to_string(),
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

/// Runs the whole oracle for a built design. `previous` holds runs finished by an
/// interrupted earlier run on the same design and tests (`--resume`); they are kept,
/// not redone, provided the original still behaves as it did then.
pub fn run(
    build: &Build,
    tests: &[TestCase],
    out: &OutDir,
    config: &Config,
    progress: &dyn Progress,
    previous: Vec<Run>,
) -> Result<Outcomes, OracleError> {
    let saved_baselines = read_baselines(out);
    out.write_json(outdir::TESTS, &serde_json::json!({ "tests": tests }))?;
    progress.baseline_started(tests.len());
    let baselines: Vec<(Baseline, Option<(Execution, Trace)>)> =
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

    let usable: Vec<(&TestCase, &Baseline, &Execution, &Trace)> = tests
        .iter()
        .zip(&baselines)
        .filter_map(|(t, (b, run))| run.as_ref().filter(|_| b.usable).map(|(e, tr)| (t, b, e, tr)))
        .collect();
    if usable.is_empty() {
        return Err(OracleError::NoUsableTest { path: out.path(outdir::BASELINE) });
    }

    let catalogue = &build.catalogue;
    let mut jobs = Vec::new();
    for mutant in &catalogue.mutants {
        for (i, (_, baseline, _, _)) in usable.iter().enumerate() {
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
    let (sender, receiver) = mpsc::channel::<Run>();
    std::thread::scope(|scope| -> Result<(), OracleError> {
        for _ in 0..config.jobs.max(1) {
            let sender = sender.clone();
            let (next, todo, usable) = (&next, &todo, &usable);
            scope.spawn(move || loop {
                let index = next.fetch_add(1, Ordering::SeqCst);
                let Some((mutant, test_index)) = todo.get(index) else { break };
                let (test, baseline, original_exec, original_trace) = usable[*test_index];
                let run = run_mutant(build, mutant, test, baseline, original_exec, original_trace, out, config);
                if sender.send(run).is_err() {
                    break;
                }
            });
        }
        drop(sender);
        for run in receiver {
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
        let original = trace::read(&trace_path(out, test, None)).unwrap_or_default();
        let mutated = trace::read(&trace_path(out, test, Some(mutant))).unwrap_or_default();
        let text = diff::render(catalogue, mutant, test, &original, &mutated, &outcome.reason);
        out.write(Path::new(outdir::DIFF_DIR).join(format!("{}.diff", outdir::file_name(&mutant.id))), text.as_bytes())?;
    }
    Ok(outcomes)
}

/// The runs saved in a run directory's outcomes.json, for `--resume`.
pub fn saved_runs(out: &OutDir) -> Vec<Run> {
    std::fs::read(out.path(outdir::OUTCOMES))
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Outcomes>(&bytes).ok())
        .map(|o| o.mutants.into_iter().flat_map(|m| m.runs).collect())
        .unwrap_or_default()
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

fn trace_path(out: &OutDir, test: &str, mutant: Option<&Mutant>) -> PathBuf {
    let name = mutant.map(|m| outdir::file_name(&m.id)).unwrap_or_else(|| "original".to_string());
    out.path(Path::new(outdir::TRACE_DIR).join(test).join(format!("{name}.jsonl")))
}

/// Runs the metamutant with `active` (empty: no mutant) and reads its trace.
fn traced(build: &Build, test: &TestCase, active: &str, trace_file: &Path, config: &Config, limits: &Limits) -> Result<(Execution, Trace), String> {
    if let Some(parent) = trace_file.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    let _ = std::fs::remove_file(trace_file);
    let mut env = vec![("SYNCMUT_ACTIVE", active.to_string()), ("SYNCMUT_TRACE", trace_file.display().to_string())];
    if build.catalogue.kind == Family::Pthread {
        env.push(("SYNCMUT_SCHEDULE", config.schedule.clone()));
    }
    let execution = exec::execute(&build.metamutant, &test.args, &env, limits).map_err(|e| format!("{}: {e}", build.metamutant.display()))?;
    let trace = trace::read(trace_file)?;
    Ok((execution, trace))
}

/// Runs the original on a test (several times) and decides whether the test is usable.
fn baseline(build: &Build, test: &TestCase, out: &OutDir, config: &Config) -> Result<(Baseline, Option<(Execution, Trace)>), OracleError> {
    let limits = Limits { timeout: config.baseline_timeout, ..config.limits };
    let mut set_aside = None;
    let mut first: Option<(Execution, Trace)> = None;
    for repeat in 0..config.baseline_repeats.max(1) {
        let path = if repeat == 0 {
            trace_path(out, &test.name, None)
        } else {
            out.path(Path::new(outdir::TRACE_DIR).join(&test.name).join(format!("original.{}.jsonl", repeat + 1)))
        };
        let (execution, trace) = match traced(build, test, "", &path, config, &limits) {
            Ok(r) => r,
            Err(e) => {
                set_aside = Some(format!("its trace could not be read: {e}"));
                break;
            }
        };
        match execution.status {
            Status::TimedOut => set_aside = Some(format!("the original did not finish within {:?}", limits.timeout)),
            Status::Signaled(s) => set_aside = Some(format!("the original crashed (signal {s})")),
            _ => {}
        }
        if set_aside.is_some() {
            first.get_or_insert((execution, trace));
            break;
        }
        match &first {
            None => first = Some((execution, trace)),
            Some((e0, t0)) => {
                let a = Observation::new(e0, t0, &[]);
                let b = Observation::new(&execution, &trace, &[]);
                if a != b {
                    set_aside = Some("the original is not deterministic on this test (two runs behaved differently)".to_string());
                    break;
                }
            }
        }
    }
    let (execution, trace) = first.expect("at least one baseline execution");
    // The uninstrumented original must agree with the metamutant running no mutant.
    if set_aside.is_none() {
        match exec::execute(&build.original, &test.args, &[], &limits) {
            Ok(native) if native.stdout != execution.stdout || native.status != execution.status => {
                set_aside = Some(format!(
                    "the metamutant without a mutant behaves differently from the original build (status {:?} vs {:?}); please report this",
                    execution.status, native.status
                ));
            }
            Ok(_) => {}
            Err(e) => set_aside = Some(format!("{}: {e}", build.original.display())),
        }
    }
    let observation = Observation::new(&execution, &trace, &[]);
    let baseline = Baseline {
        test: test.name.clone(),
        args: test.args.clone(),
        usable: set_aside.is_none(),
        set_aside_because: set_aside,
        status: execution.status,
        elapsed_ms: execution.elapsed.as_millis() as u64,
        reached: Observation::reached(&trace),
        deadlock: observation.deadlock,
        pending: observation.pending.clone(),
        lost_notifications: observation.lost_notifications.clone(),
    };
    let usable = baseline.usable;
    Ok((baseline, usable.then_some((execution, trace))))
}

#[allow(clippy::too_many_arguments)]
fn run_mutant(
    build: &Build,
    mutant: &Mutant,
    test: &TestCase,
    baseline: &Baseline,
    original_exec: &Execution,
    original_trace: &Trace,
    out: &OutDir,
    config: &Config,
) -> Run {
    let timeout = Duration::from_millis(baseline.elapsed_ms) * config.timeout_multiplier + config.timeout_margin;
    let limits = Limits { timeout, ..config.limits };
    let path = trace_path(out, &test.name, Some(mutant));
    let (verdict, reason, elapsed) = match traced(build, test, &mutant.activation(), &path, config, &limits) {
        Err(e) => (Verdict::Error, e, Duration::ZERO),
        Ok((execution, _)) if execution.status == Status::Exited(RUNTIME_CONFIG_ERROR) => {
            (Verdict::Error, format!("the runtime rejected the mutant: {}", execution.stderr.trim()), execution.elapsed)
        }
        Ok((execution, trace)) => {
            let original = Observation::new(original_exec, original_trace, &mutant.sites);
            let observed = Observation::new(&execution, &trace, &mutant.sites);
            let (v, r) = verdict::judge(&original, &observed, &execution.stderr);
            if !v.is_killed() {
                // Only killing runs are explained by a diff; spinning mutants write
                // traces of a million events, which must not pile up on disk.
                let _ = std::fs::remove_file(&path);
            }
            (v, r, execution.elapsed)
        }
    };
    Run { mutant: mutant.id.clone(), test: test.name.clone(), verdict, reason, elapsed_ms: elapsed.as_millis() as u64 }
}

/// Exit status of the runtime when `SYNCMUT_ACTIVE` does not fit the binary.
const RUNTIME_CONFIG_ERROR: i32 = 120;
