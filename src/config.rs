//! `syncmut.toml` beside the design: what `run`'s flags hold, so a project can keep
//! its settings in the repository. Flags on the command line win. Unknown keys are
//! rejected, so a typo is an error instead of a silently ignored setting.
//!
//! ```toml
//! tests = "tests.json"      # relative to this file
//! test_cmd = "make check"   # the project's own test driver, run with $SYNCMUT_BIN
//! gen = "wp"                # or "random", "none"
//! solver = "z3"             # or "cvc5"
//! solver_timeout = 5000     # ms per query
//! budget = 100              # random draws (gen = "random")
//! gen_timeout = 60          # s for analysing every site (then `unknown: budget`)
//! site_timeout = 15         # s per site
//! gen_memory = 512          # MB while building a formula
//! formula_terms = 2000000   # largest formula solved
//! formula_budget = 8        # MB of formula files kept
//! jobs = 2
//! schedules = 20            # pthread designs
//! strategy = "dfs"          # see `syncmut run --help` (alternating, random, pct, dfs, …)
//! preemptions = 2           # dfs
//! depth = 3                 # pct
//! native = 3                # pthread: runs with real threads per (mutant, test)
//! search_runs = 20000       # pthread: runs of the original's search that decides kills
//! interleave = "memory"     # or "sync" (the default)
//! races = false             # pthread: no race detection (default on: killed-by-race)
//! fail_under = 80.0
//! sim_time = "10 us"        # SystemC: simulated-time bound of tests without their own
//! timeout = 20              # s one run of the original may take
//! output = "syncmut.out"
//! flags = ["-Iinclude", "-DN=4"]
//! file = ["src/*.c"]        # selection (src/selection.rs): files, functions, mutant ids
//! exclude_file = ["src/vendor/**"]
//! function = ["^queue_"]
//! mutant = [":remove$"]
//! exclude = ["^main#"]
//!
//! [[sync]]                  # the project's own synchronization functions
//! function = "possess"
//! acts_as = "lock"          # unlock, wait, signal, broadcast, join, notify
//! argument = 0              # which argument is the synchronization object
//! ```

use anyhow::Context as _;
use serde::Deserialize;
use std::path::{Path, PathBuf};
use syncmut_mutator::interleave::Interleave;
use syncmut_oracle::schedules::Por;
use syncmut_oracle::strategies::{self, RunPlan, Settings};

fn interleave<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Interleave>, D::Error> {
    let text = String::deserialize(d)?;
    Interleave::parse(&text)
        .map(Some)
        .map_err(serde::de::Error::custom)
}

/// The schedules `run` explores per (mutant, test), from the merged flags/file settings
/// ([`strategies::Command::run_plan`]): the strategy named, else what `schedules` alone
/// means, else the default. Refuses what the lab cannot judge by.
pub fn strategy(name: Option<&str>, settings: &Settings) -> anyhow::Result<RunPlan> {
    let depth = settings.depth.unwrap_or(strategies::RUN_PCT_DEPTH);
    anyhow::ensure!(
        (1..=64).contains(&depth),
        "depth must be between 1 and 64, not {depth}"
    );
    // The lab compares the globals' values each event sees; partial-order reduction
    // takes steps on different synchronization objects as independent, although the
    // design code in one may write what an event of the other shows.
    anyhow::ensure!(
        settings.por != Some(Por::Dpor),
        "run: --por dpor is not supported: verdicts compare the shared variables' values seen at each synchronization event, and the reduction treats steps on different synchronization objects as independent even when one writes what the other's event shows (a mutant would be killed by an observation the reduced search of the original left out); use --por none (the default) or sleep"
    );
    // Sleep sets make the same independence assumption, and under a preemption bound may
    // skip the only schedule of a class within the bound: `run` searches every schedule
    // unless `--por sleep` asks for the weaker claim its reasons then state.
    strategies::Command::run_plan(name, settings).map_err(anyhow::Error::msg)
}

/// The most parallel executions syncmut starts: far above any machine's useful
/// parallelism, far below what exhausts processes or memory.
pub const MAX_JOBS: usize = 256;
/// The most schedules per (mutant, test): each costs one execution and a line of
/// results, so more is a typo rather than a plan.
pub const MAX_SCHEDULES: usize = 1_000_000;

