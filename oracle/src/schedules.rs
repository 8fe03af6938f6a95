//! How the schedules of a pthread run are chosen: one strategy type for `run` (the lab)
//! and `explore` (the names users give them, and how settings build them, are
//! [`crate::strategies`]), and the `SYNCMUT_SCHEDULE` values of the seeded strategies.
//! The runs themselves go through `explore::search`.

use syncmut_runtime::schedule;

pub use crate::dpor::{Por, UNBOUNDED};

/// What an exhausted dfs search covered, in words: `every schedule with at most 2
/// preemptions, up to the order of independent steps`.
pub(crate) fn dfs_space(preemptions: u32, por: Por) -> String {
    let bound = match preemptions {
        UNBOUNDED => String::new(),
        k => format!(" with at most {k} preemptions"),
    };
    format!("every schedule{bound}{}", por.equivalence())
}

/// A schedule strategy. SystemC designs always run once: the kernel's process order is
/// deterministic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// The one deterministic `default` schedule.
    Default,
    /// `run`'s default, `alternating`: the `default` schedule first, then
    /// `pct:<k>:<depth>:<steps>` and `random:<k>` alternately. `default` never preempts
    /// inside a critical section and never lets a waiter miss a signal; pct and random do
    /// both.
    Alternating {
        /// pct's bug depth.
        depth: u32,
    },
    /// `random:1` … `random:N`.
    Random,
    /// `pct:<k>:<depth>:<steps>` for k = 1, 2, …, `steps` the original's run length.
    Pct {
        /// The bug depth.
        depth: u32,
    },
    /// Depth-first search over the choice points, at most `preemptions` preemptions per
    /// schedule ([`UNBOUNDED`]: no bound); `por` skips schedules that only reorder
    /// independent steps (`dpor`).
    Dfs {
        /// Preemptions per schedule at most.
        preemptions: u32,
        /// The partial-order reduction.
        por: Por,
    },
    /// Round-robin with a quantum: `rr:<q>:<phase>` for q = 1 … `RR_MAX_QUANTUM`, every
    /// phase 0 … q-1 of each, then each with creators last ([`rr_values`]);
    /// deterministic, then done.
    RoundRobin,
    /// `holdback:<k>:<steps>` for k = 1, 2, …: a random walk in which every thread's
    /// threads wait while it can run, until a seeded release step.
    Holdback,
    /// `explore`'s default, `phased` ([`crate::mix`]): a first `default` run, round-robin,
    /// then holdback, pct and random in turn, then dfs with `por` and iteratively
    /// deepened preemption bounds up to `deepest` ([`UNBOUNDED`]: the bounds of
    /// [`crate::mix::DFS_BOUNDS`], then none).
    Phased {
        /// dfs's deepest preemption bound.
        deepest: u32,
        /// dfs's partial-order reduction.
        por: Por,
    },
}

/// The largest quantum round-robin tries: strict alternation of steps of up to this many
/// scheduling points each (a read-modify-write of shared memory is three).
pub(crate) const RR_MAX_QUANTUM: u64 = 8;

/// Every round-robin schedule, in order: quantum 1 (phase 0), quantum 2 (phases 0, 1), …;
/// then the same with creators last (`rr:<q>:<phase>:creators-last`: a thread that
/// created threads waits while one of them can run, so they alternate to their end
/// before it reads what they did).
pub fn rr_values() -> Vec<String> {
    let plain = (1..=RR_MAX_QUANTUM)
        .flat_map(|q| (0..q).map(move |phase| format!("rr:{q}:{phase}")))
        .collect::<Vec<_>>();
    let creators_last = plain.iter().map(|v| format!("{v}:creators-last"));
    plain.iter().cloned().chain(creators_last).collect()
}

impl Strategy {
    /// The `SYNCMUT_SCHEDULE` value of the k-th (from 1) schedule of a seeded strategy
    /// (random, pct) for a run of about `steps` scheduling points; `None` for the others.
    pub(crate) fn seeded_value(&self, k: usize, steps: u64) -> Option<String> {
        match *self {
            Strategy::Random => Some(format!("random:{k}")),
            Strategy::RoundRobin => rr_values().into_iter().nth(k.checked_sub(1)?),
            Strategy::Holdback => Some(format!("holdback:{k}:{}", steps.max(1))),
            Strategy::Pct { depth } => Some(schedule::pct_value(k, depth, steps)),
            Strategy::Alternating { .. } if k == 1 => Some("default".to_string()),
            Strategy::Alternating { depth } if k.is_multiple_of(2) => {
                Some(schedule::pct_value(k / 2, depth, steps))
            }
            Strategy::Alternating { .. } => Some(format!("random:{}", (k - 1) / 2)),
            Strategy::Default | Strategy::Dfs { .. } | Strategy::Phased { .. } => None,
        }
    }
}

/// How a dfs skips schedules, as the summary says it.
fn por_words(por: Por) -> &'static str {
    match por {
        Por::Dpor => ", partial-order reduction",
        Por::Sleep => ", sleep sets",
        Por::None => "",
    }
}

impl std::fmt::Display for Strategy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Strategy::Default => write!(f, "default"),
            Strategy::Alternating { depth } => write!(f, "default, pct (depth {depth}) and random"),
            Strategy::Random => write!(f, "random"),
            Strategy::Pct { depth } => write!(f, "pct (depth {depth})"),
            Strategy::RoundRobin => {
                write!(f, "round-robin (quanta 1 to {RR_MAX_QUANTUM}, every phase)")
            }
            Strategy::Holdback => write!(f, "holdback"),
            Strategy::Phased { deepest, por } => {
                let bounds = if *deepest == UNBOUNDED {
                    "deepening preemption bounds".to_string()
                } else {
                    format!("preemption bounds deepening to {deepest}")
                };
                write!(
                    f,
                    "phased (default, round-robin, holdback, pct, random, then dfs with {bounds}{})",
                    por_words(*por)
                )
            }
            Strategy::Dfs { preemptions, por } => {
                let reduction = por_words(*por);
                match *preemptions {
                    UNBOUNDED => write!(f, "dfs (no preemption bound{reduction})"),
                    k => write!(f, "dfs (preemption bound {k}{reduction})"),
                }
            }
        }
    }
}

