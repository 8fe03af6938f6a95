//! Commands over a finished run directory: `report` and `explain`.

use crate::exit;
use crate::failure::Failure;
use anyhow::Context as _;
use syncmut_mutator::metamutant;
use syncmut_oracle::report;

/// Reads the catalogue and outcomes saved in a run directory.
fn saved_results(
    dir: &std::path::Path,
) -> Result<(syncmut_mutator::Catalogue, syncmut_oracle::Outcomes), Failure> {
    fn load<T: serde::de::DeserializeOwned>(
        dir: &std::path::Path,
        name: &str,
    ) -> anyhow::Result<T> {
        let path = dir.join(name);
        let bytes = std::fs::read(&path).with_context(|| {
            format!(
                "{}: cannot read (is {} a syncmut run directory?)",
                path.display(),
                dir.display()
            )
        })?;
        serde_json::from_slice(&bytes)
            .with_context(|| format!("{}: not a valid {name}", path.display()))
    }
    let usage = |error: anyhow::Error| Failure {
        code: exit::USAGE,
        error,
    };
    let catalogue = load(dir, metamutant::layout::CATALOGUE).map_err(usage)?;
    let outcomes = load(dir, syncmut_oracle::outdir::OUTCOMES).map_err(usage)?;
    Ok((catalogue, outcomes))
}

pub fn explain_command(dir: &std::path::Path, id: &str) -> Result<i32, Failure> {
    let (catalogue, outcomes) = saved_results(dir)?;
    let usage = |message: String| Failure {
        code: exit::USAGE,
        error: anyhow::anyhow!(message),
    };
    let mutant = catalogue.mutant(id).ok_or_else(|| {
        usage(format!(
            "{}: no mutant {id:?} (see mutants.json)",
            dir.display()
        ))
    })?;
    let outcome = outcomes
        .mutants
        .iter()
        .find(|m| m.mutant == id)
        .ok_or_else(|| usage(format!("{id}: not run yet")))?;
    if let Some((program_dir, own_id, _)) = outcome
        .killed_by
        .as_deref()
        .and_then(|test| crate::program_union::locate(dir, mutant, test))
    {
        // A run of several programs: the traces are in the killing program's directory.
        return explain_command(&program_dir, &own_id);
    }
    let Some(test) = outcome.killed_by.as_deref() else {
        println!(
            "mutant {id}: {} — {}
only killed mutants keep their traces; nothing to compare",
            outcome.verdict, outcome.reason
        );
        return Ok(exit::OK);
    };
    let schedule = outcome
        .runs
        .iter()
        .find(|r| r.test == test)
        .and_then(|r| r.schedule.as_deref());
    let trace_of = |mutant: Option<&str>| -> Result<syncmut_runtime::trace::Trace, Failure> {
        syncmut_runtime::trace::read(&syncmut_oracle::outdir::trace_file(
            dir, test, mutant, schedule,
        ))
        .map_err(usage)
    };
    let original = trace_of(None)?;
    let mutated = trace_of(Some(id))?;
    let verdict_line = format!("{}: {}", outcome.verdict, outcome.reason);
    let stderr_of = |mutant: Option<&str>| {
        let trace = syncmut_oracle::outdir::trace_file(dir, test, mutant, schedule);
        std::fs::read(syncmut_oracle::outdir::stderr_file(&trace))
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default()
    };
    let stderr = syncmut_oracle::explain::Stderr {
        original: stderr_of(None),
        mutant: stderr_of(Some(id)),
    };
    print!(
        "{}",
        syncmut_oracle::explain::render(
            &catalogue,
            mutant,
            test,
            &verdict_line,
            &original,
            &mutated,
            &stderr
        )
    );
    Ok(exit::OK)
}

pub fn report_command(
    dir: &std::path::Path,
    format: report::Format,
    output: Option<&std::path::Path>,
) -> Result<i32, Failure> {
    if let Some(path) = output.filter(|p| syncmut_oracle::outdir::holds(dir, p)) {
        return Err(Failure {
            code: exit::USAGE,
            error: anyhow::anyhow!(
                "{}: inside the run directory {}, where it would replace the results or build files syncmut keeps there; write the report elsewhere, or to a new file name at its top",
                path.display(),
                dir.display()
            ),
        });
    }
    let (catalogue, outcomes) = saved_results(dir)?;
    let bytes = report::render_in(Some(dir), format, &catalogue, &outcomes);
    match output {
        Some(path) => syncmut_runtime::atomic::write(path, &bytes)
            .with_context(|| format!("{}: cannot write", path.display()))?,
        None => {
            use std::io::Write;
            std::io::stdout()
                .write_all(&bytes)
                .context("write the report")?;
        }
    }
    Ok(exit::OK)
}

pub fn parse_format(name: &str) -> Result<report::Format, String> {
    report::Format::ALL
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, f)| *f)
        .ok_or_else(|| {
            let names: Vec<&str> = report::Format::ALL.iter().map(|(n, _)| *n).collect();
            format!("unknown format {name:?}; one of: {}", names.join(", "))
        })
}

