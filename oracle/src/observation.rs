//! What a user could observe of one execution, the unit the oracle compares.
//!
//! Per thread/process, the ordered synchronization events (site and simulation time)
//! other than those of the mutated sites themselves: a mutant is not "killed" merely
//! because the call it removed no longer shows up. Plus stdout and stderr (whole, byte
//! for byte), exit status, the test's `outputs` files (size and digest), and the end
//! state (deadlock, livelock, who was left waiting where).

use syncmut_runtime::exec::{Execution, Status};
use serde_json::Value;
use syncmut_runtime::output::Output;
use syncmut_runtime::trace::{EndKind, Trace};
use syncmut_runtime::workdir::OutputFile;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// Lines the runtime writes on stderr about how the run ended (deadlock, livelock, a
/// rejected mutant). They describe the end state, which is compared on its own; the rest
/// of stderr is the design's.
pub const RUNTIME_LINE: &[u8] = b"syncmut runtime:";

/// An output stream as compared: the digest of the lines that count and the stream
/// itself, to locate a difference. Equal when the digests are.
#[derive(Debug, Clone)]
pub struct Compared {
    digest: [u8; 32],
    pub output: Output,
    /// Line numbers (from 0) left out: masked as nondeterministic.
    pub masked: BTreeSet<usize>,
    /// The runtime's own lines ([`RUNTIME_LINE`]) are left out (stderr).
    pub without_runtime_lines: bool,
}

impl PartialEq for Compared {
    fn eq(&self, other: &Self) -> bool {
        self.digest == other.digest
    }
}
impl Eq for Compared {}

impl Compared {
    /// Every byte of `output` counts.
    pub fn whole(output: &Output) -> Compared {
        Compared { digest: output.sha256, output: output.clone(), masked: BTreeSet::new(), without_runtime_lines: false }
    }

    /// The design's stderr: the runtime's own lines left out.
    pub fn design_stderr(output: &Output) -> Compared {
        Compared { without_runtime_lines: true, ..Compared::whole(output) }.rehashed()
    }

    /// The same stream with `lines` left out as well.
    pub fn masking(&self, lines: &BTreeSet<usize>) -> Compared {
        if lines.is_empty() {
            return self.clone();
        }
        Compared { masked: self.masked.union(lines).copied().collect(), ..self.clone() }.rehashed()
    }

    /// Whether line `index` with `bytes` counts.
    pub fn keeps(&self, index: usize, bytes: &[u8]) -> bool {
        !self.masked.contains(&index) && !(self.without_runtime_lines && bytes.starts_with(RUNTIME_LINE))
    }

    fn rehashed(self) -> Compared {
        // Lines can only be left out of what was kept: past the spool limit the digest of
        // every byte is all there is, and then nothing is left out.
        if !self.output.is_whole() || (self.masked.is_empty() && !self.without_runtime_lines) {
            return Compared { digest: self.output.sha256, ..self };
        }
        let digest = self.output.digest_of_lines(&|i, bytes| self.keeps(i, bytes));
        Compared { digest, ..self }
    }
}

/// One event as observed: where, when and the values of the design's globals there,
/// without the action taken.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Step {
    pub site: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub state: BTreeMap<String, serde_json::Value>,
}

/// The observable behaviour of one execution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Observation {
    pub status: Status,
    pub stdout: Compared,
    pub stderr: Compared,
    /// The test's `outputs` files as the run left them (`None`: missing).
    pub outputs: BTreeMap<String, Option<OutputFile>>,
    /// Steps per thread, in each thread's own order (pthread interleavings across threads
    /// are not part of what a user observes).
    pub threads: BTreeMap<String, Vec<Step>>,
    pub deadlock: bool,
    pub livelock: bool,
    /// For a livelock: the thread that spun and where.
    pub livelock_thread: Option<String>,
    pub livelock_site: Option<u32>,
    /// Threads left unfinished, with the site each waited in.
    pub pending: Vec<(String, Option<u32>)>,
    /// Sites where a notification was lost.
    pub lost_notifications: Vec<u32>,
}

impl Observation {
    /// Projects an execution and its trace, leaving out events at `hidden` sites.
    pub fn new(execution: &Execution, trace: &Trace, hidden: &[u32]) -> Observation {
        let mut threads: BTreeMap<String, Vec<Step>> = BTreeMap::new();
        for event in trace.events.iter().filter(|e| !hidden.contains(&e.site)) {
            threads.entry(event.thread.clone()).or_default().push(Step {
                site: event.site,
                time: event.time.clone(),
                state: event.state.clone(),
            });
        }
        let end = trace.end.clone().unwrap_or_default();
        let mut pending: Vec<(String, Option<u32>)> = end.pending.iter().map(|p| (p.thread.clone(), p.site)).collect();
        pending.sort();
        Observation {
            status: execution.status,
            stdout: Compared::whole(&execution.stdout),
            stderr: Compared::design_stderr(&execution.stderr),
            outputs: execution.outputs.clone(),
            threads,
            deadlock: end.deadlock || end.kind == EndKind::Deadlock,
            livelock: end.kind == EndKind::Livelock,
            livelock_thread: end.thread.clone(),
            livelock_site: end.site,
            pending,
            lost_notifications: trace.events.iter().filter(|e| e.lost && !hidden.contains(&e.site)).map(|e| e.site).collect(),
        }
    }

