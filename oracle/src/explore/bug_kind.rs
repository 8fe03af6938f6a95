//! The kinds of bug a run can show: what `explore` reports and properties forbid.

/// Kinds of bug a run can show.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BugKind {
    /// SIGABRT with an assertion message: a failed `assert`, `reach_error` (`assert(0)`),
    /// `__VERIFIER_error` (`verdict::failed_assertion`, shared with `run`).
    Assertion,
    /// Another fatal signal, or an `abort()` without an assertion message.
    Crash,
    /// The scheduler found no runnable thread while some had not finished.
    Deadlock,
    /// The scheduler's step budget ran out.
    Livelock,
    /// The run did not end within the timeout (spinning outside scheduling points).
    Hang,
    /// Two accesses to one location, at least one a write, that no synchronization
    /// orders (`--races`): a bug in every schedule where both run.
    DataRace,
}

impl std::fmt::Display for BugKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            BugKind::Assertion => "assertion failure",
            BugKind::Crash => "crash",
            BugKind::Deadlock => "deadlock",
            BugKind::Livelock => "livelock",
            BugKind::Hang => "hang (timeout)",
            BugKind::DataRace => "data race",
        })
    }
}
