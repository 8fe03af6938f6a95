//! `syncmut explore`: look for concurrency bugs in the original program (no mutant)
//! by running it under many schedules of the controlled scheduler: assertion failures
//! (`assert`, `reach_error`/`__VERIFIER_error` that abort), crashes, deadlocks,
//! livelocks and hangs, and with `--races` data races. Prints a per-thread counterexample and saves the schedule that
//! replays it (`SYNCMUT_SCHEDULE=replay:<file>`).

use crate::exit;
use crate::explore_args::ExploreArgs;
use anyhow::Context as _;
use std::path::PathBuf;
use syncmut_mutator::api::Family;
use syncmut_mutator::effect::Effect;
use syncmut_mutator::interleave::Interleave;
use syncmut_mutator::metamutant;
use syncmut_oracle::explore::{self, Choose, ExploreSettings, PctPlan, Property, REPEAT_STREAK};
use syncmut_oracle::schedules::Strategy;
use syncmut_oracle::strategies;
use syncmut_runner::exec::Limits;
use syncmut_runner::Invocation;

/// Runs the exploration; returns the exit code (0: no bug found, 9: bug found), or the
/// error with its exit code.
pub fn explore_command(a: &ExploreArgs) -> Result<i32, (i32, anyhow::Error)> {
    if let [only] = a.design.as_slice() {
        if a.task.is_none() && crate::svcomp::is_task(only) {
            let mut task = crate::explore_args::args_of_task(a, only)?;
            // The copies with widened pthread types live as long as the exploration.
            let widened = tempfile::tempdir().map_err(|e| (exit::INTERNAL, e.into()))?;
            crate::explore_args::widen_ilp32(&mut task, widened.path())
                .map_err(|e| (exit::INTERNAL, e))?;
            return explore_command(&task);
        }
    }
    let deadline = a
        .time_limit
        .map(|secs| std::time::Instant::now() + std::time::Duration::from_secs(secs));
    let internal = |e: anyhow::Error| (exit::INTERNAL, e);
    let mutator =
        |e: syncmut_mutator::MutatorError| (exit::for_mutator_error(&e), anyhow::Error::from(e));
    if a.depth.is_some_and(|d| d == 0 || d > 64) {
        return Err((
            exit::USAGE,
            anyhow::anyhow!("--depth must be between 1 and 64"),
        ));
    }
    if a.schedules == Some(0) {
        return Err((
            exit::USAGE,
            anyhow::anyhow!("--schedules must be at least 1"),
        ));
    }
    let flags: Vec<String> = a.cflags.iter().chain(&a.flags).cloned().collect();
    let (flags, dropped) = crate::design_args::allowed_flags(&flags, None);
    let mut design = a.project.design(&a.design, &flags).map_err(mutator)?;
    design.notes.extend(dropped);
    // The project's own synchronization functions, declared in syncmut.toml.
    let settings = a
        .project
        .config_file(&a.design)
        .and_then(|file| crate::config::load(file.as_deref()))
        .map_err(|e| (exit::USAGE, e))?;
    design.sync = settings.sync;
    let jobs = a.jobs.or(settings.jobs);
    crate::config::check_limits(jobs, a.schedules, None).map_err(|e| (exit::USAGE, e))?;
    std::fs::create_dir_all(&a.output)
        .with_context(|| format!("create {}", a.output.display()))
        .map_err(internal)?;
    let mut interleave = a.interleave;
    let mut build = metamutant::build_with(
        &design,
        &a.output,
        &metamutant::Options {
            interleave,
            races: races(a),
        },
    )
    .map_err(mutator)?;
    let only_create_and_join = build.catalogue.sites.iter().all(|s| {
        matches!(
            s.effect,
            Some(Effect::Join { .. }) | Some(Effect::CreateThread { .. })
        )
    });
    if build.catalogue.kind == Family::Pthread && only_create_and_join && interleave.is_sync() {
        // Thread creation and joins alone leave no choice to explore: the program's
        // concurrency is in its shared memory.
        eprintln!("syncmut: no synchronization calls other than thread creation and joins: exploring at memory level (every load and store of shared memory is a scheduling point), as with --interleave memory");
        interleave = Interleave::Memory;
        build = metamutant::build_with(
            &design,
            &a.output,
            &metamutant::Options {
                interleave,
                races: races(a),
            },
        )
        .map_err(mutator)?;
    }
    for warning in &build.warnings {
        eprintln!("syncmut: warning: {warning}");
    }
    if build.catalogue.kind != Family::Pthread {
        return Err((
            exit::USAGE,
            anyhow::anyhow!(
                "explore needs a pthread design (SystemC's process order is deterministic)"
            ),
        ));
    }
    if build.catalogue.sites.is_empty() && build.shared_accesses == 0 {
        if !build.reads_inputs {
            eprintln!("syncmut: no synchronization calls and no shared memory accesses in user code: there is no schedule to explore");
            return Ok(exit::NO_SITES);
        }
        // One thread, one schedule: what differs from run to run is the drawn values.
        eprintln!(
            "syncmut: no synchronization calls and no shared memory accesses: exploring its nondet inputs \
             (one schedule; every run draws other values)"
        );
    }
    let settings = strategies::Settings {
        preemptions: a.preemptions,
        depth: a.depth,
        por: Some(a.por),
        ..strategies::Settings::default()
    };
    let strategy = strategies::Command::explore_strategy(&a.strategy, &settings)
        .map_err(|e| (exit::USAGE, anyhow::Error::msg(e)))?;
    let config = ExploreSettings {
        strategy,
        schedules: a.schedules.unwrap_or(strategies::EXPLORE_SCHEDULES),
        max_steps: a.max_steps,
        thread_bound: Some(a.threads),
        // Past the budget, a tenth of it more to find a repeated state (a real livelock's
        // cycle is a few points per thread, or the fairness bound's thousand).
        repeat_window: Some((a.max_steps / 10).clamp(1_000, 100_000)),
        // The seeded strategies draw again when a schedule repeats; round-robin's are a
        // fixed list, and phased's phases repeat each other's schedules by design.
        redraw_repeats: matches!(
            strategy,
            Strategy::Random | Strategy::Pct { .. } | Strategy::Holdback
        ),
        draw_inputs: true,
        races: races(a),
        properties: crate::explore_verdict::properties(a),
        choose: Choose {
            depth: a.depth.is_none(),
            schedules: a.schedules.is_none(),
        },
        lanes: jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
        // A hang at sync level is not reported but explored again at memory level (below),
        // where timeouts are confirmed: confirming it here would only delay that search.
        confirm_timeouts: !interleave.is_sync(),
        deadline,
        dfs_past_budget: a.schedules.is_none(),
        ..ExploreSettings::default()
    };
    let program = Invocation {
        active: Some(String::new()),
        limits: Limits {
            timeout: std::time::Duration::from_secs(a.timeout.max(1)),
            ..Limits::default()
        },
        ..Invocation::new(&build.metamutant, &a.args)
    };
    let started = std::time::Instant::now();
    let mut report = explore::explore(&program, &config, &a.output.join("explore"))
        .map_err(|e| (exit::INTERNAL, anyhow::anyhow!("{e}")))?;
    if interleave.is_sync()
        && report
            .found
            .as_ref()
            .is_some_and(|f| f.kind == explore::BugKind::Hang)
    {
        // A thread ran past the timeout without reaching a scheduling point: at sync level
        // a busy-wait on plain memory keeps the baton, and the thread it waits for never
        // runs. That is the granularity's doing, not necessarily the program's: explore
        // again where every shared load is a scheduling point and the scheduler is fair;
        // a hang that persists there is reported.
        eprintln!(
            "syncmut: run {} did not end within the timeout at sync level (a busy-wait on shared memory has no scheduling point there and keeps the other threads from running): exploring again at memory level, under fair scheduling, where a hang is reported only if it persists in a run under twice the timeout",
            report.found.as_ref().map_or(0, |f| f.run)
        );
        interleave = Interleave::Memory;
        build = metamutant::build_with(
            &design,
            &a.output,
            &metamutant::Options {
                interleave,
                races: races(a),
            },
        )
        .map_err(mutator)?;
        let program = Invocation {
            program: build.metamutant.clone(),
            ..program.clone()
        };
        let config = ExploreSettings {
            confirm_timeouts: true,
            ..config.clone()
        };
        report = explore::explore(&program, &config, &a.output.join("explore"))
            .map_err(|e| (exit::INTERNAL, anyhow::anyhow!("{e}")))?;
    }
    let seconds = started.elapsed().as_secs_f64();
    if let Some(reason) = report
        .exec_fallback
        .as_ref()
        .filter(|_| syncmut_runner::fork_server::enabled())
    {
        // Slower, not different: every run still has its own process group, timeout and limits.
        eprintln!("syncmut: note: runs were started by exec, not through a fork server: {reason}");
    }
    if report.slow > 0 {
        eprintln!(
            "syncmut: note: {} run(s) timed out under the limit of {} s but ended when run again under {}× it (the machine was slow, not the program): each was judged by its longer run",
            report.slow,
            a.timeout.max(1),
            syncmut_oracle::lab::TIMEOUT_CONFIRM_FACTOR
        );
    }
    let coverage = if matches!(strategy, Strategy::Phased { .. }) {
        // Each phase says what it covered, on lines of their own below.
        if report.exhausted {
            " — every schedule was explored".to_string()
        } else {
            String::new()
        }
    } else if report.exhausted {
        " — the bounded space is exhausted".to_string()
    } else if matches!(strategy, Strategy::Dfs { .. })
        && report.found.is_none()
        && report.drew_inputs
    {
        " — the program reads nondet inputs: dfs went on with drawn values until the budget"
            .to_string()
    } else if matches!(strategy, Strategy::Dfs { .. }) && report.found.is_none() {
        " — budget reached before the bounded space was exhausted".to_string()
    } else if matches!(strategy, Strategy::RoundRobin)
        && report.found.is_none()
        && report.runs == syncmut_oracle::schedules::rr_values().len()
    {
        " — every round-robin schedule was run".to_string()
    } else if report.saturated {
        format!(" — no new schedule in the last {REPEAT_STREAK} draws")
    } else if report.found.is_none()
        && report.repeats >= report.pct.map_or(config.schedules, |plan| plan.schedules)
    {
        " — as many repeated draws as the budget: stopped drawing".to_string()
    } else {
        String::new()
    };
    let assumed = if report.assumed > 0 {
        format!(" ({} ended by __VERIFIER_assume: not bugs)", report.assumed)
    } else {
        String::new()
    };
    let repeats = match report.repeats {
        0 => String::new(),
        n if config.redraw_repeats => format!(" ({n} repeated draw(s) redrawn)"),
        n => format!(" ({n} repeated an earlier schedule)"),
    };
    println!(
        "explored {} run(s){}{assumed}, {} distinct schedule(s){repeats}, strategy {}, {:.1} s ({:.0} runs/s){coverage}",
        report.runs,
        report.cut_run_note(),
        report.distinct,
        report.strategy,
        seconds,
        report.runs as f64 / seconds.max(1e-9)
    );
    if let Some(plan) = &report.pct {
        println!(
            "{}",
            pct_coverage(plan, report.runs, report.found.is_some())
        );
    }
    for phase in &report.phases {
        println!("  {phase}");
    }
    crate::explore_verdict::Conclusion::print_notes(a, &report);
    let conclusion = crate::explore_verdict::Conclusion::new(
        a,
        &build.catalogue,
        &design.root,
        &report,
        !interleave.is_sync(),
    )
    .map_err(internal)?;
    let Some(found) = report.found else {
        if report.thread_limited > 0 {
            // Not "no bug": the runs stopped at the tool's limit, not at the program's end.
            println!(
                "no bug found before the thread limit, but {} of {} run(s) ended at the scheduler's thread limit \
                 (1024 threads alive or unjoined, or fewer when the run's memory holds no more thread stacks): \
                 the program keeps creating threads without joining them, and what it does past that point was not explored",
                report.thread_limited, report.runs
            );
            conclusion.finish(&a.output).map_err(internal)?;
            return Ok(exit::INCOMPLETE);
        }
        if report.out_of_time {
            println!(
                "no bug found before the time limit (--time-limit {}): the search stopped after {} run(s){}",
                a.time_limit.unwrap_or_default(),
                report.runs,
                report.cut_run_note()
            );
        }
        if report.thread_bounded > 0 {
            // Like a preemption bound: what the runs did past the bound was not explored.
            println!(
                "no bug found with at most {} threads per run: {} of {} run(s) asked for more and were cut at the thread bound \
                 (--threads {}); what the program does with more threads was not explored",
                a.threads, report.thread_bounded, report.runs, a.threads
            );
        }
        let bounded = report.out_of_time || report.thread_bounded > 0; // said above
        if !bounded && report.runs > 0 && report.assumed == report.runs {
            println!("no bug found, but vacuously: all {} runs ended by __VERIFIER_assume, so nothing after it was checked", report.runs);
        } else if !bounded {
            println!("no bug found");
        }
        if interleave.is_sync() && (report.exhausted || report.saturated) {
            println!(
                "the schedules of synchronization calls were covered, but not the order of the memory accesses between them: \
                 --interleave memory makes every load and store of shared memory a scheduling point (data races, spin-waits)"
            );
        }
        conclusion.finish(&a.output).map_err(internal)?;
        return Ok(exit::OK);
    };
    // What `syncmut replay DIR` needs besides the files below.
    let replay = serde_json::json!({
        "args": a.args,
        "timeout_secs": a.timeout.max(1),
        "nondet_seed": found.input_seed,
        "nondet": found.given.nondet,
        "inputs": found.given.inputs,
    });
    let text = explore::render_counterexample(&build.catalogue, &found);
    let schedule_file = a.output.join(COUNTEREXAMPLE_SCHEDULE);
    let trace_file = a.output.join(COUNTEREXAMPLE_TRACE);
    let save = |path: &PathBuf, bytes: &[u8]| {
        syncmut_runtime::atomic::write(path, bytes)
            .with_context(|| format!("{}: cannot write", path.display()))
            .map_err(internal)
    };
    save(&schedule_file, found.schedule_text.as_bytes())?;
    save(&trace_file, &syncmut_runtime::trace::to_jsonl(&found.trace))?;
    save(&a.output.join("counterexample.txt"), text.as_bytes())?;
    save(
        &a.output.join(COUNTEREXAMPLE_RUN),
        &serde_json::to_vec_pretty(&replay).expect("json"),
    )?;
    println!("\nBUG {text}");
    // Every path in the hint absolute, so it works from any directory.
    let absolute = |p: &PathBuf| {
        std::fs::canonicalize(p)
            .unwrap_or_else(|_| p.clone())
            .display()
            .to_string()
    };
    let args: Vec<String> = a.args.iter().map(|arg| shell_word(arg)).collect();
    // The drawn values, as the list the runtime hands out in call order.
    let inputs = Invocation {
        nondet: found.given.nondet.clone(),
        inputs: found.given.inputs.clone(),
        ..Invocation::new(&build.metamutant, &[])
    };
    let inputs: String = inputs
        .env()
        .iter()
        .map(|(k, v)| format!("{k}={} ", shell_word(v)))
        .collect();
    println!(
        "schedule saved to {}; replay it with (or `syncmut replay {}`):\n  {inputs}SYNCMUT_SCHEDULE=replay:{} SYNCMUT_TRACE=trace.bin {} {}\n(the runtime writes its trace in binary; {} is the same trace as JSON Lines)",
        absolute(&schedule_file),
        shell_word(&absolute(&a.output)),
        shell_word(&absolute(&schedule_file)),
        shell_word(&absolute(&build.metamutant)),
        args.join(" "),
        absolute(&trace_file)
    );
    conclusion.finish(&a.output).map_err(internal)?;
    Ok(exit::BUG_FOUND)
}