/// Checks the numeric settings that no type bounds, whichever of flag or file gave them.
pub fn check_limits(
    jobs: Option<usize>,
    schedules: Option<usize>,
    fail_under: Option<f64>,
) -> anyhow::Result<()> {
    if let Some(jobs) = jobs {
        anyhow::ensure!(
            (1..=MAX_JOBS).contains(&jobs),
            "jobs (-j) must be between 1 and {MAX_JOBS}, not {jobs}"
        );
    }
    if let Some(n) = schedules {
        anyhow::ensure!(
            n <= MAX_SCHEDULES,
            "schedules must be at most {MAX_SCHEDULES}, not {n}"
        );
    }
    if let Some(pct) = fail_under {
        anyhow::ensure!(
            (0.0..=100.0).contains(&pct),
            "fail_under must be a percentage between 0 and 100, not {pct}"
        );
    }
    Ok(())
}

/// `search_runs`: at least one run, and at most as many as `schedules` may ask for.
pub fn check_search_runs(runs: Option<usize>) -> anyhow::Result<()> {
    if let Some(n) = runs {
        anyhow::ensure!(
            (1..=MAX_SCHEDULES).contains(&n),
            "search_runs must be between 1 and {MAX_SCHEDULES}, not {n}"
        );
    }
    Ok(())
}

/// The longest limit `timeout` may set for a run of the original: a day.
const MAX_TIMEOUT_SECS: f64 = 86_400.0;

/// `run --timeout` (or `timeout` in syncmut.toml) as a duration, checked.
pub fn original_timeout(secs: f64) -> anyhow::Result<std::time::Duration> {
    anyhow::ensure!(
        (0.1..=MAX_TIMEOUT_SECS).contains(&secs),
        "timeout must be between 0.1 and {MAX_TIMEOUT_SECS} seconds, not {secs}"
    );
    Ok(std::time::Duration::from_secs_f64(secs))
}

/// File name looked for in a design directory.
pub const FILE: &str = "syncmut.toml";

/// Settings from `syncmut.toml`; every key optional.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub tests: Option<PathBuf>,
    pub test_cmd: Option<String>,
    pub gen: Option<String>,
    pub jobs: Option<usize>,
    pub schedules: Option<usize>,
    pub strategy: Option<String>,
    pub preemptions: Option<u32>,
    pub depth: Option<u32>,
    pub native: Option<usize>,
    pub search_runs: Option<usize>,
    #[serde(default, deserialize_with = "interleave")]
    pub interleave: Option<Interleave>,
    pub races: Option<bool>,
    pub fail_under: Option<f64>,
    /// SystemC: the simulated time no `sc_start` runs past, for tests without their own
    /// `sim_time` (docs/tests-format.md).
    pub sim_time: Option<syncmut_runner::test_case::SimTime>,
    /// `run --entropy`: `vary` or `fixed`.
    pub entropy: Option<syncmut_oracle::lab::Entropy>,
    /// `run --timeout`: seconds one run of the original may take.
    pub timeout: Option<f64>,
    pub output: Option<PathBuf>,
    pub flags: Option<Vec<String>>,
    pub solver: Option<syncmut_analysis::smt::SolverKind>,
    pub solver_timeout: Option<u32>,
    pub budget: Option<usize>,
    pub gen_timeout: Option<f64>,
    pub site_timeout: Option<f64>,
    pub gen_memory: Option<u64>,
    pub formula_terms: Option<usize>,
    pub formula_budget: Option<u64>,
    pub file: Option<Vec<String>>,
    pub exclude_file: Option<Vec<String>>,
    pub function: Option<Vec<String>>,
    pub mutant: Option<Vec<String>>,
    pub exclude: Option<Vec<String>>,
    /// The project's own synchronization functions.
    #[serde(default)]
    pub sync: Vec<syncmut_mutator::user_sync::UserSync>,
    /// The file these settings were read from (none: no file).
    #[serde(skip)]
    pub path: Option<PathBuf>,
}

impl Config {
    /// The file's selection of mutants (`--in-diff` and `--shard` are flags only: they
    /// describe one run, not the project).
    pub fn selection(&self) -> crate::selection::SelectArgs {
        let list = |v: &Option<Vec<String>>| v.clone().unwrap_or_default();
        crate::selection::SelectArgs {
            file: list(&self.file),
            exclude_file: list(&self.exclude_file),
            function: list(&self.function),
            mutant: list(&self.mutant),
            exclude: list(&self.exclude),
            ..Default::default()
        }
    }
}

