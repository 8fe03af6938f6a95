//! `--strategy` and the flags that set its parameters, as clap shows them: the possible
//! values, their aliases and help lines come from the strategy table
//! ([`syncmut_oracle::strategies`]), and every default the help states from the constant
//! the code builds with, so the help cannot say one default while the code uses another.

use clap::builder::{PossibleValue, PossibleValuesParser};
use syncmut_oracle::explore::{PCT_MAX_CHOSEN_DEPTH, PCT_MISS_TARGET};
use syncmut_oracle::mix::DFS_BOUNDS;
use syncmut_oracle::schedules::Schedules;
use syncmut_oracle::strategies::{self as s, Command};

/// The strategies `command` takes, each with its help line; old spellings are accepted
/// and not listed.
pub fn parser(command: Command) -> PossibleValuesParser {
    PossibleValuesParser::new(command.strategies().map(|e| {
        PossibleValue::new(e.name)
            .aliases(e.aliases.iter().copied())
            .help(e.help)
    }))
}

pub fn run_strategy() -> String {
    format!(
        "How the schedules are chosen (default: {}; `--schedules N` alone: N random schedules, 1: the one default schedule)",
        s::RUN_DEFAULT
    )
}

pub fn run_schedules() -> String {
    format!(
        "pthread designs: explore N schedules per (mutant, test) (default: {} of `{}`); random and pct (default {}), dfs (default {}), native (default {}: runs with real threads)",
        Schedules::STANDARD.budget,
        s::RUN_DEFAULT,
        s::RUN_SAMPLES,
        s::RUN_DFS_RUNS,
        s::NATIVE_RUNS
    )
}

pub fn run_preemptions() -> String {
    format!(
        "dfs: at most this many preemptions per schedule (default {}), or `unbounded`",
        s::DFS_PREEMPTIONS
    )
}

pub fn run_por() -> String {
    format!(
        "dfs: `none` or `sleep` (sleep sets), default `{}`; `dpor` is refused here (it is `explore`'s default)",
        s::RUN_POR.name()
    )
}

pub fn run_depth() -> String {
    format!(
        "pct: bug depth d, d-1 priority change points (default {})",
        s::RUN_PCT_DEPTH
    )
}

pub fn explore_schedules() -> String {
    format!(
        "Run budget: phased and dfs, at most N executions (default {}); random and holdback, N distinct schedules (a repeated one is drawn again); rr, at most N of its {} schedules; pct, N distinct schedules, by default chosen from the program (see --depth)",
        s::EXPLORE_SCHEDULES,
        syncmut_oracle::schedules::rr_values().len()
    )
}

pub fn explore_preemptions() -> String {
    let bounds: Vec<String> = DFS_BOUNDS.iter().map(u32::to_string).collect();
    format!(
        "dfs: at most this many preemptions per schedule (default {}), or `unbounded`; phased's dfs phase deepens its bounds {}, then none, or up to K when given",
        s::DFS_PREEMPTIONS,
        bounds.join(", ")
    )
}

pub fn explore_depth() -> String {
    format!(
        "pct: bug depth d (d-1 priority change points); by default the deepest of 1 to {} that the budget covers with {}% probability, for the threads and scheduling points of a first run",
        PCT_MAX_CHOSEN_DEPTH,
        (1.0 - PCT_MISS_TARGET) * 100.0
    )
}
