//! `syncmut explore`: look for concurrency bugs in the original program (no mutant)
//! by running it under many schedules of the controlled scheduler: assertion failures
//! (`assert`, `reach_error`/`__VERIFIER_error` that abort), crashes, deadlocks,
//! livelocks and hangs, and with `--races` data races. Prints a per-thread counterexample and saves the schedule that
//! replays it (`SYNCMUT_SCHEDULE=replay:<file>`).

use crate::exit;
use anyhow::Context as _;
use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::Args;
use std::path::PathBuf;
use syncmut_mutator::api::Family;
use syncmut_mutator::effect::Effect;
use syncmut_mutator::interleave::Interleave;
use syncmut_mutator::metamutant;
use syncmut_runtime::exec::Limits;
use syncmut_runtime::Invocation;
use syncmut_oracle::explore::{self, ExploreSettings};
use syncmut_oracle::schedules::{Strategy, StrategyName};

#[derive(Args)]
pub struct ExploreArgs {
    /// C/C++ sources, a directory of sources, an LLVM module (.bc/.ll), or an executable
    /// linked through `syncmut cc`; pthread only.
    #[arg(required_unless_present = "compile_db")]
    pub design: Vec<PathBuf>,
    #[command(flatten)]
    pub project: crate::build_input::ProjectArgs,
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
    /// Also report data races: shared loads and stores are instrumented (without
    /// becoming scheduling points unless `--interleave memory`) and a happens-before
    /// detector checks each run; two accesses no synchronization orders are a bug.
    #[arg(long)]
    pub races: bool,
    /// A compiler flag for the design (repeatable), e.g. `--cflag=-DN=4`.
    #[arg(long = "cflag", value_name = "FLAG", allow_hyphen_values = true)]
    pub cflags: Vec<String>,
    /// Output directory (build, counterexample files).
    #[arg(short, long, default_value = "syncmut.explore")]
    pub output: PathBuf,
    /// Timeout of one execution, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 10)]
    pub timeout: u64,
    /// An argument passed to the design (repeatable, in order), e.g. `--arg=-v --arg 4`.
    #[arg(long = "arg", value_name = "WORD", allow_hyphen_values = true)]
    pub args: Vec<String>,
    /// Flags for clang, as after `--` in every other command (`-- -DN=4 -Iinclude`).
    #[arg(last = true)]
    pub flags: Vec<String>,
}

