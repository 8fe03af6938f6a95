//! Nondeterminism the baseline found in the original, masked out of every comparison.
//!
//! The baseline runs the original twice under the same schedule but in two different
//! virtual worlds (`SYNCMUT_ENTROPY`: another clock start and random stream). What still
//! differs between the two runs depends on the clock, on random bytes, or on something
//! else the design does not control (addresses, pids): a mutant must not be killed by it.
//! Such observations are masked: output lines by number, and per trace event (a thread's
//! k-th event at a site) its simulation time or the values of some globals. What cannot be
//! masked (a different status, other lines or events, another end state) makes the test
//! unusable, and the reason says what differed.
//!
//! This file is the mask itself; `nondeterminism.rs` finds it from two runs, and
//! `observation.rs` applies it while recording.

use std::collections::{BTreeMap, BTreeSet};

/// One trace event, named so that hiding other sites' events (a mutant's own) does not
/// rename it: the thread, the site and which occurrence of that site in the thread.
pub type EventKey = (String, u32, usize);

/// In [`Mask::values`]: every global's value at that event (the two runs' events were
/// beyond those kept in full, so which value differed is not known).
pub const EVERY_VALUE: &str = "*";

/// What the baseline masks on a test.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Mask {
    /// stdout line numbers, from 0.
    pub stdout_lines: BTreeSet<usize>,
    /// stderr line numbers, from 0.
    pub stderr_lines: BTreeSet<usize>,
    /// Events whose simulation time is masked.
    pub times: BTreeSet<EventKey>,
    /// Events and the globals whose values are masked there.
    pub values: BTreeMap<EventKey, BTreeSet<String>>,
}

impl Mask {
    pub fn is_empty(&self) -> bool {
        self.stdout_lines.is_empty()
            && self.stderr_lines.is_empty()
            && self.times.is_empty()
            && self.values.is_empty()
    }

    /// Both masks together (several repeats).
    pub fn union(mut self, other: Mask) -> Mask {
        self.stdout_lines.extend(other.stdout_lines);
        self.stderr_lines.extend(other.stderr_lines);
        self.times.extend(other.times);
        for (key, names) in other.values {
            self.values.entry(key).or_default().extend(names);
        }
        self
    }

    /// Whether the mask names trace events (then a recorder counts occurrences).
    pub fn names_events(&self) -> bool {
        !self.times.is_empty() || !self.values.is_empty()
    }

    /// The masked observations in words, for baseline.json and the baseline table:
    /// `stdout lines 1, 3`, `time of p.reader at wait(e) @ x.cpp:18`, `d.value at …`.
    pub fn describe(&self, label: &dyn Fn(u32) -> String) -> Vec<String> {
        let mut out = Vec::new();
        for (stream, lines) in [
            ("stdout", &self.stdout_lines),
            ("stderr", &self.stderr_lines),
        ] {
            if !lines.is_empty() {
                let numbers: Vec<String> = lines.iter().map(|i| (i + 1).to_string()).collect();
                out.push(format!(
                    "{stream} line{} {}",
                    if lines.len() == 1 { "" } else { "s" },
                    numbers.join(", ")
                ));
            }
        }
        let occurrence = |n: usize| {
            if n == 0 {
                String::new()
            } else {
                format!(" (occurrence {})", n + 1)
            }
        };
        for (thread, site, n) in &self.times {
            out.push(format!(
                "time of {thread} at {}{}",
                label(*site),
                occurrence(*n)
            ));
        }
        for ((thread, site, n), keys) in &self.values {
            let keys: Vec<&str> = keys
                .iter()
                .map(|k| {
                    if k == EVERY_VALUE {
                        "every global"
                    } else {
                        k.as_str()
                    }
                })
                .collect();
            out.push(format!(
                "{} seen by {thread} at {}{}",
                keys.join(", "),
                label(*site),
                occurrence(*n)
            ));
        }
        out
    }
}
