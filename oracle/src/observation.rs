//! What a user could observe of one execution, the unit the oracle compares.
//!
//! Per thread/process, the ordered synchronization events (site and simulation time)
//! other than those of the mutated sites themselves: a mutant is not "killed" merely
//! because the call it removed no longer shows up. Plus stdout and stderr (whole, byte
//! for byte), exit status, the test's `outputs` files (size and digest), and the end
//! state (deadlock, livelock, who was left waiting where).

use crate::mask::{EventKey, Mask, EVERY_VALUE};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::hash::{Hash, Hasher};
use std::sync::Arc;
use syncmut_runner::exec::{Execution, Status};
use syncmut_runner::output::Output;
use syncmut_runner::workdir::OutputFile;
use syncmut_runtime::trace::{End, EndKind, Event, Trace};

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
        Compared {
            digest: output.sha256,
            output: output.clone(),
            masked: BTreeSet::new(),
            without_runtime_lines: false,
        }
    }

    /// The design's stderr: the runtime's own lines left out.
    pub fn design_stderr(output: &Output) -> Compared {
        Compared {
            without_runtime_lines: true,
            ..Compared::whole(output)
        }
        .rehashed()
    }

    /// The same stream with `lines` left out as well.
    pub fn masking(&self, lines: &BTreeSet<usize>) -> Compared {
        if lines.is_empty() {
            return self.clone();
        }
        Compared {
            masked: self.masked.union(lines).copied().collect(),
            ..self.clone()
        }
        .rehashed()
    }

    /// Whether line `index` with `bytes` counts.
    pub fn keeps(&self, index: usize, bytes: &[u8]) -> bool {
        !(self.masked.contains(&index)
            || self.without_runtime_lines && bytes.starts_with(RUNTIME_LINE))
    }

    fn rehashed(self) -> Compared {
        // Lines can only be left out of what was kept: past the spool limit the digest of
        // every byte is all there is, and then nothing is left out.
        if !self.output.is_whole() || (self.masked.is_empty() && !self.without_runtime_lines) {
            return Compared {
                digest: self.output.sha256,
                ..self
            };
        }
        let digest = self
            .output
            .digest_of_lines(&|i, bytes| self.keeps(i, bytes));
        Compared { digest, ..self }
    }
}

/// One event as observed: where, when and the values of the design's globals there,
/// without the action taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    pub site: u32,
    pub time: Option<String>,
    pub state: BTreeMap<String, Value>,
}

/// A step as the comparison holds it: its site and a 64-bit digest of its time and
/// state. A trace of a million events costs 16 bytes an event, not the events
/// themselves. Equal steps have equal keys; two different steps share a key only by a
/// digest collision, which could hide a difference (a survivor too many) but never
/// invent one: a kill always rests on keys that differ, hence on steps that differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct StepKey {
    pub site: u32,
    digest: u64,
}

impl Step {
    fn key(&self) -> StepKey {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.time.hash(&mut h);
        for (name, value) in &self.state {
            name.hash(&mut h);
            hash_value(value, &mut h);
        }
        StepKey {
            site: self.site,
            digest: h.finish(),
        }
    }
}

fn hash_value(value: &Value, h: &mut impl Hasher) {
    match value {
        Value::Null => 0u8.hash(h),
        Value::Bool(b) => (1u8, b).hash(h),
        Value::Number(n) => (2u8, n.to_string()).hash(h),
        Value::String(s) => (3u8, s).hash(h),
        Value::Array(items) => {
            4u8.hash(h);
            items.iter().for_each(|v| hash_value(v, h));
        }
        Value::Object(map) => {
            5u8.hash(h);
            for (k, v) in map {
                k.hash(h);
                hash_value(v, h);
            }
        }
    }
}

/// Distinct steps kept in full per observation, to describe a difference in words.
/// Beyond them a difference is still found (by key), and described by its site only.
const DETAILS_KEPT: usize = 20_000;

/// The observable behaviour of one execution.
#[derive(Debug, Clone)]
pub struct Observation {
    pub status: Status,
    pub stdout: Compared,
    pub stderr: Compared,
    /// The test's `outputs` files as the run left them (`None`: missing).
    pub outputs: BTreeMap<String, Option<OutputFile>>,
    /// Steps per thread, in each thread's own order (pthread interleavings across threads
    /// are not part of what a user observes).
    pub threads: BTreeMap<String, Vec<StepKey>>,
    /// The first [`DETAILS_KEPT`] distinct steps by key, for reasons; not compared.
    details: Arc<HashMap<StepKey, Step>>,
    pub deadlock: bool,
    pub livelock: bool,
    /// For a livelock: the thread that spun and where.
    pub livelock_thread: Option<String>,
    pub livelock_site: Option<u32>,
    /// Threads left unfinished, with the site each waited in.
    pub pending: Vec<(String, Option<u32>)>,
    /// The site of every lost notification, in order.
    pub lost_notifications: Vec<u32>,
}

