//! The generated test suite: candidate tests confirmed by execution, duplicates merged,
//! a greedy set cover kept, written in the format of docs/tests-format.md.

use crate::inputs::TestValues;
use crate::{SiteResult, Reachability};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use syncmut_runtime::exec::Limits;
use syncmut_runtime::test_case::TestCase;
use syncmut_runtime::{trace, Invocation};

/// A candidate test and the sites its execution reached.
#[derive(Debug, Clone, Default)]
pub struct Confirmed {
    pub args: Vec<String>,
    /// `__VERIFIER_nondet_*` values in call order, as generated.
    pub nondet: Vec<i128>,
    /// Named inputs.
    pub inputs: BTreeMap<String, i64>,
    /// What the confirming run consumed, in call order: (kind, type or name, value)
    /// from the runtime's input log (docs/inputs.md); the Test-Comp test case is this.
    pub consumed: Vec<(String, String, String)>,
    /// Sites the analysis generated this test for.
    pub targets: BTreeSet<u32>,
    /// Sites found in the execution trace.
    pub reached: BTreeSet<u32>,
}

/// The suite and its measurements.
#[derive(Debug, Clone)]
pub struct Suite {
    pub tests: Vec<Confirmed>,
    /// Sites with a test found by the solver (random baseline: sites some run reached).
    pub reachable: BTreeSet<u32>,
    /// Of those, sites that the kept tests reach in execution.
    pub confirmed: BTreeSet<u32>,
    /// Executions of the design spent confirming candidates.
    pub executions: usize,
}

impl Suite {
    /// confirmed / reachable (1.0 when nothing is reachable).
    pub fn reach_rate(&self) -> f64 {
        if self.reachable.is_empty() {
            1.0
        } else {
            self.confirmed.len() as f64 / self.reachable.len() as f64
        }
    }
}

/// Runs each distinct candidate on `metamutant` with tracing; keeps a greedy cover.
pub fn build(results: &[SiteResult], metamutant: &Path, pthread: bool, scratch: &Path) -> std::io::Result<Suite> {
    let mut candidates: BTreeMap<TestValues, BTreeSet<u32>> = BTreeMap::new();
    for r in results {
        if let Reachability::TestFound { args, nondet, inputs } = &r.verdict {
            let key = TestValues { args: args.clone(), nondet: nondet.clone(), inputs: inputs.clone() };
            candidates.entry(key).or_default().insert(r.index);
        }
    }
    let reachable: BTreeSet<u32> = candidates.values().flatten().copied().collect();
    let mut runs = Vec::new();
    for (n, (values, targets)) in candidates.into_iter().enumerate() {
        let trace_path = scratch.join(format!("candidate{n}.jsonl"));
        let log_path = scratch.join(format!("candidate{n}.inputs"));
        let reached = execute_with(metamutant, &values, pthread, &trace_path, Some(&log_path))?;
        let consumed = read_input_log(&log_path);
        let TestValues { args, nondet, inputs } = values;
        runs.push(Confirmed { args, nondet, inputs, consumed, targets, reached });
    }
    let executions = runs.len();
    let (tests, confirmed) = cover(runs, &reachable);
    Ok(Suite { tests, reachable, confirmed, executions })
}

/// Runs `args` on the metamutant with tracing (pthread: under the default schedule)
/// and returns the sites its trace shows.
pub fn execute(metamutant: &Path, args: &[String], pthread: bool, trace_path: &Path) -> std::io::Result<BTreeSet<u32>> {
    let values = TestValues { args: args.to_vec(), ..TestValues::default() };
    execute_with(metamutant, &values, pthread, trace_path, None)
}

/// [`execute`] with input values (nondet list, named inputs) and, if `log` is given,
/// the runtime's input log written there.
pub fn execute_with(metamutant: &Path, values: &TestValues, pthread: bool, trace_path: &Path, log: Option<&Path>) -> std::io::Result<BTreeSet<u32>> {
    let run = Invocation {
        trace: Some(trace_path.to_path_buf()),
        input_log: log.map(Path::to_path_buf),
        schedule: pthread.then(|| "default".to_string()),
        nondet: values.nondet.clone(),
        inputs: values.inputs.clone(),
        limits: Limits { timeout: std::time::Duration::from_secs(10), ..Limits::default() },
        ..Invocation::new(metamutant, &values.args)
    };
    run.run()?;
    Ok(trace::read(trace_path).map(|t| t.events.iter().map(|e| e.site).collect()).unwrap_or_default())
}

/// Greedy set cover of the sites in `among` that the runs reached: the fewest runs
/// (ties: the earliest) that together reach all of them. Returns the kept runs and the
/// sites covered.
pub fn cover(mut runs: Vec<Confirmed>, among: &BTreeSet<u32>) -> (Vec<Confirmed>, BTreeSet<u32>) {
    let mut uncovered: BTreeSet<u32> = runs.iter().flat_map(|r| r.reached.iter().copied()).filter(|s| among.contains(s)).collect();
    let covered = uncovered.clone();
    let mut tests = Vec::new();
    while !uncovered.is_empty() {
        let best = runs.iter().enumerate().max_by_key(|(i, r)| (r.reached.intersection(&uncovered).count(), std::cmp::Reverse(*i))).map(|(i, _)| i);
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
            Some((it.next()?.to_string(), it.next()?.to_string(), it.next()?.to_string()))
        })
        .collect()
}

/// The file name stem of each kept test (as written in tests.json), in suite order.
pub fn names(suite: &Suite, prefix: &str) -> Vec<String> {
    let mut names = BTreeSet::new();
    suite
        .tests
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let mut parts = t.args.clone();
            parts.extend(t.nondet.iter().map(|v| v.to_string()));
            parts.extend(t.inputs.iter().map(|(k, v)| format!("{k}{v}")));
            let mut name: String = format!("{prefix}{}_{}", i, parts.join("_")).chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '.' { c } else { '_' }).collect();
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
pub fn write(suite: &Suite, prefix: &str, path: &Path) -> std::io::Result<()> {
    let tests: Vec<TestCase> = suite
        .tests
        .iter()
        .zip(names(suite, prefix))
        .map(|(t, name)| TestCase { name, args: t.args.clone(), nondet: t.nondet.clone(), inputs: t.inputs.clone() })
        .collect();
    #[derive(serde::Serialize)]
    struct File<'a> {
        tests: &'a [TestCase],
    }
    let text = serde_json::to_string_pretty(&File { tests: &tests }).expect("json");
    syncmut_runtime::atomic::write(path, (text + "\n").as_bytes())
}
