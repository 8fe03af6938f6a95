//! The generated test suite: candidate tests confirmed by execution, duplicates merged,
//! a greedy set cover kept, written in the format of docs/tests-format.md.

use crate::inputs::TestValues;
use crate::{Reachability, SiteResult};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use syncmut_runner::exec::{Execution, Limits, Status};
use syncmut_runner::test_case::TestCase;
use syncmut_runner::Invocation;
use syncmut_runtime::status;
use syncmut_runtime::trace;

/// A candidate test and the sites its execution reached.
#[derive(Debug, Clone, Default)]
pub struct Confirmed {
    /// argv[1..] of the test.
    pub args: Vec<String>,
    /// `__VERIFIER_nondet_*` values in call order, as generated.
    pub nondet: Vec<i128>,
    /// Named inputs.
    pub inputs: BTreeMap<String, i64>,
    /// What the confirming run consumed, in call order: (kind, type or name, value)
    /// from the runtime's input log (docs/inputs.md); the Test-Comp test case is this.
    pub consumed: Vec<(String, String, String)>,
    /// Sites found in the execution trace.
    pub reached: BTreeSet<u32>,
}

/// The suite and its measurements.
#[derive(Debug, Clone)]
pub struct Suite {
    /// The tests kept, each confirmed by its run.
    pub tests: Vec<Confirmed>,
    /// Sites with a test found by the solver (random baseline: sites some run reached).
    pub reachable: BTreeSet<u32>,
    /// Sites not proven unreachable: the reach rate's denominator. A site the analysis
    /// left `unknown` is here, so it counts as not reached unless some run reaches it.
    pub open: BTreeSet<u32>,
    /// Of `open`, sites that the kept tests or a given test reach in execution.
    pub confirmed: BTreeSet<u32>,
    /// Executions of the design spent confirming candidates.
    pub executions: usize,
    /// Candidates not kept because their run is not a usable test, with why
    /// ([`Run::unusable`]), in the order they ran.
    pub unusable: Vec<(TestValues, String)>,
}

impl Suite {
    /// confirmed / open (1.0 when every site is proven unreachable).
    pub fn reach_rate(&self) -> f64 {
        if self.open.is_empty() {
            1.0
        } else {
            self.confirmed.len() as f64 / self.open.len() as f64
        }
    }
}

/// One traced run of a candidate on the metamutant (no mutant active, so it behaves as
/// the original).
#[derive(Debug, Clone, Default)]
pub struct Run {
    /// Sites found in the trace.
    pub reached: BTreeSet<u32>,
    /// Why the run is not a usable test, if it is not: it ended by
    /// `__VERIFIER_assume` (status 123), an input out of range or another refusal of
    /// the runtime (120), a crash, a hang (timeout, livelock 121, deadlock 122) or the
    /// thread limit (124). The oracle's baseline would set such a test aside, and a
    /// site reached on the way to an assumption that fails is not reached by a test.
    pub unusable: Option<String>,
    /// The run timed out with one thread running outside every synchronization call
    /// while others waited for their turn: under the default schedule at sync level,
    /// a busy-wait on plain memory (the oracle's baseline reads it the same way).
    pub spins: bool,
}

/// How [`build_refined`] goes about it: rounds of refinement, and how many candidates
/// run at a time (each run is a process of its own, so a design with hundreds of
/// candidates confirms them in a fraction of the time one by one took).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Refining {
    pub(crate) rounds: u32,
    pub(crate) jobs: usize,
}

/// A run made before any analysis: the design's default invocation (no arguments, no
/// inputs). The sites it reaches need no formula, and it is the first test kept.
#[derive(Debug, Clone)]
pub(crate) struct Seed {
    pub(crate) run: Run,
    /// Its input log ([`Confirmed::consumed`]).
    pub consumed: Vec<(String, String, String)>,
}

impl Seed {
    /// Runs the default invocation on `metamutant` (traces in `scratch`).
    pub(crate) fn run(metamutant: &Path, pthread: bool, scratch: &Path) -> std::io::Result<Seed> {
        let trace_path = scratch.join(trace::binary_name("default"));
        let log_path = scratch.join("default.inputs");
        let run = run_candidate(
            metamutant,
            &TestValues::default(),
            pthread,
            &trace_path,
            Some(&log_path),
        )?;
        Ok(Seed {
            run,
            consumed: read_input_log(&log_path),
        })
    }

