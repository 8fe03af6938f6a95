//! The generated test suite: candidate tests confirmed by execution, duplicates merged,
//! a greedy set cover kept, written in the format of docs/tests-format.md.

use crate::{SiteResult, Verdict};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use syncmut_oracle::exec::{self, Limits};
use syncmut_oracle::trace;

/// A candidate test and the sites its execution reached.
#[derive(Debug, Clone)]
pub struct Confirmed {
    pub args: Vec<String>,
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
    let mut candidates: BTreeMap<Vec<String>, BTreeSet<u32>> = BTreeMap::new();
    for r in results {
        if let Verdict::TestFound { args } = &r.verdict {
            candidates.entry(args.clone()).or_default().insert(r.index);
        }
    }
    let reachable: BTreeSet<u32> = candidates.values().flatten().copied().collect();
    let mut runs = Vec::new();
    for (n, (args, targets)) in candidates.into_iter().enumerate() {
        let reached = execute(metamutant, &args, pthread, &scratch.join(format!("candidate{n}.jsonl")))?;
        runs.push(Confirmed { args, targets, reached });
    }
    let executions = runs.len();
    let (tests, confirmed) = cover(runs, &reachable);
    Ok(Suite { tests, reachable, confirmed, executions })
}

/// Runs `args` on the metamutant with tracing (pthread: under the default schedule)
/// and returns the sites its trace shows.
pub fn execute(metamutant: &Path, args: &[String], pthread: bool, trace_path: &Path) -> std::io::Result<BTreeSet<u32>> {
    let mut env = vec![("SYNCMUT_TRACE", trace_path.display().to_string())];
    if pthread {
        env.push(("SYNCMUT_SCHEDULE", "default".to_string()));
    }
    let limits = Limits { timeout: std::time::Duration::from_secs(10), ..Limits::default() };
    exec::execute(metamutant, args, &env, &limits)?;
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

/// Writes `{"tests":[{"name":..,"args":[..]}]}`; names start with `prefix`.
pub fn write(suite: &Suite, prefix: &str, path: &Path) -> std::io::Result<()> {
    let mut names = BTreeSet::new();
    let tests: Vec<serde_json::Value> = suite
        .tests
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let mut name: String = format!("{prefix}{}_{}", i, t.args.join("_")).chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '.' { c } else { '_' }).collect();
            name.truncate(60);
            while !names.insert(name.clone()) {
                name.push('_');
            }
            serde_json::json!({ "name": name, "args": t.args })
        })
        .collect();
    let text = serde_json::to_string_pretty(&serde_json::json!({ "tests": tests })).expect("json");
    crate::write_atomically(path, (text + "\n").as_bytes())
}
