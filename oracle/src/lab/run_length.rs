//! The original's run length on a pthread test: the scheduling points of its `default`
//! run, which place pct's change points and bound the mutants' steps. The measuring run
//! is also the first sign of a test whose original never ends.

use super::run_served;
use super::traces::{observe, Lens};
use crate::mask::Mask;
use crate::observation::Observation;
use crate::outdir::{self, OutDir};
use std::cell::RefCell;
use std::path::Path;
use syncmut_mutator::metamutant::Build;
use syncmut_runner::exec::{Execution, Limits, Status};
use syncmut_runner::fork_server::ForkServer;
use syncmut_runner::invocation::Invocation;
use syncmut_runner::test_case::TestCase;
use syncmut_runtime::schedule;

/// What the measuring run found.
pub(super) struct Measured {
    /// Scheduling points of the run; 1000 when they cannot be measured.
    pub(super) steps: u64,
    /// The run and what its trace says, when it did not end on a test without input
    /// values: it was then the test's own first run under `default`, which the controlled
    /// scheduler makes deterministic, so the baseline's would time out the same way.
    pub(super) timed_out: Option<(Execution, Observation)>,
}

/// Runs the original under `default` on `test`, through the test's fork `server` when
/// given, and measures its length.
pub(super) fn measure(
    build: &Build,
    test: &TestCase,
    out: &OutDir,
    limits: &Limits,
    server: Option<&RefCell<ForkServer>>,
) -> Measured {
    let dir = out.path(Path::new(outdir::TRACE_DIR).join(&test.name));
    let _ = std::fs::create_dir_all(&dir);
    let (file, trace) = (
        dir.join("original.steps.schedule"),
        dir.join("original.steps.trace"),
    );
    // Without the test's input values, as the measurement has always run. Only then is
    // it the test's own first run, whose trace says how it ended if it times out.
    let without_inputs = test.nondet.is_empty() && test.inputs.is_empty();
    let measuring = Invocation {
        active: Some(String::new()),
        trace: without_inputs.then(|| trace.clone()),
        schedule: Some("default".to_string()),
        schedule_out: Some(file.clone()),
        limits: *limits,
        work_root: Some(out.path(outdir::WORK_DIR)),
        ..Invocation::in_setting(&build.metamutant, test)
    };
    // The input values travel in `SYNCMUT_*` variables, chosen per run: the test's server
    // serves this run too.
    let run = run_served(&measuring, server).ok();
    let steps = std::fs::read_to_string(&file)
        .ok()
        .and_then(|t| schedule::parse(&t).ok())
        .and_then(|s| s.steps);
    let timed_out = run
        .filter(|run| run.status == Status::TimedOut && without_inputs)
        .and_then(|run| {
            let nothing_masked = Lens {
                hidden: &[],
                mask: &Mask::default(),
            };
            let observation = observe(&run, &trace, nothing_masked).ok()?;
            Some((run, observation))
        });
    let _ = std::fs::remove_file(&file);
    let _ = std::fs::remove_file(&trace);
    Measured {
        steps: steps.unwrap_or(1000).max(1),
        timed_out,
    }
}