impl PartialEq for Observation {
    fn eq(&self, other: &Self) -> bool {
        self.status == other.status
            && self.stdout == other.stdout
            && self.stderr == other.stderr
            && self.outputs == other.outputs
            && self.threads == other.threads
            && self.deadlock == other.deadlock
            && self.livelock == other.livelock
            && self.livelock_thread == other.livelock_thread
            && self.livelock_site == other.livelock_site
            && self.pending == other.pending
            && self.lost_notifications == other.lost_notifications
    }
}

impl Eq for Observation {}

impl Observation {
    /// The run ended and wrote as `other` did (status, stdout, stderr, the test's output
    /// files), whatever its steps.
    pub fn same_output(&self, other: &Observation) -> bool {
        self.status == other.status
            && self.stdout == other.stdout
            && self.stderr == other.stderr
            && self.outputs == other.outputs
    }

    /// A digest of everything [`PartialEq`] compares (hex SHA-256): two originals that
    /// would judge a mutant alike have the same, so `merge` can tell shards of one build
    /// from shards of two versions of a design whose sites happen to agree.
    pub fn digest(&self) -> String {
        use sha2::{Digest, Sha256};
        let mut hash = Sha256::new();
        let mut field = |bytes: &[u8]| {
            hash.update((bytes.len() as u64).to_le_bytes());
            hash.update(bytes);
        };
        field(format!("{:?}", self.status).as_bytes());
        field(&self.stdout.digest);
        field(&self.stderr.digest);
        for (name, file) in &self.outputs {
            let file = file.as_ref().map(|f| (f.bytes, &f.sha256));
            field(format!("{name:?} {file:?}").as_bytes());
        }
        for (thread, steps) in &self.threads {
            field(format!("{thread:?} {steps:?}").as_bytes());
        }
        field(
            format!(
                "{} {} {:?} {:?} {:?} {:?}",
                self.deadlock,
                self.livelock,
                self.livelock_thread,
                self.livelock_site,
                self.pending,
                self.lost_notifications
            )
            .as_bytes(),
        );
        hash.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }
}

// The mask's part in recording, here rather than in `mask.rs` so that the mask, which
// the recorder applies, stays a leaf: it knows nothing of steps.
impl Mask {
    /// Leaves out of `step`, the event `key`, what the mask names there.
    pub fn apply_to_step(&self, key: &EventKey, step: &mut Step) {
        if self.times.contains(key) {
            step.time = None;
        }
        if let Some(names) = self.values.get(key) {
            match names.contains(EVERY_VALUE) {
                true => step.state.clear(),
                false => step.state.retain(|k, _| !names.contains(k)),
            }
        }
    }
}

/// Builds an observation from a trace's events one at a time (see
/// `syncmut_runtime::trace::visit`), so the trace is never held whole. The baseline's
/// mask is applied to each event as it comes: a compact step cannot be masked later.
pub struct Recorder<'a> {
    hidden: &'a [u32],
    mask: &'a Mask,
    threads: BTreeMap<String, Vec<StepKey>>,
    /// Per (thread, site), events seen so far: the occurrence a mask names. Counted only
    /// when the mask names events.
    occurrences: HashMap<(String, u32), usize>,
    details: HashMap<StepKey, Step>,
    lost: Vec<u32>,
}

impl<'a> Recorder<'a> {
    /// Events at `hidden` sites (the mutated ones) are left out; what `mask` names is
    /// not compared.
    pub fn new(hidden: &'a [u32], mask: &'a Mask) -> Recorder<'a> {
        Recorder {
            hidden,
            mask,
            threads: BTreeMap::new(),
            occurrences: HashMap::new(),
            details: HashMap::new(),
            lost: Vec::new(),
        }
    }

    pub fn event(&mut self, event: Event) {
        if self.hidden.contains(&event.site) {
            return;
        }
        if event.lost {
            self.lost.push(event.site);
        }
        let mut step = Step {
            site: event.site,
            time: event.time,
            state: event.state,
        };
        if self.mask.names_events() {
            let count = self
                .occurrences
                .entry((event.thread.clone(), event.site))
                .or_default();
            let key: EventKey = (event.thread.clone(), event.site, *count);
            *count += 1;
            self.mask.apply_to_step(&key, &mut step);
        }
        let key = step.key();
        if self.details.len() < DETAILS_KEPT {
            self.details.entry(key).or_insert(step);
        }
        match self.threads.get_mut(&event.thread) {
            Some(steps) => steps.push(key),
            None => {
                self.threads.insert(event.thread, vec![key]);
            }
        }
    }

    /// The observation of `execution`, whose trace ended with `end`.
    pub fn finish(self, execution: &Execution, end: Option<&End>) -> Observation {
        let end = end.cloned().unwrap_or_default();
        let mut pending: Vec<(String, Option<u32>)> = end
            .pending
            .iter()
            .map(|p| (p.thread.clone(), p.site))
            .collect();
        pending.sort();
        Observation {
            status: execution.status,
            stdout: Compared::whole(&execution.stdout).masking(&self.mask.stdout_lines),
            stderr: Compared::design_stderr(&execution.stderr).masking(&self.mask.stderr_lines),
            outputs: execution.outputs.clone(),
            threads: self.threads,
            details: Arc::new(self.details),
            deadlock: end.deadlock || end.kind == EndKind::Deadlock,
            livelock: end.kind == EndKind::Livelock,
            livelock_thread: end.thread.clone(),
            livelock_site: end.site,
            pending,
            lost_notifications: self.lost,
        }
    }
}

