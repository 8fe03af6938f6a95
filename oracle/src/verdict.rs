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
    /// On every test that reaches it, an exhaustive dfs search showed the mutant behaving
    /// exactly as the original under every schedule within the bound: left out of the
    /// score's denominator.
    EquivalentExhaustive,
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
            Verdict::EquivalentExhaustive => "equivalent-exhaustive",
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
        return (Verdict::KilledByCrash, format!("the mutant died of signal {signal} ({})", syncmut_runtime::exec::signal_name(signal)));
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
        return (Verdict::KilledByOutput, format!("{} instead of {}", mutant.status, original.status));
    }
    if mutant.stdout != original.stdout {
        return (Verdict::KilledByOutput, output_difference(&original.stdout, &mutant.stdout));
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
        let summary = |sites: &[u32]| match sites {
            [] => "none".to_string(),
            sites => crate::outcome::LostNotifications::count(sites).summary(label),
        };
        return (
            Verdict::KilledByTrace,
            format!("lost notifications differ: {} instead of {}", summary(&mutant.lost_notifications), summary(&original.lost_notifications)),
        );
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

/// Where two outputs first differ, for a reason: the line number and both lines, capped.
pub fn output_difference(original: &str, mutant: &str) -> String {
    let line = original.lines().zip(mutant.lines()).position(|(a, b)| a != b);
    match line {
        Some(i) => format!(
            "stdout line {}: {} instead of {}",
            i + 1,
            excerpt(mutant.lines().nth(i).unwrap_or("")),
            excerpt(original.lines().nth(i).unwrap_or(""))
        ),
        None => format!("stdout has {} lines instead of {}", mutant.lines().count(), original.lines().count()),
    }
}

/// Longest output line a reason quotes whole: reasons land in terminal tables and
/// `outcomes.json`, where a megabyte line helps nobody.
const EXCERPT_CHARS: usize = 200;

/// A line quoted for a reason, capped at [`EXCERPT_CHARS`] and saying so.
fn excerpt(line: &str) -> String {
    let total = line.chars().count();
    if total <= EXCERPT_CHARS {
        return format!("{line:?}");
    }
    let head: String = line.chars().take(EXCERPT_CHARS).collect();
    format!("{head:?}… ({total} characters, capped)")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A clean run: exit 0, two lines of output, `main` reaching site 0.
    fn clean() -> Observation {
        let execution = syncmut_runtime::exec::Execution {
            status: Status::Exited(0),
            stdout: "start\nsum 6\n".to_string(),
            stderr: String::new(),
            output_truncated: false,
            elapsed: std::time::Duration::ZERO,
        };
        let trace = syncmut_runtime::trace::Trace {
            events: vec![syncmut_runtime::trace::Event {
                seq: 0,
                site: 0,
                action: "original".into(),
                thread: "main".into(),
                time: None,
                delta: None,
                lost: false,
                state: Default::default(),
            }],
            ..Default::default()
        };
        Observation::new(&execution, &trace, &[])
    }

    fn judged(original: &Observation, mutant: &Observation, stderr: &str) -> (Verdict, String) {
        judge(original, mutant, stderr, &|site| format!("lock @ a.c:{site}"))
    }

    fn verdict(v: Verdict, reason: &str) -> (Verdict, String) {
        (v, reason.to_string())
    }

    #[test]
    fn the_same_observation_survives() {
        assert_eq!(judged(&clean(), &clean(), ""), verdict(Verdict::Survived, ""));
        // Both crash, deadlock or time out alike: nothing tells them apart.
        for change in [
            |o: &mut Observation| o.status = Status::Signaled(libc::SIGSEGV),
            |o: &mut Observation| o.status = Status::TimedOut,
            |o: &mut Observation| {
                o.deadlock = true;
                o.pending = vec![("t1".to_string(), Some(3))];
            },
        ] {
            let (mut original, mut mutant) = (clean(), clean());
            change(&mut original);
            change(&mut mutant);
            assert_eq!(judged(&original, &mutant, ""), verdict(Verdict::Survived, ""));
        }
    }

    #[test]
    fn a_signal_is_a_crash_or_an_assertion() {
        let mut mutant = clean();
        mutant.status = Status::Signaled(libc::SIGSEGV);
        // A crash wins over everything else the mutant did.
        mutant.deadlock = true;
        mutant.stdout = "other".to_string();
        assert_eq!(judged(&clean(), &mutant, ""), verdict(Verdict::KilledByCrash, "the mutant died of signal 11 (SIGSEGV)"));
        mutant.status = Status::Signaled(libc::SIGABRT);
        assert_eq!(judged(&clean(), &mutant, "free(): invalid pointer\n"), verdict(Verdict::KilledByCrash, "the mutant died of signal 6 (SIGABRT)"));
        let stderr = "log line\nbank: bank.c:40: main: Assertion `total == 200' failed.\n";
        assert_eq!(
            judged(&clean(), &mutant, stderr),
            verdict(Verdict::KilledByAssertion, "assertion failed: bank: bank.c:40: main: Assertion `total == 200' failed.")
        );
        mutant.status = Status::Signaled(64);
        assert_eq!(judged(&clean(), &mutant, ""), verdict(Verdict::KilledByCrash, "the mutant died of signal 64 (signal)"));
    }

    #[test]
    fn a_new_deadlock_names_who_waits_where() {
        let mut mutant = clean();
        mutant.deadlock = true;
        mutant.livelock = true;
        mutant.pending = vec![("t1".to_string(), Some(3)), ("t2".to_string(), None)];
        assert_eq!(judged(&clean(), &mutant, ""), verdict(Verdict::KilledByDeadlock, "deadlock: t1 waits at lock @ a.c:3, t2 waits"));
        mutant.pending.clear();
        assert_eq!(judged(&clean(), &mutant, ""), verdict(Verdict::KilledByDeadlock, "deadlock: no thread waiting"));
    }

    #[test]
    fn a_new_livelock_names_the_spinning_thread_if_known() {
        let mut mutant = clean();
        mutant.livelock = true;
        mutant.status = Status::TimedOut;
        assert_eq!(judged(&clean(), &mutant, ""), verdict(Verdict::KilledByLivelock, "livelock: kept running without making progress"));
        mutant.livelock_thread = Some("m.t1".to_string());
        assert_eq!(judged(&clean(), &mutant, ""), verdict(Verdict::KilledByLivelock, "livelock: m.t1: kept running without making progress"));
        mutant.livelock_site = Some(2);
        assert_eq!(
            judged(&clean(), &mutant, ""),
            verdict(Verdict::KilledByLivelock, "livelock: m.t1 at lock @ a.c:2: kept running without making progress")
        );
    }

    #[test]
    fn the_thread_limit_is_a_crash_and_a_timeout_its_own_verdict() {
        let mut mutant = clean();
        mutant.status = Status::Exited(syncmut_runtime::status::THREAD_LIMIT);
        assert_eq!(
            judged(&clean(), &mutant, ""),
            verdict(Verdict::KilledByCrash, "resource limit: the mutant kept more than 1024 threads alive or unjoined at once (the runtime's thread limit)")
        );
        mutant.status = Status::TimedOut;
        assert_eq!(judged(&clean(), &mutant, ""), verdict(Verdict::KilledByTimeout, "the mutant ran past its timeout"));
    }

    #[test]
    fn output_differences_name_the_status_or_the_first_line() {
        let mut mutant = clean();
        mutant.status = Status::Exited(1);
        mutant.stdout = "other".to_string();
        assert_eq!(judged(&clean(), &mutant, ""), verdict(Verdict::KilledByOutput, "exit 1 instead of exit 0"));
        // The original timed out but the mutant finished: a changed status, not a timeout.
        let mut original = clean();
        original.status = Status::TimedOut;
        assert_eq!(judged(&original, &clean(), ""), verdict(Verdict::KilledByOutput, "exit 0 instead of timed out"));
        let mut mutant = clean();
        mutant.stdout = "start\nsum 5\n".to_string();
        mutant.lost_notifications = vec![1];
        assert_eq!(judged(&clean(), &mutant, ""), verdict(Verdict::KilledByOutput, "stdout line 2: \"sum 5\" instead of \"sum 6\""));
        mutant.stdout = "start\n".to_string();
        assert_eq!(judged(&clean(), &mutant, ""), verdict(Verdict::KilledByOutput, "stdout has 1 lines instead of 2"));
    }

    #[test]
    fn a_long_output_line_is_quoted_capped_and_says_so() {
        let long = "x".repeat(1_048_576);
        let reason = output_difference("short\n", &format!("{long}\n"));
        assert!(reason.len() < 400, "{} characters", reason.len());
        assert!(reason.ends_with("instead of \"short\"") && reason.contains("(1048576 characters, capped)"), "{reason}");
    }

    #[test]
    fn the_same_output_with_other_synchronization_is_killed_by_trace() {
        let mut original = clean();
        original.deadlock = true;
        original.pending = vec![("t1".to_string(), Some(0))];
        assert_eq!(
            judged(&original, &clean(), ""),
            verdict(Verdict::KilledByTrace, "the original deadlocks (t1 waits at lock @ a.c:0) but the mutant does not")
        );
        let mut original = clean();
        original.pending = vec![("t1".to_string(), None)];
        assert_eq!(judged(&original, &clean(), ""), verdict(Verdict::KilledByTrace, "threads left waiting differ: no thread waiting instead of t1 waits"));
        let mut mutant = clean();
        mutant.threads.get_mut("main").unwrap()[0].site = 1;
        mutant.lost_notifications = vec![1];
        assert_eq!(
            judged(&clean(), &mutant, ""),
            verdict(Verdict::KilledByTrace, "synchronization behaviour differs: main reaches lock @ a.c:1 instead of lock @ a.c:0")
        );
        let mut mutant = clean();
        mutant.lost_notifications = vec![1];
        mutant.lost_notifications = vec![1, 1];
        assert_eq!(
            judged(&clean(), &mutant, ""),
            verdict(Verdict::KilledByTrace, "lost notifications differ: 2 notifies with no waiter, 1 site: lock @ a.c:1 (2) instead of none")
        );
    }

    #[test]
    fn every_killed_verdict_and_only_those_count_as_killed() {
        let killed = [
            Verdict::KilledByOutput,
            Verdict::KilledByAssertion,
            Verdict::KilledByDeadlock,
            Verdict::KilledByCrash,
            Verdict::KilledByLivelock,
            Verdict::KilledByTimeout,
            Verdict::KilledByTrace,
        ];
        for v in killed {
            assert!(v.is_killed(), "{v}");
            assert!(v.name().starts_with("killed-by-"), "{v}");
        }
        for v in [Verdict::Survived, Verdict::NotReached, Verdict::Error] {
            assert!(!v.is_killed(), "{v}");
        }
    }
}
