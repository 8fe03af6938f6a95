//! Every schedule strategy a user can name, in one table: its name (and the older
//! spellings still accepted), which commands take it, how their settings build it, and
//! the line `--help` shows for it. `run`'s and `explore`'s `--strategy`, syncmut.toml's
//! `strategy =`, the help and the error messages all read `STRATEGIES`, so a new
//! strategy is a row here plus its implementation ([`Strategy`] and, when it needs the
//! scheduler's help, a line of the runtime's `syncmut_schedules.def`).

use crate::explore::PCT_MAX_CHOSEN_DEPTH;
use crate::schedules::{Por, Schedules, Strategy, UNBOUNDED};

/// The command a strategy is named for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    /// `run`: schedules per (mutant, test), verdicts by kill fractions.
    Run,
    /// `explore`: one search of the original's schedules for a bug.
    Explore,
}

/// The settings a strategy is built from: the flags, else syncmut.toml (`run`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Settings {
    /// `--schedules`: the run budget.
    pub schedules: Option<usize>,
    /// `--preemptions`: dfs's preemption bound.
    pub preemptions: Option<u32>,
    /// `--depth`: pct's bug depth.
    pub depth: Option<u32>,
    /// `--por`: dfs's partial-order reduction.
    pub por: Option<Por>,
    /// `run --native N`.
    pub native: Option<usize>,
}

/// What `run` does per (mutant, test): its controlled schedules, then `native` runs
/// with real threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunPlan {
    /// The controlled schedules per (mutant, test).
    pub schedules: Schedules,
    /// Runs with real threads per (mutant, test), after the controlled ones.
    pub native: usize,
}

/// One strategy.
#[derive(Debug)]
pub struct Entry {
    /// The name `--strategy` and `strategy =` take, and `--help` lists.
    pub name: &'static str,
    /// Older spellings, still accepted so that existing syncmut.toml files and scripts
    /// keep working; `--help` leaves them out.
    pub aliases: &'static [&'static str],
    /// What it runs, in a line (`--help`'s possible values).
    pub help: &'static str,
    /// How `run` builds it from its settings; `None`: `run` does not take it.
    pub(crate) run: Option<fn(&Settings) -> RunPlan>,
    /// How `explore` builds it; `None`: `explore` does not take it. The budget is
    /// explore's own (`--schedules`, else [`EXPLORE_SCHEDULES`]).
    pub(crate) explore: Option<fn(&Settings) -> Strategy>,
}

/// `run`'s strategy when none is named and `schedules` is not given either.
pub const RUN_DEFAULT: &str = "alternating";
/// `explore`'s strategy when none is named.
pub const EXPLORE_DEFAULT: &str = "phased";
/// `run`'s budget of random and pct without `schedules`.
pub const RUN_SAMPLES: usize = 100;
/// `run`'s dfs budget without `schedules`.
pub const RUN_DFS_RUNS: usize = 1000;
/// Runs with real threads of `run --strategy native` without `schedules` or `--native`.
pub const NATIVE_RUNS: usize = 3;
/// Runs with real threads each survivor of the controlled schedules gets per test in
/// `run` without `--native` (BENCHMARKS.md, "Native confirmation").
pub const RUN_NATIVE: usize = 5;
/// pct's bug depth in `run` without `depth`; beside the standard budget it is part of.
pub use crate::schedules::RUN_PCT_DEPTH;
/// `explore`'s livelock bound without `--max-steps`: scheduling points in one run.
pub const EXPLORE_MAX_STEPS: u64 = 1_000_000;
/// `explore`'s thread bound without `--threads`: threads one run may create (main not
/// counted). Enough for the benchmarks' fixed thread arrays (up to 50 workers and a
/// watcher), small enough that a run of a program creating threads forever ends in
/// milliseconds (a thread costs the runtime a slot and a parked pthread).
pub const EXPLORE_THREAD_BOUND: u32 = 64;
/// dfs's preemption bound without `preemptions`, in both commands.
pub const DFS_PREEMPTIONS: u32 = 2;
/// `run`'s dfs reduction without `--por`: none, so that every schedule is searched
/// (partial-order reduction's independence is not the lab's; see `src/config.rs`).
pub const RUN_POR: Por = Por::None;
/// `explore`'s reduction without `--por`.
pub const EXPLORE_POR: Por = Por::Dpor;
/// `explore`'s run budget without `--schedules`.
pub const EXPLORE_SCHEDULES: usize = 1000;

