//! `syncmut explore`: look for concurrency bugs in the original program (no mutant)
//! by running it under many schedules of the controlled scheduler: assertion failures
//! (`assert`, `reach_error`/`__VERIFIER_error` that abort), crashes, deadlocks,
//! livelocks and hangs. Prints a per-thread counterexample and saves the schedule that
//! replays it (`SYNCMUT_SCHEDULE=replay:<file>`).

use crate::exit;
use anyhow::Context as _;
use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::Args;
use std::path::PathBuf;
use syncmut_mutator::api::Family;
use syncmut_mutator::{metamutant, Design};
use syncmut_runtime::exec::Limits;
use syncmut_runtime::Invocation;
use syncmut_oracle::explore::{self, ExploreSettings};
use syncmut_oracle::schedules::{Strategy, StrategyName};

#[derive(Args)]
pub struct ExploreArgs {
    /// C/C++ sources, a directory of sources, or an LLVM module (.bc/.ll); pthread only.
    #[arg(required = true)]
    pub design: Vec<PathBuf>,
    /// random (seeds 1…N), pct (priorities with depth-1 change points) or dfs
    /// (depth-first over scheduling choices, bounded preemptions).
    #[arg(long, default_value = "dfs", value_parser = strategy_name())]
    pub strategy: StrategyName,
    /// Run budget: at most N executions.
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pub schedules: usize,
    /// dfs: at most this many preemptions per schedule.
    #[arg(long, value_name = "K", default_value_t = 2)]
    pub preemptions: u32,
    /// dfs: also explore schedules that only reorder independent steps (no sleep sets).
    #[arg(long)]
    pub no_sleep_sets: bool,
    /// pct: bug depth d (d-1 priority change points).
    #[arg(long, value_name = "D", default_value_t = 3)]
    pub depth: u32,
    /// Scheduling points: `sync` (synchronization calls, thread start/end) or `memory`
    /// (also every load/store of possibly shared memory: globals, memory reached
    /// through pointers), which makes data races and spin-waits explorable.
    #[arg(long, default_value = "sync", value_parser = syncmut_mutator::interleave::Interleave::parse)]
    pub interleave: syncmut_mutator::interleave::Interleave,
    /// A compiler flag for the design (repeatable), e.g. `--cflag=-DN=4`.
    #[arg(long = "cflag", value_name = "FLAG", allow_hyphen_values = true)]
    pub cflags: Vec<String>,
    /// Output directory (build, counterexample files).
    #[arg(short, long, default_value = "syncmut.explore")]
    pub output: PathBuf,
    /// Timeout of one execution, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 10)]
    pub timeout: u64,
    /// Arguments passed to the design.
    #[arg(last = true)]
    pub args: Vec<String>,
}

