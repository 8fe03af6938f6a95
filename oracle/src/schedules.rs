//! How the schedules of a pthread run are chosen: one strategy type for `run` (the lab)
//! and `explore`, parsed from one name, and the `SYNCMUT_SCHEDULE` values of the seeded
//! strategies. The runs themselves go through `explore::search`.

use syncmut_runtime::schedule;

/// A schedule strategy. SystemC designs always run once: the kernel's process order is
/// deterministic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// The one deterministic `default` schedule.
    Default,
    /// `random:1` … `random:N`.
    Random,
    /// `pct:<k>:<depth>:<steps>` for k = 1, 2, …, `steps` the original's run length.
    Pct { depth: u32 },
    /// Depth-first search over the choice points, at most `preemptions` preemptions per
    /// schedule; `sleep_sets` skips schedules that only reorder independent steps.
    Dfs { preemptions: u32, sleep_sets: bool },
}

impl Strategy {
    /// The `SYNCMUT_SCHEDULE` value of the k-th (from 1) schedule of a seeded strategy
    /// (random, pct) for a run of about `steps` scheduling points; `None` for the others.
    pub fn seeded_value(&self, k: usize, steps: u64) -> Option<String> {
        match *self {
            Strategy::Random => Some(format!("random:{k}")),
            Strategy::Pct { depth } => Some(schedule::pct_value(k, depth, steps)),
            Strategy::Default | Strategy::Dfs { .. } => None,
        }
    }
}

impl std::fmt::Display for Strategy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Strategy::Default => write!(f, "default"),
            Strategy::Random => write!(f, "random"),
            Strategy::Pct { depth } => write!(f, "pct (depth {depth})"),
            Strategy::Dfs { preemptions, sleep_sets } => {
                write!(f, "dfs (preemption bound {preemptions}{})", if *sleep_sets { ", sleep sets" } else { "" })
            }
        }
    }
}

/// A strategy as users name it (`--strategy`, `strategy =` in syncmut.toml); its
/// parameters come from their own settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StrategyName {
    Random,
    Pct,
    Dfs,
}

impl StrategyName {
    /// Every name, as typed.
    pub const NAMES: [&'static str; 3] = ["random", "pct", "dfs"];
}

impl std::str::FromStr for StrategyName {
    type Err = String;

    fn from_str(name: &str) -> Result<StrategyName, String> {
        match name {
            "random" => Ok(StrategyName::Random),
            "pct" => Ok(StrategyName::Pct),
            "dfs" => Ok(StrategyName::Dfs),
            other => Err(format!("strategy must be \"random\", \"pct\" or \"dfs\", not {other:?}")),
        }
    }
}

/// A strategy and how many schedules it may run per (mutant, test) or exploration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Schedules {
    pub strategy: Strategy,
    /// Runs at most.
    pub budget: usize,
}

impl Schedules {
    /// The one `default` schedule.
    pub const DEFAULT: Schedules = Schedules { strategy: Strategy::Default, budget: 1 };
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
    fn names_parse_and_seeded_values_are_self_contained() {
        for name in StrategyName::NAMES {
            assert!(name.parse::<StrategyName>().is_ok(), "{name}");
        }
        assert!("bfs".parse::<StrategyName>().unwrap_err().contains("strategy must be"));
        assert_eq!(Strategy::Random.seeded_value(3, 10).as_deref(), Some("random:3"));
        assert_eq!(Strategy::Pct { depth: 2 }.seeded_value(1, 40).as_deref(), Some("pct:1:2:40"));
        assert_eq!(Strategy::Dfs { preemptions: 1, sleep_sets: true }.seeded_value(1, 40), None);
    }
}