    /// The sites a usable default run reached (none when the run is not usable).
    pub(crate) fn reached(&self) -> BTreeSet<u32> {
        self.test().map(|t| t.reached.clone()).unwrap_or_default()
    }

    /// The run as a kept test, when it is usable and reached a site.
    pub(crate) fn test(&self) -> Option<Confirmed> {
        (self.run.unusable.is_none() && !self.run.reached.is_empty()).then(|| Confirmed {
            consumed: self.consumed.clone(),
            reached: self.run.reached.clone(),
            ..Confirmed::default()
        })
    }
}

/// [`build`], then up to `rounds` rounds of refinement: each site with a candidate
/// that no usable run reached gets `again(result)`, another candidate (the solver
/// asked with the inputs tried so far excluded), which replaces its result (with a
/// note) and runs in the next round. The cover is over every run, `seed`'s included
/// (its inputs are not run again).
pub(crate) fn build_refined(
    results: &mut [SiteResult],
    metamutant: &Path,
    pthread: bool,
    scratch: &Path,
    seed: Option<Seed>,
    refining: Refining,
    mut again: impl FnMut(&SiteResult) -> Option<SiteResult>,
) -> std::io::Result<Suite> {
    let rounds = refining.rounds;
    let open: BTreeSet<u32> = results
        .iter()
        .filter(|r| !matches!(r.verdict, Reachability::Unreachable { .. }))
        .map(|r| r.index)
        .collect();
    let mut reachable = BTreeSet::new();
    let mut runs: Vec<Confirmed> = Vec::new();
    let mut unusable = Vec::new();
    let mut tried = BTreeSet::new();
    if let Some(seed) = seed {
        let values = TestValues::default();
        tried.insert(values.clone());
        if let Some(why) = &seed.run.unusable {
            unusable.push((values, why.clone()));
        }
        if let Some(test) = seed.test() {
            reachable.extend(test.reached.iter().copied());
            runs.push(test);
        }
    }
    let mut batch: Vec<usize> = (0..results.len()).collect();
    for round in 0..=rounds {
        let mut candidates: BTreeMap<TestValues, BTreeSet<u32>> = BTreeMap::new();
        for &i in &batch {
            if let Reachability::TestFound {
                args,
                nondet,
                inputs,
            } = &results[i].verdict
            {
                let key = TestValues {
                    args: args.clone(),
                    nondet: nondet.clone(),
                    inputs: inputs.clone(),
                };
                candidates.entry(key).or_default().insert(results[i].index);
            }
        }
        reachable.extend(candidates.values().flatten().copied());
        let tried_before = tried.len();
        // Numbered in order, run side by side, then taken in order: the suite does not
        // depend on which run finished first.
        let fresh: Vec<(usize, TestValues)> = candidates
            .into_keys()
            .filter(|values| tried.insert(values.clone()))
            .enumerate()
            .map(|(k, values)| (tried_before + k, values))
            .collect();
        let ran = side_by_side(&fresh, refining.jobs, |(n, values)| {
            let trace_path = scratch.join(trace::binary_name(&format!("candidate{n}")));
            let log_path = scratch.join(format!("candidate{n}.inputs"));
            let run = run_candidate(metamutant, values, pthread, &trace_path, Some(&log_path))?;
            Ok((run, read_input_log(&log_path)))
        })?;
        for ((_, values), (run, consumed)) in fresh.into_iter().zip(ran) {
            if let Some(why) = run.unusable {
                unusable.push((values, why));
                continue;
            }
            let TestValues {
                args,
                nondet,
                inputs,
            } = values;
            runs.push(Confirmed {
                args,
                nondet,
                inputs,
                consumed,
                reached: run.reached,
            });
        }
        if round == rounds {
            break;
        }
        let reached: BTreeSet<u32> = runs
            .iter()
            .flat_map(|r| r.reached.iter().copied())
            .collect();
        batch.retain(|&i| {
            matches!(results[i].verdict, Reachability::TestFound { .. })
                && !reached.contains(&results[i].index)
        });
        batch.retain(|&i| match again(&results[i]) {
            Some(mut next) => {
                next.notes.push(format!("refinement round {}: the candidate ({}) did not reach the site in a usable run; asked the solver for different inputs", round + 1, results[i].verdict));
                results[i] = next;
                true
            }
            None => false,
        });
        if batch.is_empty() {
            break;
        }
    }
    let executions = tried.len();
    let (tests, mut confirmed) = cover(runs, &open);
    // A given test's run reached these; the reach rate is the given and generated
    // tests' together.
    confirmed.extend(
        results
            .iter()
            .filter(|r| matches!(r.verdict, Reachability::ReachedByGiven { .. }))
            .map(|r| r.index),
    );
    Ok(Suite {
        tests,
        reachable,
        open,
        confirmed,
        executions,
        unusable,
    })
}