/// What a pct exploration covered: its parameters, where they came from, and PCT's bound
/// on the chance that a bug of its depth was missed.
fn pct_coverage(plan: &PctPlan, runs: usize, found: bool) -> String {
    let chosen = |yes: bool| if yes { " (chosen)" } else { "" };
    let d = plan.depth;
    let mut text = format!(
        "pct depth {d}{}, budget {} distinct schedules{}, for {} thread(s) and {} scheduling point(s) in the first run: \
         a run finds a given depth-{d} bug with probability at least 1/(n·k^(d-1)) = 1/{:.0}",
        chosen(plan.choose.depth),
        plan.schedules,
        chosen(plan.choose.schedules),
        plan.threads,
        plan.steps,
        1.0 / plan.per_run()
    );
    if !found {
        // The first run is `default`, not a pct draw.
        let draws = runs.saturating_sub(1);
        text.push_str(&format!(
            "; the probability that all {draws} pct runs missed it is at most {} (runs longer than k steps weaken the bound)",
            percent(plan.miss_bound(draws))
        ));
    }
    text
}

/// A probability as a percentage with one decimal, never rounded down to zero.
fn percent(p: f64) -> String {
    if p > 0.0 && p < 0.001 {
        "< 0.1%".to_string()
    } else {
        format!("{:.1}%", p * 100.0)
    }
}

