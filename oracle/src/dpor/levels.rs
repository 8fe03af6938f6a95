//! Every schedule within a preemption bound, with no reduction, taken level by level (all
//! the schedules with no preemption first, then those with one, and so on) and in the
//! order found within a level. The schedules still to run are all at hand, each known by
//! its prefix, so their count is a lower bound on the runs left: a search that cannot
//! cover its bound within its budget finds out after a few runs. A depth-first search
//! holds only the current path's options and finds out near its end. Both cover the
//! same schedules.

use std::collections::VecDeque;
use syncmut_runtime::schedule::Schedule;

/// A schedule still to run: the first `at` choices of the `run`-th run, then `option`.
struct Pending {
    run: usize,
    at: usize,
    option: u32,
}

/// The schedules run and still to run, by preemption level.
pub struct Levels {
    bound: u32,
    /// Each run's choices, for the prefixes of the schedules found in it.
    runs: Vec<Vec<u32>>,
    /// Per level (preemptions of the prefix), the schedules still to run; as many
    /// levels as found so far (an unbounded search has no fixed number).
    pending: Vec<VecDeque<Pending>>,
}

impl Levels {
    pub fn new(bound: u32) -> Levels {
        Levels {
            bound,
            runs: Vec::new(),
            pending: Vec::new(),
        }
    }

    /// Adds the run of the last prefix (of `prefix_len` choices): each other option at
    /// each of its later choice points within the bound is a schedule to run.
    pub fn extend(&mut self, schedule: &Schedule, prefix_len: usize) {
        let run = self.runs.len();
        let mut preemptions = 0u32;
        for (at, choice) in schedule.choices.iter().enumerate() {
            if at >= prefix_len {
                for &(option, _) in &choice.options {
                    let level = preemptions + u32::from(choice.preempts(option));
                    if option != choice.chosen && level <= self.bound {
                        let level = level as usize;
                        if self.pending.len() <= level {
                            self.pending.resize_with(level + 1, VecDeque::new);
                        }
                        self.pending[level].push_back(Pending { run, at, option });
                    }
                }
            }
            preemptions += u32::from(choice.preempts(choice.chosen));
        }
        self.runs
            .push(schedule.choices.iter().map(|c| c.chosen).collect());
    }

    /// How many schedules are still to run (each at least one run).
    pub fn untried(&self) -> usize {
        self.pending.iter().map(VecDeque::len).sum()
    }

    /// The next prefix to run, from the lowest level; `None`: every schedule within the
    /// bound was run.
    pub fn next_prefix(&mut self) -> Option<Vec<u32>> {
        let next = self.pending.iter_mut().find_map(VecDeque::pop_front)?;
        let mut prefix = self.runs[next.run][..next.at].to_vec();
        prefix.push(next.option);
        Some(prefix)
    }
}