/// A strategy and how many schedules it may run per (mutant, test) or exploration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Schedules {
    /// Which schedules are run.
    pub strategy: Strategy,
    /// Runs at most.
    pub budget: usize,
}

/// pct's bug depth in `run` without `depth` (`explore` chooses it from the program).
pub const RUN_PCT_DEPTH: u32 = 3;

impl Schedules {
    /// The one `default` schedule.
    pub const DEFAULT: Schedules = Schedules {
        strategy: Strategy::Default,
        budget: 1,
    };
    /// `run`'s default for pthread designs: `default`, then pct and random alternately,
    /// 8 schedules in all (BENCHMARKS.md, "Default schedule budget", has the
    /// measurement behind the number).
    pub const STANDARD: Schedules = Schedules {
        strategy: Strategy::Alternating {
            depth: RUN_PCT_DEPTH,
        },
        budget: 8,
    };
}

/// What a list of tried schedule values was, in words: `default, pct×12, random×11`
/// (kinds in order of first use; `native` for real-thread runs).
pub(crate) fn summarise(values: &[String]) -> String {
    let mut kinds: Vec<(&str, usize)> = Vec::new();
    for value in values {
        let kind = value.split(':').next().unwrap_or(value);
        let kind = if kind == "replay" { "dfs" } else { kind };
        match kinds.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, n)) => *n += 1,
            None => kinds.push((kind, 1)),
        }
    }
    kinds
        .iter()
        .map(|(k, n)| {
            if *n == 1 {
                k.to_string()
            } else {
                format!("{k}×{n}")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

impl std::fmt::Display for Schedules {
    /// `random, 20 schedules`: what a run's verdicts were obtained under, as saved in
    /// the run directory and compared by `--resume`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.strategy {
            Strategy::Default => write!(f, "default"),
            strategy => write!(f, "{strategy}, {} schedules", self.budget),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_values_are_self_contained() {
        assert_eq!(
            Strategy::Random.seeded_value(3, 10).as_deref(),
            Some("random:3")
        );
        assert_eq!(
            Strategy::Pct { depth: 2 }.seeded_value(1, 40).as_deref(),
            Some("pct:1:2:40")
        );
        assert_eq!(
            Strategy::Dfs {
                preemptions: 1,
                por: Por::Dpor
            }
            .seeded_value(1, 40),
            None
        );
        let mixed: Vec<String> = (1..=5)
            .map(|k| {
                Strategy::Alternating { depth: 3 }
                    .seeded_value(k, 40)
                    .unwrap()
            })
            .collect();
        assert_eq!(
            mixed,
            [
                "default",
                "pct:1:3:40",
                "random:1",
                "pct:2:3:40",
                "random:2"
            ]
        );
        assert_eq!(
            Strategy::Holdback.seeded_value(2, 40).as_deref(),
            Some("holdback:2:40")
        );
        let rr: Vec<String> = (1..=4)
            .map_while(|k| Strategy::RoundRobin.seeded_value(k, 40))
            .collect();
        assert_eq!(rr, ["rr:1:0", "rr:2:0", "rr:2:1", "rr:3:0"]);
        // Every quantum with every phase, then each with creators last, then no more.
        let pairs = (RR_MAX_QUANTUM * (RR_MAX_QUANTUM + 1) / 2) as usize;
        assert_eq!(
            Strategy::RoundRobin.seeded_value(pairs + 1, 40).as_deref(),
            Some("rr:1:0:creators-last")
        );
        assert!(
            Strategy::RoundRobin.seeded_value(2 * pairs, 40).is_some()
                && Strategy::RoundRobin
                    .seeded_value(2 * pairs + 1, 40)
                    .is_none()
        );
    }

    /// A strategy's values are of kinds the runtime's parser lists, so renaming a kind
    /// there cannot leave a strategy composing values the runtime refuses.
    #[test]
    fn seeded_values_are_of_kinds_the_runtime_parses() {
        let seeded = [
            Strategy::Random,
            Strategy::RoundRobin,
            Strategy::Holdback,
            Strategy::Pct { depth: 2 },
            Strategy::Alternating { depth: 3 },
        ];
        let mut values: Vec<String> = seeded
            .iter()
            .flat_map(|s| (1..=4).map(|k| s.seeded_value(k, 40).expect("seeded")))
            .collect();
        values.extend((0..3).map(|i| crate::mix::MixPlan::seeded_value(i, 2, 50)));
        for value in values {
            assert!(schedule::ScheduleKind::of(&value).is_some(), "{value}");
        }
    }

    #[test]
    fn tried_schedules_are_summarised_by_kind_in_order_of_first_use() {
        let standard: Vec<String> = (1..=Schedules::STANDARD.budget)
            .map(|k| Schedules::STANDARD.strategy.seeded_value(k, 9).unwrap())
            .collect();
        assert_eq!(summarise(&standard), "default, pct×4, random×3");
        assert_eq!(
            summarise(&[
                "default".to_string(),
                "native".to_string(),
                "native".to_string()
            ]),
            "default, native×2"
        );
        assert_eq!(
            summarise(&["dfs:1".to_string(), "dfs:2".to_string()]),
            "dfs×2"
        );
    }
}