impl Observation {
    /// Projects an execution and a trace held in memory, leaving out events at `hidden`
    /// sites and what `mask` names.
    pub fn new(execution: &Execution, trace: &Trace, hidden: &[u32], mask: &Mask) -> Observation {
        let mut recorder = Recorder::new(hidden, mask);
        for event in &trace.events {
            recorder.event(event.clone());
        }
        recorder.finish(execution, trace.end.as_ref())
    }

    /// The same observation without the steps' details: compared the same, described by
    /// site only.
    pub fn without_details(self) -> Observation {
        Observation {
            details: Arc::default(),
            ..self
        }
    }

    /// How many steps it holds, over all threads.
    pub fn step_count(&self) -> usize {
        self.threads.values().map(Vec::len).sum()
    }

    /// The same observation without the events at `hidden` sites: what a mutant of those
    /// sites is compared with.
    pub fn hiding(&self, hidden: &[u32]) -> Observation {
        let mut threads = BTreeMap::new();
        for (thread, steps) in &self.threads {
            let kept: Vec<StepKey> = steps
                .iter()
                .filter(|k| !hidden.contains(&k.site))
                .copied()
                .collect();
            if !kept.is_empty() {
                threads.insert(thread.clone(), kept);
            }
        }
        Observation {
            threads,
            lost_notifications: self
                .lost_notifications
                .iter()
                .filter(|s| !hidden.contains(s))
                .copied()
                .collect(),
            ..self.clone()
        }
    }

    /// The same observation with each step reduced to its site: where two runs went,
    /// whatever they saw there.
    pub fn sites_only(&self) -> Observation {
        let threads = self
            .threads
            .iter()
            .map(|(t, steps)| {
                (
                    t.clone(),
                    steps
                        .iter()
                        .map(|k| StepKey {
                            site: k.site,
                            digest: 0,
                        })
                        .collect(),
                )
            })
            .collect();
        Observation {
            threads,
            details: Arc::default(),
            ..self.clone()
        }
    }

    /// The same observation with each thread's last step reduced to its site. A join's
    /// snapshot holds what its thread loads until its next event (docs/verdicts.md,
    /// "What a snapshot holds"), so in a trace cut at some point a thread's last step may
    /// show loads made after the cut.
    pub fn last_steps_by_site(mut self) -> Observation {
        for steps in self.threads.values_mut() {
            if let Some(last) = steps.last_mut() {
                last.digest = 0;
            }
        }
        self
    }

    /// The step behind `key` in full, if it is among those kept.
    pub fn step(&self, key: &StepKey) -> Option<&Step> {
        self.details.get(key)
    }

