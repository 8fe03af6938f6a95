//! The defaults `run --help` and `explore --help` state are the ones the code uses. Every
//! default the help states (`(default N)`, `(default: X; …)`, ``default `X` ``, clap's
//! `[default: X]`) is read from the help text and compared with the constant, table entry
//! or `Default` the code builds with: a default changed in one place only fails here, and
//! so does a default newly stated in the help that this file does not check.

use std::collections::BTreeMap;
use syncmut_analysis::budget::Budget;
use syncmut_oracle::lab::RunSettings;
use syncmut_oracle::schedules::Schedules;
use syncmut_oracle::strategies as s;

/// `syncmut <command> --help`.
fn help(command: &str) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_syncmut"))
        .args([command, "--help"])
        .output()
        .expect("run syncmut");
    assert!(out.status.success(), "{command} --help failed");
    String::from_utf8(out.stdout).expect("UTF-8 help")
}

/// Every default the help states, by long flag, in order of appearance.
fn stated_defaults(help: &str) -> BTreeMap<String, Vec<String>> {
    let forms = regex::Regex::new(
        r"\(default:? ([^;)]+)[;)]|\[default: ([^\]]+)\]|default `([^`]+)`|; default: `([^`]+)`",
    )
    .unwrap();
    let flag = regex::Regex::new(r"^\s+(?:-\w, )?--([\w-]+)").unwrap();
    let mut entries: Vec<(String, String)> = Vec::new();
    for line in help.lines() {
        match flag.captures(line) {
            Some(c) => entries.push((c[1].to_string(), String::new())),
            None => {
                if let Some((_, text)) = entries.last_mut() {
                    text.push(' ');
                    text.push_str(line.trim());
                }
            }
        }
    }
    let mut found = BTreeMap::new();
    for (flag, text) in entries {
        let values: Vec<String> = forms
            .captures_iter(&text)
            .map(|c| {
                let value = (1..=4).find_map(|i| c.get(i)).expect("a group matched");
                value.as_str().trim().to_string()
            })
            .collect();
        if !values.is_empty() {
            found.insert(flag, values);
        }
    }
    found
}

/// `expected` as the map [`stated_defaults`] returns.
fn by_flag(expected: &[(&str, &[String])]) -> BTreeMap<String, Vec<String>> {
    expected
        .iter()
        .map(|(flag, values)| (flag.to_string(), values.to_vec()))
        .collect()
}

/// The project flags both commands share: their defaults are descriptions, not values.
fn project_defaults() -> Vec<(&'static str, Vec<String>)> {
    vec![
        (
            "root",
            vec![
                "the deepest directory holding every named path and the compile database"
                    .to_string(),
            ],
        ),
        ("config", vec!["syncmut.toml beside the design".to_string()]),
    ]
}

#[test]
fn run_help_states_the_defaults_run_uses() {
    let gen = Budget::default();
    let run = RunSettings::default();
    assert_eq!(
        run.jobs,
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        "the help says jobs default to the number of cores"
    );
    let mut expected = project_defaults();
    expected.extend([
        ("tests", vec!["tests.json".to_string()]),
        (
            "solver-timeout",
            vec![syncmut_analysis::smt::DEFAULT_TIMEOUT_MS.to_string()],
        ),
        (
            "budget",
            vec![syncmut_analysis::random::DEFAULT_BUDGET.to_string()],
        ),
        (
            "seed",
            vec![syncmut_analysis::random::DEFAULT_SEED.to_string()],
        ),
        ("gen-timeout", vec![gen.total.as_secs().to_string()]),
        ("site-timeout", vec![gen.site.as_secs().to_string()]),
        ("gen-memory", vec![gen.memory_mb.to_string()]),
        ("formula-terms", vec![gen.max_terms.to_string()]),
        (
            "formula-budget",
            vec![(gen.formula_bytes >> 20).to_string()],
        ),
        ("output", vec!["`syncmut.out`".to_string()]),
        ("jobs", vec!["number of cores".to_string()]),
        (
            "schedules",
            vec![
                format!(
                    "{} of `{}`",
                    RunSettings::default().strategy.budget,
                    s::RUN_DEFAULT
                ),
                s::RUN_SAMPLES.to_string(),
                s::RUN_DFS_RUNS.to_string(),
                format!("{}: runs with real threads", s::NATIVE_RUNS),
            ],
        ),
        ("strategy", vec![s::RUN_DEFAULT.to_string()]),
        ("native", vec![s::RUN_NATIVE.to_string()]),
        ("search-runs", vec![run.search_runs.to_string()]),
        ("preemptions", vec![s::DFS_PREEMPTIONS.to_string()]),
        ("por", vec![s::RUN_POR.name().to_string()]),
        ("depth", vec![s::RUN_PCT_DEPTH.to_string()]),
        ("timeout", vec![run.baseline_timeout.as_secs().to_string()]),
    ]);
    let expected: Vec<(&str, &[String])> =
        expected.iter().map(|(f, v)| (*f, v.as_slice())).collect();
    assert_eq!(stated_defaults(&help("run")), by_flag(&expected));
    // What `run` does when nothing is named is what the help calls its default.
    let unnamed = s::Command::run_plan(None, &s::Settings::default()).unwrap();
    let named = s::Command::run_plan(Some(s::RUN_DEFAULT), &s::Settings::default()).unwrap();
    assert_eq!(unnamed, named);
    assert_eq!(unnamed.schedules, Schedules::STANDARD);
    assert_eq!(run.strategy, Schedules::STANDARD);
}

#[test]
fn explore_help_states_the_defaults_explore_uses() {
    let mut expected = project_defaults();
    expected.extend([
        ("strategy", vec![s::EXPLORE_DEFAULT.to_string()]),
        ("schedules", vec![s::EXPLORE_SCHEDULES.to_string()]),
        ("preemptions", vec![s::DFS_PREEMPTIONS.to_string()]),
        ("por", vec![s::EXPLORE_POR.name().to_string()]),
        ("max-steps", vec![s::EXPLORE_MAX_STEPS.to_string()]),
        ("threads", vec![s::EXPLORE_THREAD_BOUND.to_string()]),
        // clap renders these three from the value it parses with, so they cannot drift;
        // they are listed because every default the help states must be.
        ("interleave", vec!["sync".to_string()]),
        ("output", vec!["syncmut.explore".to_string()]),
        ("timeout", vec!["10".to_string()]),
        (
            "jobs",
            vec!["`jobs` in syncmut.toml, else the number of cores".to_string()],
        ),
    ]);
    let expected: Vec<(&str, &[String])> =
        expected.iter().map(|(f, v)| (*f, v.as_slice())).collect();
    assert_eq!(stated_defaults(&help("explore")), by_flag(&expected));
}

/// The old spellings of the two mixes are still taken, each by its own command only;
/// clap refuses a value before anything runs, so a missing design tells them apart.
#[test]
fn old_strategy_spellings_are_still_accepted_by_their_command() {
    let attempt = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_syncmut"))
            .args(args)
            .arg("/nonexistent/design.c")
            .output()
            .expect("run syncmut");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    for (command, old) in [("run", "mixed"), ("explore", "mix")] {
        let err = attempt(&[command, "--strategy", old]);
        assert!(!err.contains("invalid value"), "{command} {old}: {err}");
    }
    for (command, other) in [("run", "mix"), ("explore", "mixed")] {
        let err = attempt(&[command, "--strategy", other]);
        assert!(err.contains("invalid value"), "{command} {other}: {err}");
    }
}
