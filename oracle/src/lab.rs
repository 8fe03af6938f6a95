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
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;
use syncmut_mutator::metamutant::Build;
use syncmut_mutator::api::Family;
use syncmut_mutator::{Catalogue, Mutant};

/// The original's executions on one test, one per schedule.
type OriginalRuns = Vec<(Execution, Trace)>;

/// A test the baseline kept, with the original's runs on it.
type UsableTest<'a> = (&'a TestCase, &'a Baseline, &'a [(Execution, Trace)]);

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
    /// Schedules every pthread test runs under (`SYNCMUT_SCHEDULE` values: `default`,
    /// `random:<seed>`). With several, a mutant is killed on a test when under some
    /// schedule it shows a behaviour the original shows under none of them, and the
    /// kill fraction is reported. SystemC designs use one: the kernel's process order
    /// is deterministic.
    pub schedules: Vec<String>,
}

impl Config {
    /// `n` seeded random schedules (`random:1` … `random:n`), or the deterministic
    /// default schedule when `n` is 1.
    pub fn with_schedules(mut self, n: usize) -> Config {
        self.schedules = if n <= 1 { vec!["default".to_string()] } else { (1..=n).map(|s| format!("random:{s}")).collect() };
        self
    }
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
            schedules: vec!["default".to_string()],
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
    config: &Config,
    progress: &dyn Progress,
    previous: Vec<Run>,
) -> Result<(Outcomes, Vec<Baseline>), OracleError> {
    let saved_baselines = read_baselines(out);
    out.write_json(outdir::TESTS, &serde_json::json!({ "tests": tests }))?;
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
        .filter_map(|(t, (b, runs))| runs.as_deref().filter(|_| b.usable).map(|r| (t, b, r)))
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
    let (sender, receiver) = mpsc::channel::<Run>();
    std::thread::scope(|scope| -> Result<(), OracleError> {
        for _ in 0..config.jobs.max(1) {
            let sender = sender.clone();
            let (next, todo, usable) = (&next, &todo, &usable);
            scope.spawn(move || loop {
                let index = next.fetch_add(1, Ordering::SeqCst);
                let Some((mutant, test_index)) = todo.get(index) else { break };
                let (test, baseline, originals) = usable[*test_index];
                let run = run_mutant(build, mutant, test, baseline, originals, out, config);
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
        let schedule = outcome.runs.iter().find(|r| r.test == test).and_then(|r| r.schedule.as_deref());
        let original = trace::read(&outdir::trace_file(out.root(), test, None, schedule)).unwrap_or_default();
        let mutated = trace::read(&outdir::trace_file(out.root(), test, Some(&mutant.id), schedule)).unwrap_or_default();
        let text = diff::render(catalogue, mutant, test, &original, &mutated, &outcome.reason);
        out.write(Path::new(outdir::DIFF_DIR).join(format!("{}.diff", outdir::file_name(&mutant.id))), text.as_bytes())?;
    }
    Ok((outcomes, baselines.into_iter().map(|(b, _)| b).collect()))
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

/// Exit status of the runtime when `SYNCMUT_ACTIVE` does not fit the binary.
const RUNTIME_CONFIG_ERROR: i32 = 120;

/// Runs the metamutant with `active` (empty: no mutant) under `schedule` and reads its
/// trace.
fn traced(build: &Build, test: &TestCase, active: &str, schedule: &str, trace_file: &Path, limits: &Limits) -> Result<(Execution, Trace), String> {
    if let Some(parent) = trace_file.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    let _ = std::fs::remove_file(trace_file);
    let mut env = vec![("SYNCMUT_ACTIVE", active.to_string()), ("SYNCMUT_TRACE", trace_file.display().to_string())];
    if build.catalogue.kind == Family::Pthread {
        env.push(("SYNCMUT_SCHEDULE", schedule.to_string()));
    }
    env.extend(test.env());
    let execution = exec::execute(&build.metamutant, &test.args, &env, limits).map_err(|e| format!("{}: {e}", build.metamutant.display()))?;
    let trace = trace::read(trace_file)?;
    Ok((execution, trace))
}

/// The schedules a design runs under: SystemC has exactly one.
fn schedules<'a>(build: &Build, config: &'a Config) -> &'a [String] {
    if build.catalogue.kind == Family::Pthread && !config.schedules.is_empty() {
        &config.schedules
    } else {
        &config.schedules[..1.min(config.schedules.len())]
    }
}

/// The schedule as named in file names and runs, or None when there is only one.
fn schedule_tag<'a>(build: &Build, config: &Config, schedule: &'a str) -> Option<&'a str> {
    (schedules(build, config).len() > 1).then_some(schedule)
}

/// Runs the original on a test and decides whether the test is usable: the first
/// schedule twice (the runs must agree), every other schedule once.
fn baseline(
    build: &Build,
    test: &TestCase,
    out: &OutDir,
    config: &Config,
) -> Result<(Baseline, Option<OriginalRuns>), OracleError> {
    let limits = Limits { timeout: config.baseline_timeout, ..config.limits };
    let schedules = schedules(build, config);
    let mut set_aside = None;
    let mut runs: Vec<(Execution, Trace)> = Vec::new();
    let first_schedule = schedules.first().map(String::as_str).unwrap_or("default");
    let plan = std::iter::repeat_n(first_schedule, config.baseline_repeats.max(1))
        .chain(schedules.iter().skip(1).map(String::as_str));
    for (i, schedule) in plan.enumerate() {
        let tag = schedule_tag(build, config, schedule);
        let path = if i == 0 || i >= config.baseline_repeats.max(1) {
            outdir::trace_file(out.root(), &test.name, None, tag)
        } else {
            out.path(Path::new(outdir::TRACE_DIR).join(&test.name).join(format!("original.{}.jsonl", i + 1)))
        };
        let (execution, trace) = match traced(build, test, "", schedule, &path, &limits) {
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
        let repeat_of_first = i > 0 && i < config.baseline_repeats.max(1);
        if set_aside.is_none() && repeat_of_first {
            let (e0, t0) = &runs[0];
            if Observation::new(e0, t0, &[]) != Observation::new(&execution, &trace, &[]) {
                set_aside = Some("the original is not deterministic on this test (two runs under the same schedule behaved differently)".to_string());
            }
        }
        if !repeat_of_first || runs.is_empty() {
            runs.push((execution, trace));
        }
        if set_aside.is_some() {
            break;
        }
    }
    let (execution, trace) = &runs[0];
    // The uninstrumented original must agree with the metamutant running no mutant.
    if set_aside.is_none() {
        match exec::execute(&build.original, &test.args, &test.env(), &limits) {
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
    let observation = Observation::new(execution, trace, &[]);
    let mut reached: Vec<u32> = runs.iter().flat_map(|(_, t)| Observation::reached(t)).collect();
    reached.sort_unstable();
    reached.dedup();
    let baseline = Baseline {
        test: test.name.clone(),
        args: test.args.clone(),
        usable: set_aside.is_none(),
        set_aside_because: set_aside,
        status: execution.status,
        elapsed_ms: runs.iter().map(|(e, _)| e.elapsed.as_millis() as u64).max().unwrap_or(0),
        reached,
        deadlock: observation.deadlock,
        pending: observation.pending.clone(),
        lost_notifications: observation.lost_notifications.clone(),
    };
    let usable = baseline.usable;
    Ok((baseline, usable.then_some(runs)))
}

/// Runs one mutant on one test under every schedule and judges it.
fn run_mutant(
    build: &Build,
    mutant: &Mutant,
    test: &TestCase,
    baseline: &Baseline,
    originals: &[(Execution, Trace)],
    out: &OutDir,
    config: &Config,
) -> Run {
    let timeout = Duration::from_millis(baseline.elapsed_ms) * config.timeout_multiplier + config.timeout_margin;
    let limits = Limits { timeout, ..config.limits };
    let schedules = schedules(build, config);
    let original: Vec<Observation> = originals.iter().map(|(e, t)| Observation::new(e, t, &mutant.sites)).collect();
    let mut elapsed = Duration::ZERO;
    let mut kills = 0usize;
    let mut first_kill: Option<(Verdict, String, &str)> = None;
    for (i, schedule) in schedules.iter().enumerate() {
        let tag = schedule_tag(build, config, schedule);
        let path = outdir::trace_file(out.root(), &test.name, Some(&mutant.id), tag);
        let (execution, trace) = match traced(build, test, &mutant.activation(), schedule, &path, &limits) {
            Err(e) => return error_run(mutant, test, e, elapsed),
            Ok((execution, _)) if execution.status == Status::Exited(RUNTIME_CONFIG_ERROR) => {
                return error_run(mutant, test, format!("the runtime rejected the mutant: {}", execution.stderr.trim()), elapsed);
            }
            Ok(r) => r,
        };
        elapsed += execution.elapsed;
        let observed = Observation::new(&execution, &trace, &mutant.sites);
        // A behaviour the original shows under some schedule is not a kill.
        let killed_here = !original.contains(&observed);
        if killed_here {
            kills += 1;
            if first_kill.is_none() {
                let label = |site| crate::diff::site_label(&build.catalogue, site);
                let (v, r) = verdict::judge(&original[i.min(original.len() - 1)], &observed, &execution.stderr, &label);
                first_kill = Some((v, r, schedule));
                continue; // keep this trace: it explains the kill
            }
        }
        // Only killing runs are explained by a diff; spinning mutants write traces of
        // a million events, which must not pile up on disk.
        let _ = std::fs::remove_file(&path);
    }
    let total = schedules.len();
    let (verdict, mut reason, schedule) = match first_kill {
        Some((v, r, s)) => (v, r, schedule_tag(build, config, s).map(String::from)),
        None => (Verdict::Survived, String::new(), None),
    };
    if total > 1 {
        let (lo, hi) = wilson_interval(kills, total);
        let fraction = format!("killed in {kills} of {total} schedules (95% CI {:.0}–{:.0}%)", lo * 100.0, hi * 100.0);
        reason = if reason.is_empty() { fraction } else { format!("{reason}; {fraction}") };
    }
    Run {
        mutant: mutant.id.clone(),
        test: test.name.clone(),
        verdict,
        reason,
        elapsed_ms: elapsed.as_millis() as u64,
        schedule,
        kills: (total > 1).then_some(kills),
        schedules: (total > 1).then_some(total),
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
    use super::wilson_interval;

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