    /// Where the per-thread steps of `mutant` first leave this observation's: the thread
    /// and the index of the step in that thread's (observed) steps.
    pub fn first_step_index(&self, mutant: &Observation) -> Option<(String, usize)> {
        let mut threads: Vec<&String> = self.threads.keys().chain(mutant.threads.keys()).collect();
        threads.sort();
        threads.dedup();
        let empty = Vec::new();
        threads.into_iter().find_map(|thread| {
            let (a, b) = (
                self.threads.get(thread).unwrap_or(&empty),
                mutant.threads.get(thread).unwrap_or(&empty),
            );
            let i = (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i))?;
            Some((thread.clone(), i))
        })
    }

    /// Where the per-thread steps of `mutant` first leave this observation's, in words
    /// (`top.p.b at wait(e) @ x.cpp:37 sees top.p.count=2 instead of 1`); `None` when
    /// every thread's steps are equal. `label` names a site.
    pub fn first_step_difference(
        &self,
        mutant: &Observation,
        label: &dyn Fn(u32) -> String,
    ) -> Option<String> {
        let (thread, i) = self.first_step_index(mutant)?;
        let (a, b) = (
            self.threads.get(&thread).and_then(|s| s.get(i)),
            mutant.threads.get(&thread).and_then(|s| s.get(i)),
        );
        Some(match (a, b) {
            (Some(x), None) => format!("{thread} stops after {i} events instead of reaching {}", label(x.site)),
            (None, Some(y)) => format!("{thread} goes on to {} (event {} of {thread})", label(y.site), i + 1),
            (Some(x), Some(y)) if x.site != y.site => format!("{thread} reaches {} instead of {}", label(y.site), label(x.site)),
            (Some(x), Some(y)) => match (self.step(x), mutant.step(y)) {
                (Some(x), Some(y)) if x.time != y.time => format!(
                    "{thread} reaches {} at {} instead of {}",
                    label(x.site),
                    y.time.as_deref().unwrap_or("?"),
                    x.time.as_deref().unwrap_or("?")
                ),
                (Some(x), Some(y)) => format!("{thread} at {} sees {}", label(x.site), state_change(&x.state, &y.state)),
                _ => format!(
                    "{thread} at {} (event {} of {thread}) differs in time or state (not kept in memory: more than {DETAILS_KEPT} distinct events; see the trace diff)",
                    label(x.site),
                    i + 1
                ),
            },
            (None, None) => unreachable!("index below the longer length"),
        })
    }

    /// Sites reached in this execution (all of them when nothing was hidden).
    pub fn reached(&self) -> Vec<u32> {
        let mut sites: Vec<u32> = self.threads.values().flatten().map(|k| k.site).collect();
        sites.sort_unstable();
        sites.dedup();
        sites
    }
}
/// The values that differ between two snapshots: `a=2 instead of 1, b=null instead of
/// non-null` (at most three, then `…`).
pub fn state_change(
    original: &BTreeMap<String, Value>,
    mutant: &BTreeMap<String, Value>,
) -> String {
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
        .map(|k| {
            format!(
                "{k}={} instead of {}",
                text(mutant.get(k)),
                text(original.get(k))
            )
        })
        .collect();
    let mut out = changed
        .iter()
        .take(3)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if changed.len() > 3 {
        out.push_str(", …");
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn step(site: u32, time: &str, state: &[(&str, Value)]) -> Step {
        Step {
            site,
            time: Some(time.to_string()),
            state: state
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        }
    }

    /// An observation of steps given per thread, recorded as a trace's would be.
    pub(crate) fn observation(threads: &[(&str, Vec<Step>)]) -> Observation {
        observation_of("", threads, &Mask::default())
    }

    /// The same with `stdout` and `mask`.
    pub(crate) fn observation_of(
        stdout: &str,
        threads: &[(&str, Vec<Step>)],
        mask: &Mask,
    ) -> Observation {
        let mut recorder = Recorder::new(&[], mask);
        for (thread, steps) in threads {
            for s in steps {
                let event = Event {
                    seq: 0,
                    site: s.site,
                    action: "original".into(),
                    thread: thread.to_string(),
                    time: s.time.clone(),
                    delta: None,
                    lost: false,
                    state: s.state.clone(),
                };
                recorder.event(event);
            }
        }
        let execution = Execution {
            status: Status::Exited(0),
            stdout: Output::from_bytes(stdout.as_bytes()),
            stderr: Output::default(),
            elapsed: std::time::Duration::ZERO,
            outputs: BTreeMap::new(),
        };
        recorder.finish(&execution, None)
    }

    #[test]
    fn the_first_step_difference_names_the_member_that_changed() {
        let label = |s: u32| format!("site {s}");
        let a = observation(&[(
            "top.p.b",
            vec![step(
                3,
                "0 s",
                &[
                    ("top.p.count", Value::from(1)),
                    ("top.p.phase", Value::from("BUSY")),
                ],
            )],
        )]);
        let b = observation(&[(
            "top.p.b",
            vec![step(
                3,
                "0 s",
                &[
                    ("top.p.count", Value::from(2)),
                    ("top.p.phase", Value::from("BUSY")),
                ],
            )],
        )]);
        assert_eq!(
            a.first_step_difference(&b, &label).unwrap(),
            "top.p.b at site 3 sees top.p.count=2 instead of 1"
        );
        assert_eq!(a.first_step_difference(&a, &label), None);
        let late = observation(&[(
            "top.p.b",
            vec![step(
                3,
                "5 ns",
                &[
                    ("top.p.count", Value::from(1)),
                    ("top.p.phase", Value::from("BUSY")),
                ],
            )],
        )]);
        assert_eq!(
            a.first_step_difference(&late, &label).unwrap(),
            "top.p.b reaches site 3 at 5 ns instead of 0 s"
        );
        let none = observation(&[]);
        assert_eq!(
            a.first_step_difference(&none, &label).unwrap(),
            "top.p.b stops after 0 events instead of reaching site 3"
        );
    }
}