/// `run` on every item, `jobs` at a time; the results in the items' order (the first
/// error, in that order, if any).
fn side_by_side<T: Sync, R: Send>(
    items: &[T],
    jobs: usize,
    run: impl Fn(&T) -> std::io::Result<R> + Sync,
) -> std::io::Result<Vec<R>> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let slots: Vec<std::sync::Mutex<Option<std::io::Result<R>>>> =
        items.iter().map(|_| std::sync::Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, items.len().max(1)) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some(item) = items.get(i) else {
                    break;
                };
                let result = run(item);
                *slots[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(result);
            });
        }
    });
    slots
        .into_iter()
        .map(|slot| {
            slot.into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .expect("every item ran")
        })
        .collect()
}

/// Time a confirming run may take.
const CONFIRM_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// Runs a candidate on the metamutant with tracing (pthread: under the default
/// schedule) and says whether the run is a usable test.
pub fn run_candidate(
    metamutant: &Path,
    values: &TestValues,
    pthread: bool,
    trace_path: &Path,
    log: Option<&Path>,
) -> std::io::Result<Run> {
    let run = Invocation {
        nondet: values.nondet.clone(),
        inputs: values.inputs.clone(),
        ..Invocation::new(metamutant, &values.args)
    };
    run_traced(run, pthread, trace_path, log)
}

/// Runs a test the user gave (its arguments, inputs and setting: files, environment,
/// stdin, simulated-time bound) as [`run_candidate`] runs a candidate.
pub(crate) fn run_given(
    metamutant: &Path,
    test: &TestCase,
    pthread: bool,
    trace_path: &Path,
) -> std::io::Result<Run> {
    run_traced(
        Invocation::for_test(metamutant, test),
        pthread,
        trace_path,
        None,
    )
}

/// `run` with tracing, the default schedule (pthread) and a confirming run's limits.
fn run_traced(
    run: Invocation,
    pthread: bool,
    trace_path: &Path,
    log: Option<&Path>,
) -> std::io::Result<Run> {
    let run = Invocation {
        trace: Some(trace_path.to_path_buf()),
        input_log: log.map(Path::to_path_buf),
        schedule: pthread.then(|| "default".to_string()),
        limits: Limits {
            timeout: CONFIRM_TIMEOUT,
            ..Limits::default()
        },
        ..run
    };
    let execution = run.run()?;
    let trace = trace::read(trace_path).ok();
    let reached = trace
        .as_ref()
        .map(|t| t.events.iter().map(|e| e.site).collect())
        .unwrap_or_default();
    let pending = trace
        .and_then(|t| t.end)
        .map(|end| end.pending)
        .unwrap_or_default();
    Ok(Run {
        reached,
        unusable: unusable(&execution),
        spins: pthread
            && execution.status == Status::TimedOut
            && pending.len() >= 2
            && pending.iter().any(|p| p.site.is_none()),
    })
}

/// Why a run is not a usable test ([`Run::unusable`]), in words.
fn unusable(execution: &Execution) -> Option<String> {
    let runtime_line = || {
        execution
            .stderr
            .text()
            .lines()
            .find(|l| l.starts_with("syncmut runtime:"))
            .map(|l| format!(": {l}"))
            .unwrap_or_default()
    };
    match execution.status {
        Status::Exited(status::ASSUME) => Some(
            "the run ended by __VERIFIER_assume (status 123): the inputs violate an assumption"
                .into(),
        ),
        Status::Exited(status::CONFIG_ERROR) => Some(format!(
            "the runtime refused the inputs (status 120){}",
            runtime_line()
        )),
        Status::Exited(status::LIVELOCK) => Some("the run livelocked (status 121)".into()),
        Status::Exited(status::DEADLOCK) => {
            Some("the run deadlocked under the default schedule (status 122)".into())
        }
        Status::Exited(status::THREAD_LIMIT) => {
            Some("the run exceeded the thread limit (status 124)".into())
        }
        Status::Exited(_) => None,
        Status::Signaled(_) => Some(format!("the run crashed ({})", execution.status)),
        Status::TimedOut => Some(format!(
            "the run did not finish within {} s",
            CONFIRM_TIMEOUT.as_secs()
        )),
    }
}