/// `syncmut replay`: runs the mutant again exactly as when it was judged (same test,
/// same schedule) and compares the new trace with the saved one.
pub fn replay_command(dir: &std::path::Path, id: &str, test: Option<&str>) -> Result<i32, Failure> {
    use syncmut_oracle::outdir;
    use syncmut_runner::{exec, invocation, Invocation};
    use syncmut_runtime::trace;
    let (catalogue, outcomes) = saved_results(dir)?;
    let usage = |message: String| Failure {
        code: exit::USAGE,
        error: anyhow::anyhow!(message),
    };
    let mutant = catalogue.mutant(id).ok_or_else(|| {
        usage(format!(
            "{}: no mutant {id:?} (see mutants.json)",
            dir.display()
        ))
    })?;
    let outcome = outcomes
        .mutants
        .iter()
        .find(|m| m.mutant == id)
        .ok_or_else(|| usage(format!("{id}: not run yet")))?;
    let test = test.or(outcome.killed_by.as_deref()).ok_or_else(|| {
        usage(format!(
            "{id} was not killed ({}); name a test to replay",
            outcome.verdict
        ))
    })?;
    let run = outcome
        .runs
        .iter()
        .find(|r| r.test == test)
        .ok_or_else(|| usage(format!("{id} was not run on test {test}")))?;
    if let Some((program_dir, own_id, own_test)) = crate::program_union::locate(dir, mutant, test) {
        // A run of several programs: the program's own run directory has its metamutant.
        return replay_command(&program_dir, &own_id, Some(&own_test));
    }
    if run.schedule.as_deref() == Some("native") {
        return Err(usage(format!(
            "{id} was killed on test {test} by a run with real threads (--native), which no schedule records: it cannot be replayed; run it again with `SYNCMUT_ACTIVE={} {} {}`",
            mutant.activation(),
            dir.join(metamutant::layout::METAMUTANT_EXE).display(),
            run.test
        )));
    }
    let tests_path = dir.join(outdir::TESTS);
    let tests = syncmut_runner::test_case::load_saved(&tests_path).map_err(|e| Failure {
        code: exit::USAGE,
        error: anyhow::anyhow!(e),
    })?;
    // Arguments and input values (nondet list, named inputs) exactly as judged.
    let case = tests
        .into_iter()
        .find(|t| t.name == test)
        .unwrap_or_default();
    let saved_path = outdir::trace_file(dir, test, Some(id), run.schedule.as_deref());
    let saved = trace::read(&saved_path).map_err(usage)?;
    let replay_path = dir.join(trace::binary_name(&format!(
        "replay-{}",
        outdir::file_name(id)
    )));
    let schedule = (catalogue.kind == syncmut_mutator::api::Family::Pthread).then(|| {
        let tag = run.schedule.as_deref().unwrap_or("default");
        syncmut_oracle::lab::schedule_value(dir, test, Some(id), tag)
    });
    let metamutant = dir.join(metamutant::layout::METAMUTANT_EXE);
    let replay = Invocation {
        active: Some(mutant.activation()),
        trace: Some(replay_path.clone()),
        schedule,
        limits: exec::Limits {
            timeout: invocation::timeout_after(std::time::Duration::from_millis(run.elapsed_ms)),
            ..exec::Limits::default()
        },
        ..Invocation::for_test(&metamutant, &case)
    };
    let execution = replay
        .run()
        .with_context(|| format!("{}: cannot run", metamutant.display()))?;
    // The saved trace is capped: compare the replay on the events it kept, and on the
    // number of events in each run it left out.
    let gap_of = |seq: u64| {
        saved
            .omitted
            .iter()
            .position(|g| g.first_seq <= seq && seq <= g.last_seq)
    };
    let mut events = Vec::new();
    let mut omitted_counts = vec![0u64; saved.omitted.len()];
    let mut replayed = trace::visit(&replay_path, &mut |event| match gap_of(event.seq) {
        Some(gap) => omitted_counts[gap] += 1,
        None => events.push(event),
    })
    .map_err(usage)?;
    replayed.events = events;
    replayed.omitted = saved
        .omitted
        .iter()
        .zip(&omitted_counts)
        .filter(|(_, n)| **n > 0)
        .map(|(g, n)| trace::Omitted {
            events: *n,
            ..g.clone()
        })
        .collect();
    let _ = std::fs::remove_file(&replay_path);
    let schedule = run.schedule.as_deref().unwrap_or("default schedule");
    println!(
        "mutant {id} on test {test} ({schedule}): {}",
        execution.status
    );
    for line in syncmut_oracle::diff::lines(&catalogue, &replayed) {
        println!("  {line}");
    }
    reproduced(&replayed, &saved, &saved_path)
}

/// Whether a replayed trace is the saved one: exit 0 saying so, or exit 10 naming the
/// first event where they part (`replay` of a mutant and of a counterexample).
pub fn reproduced(
    replayed: &syncmut_runtime::trace::Trace,
    saved: &syncmut_runtime::trace::Trace,
    saved_path: &std::path::Path,
) -> Result<i32, Failure> {
    if replayed.events == saved.events
        && replayed.omitted == saved.omitted
        && replayed.end == saved.end
    {
        println!(
            "reproduced: the trace is identical to {}",
            saved_path.display()
        );
        Ok(exit::OK)
    } else {
        let at = replayed
            .events
            .iter()
            .zip(&saved.events)
            .position(|(a, b)| a != b)
            .unwrap_or(replayed.events.len().min(saved.events.len()));
        Err(Failure {
            code: exit::NOT_REPRODUCED,
            error: anyhow::anyhow!(
                "the replay differs from {} from event {} on",
                saved_path.display(),
                at + 1
            ),
        })
    }
}