/// `schedules` (at least 1), else `default`.
fn budget(s: &Settings, default: usize) -> usize {
    s.schedules.unwrap_or(default).max(1)
}

/// A run plan of controlled schedules, then `--native N` runs with real threads
/// ([`RUN_NATIVE`] unless given).
fn controlled(s: &Settings, strategy: Strategy, budget: usize) -> RunPlan {
    RunPlan {
        schedules: Schedules { strategy, budget },
        native: s.native.unwrap_or(RUN_NATIVE),
    }
}

fn depth(s: &Settings) -> u32 {
    s.depth.unwrap_or(RUN_PCT_DEPTH)
}

/// The strategies, in the order `--help` lists them (each command's default first).
pub(crate) const STRATEGIES: &[Entry] = &[
    Entry {
        name: "alternating",
        aliases: &["mixed"],
        help: "the `default` schedule, then pct and random alternately, stopping at the first kill",
        run: Some(|s| {
            let budget = budget(s, Schedules::STANDARD.budget);
            controlled(s, Strategy::Alternating { depth: depth(s) }, budget)
        }),
        explore: None,
    },
    Entry {
        name: "phased",
        aliases: &["mix"],
        help: "one budget in phases: default, round-robin, then holdback, pct and random in turn, then dfs with deepening preemption bounds",
        run: None,
        explore: Some(|s| Strategy::Phased {
            deepest: s.preemptions.unwrap_or(UNBOUNDED),
            por: s.por.unwrap_or(EXPLORE_POR),
        }),
    },
    Entry {
        name: "default",
        aliases: &[],
        help: "the one deterministic `default` schedule (the cheapest)",
        run: Some(|s| controlled(s, Strategy::Default, 1)),
        explore: None,
    },
    Entry {
        name: "random",
        aliases: &[],
        help: "seeded random walks, seeds 1…N",
        run: Some(|s| controlled(s, Strategy::Random, budget(s, RUN_SAMPLES))),
        explore: Some(|_| Strategy::Random),
    },
    Entry {
        name: "pct",
        aliases: &[],
        help: "random priorities with depth-1 change points (--depth)",
        run: Some(|s| controlled(s, Strategy::Pct { depth: depth(s) }, budget(s, RUN_SAMPLES))),
        // A placeholder depth when explore chooses it from the program.
        explore: Some(|s| Strategy::Pct {
            depth: s.depth.unwrap_or(PCT_MAX_CHOSEN_DEPTH),
        }),
    },
    Entry {
        name: "dfs",
        aliases: &[],
        help: "depth-first over the scheduling choices, with a preemption bound (--preemptions); \"exhaustive\" when it covers the bounded space",
        run: Some(|s| {
            let dfs = Strategy::Dfs {
                preemptions: s.preemptions.unwrap_or(DFS_PREEMPTIONS),
                por: s.por.unwrap_or(RUN_POR),
            };
            controlled(s, dfs, budget(s, RUN_DFS_RUNS))
        }),
        explore: Some(|s| Strategy::Dfs {
            preemptions: s.preemptions.unwrap_or(DFS_PREEMPTIONS),
            por: s.por.unwrap_or(EXPLORE_POR),
        }),
    },
    Entry {
        name: "rr",
        aliases: &[],
        help: "round-robin, every small quantum in every phase",
        run: None,
        explore: Some(|_| Strategy::RoundRobin),
    },
    Entry {
        name: "holdback",
        aliases: &[],
        help: "random, threads waiting while their creator can run until a seeded step",
        run: None,
        explore: Some(|_| Strategy::Holdback),
    },
    Entry {
        name: "native",
        aliases: &[],
        help: "the `default` schedule plus N runs with real threads (--schedules)",
        run: Some(|s| RunPlan {
            schedules: Schedules::DEFAULT,
            native: s.native.or(s.schedules).unwrap_or(NATIVE_RUNS),
        }),
        explore: None,
    },
];