/// Whether the runs check data races: `--races`, or the property no-data-race.
fn races(a: &ExploreArgs) -> bool {
    a.races || crate::explore_verdict::properties(a).contains(Property::NoDataRace)
}

fn shell_word(word: &str) -> String {
    if !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-=:,+@".contains(c))
    {
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
pub fn replay_counterexample(dir: &std::path::Path) -> Result<i32, crate::failure::Failure> {
    let usage = |message: String| crate::failure::Failure {
        code: exit::USAGE,
        error: anyhow::anyhow!(message),
    };
    let schedule = dir.join(COUNTEREXAMPLE_SCHEDULE);
    if !schedule.exists() {
        let what = if dir.join(syncmut_oracle::outdir::OUTCOMES).exists() {
            "a run directory: name the mutant to replay"
        } else {
            "neither a run directory nor an explore directory with a counterexample"
        };
        return Err(usage(format!("{}: {what}", dir.display())));
    }
    let run: serde_json::Value = std::fs::read(dir.join(COUNTEREXAMPLE_RUN))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .ok_or_else(|| {
            usage(format!(
                "{}: missing or unreadable; explore this design again to replay it",
                dir.join(COUNTEREXAMPLE_RUN).display()
            ))
        })?;
    let args: Vec<String> = run["args"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|a| a.as_str().map(String::from))
        .collect();
    // The input values the run was given (drawn ones included), in call order.
    let nondet: Vec<i128> = run["nondet"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_i64().map(i128::from).or(v.as_u64().map(i128::from)))
        .collect();
    let inputs: std::collections::BTreeMap<String, i64> = run["inputs"]
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| Some((k.clone(), v.as_i64()?)))
        .collect();
    let saved_path = dir.join(COUNTEREXAMPLE_TRACE);
    let saved = syncmut_runtime::trace::read(&saved_path).map_err(usage)?;
    let replay_path = dir.join(syncmut_runtime::trace::binary_name("replay"));
    let invocation = Invocation {
        active: Some(String::new()),
        trace: Some(replay_path.clone()),
        schedule: Some(format!("replay:{}", schedule.display())),
        nondet,
        inputs,
        limits: Limits {
            timeout: std::time::Duration::from_secs(run["timeout_secs"].as_u64().unwrap_or(10)),
            ..Limits::default()
        },
        ..Invocation::new(&dir.join(metamutant::layout::METAMUTANT_EXE), &args)
    };
    let execution = invocation.run().map_err(|e| crate::failure::Failure {
        code: exit::INTERNAL,
        error: anyhow::anyhow!("{}: cannot run: {e}", dir.display()),
    })?;
    let replayed = syncmut_runtime::trace::read(&replay_path).map_err(usage)?;
    let _ = std::fs::remove_file(&replay_path);
    // Named as explore named it (an assertion, not "killed by SIGABRT").
    let shows = match syncmut_oracle::explore::classify(&execution, &replayed) {
        Some((kind, line)) => format!("{kind}: {line}"),
        None => execution.status.to_string(),
    };
    println!("counterexample of {}: {shows}", dir.display());
    crate::results::reproduced(&replayed, &saved, &saved_path)
}