    /// Where the per-thread steps of `mutant` first leave this observation's, in words
    /// (`top.p.b at wait(e) @ x.cpp:37 sees top.p.count=2 instead of 1`); `None` when
    /// every thread's steps are equal. `label` names a site.
    pub fn first_step_difference(&self, mutant: &Observation, label: &dyn Fn(u32) -> String) -> Option<String> {
        let mut threads: Vec<&String> = self.threads.keys().chain(mutant.threads.keys()).collect();
        threads.sort();
        threads.dedup();
        let empty = Vec::new();
        threads.into_iter().find_map(|thread| {
            let (a, b) = (self.threads.get(thread).unwrap_or(&empty), mutant.threads.get(thread).unwrap_or(&empty));
            let i = (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i))?;
            Some(match (a.get(i), b.get(i)) {
                (Some(x), None) => format!("{thread} stops after {i} events instead of reaching {}", label(x.site)),
                (None, Some(y)) => format!("{thread} goes on to {} (event {} of {thread})", label(y.site), i + 1),
                (Some(x), Some(y)) if x.site != y.site => format!("{thread} reaches {} instead of {}", label(y.site), label(x.site)),
                (Some(x), Some(y)) if x.time != y.time => format!(
                    "{thread} reaches {} at {} instead of {}",
                    label(x.site),
                    y.time.as_deref().unwrap_or("?"),
                    x.time.as_deref().unwrap_or("?")
                ),
                (Some(x), Some(y)) => format!("{thread} at {} sees {}", label(x.site), state_change(&x.state, &y.state)),
                (None, None) => unreachable!("index below the longer length"),
            })
        })
    }

    /// Sites reached in this execution.
    pub fn reached(trace: &Trace) -> Vec<u32> {
        let mut sites: Vec<u32> = trace.events.iter().map(|e| e.site).collect();
        sites.sort_unstable();
        sites.dedup();
        sites
    }
}

/// The values that differ between two snapshots: `a=2 instead of 1, b=null instead of
/// non-null` (at most three, then `…`).
pub fn state_change(original: &BTreeMap<String, Value>, mutant: &BTreeMap<String, Value>) -> String {
    let text = |v: Option<&Value>| match v {
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => "(absent)".to_string(),
    };
    let mut keys: Vec<&String> = original.keys().chain(mutant.keys()).collect();
    keys.sort();
    keys.dedup();
    let changed: Vec<String> = keys
        .into_iter()
        .filter(|k| original.get(*k) != mutant.get(*k))
        .map(|k| format!("{k}={} instead of {}", text(mutant.get(k)), text(original.get(k))))
        .collect();
    let mut out = changed.iter().take(3).cloned().collect::<Vec<_>>().join(", ");
    if changed.len() > 3 {
        out.push_str(", …");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(site: u32, time: &str, state: &[(&str, Value)]) -> Step {
        Step { site, time: Some(time.to_string()), state: state.iter().map(|(k, v)| (k.to_string(), v.clone())).collect() }
    }

    fn observation(threads: &[(&str, Vec<Step>)]) -> Observation {
        Observation {
            status: Status::Exited(0),
            stdout: Compared::whole(&Output::default()),
            stderr: Compared::whole(&Output::default()),
            outputs: BTreeMap::new(),
            threads: threads.iter().map(|(t, s)| (t.to_string(), s.clone())).collect(),
            deadlock: false,
            livelock: false,
            livelock_thread: None,
            livelock_site: None,
            pending: Vec::new(),
            lost_notifications: Vec::new(),
        }
    }

    #[test]
    fn the_first_step_difference_names_the_member_that_changed() {
        let label = |s: u32| format!("site {s}");
        let a = observation(&[("top.p.b", vec![step(3, "0 s", &[("top.p.count", Value::from(1)), ("top.p.phase", Value::from("BUSY"))])])]);
        let b = observation(&[("top.p.b", vec![step(3, "0 s", &[("top.p.count", Value::from(2)), ("top.p.phase", Value::from("BUSY"))])])]);
        assert_eq!(a.first_step_difference(&b, &label).unwrap(), "top.p.b at site 3 sees top.p.count=2 instead of 1");
        assert_eq!(a.first_step_difference(&a, &label), None);
        let late = observation(&[("top.p.b", vec![step(3, "5 ns", &[("top.p.count", Value::from(1)), ("top.p.phase", Value::from("BUSY"))])])]);
        assert_eq!(a.first_step_difference(&late, &label).unwrap(), "top.p.b reaches site 3 at 5 ns instead of 0 s");
        let none = observation(&[]);
        assert_eq!(a.first_step_difference(&none, &label).unwrap(), "top.p.b stops after 0 events instead of reaching site 3");
    }
}