impl Entry {
    /// Whether `command` takes this strategy.
    pub(crate) fn takes(&self, command: Command) -> bool {
        match command {
            Command::Run => self.run.is_some(),
            Command::Explore => self.explore.is_some(),
        }
    }
}

impl Command {
    /// The strategies this command takes, in table order.
    pub fn strategies(self) -> impl Iterator<Item = &'static Entry> {
        STRATEGIES.iter().filter(move |e| e.takes(self))
    }

    /// The names this command takes, as typed (aliases left out).
    pub(crate) fn names(self) -> Vec<&'static str> {
        self.strategies().map(|e| e.name).collect()
    }

    /// The strategy `name` (or an alias) names, if this command takes it.
    pub(crate) fn find(self, name: &str) -> Result<&'static Entry, String> {
        let word = match self {
            Command::Run => "run",
            Command::Explore => "explore",
        };
        let takes = || self.names().join(", ");
        match STRATEGIES
            .iter()
            .find(|e| e.name == name || e.aliases.contains(&name))
        {
            Some(e) if e.takes(self) => Ok(e),
            Some(e) => Err(format!(
                "{word}: strategy {:?} is not one of {word}'s; {word} takes {}",
                e.name,
                takes()
            )),
            None => Err(format!(
                "{word}: strategy must be one of {}, not {name:?}",
                takes()
            )),
        }
    }

    /// The schedules `run` explores: the strategy named (by a flag or syncmut.toml), else
    /// `schedules` alone (1: the one default schedule, N: N random ones), else
    /// [`RUN_DEFAULT`].
    pub fn run_plan(name: Option<&str>, s: &Settings) -> Result<RunPlan, String> {
        let name = match (name, s.schedules) {
            (Some(name), _) => name,
            (None, None) => RUN_DEFAULT,
            (None, Some(n)) if n <= 1 => "default",
            (None, Some(_)) => "random",
        };
        let build = Command::Run.find(name)?.run.expect("run takes it");
        Ok(build(s))
    }

    /// The strategy `explore` searches with.
    pub fn explore_strategy(name: &str, s: &Settings) -> Result<Strategy, String> {
        let build = Command::Explore
            .find(name)?
            .explore
            .expect("explore takes it");
        Ok(build(s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_aliases_are_unique_and_every_strategy_has_a_command() {
        let mut seen = std::collections::BTreeSet::new();
        for e in STRATEGIES {
            assert!(e.run.is_some() || e.explore.is_some(), "{}", e.name);
            for name in std::iter::once(&e.name).chain(e.aliases) {
                assert!(seen.insert(*name), "{name} names two strategies");
            }
        }
        for (command, default) in [
            (Command::Run, RUN_DEFAULT),
            (Command::Explore, EXPLORE_DEFAULT),
        ] {
            assert_eq!(command.names()[0], default, "the default is listed first");
        }
    }

    #[test]
    fn old_spellings_build_what_the_new_names_build() {
        let s = Settings {
            schedules: Some(5),
            ..Settings::default()
        };
        assert_eq!(
            Command::run_plan(Some("mixed"), &s),
            Command::run_plan(Some("alternating"), &s)
        );
        assert_eq!(
            Command::explore_strategy("mix", &s),
            Command::explore_strategy("phased", &s)
        );
        assert_eq!(
            Command::run_plan(None, &Settings::default()).unwrap(),
            RunPlan {
                schedules: Schedules::STANDARD,
                native: RUN_NATIVE
            }
        );
    }

    #[test]
    fn each_command_refuses_the_other_commands_strategies() {
        let refused = Command::Run.find("mix").unwrap_err();
        assert!(
            refused.contains("\"phased\" is not one of run's"),
            "{refused}"
        );
        let refused = Command::Explore.find("native").unwrap_err();
        assert!(
            refused.contains("explore takes phased, random"),
            "{refused}"
        );
        let unknown = Command::Run.find("bfs").unwrap_err();
        assert!(
            unknown.contains("strategy must be one of alternating, default"),
            "{unknown}"
        );
    }
}