/// Runs the exploration; returns the exit code (0: no bug found, 9: bug found), or the
/// error with its exit code.
pub fn explore_command(a: &ExploreArgs) -> Result<i32, (i32, anyhow::Error)> {
    let internal = |e: anyhow::Error| (exit::INTERNAL, e);
    let mutator = |e: syncmut_mutator::MutatorError| (exit::for_mutator_error(&e), anyhow::Error::from(e));
    if a.depth == 0 || a.depth > 64 {
        return Err((exit::USAGE, anyhow::anyhow!("--depth must be between 1 and 64")));
    }
    if a.schedules == 0 {
        return Err((exit::USAGE, anyhow::anyhow!("--schedules must be at least 1")));
    }
    let flags: Vec<String> = a.cflags.iter().chain(&a.flags).cloned().collect();
    let mut design = a.project.design(&a.design, &flags).map_err(mutator)?;
    // The project's own synchronization functions, declared in syncmut.toml.
    let settings = a.project.config_file(&a.design).and_then(|file| crate::config::load(file.as_deref())).map_err(|e| (exit::USAGE, e))?;
    design.sync = settings.sync;
    std::fs::create_dir_all(&a.output).with_context(|| format!("create {}", a.output.display())).map_err(internal)?;
    let mut interleave = a.interleave;
    let mut build = metamutant::build_with(&design, &a.output, &metamutant::Options { interleave, races: a.races }).map_err(mutator)?;
    let only_create_and_join = build.catalogue.sites.iter().all(|s| matches!(s.effect, Some(Effect::Join { .. }) | Some(Effect::CreateThread { .. })));
    if build.catalogue.kind == Family::Pthread && only_create_and_join && interleave.is_sync() {
        // Thread creation and joins alone leave no choice to explore: the program's
        // concurrency is in its shared memory.
        eprintln!("syncmut: no synchronization calls other than thread creation and joins: exploring at memory level (every load and store of shared memory is a scheduling point), as with --interleave memory");
        interleave = Interleave::Memory;
        build = metamutant::build_with(&design, &a.output, &metamutant::Options { interleave, races: a.races }).map_err(mutator)?;
    }
    for warning in &build.warnings {
        eprintln!("syncmut: warning: {warning}");
    }
    if build.catalogue.kind != Family::Pthread {
        return Err((exit::USAGE, anyhow::anyhow!("explore needs a pthread design (SystemC's process order is deterministic)")));
    }
    if build.catalogue.sites.is_empty() && build.shared_accesses == 0 {
        eprintln!("syncmut: no synchronization calls and no shared memory accesses in user code: there is no schedule to explore");
        return Ok(exit::NO_SITES);
    }
    let strategy = match a.strategy {
        StrategyName::Random => Strategy::Random,
        StrategyName::Pct => Strategy::Pct { depth: a.depth },
        StrategyName::Dfs => Strategy::Dfs { preemptions: a.preemptions, sleep_sets: !a.no_sleep_sets },
        other => return Err((exit::USAGE, anyhow::anyhow!("explore: --strategy must be random, pct or dfs, not {other:?}"))),
    };
    let config = ExploreSettings { strategy, schedules: a.schedules, races: a.races, ..ExploreSettings::default() };
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
        if report.runs > 0 && report.assumed == report.runs {
            println!("no bug found, but vacuously: all {} runs ended by __VERIFIER_assume, so nothing after it was checked", report.runs);
        } else {
            println!("no bug found");
        }
        return Ok(exit::OK);
    };
    // What `syncmut replay DIR` needs besides the files below.
    let replay = serde_json::json!({ "args": a.args, "timeout_secs": a.timeout.max(1) });
    let text = explore::render_counterexample(&build.catalogue, &found);
    let schedule_file = a.output.join(COUNTEREXAMPLE_SCHEDULE);
    let trace_file = a.output.join(COUNTEREXAMPLE_TRACE);
    let save = |path: &PathBuf, bytes: &[u8]| syncmut_runtime::atomic::write(path, bytes).with_context(|| format!("{}: cannot write", path.display())).map_err(internal);
    save(&schedule_file, found.schedule_text.as_bytes())?;
    save(&trace_file, &syncmut_runtime::trace::to_jsonl(&found.trace))?;
    save(&a.output.join("counterexample.txt"), text.as_bytes())?;
    save(&a.output.join(COUNTEREXAMPLE_RUN), &serde_json::to_vec_pretty(&replay).expect("json"))?;
    println!("\nBUG {text}");
    // Every path in the hint absolute, so it works from any directory.
    let absolute = |p: &PathBuf| std::fs::canonicalize(p).unwrap_or_else(|_| p.clone()).display().to_string();
    let args: Vec<String> = a.args.iter().map(|arg| shell_word(arg)).collect();
    println!(
        "schedule saved to {}; replay it with:\n  SYNCMUT_SCHEDULE=replay:{} SYNCMUT_TRACE=trace.bin {} {}\n(the runtime writes its trace in binary; {} is the same trace as JSON Lines)",
        absolute(&schedule_file),
        shell_word(&absolute(&schedule_file)),
        shell_word(&absolute(&build.metamutant)),
        args.join(" "),
        absolute(&trace_file)
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

/// An explore directory's counterexample: the schedule that replays it, its trace (JSON
/// Lines), and the design arguments and timeout it was found with.
const COUNTEREXAMPLE_SCHEDULE: &str = "counterexample.schedule";
const COUNTEREXAMPLE_TRACE: &str = "counterexample.jsonl";
const COUNTEREXAMPLE_RUN: &str = "counterexample.json";

/// `syncmut replay DIR` on an explore directory: runs the metamutant again under the
/// counterexample's schedule and checks the trace is the saved one.
pub fn replay_counterexample(dir: &std::path::Path) -> Result<i32, crate::Failure> {
    let usage = |message: String| crate::Failure { code: exit::USAGE, error: anyhow::anyhow!(message) };
    let schedule = dir.join(COUNTEREXAMPLE_SCHEDULE);
    if !schedule.exists() {
        let what = if dir.join(syncmut_oracle::outdir::OUTCOMES).exists() { "a run directory: name the mutant to replay" } else { "neither a run directory nor an explore directory with a counterexample" };
        return Err(usage(format!("{}: {what}", dir.display())));
    }
    let run: serde_json::Value = std::fs::read(dir.join(COUNTEREXAMPLE_RUN))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .ok_or_else(|| usage(format!("{}: missing or unreadable; explore this design again to replay it", dir.join(COUNTEREXAMPLE_RUN).display())))?;
    let args: Vec<String> = run["args"].as_array().into_iter().flatten().filter_map(|a| a.as_str().map(String::from)).collect();
    let saved_path = dir.join(COUNTEREXAMPLE_TRACE);
    let saved = syncmut_runtime::trace::read(&saved_path).map_err(usage)?;
    let replay_path = dir.join("replay.trace");
    let invocation = Invocation {
        active: Some(String::new()),
        trace: Some(replay_path.clone()),
        schedule: Some(format!("replay:{}", schedule.display())),
        limits: Limits { timeout: std::time::Duration::from_secs(run["timeout_secs"].as_u64().unwrap_or(10)), ..Limits::default() },
        ..Invocation::new(&dir.join(metamutant::layout::METAMUTANT_EXE), &args)
    };
    let execution = invocation.run().map_err(|e| crate::Failure { code: exit::INTERNAL, error: anyhow::anyhow!("{}: cannot run: {e}", dir.display()) })?;
    let replayed = syncmut_runtime::trace::read(&replay_path).map_err(usage)?;
    let _ = std::fs::remove_file(&replay_path);
    println!("counterexample of {}: {}", dir.display(), execution.status);
    crate::results::reproduced(&replayed, &saved, &saved_path)
}