/// Greedy set cover of the sites in `among` that the runs reached: the fewest runs
/// (ties: the earliest) that together reach all of them. Returns the kept runs and the
/// sites covered.
pub(crate) fn cover(
    mut runs: Vec<Confirmed>,
    among: &BTreeSet<u32>,
) -> (Vec<Confirmed>, BTreeSet<u32>) {
    let mut uncovered: BTreeSet<u32> = runs
        .iter()
        .flat_map(|r| r.reached.iter().copied())
        .filter(|s| among.contains(s))
        .collect();
    let covered = uncovered.clone();
    let mut tests = Vec::new();
    while !uncovered.is_empty() {
        let best = runs
            .iter()
            .enumerate()
            .max_by_key(|(i, r)| {
                (
                    r.reached.intersection(&uncovered).count(),
                    std::cmp::Reverse(*i),
                )
            })
            .map(|(i, _)| i);
        let Some(i) = best else { break };
        let r = runs.remove(i);
        if r.reached.intersection(&uncovered).count() == 0 {
            break;
        }
        uncovered.retain(|s| !r.reached.contains(s));
        tests.push(r);
    }
    (tests, covered)
}

/// The runtime's input log: one `kind what value` line per value handed out.
fn read_input_log(path: &Path) -> Vec<(String, String, String)> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .filter_map(|l| {
            let mut it = l.splitn(3, ' ');
            Some((
                it.next()?.to_string(),
                it.next()?.to_string(),
                it.next()?.to_string(),
            ))
        })
        .collect()
}

/// The file name stem of each kept test (as written in tests.json), in suite order.
pub fn names(suite: &Suite, prefix: &str) -> Vec<String> {
    names_of(&suite.tests, prefix)
}

fn names_of(tests: &[Confirmed], prefix: &str) -> Vec<String> {
    let mut names = BTreeSet::new();
    tests
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let mut parts = t.args.clone();
            parts.extend(t.nondet.iter().map(|v| v.to_string()));
            parts.extend(t.inputs.iter().map(|(k, v)| format!("{k}{v}")));
            let mut name: String = format!("{prefix}{}_{}", i, parts.join("_"))
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            name.truncate(60);
            while !names.insert(name.clone()) {
                name.push('_');
            }
            name
        })
        .collect()
}

/// Writes `{"tests":[{"name":..,"args":[..],"nondet":[..],"inputs":{..}}]}`; names
/// start with `prefix`.
pub(crate) fn write(suite: &Suite, prefix: &str, path: &Path) -> std::io::Result<()> {
    write_tests(&suite.tests, prefix, path)
}

/// [`write`] for tests not yet made a suite (the seed run's, written before the
/// analysis so that an interrupted generation keeps it).
pub(crate) fn write_tests(tests: &[Confirmed], prefix: &str, path: &Path) -> std::io::Result<()> {
    let tests: Vec<TestCase> = tests
        .iter()
        .zip(names_of(tests, prefix))
        .map(|(t, name)| TestCase {
            name,
            args: t.args.clone(),
            nondet: t.nondet.clone(),
            inputs: t.inputs.clone(),
            ..TestCase::default()
        })
        .collect();
    #[derive(serde::Serialize)]
    struct File<'a> {
        tests: &'a [TestCase],
    }
    let text = serde_json::to_string_pretty(&File { tests: &tests }).expect("json");
    syncmut_runtime::atomic::write(path, (text + "\n").as_bytes())
}

#[cfg(test)]
mod tests {
    use super::side_by_side;

    #[test]
    fn runs_side_by_side_come_back_in_the_items_order() {
        // The first items take longest, so they finish last.
        let items: Vec<u64> = (0..6).collect();
        let ran = side_by_side(&items, 3, |&k| {
            std::thread::sleep(std::time::Duration::from_millis(30 * (6 - k)));
            Ok(k * 10)
        })
        .unwrap();
        assert_eq!(ran, [0, 10, 20, 30, 40, 50]);
        let failed = side_by_side(&items, 2, |&k| match k {
            2 | 4 => Err(std::io::Error::other(format!("item {k}"))),
            _ => Ok(k),
        });
        assert_eq!(failed.unwrap_err().to_string(), "item 2");
    }
}