/// Runs the exploration; returns the exit code (0: no bug found, 9: bug found), or the
/// error with its exit code.
pub fn explore_command(a: &ExploreArgs) -> Result<i32, (i32, anyhow::Error)> {
    let internal = |e: anyhow::Error| (exit::INTERNAL, e);
    let mutator = |e: syncmut_mutator::MutatorError| (exit::for_mutator_error(&e), anyhow::Error::from(e));
    if a.depth == 0 || a.depth > 64 {
        return Err((exit::USAGE, anyhow::anyhow!("--depth must be between 1 and 64")));
    }
    let design = Design::from_paths(&a.design, &a.cflags).map_err(mutator)?;
    std::fs::create_dir_all(&a.output).with_context(|| format!("create {}", a.output.display())).map_err(internal)?;
    let build = metamutant::build_with(&design, &a.output, &metamutant::Options { interleave: a.interleave }).map_err(mutator)?;
    for warning in &build.warnings {
        eprintln!("syncmut: warning: {warning}");
    }
    if build.catalogue.kind != Family::Pthread {
        return Err((exit::USAGE, anyhow::anyhow!("explore needs a pthread design (SystemC's process order is deterministic)")));
    }
    if build.catalogue.sites.is_empty() && build.shared_accesses == 0 {
        eprintln!("syncmut: no synchronization calls in user code: there is no schedule to explore");
        return Ok(exit::NO_SITES);
    }
    let strategy = match a.strategy {
        StrategyName::Random => Strategy::Random,
        StrategyName::Pct => Strategy::Pct { depth: a.depth },
        StrategyName::Dfs => Strategy::Dfs { preemptions: a.preemptions, sleep_sets: !a.no_sleep_sets },
        other => return Err((exit::USAGE, anyhow::anyhow!("explore: --strategy must be random, pct or dfs, not {other:?}"))),
    };
    let config = ExploreSettings { strategy, schedules: a.schedules.max(1), ..ExploreSettings::default() };
    let program = Invocation {
        active: Some(String::new()),
        limits: Limits { timeout: std::time::Duration::from_secs(a.timeout.max(1)), ..Limits::default() },
        ..Invocation::new(&build.metamutant, &a.args)
    };
    let started = std::time::Instant::now();
    let report = explore::explore(&program, &config, &a.output.join("explore"))
        .map_err(|e| (exit::INTERNAL, anyhow::anyhow!("{e}")))?;
    let seconds = started.elapsed().as_secs_f64();
    let coverage = if report.exhausted {
        " — the bounded space is exhausted".to_string()
    } else if matches!(strategy, Strategy::Dfs { .. }) && report.found.is_none() {
        " — budget reached before the bounded space was exhausted".to_string()
    } else {
        String::new()
    };
    let assumed = if report.assumed > 0 { format!(" ({} ended by __VERIFIER_assume: not bugs)", report.assumed) } else { String::new() };
    println!(
        "explored {} run(s){assumed}, {} distinct schedule(s), strategy {strategy}, {:.1} s ({:.0} runs/s){coverage}",
        report.runs,
        report.distinct,
        seconds,
        report.runs as f64 / seconds.max(1e-9)
    );
    let Some(found) = report.found else {
        println!("no bug found");
        return Ok(exit::OK);
    };
    let text = explore::render_counterexample(&build.catalogue, &found);
    let schedule_file = a.output.join("counterexample.schedule");
    let trace_file = a.output.join("counterexample.jsonl");
    let save = |path: &PathBuf, bytes: &[u8]| syncmut_runtime::atomic::write(path, bytes).with_context(|| format!("{}: cannot write", path.display())).map_err(internal);
    save(&schedule_file, found.schedule_text.as_bytes())?;
    save(&trace_file, &syncmut_runtime::trace::to_jsonl(&found.trace))?;
    save(&a.output.join("counterexample.txt"), text.as_bytes())?;
    println!("\nBUG {text}");
    let schedule_abs = std::fs::canonicalize(&schedule_file).unwrap_or(schedule_file.clone());
    let args: Vec<String> = a.args.iter().map(|arg| shell_word(arg)).collect();
    println!(
        "schedule saved to {}; replay it with:\n  SYNCMUT_SCHEDULE=replay:{} SYNCMUT_TRACE=trace.bin {} {}\n(the runtime writes its trace in binary; {} is the same trace as JSON Lines)",
        schedule_file.display(),
        shell_word(&schedule_abs.display().to_string()),
        shell_word(&build.metamutant.display().to_string()),
        args.join(" "),
        trace_file.display()
    );
    Ok(exit::BUG_FOUND)
}

/// `--strategy`: clap checks the name against the list (and lists the names in its
/// errors); `StrategyName` parses it, as for `run` and syncmut.toml.
fn strategy_name() -> impl TypedValueParser<Value = StrategyName> {
    PossibleValuesParser::new(StrategyName::EXPLORE_NAMES).map(|name| name.parse().expect("a listed strategy name"))
}

fn shell_word(word: &str) -> String {
    if !word.is_empty() && word.chars().all(|c| c.is_ascii_alphanumeric() || "/._-=:,+@".contains(c)) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}
