//! Verdicts: how a mutant fared on a test, and on the whole suite.

use syncmut_runtime::exec::Status;
use crate::observation::Observation;
use serde::{Deserialize, Serialize};

/// The outcome of running a mutant (on one test, or summarised over all tests).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// stdout or the exit status differ from the original's.
    KilledByOutput,
    /// The mutant failed an assertion (abort with an assertion message).
    KilledByAssertion,
    /// The mutant ended with threads blocked forever; the original did not.
    KilledByDeadlock,
    /// The mutant died of a signal; the original did not.
    KilledByCrash,
    /// The mutant spun without progress (delta cycles or steps bound); the original did not.
    KilledByLivelock,
    /// The mutant ran past its timeout, and the runtime could not say why.
    KilledByTimeout,
    /// Output is the same, but the observable synchronization behaviour differs.
    KilledByTrace,
    /// No test told the mutant from the original.
    Survived,
    /// No test reaches the mutated call, so it was not run.
    NotReached,
    /// The run could not be judged (reason given).
    Error,
}

impl Verdict {
    /// Whether some test detected the mutant.
    pub fn is_killed(self) -> bool {
        matches!(
            self,
            Verdict::KilledByOutput
                | Verdict::KilledByAssertion
                | Verdict::KilledByDeadlock
                | Verdict::KilledByCrash
                | Verdict::KilledByLivelock
                | Verdict::KilledByTimeout
                | Verdict::KilledByTrace
        )
    }

    /// The kebab-case name used in every report.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::KilledByOutput => "killed-by-output",
            Verdict::KilledByAssertion => "killed-by-assertion",
            Verdict::KilledByDeadlock => "killed-by-deadlock",
            Verdict::KilledByCrash => "killed-by-crash",
            Verdict::KilledByLivelock => "killed-by-livelock",
            Verdict::KilledByTimeout => "killed-by-timeout",
            Verdict::KilledByTrace => "killed-by-trace",
            Verdict::Survived => "survived",
            Verdict::NotReached => "not-reached",
            Verdict::Error => "error",
        }
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Compares a mutant's observation with the original's on the same test. The order of
/// the checks is the order of severity: the most specific explanation wins.
/// `label` names a site for the reason text (`wait(e) @ file.cpp:18`).
pub fn judge(original: &Observation, mutant: &Observation, mutant_stderr: &str, label: &dyn Fn(u32) -> String) -> (Verdict, String) {
    let describe_pending = |pending: &[(String, Option<u32>)]| describe_pending(pending, label);
    let crashed = |o: &Observation| matches!(o.status, Status::Signaled(_));
    if crashed(mutant) && !crashed(original) {
        let Status::Signaled(signal) = mutant.status else { unreachable!() };
        if signal == libc::SIGABRT && mutant_stderr.contains("Assertion") {
            let line = mutant_stderr.lines().find(|l| l.contains("Assertion")).unwrap_or("").trim();
            return (Verdict::KilledByAssertion, format!("assertion failed: {line}"));
        }
        return (Verdict::KilledByCrash, format!("the mutant died of signal {signal} ({})", signal_name(signal)));
    }
    if mutant.deadlock && !original.deadlock {
        return (Verdict::KilledByDeadlock, format!("deadlock: {}", describe_pending(&mutant.pending)));
    }
    if mutant.livelock && !original.livelock {
        let culprit = match (&mutant.livelock_thread, mutant.livelock_site) {
            (Some(thread), Some(site)) => format!(": {thread} at {}", label(site)),
            (Some(thread), None) => format!(": {thread}"),
            _ => String::new(),
        };
        return (Verdict::KilledByLivelock, format!("livelock{culprit}: kept running without making progress"));
    }
    if mutant.status == Status::Exited(syncmut_runtime::status::THREAD_LIMIT) && original.status != mutant.status {
        return (Verdict::KilledByCrash, "resource limit: the mutant kept more than 1024 threads alive or unjoined at once (the runtime's thread limit)".to_string());
    }
    if mutant.status == Status::TimedOut && original.status != Status::TimedOut {
        return (Verdict::KilledByTimeout, "the mutant ran past its timeout".to_string());
    }
    if mutant.status != original.status {
        return (Verdict::KilledByOutput, format!("exit status {:?} instead of {:?}", mutant.status, original.status));
    }
    if mutant.stdout != original.stdout {
        return (Verdict::KilledByOutput, first_output_difference(&original.stdout, &mutant.stdout));
    }
    if mutant.deadlock != original.deadlock || mutant.pending != original.pending {
        let what = if original.deadlock && !mutant.deadlock {
            format!("the original deadlocks ({}) but the mutant does not", describe_pending(&original.pending))
        } else {
            format!("threads left waiting differ: {} instead of {}", describe_pending(&mutant.pending), describe_pending(&original.pending))
        };
        return (Verdict::KilledByTrace, what);
    }
    if let Some(difference) = original.first_step_difference(mutant, label) {
        return (Verdict::KilledByTrace, format!("synchronization behaviour differs: {difference}"));
    }
    if mutant.lost_notifications != original.lost_notifications {
        return (Verdict::KilledByTrace, "lost notifications differ".to_string());
    }
    (Verdict::Survived, String::new())
}

fn describe_pending(pending: &[(String, Option<u32>)], label: &dyn Fn(u32) -> String) -> String {
    if pending.is_empty() {
        return "no thread waiting".to_string();
    }
    pending
        .iter()
        .map(|(thread, site)| match site {
            Some(site) => format!("{thread} waits at {}", label(*site)),
            None => format!("{thread} waits"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn first_output_difference(original: &str, mutant: &str) -> String {
    let line = original.lines().zip(mutant.lines()).position(|(a, b)| a != b);
    match line {
        Some(i) => format!(
            "stdout line {}: {:?} instead of {:?}",
            i + 1,
            mutant.lines().nth(i).unwrap_or(""),
            original.lines().nth(i).unwrap_or("")
        ),
        None => format!("stdout has {} lines instead of {}", mutant.lines().count(), original.lines().count()),
    }
}

fn signal_name(signal: i32) -> &'static str {
    match signal {
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGILL => "SIGILL",
        libc::SIGKILL => "SIGKILL",
        libc::SIGTERM => "SIGTERM",
        _ => "signal",
    }
}
