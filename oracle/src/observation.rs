//! What a user could observe of one execution, the unit the oracle compares.
//!
//! Per thread/process, the ordered synchronization events (site and simulation time)
//! other than those of the mutated sites themselves: a mutant is not "killed" merely
//! because the call it removed no longer shows up. Plus stdout, exit status, and the
//! end state (deadlock, livelock, who was left waiting where).

use crate::exec::{Execution, Status};
use crate::trace::Trace;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Observation {
    pub status: Status,
    pub stdout: String,
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
            stdout: execution.stdout.clone(),
            threads,
            deadlock: end.deadlock || end.kind == "deadlock",
            livelock: end.kind == "livelock",
            livelock_thread: end.thread.clone(),
            livelock_site: end.site,
            pending,
            lost_notifications: trace.events.iter().filter(|e| e.lost && !hidden.contains(&e.site)).map(|e| e.site).collect(),
        }
    }

    /// Sites reached in this execution.
    pub fn reached(trace: &Trace) -> Vec<u32> {
        let mut sites: Vec<u32> = trace.events.iter().map(|e| e.site).collect();
        sites.sort_unstable();
        sites.dedup();
        sites
    }
}