/// Reads the settings file, if there is one (found by `build_input::ProjectArgs::config_file`);
/// paths in it are made relative to its directory.
pub fn load(path: Option<&Path>) -> anyhow::Result<Config> {
    let Some(path) = path else {
        return Ok(Config::default());
    };
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("{}: cannot read", path.display()))?;
    let mut config: Config = toml::from_str(&text)
        .with_context(|| format!("{}: not a valid syncmut.toml", path.display()))?;
    if let Some(gen) = &config.gen {
        anyhow::ensure!(
            ["wp", "random", "none"].contains(&gen.as_str()),
            "{}: gen must be \"wp\", \"random\" or \"none\", not {gen:?}",
            path.display()
        );
    }
    config.path = Some(path.to_path_buf());
    let base = path.parent().unwrap_or(Path::new("."));
    config.tests = config.tests.map(|t| base.join(t));
    // `-Iinclude` in the file means the directory beside it, wherever syncmut runs.
    for flag in config.flags.iter_mut().flatten() {
        for prefix in ["-I", "-L"] {
            if let Some(dir) = flag
                .strip_prefix(prefix)
                .filter(|d| !d.is_empty() && Path::new(d).is_relative())
            {
                *flag = format!("{prefix}{}", base.join(dir).display());
            }
        }
    }
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;
    use syncmut_oracle::schedules::{Schedules, Strategy};
    use syncmut_oracle::strategies::RUN_NATIVE;

    fn with(text: &str) -> anyhow::Result<Config> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(FILE), text).unwrap();
        load(Some(&dir.path().join(FILE)))
    }

    #[test]
    fn settings_are_read_and_paths_made_relative() {
        let config = with(
            "tests = \"t.json\"\njobs = 3\nflags = [\"-DN=4\"]\nsolver = \"cvc5\"\nbudget = 50\n",
        )
        .unwrap();
        assert_eq!(config.solver, Some(syncmut_analysis::smt::SolverKind::Cvc5));
        assert_eq!(config.budget, Some(50));
        assert_eq!(config.jobs, Some(3));
        assert!(config.tests.unwrap().ends_with("t.json"));
        assert_eq!(config.flags.unwrap(), vec!["-DN=4"]);
        let config = with("file = [\"src/*.c\"]\nexclude = [\"^main#\"]\n").unwrap();
        assert_eq!(config.selection().file, ["src/*.c"]);
        assert_eq!(config.selection().exclude, ["^main#"]);
        let config = with("[[sync]]\nfunction = \"possess\"\nacts_as = \"lock\"\n").unwrap();
        assert_eq!(config.sync[0].function, "possess");
        let err = format!(
            "{:#}",
            with("[[sync]]\nfunction = \"possess\"\nacts_as = \"grab\"\n").unwrap_err()
        );
        assert!(
            err.contains("syncmut.toml") && err.contains("grab"),
            "{err}"
        );
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(FILE),
            "flags = [\"-Iinclude\", \"-I/abs\", \"-lz\"]\n",
        )
        .unwrap();
        let flags = load(Some(&dir.path().join(FILE))).unwrap().flags.unwrap();
        assert_eq!(
            flags,
            [
                format!("-I{}", dir.path().join("include").display()),
                "-I/abs".to_string(),
                "-lz".to_string()
            ]
        );
    }

    #[test]
    fn unknown_keys_and_bad_values_are_rejected_naming_the_file() {
        let err = format!("{:#}", with("jbos = 3\n").unwrap_err());
        assert!(
            err.contains("syncmut.toml") && err.contains("unknown field"),
            "{err}"
        );
        assert!(format!("{:#}", with("gen = \"fuzz\"\n").unwrap_err()).contains("gen must be"));
        assert!(format!("{:#}", with("solver = \"yices\"\n").unwrap_err())
            .contains("unknown variant `yices`"));

        assert!(
            format!("{:#}", with("interleave = \"bytes\"\n").unwrap_err())
                .contains("interleave must be")
        );
        let err = format!("{:#}", with("sim_time = \"forever\"\n").unwrap_err());
        assert!(
            err.contains("syncmut.toml") && err.contains("sim_time \"forever\""),
            "{err}"
        );
        assert_eq!(
            with("sim_time = \"2 ms\"\n")
                .unwrap()
                .sim_time
                .map(|t| t.ns),
            Some(2_000_000)
        );
    }

    #[test]
    fn numbers_out_of_range_are_refused_with_their_bounds() {
        assert!(check_limits(Some(1), Some(0), Some(0.0)).is_ok());
        assert!(check_limits(Some(MAX_JOBS), Some(MAX_SCHEDULES), Some(100.0)).is_ok());
        let err = |j, s, f| check_limits(j, s, f).unwrap_err().to_string();
        assert!(err(Some(0), None, None).contains("between 1 and 256"));
        assert!(err(Some(4294967296), None, None).contains("not 4294967296"));
        assert!(err(None, Some(1_000_000_000_000), None).contains("at most 1000000"));
        for bad in [f64::NAN, -1.0, 100.5, f64::INFINITY] {
            assert!(
                err(None, None, Some(bad)).contains("between 0 and 100"),
                "{bad}"
            );
        }
    }

    #[test]
    fn interleave_and_strategy_keys() {
        let config =
            with("interleave = \"memory\"\nstrategy = \"dfs\"\npreemptions = 1\n").unwrap();
        assert_eq!(config.interleave, Some(Interleave::Memory));
        let settings = Settings {
            schedules: config.schedules,
            preemptions: config.preemptions,
            depth: config.depth,
            ..Settings::default()
        };
        let plan = strategy(config.strategy.as_deref(), &settings).unwrap();
        assert_eq!(
            plan.schedules,
            Schedules {
                strategy: Strategy::Dfs {
                    preemptions: 1,
                    por: Por::None
                },
                budget: 1000
            }
        );
        let dpor = Settings {
            por: Some(Por::Dpor),
            ..Settings::default()
        };
        let refused = strategy(Some("dfs"), &dpor).unwrap_err().to_string();
        assert!(refused.contains("--por dpor is not supported"), "{refused}");
        let deep = Settings {
            depth: Some(65),
            ..Settings::default()
        };
        assert!(strategy(Some("pct"), &deep).is_err());
    }

    #[test]
    fn strategies_build_the_schedules_and_native_runs_they_did() {
        let plan = |name: Option<&str>, schedules, native| {
            let settings = Settings {
                schedules,
                native,
                ..Settings::default()
            };
            let plan = strategy(name, &settings).unwrap();
            (plan.schedules, plan.native)
        };
        // Nothing named: the standard alternation; `schedules` alone: 1 is the one
        // default schedule, N are N random ones; each then confirms its survivors with
        // real threads.
        assert_eq!(plan(None, None, None), (Schedules::STANDARD, RUN_NATIVE));
        assert_eq!(plan(None, Some(1), None), (Schedules::DEFAULT, RUN_NATIVE));
        let random = Schedules {
            strategy: Strategy::Random,
            budget: 20,
        };
        assert_eq!(plan(None, Some(20), None), (random, RUN_NATIVE));
        // The old spelling of `alternating`, as syncmut.toml files still have it.
        let five = Schedules {
            strategy: Strategy::Alternating { depth: 3 },
            budget: 5,
        };
        assert_eq!(plan(Some("mixed"), Some(5), None), (five, RUN_NATIVE));
        assert_eq!(plan(Some("alternating"), Some(5), None), (five, RUN_NATIVE));
        assert_eq!(
            plan(Some("default"), None, None),
            (Schedules::DEFAULT, RUN_NATIVE)
        );
        // `native`: the default schedule, then 3 runs with real threads, or `schedules`,
        // or `--native`; `--native` adds them to any strategy.
        assert_eq!(plan(Some("native"), None, None), (Schedules::DEFAULT, 3));
        assert_eq!(plan(Some("native"), Some(4), None), (Schedules::DEFAULT, 4));
        let pct = Schedules {
            strategy: Strategy::Pct { depth: 3 },
            budget: 100,
        };
        assert_eq!(plan(Some("pct"), None, Some(2)), (pct, 2));
        assert!(strategy(Some("bfs"), &Settings::default()).is_err());
        let explores = strategy(Some("rr"), &Settings::default()).unwrap_err();
        assert!(
            explores.to_string().contains("not one of run's"),
            "{explores}"
        );
    }
}
